"""Scores view: the registered ``scores`` view of every run, with its ``metric`` as a toggle.

What is drawn, and how a growing run's label-free scores are extended by
its new steps only, is the registered view's
(:class:`ercot_nb.figures.views.Scores`); this widget adds the toggle of its
``metric`` option, whose choices are the view's
(:data:`ercot_nb.figures.views.scores.METRIC_CHOICES`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as W

from ... import figures
from ...data import TemporalDataset
from ...figures.lines import LABEL_FREE_SHOWN
from ...figures.views.scores import LABEL_FREE, METRIC_CHOICES
from ...result import ClusteringResult
from .._state import AppState
from ._base import Parts, placeholder_parts
from .registry import RegistryView

__all__ = ["ScoresView", "LABEL_FREE", "LABEL_FREE_SHOWN"]


class ScoresView(RegistryView):
    """Rand index or NMI per step, or label-free scores, one line per run, the current step marked.

    The front end of the registered view ``"scores"``; the toggle is its
    ``metric`` option.  Without labels (a
    CSV of your own) it shows the label-free scores (silhouette, NMI with the
    previous step, churn) in rows sharing the time axis; with labels the
    "no labels needed" choice shows them instead of RI/NMI.

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
        self.metric = W.ToggleButtons(
            options=[(label, value) for value, (label, _) in METRIC_CHOICES.items()],
            value=metric, style={"button_width": "auto"},  # labels whole in JupyterLab's font too
            tooltips=[tip for _, tip in METRIC_CHOICES.values()],
        )
        self._quiet = False
        super().__init__(figures.view("scores"), width=width, height=height, controls=[self.metric],
                         options={"metric": metric},
                         state=AppState.of(dataset, runs=dict(runs or {}), step=step))
        self.metric.observe(lambda _: None if self._quiet else self.redraw(), names="value")

    def set_options(self, **options: Any) -> None:
        """Draw the view with these options changed; ``metric`` moves the toggle."""
        if "metric" in options:
            self.metric.value = options.pop("metric")  # redraws (the toggle's option)
        if options:
            super().set_options(**options)

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

    def state_run(self) -> Any:
        """A run the scores are drawn for (the state's selected one, else the first with steps)."""
        runs = self.state.runs
        if self.state.run in runs and isinstance(runs[self.state.run], ClusteringResult) and len(runs[self.state.run]):
            return self.state.chosen_run(self.state.run)  # a member picked: the run as chosen
        return next((run for run in runs.values() if isinstance(run, ClusteringResult) and len(run)), None)

    def _note(self) -> str | None:
        if self.dataset is None:
            return "Load data to score runs on it."
        if not any(len(run) for run in self.runs.values()):
            what = "against the labels" if self.dataset.has_labels else "without labels"
            return f"Run an algorithm to score it {what}."
        return super()._note()

    def _content_parts(self) -> Parts:
        self._match_choice()
        self.options = self.view.with_defaults({**self.options, "metric": self.metric.value})
        note = self._note()
        if note is not None:
            self._base = None
            return placeholder_parts(note, "scores per step")
        return super()._content_parts()

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

    def _state_content(self) -> tuple[object, ...]:
        # the runs as chosen (AppState.chosen_run): a member picked scores that member at its step
        return (self.state.dataset, *(self.state.chosen_run(name) for name in self.state.runs))

    def _state_size(self) -> tuple[int, ...]:
        return tuple(len(run) for run in self.state.runs.values())
