"""Result of a temporal clustering run: per-step partitions and search history.

A :class:`ClusteringResult` holds one :class:`StepResult` per processed time
step.  It is what estimators expose as ``result_`` and what figures, widgets
and the experiment runner consume.  Everything in it is plain NumPy, so it
saves to a single ``.npz`` file and loads back without pickle.
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from ._persist import (DEFAULT_MAX_BYTES, decode_object_array, decode_scalar, encode_object_array,
                       encode_scalar, loads_header, read_npz)

_FORMAT_VERSION = 2  # 2: typed time labels and object arrays


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


def compress_labels(slot_labels: np.ndarray, chromosome: np.ndarray, n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Renumber centroid-slot labels to 0..C-1 (slot order) and return the centroids."""
    slots = np.unique(slot_labels[slot_labels >= 0])
    remap = np.full(n_max, -1, dtype=np.int64)
    remap[slots] = np.arange(len(slots))
    centroids = chromosome[n_max:].reshape(n_max, -1)[slots]
    return remap[slot_labels], np.array(centroids, dtype=np.float64)


def align_labels(
    prev_ids: np.ndarray | None,
    prev_aligned: np.ndarray | None,
    ids: np.ndarray,
    labels: np.ndarray,
    next_label: int,
) -> tuple[np.ndarray, int]:
    """Carry cluster labels across one step by maximum overlap of common ids.

    Each current cluster matched (Hungarian, maximum number of shared ids) to
    a previous cluster takes its aligned label; unmatched clusters get fresh
    labels ``next_label, next_label + 1, ...``.

    Returns
    -------
    aligned : int64 ndarray, next_label : int
    """
    current = np.unique(labels)
    mapping: dict[int, int] = {}
    if prev_ids is not None and len(prev_ids):
        _, ia, ib = np.intersect1d(prev_ids, ids, assume_unique=True, return_indices=True)
        if len(ia):
            previous = np.unique(prev_aligned[ia])
            table = np.zeros((len(current), len(previous)), dtype=np.int64)
            np.add.at(
                table,
                (np.searchsorted(current, labels[ib]), np.searchsorted(previous, prev_aligned[ia])),
                1,
            )
            rows, cols = linear_sum_assignment(table, maximize=True)
            for r, c in zip(rows, cols):
                if table[r, c] > 0:
                    mapping[int(current[r])] = int(previous[c])
    for label in current:
        if int(label) not in mapping:
            mapping[int(label)] = next_label
            next_label += 1
    lookup = np.vectorize(mapping.__getitem__, otypes=[np.int64])
    return lookup(labels) if len(labels) else labels.astype(np.int64), next_label


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
        """
        from ._kernels import get_backend

        step = self.steps[t]
        X = np.ascontiguousarray(X, dtype=np.float64)
        chromosome = np.ascontiguousarray(step.population[member])
        labels = np.empty(len(X), dtype=np.int64)
        distances = np.empty(len(X))
        get_backend("numpy").assign_nearest(X, chromosome, step.n_max, labels, distances)
        return compress_labels(labels, chromosome, step.n_max)[0]

    def member_partition(self, X: np.ndarray, t: int, member: int) -> StepResult:
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
            If the algorithm keeps no population (e.g. a baseline).
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
        unused = 1 + max(int(s.aligned_labels.max()) for s in self.steps if s.n_samples)
        partition.aligned_labels, _ = align_labels(
            step.ids, step.aligned_labels, step.ids, partition.labels, unused
        )
        return partition

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
        """One row per step: size, chosen number of clusters, alpha and seconds."""
        return pd.DataFrame(
            {
                "t": [s.t for s in self.steps],
                "time": self.times,
                "n_samples": [s.n_samples for s in self.steps],
                "n_clusters": self.n_clusters,
                "alpha": self.alpha,
                "seconds": self.seconds,
            }
        )

    def to_html(self, path: str | Path, dataset: Any = None) -> Path:
        """Write the run's views to one self-contained, offline HTML page.

        plotly.js is embedded (no CDN, no kernel): the page holds the
        partition animation (with ``dataset``), the Pareto animation, alpha
        with per-cluster alpha_i, the number of clusters, RI/NMI (labelled
        data) and the cluster flow; see :func:`ercot_nb.figures.report_figures`.

        Parameters
        ----------
        path : str or path-like
            Output ``.html`` file; parent folders are created.
        dataset : TemporalDataset, optional
            The data the run was fitted on.

        Returns
        -------
        pathlib.Path
            The written file.
        """
        from .figures import report_figures, save_html

        name = f" on {dataset.name}" if getattr(dataset, "name", "") else ""
        return save_html(report_figures(self, dataset), path, title=f"{self.algorithm}{name}")

    def _repr_html_(self) -> str:
        table = self.steps_frame().to_html(index=False, float_format=lambda v: f"{v:.4g}")
        return f"<div><b>{html.escape(str(self.algorithm))}</b> result, {len(self)} steps{table}</div>"

    def __repr__(self) -> str:
        return f"ClusteringResult(algorithm={self.algorithm!r}, steps={len(self)})"

    # -- persistence ------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the result to one compressed ``.npz`` file (no pickle).

        Time labels and ids keep their types through :meth:`load`: ints,
        floats, strings, ``pandas.Timestamp`` / ``datetime64`` / dates, and
        object arrays of Python ints or strings.

        Raises
        ------
        TypeError
            For a time label or id of a type that cannot be stored (the
            message names the step).
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        arrays: dict[str, np.ndarray] = {}
        scalars = []
        for s in self.steps:
            meta: dict[str, Any] = {}
            where = f"step {s.t} (time {s.time!r})"
            for f in fields(StepResult):
                value = getattr(s, f.name)
                if isinstance(value, np.ndarray):
                    if value.dtype == object:
                        value, meta[f"{f.name}__object"] = encode_object_array(value, f"{where}, {f.name}")
                        if value is None:
                            continue
                    arrays[f"{s.t}/{f.name}"] = value
                else:
                    meta[f.name] = encode_scalar(value, f"{where}, {f.name}")
            scalars.append(meta)
        header = {
            "format_version": _FORMAT_VERSION,
            "algorithm": self.algorithm,
            "params": {k: _jsonable(v) for k, v in self.params.items()},
            "next_label": self._next_label,
            "steps": scalars,
        }
        arrays["__header__"] = np.array(json.dumps(header))
        np.savez_compressed(path, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> "ClusteringResult":
        """Read a result written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
        max_bytes : int, default=2 GiB
            Largest total size of the decompressed arrays; a larger (or
            lying) file is refused before anything is allocated.

        Raises
        ------
        ValueError
            Naming the file, if it is empty, truncated, garbled, not a saved
            result, too large, or holds arrays of inconsistent shapes.
        FileNotFoundError
            If it does not exist.
        """
        path = Path(path)
        data = read_npz(path, max_bytes=max_bytes)
        if "__header__" not in data:
            raise ValueError(f"'{path}' holds no result header: not written by ClusteringResult.save")
        header = loads_header(str(data["__header__"]), path)
        if header.get("format_version") not in (1, _FORMAT_VERSION):
            raise ValueError(f"'{path}': unsupported result format {header.get('format_version')!r}")
        try:
            result = cls(algorithm=header["algorithm"], params=header["params"])
            for t, meta in enumerate(header["steps"]):
                kwargs = {}
                for f in fields(StepResult):
                    key = f"{meta['t']}/{f.name}"
                    if f"{f.name}__object" in meta:
                        kwargs[f.name] = decode_object_array(data.get(key), meta[f"{f.name}__object"])
                    elif f.name in meta:
                        kwargs[f.name] = decode_scalar(meta[f.name])
                    else:
                        value = data[key]
                        if meta.get(f"{f.name}__was_object"):  # format 1
                            value = value.astype(object)
                        kwargs[f.name] = value
                step = StepResult(**kwargs)
                _check_step_shapes(step, t)
                result.steps.append(step)
            result._next_label = int(header["next_label"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"'{path}': not a consistent saved result ({type(exc).__name__}: {exc})") from None
        return result


def _check_step_shapes(step: StepResult, t: int) -> None:
    """Refuse a loaded step whose arrays do not fit together."""
    n = len(step.ids)
    problems = []
    if step.ids.ndim != 1:
        problems.append(f"ids has shape {step.ids.shape}")
    for name in ("labels", "aligned_labels"):
        value = getattr(step, name)
        if value.shape != (n,) or value.dtype.kind not in "iu":
            problems.append(f"{name} has shape {value.shape} and dtype {value.dtype}, expected ({n},) ints")
    if step.centroids.ndim != 2:
        problems.append(f"centroids has shape {step.centroids.shape}")
    elif n and step.labels.shape == (n,) and step.labels.dtype.kind in "iu" and (
            step.labels.min() < 0 or step.labels.max() >= len(step.centroids)):
        problems.append(f"labels reach {int(step.labels.max())} but there are {len(step.centroids)} centroids")
    P = len(step.population)
    for name, shape in (("objectives", (P, 2)), ("objectives_accumulated", (P, 2)),
                        ("population_n_clusters", (P,)), ("population_n_active", (P,)),
                        ("first_front", (P,))):
        value = getattr(step, name)
        if P and value.shape != shape:
            problems.append(f"{name} has shape {value.shape}, expected {shape}")
    if step.population.ndim != 2:
        problems.append(f"population has shape {step.population.shape}")
    if problems:
        raise ValueError(f"step {t}: " + "; ".join(problems))


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Sequence):
        return [_jsonable(v) for v in value]
    return repr(value)
