"""Static Plotly figures of a temporal clustering run.

Every builder returns a plain :class:`plotly.graph_objects.Figure` (no
widgets, no kernel needed), so the figures render in JupyterLab, nbviewer,
Jupyter Book and exported HTML alike.  Figures are deterministic: the same
inputs give the same JSON (no trace uids, no random div ids), which keeps
notebook output comparisons stable.

Clusters are coloured by their *aligned* label (see
:attr:`ercot_nb.result.StepResult.aligned_labels`), so a cluster keeps its
colour across time steps.

=============================  ==============================================
builder                        shows
=============================  ==============================================
:func:`partition_figure`       the partition of one step (or of another front
                               member), centroids, entered and left samples
:func:`partition_animation`    the same view over all steps (slider + play)
:func:`pareto_figure`          the final population of one step and its knee
:func:`pareto_frame`           the same with a fixed trace layout (widgets)
:func:`pareto_animation`       the Pareto view over all steps (slider + play)
:func:`pareto_comparison_figure` raw vs accumulated objectives side by side
:func:`alpha_figure`           the smoothness weight alpha (and alpha_i) over time
:func:`scores_figure`          RI or NMI per step of one or more runs
:func:`n_clusters_figure`      chosen (and true) number of clusters per step
:func:`sankey_figure`          cluster flow between steps (persist/split/merge)
:func:`membership_figure`      each id's cluster at every step (who changes cluster)
:func:`video_segmentation_figure` a video frame, its segmentation and the
                               ground truth side by side
:func:`video_segmentation_animation` the same over all steps (slider + play)
:func:`report_figures`         all kernel-free views of a run, in order
:func:`save_html`              one self-contained offline HTML file
=============================  ==============================================

Helpers: :func:`member_partition` (a-posteriori choice of a front member),
:func:`cluster_flows` (the Sankey's table), :func:`cluster_moves` (every change of
cluster of every id), :func:`ground_truth_result`
(a dataset's labels shown with the same views); for videos :func:`is_video`,
:func:`frame_image` and :func:`segmentation_image` (pixels placed by id).
"""
from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import qualitative, sample_colorscale

from .data import Snapshot, TemporalDataset, common_ids
from .metrics import rand_index, score_steps
from .result import ClusteringResult, StepResult, align_labels

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "WEBGL_THRESHOLD",
    "TEMPLATE",
    "cluster_colors",
    "label_color",
    "partition_figure",
    "partition_animation",
    "pareto_figure",
    "alpha_figure",
    "scores_figure",
    "n_clusters_figure",
    "save_html",
    "member_partition",
    "pareto_frame",
    "pareto_animation",
    "pareto_comparison_figure",
    "cluster_flows",
    "sankey_figure",
    "sankey_colors",
    "ground_truth_result",
    "report_figures",
    "VIDEO_MAX_PIXELS",
    "is_video",
    "frame_image",
    "segmentation_image",
    "video_segmentation_figure",
    "video_segmentation_animation",
    "MEMBERSHIP_SORTS",
    "cluster_moves",
    "membership_figure",
]

WEBGL_THRESHOLD = 5000
"""Above this many points per step, scatter traces use WebGL (``go.Scattergl``)."""

TEMPLATE = "plotly_white"

# Strong colours that read well on white; near-black is left out because it
# marks centroid outlines and newly entered samples.
_PALETTE: tuple[str, ...] = tuple(
    dict.fromkeys(c.upper() for c in (*qualitative.D3, *qualitative.Dark24) if c.upper() != "#222A2A")
)
_INK = "#222222"  # outlines, knee, entered-sample rings
_MUTED = "#9E9E9E"
_SIZE = {"partition": (640, 540), "pareto": (640, 500), "line": (680, 400)}
_PAD = 0.05  # fraction of the data span added around fixed axis ranges


# ---------------------------------------------------------------------------
# Colours
# ---------------------------------------------------------------------------


def label_color(label: int) -> str:
    """Colour of one aligned cluster label.

    Parameters
    ----------
    label : int
        Aligned label (non-negative).  Labels beyond the palette length wrap
        around.

    Returns
    -------
    str
        A ``#RRGGBB`` colour.
    """
    return _PALETTE[int(label) % len(_PALETTE)]


def cluster_colors(n: int) -> list[str]:
    """Colours of aligned labels ``0 .. n-1`` (the fixed qualitative palette).

    Parameters
    ----------
    n : int
        Number of colours.

    Returns
    -------
    list of str
        ``cluster_colors(n)[k] == label_color(k)``.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return [label_color(k) for k in range(n)]


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _as_result(result: Any) -> ClusteringResult:
    """Accept a ClusteringResult or a fitted estimator exposing ``result_``."""
    if isinstance(result, ClusteringResult):
        return result
    inner = getattr(result, "result_", None)
    if isinstance(inner, ClusteringResult):
        return inner
    raise TypeError(
        f"expected a ClusteringResult or a fitted estimator, got {type(result).__name__}"
    )


def _plain(value: Any) -> Any:
    """A numpy scalar as a plain Python value (for clean figure JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def _times(times: Sequence[Any]) -> list[Any]:
    return [_plain(t) for t in times]


def _step_index(steps: ClusteringResult | TemporalDataset, t: int, what: str = "result") -> int:
    """``t`` as a non-negative step index of ``steps`` (negative counts from the end)."""
    n = len(steps)
    if not isinstance(t, (int, np.integer)) or isinstance(t, bool) or not -n <= t < n:
        raise IndexError(f"step t={t!r} is out of range for a {what} with {n} step(s)")
    return int(t) % n


def _base_layout(kind: str, title: str, **extra: Any) -> dict[str, Any]:
    width, height = _SIZE[kind]
    return dict(
        title=dict(text=title),
        template=TEMPLATE,
        width=width,
        height=height,
        margin=dict(l=60, r=20, t=60, b=55),
        **extra,
    )


def _padded_range(low: float, high: float) -> list[float]:
    span = high - low
    pad = _PAD * span if span > 0 else 0.5
    return [float(low - pad), float(high + pad)]


def _time_axis(times: Sequence[Any]) -> dict[str, Any]:
    """x-axis showing every step's time label, numeric or categorical."""
    numeric = all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in times)
    axis: dict[str, Any] = dict(title=dict(text="time"))
    if numeric and len(times) <= 30:
        axis.update(tickmode="array", tickvals=list(times))
    elif not numeric:
        axis.update(type="category")
    return axis


# ---------------------------------------------------------------------------
# Partition view (shared by the figure and the animation)
# ---------------------------------------------------------------------------


class _Plane:
    """Maps every step's samples and centroids to fixed 2-D or 3-D plot coordinates.

    Four cases: one feature (feature vs sample index), two chosen feature
    columns, a PCA projection fitted on all steps at once so the axes do not
    change between steps, or (``projection="3d"``) three chosen feature columns.
    """

    def __init__(
        self,
        dataset: TemporalDataset,
        features: Sequence[int | str] | None,
        projection: str | None,
    ) -> None:
        n_features = dataset.n_features
        names = dataset.feature_names
        self.by_index = n_features == 1 and projection != "3d"
        self.dims = 3 if projection == "3d" else 2
        self.components: np.ndarray | None = None
        self.mean: np.ndarray | None = None
        if projection not in (None, "pca", "3d"):
            raise ValueError(f"projection must be None, 'pca' or '3d', got {projection!r}")
        if projection == "3d":
            if n_features < 3:
                raise ValueError(
                    f"projection='3d' needs at least three features; the data has {n_features}"
                )
            features = (0, 1, 2) if features is None else features
            self.columns = tuple(self._column(f, names) for f in features)  # type: ignore[assignment]
            if len(self.columns) != 3:
                raise ValueError(
                    f"projection='3d' needs features naming exactly three columns, got {features!r}"
                )
            self.titles = tuple(names[c] for c in self.columns)  # type: ignore[assignment]
        elif self.by_index:
            if projection is not None:
                raise ValueError("projection='pca' needs at least two features; the data has one")
            self.columns = (0, 0)
            self.titles = ("sample index (within the step)", names[0])
        elif projection == "pca":
            self._fit_pca(np.vstack([s.X for s in dataset]))
            share = self.explained
            self.titles = (f"PC1 ({share[0]:.0%} of variance)", f"PC2 ({share[1]:.0%} of variance)")
            self.columns = (0, 1)
        else:
            features = (0, 1) if features is None else features
            self.columns = tuple(self._column(f, names) for f in features)  # type: ignore[assignment]
            if len(self.columns) != 2:
                raise ValueError(f"features must name exactly two columns, got {features!r}")
            self.titles = (names[self.columns[0]], names[self.columns[1]])

    @staticmethod
    def _column(feature: int | str, names: list[str]) -> int:
        if isinstance(feature, str):
            if feature not in names:
                raise ValueError(f"unknown feature {feature!r}; features: {names}")
            return names.index(feature)
        index = int(feature)
        if not -len(names) <= index < len(names):
            raise ValueError(f"feature index {feature} out of range for {len(names)} feature(s)")
        return index % len(names)

    def _fit_pca(self, X: np.ndarray) -> None:
        self.mean = X.mean(axis=0)
        _, singular, components = np.linalg.svd(X - self.mean, full_matrices=False)
        components = components[:2]
        # Deterministic sign: the largest loading of each component is positive.
        largest = np.abs(components).argmax(axis=1)
        components *= np.sign(components[np.arange(2), largest])[:, None]
        self.components = components
        variance = singular**2
        self.explained = variance[:2] / variance.sum() if variance.sum() > 0 else np.zeros(2)

    def project(self, X: np.ndarray) -> tuple[np.ndarray, ...]:
        """Plot coordinates of the rows of ``X``: (x, y) or, in 3-D, (x, y, z).

        For one feature: (index, value).
        """
        if self.by_index:
            return np.arange(len(X), dtype=np.float64), X[:, 0]
        if self.components is not None:
            Z = (X - self.mean) @ self.components.T
            return Z[:, 0], Z[:, 1]
        return tuple(X[:, c] for c in self.columns)


