"""Gather everything the explorer page shows into one JSON-ready dict.

The page draws every view in the browser from this dict alone (no kernel):
per step the shown samples' plot coordinates and aligned labels, the
centroids, the final population's objectives with the partitions of the
first-front members, the video frames as PNG data URIs, and over all steps
alpha, the number of clusters, RI/NMI and the cluster flows.

Large arrays travel as base64 of little-endian typed arrays (``float32``
coordinates, the smallest unsigned integer type for labels), so the page
grows linearly with steps x shown samples.  Sample counts above
``max_points`` per step are subsampled (the same ids at every step where
they persist); the page says so.
"""
from __future__ import annotations

import base64
import io
import math
from typing import Any

import numpy as np

from ..data import TemporalDataset
from ..figures import cluster_flows, label_color, sankey_nodes
from ..metrics import score_steps
from ..result import ClusteringResult, StepResult, align_labels

MAX_POINTS = 5000
"""Default cap on the samples per step drawn in the scatter views."""

MAX_MEMBERS = 30
"""Default cap on the distinct front-member partitions stored per step."""

VIDEO_MAX_PIXELS = 120_000
"""Default cap on the pixels of one video image (larger frames are strided)."""

_ABSENT_RGB = (217, 217, 217)  # video pixels absent at a step


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _text(value: Any) -> str:
    """Any label from the data as a plain string (escaped by the page, never parsed)."""
    return str(_plain(value))


def _b64(values: np.ndarray, dtype: str) -> dict[str, Any]:
    """A typed array for the page: ``{"dtype", "b64"}`` (little-endian)."""
    array = np.ascontiguousarray(values, dtype=np.dtype(dtype).newbyteorder("<"))
    return {"dtype": dtype, "b64": base64.b64encode(array.tobytes()).decode("ascii")}


def _labels_b64(labels: np.ndarray) -> dict[str, Any]:
    top = int(labels.max()) if len(labels) else 0
    dtype = "u1" if top < 2**8 else "u2" if top < 2**16 else "u4"
    return _b64(labels, dtype)


def _finite(values: Any) -> list[float | None]:
    """Floats for JSON: NaN and inf become null."""
    return [v if math.isfinite(v) else None for v in np.asarray(values, dtype=np.float64).ravel().tolist()]


def _padded(values: np.ndarray) -> list[float]:
    low, high = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
    pad = 0.05 * (high - low) if high > low else 0.5
    return [low - pad, high + pad]


def _png(rgb: np.ndarray) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb)).save(buffer, format="PNG", compress_level=6)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class _Projection:
    """2-D plot coordinates as the figures draw them, and 3-D ones for D >= 3.

    One feature: (sample index, value); two: the two features; three or
    more: the first two principal components fitted on all steps at once
    (fixed axes), plus a 3-D view of the first three features.
    """

    def __init__(self, dataset: TemporalDataset) -> None:
        names = dataset.feature_names
        d = dataset.n_features
        self.mean = self.components = None
        if d == 1:
            self.axes2 = ["sample index (within the step)", names[0]]
        elif d == 2:
            self.axes2 = [names[0], names[1]]
        else:
            X = np.vstack([s.X for s in dataset]).astype(np.float64)
            self.mean = X.mean(axis=0)
            _, singular, components = np.linalg.svd(X - self.mean, full_matrices=False)
            components = components[:2]
            largest = np.abs(components).argmax(axis=1)  # deterministic sign
            components *= np.sign(components[np.arange(2), largest])[:, None]
            self.components = components
            variance = singular**2
            share = variance[:2] / variance.sum() if variance.sum() > 0 else np.zeros(2)
            self.axes2 = [f"PC1 ({share[0]:.0%} of variance)", f"PC2 ({share[1]:.0%} of variance)"]
        self.axes3 = [names[0], names[1], names[2]] if d >= 3 else None

    def xy(self, X: np.ndarray, index: np.ndarray | None = None) -> np.ndarray:
        """(n, 2) coordinates; ``index`` gives the x of one-feature data."""
        if self.components is not None:
            return (X - self.mean) @ self.components.T
        if X.shape[1] == 1:
            x = np.arange(len(X), dtype=np.float64) if index is None else index.astype(np.float64)
            return np.column_stack([x, X[:, 0]])
        return X[:, :2]

    def xyz(self, X: np.ndarray) -> np.ndarray | None:
        return X[:, :3] if self.axes3 is not None else None


