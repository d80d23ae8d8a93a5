"""Scores view: RI or NMI per step of every run on the current dataset, or scores without labels."""
from __future__ import annotations

from collections.abc import Mapping

import ipywidgets as W
import pandas as pd
import plotly.graph_objects as go

from ... import figures
from ...figures import CURRENT_STEP, plain_times
from ...data import TemporalDataset
from ...metrics import label_free_steps
from ...result import ClusteringResult
from .._state import AppState
from ._base import FigureView, Parts, placeholder_parts

__all__ = ["ScoresView", "LABEL_FREE", "LABEL_FREE_SHOWN"]

LABEL_FREE = "label-free"
"""The metric choice that shows the scores needing no labels."""

LABEL_FREE_SHOWN = ("silhouette", "consecutive_nmi", "churn")
"""The label-free scores the view shows (keys of :data:`ercot_nb.figures.lines.LABEL_FREE_SCORES`)."""
_OBJECTIVES = any(score in ("f_cp", "f_sep") for score in LABEL_FREE_SHOWN)  # computed only if shown


class ScoresView(FigureView):
    """Rand index or NMI per step, or label-free scores, one line per run, the current step marked.

    Without labels (a CSV of your own) the view shows the label-free scores
    of :func:`ercot_nb.metrics.label_free_steps` (silhouette, NMI with the
    previous step, churn) in rows sharing the time axis; with labels the
    "no labels needed" choice shows them instead of RI/NMI.  Each run's
    table is computed once per step and extended as a live run grows.

    Parameters
    ----------
    dataset : TemporalDataset or None
        RI/NMI need its ground-truth labels; None until a state it follows
        has data.
    runs : mapping of str to ClusteringResult, optional
        Name in the legend -> run; runs may be shorter than the dataset.
    step : int, default=0
    metric : {"RI", "NMI", "label-free"}, default="RI"
    width, height : int
        Figure size in pixels.
    """

    what = "scores view"

    def __init__(
        self,
        dataset: TemporalDataset | None,
        runs: Mapping[str, ClusteringResult] | None = None,
        *,
        step: int = 0,
        metric: str = "RI",
        width: int = 560,
        height: int = 340,
    ) -> None:
        self._use_state(AppState.of(dataset, runs=dict(runs or {}), step=step))
        self._tables: dict[str, tuple[ClusteringResult, pd.DataFrame]] = {}  # per run, scored so far
        self._tables_of: TemporalDataset | None = None  # the data they score
        self.metric = W.ToggleButtons(
            options=[("Rand index", "RI"), ("mutual information", "NMI"), ("no labels needed", LABEL_FREE)],
            value=metric, style={"button_width": "130px"},
            tooltips=["Rand index against the labels", "normalised mutual information against the labels",
                      "silhouette, NMI with the previous step and churn: scores without labels"],
        )
        self._quiet = False
        self._match_choice()
        super().__init__(self._parts(), [self.metric], width=width, height=height)
        self.metric.observe(lambda _: None if self._quiet else self._draw_content(), names="value")

    @property
    def runs(self) -> dict[str, ClusteringResult]:
        """The runs scored: every run of the state (the state's)."""
        return self.state.runs

    @property
    def step(self) -> int:
        """The step marked: the state's, clamped to the dataset's steps."""
        return self.state.step_of(None)

    @property
    def label_free(self) -> bool:
        """Whether the label-free scores are shown (no labels, or chosen)."""
        return self.dataset is not None and (not self.dataset.has_labels or self.metric.value == LABEL_FREE)

    def _parts(self) -> Parts:
        if self.dataset is None:
            return placeholder_parts("Load data to score runs on it.", "scores per step")
        runs = {name: run for name, run in self.runs.items() if len(run)}
        if not runs:
            what = "against the labels" if self.dataset.has_labels else "without labels"
            return placeholder_parts(f"Run an algorithm to score it {what}.", "scores per step")
        t = self.step
        if not self.label_free:
            return figures.scores_parts(self.dataset, runs, self.metric.value, t=t)
        return figures.scores_parts(self.dataset, runs, None, t=t, label_free=list(LABEL_FREE_SHOWN),
                                    tables=self._label_free_tables(runs))

    def _label_free_tables(self, runs: Mapping[str, ClusteringResult]) -> dict[str, pd.DataFrame]:
        """Each run's label-free table, scoring only the steps added since the last call."""
        if self._tables_of is not self.dataset:
            self._tables, self._tables_of = {}, self.dataset
        tables = {}
        for name, run in runs.items():
            steps = list(run.steps)  # a live run grows in another thread: score what is there now
            head = ClusteringResult(run.algorithm, run.params, steps)
            known, table = self._tables.get(name, (None, None))
            if known is not run or table is None or len(table) > len(steps):
                table = label_free_steps(head, self.dataset[: len(steps)], sample_size=500,
                                         objectives=_OBJECTIVES)
            elif len(table) < len(steps):
                new = label_free_steps(head, self.dataset[: len(steps)], sample_size=500, start=len(table),
                                       objectives=_OBJECTIVES)
                table = pd.concat([table, new], ignore_index=True)
            self._tables[name] = (run, table)
            tables[name] = table
        return tables

    def load(self, dataset: TemporalDataset, runs: Mapping[str, ClusteringResult] | None = None,
             *, step: int = 0) -> None:
        """Show the runs of another dataset: the state shown is set to them."""
        self.state.show(dataset, runs=dict(runs or {}), step=step)
        self._state_changed()

    def _match_choice(self) -> None:
        """Without labels only the label-free scores exist: chosen, and the choice locked."""
        without_labels = self.dataset is not None and not self.dataset.has_labels
        self.metric.disabled = without_labels
        if without_labels and self.metric.value != LABEL_FREE:
            self._quiet = True  # the caller redraws once
            try:
                self.metric.value = LABEL_FREE
            finally:
                self._quiet = False

    def _draw_content(self) -> None:
        """Redraw (other data, runs were added or grew)."""
        self._match_choice()
        self._show(self._parts())

    def _draw_step(self) -> None:
        """Move the current-step line to the state's step."""
        if any(shape.name == CURRENT_STEP for shape in self.figure.layout.shapes):
            time = plain_times([self.dataset.times[self.step]])[0]
            figures.update_by_name(self.figure, shapes={CURRENT_STEP: {"x0": time, "x1": time}})

    def _state_content(self) -> tuple[object, ...]:
        return (self.state.dataset, *self.state.runs.values())

    def _state_size(self) -> tuple[int, ...]:
        return tuple(len(run) for run in self.state.runs.values())

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.scores_figure` of what is shown."""
        return self._static(go.Figure(*self._parts()))