class _PartitionView:
    """Per-step traces of a partition scatter, with ranges fixed over all steps."""

    def __init__(
        self,
        dataset: TemporalDataset,
        result: Any,
        *,
        features: Sequence[int | str] | None,
        projection: str | None,
        show_centroids: bool,
        webgl: bool | None,
    ) -> None:
        if not isinstance(dataset, TemporalDataset):
            raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
        self.dataset = dataset
        self.result = _as_result(result)
        if len(self.result) > len(dataset):
            raise ValueError(
                f"the result has {len(self.result)} steps but the dataset only {len(dataset)}"
            )
        for step in self.result:
            if step.n_samples != dataset[step.t].n_samples:
                raise ValueError(
                    f"step {step.t}: the result has {step.n_samples} samples but the dataset "
                    f"{dataset[step.t].n_samples}; was the result fitted on this dataset?"
                )
        self.plane = _Plane(dataset, features, projection)
        self.show_centroids = show_centroids
        self._coords = [self.plane.project(s.X) for s in dataset]
        self.ranges = self._ranges()
        self.x_range, self.y_range = self.ranges[0], self.ranges[1]
        self.z_range = self.ranges[2] if self.is_3d else None
        self.max_points = int(dataset.n_samples_per_step.max())
        self.webgl = webgl
        self._id_texts: dict[int, np.ndarray] = {}

    @property
    def is_3d(self) -> bool:
        """Whether the view is a 3-D scatter (``projection="3d"``)."""
        return self.plane.dims == 3

    def use_webgl(self, n_points: int) -> bool:
        """WebGL as requested, or automatically above the threshold."""
        return n_points > WEBGL_THRESHOLD if self.webgl is None else bool(self.webgl)

    def _ranges(self) -> list[list[float]]:
        per_axis = [[coords[d] for coords in self._coords] for d in range(self.plane.dims)]
        if self.show_centroids and not self.plane.by_index:
            for step in self.result:
                for d, values in enumerate(self.plane.project(step.centroids)):
                    per_axis[d].append(values)
        ranges = []
        for values in per_axis:
            flat = np.concatenate(values)
            ranges.append(_padded_range(flat.min(), flat.max()))
        return ranges

    def labels_over_time(self) -> list[int]:
        """Every aligned label used by any step, sorted."""
        return sorted({int(k) for step in self.result for k in np.unique(step.aligned_labels)})

    def entered(self, t: int) -> np.ndarray:
        """Mask of step t's samples absent at step t-1 (all False at t = 0)."""
        current = self.dataset[t]
        mask = np.zeros(current.n_samples, dtype=bool)
        if t > 0:
            mask[:] = True
            _, common = common_ids(self.dataset[t - 1], current)
            mask[common] = False
        return mask

    def title(self, t: int) -> str:
        step = self.result[t]
        name = f"{self.dataset.name}: " if self.dataset.name else ""
        return (
            f"{name}{self.result.algorithm} partition at time {_plain(step.time)} "
            f"(step {step.t}, {step.n_clusters} clusters)"
        )

    def member_title(self, t: int, partition: StepResult, member: int) -> str:
        step = self.result[t]
        name = f"{self.dataset.name}: " if self.dataset.name else ""
        return (
            f"{name}{self.result.algorithm} member {member} at time {_plain(step.time)} "
            f"(step {step.t}, {partition.n_clusters} clusters; knee is member {step.knee})"
        )

    def left(self, t: int) -> np.ndarray:
        """Positions (within step t-1) of the samples gone at step t (empty at t = 0)."""
        if t == 0:
            return np.empty(0, dtype=np.intp)
        previous = self.dataset[t - 1]
        common, _ = common_ids(previous, self.dataset[t])
        mask = np.ones(previous.n_samples, dtype=bool)
        mask[common] = False
        return np.flatnonzero(mask)

    def id_texts(self, t: int) -> np.ndarray:
        """Step t's sample ids as strings (hover text), cached per step."""
        cached = self._id_texts.get(t)
        if cached is None:
            cached = np.array([str(_plain(i)) for i in self.dataset[t].ids.tolist()], dtype=str)
            self._id_texts[t] = cached
        return cached

    def id_hover(self, t: int, positions: np.ndarray, webgl: bool) -> tuple[dict[str, Any], str]:
        """Hover ids of step t's samples at ``positions``: trace properties and template token.

        Small figures carry ids as ``text``.  WebGL figures with integer ids
        carry them as a float ``customdata`` array instead, which a widget
        sends as one binary buffer rather than a list of strings (scrubbing
        20,000 points stays fast).
        """
        ids = self.dataset[t].ids
        if webgl and ids.dtype.kind in "iu" and (len(ids) == 0 or np.abs(ids).max() < 2**53):
            return {"customdata": ids[positions].astype(np.float64)}, "%{customdata:d}"
        return {"text": self.id_texts(t)[positions]}, "%{text}"

    def traces(
        self,
        t: int,
        labels: Sequence[int],
        webgl: bool,
        partition: StepResult | None = None,
    ) -> list[go.Scatter | go.Scattergl | go.Scatter3d]:
        """Traces of step ``t``: one per label in ``labels``, entered and left samples, centroids.

        ``partition`` replaces the result's step ``t`` (e.g. the partition of
        another Pareto front member); its ``aligned_labels`` colour the points.
        In 3-D every trace is a ``go.Scatter3d`` with an extra ``z``.
        """
        step = self.result[t] if partition is None else partition
        coords = self._coords[t]
        x = coords[0]
        scatter = go.Scatter3d if self.is_3d else go.Scattergl if webgl else go.Scatter
        n = len(x)
        size = 7 if n <= 1000 else 5 if n <= WEBGL_THRESHOLD else 3
        if self.is_3d:
            size = max(size - 3, 2)  # 3-D markers read larger
        # plotly.js 3-D markers know fewer symbols than 2-D ones
        left_symbol = "cross" if self.is_3d else "x-thin-open"

        def xyz(values: Sequence[np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
            return dict(zip("xyz", (v[rows] for v in values)))

        traces: list[go.Scatter | go.Scattergl | go.Scatter3d] = []
        for label in labels:
            members = np.flatnonzero(step.aligned_labels == label)
            hover, token = self.id_hover(t, members, webgl)
            traces.append(
                scatter(
                    **xyz(coords, members),
                    mode="markers",
                    name=f"cluster {label}",
                    legendgroup=f"cluster {label}",
                    marker=dict(color=label_color(label), size=size, opacity=0.85),
                    hovertemplate=f"id {token}<br>cluster {label}<extra></extra>",
                    **hover,
                )
            )
        new = np.flatnonzero(self.entered(t))
        hover, token = self.id_hover(t, new, webgl)
        traces.append(
            scatter(
                **xyz(coords, new),
                mode="markers",
                name="entered since previous step",
                marker=dict(symbol="circle-open", size=size + 6, color=_INK, line=dict(width=1.5)),
                hovertemplate=f"id {token}<br>new at this step<extra></extra>",
                **hover,
            )
        )
        gone = self.left(t)
        previous = self._coords[t - 1] if t > 0 else tuple(v[:0] for v in coords)
        hover, token = self.id_hover(t - 1, gone, webgl) if t > 0 else self.id_hover(t, gone, webgl)
        traces.append(
            scatter(
                **xyz(previous, gone),
                mode="markers",
                name="left since previous step",
                marker=dict(symbol=left_symbol, size=size + 4, color=_MUTED, line=dict(width=1.5)),
                hovertemplate=f"id {token}<br>gone at this step (last position)<extra></extra>",
                **hover,
            )
        )
        if self.show_centroids:
            traces.append(self._centroid_trace(step, x))
        return traces

    def _centroid_trace(self, step, x_samples: np.ndarray) -> go.Scatter | go.Scatter3d:
        # centroids are numbered like step.labels; map them to aligned labels
        aligned_of = np.empty(step.n_clusters, dtype=np.int64)
        aligned_of[step.labels] = step.aligned_labels
        if self.plane.by_index:
            # one feature: put each centroid at the mean index of its members
            cx = np.array([x_samples[step.labels == c].mean() for c in range(step.n_clusters)])
            positions: tuple[np.ndarray, ...] = (cx, step.centroids[:, 0])
        else:
            positions = self.plane.project(step.centroids)
        scatter = go.Scatter3d if self.is_3d else go.Scatter
        return scatter(
            **dict(zip("xyz", positions)),
            mode="markers",
            name="centroids",
            marker=dict(
                symbol="diamond" if self.is_3d else "x",
                size=8 if self.is_3d else 16,
                color=[label_color(k) for k in aligned_of],
                line=dict(width=1.5, color=_INK),
            ),
            text=[f"cluster {k}" for k in aligned_of],
            hovertemplate="centroid of %{text}<extra></extra>",
        )

    def layout(self, title: str) -> dict[str, Any]:
        if self.is_3d:
            axes = {
                f"{name}axis": dict(title=dict(text=text), range=list(span), autorange=False)
                for name, text, span in zip("xyz", self.plane.titles, self.ranges)
            }
            return _base_layout(
                "partition",
                title,
                scene=dict(**axes, aspectmode="cube"),
                legend=dict(itemsizing="constant"),
            )
        x_title, y_title = self.plane.titles
        return _base_layout(
            "partition",
            title,
            xaxis=dict(title=dict(text=x_title), range=self.x_range, autorange=False),
            yaxis=dict(title=dict(text=y_title), range=self.y_range, autorange=False),
            legend=dict(itemsizing="constant"),
        )


def partition_figure(
    dataset: TemporalDataset,
    result: ClusteringResult,
    t: int,
    *,
    features: Sequence[int | str] | None = None,
    projection: str | None = None,
    show_centroids: bool = True,
    webgl: bool | None = None,
    title: str | None = None,
    member: int | None = None,
) -> go.Figure:
    """Scatter of step ``t``'s samples coloured by their aligned cluster label.

    Parameters
    ----------
    dataset : TemporalDataset
        The data the result was fitted on.
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int
        0-based step index (negative counts from the end).
    features : pair (triple in 3-D) of int or str, optional
        The feature columns on the axes; default ``(0, 1)``, or ``(0, 1, 2)``
        with ``projection="3d"``.  Ignored for one feature, where the plot
        shows the feature against the sample index, and with
        ``projection="pca"``.
    projection : {None, "pca", "3d"}, default=None
        ``"pca"`` plots the first two principal components, fitted on all
        steps together so the axes are the same at every step.  ``"3d"``
        draws a rotatable ``go.Scatter3d`` of three feature columns (the
        data needs at least three features); the scene's axis ranges are
        fixed over all steps too, and centroids are diamonds.
    show_centroids : bool, default=True
        Mark each cluster's centroid with an X in the cluster's colour.
    webgl : bool or None, default=None
        Use ``go.Scattergl``; ``None`` switches it on above
        :data:`WEBGL_THRESHOLD` points.
    title : str, optional
        Figure title; a default names the algorithm, time and cluster count.
    member : int, optional
        Show the partition of this member of step ``t``'s final population
        instead of the knee's (see :func:`member_partition`).

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per cluster present at ``t`` (named ``"cluster <label>"``),
        a trace ringing the samples that entered since step ``t - 1``, a
        ``"left since previous step"`` trace marking, at their last
        position, the samples gone since ``t - 1``, and a ``"centroids"``
        trace.  Axis ranges are fixed over all steps, so
        figures of different steps share the same axes.
    """
    view = _PartitionView(
        dataset, result, features=features, projection=projection,
        show_centroids=show_centroids, webgl=webgl,
    )
    t = _step_index(view.result, t)
    partition = None if member is None else member_partition(dataset, view.result, t, member)
    shown = view.result[t] if partition is None else partition
    present = sorted(int(k) for k in np.unique(shown.aligned_labels))
    traces = view.traces(t, present, view.use_webgl(view.dataset[t].n_samples), partition)
    default_title = view.title(t) if partition is None else view.member_title(t, partition, member)
    return go.Figure(data=traces, layout=view.layout(title or default_title))


def member_partition(
    dataset: TemporalDataset,
    result: ClusteringResult,
    t: int,
    member: int,
) -> StepResult:
    """Partition of step ``t`` by another member of its final population.

    The a-posteriori choice: any member of the Pareto front (or of the whole
    final population) can replace the knee.  Its clusters are aligned to the
    knee's partition of the same step, so a cluster both share keeps its
    colour, and new clusters get labels no step uses.

    Parameters
    ----------
    dataset : TemporalDataset
        The data the result was fitted on.
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int
        0-based step index (negative counts from the end).
    member : int
        Index into step ``t``'s final population (see
        :meth:`ClusteringResult.fronts_frame`).

    Returns
    -------
    StepResult
        The knee's own step when ``member`` is the knee; otherwise a step
        without search history whose ``labels`` come from
        :meth:`ClusteringResult.labels_of_member`, whose ``centroids`` are
        the cluster means and whose ``aligned_labels`` follow the knee's.

    Raises
    ------
    ValueError
        If the algorithm keeps no population (e.g. a baseline).
    IndexError
        If ``member`` is not a population index.
    """
    result = _as_result(result)
    t = _step_index(result, t)
    step = result[t]
    population_size = len(step.population)
    if population_size == 0:
        raise ValueError(
            f"{result.algorithm} keeps no final population, so there is no other "
            "front member to choose"
        )
    if isinstance(member, bool) or not isinstance(member, (int, np.integer)) or not (
        0 <= member < population_size
    ):
        raise IndexError(f"member must be in 0..{population_size - 1}, got {member!r}")
    if int(member) == step.knee:
        return step
    snapshot = dataset[t]
    labels = result.labels_of_member(snapshot.X, t, int(member))
    partition = StepResult.from_partition(
        t, step.time, step.ids, labels, snapshot.X, seconds=0.0, alpha=step.alpha
    )
    unused = 1 + max(int(s.aligned_labels.max()) for s in result if s.n_samples)
    partition.aligned_labels, _ = align_labels(
        step.ids, step.aligned_labels, step.ids, partition.labels, unused
    )
    return partition


def partition_animation(
    dataset: TemporalDataset,
    result: ClusteringResult,
    *,
    features: Sequence[int | str] | None = None,
    projection: str | None = None,
    show_centroids: bool = True,
    webgl: bool | None = None,
    start: int = 0,
    frame_duration: int = 800,
    title: str | None = None,
) -> go.Figure:
    """The partition view of every step as a Plotly animation.

    A time slider and play/pause buttons run in plotly.js alone, so this is
    the kernel-free view of a run (nbviewer, exported HTML, Jupyter Book).

    Parameters
    ----------
    dataset, result, features, projection, show_centroids
        As in :func:`partition_figure`.
    webgl : bool or None, default=None
        ``None`` uses WebGL when the largest step exceeds
        :data:`WEBGL_THRESHOLD` points.
    start : int, default=0
        Step shown before the animation is played.
    frame_duration : int, default=800
        Milliseconds per step when playing.
    title : str, optional
        Fixed title; by default every frame names its own step.

    Returns
    -------
    plotly.graph_objects.Figure
        One frame per step (named by the step index).  Every frame has the
        same traces: one per aligned label used at any step (empty where the
        cluster is absent), the entered-samples and left-samples traces and
        the centroids.
    """
    view = _PartitionView(
        dataset, result, features=features, projection=projection,
        show_centroids=show_centroids, webgl=webgl,
    )
    n_steps = len(view.result)
    start = _step_index(view.result, start)
    labels = view.labels_over_time()
    use_gl = view.use_webgl(view.max_points)
    frames = [
        go.Frame(
            name=str(t),
            data=view.traces(t, labels, use_gl),
            layout=dict(title=dict(text=title or view.title(t))),
        )
        for t in range(n_steps)
    ]
    layout = view.layout(title or view.title(start))
    _add_animation_controls(
        layout, [_plain(view.result[t].time) for t in range(n_steps)], start, frame_duration,
        webgl=use_gl or view.is_3d,  # WebGL and 3-D traces redraw on every frame
    )
    return go.Figure(data=frames[start].data, frames=frames, layout=layout)


def _add_animation_controls(
    layout: dict[str, Any],
    labels: Sequence[Any],
    start: int,
    frame_duration: int,
    *,
    webgl: bool,
) -> None:
    """Add a time slider and play/pause buttons over frames named ``"0", "1", ...``."""
    # WebGL traces need a full redraw per frame; SVG ones do not.
    frame_args = dict(mode="immediate", transition=dict(duration=0))
    slider_steps = [
        dict(
            label=str(label),
            method="animate",
            args=[[str(t)], dict(frame=dict(duration=0, redraw=webgl), **frame_args)],
        )
        for t, label in enumerate(labels)
    ]
    layout["height"] += 90
    layout["margin"]["b"] = 120
    layout["sliders"] = [
        dict(
            active=start,
            steps=slider_steps,
            currentvalue=dict(prefix="time: "),
            x=0.12,
            len=0.88,
            y=0,
            yanchor="top",
            pad=dict(t=60, b=10),
        )
    ]
    layout["updatemenus"] = [
        dict(
            type="buttons",
            direction="left",
            showactive=False,
            x=0.0,
            y=0,
            xanchor="left",
            yanchor="top",
            pad=dict(t=70, r=10),
            buttons=[
                dict(
                    label="▶",
                    method="animate",
                    args=[None, dict(frame=dict(duration=frame_duration, redraw=webgl),
                                     fromcurrent=True, **frame_args)],
                ),
                dict(
                    label="❚❚",
                    method="animate",
                    args=[[None], dict(frame=dict(duration=0, redraw=False), **frame_args)],
                ),
            ],
        )
    ]


# ---------------------------------------------------------------------------
# Search history
# ---------------------------------------------------------------------------


def _min_max(values: np.ndarray) -> np.ndarray:
    """Min-max normalise each column to [0, 1]; non-finite values map to 1 (worst)."""
    finite = np.isfinite(values)
    masked = np.where(finite, values, np.nan)
    low, high = np.nanmin(masked, axis=0), np.nanmax(masked, axis=0)
    span = np.where(high > low, high - low, 1.0)
    return np.where(finite, (masked - low) / span, 1.0)


def _k_color(k: int, k_max: int) -> str:
    # Viridis without its pale yellow end, which vanishes on white
    position = 0.0 if k_max <= 1 else 0.85 * (k - 1) / (k_max - 1)
    return sample_colorscale("Viridis", [min(max(position, 0.0), 0.85)])[0]


_PARETO_HOVER = (
    "member %{customdata[0]}<br>k = %{customdata[1]}<br>"
    "f_cp = %{customdata[2]:.4g}<br>f_sep = %{customdata[3]:.4g}<extra></extra>"
)


def _pareto_k_max(result: ClusteringResult) -> int:
    """Largest number of clusters any member of any step can have (fixes the k colours)."""
    values = [1]
    for step in result:
        values.append(int(step.n_max))
        if len(step.population_n_clusters):
            values.append(int(np.max(step.population_n_clusters)))
    return max(values)


def _pareto_traces(
    step: StepResult,
    *,
    accumulated: bool,
    k_values: Sequence[int] | None,
    k_max: int,
    selected: int | None,
    fixed: bool,
) -> tuple[list[go.Scatter], list[dict[str, Any]]]:
    """Traces and annotations of one step's final population.

    With ``fixed=True`` the trace list has the same structure at every step
    (one trace per k in ``k_values``, empty ones hidden from the legend, and
    an always-present ``"selected"`` trace) so that an animation or a widget
    can update it in place.  Otherwise only the k present are drawn and the
    ``"selected"`` trace appears only when ``selected`` is not the knee.
    """
    has_population = len(step.population) > 0 and len(step.objectives) > 0
    raw = np.asarray(
        step.objectives_accumulated if accumulated else step.objectives, dtype=np.float64
    ).reshape(-1, 2)
    F = _min_max(raw) if has_population else np.empty((0, 2))
    n_clusters = np.asarray(step.population_n_clusters, dtype=np.int64)
    front = np.asarray(step.first_front, dtype=bool)
    members = np.arange(len(F))
    if k_values is None:
        k_values = [int(k) for k in np.unique(n_clusters)]

    front_order = members[front][np.argsort(F[front, 0], kind="stable")] if has_population else members
    traces: list[go.Scatter] = [
        go.Scatter(
            x=F[front_order, 0],
            y=F[front_order, 1],
            mode="lines",
            name="first front",
            line=dict(color=_MUTED, width=1, shape="hv"),
            hoverinfo="skip",
        )
    ]
    for k in k_values:
        chosen = members[n_clusters == k] if has_population else members
        on_front = front[chosen]
        traces.append(
            go.Scatter(
                x=F[chosen, 0],
                y=F[chosen, 1],
                mode="markers",
                name=f"k = {int(k)}",
                showlegend=bool(len(chosen)) if fixed else None,
                marker=dict(
                    color=_k_color(int(k), k_max),
                    symbol=np.where(on_front, "circle", "circle-open").tolist(),
                    size=np.where(on_front, 10, 6).tolist(),
                    line=dict(width=np.where(on_front, 1, 1.5).tolist(), color=_INK),
                ),
                customdata=np.column_stack(
                    [chosen, np.full(len(chosen), k), raw[chosen]]
                ).tolist(),
                hovertemplate=_PARETO_HOVER,
            )
        )
    knee = int(step.knee)
    knee_points = [knee] if has_population and knee >= 0 else []
    traces.append(
        go.Scatter(
            x=F[knee_points, 0],
            y=F[knee_points, 1],
            mode="markers",
            name="knee (chosen)",
            marker=dict(symbol="star", size=22, color="#D62728", line=dict(width=1.5, color=_INK)),
            customdata=[[i, int(n_clusters[i]), *raw[i]] for i in knee_points],
            hovertemplate=_PARETO_HOVER,
        )
    )
    show_selected = (
        has_population and selected is not None and 0 <= int(selected) < len(F)
        and int(selected) != knee
    )
    picked = [int(selected)] if show_selected else []
    if fixed or show_selected:
        traces.append(
            go.Scatter(
                x=F[picked, 0],
                y=F[picked, 1],
                mode="markers",
                name="selected member",
                showlegend=bool(picked) if fixed else None,
                marker=dict(symbol="circle-open", size=24, color=_INK, line=dict(width=2.5)),
                customdata=[[i, int(n_clusters[i]), *raw[i]] for i in picked],
                hovertemplate=_PARETO_HOVER,
            )
        )
    annotations: list[dict[str, Any]] = []
    if knee_points:
        annotations.append(
            dict(
                x=F[knee, 0],
                y=F[knee, 1],
                text=f"knee: member {knee}, k = {int(n_clusters[knee])}",
                showarrow=True,
                arrowhead=2,
                ax=60,
                ay=-40,
                bgcolor="rgba(255,255,255,0.8)",
            )
        )
    else:
        annotations.append(_message_annotation("no final population: this algorithm keeps no Pareto front"))
    return traces, annotations


def _message_annotation(text: str) -> dict[str, Any]:
    """A note in the middle of an empty plot."""
    return dict(
        text=text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
        font=dict(size=14, color=_MUTED),
    )


def _pareto_title(result: ClusteringResult, t: int, accumulated: bool) -> str:
    step = result[t]
    kind = "accumulated" if accumulated else "raw"
    return (
        f"{result.algorithm} final population at time {_plain(step.time)} "
        f"(step {step.t}, {kind} objectives)"
    )


def _pareto_layout(title: str) -> dict[str, Any]:
    return _base_layout(
        "pareto",
        title,
        xaxis=dict(title=dict(text="f_cp, compactness (min-max normalised)"), range=[-0.05, 1.05]),
        yaxis=dict(title=dict(text="f_sep = 1 / min centroid distance (normalised)"), range=[-0.05, 1.05]),
        legend=dict(title=dict(text="clusters")),
    )


def pareto_figure(
    result: ClusteringResult,
    t: int,
    *,
    accumulated: bool = True,
    title: str | None = None,
    selected: int | None = None,
) -> go.Figure:
    """Final population of step ``t`` in normalised objective space, with its knee.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int
        0-based step index.
    accumulated : bool, default=True
        Plot the objectives the last selection used (ERCOT's accumulated
        fitness ``(1 - alpha) f^t + alpha f^{t-1}``); ``False`` plots the raw
        objectives of step ``t``.  At the first step, and for staticEC, both
        are the same.
    title : str, optional
        Figure title.
    selected : int, optional
        A member chosen instead of the knee (a-posteriori choice), ringed in
        a ``"selected member"`` trace.

    Returns
    -------
    plotly.graph_objects.Figure
        Axes are ``f_cp`` and ``f_sep`` min-max normalised over the
        population.  One trace per number of clusters (``"k = <n>"``): first
        front members as filled markers, dominated ones as small open
        markers; a line through the first front; and a ``"knee"`` trace
        holding only the chosen solution, also annotated.  A step without a
        population (a baseline) gives empty axes with a note.

    Notes
    -----
    The first front is the one of the accumulated objectives (the one the
    knee was chosen from); in raw objective space some of its members can be
    dominated.
    """
    result = _as_result(result)
    t = _step_index(result, t)
    traces, annotations = _pareto_traces(
        result[t], accumulated=accumulated, k_values=None, k_max=_pareto_k_max(result),
        selected=selected, fixed=False,
    )
    layout = _pareto_layout(title or _pareto_title(result, t, accumulated))
    layout["annotations"] = annotations
    return go.Figure(data=traces, layout=layout)


def pareto_frame(
    result: ClusteringResult,
    t: int,
    *,
    accumulated: bool = True,
    selected: int | None = None,
) -> go.Figure:
    """:func:`pareto_figure` with the same traces at every step of ``result``.

    One ``"k = <n>"`` trace for every k from 1 to the largest possible
    (empty ones hidden from the legend) and an always-present
    ``"selected member"`` trace, so frames of different steps differ only
    in their data: this is what :func:`pareto_animation` and the Pareto
    widget update in place.

    Parameters
    ----------
    result, t, accumulated, selected
        As in :func:`pareto_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    return go.Figure(*_pareto_frame_parts(result, t, accumulated=accumulated, selected=selected))


def _pareto_frame_parts(
    result: ClusteringResult, t: int, *, accumulated: bool, selected: int | None
) -> tuple[list[go.Scatter], dict[str, Any]]:
    """Traces and layout dict of :func:`pareto_frame` (no Figure built)."""
    result = _as_result(result)
    t = _step_index(result, t)
    k_max = _pareto_k_max(result)
    traces, annotations = _pareto_traces(
        result[t], accumulated=accumulated, k_values=range(1, k_max + 1), k_max=k_max,
        selected=selected, fixed=True,
    )
    layout = _pareto_layout(_pareto_title(result, t, accumulated))
    layout["annotations"] = annotations
    return traces, layout


def pareto_animation(
    result: ClusteringResult,
    *,
    accumulated: bool = True,
    start: int = 0,
    frame_duration: int = 800,
) -> go.Figure:
    """The Pareto view of every step as a Plotly animation (no kernel needed).

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    accumulated : bool, default=True
        As in :func:`pareto_figure`.
    start : int, default=0
        Step shown before the animation is played.
    frame_duration : int, default=800
        Milliseconds per step when playing.

    Returns
    -------
    plotly.graph_objects.Figure
        One frame per step (named by the step index) with the traces of
        :func:`pareto_frame`, a time slider and play/pause buttons.
    """
    result = _as_result(result)
    start = _step_index(result, start)
    frames = []
    for t in range(len(result)):
        fig = pareto_frame(result, t, accumulated=accumulated)
        frames.append(
            go.Frame(
                name=str(t),
                data=fig.data,
                layout=dict(title=fig.layout.title, annotations=fig.layout.annotations),
            )
        )
    layout = pareto_frame(result, start, accumulated=accumulated).layout.to_plotly_json()
    _add_animation_controls(layout, [_plain(s.time) for s in result], start, frame_duration, webgl=False)
    return go.Figure(data=frames[start].data, frames=frames, layout=layout)


def pareto_comparison_figure(
    result: ClusteringResult,
    t: int,
    *,
    selected: int | None = None,
    title: str | None = None,
) -> go.Figure:
    """Raw and accumulated objectives of step ``t``'s final population side by side.

    Shows how ERCOT's fitness accumulation ``(1 - alpha) f^t + alpha f^{t-1}``
    reshapes the front the knee is chosen from.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int
        0-based step index.
    selected : int, optional
        A member ringed in both panels.
    title : str, optional
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels, ``raw`` (left, axes ``x``/``y``) and ``accumulated``
        (right, axes ``x2``/``y2``), each with the traces of
        :func:`pareto_figure`; legend entries are shared.
    """
    from plotly.subplots import make_subplots

    result = _as_result(result)
    t = _step_index(result, t)
    step = result[t]
    k_max = _pareto_k_max(result)
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.08,
        subplot_titles=("raw objectives f^t", f"accumulated (alpha = {step.alpha:.3f})"),
    )
    for column, accumulated in ((1, False), (2, True)):
        traces, _ = _pareto_traces(
            step, accumulated=accumulated, k_values=None, k_max=k_max,
            selected=selected, fixed=False,
        )
        for tr in traces:
            tr.legendgroup = tr.name
            tr.showlegend = column == 1
            fig.add_trace(tr, row=1, col=column)
        fig.update_xaxes(title_text="f_cp (normalised)", range=[-0.05, 1.05], row=1, col=column)
        fig.update_yaxes(title_text="f_sep (normalised)", range=[-0.05, 1.05], row=1, col=column)
    fig.update_layout(
        template=TEMPLATE,
        width=1000,
        height=460,
        margin=dict(l=60, r=20, t=80, b=55),
        title=dict(text=title or (
            f"{result.algorithm} at time {_plain(step.time)} (step {step.t}): raw vs accumulated "
            f"objectives, knee = member {step.knee}"
        )),
        legend=dict(title=dict(text="clusters")),
    )
    return fig


def alpha_figure(
    result: ClusteringResult,
    *,
    show_pairs: bool = False,
    title: str | None = None,
    t: int | None = None,
) -> go.Figure:
    """Smoothness weight alpha at every step.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    show_pairs : bool, default=False
        Also plot the per-cluster weights alpha_i of the matched cluster
        pairs that alpha aggregates.
    title : str, optional
        Figure title.
    t : int, optional
        Mark this step: a dashed vertical line and a ``"current step"``
        marker on the alpha line.

    Returns
    -------
    plotly.graph_objects.Figure
        An ``"alpha"`` line (no point at the first step, which has no
        history), with ``show_pairs`` an ``"alpha_i per cluster"`` marker
        trace, and with ``t`` a last ``"current step"`` trace.
    """
    return go.Figure(*_alpha_parts(result, show_pairs=show_pairs, title=title, t=t))


def _alpha_parts(
    result: ClusteringResult, *, show_pairs: bool, title: str | None, t: int | None
) -> tuple[list[go.Scatter], dict[str, Any]]:
    """Traces and layout dict of :func:`alpha_figure` (no Figure built)."""
    result = _as_result(result)
    times = _times(result.times)
    alpha = result.alpha
    traces = [
        go.Scatter(
            x=times,
            y=[None if np.isnan(a) else float(a) for a in alpha],
            mode="lines+markers",
            name="alpha",
            line=dict(color=label_color(0), width=2),
            marker=dict(size=8),
            hovertemplate="time %{x}<br>alpha = %{y:.3f}<extra></extra>",
        )
    ]
    y_max = float(np.nanmax(alpha)) if np.isfinite(alpha).any() else 1.0
    if show_pairs:
        pair_x, pair_y = [], []
        for step in result:
            values = np.asarray(step.alpha_pairs, dtype=np.float64)
            values = values[np.isfinite(values)]
            pair_x.extend([_plain(step.time)] * len(values))
            pair_y.extend(values.tolist())
        traces.append(
            go.Scatter(
                x=pair_x,
                y=pair_y,
                mode="markers",
                name="alpha_i per cluster",
                marker=dict(symbol="circle-open", size=8, color=_MUTED, line=dict(width=1.5)),
                hovertemplate="time %{x}<br>alpha_i = %{y:.3f}<extra></extra>",
            )
        )
        if pair_y:
            y_max = max(y_max, max(pair_y))
    layout = _base_layout(
        "line",
        title or f"{result.algorithm} smoothness weight over time",
        xaxis=_time_axis(times),
        yaxis=dict(title=dict(text="alpha (weight of the previous step)"),
                   range=[0.0, max(1.0, y_max) + 0.02]),
    )
    if t is not None:
        t = _step_index(result, t)
        value = alpha[t]
        traces.append(
            go.Scatter(
                x=[times[t]],
                y=[None if np.isnan(value) else float(value)],
                mode="markers",
                name="current step",
                marker=dict(symbol="circle-open", size=16, color=_INK, line=dict(width=2)),
                hovertemplate="time %{x}<br>alpha = %{y:.3f}<extra>current step</extra>",
            )
        )
        layout["shapes"] = [_current_step_line(times[t])]
    return traces, layout


def _current_step_line(time: Any) -> dict[str, Any]:
    """A dashed vertical line across the plot at ``time``."""
    return dict(
        type="line", xref="x", yref="paper", x0=time, x1=time, y0=0, y1=1,
        line=dict(color=_MUTED, width=1.5, dash="dash"),
    )


# ---------------------------------------------------------------------------
# Per-step summaries
# ---------------------------------------------------------------------------


def _labels_of(run: Any) -> list[np.ndarray]:
    """Per-step labels of a result, a fitted estimator or a list of arrays."""
    if isinstance(run, ClusteringResult) or isinstance(getattr(run, "result_", None), ClusteringResult):
        return _as_result(run).labels
    if isinstance(run, (str, bytes)) or not isinstance(run, Sequence):
        raise TypeError(
            "each run must be a ClusteringResult, a fitted estimator or a list of label "
            f"arrays, got {type(run).__name__}"
        )
    return [np.asarray(labels) for labels in run]


def scores_figure(
    dataset: TemporalDataset,
    runs: Mapping[str, Any],
    metric: str = "RI",
    *,
    title: str | None = None,
    t: int | None = None,
) -> go.Figure:
    """Rand index or NMI at every step, for one or more runs.

    Parameters
    ----------
    dataset : TemporalDataset
        Data with ground-truth labels at every step.
    runs : mapping of str to ClusteringResult, fitted estimator or list of arrays
        Name shown in the legend -> the run's per-step labels.  A run with
        fewer steps than the dataset (stopped, or still running) is scored
        on its first steps.
    metric : {"RI", "NMI"}, default="RI"
    title : str, optional
        Figure title.
    t : int, optional
        Mark this step of the dataset with a dashed vertical line.

    Returns
    -------
    plotly.graph_objects.Figure
        One line per run, named ``"<name> (mean <value>)"``.
    """
    return go.Figure(*_scores_parts(dataset, runs, metric, title=title, t=t))


def _scores_parts(
    dataset: TemporalDataset, runs: Mapping[str, Any], metric: str, *, title: str | None,
    t: int | None,
) -> tuple[list[go.Scatter], dict[str, Any]]:
    """Traces and layout dict of :func:`scores_figure` (no Figure built)."""
    if metric not in ("RI", "NMI"):
        raise ValueError(f"metric must be 'RI' or 'NMI', got {metric!r}")
    if not runs:
        raise ValueError("runs is empty: give at least one {name: result} entry")
    times = _times(dataset.times)
    traces = []
    for index, (name, run) in enumerate(runs.items()):
        labels = _labels_of(run)
        if len(labels) > len(dataset):
            raise ValueError(
                f"run {name!r} has {len(labels)} steps but the dataset only {len(dataset)}"
            )
        scores = (
            score_steps(dataset[: len(labels)], labels)[metric].to_numpy()
            if labels else np.empty(0)
        )
        traces.append(
            go.Scatter(
                x=times[: len(labels)],
                y=scores,
                mode="lines+markers",
                name=f"{name} (mean {scores.mean():.3f})" if len(scores) else f"{name} (no step yet)",
                line=dict(color=label_color(index), width=2),
                marker=dict(size=7),
                hovertemplate=f"{name}<br>time %{{x}}<br>{metric} = %{{y:.3f}}<extra></extra>",
            )
        )
    full_name = {"RI": "Rand index", "NMI": "normalised mutual information"}[metric]
    layout = _base_layout(
        "line",
        title or f"{metric} per time step" + (f" on {dataset.name}" if dataset.name else ""),
        xaxis=_time_axis(times),
        yaxis=dict(title=dict(text=f"{metric} ({full_name})")),
        legend=dict(yanchor="bottom", y=0.02, xanchor="left", x=0.02, bgcolor="rgba(255,255,255,0.7)"),
    )
    if t is not None:
        layout["shapes"] = [_current_step_line(times[_step_index(dataset, t, "dataset")])]
    return traces, layout


def n_clusters_figure(
    result: ClusteringResult,
    dataset: TemporalDataset | None = None,
    *,
    title: str | None = None,
) -> go.Figure:
    """Chosen number of clusters at every step, and the true number if known.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    dataset : TemporalDataset, optional
        When it has labels, a dashed ``"true"`` line shows the number of
        distinct true labels per step.
    title : str, optional
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    result = _as_result(result)
    times = _times(result.times)
    chosen = result.n_clusters
    traces = [
        go.Scatter(
            x=times,
            y=chosen,
            mode="lines+markers",
            name=f"{result.algorithm} (chosen)",
            line=dict(color=label_color(0), width=2),
            marker=dict(size=8),
            hovertemplate="time %{x}<br>%{y} clusters<extra></extra>",
        )
    ]
    top = int(chosen.max()) if len(chosen) else 1
    if dataset is not None and dataset.has_labels:
        true = np.array([len(np.unique(s.labels)) for s in dataset][: len(result)])
        top = max(top, int(true.max()))
        traces.append(
            go.Scatter(
                x=times,
                y=true,
                mode="lines+markers",
                name="true",
                line=dict(color=_INK, width=1.5, dash="dash"),
                marker=dict(symbol="diamond-open", size=9),
                hovertemplate="time %{x}<br>%{y} true clusters<extra></extra>",
            )
        )
    layout = _base_layout(
        "line",
        title or f"{result.algorithm}: number of clusters per time step",
        xaxis=_time_axis(times),
        yaxis=dict(title=dict(text="number of clusters"), dtick=1, range=[0, top + 1]),
    )
    return go.Figure(data=traces, layout=layout)


# ---------------------------------------------------------------------------
# Cluster flow
# ---------------------------------------------------------------------------


def _rgba(color: str, opacity: float) -> str:
    """``#RRGGBB`` as an ``rgba(...)`` string."""
    red, green, blue = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{opacity})"


def cluster_flows(result: ClusteringResult) -> list[dict[str, Any]]:
    """How many samples go from each cluster at t-1 to each cluster at t.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).

    Returns
    -------
    list of dict
        One entry per (step t >= 1, aligned label at t-1, aligned label at
        t) pair with shared samples: keys ``t``, ``source``, ``target`` and
        ``count``.  Samples that enter or leave between the steps are not
        counted.  A cluster that persists flows mostly into its own label; a
        split sends one source into several targets, a merge the reverse.
    """
    result = _as_result(result)
    flows: list[dict[str, Any]] = []
    for t in range(1, len(result)):
        previous, current = result[t - 1], result[t]
        a = Snapshot(previous.time, previous.ids, np.zeros((previous.n_samples, 0)))
        b = Snapshot(current.time, current.ids, np.zeros((current.n_samples, 0)))
        ia, ib = common_ids(a, b)
        if not len(ia):
            continue
        pairs, counts = np.unique(
            np.column_stack([previous.aligned_labels[ia], current.aligned_labels[ib]]),
            axis=0, return_counts=True,
        )
        flows.extend(
            dict(t=t, source=int(source), target=int(target), count=int(count))
            for (source, target), count in zip(pairs, counts)
        )
    return flows


def sankey_colors(
    node_labels: Sequence[int],
    node_steps: Sequence[int],
    link_sources: Sequence[int],
    link_steps: Sequence[int],
    t: int | None,
) -> tuple[list[str], list[str]]:
    """Node and link colours of the Sankey view, bringing step ``t`` forward.

    Nodes take their cluster's colour and links their source cluster's
    colour.  With ``t`` given, the nodes of step ``t`` and the links into and
    out of it are strong and the rest faded.

    Parameters
    ----------
    node_labels, node_steps : sequence of int
        Aligned label and step of every node.
    link_sources, link_steps : sequence of int
        Source aligned label and target step of every link.
    t : int or None
        The step in focus; None shows every step alike.

    Returns
    -------
    node_colors, link_colors : list of str
    """
    node_colors = [
        label_color(label) if t is None or step == t else _rgba(label_color(label), 0.3)
        for label, step in zip(node_labels, node_steps)
    ]
    link_colors = [
        _rgba(label_color(source), 0.35 if t is None else 0.6 if step in (t, t + 1) else 0.12)
        for source, step in zip(link_sources, link_steps)
    ]
    return node_colors, link_colors


def sankey_figure(
    result: ClusteringResult,
    *,
    t: int | None = None,
    title: str | None = None,
) -> go.Figure:
    """Cluster flow between consecutive steps: persistence, splits and merges.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int, optional
        Bring this step forward: its clusters and the flows into and out of
        it in strong colours, the rest faded (see :func:`sankey_colors`).
    title : str, optional
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``go.Sankey`` trace.  Nodes are (step, aligned cluster) pairs in
        the cluster's colour, placed left to right by step and stacked by
        label; node ``customdata`` holds ``[step, label, size]``.  Links
        follow :func:`cluster_flows`, take the source cluster's colour and
        hold ``[time from, source, time to, target, step to]``.  Each
        column is labelled with its time below.
    """
    return go.Figure(*_sankey_parts(result, t=t, title=title))


def _sankey_parts(
    result: ClusteringResult, *, t: int | None, title: str | None
) -> tuple[list[go.Sankey], dict[str, Any]]:
    """Trace and layout dict of :func:`sankey_figure` (no Figure built)."""
    result = _as_result(result)
    n_steps = len(result)
    node_step: list[int] = []
    node_label: list[int] = []
    node_size: list[int] = []
    node_x: list[float] = []
    node_y: list[float] = []
    index: dict[tuple[int, int], int] = {}
    for step in result:
        labels, sizes = np.unique(step.aligned_labels, return_counts=True)
        total = max(int(sizes.sum()), 1)
        below = 0
        for label, size in zip(labels.tolist(), sizes.tolist()):
            index[(step.t, label)] = len(node_step)
            node_step.append(step.t)
            node_label.append(label)
            node_size.append(size)
            node_x.append(0.01 + 0.98 * (step.t / (n_steps - 1) if n_steps > 1 else 0.5))
            node_y.append(0.01 + 0.98 * (below + size / 2) / total)
            below += size
    flows = cluster_flows(result)
    times = [_plain(s.time) for s in result]
    highlight = None if t is None else _step_index(result, t)
    node_colors, link_colors = sankey_colors(
        node_label, node_step, [f["source"] for f in flows], [f["t"] for f in flows], highlight
    )
    trace = go.Sankey(
        arrangement="fixed",
        node=dict(
            label=[f"{label}" for label in node_label],
            x=node_x,
            y=node_y,
            pad=8,
            thickness=14,
            color=node_colors,
            line=dict(width=0.5, color=_MUTED),
            customdata=[[s, label, size] for s, label, size in zip(node_step, node_label, node_size)],
            hovertemplate=(
                "step %{customdata[0]}<br>cluster %{customdata[1]}<br>"
                "%{customdata[2]} samples<extra></extra>"
            ),
        ),
        link=dict(
            source=[index[(f["t"] - 1, f["source"])] for f in flows],
            target=[index[(f["t"], f["target"])] for f in flows],
            value=[f["count"] for f in flows],
            color=link_colors,
            customdata=[
                [times[f["t"] - 1], f["source"], times[f["t"]], f["target"], f["t"]] for f in flows
            ],
            hovertemplate=(
                "cluster %{customdata[1]} at time %{customdata[0]} → cluster "
                "%{customdata[3]} at time %{customdata[2]}<br>%{value} samples<extra></extra>"
            ),
        ),
    )
    layout = _base_layout("line", title or sankey_title(result, highlight))
    layout.update(width=max(680, min(1200, 90 * n_steps)), height=420)
    layout["margin"] = dict(l=30, r=30, t=60, b=45)
    # time labels under the columns (node x is in the trace's domain, i.e. paper units)
    columns = sorted({(x, step) for x, step in zip(node_x, node_step)})
    layout["annotations"] = [
        dict(x=x, y=-0.02, xref="paper", yref="paper", yanchor="top", showarrow=False,
             text=f"time {times[step]}", font=dict(size=11, color=_MUTED))
        for x, step in columns
    ]
    if not flows:
        layout["annotations"].append(
            _message_annotation("no flow yet: needs two steps sharing sample ids")
        )
    return [trace], layout


def sankey_title(result: ClusteringResult, t: int | None) -> str:
    """Default title of :func:`sankey_figure` (naming the step in focus)."""
    focus = "" if t is None else f" (time {_plain(result[t].time)} in focus)"
    return f"{result.algorithm}: cluster flow over time{focus}"


# ---------------------------------------------------------------------------
# Video views: frame and segmentation side by side
# ---------------------------------------------------------------------------

VIDEO_MAX_PIXELS = 200_000
"""Default largest number of pixels per image panel of the video views.

Larger frames are shown stride-subsampled (every s-th row and column, with
the smallest s that fits); the axes keep the full frame's pixel coordinates.
"""

_ABSENT_RGB = np.array([217, 217, 217], dtype=np.uint8)  # pixels absent at a step
_PANEL_WIDTH = 320  # default display width of one video panel, in CSS pixels
_PANEL_GAP = 16  # CSS pixels between panels


def is_video(dataset: Any) -> bool:
    """Whether ``dataset`` is a video: one frame per time step, one sample per pixel.

    Parameters
    ----------
    dataset : object
        Anything; only a :class:`~ercot_nb.data.TemporalDataset` can be a video.

    Returns
    -------
    bool
        True when ``dataset.metadata["kind"] == "video"`` and
        ``metadata["frame_shape"]`` is set.  A video's samples are pixels
        with id ``row * W + col`` and its first three features are the
        colour ``r, g, b`` in [0, 1].
    """
    if not isinstance(dataset, TemporalDataset):
        return False
    return dataset.metadata.get("kind") == "video" and dataset.metadata.get("frame_shape") is not None


def _frame_shape(dataset: TemporalDataset) -> tuple[int, int]:
    """``(H, W)`` of a video dataset, checked (with the colour columns)."""
    if not isinstance(dataset, TemporalDataset):
        raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
    name = f"dataset {dataset.name!r}" if dataset.name else "the dataset"
    if not is_video(dataset):
        raise ValueError(
            f"{name} is not a video: it needs metadata['kind'] == 'video' and "
            "metadata['frame_shape'] = (H, W)"
        )
    shape = np.asarray(dataset.metadata["frame_shape"])
    if shape.shape != (2,) or shape.dtype.kind not in "iu" or (shape < 1).any():
        raise ValueError(
            "metadata['frame_shape'] must be a pair (H, W) of positive ints, got "
            f"{dataset.metadata['frame_shape']!r}"
        )
    if dataset.n_features < 3:
        raise ValueError(
            f"{name} has {dataset.n_features} feature(s); a video needs the colour columns "
            "r, g, b as its first three features"
        )
    return int(shape[0]), int(shape[1])


def _pixel_positions(dataset: TemporalDataset, t: int, n_pixels: int) -> np.ndarray:
    """Flat pixel index (``row * W + col``) of every sample of step ``t``, checked."""
    snapshot = dataset[t]
    ids = snapshot.ids
    where = f"step {t} (time={_plain(snapshot.time)!r})"
    if ids.dtype.kind not in "iu":
        raise ValueError(
            f"{where}: video sample ids must be integer pixel indices row * W + col, "
            f"got ids of dtype {ids.dtype}"
        )
    outside = (ids < 0) | (ids >= n_pixels)
    if outside.any():
        raise ValueError(
            f"{where}: pixel id {_plain(ids[outside][0])!r} is outside the frame "
            f"(ids must be in 0..{n_pixels - 1} = H * W - 1 for metadata['frame_shape'])"
        )
    return ids.astype(np.intp, copy=False)


def frame_image(dataset: TemporalDataset, t: int) -> np.ndarray:
    """The colour frame of step ``t`` of a video dataset.

    Parameters
    ----------
    dataset : TemporalDataset
        A video (see :func:`is_video`).
    t : int
        0-based step index (negative counts from the end).

    Returns
    -------
    float ndarray of shape (H, W, 3)
        The features ``r, g, b`` of every pixel, placed by its id
        (``row = id // W``, ``col = id % W``), whatever the samples' order.
        Pixels absent at step ``t`` are NaN; the figures draw them light
        grey.

    Raises
    ------
    ValueError
        If the dataset is not a video or an id is not a pixel of the frame.
    """
    height, width = _frame_shape(dataset)
    t = _step_index(dataset, t, "dataset")
    image = np.full((height * width, 3), np.nan)
    image[_pixel_positions(dataset, t, height * width)] = dataset[t].X[:, :3]
    return image.reshape(height, width, 3)


def _labels_result(result_or_labels: Any, dataset: TemporalDataset) -> ClusteringResult:
    """A run as a ClusteringResult; per-step label arrays are aligned over time like a run."""
    if isinstance(result_or_labels, ClusteringResult) or isinstance(
        getattr(result_or_labels, "result_", None), ClusteringResult
    ):
        return _as_result(result_or_labels)
    steps = _labels_of(result_or_labels)
    if len(steps) > len(dataset):
        raise ValueError(f"{len(steps)} label arrays for a dataset of {len(dataset)} steps")
    result = ClusteringResult(algorithm="labels", params={})
    for t, labels in enumerate(steps):
        snapshot = dataset[t]
        if labels.shape != (snapshot.n_samples,):
            raise ValueError(
                f"step {t}: labels must have shape ({snapshot.n_samples},), got {labels.shape}"
            )
        result.append(
            StepResult.from_partition(t, snapshot.time, snapshot.ids, labels, snapshot.X, seconds=0.0)
        )
    return result


def _check_same_ids(step: StepResult, dataset: TemporalDataset) -> None:
    if not np.array_equal(step.ids, dataset[step.t].ids):
        raise ValueError(
            f"step {step.t}: the result's sample ids differ from the dataset's; "
            "was the result fitted on this dataset?"
        )


def segmentation_image(result_or_labels: Any, dataset: TemporalDataset, t: int) -> np.ndarray:
    """The time-aligned cluster labels of step ``t`` of a video, as an image.

    Parameters
    ----------
    result_or_labels : ClusteringResult, fitted estimator or list of arrays
        A run (its aligned labels are used: a cluster keeps its label, and
        so its colour, across steps), or one label array per step in the
        dataset's sample order (aligned over time the same way, see
        :meth:`ClusteringResult.append`).
    dataset : TemporalDataset
        The video the labels belong to (see :func:`is_video`).
    t : int
        0-based step index (negative counts from the end).

    Returns
    -------
    int64 ndarray of shape (H, W)
        The aligned label of every pixel, placed by id; -1 where the pixel
        is absent at step ``t``.  ``label_color(k)`` is label ``k``'s colour.

    Raises
    ------
    ValueError
        If the dataset is not a video, or the labels do not fit its steps.
    """
    height, width = _frame_shape(dataset)
    result = _labels_result(result_or_labels, dataset)
    if len(result) > len(dataset):
        raise ValueError(f"the result has {len(result)} steps but the dataset only {len(dataset)}")
    step = result[_step_index(result, t)]
    _check_same_ids(step, dataset)
    image = np.full(height * width, -1, dtype=np.int64)
    image[_pixel_positions(dataset, step.t, height * width)] = step.aligned_labels
    return image.reshape(height, width)


def _palette_rgb() -> np.ndarray:
    """The label palette as an ``(n, 3)`` uint8 array (row k is ``label_color(k)``)."""
    return np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in _PALETTE], dtype=np.uint8)