def _shown_positions(dataset: TemporalDataset, n_steps: int, cap: int) -> list[np.ndarray]:
    """Per step, the positions of the samples drawn: all, or ``cap`` chosen by a fixed id ranking.

    Each id gets one random rank (seed 0); a step shows its ``cap``
    lowest-ranked samples, so an id that persists stays shown.
    """
    steps = [dataset[t] for t in range(n_steps)]
    if all(s.n_samples <= cap for s in steps):
        return [np.arange(s.n_samples) for s in steps]
    all_ids = np.unique(np.concatenate([np.asarray(s.ids).astype(str) for s in steps]))
    rank = np.random.default_rng(0).permutation(len(all_ids))
    shown = []
    for s in steps:
        ranks = rank[np.searchsorted(all_ids, np.asarray(s.ids).astype(str))]
        keep = np.sort(np.argsort(ranks, kind="stable")[:cap])
        shown.append(keep)
    return shown


def _first_of_each_row(rows: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each distinct row, in order (``np.unique(axis=0)``'s
    rows, without its sort of structured values, which dominated the page's time)."""
    rows = np.ascontiguousarray(rows, dtype=np.float64) + 0.0  # -0.0 and 0.0 are the same gene
    first: dict[bytes, int] = {}
    for i, row in enumerate(rows):
        first.setdefault(row.tobytes(), i)
    return np.fromiter(first.values(), dtype=np.intp, count=len(first))


def _member_partitions(
    result: ClusteringResult, dataset: TemporalDataset, t: int, max_members: int, free_label: int
) -> tuple[list[int], list[StepResult | None]]:
    """First-front members of step t whose partition the page stores, and their partitions.

    Members with the same partition share one entry; at most ``max_members``
    distinct partitions (spread along the front by compactness) are kept.
    Returns the member index -> partition index table (-1: not stored) and
    the distinct partitions (None stands for the knee's own step).
    ``free_label`` is the run's first unused label, computed once per page
    (rescanning every step per member made the page quadratic in steps).
    """
    step = result[t]
    n = len(step.population)
    table = [-1] * n
    if n == 0:
        return table, []
    front = np.flatnonzero(step.first_front)
    order = front[np.argsort(step.objectives_accumulated[front, 0], kind="stable")]
    # distinct chromosomes, evenly spread along the front when over the cap
    distinct = order[_first_of_each_row(step.population[order])]
    if len(distinct) > max_members:
        pick = np.unique(np.linspace(0, len(distinct) - 1, max_members).round().astype(int))
        distinct = distinct[pick]
    candidates = [int(m) for m in distinct]
    if step.knee >= 0 and step.knee not in candidates:
        candidates.append(int(step.knee))
    parts: list[StepResult | None] = []
    seen: dict[bytes, int] = {}
    X = dataset[t].X
    candidates.sort()
    # every candidate's labels in one vectorised pass; a StepResult only for each new partition
    others = [m for m in candidates if m != step.knee]
    labels_of = dict(zip(others, result.labels_of_members(X, t, others)))
    knee_key = step.labels.astype(np.int64).tobytes() if step.knee >= 0 else None
    for member in candidates:
        key = knee_key if member == step.knee else labels_of[member].tobytes()
        if key not in seen:
            seen[key] = len(parts)
            # the knee's own step (None) stands for every member with the knee's partition
            parts.append(None if key == knee_key else
                         result.member_partition(X, t, member, free_label=free_label))
        table[member] = seen[key]
    # a front member with the same chromosome as a stored one has its partition
    genes = np.ascontiguousarray(step.population, dtype=np.float64) + 0.0  # -0.0 == 0.0
    stored: dict[bytes, int] = {}
    for m in candidates:  # the lowest candidate of each chromosome (NaN genes match nothing)
        if not np.isnan(genes[m]).any():
            stored.setdefault(genes[m].tobytes(), m)
    for member in front.tolist():
        if table[member] < 0:
            same = stored.get(genes[member].tobytes())
            if same is not None:
                table[member] = table[same]
    return table, parts


def _pareto(step: StepResult, table: list[int]) -> dict[str, Any] | None:
    if len(step.population) == 0 or len(step.objectives_accumulated) == 0:
        return None
    raw = np.asarray(step.objectives_accumulated, dtype=np.float64).reshape(-1, 2)
    low, high = raw.min(axis=0), raw.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    norm = (raw - low) / span
    return {
        "x": _finite(norm[:, 0]), "y": _finite(norm[:, 1]),
        "f_cp": _finite(raw[:, 0]), "f_sep": _finite(raw[:, 1]),
        "front": [bool(v) for v in step.first_front],
        "k": [int(v) for v in step.population_n_clusters],
        "part": table,
    }


def _centroids(step: StepResult, proj: _Projection, xy_samples: np.ndarray) -> dict[str, Any]:
    aligned_of = np.empty(step.n_clusters, dtype=np.int64)
    aligned_of[step.labels] = step.aligned_labels
    if proj.components is None and step.centroids.shape[1] == 1:
        cx = np.array([xy_samples[step.labels == c, 0].mean() for c in range(step.n_clusters)])
        xy = np.column_stack([cx, step.centroids[:, 0]])
    else:
        xy = proj.xy(step.centroids)
    out = {"labels": [int(v) for v in aligned_of], "x": _finite(xy[:, 0]), "y": _finite(xy[:, 1])}
    xyz = proj.xyz(step.centroids)
    if xyz is not None:
        out.update(x3=_finite(xyz[:, 0]), y3=_finite(xyz[:, 1]), z3=_finite(xyz[:, 2]))
    return out


def _partition_entry(step: StepResult, shown: np.ndarray, proj: _Projection, xy_all: np.ndarray) -> dict[str, Any]:
    return {
        "labels": _labels_b64(step.aligned_labels[shown]),
        "n_clusters": step.n_clusters,
        "centroids": _centroids(step, proj, xy_all),
    }


class _Video:
    """PNG data URIs of a video's frame, segmentation and ground truth per step."""

    def __init__(self, dataset: TemporalDataset, max_pixels: int) -> None:
        self.height, self.width = (int(v) for v in dataset.metadata["frame_shape"])
        self.stride = 1
        while -(-self.height // self.stride) * -(-self.width // self.stride) > max_pixels:
            self.stride += 1
        self.label_color = label_color
        self.dataset = dataset

    def _image(self, rgb_flat: np.ndarray) -> str:
        rgb = rgb_flat.reshape(self.height, self.width, 3)[:: self.stride, :: self.stride]
        return _png(rgb)

    def frame(self, t: int) -> str:
        snapshot = self.dataset[t]
        rgb = np.tile(np.array(_ABSENT_RGB, dtype=np.uint8), (self.height * self.width, 1))
        rgb[snapshot.ids.astype(np.intp)] = np.rint(np.clip(snapshot.X[:, :3], 0, 1) * 255).astype(np.uint8)
        return self._image(rgb)

    def labels(self, t: int, labels: np.ndarray) -> str:
        rgb = np.tile(np.array(_ABSENT_RGB, dtype=np.uint8), (self.height * self.width, 1))
        present, inverse = np.unique(labels, return_inverse=True)
        palette = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)]
                            for c in (self.label_color(int(k)) for k in present)], dtype=np.uint8)
        rgb[self.dataset[t].ids.astype(np.intp)] = palette.reshape(-1, 3)[inverse]
        return self._image(rgb)


