"""The score views (``ri``, ``nmi``; the label-free scores the Explorer offers): one class, a metric each."""
from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from ..layers import Parts
from ..lines import LABEL_FREE_SHOWN, LabelFreeTables, scores_figure, scores_parts
from ..protocol import Change, View, ViewData
from ..style import CURRENT_STEP, plain_times, step_index

__all__ = ["Scores"]


class Scores(View):
    """One accuracy score (RI or NMI) against the ground truth per step, or (``metric=None``)
    the label-free scores :data:`LABEL_FREE_SHOWN`; every run compared, the step marked.

    Label-free scores are computed once per step of a run (:meth:`ViewData.growing`).
    ``Scores(None)`` is not in :data:`VIEWS` (the Explorer's scores widget offers it).
    """

    def __init__(self, metric: str | None) -> None:
        self.metric = metric
        if metric is None:
            self.key = "label_free"
            self.title = "Scores without labels"
            self.hint = ("Silhouette, NMI with the previous step and churn of the chosen partition, per step: "
                         "scores that need no ground truth.")
            return
        self.key = metric.lower()
        names = {"RI": "Rand index", "NMI": "normalised mutual information"}
        self.title = f"Accuracy against the ground truth: {metric}"
        self.hint = f"{names[metric]} ({metric}) of the chosen partition against the true labels, per step."

    def applies(self, data: ViewData) -> bool:
        return data.dataset is not None if self.metric is None else data.has_labels

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        runs = {name: run for name, run in data.compared.items()}
        if self.metric is None:
            return scores_parts(data.dataset, runs, None, t=t, label_free=list(LABEL_FREE_SHOWN),
                                tables=self.tables(data))
        return scores_parts(data.dataset, runs, self.metric, t=t, label_free=False)  # its points select a step

    def tables(self, data: ViewData) -> dict[str, pd.DataFrame]:
        """Each compared run's label-free table, scoring only the steps a run added since the last call."""
        return data.growing((self.key, "tables"), LabelFreeTables).update(data.dataset, data.compared)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.dataset, t, "dataset")  # the runs compared may be shorter than the data
        times = data.memo("dataset times", lambda: plain_times(data.dataset.times))
        return Change(shapes={CURRENT_STEP: {"x0": times[t], "x1": times[t]}})

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        if self.metric is None:
            return [self.parts(data, 0).figure()]
        return [scores_figure(data.dataset, data.compared, self.metric)]
