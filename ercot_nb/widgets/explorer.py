"""Explorer: pick data, run an algorithm live, scrub through time, pick front members."""
from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from .. import figures
from ..data import TemporalDataset
from ..result import ClusteringResult, StepResult
from ._job import FitJob
from ._messages import MessageArea
from .alpha_view import AlphaView
from .dataset_picker import DatasetPicker
from .pareto_view import ParetoView
from .partition_view import PartitionView
from .run_panel import RunPanel
from .sankey_view import SankeyView
from .scores_view import ScoresView
from .scrubber import TimeScrubber
from .video_view import VideoView

__all__ = ["Explorer", "VIEWS"]

VIEWS = ("partition", "pareto", "alpha", "scores", "sankey")
"""Views an Explorer can show (each one Plotly figure, ~5 MB of front-end code).

``"partition"`` is the scatter of one step's samples, or for a video
(:func:`ercot_nb.figures.is_video`) the frame and its segmentation side by side.
"""

_PANEL = dict(border="1px solid #DDDDDD", padding="6px 10px", margin="0 8px 8px 0")
_CONTROL_WIDTH = "560px"  # two panels side by side in a 1200 px window


def _panel(title: str, body: W.Widget, width: str | None = None) -> W.VBox:
    return W.VBox([W.HTML(f"<b>{title}</b>"), body], layout=W.Layout(width=width, **_PANEL))