def _sankey(result: ClusteringResult) -> dict[str, Any]:
    nodes = sankey_nodes(result)
    index = nodes.pop("index")
    flows = cluster_flows(result)
    return {
        **nodes,
        "source": [index[(f["t"] - 1, f["source"])] for f in flows],
        "target": [index[(f["t"], f["target"])] for f in flows],
        "value": [f["count"] for f in flows],
        "source_label": [f["source"] for f in flows],
        "target_label": [f["target"] for f in flows],
        "link_step": [f["t"] for f in flows],
    }


def page_data(
    result: ClusteringResult,
    dataset: TemporalDataset | None = None,
    *,
    max_points: int = MAX_POINTS,
    max_members: int = MAX_MEMBERS,
    video_max_pixels: int = VIDEO_MAX_PIXELS,
) -> dict[str, Any]:
    """Everything the explorer page draws, as a JSON-ready dict (see the module docstring)."""
    n_steps = len(result)
    if n_steps == 0:
        raise ValueError("the result has no steps to show; fit it first")
    for name, value, low in (("max_points", max_points, 1), ("max_members", max_members, 1),
                             ("video_max_pixels", video_max_pixels, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if dataset is not None:
        if not isinstance(dataset, TemporalDataset):
            raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
        if len(dataset) < n_steps:
            raise ValueError(f"the result has {n_steps} steps but the dataset only {len(dataset)}")
        for step in result:
            if not np.array_equal(np.asarray(step.ids), np.asarray(dataset[step.t].ids)):
                raise ValueError(
                    f"step {step.t} (time {_text(step.time)}): the result's sample ids differ from "
                    "the dataset's; pass the dataset the result was fitted on"
                )
    times = [_text(s.time) for s in result]
    notes: list[str] = []
    data: dict[str, Any] = {
        "algorithm": _text(result.algorithm),
        "dataset": _text(dataset.name) if dataset is not None and dataset.name else "",
        "times": times,
        "n_steps": n_steps,
        "notes": notes,
        "max_points": int(max_points),
        "max_members": int(max_members),
    }
    unused = result.first_free_label()
    steps: list[dict[str, Any]] = []
    data["steps"] = steps
    proj = _Projection(dataset) if dataset is not None else None
    video = _Video(dataset, video_max_pixels) if dataset is not None and dataset.is_video else None
    shown = _shown_positions(dataset, n_steps, max_points) if dataset is not None else None
    if dataset is None:
        notes.append("No dataset was given, so the partition plot is missing: "
                     "pass the data the run was fitted on (result.to_html(path, dataset)).")
    else:
        totals = [dataset[t].n_samples for t in range(n_steps)]
        if any(len(s) < n for s, n in zip(shown, totals)):
            notes.append(f"The scatter plots show at most {max_points:,} of the "
                         f"{max(totals):,} samples per step (a fixed random choice of ids); "
                         "the other views use all samples.")
        data["scatter"] = {"axes2": proj.axes2, "axes3": proj.axes3, "steps": []}
        if video is not None:
            data["video"] = {"height": video.height, "width": video.width, "stride": video.stride}
            if video.stride > 1:
                notes.append(f"Video images are shown at 1/{video.stride} resolution "
                             f"(at most {video_max_pixels:,} pixels each).")
    all_xy, all_xyz = [], []
    truncated = 0
    for step in result:
        t = step.t
        entry: dict[str, Any] = {"t": t, "time": times[t], "n_samples": step.n_samples,
                                 "n_clusters": step.n_clusters, "knee": int(step.knee)}
        table, parts = ([-1] * len(step.population), [])
        if dataset is not None and len(step.population):
            table, parts = _member_partitions(result, dataset, t, max_members, unused)
            n_front_distinct = len(_first_of_each_row(step.population[step.first_front]))
            truncated += n_front_distinct > max_members
        entry["pareto"] = _pareto(step, table)
        if dataset is not None:
            snapshot = dataset[t]
            keep = shown[t]
            xy_all = proj.xy(snapshot.X)
            xy = xy_all[keep]
            xyz = proj.xyz(snapshot.X[keep])
            all_xy.append(xy)
            if xyz is not None:
                all_xyz.append(xyz)
            data["scatter"]["steps"].append({
                "ids": [_text(i) for i in np.asarray(snapshot.ids)[keep].tolist()],
                "xy": _b64(xy, "<f4"),
                "xyz": _b64(xyz, "<f4") if xyz is not None else None,
            })
            entry["knee_part"] = _partition_entry(step, keep, proj, xy_all)
            entry["parts"] = [None if p is None else _partition_entry(p, keep, proj, xy_all)
                              for p in parts]
            if video is not None:
                entry["video"] = {
                    "frame": video.frame(t),
                    "seg": video.labels(t, step.aligned_labels),
                    "parts": [None if p is None else video.labels(t, p.aligned_labels) for p in parts],
                }
                if dataset.has_labels:
                    free = 1 + max(unused, int(step.aligned_labels.max(initial=-1)))
                    truth, _ = align_labels(step.ids, step.aligned_labels, step.ids, snapshot.labels, free)
                    entry["video"]["truth"] = video.labels(t, truth)
        steps.append(entry)
    if truncated:
        notes.append(f"At {truncated} step(s) the first front has more than {max_members} distinct "
                     f"members; {max_members} of them, spread along the front, can be clicked.")
    if dataset is not None:
        centroids = [np.column_stack([steps[step.t]["knee_part"]["centroids"][a] for a in "xy"])
                     .astype(np.float64) for step in result]  # centroids inside the fixed ranges too
        xy = np.vstack([np.zeros((0, 2)), *all_xy, *centroids])  # one copy, not one per step
        data["scatter"]["ranges2"] = [_padded(xy[:, 0][np.isfinite(xy[:, 0])]),
                                      _padded(xy[:, 1][np.isfinite(xy[:, 1])])]
        if all_xyz:
            xyz = np.vstack(all_xyz)
            data["scatter"]["ranges3"] = [_padded(xyz[:, d]) for d in range(3)]
    series: dict[str, Any] = {
        "alpha": _finite(result.alpha),
        "n_clusters": [int(k) for k in result.n_clusters],
        "alpha_pairs": [_finite(s.alpha_pairs) for s in result],
    }
    if dataset is not None and dataset.has_labels:
        scores = score_steps(dataset[:n_steps], result.labels)
        series["RI"] = _finite(scores["RI"])
        series["NMI"] = _finite(scores["NMI"])
        series["true_clusters"] = [int(len(np.unique(dataset[t].labels))) for t in range(n_steps)]
    data["series"] = series
    data["sankey"] = _sankey(result)
    top = unused + max(max(int(s.n_max), s.n_clusters) for s in result) + 1
    if dataset is not None and dataset.has_labels:  # truth panels use labels above the run's
        top += max(len(np.unique(dataset[t].labels)) for t in range(n_steps))
    data["colors"] = [label_color(k) for k in range(top)]
    return data
