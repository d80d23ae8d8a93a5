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
:func:`partition_figure`       the partition of one step, centroids, entries
:func:`partition_animation`    the same view over all steps (slider + play)
:func:`pareto_figure`          the final population of one step and its knee
:func:`alpha_figure`           the smoothness weight alpha over time
:func:`scores_figure`          RI or NMI per step of one or more runs
:func:`n_clusters_figure`      chosen (and true) number of clusters per step
:func:`save_html`              one self-contained offline HTML file
=============================  ==============================================
"""
from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import qualitative, sample_colorscale

from .data import TemporalDataset, common_ids
from .metrics import score_steps
from .result import ClusteringResult

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


def _step_index(result: ClusteringResult, t: int) -> int:
    n = len(result)
    if not isinstance(t, (int, np.integer)) or isinstance(t, bool) or not -n <= t < n:
        raise IndexError(f"step t={t!r} is out of range for a result with {n} step(s)")
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
    """Maps every step's samples and centroids to fixed 2-D plot coordinates.

    Three cases: one feature (feature vs sample index), two chosen feature
    columns, or a PCA projection fitted on all steps at once so the axes do not
    change between steps.
    """

    def __init__(
        self,
        dataset: TemporalDataset,
        features: Sequence[int | str],
        projection: str | None,
    ) -> None:
        n_features = dataset.n_features
        names = dataset.feature_names
        self.by_index = n_features == 1
        self.components: np.ndarray | None = None
        self.mean: np.ndarray | None = None
        if projection not in (None, "pca"):
            raise ValueError(f"projection must be None or 'pca', got {projection!r}")
        if self.by_index:
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

    def project(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Plot coordinates of the rows of ``X`` (for one feature: index, value)."""
        if self.by_index:
            return np.arange(len(X), dtype=np.float64), X[:, 0]
        if self.components is not None:
            Z = (X - self.mean) @ self.components.T
            return Z[:, 0], Z[:, 1]
        return X[:, self.columns[0]], X[:, self.columns[1]]


