"""Time lines: the smoothness weight, scores and number of clusters at every step."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..data import TemporalDataset
from ..metrics import score_steps
from ..result import ClusteringResult
from .layers import Parts
from .style import (
    CURRENT_STEP, INK, MUTED, as_result, base_layout, current_step_line, escape, label_color,
    plain_times, step_index, time_axis,
)

__all__ = [
    "ALPHA", "PAIRS", "METRICS", "labels_of", "alpha_parts", "alpha_figure", "scores_parts",
    "scores_figure", "n_clusters_figure",
]

ALPHA = "smoothness weight α"
PAIRS = "weight per matched cluster pair (αᵢ)"
METRICS = {"RI": "Rand index", "NMI": "normalised mutual information"}
"""The scores per step, by code name, with their names in words."""


def labels_of(run: Any) -> list[np.ndarray]:
    """Per-step labels of a result, a fitted estimator or a list of arrays."""
    if isinstance(run, ClusteringResult) or isinstance(getattr(run, "result_", None), ClusteringResult):
        return as_result(run).labels
    if isinstance(run, (str, bytes)) or not isinstance(run, Sequence):
        raise TypeError(
            "each run must be a ClusteringResult, a fitted estimator or a list of label "
            f"arrays, got {type(run).__name__}"
        )
    return [np.asarray(labels) for labels in run]


def _none_if_nan(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def alpha_parts(
    result: ClusteringResult,
    *,
    show_pairs: bool = False,
    title: str | None = None,
    t: int | None = None,
    pairs_trace: bool = False,
) -> Parts:
    """Parts of :func:`alpha_figure`.

    Parameters
    ----------
    result, show_pairs, title, t
        As in :func:`alpha_figure`.
    pairs_trace : bool, default=False
        Keep the per-pair trace even when ``show_pairs`` is False (hidden),
        so that a view can switch it on without changing its traces.

    Returns
    -------
    Parts
    """
    result = as_result(result)
    times = plain_times(result.times)
    alpha = result.alpha
    traces = [go.Scatter(
        x=times, y=[_none_if_nan(a) for a in alpha], mode="lines+markers", name=ALPHA,
        line=dict(color=label_color(0), width=2), marker=dict(size=8),
        hovertemplate="time %{x}<br>weight %{y:.3f}<extra></extra>",
    )]
    y_max = float(np.nanmax(alpha)) if np.isfinite(alpha).any() else 1.0
    if show_pairs or pairs_trace:
        pair_x, pair_y = [], []
        for step, time in zip(result, times):
            values = np.asarray(step.alpha_pairs, dtype=np.float64)
            values = values[np.isfinite(values)]
            pair_x.extend([time] * len(values))
            pair_y.extend(values.tolist())
        traces.append(go.Scatter(
            x=pair_x, y=pair_y, mode="markers", name=PAIRS, visible=bool(show_pairs),
            marker=dict(symbol="circle-open", size=8, color=MUTED, line=dict(width=1.5)),
            hovertemplate="time %{x}<br>pair weight %{y:.3f}<extra></extra>",
        ))
        if pair_y:
            y_max = max(y_max, max(pair_y))
    layout = base_layout(
        "line", title or f"{escape(result.algorithm)} smoothness weight over time",
        xaxis=time_axis(times),
        yaxis=dict(title=dict(text="smoothness weight α (weight of the previous step)"),
                   range=[0.0, max(1.0, y_max) + 0.02]),
    )
    if t is not None:
        t = step_index(result, t)
        traces.append(go.Scatter(
            x=[times[t]], y=[_none_if_nan(alpha[t])], mode="markers", name=CURRENT_STEP,
            marker=dict(symbol="circle-open", size=16, color=INK, line=dict(width=2)),
            hovertemplate="time %{x}<br>weight %{y:.3f}<extra>current step</extra>",
        ))
        layout["shapes"] = [current_step_line(times[t])]
    return Parts(traces, layout)


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
        A ``"smoothness weight α"`` line (no point at the first step, which
        has no history), with ``show_pairs`` a per-pair marker trace, and
        with ``t`` a last ``"current step"`` trace and line.
    """
    return alpha_parts(result, show_pairs=show_pairs, title=title, t=t).figure()


def scores_parts(
    dataset: TemporalDataset,
    runs: Mapping[str, Any],
    metric: str = "RI",
    *,
    title: str | None = None,
    t: int | None = None,
) -> Parts:
    """Parts of :func:`scores_figure` (same parameters)."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {sorted(METRICS)}, got {metric!r}")
    if not runs:
        raise ValueError("runs is empty: give at least one {name: result} entry")
    times = plain_times(dataset.times)
    traces = []
    for index, (name, run) in enumerate(runs.items()):
        labels = labels_of(run)
        if len(labels) > len(dataset):
            raise ValueError(
                f"run {name!r} has {len(labels)} steps but the dataset only {len(dataset)}"
            )
        scores = (
            score_steps(dataset[: len(labels)], labels)[metric].to_numpy()
            if labels else np.empty(0)
        )
        shown = escape(name)
        traces.append(go.Scatter(
            x=times[: len(labels)], y=scores, mode="lines+markers",
            name=f"{shown} (mean {scores.mean():.3f})" if len(scores) else f"{shown} (no step yet)",
            line=dict(color=label_color(index), width=2), marker=dict(size=7),
            hovertemplate=f"{shown}<br>time %{{x}}<br>{metric} %{{y:.3f}}<extra></extra>",
        ))
    on = f" on {escape(dataset.name)}" if dataset.name else ""
    layout = base_layout(
        "line", title or f"{METRICS[metric]} ({metric}) per time step{on}",
        xaxis=time_axis(times),
        yaxis=dict(title=dict(text=f"{METRICS[metric]} ({metric})")),
        legend=dict(yanchor="bottom", y=0.02, xanchor="left", x=0.02, bgcolor="rgba(255,255,255,0.7)"),
    )
    if t is not None:
        layout["shapes"] = [current_step_line(times[step_index(dataset, t, "dataset")])]
    return Parts(traces, layout)


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
        Mark this step of the dataset with a dashed vertical line (a shape
        named ``"current step"``).

    Returns
    -------
    plotly.graph_objects.Figure
        One line per run, named ``"<name> (mean <value>)"``.
    """
    return scores_parts(dataset, runs, metric, title=title, t=t).figure()


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
    result = as_result(result)
    times = plain_times(result.times)
    chosen = result.n_clusters
    algorithm = escape(result.algorithm)
    traces = [go.Scatter(
        x=times, y=chosen, mode="lines+markers", name=f"{algorithm} (chosen)",
        line=dict(color=label_color(0), width=2), marker=dict(size=8),
        hovertemplate="time %{x}<br>%{y} clusters<extra></extra>",
    )]
    top = int(chosen.max()) if len(chosen) else 1
    if dataset is not None and dataset.has_labels:
        true = np.array([len(np.unique(s.labels)) for s in dataset][: len(result)])
        top = max(top, int(true.max()))
        traces.append(go.Scatter(
            x=times, y=true, mode="lines+markers", name="true",
            line=dict(color=INK, width=1.5, dash="dash"), marker=dict(symbol="diamond-open", size=9),
            hovertemplate="time %{x}<br>%{y} true clusters<extra></extra>",
        ))
    layout = base_layout(
        "line", title or f"{algorithm}: number of clusters per time step",
        xaxis=time_axis(times),
        yaxis=dict(title=dict(text="number of clusters"), dtick=1, range=[0, top + 1]),
    )
    return Parts(traces, layout).figure()