_PALETTE_RGB = _palette_rgb()


def _label_rgb(labels: np.ndarray) -> np.ndarray:
    """Colour image of a label image: ``label_color`` per label, grey where -1."""
    rgb = _PALETTE_RGB[np.where(labels >= 0, labels, 0) % len(_PALETTE_RGB)]
    rgb[labels < 0] = _ABSENT_RGB
    return rgb


def _frame_rgb(frame: np.ndarray) -> np.ndarray:
    """uint8 colour image of a [0, 1] frame (clipped); NaN pixels grey."""
    absent = np.isnan(frame).any(axis=-1)
    rgb = np.rint(np.clip(np.nan_to_num(frame), 0.0, 1.0) * 255).astype(np.uint8)
    rgb[absent] = _ABSENT_RGB
    return rgb


def _display_stride(height: int, width: int, max_pixels: int | None) -> int:
    """Smallest stride s with ceil(H / s) * ceil(W / s) <= max_pixels (1 without a limit)."""
    if max_pixels is None:
        return 1
    if isinstance(max_pixels, bool) or not isinstance(max_pixels, (int, np.integer)) or max_pixels < 1:
        raise ValueError(f"max_pixels must be a positive int or None, got {max_pixels!r}")
    stride = 1
    while -(-height // stride) * -(-width // stride) > max_pixels:
        stride += 1
    return stride


def _image_data(rgb: np.ndarray) -> dict[str, Any]:
    """``go.Image`` content of a uint8 colour image: a PNG data URI, or ``z`` without Pillow.

    A PNG (lossless) keeps HTML pages and widget messages small: flat
    segmentation images compress about a hundredfold, and widgets would
    otherwise send a 3-D array as nested lists.
    """
    try:
        from PIL import Image  # Pillow comes with imageio (the ``video`` extra)
    except ImportError:
        return {"z": rgb}
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb)).save(buffer, format="PNG", compress_level=6)
    return {"source": "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")}


