"""The estimator contract shared by ERCOT, staticEC and every baseline.

``fit`` / ``fit_predict`` / ``partial_fit`` and the fitted attributes live
here once; a subclass supplies ``_reset`` (validate parameters, seed, start
an empty ``result_``), ``_fit_snapshot`` (process one step and append its
:class:`~ercot_nb.result.StepResult`) and, where it refuses some data,
``_check_dataset`` / ``_check_streamed``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ._params import ParamsMixin
from .params import estimator_params, validate_params
from ._progress import progress_bar
from .data import Snapshot, TemporalDataset
from .result import StepResult

StepCallback = Callable[[StepResult], "bool | None"]


def as_dataset(data) -> TemporalDataset:
    """Accept a TemporalDataset or a list of (n_t, D) arrays with ids 0..n_t-1."""
    if isinstance(data, TemporalDataset):
        return data
    if isinstance(data, Snapshot):
        raise TypeError("fit expects a whole TemporalDataset; use partial_fit for one Snapshot")
    return TemporalDataset.from_arrays(list(data))


def seeded_generator(seed) -> np.random.Generator:
    """``seed`` itself if it is a Generator, else a new Generator seeded with it."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


class TemporalEstimator(ParamsMixin):
    """Base of every temporal clustering estimator of the package."""

    _algorithm_name = "estimator"

    # -- public API -------------------------------------------------------------
    def fit(self, data, *, callback: StepCallback | None = None):
        """Cluster every step of ``data`` in order.

        Parameters
        ----------
        data : TemporalDataset or list of ndarray
            The temporal data. Lists of arrays get ids ``0..n_t-1`` per step.
        callback : callable, optional
            Called with each finished :class:`~ercot_nb.result.StepResult`;
            returning ``False`` stops the run after that step (the steps done
            are kept in ``result_``).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If a parameter is invalid or the algorithm cannot process the data.
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

    def partial_fit(self, snapshot, ids=None, time=None):
        """Process one new time step (streaming).

        Processing steps one by one gives exactly the result of :meth:`fit`
        over the same steps with the same seed.

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
        self._check_streamed(snapshot)
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

    # -- hooks ---------------------------------------------------------------------------
    def _check_params(self) -> None:
        """Validate every parameter against its spec (:mod:`ercot_nb.params`), then the
        rules that tie several parameters together (:meth:`_validate_params`)."""
        validate_params(self._algorithm_name, estimator_params(type(self)), self.get_params())
        self._validate_params()

    def _validate_params(self) -> None:
        """Raise ``ValueError`` for a combination of valid parameters that cannot work."""

    def _reset(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fit_snapshot(self, snapshot: Snapshot) -> StepResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_dataset(self, dataset: TemporalDataset) -> None:
        """Raise ``ValueError`` before any work if the data cannot be processed."""

    def _check_streamed(self, snapshot: Snapshot) -> None:
        """Raise ``ValueError`` if ``partial_fit`` cannot process this step."""

    def _check_fitted(self) -> None:
        if not hasattr(self, "result_") or len(self.result_) == 0:
            raise RuntimeError(f"this {type(self).__name__} is not fitted yet; call fit or partial_fit")

    def _check_n_features(self, snapshot: Snapshot) -> None:
        """Remember D at the first step; refuse a step with another D."""
        n_features = snapshot.X.shape[1]
        if self.n_features_in_ is None:
            self.n_features_in_ = n_features
        elif n_features != self.n_features_in_:
            raise ValueError(
                f"step {len(self.result_)} (time {snapshot.time!r}) has {n_features} features, "
                f"the previous steps had {self.n_features_in_}"
            )
