"""Pareto view: a step's final population in objective space, its knee, and its animation."""
from __future__ import annotations

import functools

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from ..result import ClusteringResult, StepResult
from .animation import animation_figure
from .layers import Parts
from .style import (
    INK, MUTED, TEMPLATE, as_result, as_trace, base_layout, counted, escape, message_annotation, plain_times, plain_trace,
    step_index,
)

__all__ = [
    "FRONT_LINE", "KNEE", "SELECTED", "ON_FRONT", "DOMINATED", "k_name", "is_member_trace",
    "step_k_max", "KMax",
    "pareto_parts", "pareto_plain", "pareto_figure", "pareto_frame", "pareto_animation",
    "pareto_comparison_figure",
]

FRONT_LINE = "first front"
KNEE = "knee (chosen)"
SELECTED = "selected member"
ON_FRONT = "filled: on the first front"
DOMINATED = "hollow: dominated"
COMPACTNESS = "compactness (normalised; lower is tighter)"
SEPARATION = "separation: 1 / closest centroid distance (normalised)"
_HOVER = (
    "member %{customdata[0]}<br>%{customdata[1]} clusters<br>"
    "compactness %{customdata[2]:.4g}<br>1 / separation %{customdata[3]:.4g}<extra></extra>"
)


def is_mixture(result: ClusteringResult) -> bool:
    """Whether each step's partition of ``result`` is a mixture fitted from the knee (``final_partition="cv_mixture"``)."""
    return (result.params or {}).get("final_partition") == "cv_mixture"


def k_name(k: int) -> str:
    """Name of the trace of the members with ``k`` clusters."""
    return counted(k, "cluster")


def is_member_trace(name: str | None) -> bool:
    """Whether a Pareto trace holds population members (clicking one picks it)."""
    return bool(name) and (name.endswith((" cluster", " clusters")) or name in (KNEE, SELECTED))


def _min_max(values: np.ndarray) -> np.ndarray:
    """Min-max normalise each column to [0, 1]; non-finite values map to 1 (worst)."""
    finite = np.isfinite(values)
    masked = np.where(finite, values, np.nan)
    low, high = np.nanmin(masked, axis=0), np.nanmax(masked, axis=0)
    span = np.where(high > low, high - low, 1.0)
    return np.where(finite, (masked - low) / span, 1.0)


@functools.lru_cache(maxsize=4096)
def _k_color(k: int, k_max: int) -> str:
    # Viridis without its pale yellow end, which vanishes on white
    position = 0.0 if k_max <= 1 else 0.85 * (k - 1) / (k_max - 1)
    return sample_colorscale("Viridis", [min(max(position, 0.0), 0.85)])[0]


class KMax:
    """The largest number of clusters any member of a run's steps can have, taken step by step.

    It fixes the colours of k in the Pareto view.  The rule is written once,
    here (with :func:`step_k_max`); a front end of a growing run keeps one and
    calls :meth:`extend` with the run again, which reads only the new steps.

    Attributes
    ----------
    value : int
        The largest k of the steps taken (1 before any).
    """

    def __init__(self) -> None:
        self.value = 1
        self._run: Any = None
        self._taken = 0

    def extend(self, result: Any) -> bool:
        """Take the steps of ``result`` not taken yet (all, for another or a shorter run); whether k grew."""
        steps = result.steps
        if result is not self._run or len(steps) < self._taken:
            self.value, self._run, self._taken = 1, result, 0
        before = self.value
        self.value = max([before, *(step_k_max(step) for step in steps[self._taken:])])
        self._taken = len(steps)
        return self.value != before


def _k_max(result: ClusteringResult) -> int:
    """Largest number of clusters any member of any step can have (fixes the k colours)."""
    k_max = KMax()
    k_max.extend(result)
    return k_max.value


def step_k_max(step: StepResult) -> int:
    """Largest number of clusters a member of ``step`` can have (its ``n_max`` or more)."""
    counts = step.population_n_clusters
    return max(int(step.n_max), int(np.max(counts)) if len(counts) else 1)


def _marker_key(shown: bool = True) -> list[dict[str, Any]]:
    """Legend entries explaining the markers: filled on the first front, hollow dominated.

    ``shown=False`` keeps the traces (a view updates them in place) out of the legend.
    """
    return [
        plain_trace("scatter", x=[None], y=[None], mode="markers", name=name, legendgroup="markers",
                   legendgrouptitle=dict(text="markers") if index == 0 else None, showlegend=shown,
                   marker=dict(symbol=symbol, size=size, color=MUTED, line=dict(width=1.5, color=INK)),
                   hoverinfo="skip")
        for index, (name, symbol, size) in enumerate(
            ((ON_FRONT, "circle", 10), (DOMINATED, "circle-open", 8))
        )
    ]