class _VideoPanels:
    """Image panels of a video step: the frame, the segmentation and the ground truth.

    Without a result the panels are the frame and, when the data has
    labels, the ground truth alone.  The truth panel's labels are matched
    to the result's at the same step (Hungarian, maximum overlap), so a
    true segment takes the colour of the cluster that covers it best; true
    segments left unmatched get colours no cluster of the run uses.
    """

    def __init__(
        self,
        dataset: TemporalDataset,
        result: Any,
        *,
        truth: bool,
        max_pixels: int | None,
        panel_width: int,
    ) -> None:
        self.height, self.width = _frame_shape(dataset)
        for t in range(len(dataset)):  # every pixel id checked up front (cheap)
            _pixel_positions(dataset, t, self.height * self.width)
        self.dataset = dataset
        self.preview = result is None
        if self.preview:
            self.result = ground_truth_result(dataset) if dataset.has_labels else None
            self.show_truth = False
        else:
            self.result = _as_result(result)
            if len(self.result) > len(dataset):
                raise ValueError(
                    f"the result has {len(self.result)} steps but the dataset only {len(dataset)}"
                )
            self.show_truth = bool(truth) and dataset.has_labels
        if isinstance(panel_width, bool) or not isinstance(panel_width, (int, np.integer)) or panel_width < 50:
            raise ValueError(f"panel_width must be an int >= 50 (pixels), got {panel_width!r}")
        self.panel_width = int(panel_width)
        self.stride = _display_stride(self.height, self.width, max_pixels)
        algorithm = self.result.algorithm if self.result is not None else ""
        self.names = ["frame"]
        if self.result is not None:
            self.names.append("ground truth" if self.preview else f"{algorithm} segmentation")
        if self.show_truth:
            self.names.append("ground truth (colours matched)")
        self._unused: tuple[int, int] = (-1, 0)  # (steps seen, first label no step uses)

    @property
    def n_steps(self) -> int:
        """Steps that can be shown: the result's, or the dataset's without one."""
        return len(self.result) if self.result is not None else len(self.dataset)

    def size(self) -> tuple[int, int]:
        """Figure width and height in CSS pixels."""
        n = len(self.names)
        panel_height = round(self.panel_width * self.height / self.width)
        return n * self.panel_width + (n - 1) * _PANEL_GAP + 20, panel_height + 100

    def unused_label(self) -> int:
        """1 + the largest aligned label of any step (labels above are free)."""
        seen, value = self._unused
        if seen != len(self.result):
            value = 1 + max((int(s.aligned_labels.max()) for s in self.result if s.n_samples), default=-1)
            self._unused = (len(self.result), value)
        return value

    def partition(self, t: int, member: int | None) -> StepResult:
        """Step ``t`` of the result, or the partition of population ``member``."""
        if member is None:
            step = self.result[t]
            _check_same_ids(step, self.dataset)
            return step
        return member_partition(self.dataset, self.result, t, member)

    def truth_labels(self, shown: StepResult) -> np.ndarray:
        """Step's true labels renamed to the shown partition's aligned labels (max overlap)."""
        free = max(self.unused_label(), 1 + int(shown.aligned_labels.max(initial=-1)))
        matched, _ = align_labels(shown.ids, shown.aligned_labels, shown.ids,
                                  self.dataset[shown.t].labels, free)
        return matched

    def images(self, t: int, member: int | None = None) -> list[np.ndarray]:
        """uint8 colour image of every panel of step ``t``, at full resolution."""
        n_pixels = self.height * self.width
        positions = _pixel_positions(self.dataset, t, n_pixels)
        frame = np.full((n_pixels, 3), np.nan)
        frame[positions] = self.dataset[t].X[:, :3]
        images = [_frame_rgb(frame)]
        if self.result is not None:
            shown = self.partition(t, member)
            panels = [shown.aligned_labels] + ([self.truth_labels(shown)] if self.show_truth else [])
            for labels in panels:
                image = np.full(n_pixels, -1, dtype=np.int64)
                image[positions] = labels
                images.append(_label_rgb(image))
        return [image.reshape(self.height, self.width, 3) for image in images]

    def traces(self, t: int, member: int | None = None, slots: int = 0) -> list[go.Image]:
        """One ``go.Image`` per panel (named like :attr:`names`), subsampled by :attr:`stride`.

        ``slots`` pads the list with hidden one-pixel images up to that many
        traces, so that a widget keeps its trace count (see :meth:`layout`).
        """
        s = self.stride
        traces = [
            go.Image(
                **_image_data(image[::s, ::s]),
                x0=0, y0=0, dx=s, dy=s,
                name=name,
                xaxis=f"x{index + 1 if index else ''}",
                yaxis=f"y{index + 1 if index else ''}",
                hovertemplate=f"row %{{y}}, col %{{x}}<extra>{html.escape(name)}</extra>",
            )
            for index, (name, image) in enumerate(zip(self.names, self.images(t, member)))
        ]
        blank = _image_data(np.full((1, 1, 3), 255, dtype=np.uint8))
        traces += [
            go.Image(**blank, name="", visible=False, xaxis=f"x{index + 1}", yaxis=f"y{index + 1}")
            for index in range(len(traces), slots)
        ]
        return traces

    def title(self, t: int, member: int | None = None) -> str:
        """Dataset, algorithm, time, number of clusters and (with truth) the frame's RI."""
        snapshot = self.dataset[t]
        prefix = f"{self.dataset.name}: " if self.dataset.name else ""
        where = f"time {_plain(snapshot.time)} (step {t})"
        scale = f" · shown at 1/{self.stride} resolution" if self.stride > 1 else ""
        if self.result is None:
            return f"{prefix}frame at {where}{scale}"
        shown = self.partition(t, member)
        if self.preview:
            return f"{prefix}ground truth at {where} · {shown.n_clusters} segments{scale}"
        who = self.result.algorithm + (f" member {member}" if member is not None else "")
        text = f"{prefix}{who} at {where} · {shown.n_clusters} clusters"
        if self.dataset.has_labels:
            text += f" · RI {rand_index(snapshot.labels, shown.labels):.3f}"
        return text + scale

    def layout(self, title: str, slots: int = 0) -> dict[str, Any]:
        """Side-by-side axes with square pixels, image rows downwards, a title over each panel.

        ``slots`` adds hidden axes up to that many panels, for the padding
        traces of :meth:`traces`: a widget switching between two and three
        panels then updates its traces in place instead of replacing them
        (plotly.js misplaces the panels of image traces added to a plot).

        Pixels are square because the figure is sized to the frame (see
        :meth:`size`).  The ``scaleanchor`` plotly.js gives image axes by
        default is switched off: it shrinks the axis domain, and keeps the
        shrunk domain through later relayouts, which misplaced the panels
        of a widget switching between two and three panels.
        """
        width, height = self.size()
        n = len(self.names)
        plot_width = width - 20
        share, gap = self.panel_width / plot_width, _PANEL_GAP / plot_width
        layout: dict[str, Any] = dict(
            title=dict(text=title, font=dict(size=14), x=0.01, xanchor="left"),
            template=TEMPLATE,
            width=width,
            height=height,
            margin=dict(l=10, r=10, t=90, b=10),
            showlegend=False,
            annotations=[],
        )
        axis_style = dict(showgrid=False, zeroline=False, showticklabels=False, ticks="")
        for index, name in enumerate(self.names):
            suffix = str(index + 1) if index else ""
            left = index * (share + gap)
            layout[f"xaxis{suffix}"] = dict(
                domain=[left, min(left + share, 1.0)], anchor=f"y{suffix}",
                range=[-0.5, self.width - 0.5], **axis_style,
            )
            layout[f"yaxis{suffix}"] = dict(
                domain=[0.0, 1.0], anchor=f"x{suffix}", range=[self.height - 0.5, -0.5],
                scaleanchor=False, **axis_style,
            )
            layout["annotations"].append(dict(
                text=html.escape(name), x=left + share / 2, y=1.0, xref="paper", yref="paper",
                xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=13),
            ))
        corner = [0.999, 1.0]  # a hidden subplot's background must not cover the panels
        for index in range(n, slots):
            layout[f"xaxis{index + 1}"] = dict(domain=corner, anchor=f"y{index + 1}", visible=False)
            layout[f"yaxis{index + 1}"] = dict(domain=corner, anchor=f"x{index + 1}", visible=False,
                                               scaleanchor=False)
        return layout


