"""Shared fit / partial_fit / result plumbing of the non-evolutionary baselines.

k-meansCOT, AFFECT and E2SC produce one partition per step and no
population.  They share the estimator contract of :class:`ercot_nb.ERCOT`
(``fit``, ``fit_predict``, ``partial_fit``, ``labels_``, ``result_``,
``n_clusters_``, ``alpha_``) through :class:`TemporalBaseline`; each
subclass implements :meth:`TemporalBaseline._cluster_step` and, where it
refuses some data, :meth:`TemporalBaseline._check_snapshot`.
"""
from __future__ import annotations

import time as _time
import numpy as np

from ..base import TemporalEstimator, run_params, run_seed, seeded_generator
from ..data import Snapshot, TemporalDataset, common_ids
from ..result import ClusteringResult, StepResult


def same_sample_set(previous: Snapshot, current: Snapshot) -> tuple[int, int]:
    """Numbers of samples added and removed between two steps (by id).

    Returns
    -------
    n_added, n_removed : int
    """
    _, in_current = common_ids(previous, current)
    n_common = len(in_current)
    return current.n_samples - n_common, previous.n_samples - n_common


class TemporalBaseline(TemporalEstimator):
    """Estimator contract shared by the baselines (one partition per step).

    Subclasses define ``__init__`` (parameters only, ending with ``seed`` and
    ``progress``), ``_algorithm_name``, :meth:`_reset_state`,
    :meth:`_cluster_step` and optionally :meth:`_validate_params` and
    :meth:`_check_snapshot`.
    """

    _algorithm_name = "baseline"

    # -- hooks for subclasses ----------------------------------------------------------
    def _reset_state(self) -> None:
        """Forget everything carried from one step to the next."""

    def _check_snapshot(self, snapshot: Snapshot, previous: Snapshot | None, index: int) -> None:
        """Raise ``ValueError`` if this step cannot be processed after ``previous``."""

    def _cluster_step(self, snapshot: Snapshot) -> tuple[np.ndarray, float]:
        """Partition one step; return (labels aligned with ``snapshot.ids``, alpha)."""
        raise NotImplementedError

    # -- internals ---------------------------------------------------------------------
    def _fail(self, message: str) -> None:
        raise ValueError(f"{self._algorithm_name}: {message}")

    def _reset(self) -> None:
        self._check_params()
        seed = run_seed(self.seed)  # seed None: a fresh int, recorded in result_.params["seed"]
        self._rng = seeded_generator(seed)
        self._previous: Snapshot | None = None
        self.n_features_in_: int | None = None
        self.result_ = ClusteringResult(algorithm=self._algorithm_name, params=run_params(self, seed))
        self._reset_state()

    def _check_dataset(self, dataset: TemporalDataset) -> None:
        previous = None
        for index, snapshot in enumerate(dataset):
            self._check_snapshot(snapshot, previous, index)
            previous = snapshot

    def _check_streamed(self, snapshot: Snapshot) -> None:
        self._check_snapshot(snapshot, self._previous, len(self.result_))

    def _fit_snapshot(self, snapshot: Snapshot) -> StepResult:
        started = _time.perf_counter()
        self._check_n_features(snapshot)
        labels, alpha = self._cluster_step(snapshot)
        self._previous = snapshot
        step = StepResult.from_partition(
            len(self.result_), snapshot.time, snapshot.ids, labels, snapshot.X,
            seconds=_time.perf_counter() - started, alpha=alpha,
        )
        self.result_.append(step)
        return step
