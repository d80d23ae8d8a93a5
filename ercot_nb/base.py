"""The estimator contract shared by ERCOT, staticEC and every baseline.

``fit`` / ``fit_predict`` / ``partial_fit`` and the fitted attributes live
here once; a subclass supplies ``_reset`` (validate parameters, seed, start
an empty ``result_``), ``_fit_snapshot`` (process one step and append its
:class:`~ercot_nb.result.StepResult`) and, where it refuses some data,
``_check_dataset`` / ``_check_streamed``.
"""
from __future__ import annotations

import contextlib
import inspect
import threading
from os import PathLike
from typing import Callable

import numpy as np
import pandas as pd

from .kernels import preview_first_step
from ._progress import progress_bar
from .data import Snapshot, TemporalDataset, check_arithmetic_range
from .params import Param, ParamsMixin, specs_of, validate_params
from .result import StepResult

StepCallback = Callable[[StepResult], "bool | None"]


_WHAT_FIT_TAKES = (
    "a TemporalDataset, or a list of (n_samples, n_features) arrays (one per time step, "
    "row i = sample i at every step)"
)


def as_dataset(data) -> TemporalDataset:
    """Accept a TemporalDataset, a list of (n_t, D) arrays or a (T, n, D) array.

    Lists of arrays get ids ``0..n_t-1`` at every step.  Anything else (a
    DataFrame, a single 2-D array, None) raises a ``TypeError`` that says
    how to build a dataset from it.
    """
    if isinstance(data, TemporalDataset):
        return data
    if isinstance(data, Snapshot):
        raise TypeError("fit expects a whole TemporalDataset; use partial_fit for one Snapshot")
    if data is None:
        raise TypeError(f"fit needs data: {_WHAT_FIT_TAKES}; got None")
    if isinstance(data, (pd.DataFrame, pd.Series)):
        raise TypeError(
            f"fit got a pandas {type(data).__name__}; a long table (one row per time and sample id) "
            "needs its time and id columns named: fit(TemporalDataset.from_frame(df, time='...', "
            "id='...'))"
        )
    if isinstance(data, (str, bytes, PathLike)):
        raise TypeError(
            f"fit got a file name {data!r}; read it first: "
            "fit(TemporalDataset.from_csv(path, time='...', id='...'))"
        )
    if isinstance(data, np.ndarray):
        if data.ndim == 3:  # (n_steps, n_samples, n_features): unambiguous
            return TemporalDataset.from_arrays(list(data))
        raise TypeError(
            f"fit got one {data.ndim}-D array of shape {data.shape}; it takes {_WHAT_FIT_TAKES}, "
            "or a 3-D array (n_steps, n_samples, n_features). For a single step use fit([X]) "
            "or partial_fit(X)"
        )
    if isinstance(data, dict) or not hasattr(data, "__iter__"):
        raise TypeError(f"fit takes {_WHAT_FIT_TAKES}; got {type(data).__name__}")
    steps = list(data)
    for index, step in enumerate(steps):
        if isinstance(step, (TemporalDataset, Snapshot, pd.DataFrame)) or np.ndim(step) != 2:
            raise TypeError(
                f"fit takes {_WHAT_FIT_TAKES}; item {index} of the list is "
                f"{type(step).__name__} with {np.ndim(step)} dimension(s)"
            )
    return TemporalDataset.from_arrays(steps)


# Upper bounds that keep a run finite on a laptop (memory is roughly
# pop_size x max_clusters x (1 + n_features) doubles per population).
MAX_CLUSTERS_LIMIT = 1000
POP_SIZE_LIMIT = 100_000
EVALUATIONS_LIMIT = 10**8

SEED = Param("seed", "seed", None, "seed",
             "Seed of every random draw; the same int gives the identical result (None: fresh entropy).",
             optional=True,
             doc="With None a fit draws a fresh int seed and records it in ``result_.params['seed']``: "
                 "passing that int repeats the run.")
"""The ``seed`` of every estimator."""
PROGRESS = Param("progress", "bool", False, "progress bar", "Show a progress bar over time steps.",
                 doc="The bar is tqdm's, notebook-aware.")
"""The ``progress`` of every estimator."""


def n_clusters_param(low: int, help_text: str, doc: str = "") -> Param:
    """The ``n_clusters`` of an estimator (an int >= ``low`` or None), in its own words."""
    return Param("n_clusters", "int", None, "number of clusters", help_text, low=low,
                 high=MAX_CLUSTERS_LIMIT, optional=True, doc=doc)


def max_clusters_param(default: int, help_text: str, doc: str = "") -> Param:
    """The ``max_clusters`` of an estimator, with its own default and words."""
    return Param("max_clusters", "int", default, "max clusters", help_text, low=2, high=MAX_CLUSTERS_LIMIT,
                 doc=doc)