def video_segmentation_figure(
    result: ClusteringResult | None,
    dataset: TemporalDataset,
    t: int = 0,
    truth: bool = True,
    *,
    member: int | None = None,
    max_pixels: int | None = VIDEO_MAX_PIXELS,
    panel_width: int = _PANEL_WIDTH,
    title: str | None = None,
) -> go.Figure:
    """A video frame and its segmentation side by side (and the ground truth).

    Parameters
    ----------
    result : ClusteringResult or None
        The run (a fitted estimator with ``result_`` is accepted too).
        None previews the data: the frame and, with labels, the ground truth.
    dataset : TemporalDataset
        The video the result was fitted on (see :func:`is_video`).
    t : int, default=0
        0-based step index (negative counts from the end).
    truth : bool, default=True
        Add the ground truth as a third panel when the dataset has labels.
        Its segments take the colour of the cluster that overlaps them most
        at this step (Hungarian matching); unmatched segments get colours
        no cluster of the run uses.
    member : int, optional
        Show this member of step ``t``'s final population instead of the
        knee (see :func:`member_partition`).
    max_pixels : int or None, default=VIDEO_MAX_PIXELS
        Most pixels per panel: a larger frame is shown stride-subsampled
        (every s-th row and column), which keeps pages and widget updates
        small.  None shows every pixel.
    panel_width : int, default=320
        Width of one panel in CSS pixels; the height follows the frame.
    title : str, optional
        Figure title; by default the dataset, algorithm, time, step, number
        of clusters and, with labels, the frame's Rand index.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``go.Image`` per panel (named ``"frame"``,
        ``"<algorithm> segmentation"``, ``"ground truth (colours matched)"``),
        each on its own axes with square pixels and the frame's pixel
        coordinates (row 0 at the top).  Segmentations are coloured with
        :func:`label_color` of the aligned labels, so a cluster keeps its
        colour across steps.  Pixels absent at the step are light grey.
        Images are lossless PNG data URIs (``source``) when Pillow is
        installed, otherwise ``z`` arrays.
    """
    panels = _VideoPanels(dataset, result, truth=truth, max_pixels=max_pixels,
                          panel_width=panel_width)
    t = _step_index(panels.result if panels.result is not None else dataset, t)
    return go.Figure(data=panels.traces(t, member), layout=panels.layout(title or panels.title(t, member)))


