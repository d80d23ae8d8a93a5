"""Result of a temporal clustering run: per-step partitions and search history.

A :class:`ClusteringResult` holds one :class:`StepResult` per processed time
step.  It is what estimators expose as ``result_`` and what figures, widgets
and the experiment runner consume.  Everything in it is plain NumPy, so it
saves to a single ``.npz`` file and loads back without pickle.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pandas as pd

from ..kernels import get_backend
from ..knee import select_member
from ._labels import align_labels, compress_labels
from ._format import DEFAULT_MAX_BYTES, load_result, save_result
from ..events import lifecycle_events
from ..hypervolume import front_hypervolume
from ..params import check_argument

__all__ = ["StepResult", "ClusteringResult", "compress_labels", "align_labels"]

from ..kernels import MASK_ON as _MASK_ON  # a centroid slot is active from this mask value on


@dataclass
class StepResult:
    """Everything ERCOT decided and saw at one time step.

    Attributes
    ----------
    t : int
        0-based step index.
    time : object
        The step's time label from the dataset.
    ids : ndarray of shape (n_samples,)
        Sample ids, aligned with ``labels``.
    labels : int64 ndarray of shape (n_samples,)
        Cluster of every sample, numbered 0..n_clusters-1 at this step.
    aligned_labels : int64 ndarray of shape (n_samples,)
        The same partition with labels carried over time: a cluster keeps
        its label while it persists (Hungarian matching over common ids).
    centroids : ndarray of shape (n_clusters, n_features)
        Centroid of each label of ``labels``.
    population : ndarray of shape (pop_size, n_genes)
        Final population (masks then centroids), for a-posteriori choices.
    objectives : ndarray of shape (pop_size, 2)
        Raw objectives ``(f_cp, f_sep)`` of the final population on this step.
    objectives_accumulated : ndarray of shape (pop_size, 2)
        Objectives used by the last selection: the accumulated fitness
        ``(1-alpha) f^t + alpha f^{t-1}`` when history was used, otherwise
        equal to ``objectives``.
    population_n_clusters : int64 ndarray of shape (pop_size,)
        Non-empty clusters of each member.
    population_n_active : int64 ndarray of shape (pop_size,)
        Active masks of each member (can exceed the non-empty count).
    first_front : bool ndarray of shape (pop_size,)
        Members of the first non-dominated front (on the accumulated objectives).
    knee : int
        Index (into the population) of the chosen solution.
    alpha : float
        Smoothness weight alpha^{t-1} used at this step (nan without history).
    alpha_pairs : ndarray of shape (n_pairs,)
        Per matched cluster pair weight alpha_i (nan where skipped).
    matched_pairs : int64 ndarray of shape (n_pairs, 2)
        (pseudo-cluster at t, cluster at t-1) of each pair, in centroid-slot
        numbering at t and in ``labels`` numbering at t-1.
    seconds : float
        Wall time of the step.
    n_max : int
        C_max, needed to decode ``population``.
    """

    t: int
    time: Any
    ids: np.ndarray
    labels: np.ndarray
    aligned_labels: np.ndarray
    centroids: np.ndarray
    population: np.ndarray
    objectives: np.ndarray
    objectives_accumulated: np.ndarray
    population_n_clusters: np.ndarray
    population_n_active: np.ndarray
    first_front: np.ndarray
    knee: int
    alpha: float
    alpha_pairs: np.ndarray
    matched_pairs: np.ndarray
    seconds: float
    n_max: int

    @classmethod
    def from_partition(
        cls,
        t: int,
        time: Any,
        ids: np.ndarray,
        labels: np.ndarray,
        X: np.ndarray,
        seconds: float,
        alpha: float = np.nan,
    ) -> "StepResult":
        """A step of an algorithm without a population (baselines).

        ``labels`` are renumbered 0..C-1 and ``centroids`` are the cluster
        means of ``X``; the search-history fields are empty.
        """
        _, labels = np.unique(np.asarray(labels), return_inverse=True)
        labels = labels.astype(np.int64)
        n_clusters = int(labels.max()) + 1 if len(labels) else 0
        sums = np.zeros((n_clusters, X.shape[1]))
        np.add.at(sums, labels, X)
        centroids = sums / np.bincount(labels, minlength=n_clusters)[:, None]
        empty2 = np.empty((0, 2))
        return cls(
            t=t, time=time, ids=ids, labels=labels, aligned_labels=labels, centroids=centroids,
            population=np.empty((0, 0)), objectives=empty2, objectives_accumulated=empty2,
            population_n_clusters=np.empty(0, np.int64), population_n_active=np.empty(0, np.int64),
            first_front=np.empty(0, bool), knee=-1, alpha=float(alpha), alpha_pairs=np.empty(0),
            matched_pairs=np.empty((0, 2), np.int64), seconds=float(seconds), n_max=0,
        )

    @property
    def n_clusters(self) -> int:
        """Number of clusters of the chosen partition."""
        return int(len(self.centroids))

    @property
    def n_samples(self) -> int:
        return int(len(self.ids))


@dataclass
class ClusteringResult:
    """Per-step partitions, Pareto fronts, weights and timings of one run.

    Attributes
    ----------
    algorithm : str
        Name of the algorithm that produced it.
    params : dict
        The estimator's parameters.
    steps : list of StepResult
    """

    algorithm: str
    params: dict
    steps: list[StepResult] = field(default_factory=list)
    _next_label: int = 0

    # -- building ---------------------------------------------------------------
    def append(self, step: StepResult) -> None:
        """Add the next step, computing its time-aligned labels."""
        previous = self.steps[-1] if self.steps else None
        step.aligned_labels, self._next_label = align_labels(
            previous.ids if previous else None,
            previous.aligned_labels if previous else None,
            step.ids,
            step.labels,
            self._next_label,
        )
        self.steps.append(step)

    # -- sequence access ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[StepResult]:
        return iter(self.steps)

    def __getitem__(self, t: int) -> StepResult:
        return self.steps[t]

    @property
    def labels(self) -> list[np.ndarray]:
        return [s.labels for s in self.steps]

    @property
    def aligned_labels(self) -> list[np.ndarray]:
        return [s.aligned_labels for s in self.steps]

    @property
    def times(self) -> list:
        return [s.time for s in self.steps]

    @property
    def n_clusters(self) -> np.ndarray:
        return np.array([s.n_clusters for s in self.steps], dtype=np.int64)

    @property
    def alpha(self) -> np.ndarray:
        return np.array([s.alpha for s in self.steps], dtype=np.float64)

    @property
    def seconds(self) -> np.ndarray:
        return np.array([s.seconds for s in self.steps], dtype=np.float64)

    # -- a-posteriori choice -----------------------------------------------------------
    def labels_of_member(self, X: np.ndarray, t: int, member: int) -> np.ndarray:
        """Partition of step ``t``'s data ``X`` by population member ``member``.

        Lets a user pick another point of the Pareto front than the knee.
        ``t`` and ``member`` are ints in range (a bool or a float is a
        ``TypeError``, an index out of range a ``ValueError`` naming the range).
        """
        step = self.steps[self._step_index("labels_of_member", t)]
        member = check_argument(f"labels_of_member (step {t}'s population of {len(step.population)})", "member",
                                member, "int", low=0, high=len(step.population) - 1)
        X = np.ascontiguousarray(X, dtype=np.float64)
        chromosome = np.ascontiguousarray(step.population[member])
        labels = np.empty(len(X), dtype=np.int64)
        distances = np.empty(len(X))
        get_backend("numpy").assign_nearest(X, chromosome, step.n_max, labels, distances)
        return compress_labels(labels, chromosome, step.n_max)[0]

    def labels_of_members(self, X: np.ndarray, t: int, members: Sequence[int]) -> np.ndarray:
        """Partitions of step ``t``'s data ``X`` by several population members at once.

        Row ``i`` equals ``labels_of_member(X, t, members[i])`` (the nearest
        active centroid, the lowest slot on ties, renumbered in slot order);
        the distances of all members are computed in a few vectorised passes
        (in chunks of about 4 million numbers), not one member at a time.

        Returns
        -------
        int64 ndarray of shape (len(members), n_samples)
        """
        step = self.steps[t]
        X = np.ascontiguousarray(X, dtype=np.float64)
        members = np.asarray(members, dtype=np.intp).reshape(-1)
        out = np.empty((len(members), len(X)), dtype=np.int64)
        n_max = int(step.n_max)
        if not len(members) or not len(X) or n_max == 0:
            for row, member in enumerate(members.tolist()):
                out[row] = self.labels_of_member(X, t, member)
            return out
        chromosomes = np.asarray(step.population[members], dtype=np.float64)
        active = chromosomes[:, :n_max] >= _MASK_ON
        centroids = chromosomes[:, n_max:].reshape(len(members), n_max, X.shape[1])
        chunk = max(1, 4_000_000 // (len(X) * n_max * max(X.shape[1], 1)))
        for start in range(0, len(members), chunk):
            part = slice(start, start + chunk)
            d2 = ((X[None, :, None, :] - centroids[part, None, :, :]) ** 2).sum(axis=3)  # (m, n, n_max)
            d2[np.broadcast_to(~active[part, None, :], d2.shape)] = np.inf
            slots = d2.argmin(axis=2)
            rows = np.arange(slots.shape[0])[:, None]
            present = np.zeros((slots.shape[0], n_max), dtype=bool)
            present[rows, slots] = True
            out[part] = (np.cumsum(present, axis=1) - 1)[rows, slots]  # slot order, as compress_labels
            # no active centroid, or no finite distance: the one-member path decides
            odd = ~active[part].any(axis=1) | ~np.isfinite(d2[rows, np.arange(len(X))[None, :], slots]).all(axis=1)
            for row in np.flatnonzero(odd).tolist():
                out[start + row] = self.labels_of_member(X, t, int(members[start + row]))
        return out

    def events(self, **options: Any) -> pd.DataFrame:
        """Cluster lifecycle events between consecutive steps, with p-values.

        Delegates to :func:`ercot_nb.events.lifecycle_events` (``options``:
        ``min_share``, ``majority``, ``size_change``, ``n_permutations``, ``seed``).
        """
        return lifecycle_events(self, **options)

    def choose(self, t: int, rule: str = "ideal", **options: Any) -> int:
        """Population index of the first-front member of step ``t`` that ``rule`` picks.

        ``rule`` is one of :data:`ercot_nb.knee.SELECTION_RULES` except
        ``"mock"`` (it needs the run's control fronts); ``options`` (``k``,
        ``weights``, ``reference``) go to :func:`ercot_nb.knee.select_member`.
        The rule sees the objectives the step's selection used, so the run's
        own knee rule returns ``step.knee``.
        """
        t = self._step_index("choose", t)
        step = self.steps[t]
        members = np.flatnonzero(step.first_front)
        if len(members) == 0:
            raise ValueError(f"step {t} has no population front ({self.algorithm} keeps none)")
        if rule == "mock":
            raise ValueError("rule 'mock' needs the run's control fronts; fit with knee='mock' instead")
        chosen = select_member(
            step.objectives_accumulated[members], step.population_n_clusters[members], rule, **options
        )
        return int(members[chosen])

    def _step_index(self, owner: str, t: Any) -> int:
        """``t`` checked by the shared validator (an int step index, negative from the end), as 0..n-1."""
        n = len(self.steps)
        return check_argument(f"{owner} (a result of {n} steps)", "t", t, "int", low=-n, high=n - 1) % n

    def member_partition(
        self, X: np.ndarray, t: int, member: int, *, free_label: int | None = None
    ) -> StepResult:
        """Step ``t`` as partitioned by population ``member`` (an a-posteriori choice).

        Its clusters are aligned to the knee's partition of the same step, so a
        cluster both share keeps its label (and colour), and new clusters get
        labels no step uses.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Step ``t``'s data (the snapshot the run saw).
        t : int
            0-based step index (negative counts from the end).
        member : int
            Index into step ``t``'s final population (see :meth:`fronts_frame`).
        free_label : int, optional
            The first aligned label no step uses (``1 +`` the largest aligned
            label of any step), given to new clusters.  Computed from every
            step when omitted; a caller partitioning many members (the
            explorer page) computes it once with :meth:`first_free_label`
            instead of once per call.

        Returns
        -------
        StepResult
            The knee's own step when ``member`` is the knee; otherwise a step
            without search history whose ``labels`` come from
            :meth:`labels_of_member`, whose ``centroids`` are the cluster means
            and whose ``aligned_labels`` follow the knee's.

        Raises
        ------
        ValueError
            If the algorithm keeps no population (e.g. a baseline), or
            ``free_label`` is a label step ``t`` uses.
        IndexError
            If ``t`` is not a step or ``member`` not a population index.
        """
        n = len(self.steps)
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not -n <= t < n:
            raise IndexError(f"step t={t!r} is out of range for a result with {n} step(s)")
        t = int(t) % n
        step = self.steps[t]
        size = len(step.population)
        if size == 0:
            raise ValueError(
                f"{self.algorithm} keeps no final population, so there is no other "
                "front member to choose"
            )
        if isinstance(member, bool) or not isinstance(member, (int, np.integer)) or not (
            0 <= member < size
        ):
            raise IndexError(f"member must be in 0..{size - 1}, got {member!r}")
        if int(member) == step.knee:
            return step
        labels = self.labels_of_member(X, t, int(member))
        partition = StepResult.from_partition(
            t, step.time, step.ids, labels, np.asarray(X, dtype=np.float64), seconds=0.0,
            alpha=step.alpha,
        )
        if free_label is None:
            unused = self.first_free_label()
        else:
            unused = int(free_label)
            if step.n_samples and unused <= int(step.aligned_labels.max()):
                raise ValueError(f"free_label={free_label!r} is a label step {t} uses; "
                                 "pass result.first_free_label()")
        partition.aligned_labels, _ = align_labels(
            step.ids, step.aligned_labels, step.ids, partition.labels, unused
        )
        return partition

    def first_free_label(self) -> int:
        """The first aligned label no step uses: ``1 +`` the largest one (0 without samples)."""
        return 1 + max((int(s.aligned_labels.max()) for s in self.steps if s.n_samples), default=-1)

    @classmethod
    def from_labels(
        cls, dataset: Any, labels: Sequence[np.ndarray] | None = None, *, algorithm: str | None = None,
    ) -> "ClusteringResult":
        """Per-step label arrays of a dataset as a result, time-aligned like a run.

        Parameters
        ----------
        dataset : TemporalDataset
            The data the labels belong to.
        labels : sequence of arrays, optional
            One label array per step (at most one per dataset step), in the
            dataset's sample order.  Default: the dataset's own ground-truth
            labels, or one cluster per step without labels (a preview of
            the data with the same views as a run).
        algorithm : str, optional
            Name of the result; default ``"ground truth"`` (``"data"`` without
            labels) for the dataset's labels, ``"labels"`` otherwise.

        Returns
        -------
        ClusteringResult
            One step per label array built with :meth:`StepResult.from_partition`.

        Raises
        ------
        ValueError
            If there are more label arrays than steps or one has the wrong shape.
        """
        if labels is None:
            has_labels = bool(getattr(dataset, "has_labels", False))
            labels = [
                s.labels if s.labels is not None else np.zeros(s.n_samples, np.int64) for s in dataset
            ]
            name = algorithm or ("ground truth" if has_labels else "data")
        else:
            labels = [np.asarray(step_labels) for step_labels in labels]
            name = algorithm or "labels"
            if len(labels) > len(dataset):
                raise ValueError(f"{len(labels)} label arrays for a dataset of {len(dataset)} steps")
        result = cls(algorithm=name, params={})
        for t, step_labels in enumerate(labels):
            snapshot = dataset[t]
            if step_labels.shape != (snapshot.n_samples,):
                raise ValueError(
                    f"step {t}: labels must have shape ({snapshot.n_samples},), "
                    f"got {step_labels.shape}"
                )
            result.append(StepResult.from_partition(
                t, snapshot.time, snapshot.ids, step_labels, snapshot.X, seconds=0.0
            ))
        return result

    # -- tidy export ------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (step, sample) with ``t, time, id, label, aligned_label``."""
        frames = [
            pd.DataFrame(
                {
                    "t": s.t,
                    "time": [s.time] * s.n_samples,
                    "id": s.ids,
                    "label": s.labels,
                    "aligned_label": s.aligned_labels,
                }
            )
            for s in self.steps
        ]
        if not frames:
            return pd.DataFrame(columns=["t", "time", "id", "label", "aligned_label"])
        return pd.concat(frames, ignore_index=True)

    def fronts_frame(self) -> pd.DataFrame:
        """Final population of every step: objectives, cluster counts, front and knee flags."""
        rows = []
        for s in self.steps:
            n = len(s.population)
            rows.append(
                pd.DataFrame(
                    {
                        "t": s.t,
                        "time": [s.time] * n,
                        "member": np.arange(n),
                        "f_cp": s.objectives[:, 0],
                        "f_sep": s.objectives[:, 1],
                        "f_cp_accumulated": s.objectives_accumulated[:, 0],
                        "f_sep_accumulated": s.objectives_accumulated[:, 1],
                        "n_clusters": s.population_n_clusters,
                        "n_active": s.population_n_active,
                        "first_front": s.first_front,
                        "knee": np.arange(n) == s.knee,
                    }
                )
            )
        return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()

    def steps_frame(self) -> pd.DataFrame:
        """One row per step: size, chosen number of clusters, alpha, seconds, hypervolume.

        ``hypervolume`` is the exact normalised hypervolume of the step's first
        front (:func:`ercot_nb.hypervolume.front_hypervolume`; nan without a
        population).
        """
        return pd.DataFrame(
            {
                "t": [s.t for s in self.steps],
                "time": self.times,
                "n_samples": [s.n_samples for s in self.steps],
                "n_clusters": self.n_clusters,
                "alpha": self.alpha,
                "seconds": self.seconds,
                "hypervolume": [
                    front_hypervolume(s.objectives_accumulated, s.first_front) for s in self.steps
                ],
            }
        )

    def _repr_html_(self) -> str:
        table = self.steps_frame().to_html(index=False, float_format=lambda v: f"{v:.4g}")
        return f"<div><b>{html.escape(str(self.algorithm))}</b> result, {len(self)} steps{table}</div>"

    def __repr__(self) -> str:
        return f"ClusteringResult(algorithm={self.algorithm!r}, steps={len(self)})"

    # -- persistence ------------------------------------------------------------------
    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the result to one compressed ``.npz`` file (no pickle).

        ``.npz`` is appended to a path with another suffix; parent folders
        are created.  An existing file is replaced only with
        ``overwrite=True`` (otherwise a ``ValueError``), and the write is
        atomic: an interrupted save leaves the old file whole (see
        :mod:`ercot_nb._files`).

        Time labels and ids keep their types through :meth:`load`: ints,
        floats, strings, ``pandas.Timestamp`` / ``datetime64`` / dates, and
        object arrays of Python ints or strings.

        Raises
        ------
        TypeError
            For a time label or id of a type that cannot be stored (the
            message names the step).
        ValueError
            If the file exists and ``overwrite`` is false, or ``path`` is a folder.
        """
        return save_result(self, StepResult, path, overwrite=overwrite)

    @classmethod
    def load(cls, path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> "ClusteringResult":
        """Read a result written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
        max_bytes : int, default=2 GiB
            Largest memory the file's arrays may take once read (their
            declared sizes; text arrays, the header included, count 32
            bytes per character for the Python objects they become).  Every
            array's size is checked from the zip directory and its ``.npy``
            header before any array is read, and arrays are read into their
            own memory without a second copy, so loading peaks at about the
            declared size; a larger (or lying) file is refused first.

        Notes
        -----
        Files of format 1 (ercot-nb before typed time labels) load with
        their time labels' types (``Timestamp``, ``datetime64``, ``date``,
        ...) and their object ids as ints (when every one is a canonical
        integer) or strings; a value format 1 could only store as its
        ``repr`` is refused naming the format.  Other format versions are
        refused naming the version.

        Raises
        ------
        ValueError
            Naming the file, if it is empty, truncated, garbled, not a saved
            result, too large, of another format version, has a malformed
            header (wrong types, nested deeper than 32 levels), or holds
            arrays of inconsistent shapes.
        FileNotFoundError
            If it does not exist.
        """
        return load_result(cls, StepResult, path, max_bytes)
