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
from typing import Callable

import numpy as np

from .._evolutionary import as_dataset
from .._params import ParamsMixin
from .._progress import progress_bar
from ..data import Snapshot, TemporalDataset, common_ids
from ..result import ClusteringResult, StepResult

StepCallback = Callable[[StepResult], "bool | None"]


def same_sample_set(previous: Snapshot, current: Snapshot) -> tuple[int, int]:
    """Numbers of samples added and removed between two steps (by id).

    Returns
    -------
    n_added, n_removed : int
    """
    _, in_current = common_ids(previous, current)
    n_common = len(in_current)
    return current.n_samples - n_common, previous.n_samples - n_common


class TemporalBaseline(ParamsMixin):
    """Estimator contract shared by the baselines (one partition per step).

    Subclasses define ``__init__`` (parameters only, ending with ``seed`` and
    ``progress``), ``_algorithm_name``, :meth:`_reset_state`,
    :meth:`_cluster_step` and optionally :meth:`_validate_params` and
    :meth:`_check_snapshot`.
    """

    _algorithm_name = "baseline"

    # -- public API -------------------------------------------------------------
    def fit(self, data, *, callback: StepCallback | None = None) -> "TemporalBaseline":
        """Cluster every step of ``data`` in order.

        Parameters
        ----------
        data : TemporalDataset or list of ndarray
            The temporal data. Lists of arrays get ids ``0..n_t-1`` per step.
        callback : callable, optional
            Called with each finished :class:`~ercot_nb.result.StepResult`;
            returning ``False`` stops the run after that step.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If the parameters are invalid or the algorithm cannot process
            this dataset (checked for every step before any work is done).
        """
        dataset = as_dataset(data)
        self._reset()
        self._check_dataset(dataset)
        bar = progress_bar(total=len(dataset), desc=self._algorithm_name, enabled=self.progress)
        try:
            for snapshot in dataset:
                step = self._fit_snapshot(snapshot)
                bar.update(1)
                if callback is not None and callback(step) is False:
                    break
        finally:
            bar.close()
        return self

    def fit_predict(self, data, *, callback: StepCallback | None = None) -> list[np.ndarray]:
        """Fit and return ``labels_`` (one label array per step)."""
        return self.fit(data, callback=callback).labels_

    def partial_fit(self, snapshot, ids=None, time=None) -> "TemporalBaseline":
        """Process one new time step (streaming).

        Steps processed one by one give the result of :meth:`fit` over the
        same steps with the same seed.

        Parameters
        ----------
        snapshot : Snapshot or array-like of shape (n_samples, n_features)
            The new step. A bare array needs ``ids`` unless its samples are
            ``0..n-1`` at every step.
        ids : array-like, optional
            Sample ids of a bare array.
        time : object, optional
            Time label of a bare array (default: the step index).
        """
        if not isinstance(snapshot, Snapshot):
            t = len(self.result_) if hasattr(self, "result_") else 0
            snapshot = TemporalDataset.from_arrays(
                [np.asarray(snapshot)],
                ids=None if ids is None else [np.asarray(ids)],
                times=[t if time is None else time],
            )[0]
        if not hasattr(self, "result_"):
            self._reset()
        self._check_snapshot(snapshot, self._previous, len(self.result_))
        self._fit_snapshot(snapshot)
        return self

    # -- fitted attributes -------------------------------------------------------------
    @property
    def labels_(self) -> list[np.ndarray]:
        """One label array per processed step, aligned with that step's ids."""
        self._check_fitted()
        return self.result_.labels

    @property
    def n_clusters_(self) -> np.ndarray:
        """Number of clusters of each step's partition."""
        self._check_fitted()
        return self.result_.n_clusters

    @property
    def alpha_(self) -> np.ndarray:
        """Smoothing weight used at each step (nan where there is none)."""
        self._check_fitted()
        return self.result_.alpha

    # -- hooks for subclasses ----------------------------------------------------------
    def _validate_params(self) -> None:
        """Raise ``ValueError`` naming the first invalid parameter."""

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

    def _check_fitted(self) -> None:
        if not hasattr(self, "result_") or len(self.result_) == 0:
            raise RuntimeError(f"this {type(self).__name__} is not fitted yet; call fit or partial_fit")

    def _reset(self) -> None:
        self._validate_params()
        seed = self.seed
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._previous: Snapshot | None = None
        self.n_features_in_: int | None = None
        self.result_ = ClusteringResult(algorithm=self._algorithm_name, params=self.get_params())
        self._reset_state()

    def _check_dataset(self, dataset: TemporalDataset) -> None:
        previous = None
        for index, snapshot in enumerate(dataset):
            self._check_snapshot(snapshot, previous, index)
            previous = snapshot

    def _fit_snapshot(self, snapshot: Snapshot) -> StepResult:
        started = _time.perf_counter()
        n_features = snapshot.X.shape[1]
        if self.n_features_in_ is None:
            self.n_features_in_ = n_features
        elif n_features != self.n_features_in_:
            raise ValueError(
                f"step {len(self.result_)} (time {snapshot.time!r}) has {n_features} features, "
                f"the previous steps had {self.n_features_in_}"
            )
        labels, alpha = self._cluster_step(snapshot)
        self._previous = snapshot
        step = StepResult.from_partition(
            len(self.result_), snapshot.time, snapshot.ids, labels, snapshot.X,
            seconds=_time.perf_counter() - started, alpha=alpha,
        )
        self.result_.append(step)
        return step
