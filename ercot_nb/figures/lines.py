"""Time lines: the smoothness weight, scores and number of clusters at every step."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..data import TemporalDataset
from ..metrics import label_free_steps, score_steps
from ..result import ClusteringResult
from .layers import Parts
from .protocol import CLICK_STEP, click_meta
from .style import (
    CURRENT_STEP, INK, MUTED, as_result, base_layout, current_step_line, escape, is_numeric_time, label_color,
    message_annotation, plain_times, step_index, time_axis,
)

__all__ = [
    "ALPHA", "PAIRS", "AlphaLine", "LabelFreeTables", "LABEL_FREE_SHOWN", "METRICS", "LABEL_FREE_SCORES", "LABEL_FREE_DEFAULT", "labels_of", "score_trace_name", "alpha_parts",
    "alpha_figure", "scores_parts", "scores_figure", "n_clusters_parts", "n_clusters_figure",
]

NO_ALPHA = ("no smoothness weight: this run has no α at any step (a consensus, an algorithm "
            "without one, or a single step keeps none)")
"""The note of :func:`alpha_parts` for a run without a finite weight at any step."""

ALPHA = "smoothness weight α"
PAIRS = "weight per matched cluster pair (αᵢ)"
ALPHA_AXIS = "α (weight of step t−1)"  # short: the half-width column of the Explorer
ALPHA_LEGEND = dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0)
"""The alpha figure's legend: one row between the title and the plot, so that a half-width
column (the Explorer's) shows it whole and the plot keeps the figure's width."""
METRICS = {"RI": "Rand index", "NMI": "normalised mutual information"}
"""The scores per step, by code name, with their names in words."""

LABEL_FREE_SCORES = {
    "silhouette": ("silhouette", "silhouette", "higher: tighter, better separated clusters"),
    "consecutive_nmi": ("NMI with the previous step", "NMI with<br>previous step",
                        "1: the same partition of the common ids as the step before"),
    "churn": ("churn", "churn", "share of the common ids that change cluster"),
    "n_clusters": ("number of clusters", "clusters", "clusters of the partition chosen"),
    "f_cp": ("f_cp", "f_cp", "sum of distances to the nearest centroid; lower: tighter"),
    "f_sep": ("f_sep", "f_sep", "1 / closest centroid distance; lower: further apart"),
}
"""Label-free scores of :func:`ercot_nb.metrics.label_free_steps` a scores figure can show:
column -> (name in the traces' names, y-axis title, what it means, shown on hover)."""

LABEL_FREE_SHOWN = ("silhouette", "consecutive_nmi", "churn")
"""The label-free scores the score views show (:class:`LabelFreeTables` computes f_cp and f_sep only if listed)."""

LABEL_FREE_DEFAULT = ("silhouette", "consecutive_nmi", "churn", "n_clusters")
"""The label-free scores shown unless others are asked for (f_cp and f_sep depend on the data's scale)."""


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


class AlphaLine:
    """The points of a run's alpha time line, taken step by step.

    :func:`alpha_parts` draws from one; a front end of a growing run keeps one
    and calls :meth:`extend` with the run again, which reads only the steps
    added since (O(new steps)).  Each rule of the time line is written once,
    here: no point where alpha is NaN, only the finite pair weights, the y
    range, a text time makes a category axis.

    Attributes
    ----------
    x, y : list
        Time and alpha (None where NaN) of every step taken.
    pair_x, pair_y, pair_steps : list
        Time, weight and step of every finite pair weight.
    numeric : bool
        Whether every time taken is a number.
    """

    def __init__(self) -> None:
        self.x: list[Any] = []
        self.y: list[float | None] = []
        self.pair_x: list[Any] = []
        self.pair_y: list[float] = []
        self.pair_steps: list[int] = []
        self.numeric = True
        self._alpha_max: float | None = None  # largest alpha that is not NaN
        self._any_finite = False
        self._pair_max: float | None = None

    def __len__(self) -> int:
        return len(self.x)

    @property
    def any_finite(self) -> bool:
        """Whether some step has a finite weight (else the chart says why it is empty)."""
        return self._any_finite

    def extend(self, result: Any) -> AlphaLine:
        """Take the steps of ``result`` not taken yet (all again if it is shorter); returns self."""
        steps = as_result(result).steps
        n = len(steps)  # a live run grows in another thread: what is there now
        if n < len(self.x):
            self.__init__()
        for t in range(len(self.x), n):
            step = steps[t]
            time = plain_times([step.time])[0]
            alpha = _none_if_nan(step.alpha)
            self.x.append(time)
            self.y.append(alpha)
            if alpha is not None:
                self._alpha_max = alpha if self._alpha_max is None else max(self._alpha_max, alpha)
                self._any_finite = self._any_finite or bool(np.isfinite(alpha))
            pairs = np.asarray(step.alpha_pairs, dtype=np.float64)
            pairs = pairs[np.isfinite(pairs)].tolist()
            if pairs:
                self.pair_x.extend([time] * len(pairs))
                self.pair_y.extend(pairs)
                self.pair_steps.extend([t] * len(pairs))
                top = max(pairs)
                self._pair_max = top if self._pair_max is None else max(self._pair_max, top)
            self.numeric = self.numeric and is_numeric_time(time)
        return self

    def y_range(self, pairs: bool) -> list[float]:
        """The y range: up to the largest weight (and pair weight, with ``pairs``), at least 1."""
        y_max = self._alpha_max if self._any_finite else 1.0
        if pairs and self._pair_max is not None:
            y_max = max(y_max, self._pair_max)
        return [0.0, max(1.0, y_max) + 0.02]

    def time_axis(self) -> dict[str, Any]:
        """``time_axis`` of the times taken (the figures' time axis)."""
        return time_axis(self.x, numeric=self.numeric)


def alpha_parts(
    result: ClusteringResult,
    *,
    show_pairs: bool = False,
    title: str | None = None,
    t: int | None = None,
    pairs_trace: bool = False,
    line: AlphaLine | None = None,
) -> Parts:
    """Parts of :func:`alpha_figure`.

    Parameters
    ----------
    result, show_pairs, title, t
        As in :func:`alpha_figure`.
    pairs_trace : bool, default=False
        Keep the per-pair trace even when ``show_pairs`` is False (hidden),
        so that a view can switch it on without changing its traces.
    line : AlphaLine, optional
        The points of ``result`` taken so far (extended here with the steps
        it lacks); default: taken afresh.

    Returns
    -------
    Parts
        The lines' points select their step when clicked (``meta``, see
        :func:`ercot_nb.figures.click_meta`).
    """
    result = as_result(result)
    if t is not None:
        t = step_index(result, t)
    line = (AlphaLine() if line is None else line).extend(result)
    traces = [go.Scatter(
        x=list(line.x), y=list(line.y), mode="lines+markers", name=ALPHA,
        line=dict(color=label_color(0), width=2), marker=dict(size=8),
        hovertemplate="time %{x}<br>weight %{y:.3f}<extra></extra>", meta=click_meta(CLICK_STEP),
    )]
    pairs = show_pairs or pairs_trace
    if pairs:
        traces.append(go.Scatter(
            x=list(line.pair_x), y=list(line.pair_y), mode="markers", name=PAIRS, visible=bool(show_pairs),
            marker=dict(symbol="circle-open", size=8, color=MUTED, line=dict(width=1.5)),
            hovertemplate="time %{x}<br>pair weight %{y:.3f}<extra></extra>",
            meta=click_meta(CLICK_STEP, line.pair_steps),
        ))
    layout = base_layout(
        "line", title or f"{escape(result.algorithm)} smoothness weight over time",
        xaxis=line.time_axis(),
        yaxis=dict(title=dict(text=ALPHA_AXIS), range=line.y_range(pairs)),
        legend=dict(ALPHA_LEGEND),
        margin=dict(l=60, r=20, t=75, b=55),
    )
    if t is not None:
        traces.append(go.Scatter(
            x=[line.x[t]], y=[line.y[t]], mode="markers", name=CURRENT_STEP,
            marker=dict(symbol="circle-open", size=16, color=INK, line=dict(width=2)),
            hovertemplate="time %{x}<br>weight %{y:.3f}<extra>current step</extra>",
            showlegend=False,  # the dashed line says it; the legend keeps one row (ALPHA_LEGEND)
        ))
        layout["shapes"] = [current_step_line(line.x[t])]
    if not line.any_finite:  # say why the chart is empty, as the Pareto view does
        layout["annotations"] = [message_annotation(NO_ALPHA)]
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
        with ``t`` a last ``"current step"`` trace and line.  A run with no
        finite weight at any step (a consensus) carries a note saying so.
    """
    return alpha_parts(result, show_pairs=show_pairs, title=title, t=t).figure()


class LabelFreeTables:
    """Each run's :func:`~ercot_nb.metrics.label_free_steps` table for :func:`scores_parts` (``tables``),
    extended by the steps a run added since the last :meth:`update` (a live run)."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[ClusteringResult, Any]] = {}

    def update(self, dataset: TemporalDataset, runs: Mapping[str, Any]) -> dict[str, Any]:
        """The tables of the runs that are results (label arrays are scored by :func:`scores_parts`)."""
        import pandas as pd

        objectives = any(score in ("f_cp", "f_sep") for score in LABEL_FREE_SHOWN)
        tables = {}
        for name, run in runs.items():
            if not isinstance(run, ClusteringResult):
                continue
            steps = list(run.steps)  # a live run grows in another thread: score what is there now
            head = ClusteringResult(run.algorithm, run.params, steps)
            known, table = self._kept.get(name, (None, None))
            if known is not run or table is None or len(table) > len(steps):
                table = label_free_steps(head, dataset[: len(steps)], sample_size=500, objectives=objectives)
            elif len(table) < len(steps):
                new = label_free_steps(head, dataset[: len(steps)], sample_size=500, start=len(table),
                                       objectives=objectives)
                table = pd.concat([table, new], ignore_index=True)
            self._kept[name] = (run, table)
            tables[name] = table
        return tables


def score_trace_name(run: str, score: str) -> str:
    """Name of the line of label-free ``score`` (a key of ``LABEL_FREE_SCORES``) of ``run``."""
    return f"{escape(run)} · {LABEL_FREE_SCORES[score][0]}"


def _label_free_rows(dataset: TemporalDataset, metric: str | None, label_free: Any) -> list[str]:
    """The label-free scores to show, validated (``None``: all of them when there are no labels)."""
    if label_free is None:
        label_free = not dataset.has_labels or metric is None
    if label_free is True:
        return list(LABEL_FREE_DEFAULT)
    if label_free is False:
        return []
    if isinstance(label_free, str) or not isinstance(label_free, Sequence):
        raise TypeError(f"label_free must be None, a bool or a list of score names, got {label_free!r}")
    unknown = [score for score in label_free if score not in LABEL_FREE_SCORES]
    if unknown:
        raise ValueError(f"label_free: unknown score(s) {unknown}; choose from {list(LABEL_FREE_SCORES)}")
    return list(dict.fromkeys(label_free))


def _as_run_result(dataset: TemporalDataset, name: str, run: Any) -> ClusteringResult:
    """A run as a result on the dataset's first steps (label arrays become a result)."""
    if isinstance(run, ClusteringResult) or isinstance(getattr(run, "result_", None), ClusteringResult):
        return as_result(run)
    labels = labels_of(run)
    return ClusteringResult.from_labels(dataset, labels, algorithm=str(name))


def _row_layout(layout: dict[str, Any], rows: list[tuple[str, str]], times: list[Any]) -> None:
    """Stack one y axis per row (top to bottom), all sharing the bottom row's time axis."""
    n = len(rows)
    gap = 0.05 if n > 1 else 0.0
    height = (1.0 - gap * (n - 1)) / n
    for i, (key, axis_title) in enumerate(rows):
        top = 1.0 - i * (height + gap)
        axis = dict(title=dict(text=axis_title, font=dict(size=11)), domain=[max(top - height, 0.0), top],
                    anchor="x", zeroline=False)
        if key == "n_clusters":
            axis.update(dtick=1, rangemode="tozero")
        elif key in ("consecutive_nmi", "churn"):  # shares: the whole 0..1 scale, flat lines stay readable
            axis.update(range=[-0.05, 1.05], tickvals=[0, 0.5, 1])
        layout["yaxis" if i == 0 else f"yaxis{i + 1}"] = axis
    layout["xaxis"] = dict(time_axis(times), anchor=f"y{n}" if n > 1 else "y")
    layout["height"] = max(400, 90 + 140 * n)


def scores_parts(
    dataset: TemporalDataset,
    runs: Mapping[str, Any],
    metric: str | None = "RI",
    *,
    title: str | None = None,
    t: int | None = None,
    label_free: bool | Sequence[str] | None = None,
    sample_size: int | None = 500,
    seed: Any = 0,
    tables: Mapping[str, Any] | None = None,
) -> Parts:
    """Parts of :func:`scores_figure` (same parameters)."""
    if metric is not None and metric not in METRICS:
        raise ValueError(f"metric must be one of {sorted(METRICS)} or None, got {metric!r}")
    if not runs:
        raise ValueError("runs is empty: give at least one {name: result} entry")
    scores = _label_free_rows(dataset, metric, label_free)
    with_labels = dataset.has_labels and metric is not None
    if not with_labels and not scores:
        raise ValueError(
            f"dataset {dataset.name!r} has no labels (or metric=None) and label_free is off: "
            "nothing to show; pass label_free=True"
        )
    times = plain_times(dataset.times)
    rows: list[tuple[str, str]] = []
    if with_labels:
        rows.append((metric, f"{METRICS[metric]} ({metric})"))
    rows += [(score, LABEL_FREE_SCORES[score][1]) for score in scores]
    axis_of = {key: "y" if i == 0 else f"y{i + 1}" for i, (key, _) in enumerate(rows)}
    traces = []
    for index, (name, run) in enumerate(runs.items()):
        labels = labels_of(run)
        if len(labels) > len(dataset):
            raise ValueError(
                f"run {name!r} has {len(labels)} steps but the dataset only {len(dataset)}"
            )
        shown = escape(name)
        color = label_color(index)
        x = times[: len(labels)]
        if with_labels:
            values = (
                score_steps(dataset[: len(labels)], labels)[metric].to_numpy()
                if labels else np.empty(0)
            )
            traces.append(go.Scatter(
                x=x, y=values, mode="lines+markers", yaxis=axis_of[metric], legendgroup=shown,
                name=f"{shown} (mean {values.mean():.3f})" if len(values) else f"{shown} (no step yet)",
                line=dict(color=color, width=2), marker=dict(size=7),
                hovertemplate=f"{shown}<br>time %{{x}}<br>{metric} %{{y:.3f}}<extra></extra>",
                meta=click_meta(CLICK_STEP),
            ))
        if not scores:
            continue
        table = (tables or {}).get(name)
        if table is not None and len(table) < len(labels):
            raise ValueError(f"tables[{name!r}] has {len(table)} rows but the run {len(labels)} steps")
        if labels and table is None:
            result = _as_run_result(dataset[: len(labels)], name, run)
            table = label_free_steps(result, dataset[: len(labels)], sample_size=sample_size, seed=seed,
                                     objectives=any(score in ("f_cp", "f_sep") for score in scores))
        for score in scores:
            values = table[score].to_numpy(dtype=float)[: len(labels)] if labels else np.empty(0)
            short, _, meaning = LABEL_FREE_SCORES[score]
            traces.append(go.Scatter(
                x=x, y=[_none_if_nan(v) for v in values], mode="lines+markers", yaxis=axis_of[score],
                name=score_trace_name(name, score), legendgroup=shown, showlegend=False,
                line=dict(color=color, width=2), marker=dict(size=6),
                hovertemplate=(f"{shown}<br>time %{{x}}<br>{short} "
                               f"%{{y:{'d' if score == 'n_clusters' else '.3f'}}}<br><i>{meaning}</i>"
                               "<extra></extra>"),
                meta=click_meta(CLICK_STEP),
            ))
        if not with_labels:  # one legend entry per run (its lines share the run's colour)
            traces.append(go.Scatter(x=[None], y=[None], mode="lines+markers", name=shown, showlegend=True,
                                     legendgroup=shown, line=dict(color=color, width=2),
                                     hoverinfo="skip", yaxis=axis_of[scores[0]], meta=click_meta(CLICK_STEP)))
    on = f" on {escape(dataset.name)}" if dataset.name else ""
    if with_labels and not scores:
        default = f"{METRICS[metric]} ({metric}) per time step{on}"
    elif with_labels:
        default = f"{metric} and label-free scores per time step{on}"
    else:
        default = f"Label-free scores per time step{on}"
    layout = base_layout(
        "line", title or default,
        xaxis=time_axis(times),
        yaxis=dict(title=dict(text=f"{METRICS[metric]} ({metric})" if with_labels else rows[0][1])),
        # between the title and the plot (as the alpha figure's): inside it, it lay on the lines
        legend=dict(ALPHA_LEGEND),
        margin=dict(l=60, r=20, t=75, b=55),
    )
    if len(rows) > 1:
        _row_layout(layout, rows, times)
        layout["legend"] = dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0)
        layout["margin"] = dict(l=110, r=20, t=90, b=55)
    if t is not None:
        layout["shapes"] = [current_step_line(times[step_index(dataset, t, "dataset")])]
    return Parts(traces, layout)


def scores_figure(
    dataset: TemporalDataset,
    runs: Mapping[str, Any],
    metric: str | None = "RI",
    *,
    title: str | None = None,
    t: int | None = None,
    label_free: bool | Sequence[str] | None = None,
    sample_size: int | None = 500,
    seed: Any = 0,
    tables: Mapping[str, Any] | None = None,
) -> go.Figure:
    """Rand index or NMI at every step, and scores that need no labels, for one or more runs.

    Parameters
    ----------
    dataset : TemporalDataset
        The data the runs were fitted on; RI/NMI need its labels.
    runs : mapping of str to ClusteringResult, fitted estimator or list of arrays
        Name shown in the legend -> the run's per-step labels.  A run with
        fewer steps than the dataset (stopped, or still running) is scored
        on its first steps.
    metric : {"RI", "NMI"} or None, default="RI"
        The score against the dataset's labels; None (or a dataset without
        labels) shows only label-free scores.
    title : str, optional
        Figure title.
    t : int, optional
        Mark this step of the dataset with a dashed vertical line (a shape
        named ``"current step"``) across every row.
    label_free : bool, list of str or None, default=None
        Label-free scores (keys of ``LABEL_FREE_SCORES``, from
        :func:`ercot_nb.metrics.label_free_steps`) in rows below the RI/NMI
        row, sharing its time axis.  ``None`` shows ``LABEL_FREE_DEFAULT``
        when there are no labels (or ``metric`` is None) and none otherwise;
        True those; ``f_cp`` and ``f_sep`` on request.
    sample_size : int or None, default=500
        Samples per step for the silhouette (see :func:`ercot_nb.metrics.silhouette`).
    seed : int or None, default=0
        Seed of the silhouette samples.
    tables : mapping of str to pandas.DataFrame, optional
        Run name -> its :func:`ercot_nb.metrics.label_free_steps` table,
        already computed (a view of a growing run extends it step by step);
        runs not named here are scored.

    Returns
    -------
    plotly.graph_objects.Figure
        Points select their step when clicked (``meta``, see :func:`ercot_nb.figures.click_meta`).
        With labels one line per run, named ``"<name> (mean <value>)"``;
        label-free lines are named ``score_trace_name`` (``"<name> ·
        churn"``), one row (y axis ``y``, ``y2``, ... from the top) per score.

    Raises
    ------
    ValueError
        For an unknown metric or score, or when nothing is left to show (no
        labels and ``label_free=False``).
    """
    return scores_parts(dataset, runs, metric, title=title, t=t, label_free=label_free,
                        sample_size=sample_size, seed=seed, tables=tables).figure()


def n_clusters_parts(
    result: ClusteringResult,
    dataset: TemporalDataset | None = None,
    *,
    title: str | None = None,
    t: int | None = None,
) -> Parts:
    """Parts of :func:`n_clusters_figure`; ``t`` marks the current step (a shape named ``"current step"``)."""
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
    if t is not None:
        layout["shapes"] = [current_step_line(times[step_index(result, t)])]
    return Parts(traces, layout)


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
    return n_clusters_parts(result, dataset, title=title).figure()
