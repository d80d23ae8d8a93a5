"""Explorer: pick data, run an algorithm live, scrub through time, pick front members."""
from __future__ import annotations

import html
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from .. import figures
from ..data import TemporalDataset
from ..result import ClusteringResult
from ._job import FitJob, RateLimit, Runner
from ._messages import MessageArea
from ._state import AppState
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
    return W.VBox([W.HTML(f"<b>{html.escape(title)}</b>"), body],
                  layout=W.Layout(width=width, **_PANEL))


class Explorer(W.VBox):
    """The whole app: dataset picker, run panel, time scrubber and linked views.

    Everything shown is one :class:`~ercot_nb.widgets._state.AppState`
    (:attr:`state`): the controls change it and the views only render it.
    A run goes on in a background thread (the shared
    :class:`~ercot_nb.widgets._job.Runner`): views follow the finished steps
    at a rate that keeps redrawing to a small share of the run time, the
    kernel keeps answering the widgets, and Stop ends the run after the
    current step, keeping the steps done.  Loading other data during a run
    stops that run and drops it.  Clicking a point of the Pareto front shows that
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
    state : AppState
        What is shown: dataset, runs, selected run, step, member, status.
    runner : Runner
        Runs the fits (shared design with :class:`~ercot_nb.widgets.Compare`).
    message : MessageArea
        The status line: the answer to the user's last action.

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
        self.state = AppState()
        self.lock = threading.RLock()
        self.runner = Runner(self.state, self.lock)
        self.message = MessageArea(self.state)
        self.picker = DatasetPicker(dataset, seed=data_seed, params=data_params, state=self.state)
        self.run_panel = RunPanel(algorithm, params, state=self.state, runner=self.runner,
                                  precheck=lambda: self.picker.pending)
        if result is not None:
            self.state.add_run(result.algorithm, result)
        self._live = RateLimit(min_interval=0.25, share=0.2)
        self._shown: dict[str, Any] = {}

        data, shown = self.state.dataset, self.state.result
        self.scrubber = TimeScrubber(self._times(data, shown))
        self.run_choice = W.Dropdown(options=["(ground truth)"], description="show run",
                                     style={"description_width": "70px"},
                                     layout=W.Layout(width="260px"))
        self.partition: PartitionView | None = None
        self.video: VideoView | None = None
        # partition and video view stay in the page once shown (hidden when not in use):
        # a plotly figure taken out of the page loses its front-end view, and one put
        # back is drawn from stale state (issue: frozen partition after a video)
        self._slot = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        self._with_partition = "partition" in views
        self.pareto = ParetoView(shown) if "pareto" in views else None
        self.alpha = AlphaView(shown) if "alpha" in views else None
        self.scores = ScoresView(data, self.state.runs) if "scores" in views else None
        self.sankey = SankeyView(shown) if "sankey" in views else None

        header = W.HTML(
            "<h3 style='margin:4px 0'>ERCOT explorer</h3><small>Pick data, run an algorithm "
            "(views update as steps finish), scrub through time with the slider or "
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

        self._render()
        self.scrubber.observe_step(self.message.guarded("showing the step")(self._on_slider))
        self.run_choice.observe(self.message.guarded("switching the run")(self._on_run_choice),
                                names="value")
        if self.pareto is not None:
            self.pareto.on_select(self.message.guarded("showing the member")(self.state.select_member))
        self.state.observe(self._on_state,
                           names=["dataset", "runs", "run", "n_done", "step", "member", "running"])
        self.runner.on_done(lambda runner: self._render(force=True))
        self._precompute()

    # -- public state --------------------------------------------------------------------------
    @property
    def dataset(self) -> TemporalDataset:
        """The current dataset."""
        return self.state.dataset

    @property
    def runs(self) -> dict[str, ClusteringResult]:
        """The runs made on the current dataset, by name (``"ERCOT #1"``)."""
        return self.state.runs

    @property
    def result(self) -> ClusteringResult | None:
        """The run shown, or None while the data is previewed."""
        return self.state.result

    @property
    def step(self) -> int:
        """The step shown by every view."""
        return self.state.step

    @step.setter
    def step(self, value: int) -> None:
        with self.lock:
            self.state.set_step(value)

    @property
    def partition_view(self) -> PartitionView | VideoView | None:
        """The view of one step's partition shown: :attr:`video` for a video, else :attr:`partition`."""
        if not self._with_partition or self.dataset is None:
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
            None if nothing started (the status line says why).
        """
        return self.run_panel.run(wait=wait)

    def stop(self) -> None:
        """Stop the run after the current step (like the Stop button)."""
        self.run_panel.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run ended; ``False`` on timeout."""
        return self.runner.wait(timeout)

    def select_member(self, member: int | None) -> None:
        """Show the partition of population ``member`` at the current step (None: knee)."""
        with self.lock:
            self.state.select_member(member)

    def select_run(self, name: str | None) -> None:
        """Show run ``name`` (None: the dataset) at the current step (like "show run")."""
        with self.lock:
            self.state.select_run(name)

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

    # -- rendering the state -------------------------------------------------------------------
    @staticmethod
    def _times(dataset: TemporalDataset | None, result: ClusteringResult | None) -> list[Any]:
        if result is not None:
            return list(result.times)
        return list(dataset.times) if dataset is not None else []

    def _snapshot(self) -> dict[str, Any]:
        state = self.state
        return {name: getattr(state, name) for name in
                ("dataset", "dataset_name", "dataset_params", "runs", "run", "n_done", "step")}

    def _on_state(self, change: dict[str, Any]) -> None:
        state = self.state
        if state.dataset is self._good["dataset"]:
            with self.message.guard("showing the data"):
                self._render()
            return
        # new data: the running fit belongs to the old data; data the views cannot show is refused
        if state.running:
            self.runner.stop()
        try:
            self._render()
        except Exception as exc:  # noqa: BLE001 - shown to the user, previous data kept
            name = state.dataset_name or "the data"
            good = self._good
            self._shown = {}  # some views may show the refused data: redo all
            with state.hold_trait_notifications():
                for key, value in good.items():
                    setattr(state, key, value)
                state.member = None
            self.message.guard("showing the previous data")(self._render)()
            self.message.show_error(exc, f"showing {name} (the data shown is still "
                                         f"{good['dataset_name'] or 'the previous one'})")
            return

    def _render(self, *, force: bool = False) -> None:
        """Make every view show the state; only what changed since the last call is redone.

        ``force`` redraws a grown live run at once (the end of a run);
        otherwise growth is drawn at the rate :attr:`_live` allows.
        """
        with self.lock:
            state, shown = self.state, self._shown
            data, result = state.dataset, state.result
            if (shown.get("dataset") is not data or shown.get("run") != state.run
                    or shown.get("result") is not result):
                self._load(data, result)
            if shown.get("runs") != list(state.runs):
                self._show_runs()
            if shown.get("n") != state.n_done and (force or self._live.ready()):
                with self._live.track():
                    self._grow()
            if shown.get("step") != state.step or shown.get("member") != state.member:
                self._show_step()
            self._good = self._snapshot()  # the last state the views could show

    def _load(self, data: TemporalDataset, result: ClusteringResult | None) -> None:
        """Show ``result`` on ``data`` (None: the data) in every view, at the state's step."""
        state = self.state
        step = state.step
        self.scrubber.set_steps(self._times(data, result)[: max(state.n_done, 1)], value=step)
        for view in (self.pareto, self.alpha, self.sankey):
            if view is not None:
                view.load(result, step=step)
        if self.scores is not None and self._shown.get("dataset") is not data:
            self.scores.load(data, state.runs, step=step)
        self._load_partition_slot(data, result, step)
        self._shown.update(dataset=data, run=state.run, result=result, n=state.n_done,
                           step=step, member=None)
        self._show_runs()

    def _show_runs(self) -> None:
        state = self.state
        options = list(state.runs) or ["(ground truth)"]
        value = state.run if state.run is not None else options[0]
        if list(self.run_choice.options) != options:
            self._choosing = True
            try:
                self.run_choice.options = options
            finally:
                self._choosing = False
        if self.run_choice.value != value:
            self._choosing = True
            try:
                self.run_choice.value = value
            finally:
                self._choosing = False
        if self.scores is not None and self._shown.get("runs") != list(state.runs):
            self.scores.load(state.dataset, state.runs, step=state.step)
        self._shown["runs"] = list(state.runs)

    def _grow(self) -> None:
        """Take in the steps a live run added since the last redraw."""
        state, shown = self.state, self._shown
        following = shown.get("step", 0) >= shown.get("n", 0) - 1
        n = state.n_done
        self.scrubber.set_steps(self._times(state.dataset, state.result)[:n],
                                value=n - 1 if following else state.step)
        for view in (self.partition_view, self.pareto, self.alpha, self.sankey, self.scores):
            if view is not None:
                view.refresh()
        shown["n"] = n
        if following:
            state.set_step(n - 1)  # views then show the newest step

    def _show_step(self) -> None:
        state, shown = self.state, self._shown
        step, member = state.step, state.member
        if self.scrubber.value != step:
            if step > self.scrubber.max:
                self.scrubber.set_steps(self._times(state.dataset, state.result)[: state.n_done],
                                        value=step)
            else:
                self.scrubber.value = step
        if shown.get("step") != step:
            for view in self.views:
                view.show_step(step)
        partition = self.partition_view
        if partition is not None and (member is not None or shown.get("member") is not None
                                      or partition.member is not None):
            partition.show_step(step, member)
        if self.pareto is not None and self.pareto.selected != member:
            self.pareto.select(member)
        shown.update(step=step, member=member)

    def _precompute(self) -> None:
        """Fill the per-step caches of a finished run, so that scrubbing is cheap."""
        if self.partition_view is not None:
            self.partition_view.precompute()
        if self.pareto is not None:
            self.pareto.precompute()

    def _load_partition_slot(self, data: TemporalDataset, result: ClusteringResult | None,
                             step: int) -> None:
        """Show ``data`` in the video view (a video) or the scatter view, creating each once."""
        if not self._with_partition:
            return
        if figures.is_video(data):
            if self.video is None:
                self.video = VideoView(data, result, step=step)
            else:
                self.video.load(data, result, step=step)
            view: W.Widget = self.video
        else:
            if self.partition is None:
                self.partition = PartitionView(data, result, step=step)
            else:
                self.partition.load(data, result, step=step)
            view = self.partition
        children = [child for child in (self.partition, self.video) if child is not None]
        if list(self._slot.children) != children:
            self._slot.children = children
        for child in children:
            child.layout.display = None if child is view else "none"

    # -- the user's actions --------------------------------------------------------------------
    def _on_slider(self, step: int) -> None:
        with self.lock:
            self.state.set_step(step)
            if self.scrubber.value != self.state.step:  # a step not computed yet: back
                self.scrubber.value = self.state.step

    def _on_run_choice(self, change: dict[str, Any]) -> None:
        name = change["new"]
        if getattr(self, "_choosing", False) or name not in self.state.runs:
            return
        with self.lock:
            if name != self.state.run:
                self.state.select_run(name)
                self.state.say("info", f"Showing {name}.", action="switch run")