def _traces(step: StepResult, **options: Any) -> tuple[list[go.Scatter], list[dict[str, Any]]]:
    """:func:`_plain_traces` as plotly traces."""
    traces, annotations = _plain_traces(step, **options)
    return [as_trace(spec) for spec in traces], annotations


def _plain_traces(
    step: StepResult,
    *,
    accumulated: bool,
    k_values: Sequence[int] | None,
    k_max: int,
    selected: int | None,
    fixed: bool,
    mixture: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Traces (plain dicts, see :func:`~.style.plain_trace`) and annotations of one step's final population.

    With ``fixed=True`` the trace list has the same structure at every step
    (one trace per k in ``k_values``, empty ones hidden from the legend, and
    an always-present ``"selected member"`` trace) so that an animation or a
    widget can update it in place.  Otherwise only the k present are drawn
    and the ``"selected member"`` trace appears only when ``selected`` is
    not the knee.  With ``mixture`` (``final_partition="cv_mixture"``) the
    step's partition is a mixture fitted from the knee's centroids, and the
    knee's mark says how many clusters it has.
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
    traces: list[dict[str, Any]] = [
        plain_trace("scatter", x=F[front_order, 0], y=F[front_order, 1], mode="lines", name=FRONT_LINE,
                   line=dict(color=MUTED, width=1, shape="hv"), hoverinfo="skip",
                   showlegend=has_population)  # no population: nothing of the legend is drawn
    ]
    # every member's marker and hover row made once; each k's trace takes its members' (in order)
    groups: dict[int, list[int]] = {}
    if has_population:
        for member, k in enumerate(n_clusters.tolist()):
            groups.setdefault(k, []).append(member)
        symbols = np.where(front, "circle", "circle-open").tolist()
        sizes = np.where(front, 10, 6).tolist()
        widths = np.where(front, 1, 1.5).tolist()
        rows = np.column_stack([members, n_clusters, raw[: len(F)]]).astype(np.float64).tolist()
    for k in k_values:
        chosen = groups.get(int(k), [])
        traces.append(plain_trace(
            "scatter", x=F[chosen, 0], y=F[chosen, 1], mode="markers", name=k_name(k),
            showlegend=bool(len(chosen)) if fixed else None,
            marker=dict(
                color=_k_color(int(k), k_max),
                symbol=[symbols[i] for i in chosen],
                size=[sizes[i] for i in chosen],
                line=dict(width=[widths[i] for i in chosen], color=INK),
            ),
            customdata=[rows[i] for i in chosen],
            hovertemplate=_HOVER,
        ))
    knee = int(step.knee)
    knee_points = [knee] if has_population and knee >= 0 else []
    traces.append(plain_trace(
        "scatter", x=F[knee_points, 0], y=F[knee_points, 1], mode="markers", name=KNEE, showlegend=has_population,
        marker=dict(symbol="star", size=22, color="#D62728", line=dict(width=1.5, color=INK)),
        customdata=[[i, int(n_clusters[i]), *raw[i]] for i in knee_points],
        hovertemplate=_HOVER,
    ))
    show_selected = (
        has_population and selected is not None and 0 <= int(selected) < len(F)
        and int(selected) != knee
    )
    picked = [int(selected)] if show_selected else []
    if fixed or show_selected:
        traces.append(plain_trace(
            "scatter", x=F[picked, 0], y=F[picked, 1], mode="markers", name=SELECTED,
            showlegend=bool(picked) if fixed else None,
            marker=dict(symbol="circle-open", size=24, color=INK, line=dict(width=2.5)),
            customdata=[[i, int(n_clusters[i]), *raw[i]] for i in picked],
            hovertemplate=_HOVER,
        ))
    traces.extend(_marker_key(has_population))
    if knee_points:
        annotations = [dict(
            x=F[knee, 0], y=F[knee, 1],
            text=(f"knee: mixture of {k_name(step.n_clusters)} from member {knee}" if mixture
                  else f"knee: member {knee}, {k_name(n_clusters[knee])}"),
            showarrow=True, arrowhead=2, ax=60, ay=-40, bgcolor="rgba(255,255,255,0.8)",
        )]
    else:
        annotations = [message_annotation("no final population: this run has no Pareto front (a baseline or a consensus keeps none)")]
    return traces, annotations


def _title(result: ClusteringResult, t: int, accumulated: bool) -> str:
    step = result[t]
    kind = "accumulated" if accumulated else "raw"
    return (
        f"{escape(result.algorithm)} final population at time {escape(step.time)} "
        f"({kind} objectives)"
    )


def _layout(title: str) -> dict[str, Any]:
    return base_layout(
        "pareto", title,
        xaxis=dict(title=dict(text=COMPACTNESS), range=[-0.05, 1.05]),
        yaxis=dict(title=dict(text=SEPARATION), range=[-0.05, 1.05]),
        legend=dict(title=dict(text="members by number of clusters")),
    )


def pareto_parts(
    result: ClusteringResult,
    t: int,
    *,
    accumulated: bool = True,
    selected: int | None = None,
    fixed: bool = False,
    title: str | None = None,
    k_max: int | None = None,
) -> Parts:
    """Parts of :func:`pareto_figure` (``fixed=True``: of :func:`pareto_frame`).

    Parameters
    ----------
    result, t, accumulated, selected, title
        As in :func:`pareto_figure`.
    fixed : bool, default=False
        The same traces at every step (see :func:`pareto_frame`).
    k_max : int, optional
        Largest number of clusters of any member of any step (fixes the
        traces and the k colours); default found by scanning every step of
        ``result``.  A view of a growing run keeps it up to date itself, so
        that one step's parts cost the same at any length of the run.

    Returns
    -------
    Parts
    """
    traces, layout = pareto_plain(result, t, accumulated=accumulated, selected=selected, fixed=fixed,
                                  title=title, k_max=k_max)
    return Parts([as_trace(spec) for spec in traces], layout)


def pareto_plain(
    result: ClusteringResult,
    t: int,
    *,
    accumulated: bool = True,
    selected: int | None = None,
    fixed: bool = False,
    title: str | None = None,
    k_max: int | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`pareto_parts` as plain trace dicts (see :func:`~.style.plain_trace`) and the layout.

    The same traces without a plotly object each (a page stores one step's
    traces per step of a long run).
    """
    result = as_result(result)
    t = step_index(result, t)
    k_max = _k_max(result) if k_max is None else int(k_max)
    traces, annotations = _plain_traces(
        result[t], accumulated=accumulated, k_values=range(1, k_max + 1) if fixed else None,
        k_max=k_max, selected=selected, fixed=fixed, mixture=is_mixture(result),
    )
    layout = _layout(title or _title(result, t, accumulated))
    layout["annotations"] = annotations
    return traces, layout


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
        Axes are compactness ``f_cp`` and ``f_sep`` (1 / closest centroid
        distance), min-max normalised over the population.  One trace per
        number of clusters (``"3 clusters"``): first front members as filled
        markers, dominated ones as small hollow markers (two legend entries
        say so); a line through the first front; and a ``"knee (chosen)"``
        trace holding only the chosen solution, also annotated.  A step
        without a population (a baseline) gives empty axes with a note.

    Notes
    -----
    The first front is the one of the accumulated objectives (the one the
    knee was chosen from); in raw objective space some of its members can be
    dominated.
    """
    return pareto_parts(result, t, accumulated=accumulated, selected=selected,
                        title=title).figure()


def pareto_frame(
    result: ClusteringResult,
    t: int,
    *,
    accumulated: bool = True,
    selected: int | None = None,
) -> go.Figure:
    """:func:`pareto_figure` with the same traces at every step of ``result``.

    One ``"<k> clusters"`` trace for every k from 1 to the largest possible
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
    return pareto_parts(result, t, accumulated=accumulated, selected=selected, fixed=True).figure()


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
    result = as_result(result)
    start = step_index(result, start)
    return animation_figure(
        lambda t: pareto_parts(result, t, accumulated=accumulated, fixed=True), len(result),
        plain_times(result.times), start=start, frame_duration=frame_duration, webgl=False,
        frame_layout=("title", "annotations"),
    )


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

    result = as_result(result)
    t = step_index(result, t)
    step = result[t]
    k_max = _k_max(result)
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.08,
        subplot_titles=("raw objectives of this step",
                        f"accumulated with the previous step (weight {step.alpha:.3f})"),
    )
    for column, accumulated in ((1, False), (2, True)):
        traces, _ = _traces(step, accumulated=accumulated, k_values=None, k_max=k_max,
                            selected=selected, fixed=False)
        for tr in traces:
            tr.legendgroup = tr.legendgroup or tr.name
            tr.showlegend = column == 1
            fig.add_trace(tr, row=1, col=column)
        fig.update_xaxes(title_text="compactness (normalised)", range=[-0.05, 1.05], row=1, col=column)
        fig.update_yaxes(title_text="1 / separation (normalised)", range=[-0.05, 1.05], row=1, col=column)
    fig.update_layout(
        template=TEMPLATE, width=1000, height=460, margin=dict(l=60, r=20, t=80, b=55),
        title=dict(text=title or (
            f"{escape(result.algorithm)} at time {escape(step.time)}: raw vs "
            f"accumulated objectives, knee = member {step.knee}"
        )),
        legend=dict(title=dict(text="members by number of clusters")),
    )
    return fig
