"""Scores view: RI or NMI per step of every run on the current dataset."""
from __future__ import annotations

from collections.abc import Mapping

import ipywidgets as W
import plotly.graph_objects as go

from .. import figures
from ..figures.style import CURRENT_STEP, plain_times
from ..data import TemporalDataset
from ..result import ClusteringResult
from ._base import FigureView, Parts, placeholder_parts

__all__ = ["ScoresView"]


class ScoresView(FigureView):
    """Rand index or NMI per step, one line per run, the current step marked.

    Parameters
    ----------
    dataset : TemporalDataset or None
        Needs ground-truth labels for scores (otherwise the view says so);
        None until a state it follows has data.
    runs : mapping of str to ClusteringResult, optional
        Name in the legend -> run; runs may be shorter than the dataset.
    step : int, default=0
    metric : {"RI", "NMI"}, default="RI"
    width, height : int
        Figure size in pixels.
    """

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
        self.dataset = dataset
        self.runs: dict[str, ClusteringResult] = dict(runs or {})
        self._step = step
        self.metric = W.ToggleButtons(options=[("Rand index", "RI"), ("mutual information", "NMI")],
                                      value=metric,
                                      style={"button_width": "130px"},
                                      tooltip="Rand index or normalised mutual information")
        super().__init__(self._parts(), [self.metric], width=width, height=height)
        self.metric.observe(lambda _: self.refresh(), names="value")

    @property
    def step(self) -> int:
        return self._step

    def _parts(self) -> Parts:
        if self.dataset is None or not self.dataset.has_labels:
            return placeholder_parts("This dataset has no ground-truth labels, so no RI/NMI.",
                                     "scores per step")
        runs = {name: run for name, run in self.runs.items() if len(run)}
        if not runs:
            return placeholder_parts("Run an algorithm to score it against the labels.",
                                     "scores per step")
        t = min(self._step, len(self.dataset) - 1)
        return figures.scores_parts(self.dataset, runs, self.metric.value, t=t)

    def load(self, dataset: TemporalDataset, runs: Mapping[str, ClusteringResult] | None = None,
             *, step: int = 0) -> None:
        """Show the runs of another dataset."""
        self.dataset, self.runs, self._step = dataset, dict(runs or {}), step
        self.refresh()

    def refresh(self) -> None:
        """Redraw (runs were added or grew)."""
        self._show(self._parts())

    def show_step(self, step: int) -> None:
        """Move the current-step line to ``step``."""
        self._step = step
        if any(shape.name == CURRENT_STEP for shape in self.figure.layout.shapes):
            time = plain_times([self.dataset.times[min(step, len(self.dataset) - 1)]])[0]
            figures.update_by_name(self.figure, shapes={CURRENT_STEP: {"x0": time, "x1": time}})

    def _state_content(self) -> tuple[object, ...]:
        return (self.state.dataset, *self.state.runs.values())

    def _state_size(self) -> tuple[int, ...]:
        return tuple(len(run) for run in self.state.runs.values())

    def _draw_content(self) -> None:
        self.load(self.state.dataset, self.state.runs, step=self.state.step)

    def _draw_step(self) -> None:
        if self.state.step != self._step:
            self.show_step(self.state.step)

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.scores_figure` of what is shown."""
        return self._static(go.Figure(*self._parts()))