def video_segmentation_animation(
    result: ClusteringResult | None,
    dataset: TemporalDataset,
    *,
    truth: bool = True,
    max_pixels: int | None = VIDEO_MAX_PIXELS,
    panel_width: int = _PANEL_WIDTH,
    start: int = 0,
    frame_duration: int = 800,
    title: str | None = None,
) -> go.Figure:
    """The video view of every step as a Plotly animation (slider + play).

    Runs in plotly.js alone, so exported HTML and nbviewer scrub through
    time without a kernel.  The page holds every step's images: with
    ``max_pixels`` each panel has at most that many pixels, and PNG images
    (with Pillow) stay small — flat segmentation panels take a few kB, a
    frame about as much as its PNG file.

    Parameters
    ----------
    result, dataset, truth, max_pixels, panel_width
        As in :func:`video_segmentation_figure`.
    start : int, default=0
        Step shown before the animation is played.
    frame_duration : int, default=800
        Milliseconds per step when playing.
    title : str, optional
        Fixed title; by default every frame names its own step.

    Returns
    -------
    plotly.graph_objects.Figure
        One frame per step of the result (of the dataset for a preview),
        named by the step index, each with the same image traces.
    """
    panels = _VideoPanels(dataset, result, truth=truth, max_pixels=max_pixels,
                          panel_width=panel_width)
    n_steps = panels.n_steps
    if not n_steps:
        raise ValueError("the result has no steps to show")
    start = _step_index(panels.result if panels.result is not None else dataset, start)
    frames = [
        go.Frame(name=str(t), data=panels.traces(t),
                 layout=dict(title=dict(text=title or panels.title(t))))
        for t in range(n_steps)
    ]
    layout = panels.layout(title or panels.title(start))
    # image traces are not animatable in plotly.js: every frame needs a redraw
    _add_animation_controls(layout, [_plain(dataset[t].time) for t in range(n_steps)], start,
                            frame_duration, webgl=True)
    layout["height"] += 20  # the controls' bottom margin grew by 110, the height by 90
    return go.Figure(data=frames[start].data, frames=frames, layout=layout)


