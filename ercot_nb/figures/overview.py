"""A run without ground truth at a glance: how good, how sure, how many clusters, what happened.

:func:`overview_figure` stacks four rows that share the time axis:

1. *how good, how smooth*: the label-free scores of
   :func:`ercot_nb.metrics.label_free_steps` (silhouette, NMI with the
   previous step, churn);
2. *how sure*: the agreement of a seed ensemble
   (:meth:`ercot_nb.ensemble.Ensemble.steps_frame`: mean agreement and the
   share of samples all runs agree on);
3. *how many clusters*: the run's number of clusters, and the band the
   ensemble's runs span;
4. *what happened*: the cluster lifecycle events
   (:func:`ercot_nb.events.lifecycle_events`), filled where the permutation
   test finds them significant.

Rows 2 and the band of row 3 need an ensemble; without one the figure has
three rows.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from ..data import TemporalDataset
from ..events import EVENT_TYPES
from ..metrics import label_free_steps
from .flows import SIGNIFICANCE, event_marks
from .layers import Parts
from .style import (
    INK, MUTED, as_result, base_layout, current_step_line, escape, label_color, plain_times, rgba,
    step_index, time_axis,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..ensemble import Ensemble

__all__ = ["OVERVIEW_TRACES", "EVENT_CLASSES", "overview_parts", "overview_figure"]

OVERVIEW_TRACES = {
    "silhouette": "silhouette",
    "consecutive_nmi": "NMI with the previous step",
    "churn": "churn",
    "agreement_mean": "mean agreement of the runs",
    "share_unanimous": "share of samples all runs agree on",
    "n_clusters": "number of clusters (this run)",
    "band": "number of clusters, band of the runs",
    "consensus": "number of clusters (consensus)",
}
"""Code -> name of every line of the figure (the event traces are named by ``EVENT_CLASSES``)."""

EVENT_CLASSES = {
    "significant": f"event, p ≤ {SIGNIFICANCE} (real)",
    "doubtful": f"event, p > {SIGNIFICANCE} (could be chance)",
    "untested": "birth or death (not tested)",
}
"""Significance class of an event -> name of its marker trace."""

_SHOWN_EVENTS = [kind for kind in EVENT_TYPES if kind != "continue"]


def _line(x: list, y: Any, name: str, color: str, axis: str, dash: str = "solid", fmt: str = ".3f") -> go.Scatter:
    values = [None if v is None or np.isnan(v) else float(v) for v in np.asarray(y, dtype=float)]
    return go.Scatter(
        x=x, y=values, mode="lines+markers", name=name, yaxis=axis, line=dict(color=color, width=2, dash=dash),
        marker=dict(size=6), hovertemplate=f"{name}<br>time %{{x}}: %{{y:{fmt}}}<extra></extra>",
    )


def _event_traces(result: Any, events: "pd.DataFrame", times: list, axis: str) -> list[go.Scatter]:
    """One marker trace per significance class; a marker per (time, event type), sized by count."""
    marks = event_marks(result, events)
    cells: dict[tuple[str, int, str], dict[str, None]] = {}
    for (step, _), found in marks.items():
        for word, text, kind in found:
            event = word.rstrip("?").lower()
            # a death is drawn at its own time (the step after the cluster's last one)
            at = step + 1 if event == "death" else step
            cells.setdefault((kind, at, event), {})[text] = None  # a split marks several nodes: one event
    traces = []
    styles = {"significant": ("circle", INK), "doubtful": ("circle-open", INK), "untested": ("diamond", MUTED)}
    for kind, name in EVENT_CLASSES.items():
        keys = sorted((at, event) for (k, at, event) in cells if k == kind)
        symbol, color = styles[kind]
        counts = [len(cells[(kind, at, event)]) for at, event in keys]
        traces.append(go.Scatter(
            x=[times[at] for at, _ in keys], y=[event for _, event in keys], mode="markers", name=name,
            yaxis=axis, marker=dict(symbol=symbol, color=color, size=[8 + 3 * min(n, 6) for n in counts],
                                    line=dict(width=1.5, color=color)),
            customdata=["<br>".join(cells[(kind, at, event)]) for at, event in keys],
            hovertemplate="time %{x}<br>%{customdata}<extra></extra>",
        ))
    return traces


def overview_parts(
    dataset: TemporalDataset,
    result: Any,
    *,
    ensemble: "Ensemble | None" = None,
    events: "bool | pd.DataFrame" = True,
    scores: "pd.DataFrame | None" = None,
    t: int | None = None,
    title: str | None = None,
    sample_size: int | None = 500,
    seed: Any = 0,
) -> Parts:
    """Parts of :func:`overview_figure` (same parameters)."""
    result = as_result(result)
    if len(result) != len(dataset):
        raise ValueError(
            f"the result has {len(result)} steps but the dataset {len(dataset)}: pass the data it was fitted on"
        )
    if ensemble is not None and len(ensemble) != len(result):
        raise ValueError(f"the ensemble has {len(ensemble)} steps but the result {len(result)}")
    times = plain_times(dataset.times)
    if scores is None:
        scores = label_free_steps(result, dataset, sample_size=sample_size, seed=seed, objectives=False)
    rows = [("how good, how smooth", "score")]
    if ensemble is not None:
        rows.append(("how sure", "agreement"))
    rows += [("how many clusters", "clusters"), ("what happened", "event")]
    n = len(rows)
    axis = {key: "y" if i == 0 else f"y{i + 1}" for i, (_, key) in enumerate(rows)}

    traces = [
        _line(times, scores["silhouette"], OVERVIEW_TRACES["silhouette"], label_color(0), axis["score"]),
        _line(times, scores["consecutive_nmi"], OVERVIEW_TRACES["consecutive_nmi"], label_color(1),
              axis["score"], dash="dot"),
        _line(times, scores["churn"], OVERVIEW_TRACES["churn"], label_color(3), axis["score"], dash="dash"),
    ]
    if ensemble is not None:
        frame = ensemble.steps_frame()
        traces += [
            _line(times, frame["agreement_mean"], OVERVIEW_TRACES["agreement_mean"], label_color(2),
                  axis["agreement"]),
            _line(times, frame["share_unanimous"], OVERVIEW_TRACES["share_unanimous"], label_color(4),
                  axis["agreement"], dash="dot"),
        ]
        low, high = frame["runs_n_clusters_low"].to_numpy(), frame["runs_n_clusters_high"].to_numpy()
        traces.append(go.Scatter(
            x=list(times) + list(times)[::-1], y=list(map(int, high)) + list(map(int, low))[::-1],
            fill="toself", fillcolor=rgba(MUTED, 0.25), line=dict(width=0), mode="lines",
            name=OVERVIEW_TRACES["band"], yaxis=axis["clusters"], hoverinfo="skip",
        ))
        traces.append(_line(times, frame["n_clusters"], OVERVIEW_TRACES["consensus"], label_color(2),
                            axis["clusters"], dash="dot", fmt="d"))
    traces.append(_line(times, result.n_clusters, OVERVIEW_TRACES["n_clusters"], label_color(0),
                        axis["clusters"], fmt="d"))
    if events is True:
        events = result.events(seed=seed)
    if events is not False and events is not None:
        traces += _event_traces(result, events, times, axis["event"])

    who = f" and {len(ensemble.results)} seeds" if ensemble is not None else ""
    on = f"{escape(dataset.name)}: " if dataset.name else ""
    layout = base_layout(
        "line", title or f"{on}{escape(result.algorithm)}{who} without ground truth",
        legend=dict(orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0.0),
    )
    gap = 0.045
    height = (1.0 - gap * (n - 1)) / n
    for i, (question, key) in enumerate(rows):
        top = 1.0 - i * (height + gap)
        spec: dict[str, Any] = dict(title=dict(text=question, font=dict(size=11)),
                                    domain=[max(top - height, 0.0), top], anchor="x", zeroline=False)
        if key == "clusters":
            spec.update(dtick=1, rangemode="tozero")
        if key == "agreement":
            spec.update(range=[0, 1.05])
        if key == "event":
            spec.update(type="category", categoryorder="array", categoryarray=_SHOWN_EVENTS[::-1],
                        range=[-0.5, len(_SHOWN_EVENTS) - 0.5])
        layout["yaxis" if i == 0 else f"yaxis{i + 1}"] = spec
    layout["xaxis"] = dict(time_axis(times), anchor=f"y{n}")
    layout.update(width=760, height=170 * n + 190)
    layout["margin"] = dict(l=80, r=20, t=60, b=40)
    if t is not None:
        layout["shapes"] = [current_step_line(times[step_index(dataset, t, "dataset")])]
    return Parts(traces, layout)


def overview_figure(
    dataset: TemporalDataset,
    result: Any,
    *,
    ensemble: "Ensemble | None" = None,
    events: "bool | pd.DataFrame" = True,
    scores: "pd.DataFrame | None" = None,
    t: int | None = None,
    title: str | None = None,
    sample_size: int | None = 500,
    seed: Any = 0,
) -> go.Figure:
    """A run on data without ground truth: scores, agreement, clusters and events over time.

    Parameters
    ----------
    dataset : TemporalDataset
        The data the run was fitted on.
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    ensemble : Ensemble, optional
        Runs of the same estimator with other seeds
        (:func:`ercot_nb.ensemble.ensemble`): adds the *how sure* row and
        the band of the number of clusters.
    events : bool or pandas.DataFrame, default=True
        The lifecycle events row: True computes ``result.events(seed=seed)``,
        a table of :func:`ercot_nb.events.lifecycle_events` is drawn as
        given, False leaves the row empty.
    scores : pandas.DataFrame, optional
        :func:`ercot_nb.metrics.label_free_steps` of the run, if already
        computed.
    t : int, optional
        Mark this step with a dashed line across all rows.
    title : str, optional
    sample_size, seed
        Of the silhouette samples and the event shuffles.

    Returns
    -------
    plotly.graph_objects.Figure
        Lines named by ``OVERVIEW_TRACES``, event markers by
        ``EVENT_CLASSES`` (one marker per time and event type, larger
        when several clusters share it; hover lists them with p-values);
        one y axis per row (``y``, ``y2``, ... from the top), one time axis.

    Raises
    ------
    ValueError
        If the result, the dataset and the ensemble differ in steps.
    """
    return overview_parts(dataset, result, ensemble=ensemble, events=events, scores=scores, t=t, title=title,
                          sample_size=sample_size, seed=seed).figure()
