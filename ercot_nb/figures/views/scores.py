"""The ``scores`` view: how good the chosen partition is per step, every run compared; its ``metric``
option chooses the score (:data:`METRIC_CHOICES`, the choice every front end offers)."""
from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from ..layers import Parts
from ..lines import LABEL_FREE_SHOWN, METRICS, LabelFreeTables, scores_figure, scores_parts
from ..protocol import Change, View, ViewData
from ..style import CURRENT_STEP, plain_times, step_index

__all__ = ["Scores", "VIEW", "LABEL_FREE", "METRIC_CHOICES"]

LABEL_FREE = "label-free"
"""The ``metric`` that shows the scores needing no labels (:data:`~ercot_nb.figures.lines.LABEL_FREE_SHOWN`)."""

METRIC_CHOICES: dict[str, tuple[str, str]] = {
    "RI": ("Rand index", "Rand index against the labels"),
    "NMI": ("mutual information", "normalised mutual information against the labels"),
    LABEL_FREE: ("no labels needed", "silhouette, NMI with the previous step and churn: scores without labels"),
}
"""The values of the scores view's ``metric`` option, in order: value -> (label, what it shows).
The static report, the offline page and the Explorer's toggle offer these (:meth:`Scores.choices`)."""

_NEEDS_LABELS = tuple(METRICS)  # RI, NMI: against the ground truth


class Scores(View):
    """Per step, one line per compared run: the Rand index or NMI of the chosen partition against the
    ground truth, or the label-free scores (:data:`LABEL_FREE_SHOWN`); the step marked.

    Options: ``metric`` (a key of :data:`METRIC_CHOICES`; None: the first that applies to the data,
    RI with labels, else ``"label-free"``).  Label-free scores are computed once per step of a run
    (:meth:`ViewData.growing`).
    """

    key = "scores"
    title = "Scores"
    hint = ("Rand index or normalised mutual information of the chosen partition against the true labels, "
            "or scores that need no labels (silhouette, NMI with the previous step, churn), per step.")
    choice = "metric"
    options = {"metric": None}

    def applies(self, data: ViewData) -> bool:
        return data.dataset is not None

    def choices(self, data: ViewData) -> dict[str, str]:
        """The metrics that apply to ``data`` (RI and NMI need labels), value -> label, default first."""
        return {value: label for value, (label, _) in METRIC_CHOICES.items()
                if data.has_labels or value not in _NEEDS_LABELS}

    def metric(self, data: ViewData, metric: str | None) -> str:
        """The metric drawn for the option ``metric`` (checked against the data)."""
        if metric is None:
            return next(iter(self.choices(data)))
        if metric not in METRIC_CHOICES:
            raise ValueError(f"scores view: metric must be one of {list(METRIC_CHOICES)} or None, got {metric!r}")
        if metric not in self.choices(data):
            raise ValueError(f"scores view: metric {metric!r} needs ground-truth labels and dataset "
                             f"{getattr(data.dataset, 'name', '')!r} has none; choose {LABEL_FREE!r}")
        return metric

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        metric = self.metric(data, self.with_defaults(options)["metric"])
        runs = dict(data.compared)
        if metric == LABEL_FREE:
            return scores_parts(data.dataset, runs, None, t=t, label_free=list(LABEL_FREE_SHOWN),
                                tables=self.tables(data))
        return scores_parts(data.dataset, runs, metric, t=t, label_free=False)  # its points select a step

    def tables(self, data: ViewData) -> dict[str, pd.DataFrame]:
        """Each compared run's label-free table, scoring only the steps a run added since the last call."""
        return data.growing((self.key, "tables"), LabelFreeTables).update(data.dataset, data.compared)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.dataset, t, "dataset")  # the runs compared may be shorter than the data
        times = data.memo("dataset times", lambda: plain_times(data.dataset.times))
        return Change(shapes={CURRENT_STEP: {"x0": times[t], "x1": times[t]}})

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        """One figure per metric (every one that applies, or the ``metric`` given)."""
        metric = self.with_defaults(options)["metric"]
        metrics = list(self.choices(data)) if metric is None else [self.metric(data, metric)]
        return [self.parts(data, 0, metric=m).figure() if m == LABEL_FREE else
                scores_figure(data.dataset, data.compared, m) for m in metrics]  # no step marked


VIEW = Scores()