# ---------------------------------------------------------------------------
# Previews and reports
# ---------------------------------------------------------------------------


def ground_truth_result(dataset: TemporalDataset) -> ClusteringResult:
    """The dataset's own labels as a result, to preview data with the same views.

    Parameters
    ----------
    dataset : TemporalDataset
        Any dataset; without ground-truth labels every sample is in one
        cluster.

    Returns
    -------
    ClusteringResult
        Algorithm ``"ground truth"`` (or ``"data"`` without labels), one
        step per dataset step built with
        :meth:`StepResult.from_partition` and time-aligned like a run.
    """
    if not isinstance(dataset, TemporalDataset):
        raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
    name = "ground truth" if dataset.has_labels else "data"
    result = ClusteringResult(algorithm=name, params={})
    for t, snapshot in enumerate(dataset):
        labels = snapshot.labels if snapshot.labels is not None else np.zeros(snapshot.n_samples, np.int64)
        result.append(
            StepResult.from_partition(t, snapshot.time, snapshot.ids, labels, snapshot.X, seconds=0.0)
        )
    return result


def report_figures(result: ClusteringResult, dataset: TemporalDataset | None = None) -> list[go.Figure]:
    """The kernel-free views of a run, in reading order.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    dataset : TemporalDataset, optional
        The data the run was fitted on; adds the partition animation (for a
        video, see :func:`is_video`, the frame/segmentation animation
        instead) and, when the data has labels, RI and NMI per step.

    Returns
    -------
    list of plotly.graph_objects.Figure
        Partition or video animation (with ``dataset``), Pareto animation
        (runs with a population), alpha with per-cluster alpha_i, number of
        clusters, RI and NMI (with labelled data) and the cluster flow.
    """
    result = _as_result(result)
    if not len(result):
        raise ValueError("the result has no steps to show")
    figs: list[go.Figure] = []
    if dataset is not None:
        figs.append(video_segmentation_animation(result, dataset) if is_video(dataset)
                    else partition_animation(dataset, result))
    if any(len(step.population) for step in result):
        figs.append(pareto_animation(result))
    figs.append(alpha_figure(result, show_pairs=True))
    figs.append(n_clusters_figure(result, dataset))
    if dataset is not None and dataset.has_labels:
        for metric in ("RI", "NMI"):
            figs.append(scores_figure(dataset, {result.algorithm: result}, metric))
    figs.append(sankey_figure(result))
    return figs


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------