class Explorer(W.VBox):
    """The whole app: dataset picker, run panel, time scrubber and linked views.

    Everything shown follows the scrubber's step.  A run goes on in a
    background thread: views update as each step finishes, the kernel keeps
    answering the widgets, and Stop ends the run after the current step,
    keeping the steps done.  Clicking a point of the Pareto front shows that
    member's partition instead of the knee's.  Every run on the current
    dataset is kept (pick it under "show run"; all are scored side by side).
    For a video dataset the partition scatter (thousands of pixels in colour
    space) gives way to a :class:`VideoView`: the frame, its segmentation
    and the ground truth side by side.

    Parameters
    ----------
    dataset : str or TemporalDataset, default="syn3"
        Initial data: a built-in scenario name or a dataset.
    result : ClusteringResult, optional
        A run already fitted on ``dataset``, shown at once.
    algorithm : str, default="ERCOT"
        Initially selected algorithm.
    params : mapping, optional
        Initial parameters of that algorithm.
    data_seed : int, default=0
        Seed of built-in scenarios.
    data_params : mapping, optional
        Parameters of the initial built-in scenario.
    views : sequence of str, default=VIEWS
        Which views to show, a subset of :data:`VIEWS`.

    Attributes
    ----------
    picker : DatasetPicker
    run_panel : RunPanel
    scrubber : TimeScrubber
    partition, pareto, alpha, scores, sankey : views (None when not shown)
        ``partition`` is the scatter view; it is created for the first
        dataset that is not a video.
    video : VideoView or None
        Shown instead of ``partition`` while the dataset is a video
        (created for the first video).
    runs : dict of str to ClusteringResult
        The runs made on the current dataset, by name (``"ERCOT #1"``).
    message : MessageArea
        Problems of the app itself (e.g. showing a step).

    Examples
    --------
    >>> from ercot_nb.widgets import Explorer
    >>> explorer = Explorer("syn3", params={"pop_size": 20, "n_evaluations": 40})
    >>> job = explorer.run(wait=True)
    >>> len(explorer.result), explorer.runs.keys() == {"ERCOT #1"}
    (10, True)
    """

    def __init__(
        self,
        dataset: str | TemporalDataset = "syn3",
        *,
        result: ClusteringResult | None = None,
        algorithm: str = "ERCOT",
        params: Mapping[str, Any] | None = None,
        data_seed: int = 0,
        data_params: Mapping[str, Any] | None = None,
        views: Sequence[str] = VIEWS,
    ) -> None:
        unknown = set(views) - set(VIEWS)
        if unknown:
            raise ValueError(f"unknown view(s) {sorted(unknown)}; choose from {VIEWS}")
        super().__init__()
        self._lock = threading.RLock()
        self.message = MessageArea()
        self.picker = DatasetPicker(dataset, seed=data_seed, params=data_params)
        self.run_panel = RunPanel(algorithm, params)
        data = self.picker.dataset
        self.run_panel.dataset = data
        self.runs: dict[str, ClusteringResult] = {}
        self._shown: str | None = None
        self._choosing = False
        self._run_count = 0
        self._live: dict[int, str] = {}  # id(job) -> run name, for running jobs
        if result is not None:
            self._add_run(result.algorithm, result)
        shown = self.result

        self.scrubber = TimeScrubber(self._times(data, shown))
        self.run_choice = W.Dropdown(options=list(self.runs) or ["(ground truth)"],
                                     description="show run", style={"description_width": "70px"},
                                     layout=W.Layout(width="260px"))
        self.partition: PartitionView | None = None
        self.video: VideoView | None = None
        self._slot = W.HBox(layout=W.Layout(flex_flow="row wrap"))  # partition or video view
        self._with_partition = "partition" in views
        self._load_partition_slot(data, shown, 0)
        self.pareto = ParetoView(shown) if "pareto" in views else None
        self.alpha = AlphaView(shown) if "alpha" in views else None
        self.scores = ScoresView(data, self.runs) if "scores" in views else None
        self.sankey = SankeyView(shown) if "sankey" in views else None

        header = W.HTML(
            "<h3 style='margin:4px 0'>ERCOT explorer</h3><small>Pick data, run an algorithm "
            "(views update at every finished step), scrub through time with the slider or "
            "Play, and click a point of the Pareto front to see that partition instead of "
            "the knee's.</small>"
        )
        controls = W.HBox([_panel("1 · Data", self.picker, _CONTROL_WIDTH),
                           _panel("2 · Algorithm", self.run_panel, _CONTROL_WIDTH)],
                          layout=W.Layout(flex_flow="row wrap", align_items="flex-start"))
        timeline = W.HBox([self.scrubber, self.run_choice],
                          layout=W.Layout(flex_flow="row wrap", align_items="center"))
        rows = [
            [view for view in (self._slot if self._with_partition else None, self.pareto)
             if view is not None],
            [view for view in (self.alpha, self.scores) if view is not None],
            [view for view in (self.sankey,) if view is not None],
        ]
        grid = [W.HBox(row, layout=W.Layout(flex_flow="row wrap")) for row in rows if row]
        self.children = [header, controls, self.message, _panel("3 · Time", timeline), *grid]

        self.picker.observe(self.message.guarded("switching the dataset")(self._on_dataset),
                            names="dataset")
        self.scrubber.observe_step(self.message.guarded("showing the step")(self._on_step))
        self.run_choice.observe(self.message.guarded("switching the run")(self._on_run_choice),
                                names="value")
        if self.pareto is not None:
            self.pareto.on_select(self.message.guarded("showing the member")(self._on_member))
        self.run_panel.on_start(self._run_started)
        self.run_panel.on_step(self._run_step)
        self.run_panel.on_finish(self._run_finished)
        if self.partition_view is not None:
            self.partition_view.precompute()
        if self.pareto is not None:
            self.pareto.precompute()

    # -- public state --------------------------------------------------------------------------
    @property
    def dataset(self) -> TemporalDataset:
        """The current dataset."""
        return self.picker.dataset

    @property
    def result(self) -> ClusteringResult | None:
        """The run shown, or None while the data is previewed."""
        return self.runs.get(self._shown) if self._shown is not None else None

    @property
    def step(self) -> int:
        """The step shown by every view."""
        return self.scrubber.value

    @step.setter
    def step(self, value: int) -> None:
        self.scrubber.value = value

    @property
    def partition_view(self) -> PartitionView | VideoView | None:
        """The view of one step's partition shown: :attr:`video` for a video, else :attr:`partition`."""
        if not self._with_partition:
            return None
        return self.video if figures.is_video(self.dataset) else self.partition

    @property
    def views(self) -> list[Any]:
        """The views shown, in layout order."""
        return [view for view in (self.partition_view, self.pareto, self.alpha, self.scores,
                                  self.sankey) if view is not None]

    # -- actions -------------------------------------------------------------------------------
    def run(self, *, wait: bool = False) -> FitJob | None:
        """Run the selected algorithm on the current dataset (like the Run button).

        Parameters
        ----------
        wait : bool, default=False
            Block until the run ended (in the calling thread).

        Returns
        -------
        FitJob or None
            None if nothing started (the run panel says why).
        """
        return self.run_panel.run(self.dataset, wait=wait)

    def stop(self) -> None:
        """Stop the run after the current step (like the Stop button)."""
        self.run_panel.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run ended; ``False`` on timeout."""
        return self.run_panel.wait(timeout)

    def select_member(self, member: int | None) -> None:
        """Show the partition of population ``member`` at the current step (None: knee)."""
        if self.pareto is not None:
            self.pareto.select(member)
        else:
            self._on_member(member)

    def static(self) -> list[go.Figure]:
        """Plain Plotly figures of every view as shown (no kernel needed)."""
        return [view.static() for view in self.views]

    def to_html(self, path: str | Path) -> Path:
        """Write the shown run as one offline HTML page (see ``ClusteringResult.to_html``).

        Raises
        ------
        ValueError
            If no run is shown.
        """
        if self.result is None:
            raise ValueError("no run to export yet: run an algorithm first")
        return self.result.to_html(path, self.dataset)

    # -- internals -----------------------------------------------------------------------------
    def _load_partition_slot(self, data: TemporalDataset, result: ClusteringResult | None,
                             step: int) -> None:
        """Show ``data`` in the video view (a video) or the scatter view, creating it once."""
        if not self._with_partition:
            return
        if figures.is_video(data):
            try:
                if self.video is None:
                    self.video = VideoView(data, result, step=step)
                else:
                    self.video.load(data, result, step=step)
            except Exception:
                self._slot.children = ()  # no stale frames; the caller shows the error
                raise
            view: W.Widget = self.video
        else:
            if self.partition is None:
                self.partition = PartitionView(data, result, step=step)
            else:
                self.partition.load(data, result, step=step)
            view = self.partition
        if self._slot.children != (view,):
            self._slot.children = (view,)

    @staticmethod
    def _times(dataset: TemporalDataset, result: ClusteringResult | None) -> list[Any]:
        return list(result.times) if result is not None else list(dataset.times)

    def _add_run(self, name: str, result: ClusteringResult) -> str:
        self._run_count += 1
        key = f"{name} #{self._run_count}"
        self.runs[key] = result
        self._shown = key
        return key

    def _display(self, name: str | None, *, step: int = 0, live: bool = False) -> None:
        """Show run ``name`` (None: the dataset preview) in every view, at ``step``.

        A ``live`` run keeps the scrubber's range at every step of the
        dataset until it ends, so that only the value moves while steps
        arrive (see :meth:`TimeScrubber.set_steps`).
        """
        with self._lock:
            self._shown = name
            result = self.result
            data = self.dataset
            self.scrubber.set_steps(data.times if live else self._times(data, result), value=step)
            for view in (self.pareto, self.alpha, self.sankey):
                if view is not None:
                    view.load(result, step=self.scrubber.value)
            if self.scores is not None:
                self.scores.load(data, self.runs, step=self.scrubber.value)
            self._load_partition_slot(data, result, self.scrubber.value)
            options = list(self.runs) or ["(ground truth)"]
            self._choosing = True  # our own change of the menu, not the user's choice
            try:
                if list(self.run_choice.options) != options:
                    self.run_choice.options = options
                self.run_choice.value = name if name is not None else options[0]
            finally:
                self._choosing = False
            if not live:  # scrubbing a finished run touches only cached arrays
                if self.partition_view is not None:
                    self.partition_view.precompute()
                if self.pareto is not None:
                    self.pareto.precompute()

    def _on_dataset(self, change: dict[str, Any]) -> None:
        with self._lock:
            self.runs.clear()
            self.run_panel.dataset = change["new"]
            self._display(None)

    def _on_step(self, step: int) -> None:
        with self._lock:
            for view in self.views:
                view.show_step(step)

    def _on_member(self, member: int | None) -> None:
        with self._lock:
            if self.partition_view is not None:
                self.partition_view.show_step(self.scrubber.value, member)

    def _on_run_choice(self, change: dict[str, Any]) -> None:
        name = change["new"]
        if not self._choosing and name in self.runs and name != self._shown:
            self._display(name, step=self.scrubber.value)

    # -- run callbacks (the worker thread) -----------------------------------------------------
    def _run_started(self, job: FitJob) -> None:
        self.picker.disabled = True
        self.run_choice.disabled = True

    def _run_step(self, job: FitJob, step: StepResult) -> None:
        with self._lock:
            result = job.result
            if result is None:
                return
            if id(job) not in self._live:  # first step: show this run from now on
                self._live[id(job)] = self._add_run(job.name, result)
                self._display(self._live[id(job)], step=0, live=True)
                return
            if self._shown != self._live[id(job)]:
                return
            following = self.scrubber.value >= len(result) - 2  # was at the newest step
            for view in (self.partition_view, self.pareto, self.alpha, self.sankey):
                if view is not None:
                    view.refresh()
            if self.scores is not None:
                self.scores.refresh()
            if following:
                self.scrubber.value = len(result) - 1

    def _run_finished(self, job: FitJob) -> None:
        with self._lock:
            self.picker.disabled = False
            self.run_choice.disabled = False
            name = self._live.pop(id(job), None)
            result = job.result
            if name is None and result is not None and len(result):
                # an algorithm without live steps: everything arrives now
                name = self._add_run(job.name, result)
                self._display(name, step=0)
            elif name is not None and self._shown == name:
                self._display(name, step=min(self.scrubber.value, len(result) - 1))