class _PartitionView:
    """Per-step traces of a partition scatter, with ranges fixed over all steps."""

    def __init__(
        self,
        dataset: TemporalDataset,
        result: Any,
        *,
        features: Sequence[int | str],
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
        self.x_range, self.y_range = self._ranges()
        self.max_points = int(dataset.n_samples_per_step.max())
        self.webgl = webgl

    def use_webgl(self, n_points: int) -> bool:
        """WebGL as requested, or automatically above the threshold."""
        return n_points > WEBGL_THRESHOLD if self.webgl is None else bool(self.webgl)

    def _ranges(self) -> tuple[list[float], list[float]]:
        xs = [x for x, _ in self._coords]
        ys = [y for _, y in self._coords]
        if self.show_centroids and not self.plane.by_index:
            for step in self.result:
                cx, cy = self.plane.project(step.centroids)
                xs.append(cx)
                ys.append(cy)
        x_all, y_all = np.concatenate(xs), np.concatenate(ys)
        return _padded_range(x_all.min(), x_all.max()), _padded_range(y_all.min(), y_all.max())

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

    def traces(self, t: int, labels: Sequence[int], webgl: bool) -> list[go.Scatter | go.Scattergl]:
        """Traces of step ``t``: one per label in ``labels``, entered samples, centroids."""
        step = self.result[t]
        x, y = self._coords[t]
        ids = [str(_plain(i)) for i in self.dataset[t].ids]
        scatter = go.Scattergl if webgl else go.Scatter
        n = len(x)
        size = 7 if n <= 1000 else 5 if n <= WEBGL_THRESHOLD else 3
        traces: list[go.Scatter | go.Scattergl] = []
        for label in labels:
            members = np.flatnonzero(step.aligned_labels == label)
            traces.append(
                scatter(
                    x=x[members],
                    y=y[members],
                    mode="markers",
                    name=f"cluster {label}",
                    legendgroup=f"cluster {label}",
                    marker=dict(color=label_color(label), size=size, opacity=0.85),
                    text=[ids[i] for i in members],
                    hovertemplate=f"id %{{text}}<br>cluster {label}<extra></extra>",
                )
            )
        new = np.flatnonzero(self.entered(t))
        traces.append(
            scatter(
                x=x[new],
                y=y[new],
                mode="markers",
                name="entered since previous step",
                marker=dict(symbol="circle-open", size=size + 6, color=_INK, line=dict(width=1.5)),
                text=[ids[i] for i in new],
                hovertemplate="id %{text}<br>new at this step<extra></extra>",
            )
        )
        if self.show_centroids:
            traces.append(self._centroid_trace(step, x))
        return traces

    def _centroid_trace(self, step, x_samples: np.ndarray) -> go.Scatter:
        # centroids are numbered like step.labels; map them to aligned labels
        aligned_of = np.empty(step.n_clusters, dtype=np.int64)
        aligned_of[step.labels] = step.aligned_labels
        if self.plane.by_index:
            # one feature: put each centroid at the mean index of its members
            cx = np.array([x_samples[step.labels == c].mean() for c in range(step.n_clusters)])
            cy = step.centroids[:, 0]
        else:
            cx, cy = self.plane.project(step.centroids)
        return go.Scatter(
            x=cx,
            y=cy,
            mode="markers",
            name="centroids",
            marker=dict(
                symbol="x",
                size=16,
                color=[label_color(k) for k in aligned_of],
                line=dict(width=1.5, color=_INK),
            ),
            text=[f"cluster {k}" for k in aligned_of],
            hovertemplate="centroid of %{text}<extra></extra>",
        )

    def layout(self, title: str) -> dict[str, Any]:
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
    features: Sequence[int | str] = (0, 1),
    projection: str | None = None,
    show_centroids: bool = True,
    webgl: bool | None = None,
    title: str | None = None,
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
    features : pair of int or str, default=(0, 1)
        The two feature columns on the axes (ignored for one feature, where
        the plot shows the feature against the sample index, and with
        ``projection="pca"``).
    projection : {None, "pca"}, default=None
        ``"pca"`` plots the first two principal components, fitted on all
        steps together so the axes are the same at every step.
    show_centroids : bool, default=True
        Mark each cluster's centroid with an X in the cluster's colour.
    webgl : bool or None, default=None
        Use ``go.Scattergl``; ``None`` switches it on above
        :data:`WEBGL_THRESHOLD` points.
    title : str, optional
        Figure title; a default names the algorithm, time and cluster count.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per cluster present at ``t`` (named ``"cluster <label>"``),
        a trace ringing the samples that entered since step ``t - 1``, and a
        ``"centroids"`` trace.  Axis ranges are fixed over all steps, so
        figures of different steps share the same axes.
    """
    view = _PartitionView(
        dataset, result, features=features, projection=projection,
        show_centroids=show_centroids, webgl=webgl,
    )
    t = _step_index(view.result, t)
    present = sorted(int(k) for k in np.unique(view.result[t].aligned_labels))
    traces = view.traces(t, present, view.use_webgl(view.dataset[t].n_samples))
    return go.Figure(data=traces, layout=view.layout(title or view.title(t)))


def partition_animation(
    dataset: TemporalDataset,
    result: ClusteringResult,
    *,
    features: Sequence[int | str] = (0, 1),
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
        cluster is absent), the entered-samples trace and the centroids.
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
    # WebGL traces need a full redraw per frame; SVG ones do not.
    frame_args = dict(mode="immediate", transition=dict(duration=0))
    slider_steps = [
        dict(
            label=str(_plain(view.result[t].time)),
            method="animate",
            args=[[str(t)], dict(frame=dict(duration=0, redraw=use_gl), **frame_args)],
        )
        for t in range(n_steps)
    ]
    layout = view.layout(title or view.title(start))
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
                    args=[None, dict(frame=dict(duration=frame_duration, redraw=use_gl),
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
    return go.Figure(data=frames[start].data, frames=frames, layout=layout)


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


def pareto_figure(
    result: ClusteringResult,
    t: int,
    *,
    accumulated: bool = True,
    title: str | None = None,
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

    Returns
    -------
    plotly.graph_objects.Figure
        Axes are ``f_cp`` and ``f_sep`` min-max normalised over the
        population.  One trace per number of clusters (``"k = <n>"``): first
        front members as filled markers, dominated ones as small open
        markers; a line through the first front; and a ``"knee"`` trace
        holding only the chosen solution, also annotated.

    Notes
    -----
    The first front is the one of the accumulated objectives (the one the
    knee was chosen from); in raw objective space some of its members can be
    dominated.
    """
    result = _as_result(result)
    t = _step_index(result, t)
    step = result[t]
    raw = step.objectives_accumulated if accumulated else step.objectives
    F = _min_max(np.asarray(raw, dtype=np.float64))
    n_clusters = np.asarray(step.population_n_clusters)
    front = np.asarray(step.first_front, dtype=bool)
    k_max = max(int(step.n_max), int(n_clusters.max()))
    members = np.arange(len(F))
    kind = "accumulated" if accumulated else "raw"

    traces: list[go.Scatter] = []
    front_order = members[front][np.argsort(F[front, 0], kind="stable")]
    traces.append(
        go.Scatter(
            x=F[front_order, 0],
            y=F[front_order, 1],
            mode="lines",
            name="first front",
            line=dict(color=_MUTED, width=1, shape="hv"),
            hoverinfo="skip",
        )
    )
    hover = (
        "member %{customdata[0]}<br>k = %{customdata[1]}<br>"
        "f_cp = %{customdata[2]:.4g}<br>f_sep = %{customdata[3]:.4g}<extra></extra>"
    )
    for k in np.unique(n_clusters):
        chosen = members[n_clusters == k]
        on_front = front[chosen]
        color = _k_color(int(k), k_max)
        traces.append(
            go.Scatter(
                x=F[chosen, 0],
                y=F[chosen, 1],
                mode="markers",
                name=f"k = {int(k)}",
                marker=dict(
                    color=color,
                    symbol=np.where(on_front, "circle", "circle-open").tolist(),
                    size=np.where(on_front, 10, 6).tolist(),
                    line=dict(width=np.where(on_front, 1, 1.5).tolist(), color=_INK),
                ),
                customdata=np.column_stack([chosen, np.full(len(chosen), k), raw[chosen]]).tolist(),
                hovertemplate=hover,
            )
        )
    knee = int(step.knee)
    traces.append(
        go.Scatter(
            x=[F[knee, 0]],
            y=[F[knee, 1]],
            mode="markers",
            name="knee (chosen)",
            marker=dict(symbol="star", size=22, color="#D62728", line=dict(width=1.5, color=_INK)),
            customdata=[[knee, int(n_clusters[knee]), *raw[knee]]],
            hovertemplate=hover,
        )
    )
    layout = _base_layout(
        "pareto",
        title or (
            f"{result.algorithm} final population at time {_plain(step.time)} "
            f"(step {step.t}, {kind} objectives)"
        ),
        xaxis=dict(title=dict(text="f_cp, compactness (min-max normalised)"), range=[-0.05, 1.05]),
        yaxis=dict(title=dict(text="f_sep = 1 / min centroid distance (normalised)"), range=[-0.05, 1.05]),
        annotations=[
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
        ],
        legend=dict(title=dict(text="clusters")),
    )
    return go.Figure(data=traces, layout=layout)


def alpha_figure(
    result: ClusteringResult,
    *,
    show_pairs: bool = False,
    title: str | None = None,
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

    Returns
    -------
    plotly.graph_objects.Figure
        An ``"alpha"`` line (no point at the first step, which has no
        history) and, with ``show_pairs``, an ``"alpha_i per cluster"``
        marker trace.
    """
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
    return go.Figure(data=traces, layout=layout)


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
) -> go.Figure:
    """Rand index or NMI at every step, for one or more runs.

    Parameters
    ----------
    dataset : TemporalDataset
        Data with ground-truth labels at every step.
    runs : mapping of str to ClusteringResult, fitted estimator or list of arrays
        Name shown in the legend -> the run's per-step labels.
    metric : {"RI", "NMI"}, default="RI"
    title : str, optional
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
        One line per run, named ``"<name> (mean <value>)"``.
    """
    if metric not in ("RI", "NMI"):
        raise ValueError(f"metric must be 'RI' or 'NMI', got {metric!r}")
    if not runs:
        raise ValueError("runs is empty: give at least one {name: result} entry")
    times = _times(dataset.times)
    traces = []
    for index, (name, run) in enumerate(runs.items()):
        scores = score_steps(dataset, _labels_of(run))[metric].to_numpy()
        traces.append(
            go.Scatter(
                x=times,
                y=scores,
                mode="lines+markers",
                name=f"{name} (mean {scores.mean():.3f})",
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
    return go.Figure(data=traces, layout=layout)


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