# plotly.js's only CDN address is the default map-data (topojson) URL of geo
# plots, which these figures never use; pointing it at a local folder keeps
# the page free of network references.
_CDN_URL = re.compile(r"https?://cdn\.plot\.ly/[^\"'\s]*")


def save_html(
    figures: go.Figure | Sequence[go.Figure],
    path: str | PathLike[str],
    *,
    title: str = "ercot-nb figures",
) -> Path:
    """Write one or several figures to a self-contained offline HTML page.

    plotly.js is embedded once (about 4.8 MB); the page loads nothing from
    the network and keeps working without a kernel (animations included).

    Parameters
    ----------
    figures : Figure or sequence of Figure
        Shown top to bottom.
    path : str or path-like
        Output file (``.html``); parent folders are created.
    title : str, default="ercot-nb figures"
        The page title.

    Returns
    -------
    pathlib.Path
        The written file.
    """
    figs = [figures] if isinstance(figures, go.Figure) else list(figures)
    if not figs or not all(isinstance(f, go.Figure) for f in figs):
        raise TypeError("figures must be a plotly Figure or a non-empty sequence of Figures")
    parts = [
        pio.to_html(
            fig,
            include_plotlyjs=index == 0,
            full_html=False,
            auto_play=False,
            div_id=f"ercot-nb-figure-{index}",
        )
        for index, fig in enumerate(figs)
    ]
    body = "\n".join(f'<div class="ercot-nb-figure">{part}</div>' for part in parts)
    page = (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
    page = _CDN_URL.sub("./topojson/", page)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# Membership over time (who changes cluster)
# ---------------------------------------------------------------------------

MEMBERSHIP_SORTS = ("first_move", "moves", "id")
"""Row orders of :func:`membership_figure`."""

def cluster_moves(result: ClusteringResult) -> "pd.DataFrame":
    """Every change of (aligned) cluster of every sample id, as a tidy table.

    Built from :meth:`ClusteringResult.to_frame`: each appearance of an id is
    compared with its previous appearance (the step before, or an earlier
    one when the id was missing in between).

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).

    Returns
    -------
    pandas.DataFrame
        One row per move, ordered by step then by first appearance of the id,
        with columns ``id``, ``t`` (0-based step of arrival), ``time_from``,
        ``time`` (time labels of the two appearances), ``from_cluster`` and
        ``to_cluster`` (aligned labels, the colours of every figure here).
    """
    import pandas as pd

    frame = _as_result(result).to_frame()
    columns = ["id", "t", "time_from", "time", "from_cluster", "to_cluster"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    by_id = frame.groupby("id", sort=False)
    previous = by_id["aligned_label"].shift()
    time_from = frame["time"].astype(object).groupby(frame["id"], sort=False).shift()
    moved = previous.notna().to_numpy() & (previous.to_numpy() != frame["aligned_label"].to_numpy())
    return pd.DataFrame(
        {
            "id": frame["id"][moved].to_numpy(),
            "t": frame["t"][moved].to_numpy(),
            "time_from": time_from[moved].to_numpy(),
            "time": frame["time"][moved].to_numpy(),
            "from_cluster": previous[moved].to_numpy().astype(np.int64),
            "to_cluster": frame["aligned_label"][moved].to_numpy(),
        },
        columns=columns,
    )


def _reference_names(dataset: TemporalDataset, result: ClusteringResult) -> list[dict[Any, str]] | None:
    """Per step, id -> the dataset's reference label as text (None without labels).

    Also checks that ``dataset`` holds the ids of ``result`` at every step.
    """
    if not isinstance(dataset, TemporalDataset):
        raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
    if len(dataset) != len(result):
        raise ValueError(
            f"dataset has {len(dataset)} steps but the result has {len(result)}: "
            "give the data the result was fitted on"
        )
    for snapshot, step in zip(dataset, result):
        if not np.array_equal(snapshot.ids, step.ids):
            raise ValueError(
                f"step {step.t} (time {_plain(step.time)!r}): the dataset's ids differ from the "
                "result's; give the data the result was fitted on"
            )
    if not dataset.has_labels:
        return None
    names = dataset.label_names
    return [
        {
            _plain(i): str(names[label] if names is not None else label)
            for i, label in zip(snapshot.ids, snapshot.labels)
        }
        for snapshot in dataset
    ]


def membership_figure(
    result: ClusteringResult,
    dataset: TemporalDataset | None = None,
    *,
    only_movers: bool = True,
    max_rows: int | None = 60,
    sort: str = "first_move",
    title: str | None = None,
) -> go.Figure:
    """Timeline of every sample's cluster: ids (rows) x time steps (columns).

    Each cell is coloured like the id's aligned cluster at that step (the
    colours of :func:`partition_figure` and :func:`sankey_figure`), so a row
    that changes colour is a sample that moved to another cluster; see
    :func:`cluster_moves` for the same moves as a table.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    dataset : TemporalDataset, optional
        The data the result was fitted on; its name goes in the title and,
        when it has labels, each cell's hover shows the id's reference label
        (e.g. the continent of a Gapminder country).
    only_movers : bool, default=True
        Show only ids that change cluster at least once.
    max_rows : int or None, default=60
        Show at most this many rows (the first ones in ``sort`` order);
        None shows all.
    sort : {"first_move", "moves", "id"}, default="first_move"
        Row order: by the step of the id's first move (ids that never move
        last), by the number of moves (most first), or by id.  Ties keep
        the order of first appearance.
    title : str, optional
        Figure title; by default it says how many rows are shown of how many.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``go.Heatmap``: ``y`` the ids (as text, first row on top), ``x``
        the time labels (as text), ``z`` the index of the cell's cluster in
        the colour bar (``colorbar.ticktext`` names the clusters) and NaN
        where the id is absent at that step (a gap, drawn empty).
        ``customdata`` holds ``[id, time, cluster]`` per cell (plus the
        reference label with a labelled ``dataset``), shown on hover.

    Raises
    ------
    ValueError
        For an unknown ``sort``, a ``max_rows`` below 1, a result without
        steps, or a ``dataset`` whose steps or ids differ from the result's.
    """
    result = _as_result(result)
    if not len(result):
        raise ValueError("the result has no steps to show")
    if sort not in MEMBERSHIP_SORTS:
        raise ValueError(f"sort must be one of {MEMBERSHIP_SORTS}, got {sort!r}")
    if max_rows is not None and (
        isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1
    ):
        raise ValueError(f"max_rows must be None or an int >= 1, got {max_rows!r}")
    references = None if dataset is None else _reference_names(dataset, result)

    frame = result.to_frame()
    frame["id"] = [_plain(i) for i in frame["id"]]
    grid = frame.pivot(index="id", columns="t", values="aligned_label")
    order = list(dict.fromkeys(frame["id"]))  # ids by first appearance
    grid = grid.reindex(index=order, columns=range(len(result)))

    moves = cluster_moves(result)
    moves["id"] = [_plain(i) for i in moves["id"]]
    n_moves = moves.groupby("id", sort=False).size()
    first_move = moves.groupby("id", sort=False)["t"].min()
    rows = [i for i in order if i in n_moves.index] if only_movers else order
    if sort == "first_move":
        rows = sorted(rows, key=lambda i: first_move.get(i, len(result)))
    elif sort == "moves":
        rows = sorted(rows, key=lambda i: -n_moves.get(i, 0))
    else:
        rows = sorted(rows, key=str)
    n_candidates = len(rows)
    if max_rows is not None:
        rows = rows[:max_rows]

    cells = grid.loc[rows].to_numpy(dtype=float) if rows else np.empty((0, len(result)))
    used = sorted(int(k) for k in np.unique(cells[~np.isnan(cells)]))
    position = {label: index for index, label in enumerate(used)}
    z = np.full(cells.shape, np.nan)
    present = ~np.isnan(cells)
    z[present] = [position[int(k)] for k in cells[present]]

    times = [str(_plain(step.time)) for step in result]
    customdata = []
    for r, sample in enumerate(rows):
        row = []
        for t, time in enumerate(times):
            cluster = "absent" if np.isnan(cells[r, t]) else f"{int(cells[r, t])}"
            cell = [str(sample), time, cluster]
            if references is not None:
                cell.append(references[t].get(sample, ""))
            row.append(cell)
        customdata.append(row)
    hover = "%{customdata[0]}<br>time %{customdata[1]}<br>cluster %{customdata[2]}"
    if references is not None:
        hover += "<br>reference: %{customdata[3]}"

    n = max(len(used), 1)
    colorscale = []
    for index, label in enumerate(used):
        colorscale += [[index / n, label_color(label)], [(index + 1) / n, label_color(label)]]
    trace = go.Heatmap(
        z=z,
        x=times,
        y=[str(i) for i in rows],
        customdata=customdata,
        hovertemplate=hover + "<extra></extra>",
        hoverongaps=False,
        colorscale=colorscale or [[0, _MUTED], [1, _MUTED]],
        zmin=-0.5,
        zmax=n - 0.5,
        xgap=1,
        ygap=1,
        colorbar=dict(
            title=dict(text="cluster"),
            tickvals=list(range(len(used))),
            ticktext=[f"{label}" for label in used],
            len=min(1.0, 0.1 + 0.06 * n),
            y=1.0,
            yanchor="top",
        ),
    )
    what = "ids that change cluster" if only_movers else "ids"
    on = f" on {dataset.name}" if dataset is not None and dataset.name else ""
    default = (
        f"{result.algorithm}{on}: cluster of each id over time"
        f"<br><sup>{len(rows)} of {n_candidates} {what}</sup>"
    )
    longest = max((len(str(i)) for i in rows), default=4)
    layout = _base_layout(
        "line",
        title or default,
        xaxis=dict(type="category", side="top"),
        yaxis=dict(type="category", autorange="reversed", automargin=True),
    )
    layout.update(
        width=max(560, min(1200, 140 + 7 * longest + 45 * len(times))),
        height=max(300, min(1600, 130 + 16 * len(rows))),
    )
    layout["margin"] = dict(l=20 + 7 * longest, r=20, t=90, b=20)
    if not rows:
        layout["annotations"] = [_message_annotation(f"no {what} to show")]
    return go.Figure(data=[trace], layout=layout)