def seeded_generator(seed) -> np.random.Generator:
    """``seed`` itself if it is a Generator, else a new Generator seeded with it."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def run_seed(seed):
    """The seed one fit draws from: ``seed`` itself, or a fresh one when it is None.

    A fresh seed is an int drawn from the operating system's entropy (32 bits: short enough
    to type), so that the result can record it and ``seed=`` that int repeats the run exactly.

    Parameters
    ----------
    seed : int, numpy.random.Generator or None

    Returns
    -------
    int or numpy.random.Generator
    """
    return int(np.random.SeedSequence().generate_state(1)[0]) if seed is None else seed


def run_params(estimator: "TemporalEstimator", seed) -> dict:
    """``estimator``'s parameters as one fit used them: ``seed`` the int it drew from.

    A Generator given as seed stays as given (its state is not a seed one could pass again).
    """
    params = estimator.get_params()
    if "seed" in params and not isinstance(seed, np.random.Generator):
        params["seed"] = int(seed)
    return params


class TemporalEstimator(ParamsMixin):
    """Base of every temporal clustering estimator of the package.

    One estimator fits one dataset at a time: a second ``fit`` or
    ``partial_fit`` while one runs (from another thread) raises
    ``RuntimeError``; use :meth:`clone` per thread.  Fitted estimators pickle
    and deep-copy (compiled kernels are looked up again by backend name).
    """

    _algorithm_name = "estimator"
    _n_positional = 1  # ERCOT(3): n_clusters by position, every other parameter by keyword

    @classmethod
    def _unit_test_params(cls) -> dict:
        """Small-budget parameters for tests: a fit of a few steps of a few dozen samples in a blink.

        Each estimator declares its own (as river's estimators do); the test suites build
        fast estimators from them, never from tables of their own. Not for results.
        """
        return {}

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._fit_lock = threading.Lock()
        return self

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_fit_lock", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_fit_lock" not in self.__dict__:
            self._fit_lock = threading.Lock()
        # a parameter added since the estimator was pickled (e.g. ``precision``) takes its default
        defaults = inspect.signature(type(self).__init__).parameters
        for name in self._param_names():
            if name not in self.__dict__ and defaults[name].default is not inspect.Parameter.empty:
                setattr(self, name, defaults[name].default)

    @contextlib.contextmanager
    def _exclusive(self, method: str):
        lock = self.__dict__.get("_fit_lock")
        if lock is None:
            lock = self._fit_lock = threading.Lock()
        if not lock.acquire(blocking=False):
            raise RuntimeError(
                f"{self._algorithm_name}: {method} was called while another fit or partial_fit of "
                "this same estimator is running (from another thread?); an estimator fits one "
                "dataset at a time: give each thread its own estimator.clone()"
            )
        try:
            yield
        finally:
            lock.release()

    # -- public API -------------------------------------------------------------
    def fit(self, data, *, callback: StepCallback | None = None,
            preview: StepCallback | None = None):
        """Cluster every step of ``data`` in order.

        Parameters
        ----------
        data : TemporalDataset or list of ndarray
            The temporal data. Lists of arrays get ids ``0..n_t-1`` per step.
        callback : callable, optional
            Called with each finished :class:`~ercot_nb.result.StepResult`;
            returning ``False`` stops the run after that step (the steps done
            are kept in ``result_``).
        preview : callable, optional
            Called at most once, before the first ``callback``, with a
            provisional step 0 when the numba kernels must first compile
            (a fresh install's first fit): that step is computed by the NumPy
            twins while the kernels compile in a background thread, so a first
            partition shows in about a second instead of after the compilation.
            The fit itself (``result_``, ``callback``) then runs on numba and
            is bit for bit that of a fit with warm kernels; the preview's
            labels equal its step 0 up to rounding ties.  Not called when the
            kernels are ready (or become ready before the preview is done).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If a parameter is invalid or the algorithm cannot process the data.
        """
        dataset = as_dataset(data)
        with self._exclusive("fit"):
            self._reset()
            for index, snapshot in enumerate(dataset):
                self._check_step(snapshot, index, dataset.feature_names)
            self._check_dataset(dataset)
            if preview is not None:
                preview_first_step(self, dataset, preview)
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
        with self._exclusive("partial_fit"):
            t = len(self.result_) if hasattr(self, "result_") else 0
            if isinstance(snapshot, Snapshot):
                if ids is not None or time is not None:
                    raise TypeError("partial_fit: ids and time come from the Snapshot; pass them "
                                    "only with a bare array")
                # a hand-made Snapshot gets the same checks as a dataset's step
                snapshot = TemporalDataset([snapshot])[0]
            elif isinstance(snapshot, (TemporalDataset, pd.DataFrame)) or snapshot is None:
                raise TypeError(
                    f"partial_fit takes one step (a Snapshot or an (n_samples, n_features) array), "
                    f"got {type(snapshot).__name__}; use fit for a whole dataset"
                )
            else:
                snapshot = TemporalDataset.from_arrays(
                    [np.asarray(snapshot)],
                    ids=None if ids is None else [np.asarray(ids)],
                    times=[t if time is None else time],
                )[0]
            if not hasattr(self, "result_"):
                self._reset()
            self._check_step(snapshot, t, None)
            self._check_new_time(snapshot, t)
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
        validate_params(self._algorithm_name, specs_of(type(self)), self.get_params())
        self._validate_params()

    def _validate_params(self) -> None:
        """Raise ``ValueError`` for a combination of valid parameters that cannot work."""

    def _reset(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fit_snapshot(self, snapshot: Snapshot) -> StepResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_step(self, snapshot: Snapshot, index: int, feature_names) -> None:
        """Checks every algorithm needs: numbers within range, enough samples for n_clusters."""
        check_arithmetic_range(snapshot, index, feature_names)
        k = getattr(self, "n_clusters", None)
        if k is not None and snapshot.n_samples < k:
            raise ValueError(
                f"{self._algorithm_name}: step {index} (time {snapshot.time!r}) has "
                f"{snapshot.n_samples} samples, fewer than n_clusters={k}; lower n_clusters "
                "or leave that step out"
            )

    def _check_new_time(self, snapshot: Snapshot, index: int) -> None:
        """Refuse a streamed step whose time label was already processed."""
        for previous in self.result_.steps:
            if _same_time(previous.time, snapshot.time):
                raise ValueError(
                    f"{self._algorithm_name}: partial_fit got time {snapshot.time!r} again (step "
                    f"{previous.t} already has it); each call must bring a new time step. "
                    "Call fit to start over"
                )

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


def _same_time(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable labels are different labels
        return False
