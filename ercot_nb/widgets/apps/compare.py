"""Compare: several algorithms side by side on one dataset, scrubbed together."""
from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as W
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ... import algorithms
from ...data import TemporalDataset
from ...metrics import mean_scores
from ...result import ClusteringResult
from .._runner import Runner
from .._messages import MessageArea, explain
from ._params_form import ParamsForm
from .._state import AppState, Status
from ._columns import SCALES, ScaledHeight, scaled_css
from .dataset_picker import DatasetPicker
from ..views.partition_slot import PartitionSlot
from ..views.partition import PartitionView
from .run_panel import algorithm_form, make_algorithm
from ..views.scores import ScoresView
from .scrubber import TimeScrubber
from ..views.video import VideoView

__all__ = ["Compare", "summary_frame"]

MAX_ALGORITHMS = 4
"""Most algorithms shown at once (each partition view is one Plotly figure)."""

_PANEL = dict(border="1px solid #DDDDDD", padding="6px 10px", margin="0 8px 8px 0")
# the views' column is never narrower than its first view (a 600 px partition, or a 560 px one in
# its panel): where the window (a JupyterLab notebook beside its file browser) leaves less beside
# the side panel, the column wraps below it instead of cutting its figures at the right
_MAIN_MIN_WIDTH = "600px"
_SIDE_WIDTH = "420px"  # a 1280 px laptop keeps 820 px for the partitions beside it
_PARTITION_WIDTH = 372  # two partitions' panels (+30 px each) side by side in those 820 px
_SCORES_WIDTH = 600


def summary_frame(dataset: TemporalDataset, runs: Mapping[str, ClusteringResult]) -> pd.DataFrame:
    """One row per run: steps done, mRI and mNMI (with labels), mean k, seconds per step.

    Parameters
    ----------
    dataset : TemporalDataset
    runs : mapping of str to ClusteringResult
        Runs may have fewer steps than the dataset (scored on those).

    Returns
    -------
    pandas.DataFrame
    """
    rows = []
    for name, run in runs.items():
        row: dict[str, Any] = {"algorithm": name, "steps": f"{len(run)}/{len(dataset)}"}
        if len(run) and dataset.has_labels:
            scores = mean_scores(dataset[: len(run)], run.labels)
            row.update(mRI=scores["mRI"], mNMI=scores["mNMI"])
        row["mean clusters"] = float(np.mean(run.n_clusters)) if len(run) else np.nan
        row["s/step"] = float(np.mean(run.seconds)) if len(run) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


class Compare(W.VBox):
    """Run several registered algorithms on one dataset and compare them step by step.

    Built like :class:`~ercot_nb.widgets.Explorer`: one
    :class:`~ercot_nb.widgets._state.AppState` (dataset, runs by algorithm,
    step, status) that the controls change and the views follow (each
    partition view follows the run of its algorithm), and the same
    :class:`~ercot_nb.widgets._runner.Runner`, here with one fit per selected
    algorithm.  On a fresh install, each fit first shows a preview of its
    first step while its kernels compile, as the Explorer does.

    Parameters
    ----------
    dataset : str or TemporalDataset, default="syn3"
    algorithms : sequence of str, default=("ERCOT", "staticEC")
        Initially selected algorithms (at most ``MAX_ALGORITHMS``).
    params : mapping of str to mapping, optional
        Initial parameters per algorithm, e.g. ``{"ERCOT": {"pop_size": 40}}``.
    data_seed : int, default=0
    data_params : mapping, optional
        Parameters of the initial built-in scenario.

    Attributes
    ----------
    state : AppState
    runner : Runner
    runs : dict of str to ClusteringResult
        Results on the current dataset, by algorithm name.
    partitions : dict of str to PartitionView or VideoView (for video datasets)
    scores : ScoresView
    """

    def __init__(
        self,
        dataset: str | TemporalDataset = "syn3",
        *,
        algorithms: Sequence[str] = ("ERCOT", "staticEC"),  # noqa: A002 - public name
        params: Mapping[str, Mapping[str, Any]] | None = None,
        data_seed: int = 0,
        data_params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        registry = _registry()
        chosen = [self._canonical(name, registry) for name in algorithms]
        if not chosen or len(chosen) > MAX_ALGORITHMS:
            raise ValueError(f"choose 1 to {MAX_ALGORITHMS} algorithms, got {len(chosen)}")
        state = self.state = AppState()
        self.lock = state.lock
        # preview: on a fresh install, each fit's first partition shows while its kernels compile
        self.runner = Runner(state, select=False, numbered=False, preview=True)
        self.message = MessageArea(state)
        self._slots: dict[str, PartitionSlot] = {}
        self._titled_boxes: dict[str, W.VBox] = {}
        self.scores = ScoresView(None, width=_SCORES_WIDTH).follow(state)
        self.picker = DatasetPicker(dataset, seed=data_seed, params=data_params, state=state)
        self._forms: dict[str, ParamsForm] = {}
        for name, values in (params or {}).items():
            self._form(self._canonical(name, registry)).set_values(values)

        self.choice = W.SelectMultiple(options=registry, value=tuple(chosen), rows=min(len(registry), 5),
                                       description="algorithms",
                                       tooltip="the algorithms to run side by side (Ctrl/Shift-click for several)",
                                       style={"description_width": "80px"},
                                       layout=W.Layout(width="260px"))
        self.param_tabs = W.Tab()
        self.run_button = W.Button(description="Run all", icon="play", button_style="success",
                                   tooltip="fit every chosen algorithm on the loaded dataset, one after another")
        self.stop_button = W.Button(description="Stop", icon="stop", button_style="danger", disabled=True,
                                    tooltip="end after the current step, keeping the steps done")
        self.progress = W.IntProgress(value=0, min=0, max=1, description="steps",
                                      tooltip="steps fitted so far",
                                      style={"description_width": "50px"}, layout=W.Layout(width="330px"))
        self.scrubber = TimeScrubber().follow(state)
        # the partitions' boxes are items of the row below (display: contents), beside the scores
        self.views_box = W.HBox(layout=W.Layout(display="contents"))
        self.table = W.HTML()
        self._sync_selection()
        self._show_runs()

        header = W.HTML(
            "<b style='font-size:1.15em'>Compare algorithms</b><br><small>Every selected "
            "algorithm runs on the same data; the slider moves all partitions at once.</small>")
        run = W.VBox([
            self.choice, W.HTML("<small>ctrl/shift-click to pick several</small>"),
            W.HBox([self.run_button, self.stop_button]), self.progress,
        ])
        # a laptop's first screen: a side panel (algorithms, Run/Stop, the forms in tabs) beside
        # the status line, the time slider and the partitions, side by side where there is room
        self.tabs = W.Tab([self.picker, self.param_tabs], titles=("Data", "Parameters"))
        side = W.VBox([header, self._panel("Run", run), self.tabs],
                      layout=W.Layout(width=_SIDE_WIDTH, flex="0 0 auto", margin="0 8px 0 0"))
        side.add_class("ercot-nb-side")
        main = W.VBox([
            self.message, self.scrubber,
            # two partitions side by side on a 1280 px laptop, the scores beside them where
            # the window is wider: one row that wraps, no blank band beside a lone partition
            W.HBox([self.views_box, W.VBox([self.scores, self._panel("Summary", self.table)],
                                           layout=W.Layout(order=str(MAX_ALGORITHMS)))],
                   # centred: one partition per row leaves two narrow margins, not one wide band
                   layout=W.Layout(flex_flow="row wrap", align_items="flex-start", justify_content="center")),
        ], layout=W.Layout(flex="1 1 0", min_width=_MAIN_MIN_WIDTH))
        main.add_class("ercot-nb-main")
        layout = W.HBox([side, main], layout=W.Layout(flex_flow="row wrap", align_items="flex-start"))
        # a little narrower than the side panel beside a partition (JupyterLab beside its file
        # browser on a laptop): drawn at that width, scaled to fit, not the forms above the views;
        # a little narrower than the side panel beside two partitions and the scores (the same at
        # 1920 px): drawn at that width, not with the scores in a row of their own beside a blank
        self.add_class("ercot-nb-compare-root")
        layout.add_class("ercot-nb-compare-layout")
        side_width = int(_SIDE_WIDTH[:-2]) + 8
        natural = side_width + int(_MAIN_MIN_WIDTH[:-2]) + 40
        one_row = side_width + 2 * (_PARTITION_WIDTH + 30) + _SCORES_WIDTH + 40  # Voila at 1920: unscaled
        css = scaled_css(".ercot-nb-compare-root", ".ercot-nb-compare-layout",
                         [(one_row, SCALES[:5]), (natural, SCALES)])
        style = W.HTML(f"<style>{css}</style>", layout=W.Layout(display="none"))
        self.children = [layout, style, ScaledHeight(".ercot-nb-compare-root", ".ercot-nb-compare-layout")]
        self.choice.observe(self.message.guarded("changing the algorithms")(lambda _: self._sync_selection()),
                            names="value")
        self.run_button.on_click(self.message.guarded("starting the runs")(lambda _: self.run()))
        self.stop_button.on_click(lambda _: self.stop())
        state.observe(self.message.guarded("showing the runs")(self._show_runs),
                      names=["dataset", "runs", "revision"])
        state.observe(self._on_running, names="running")
        self.runner.on_done(self._done)

    # -- helpers ---------------------------------------------------------------------------------
    @staticmethod
    def _panel(title: str, body: W.Widget, width: str | None = None) -> W.VBox:
        return W.VBox([W.HTML(f"<b>{html.escape(title)}</b>"), body],
                      layout=W.Layout(width=width, **_PANEL))

    @staticmethod
    def _canonical(name: str, registry: list[str]) -> str:
        for known in registry:
            if known.lower() == name.lower():
                return known
        raise ValueError(f"unknown algorithm {name!r}; available: {', '.join(registry)}")

    def _form(self, name: str) -> ParamsForm:
        if name not in self._forms:
            self._forms[name] = algorithm_form(name)
        return self._forms[name]

    @property
    def dataset(self) -> TemporalDataset:
        return self.state.dataset

    @property
    def runs(self) -> dict[str, ClusteringResult]:
        """Results on the current dataset, by algorithm name."""
        return self.state.runs

    @property
    def selected(self) -> list[str]:
        """The algorithms selected, in registry order."""
        return list(self.choice.value)

    def _sync_selection(self) -> None:
        names = self.selected
        if len(names) > MAX_ALGORITHMS:
            self.message.show(f"Showing the first {MAX_ALGORITHMS} selected algorithms.", "warning",
                              action="choose algorithms")
            names = names[:MAX_ALGORITHMS]
        for name in names:
            if name not in self._slots:
                self._slots[name] = PartitionSlot(
                    self.state, run=name, partition_options=dict(width=_PARTITION_WIDTH, height=400),
                    video_options=dict(truth=False, panel_width=280))
        # a figure's view is hidden, never removed: plotly's front end keeps a removed view
        # listening, and the figure's next trace swap would fail in the page
        boxes = [self._titled(name) for name in self._slots]
        if list(self.views_box.children) != boxes:
            self.views_box.children = boxes
        for name, box in zip(self._slots, boxes):
            box.layout.display = None if name in names else "none"
            box.layout.order = str(names.index(name)) if name in names else None
        self.param_tabs.children = [self._form(name) for name in names]
        self.param_tabs.titles = tuple(names)

    @property
    def partitions(self) -> dict[str, PartitionView | VideoView]:
        """The partition view of each algorithm shown so far (a video view for a video)."""
        return {name: slot.view for name, slot in self._slots.items()}

    def _titled(self, name: str) -> W.Widget:
        if name not in self._titled_boxes:
            self._titled_boxes[name] = W.VBox(
                [W.HTML(f"<b>{html.escape(name)}</b>"), self._slots[name]], layout=W.Layout(**_PANEL)
            )
        return self._titled_boxes[name]

    # -- actions ---------------------------------------------------------------------------------
    def run(self, *, wait: bool = False) -> None:
        """Fit every selected algorithm in turn (in a background thread unless ``wait``)."""
        with self.lock:
            if self.state.running:
                self.message.show("The runs are going on; stop them first.", "warning", action="run")
                return
            names = self.selected[:MAX_ALGORITHMS]
            if not names:
                self.message.show("Select at least one algorithm.", "warning", action="run")
                return
            problem = self.picker.pending
            if problem:
                self.message.show(problem, "warning", action="run")
                return
            try:
                fits = [(name, make_algorithm(name, self._form(name))) for name in names]
            except Exception as exc:  # noqa: BLE001 - shown to the user
                self.message.show_error(exc, "preparing the algorithms")
                return
            data = self.dataset
            self.state.runs = {}  # a new comparison
            self.progress.max = max(len(names) * len(data), 1)
            self.progress.value = 0
            self.message.show(f"Running {', '.join(names)} on "
                              f"{self.state.dataset_name or data.name or 'the data'}…", "info", action="run")
        self.runner.start(fits, data, wait=wait)

    def stop(self) -> None:
        """Stop after the current step; later algorithms do not start."""
        if not self.state.running:
            return
        self.runner.stop()
        self.message.show("Stopping after the current step…", "warning", action="stop")

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the runs ended; ``False`` on timeout."""
        return self.runner.wait(timeout)

    def static(self) -> list[go.Figure]:
        """Plain Plotly figures of the partitions and scores as shown."""
        return [self.partitions[name].static() for name in self.selected[:MAX_ALGORITHMS]] + [
            self.scores.static()
        ]

    # -- state -> progress and summary (worker thread, under the lock) ---------------------------------
    def _done(self, runner: Runner) -> None:
        self._show_progress()
        if not runner.current(runner.jobs[0]) if runner.jobs else True:
            return  # the data changed: the status says so already
        self.state.status = _outcome(runner)

    def _show_progress(self) -> None:
        self.progress.value = sum(job.n_done for job in self.runner.jobs)

    def _show_runs(self, change: dict[str, Any] | None = None) -> None:
        """The progress and the summary table of the runs shown (at the pace of the views)."""
        if self.state.running:
            self._show_progress()
        table = summary_frame(self.dataset, self.runs)
        # algorithm names come from the registry (plugins): escaped by to_html
        self.table.value = (
            table.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep="–", escape=True)
            if len(table) else "<i>no run yet</i>"
        )

    def _on_running(self, change: dict[str, Any]) -> None:
        running = bool(change["new"])
        self.run_button.disabled = running
        self.stop_button.disabled = not running
        self.choice.disabled = running


def _outcome(runner: Runner) -> Status:
    """The status line after a comparison: which algorithms failed (and why), and which finished."""
    ended = [job for job in runner.jobs if job.state in ("finished", "stopped")]
    steps = ", ".join(f"{job.name} {job.n_done}/{len(job.dataset)}" for job in ended)
    finished = [job.name for job in ended if job.state == "finished"]
    failures, details = [], []
    for job in runner.jobs:
        if job.state != "failed":
            continue
        error = job.error or RuntimeError("unknown failure")
        explained = explain(error, f"running {job.name}")  # logs an unexpected error's traceback
        prefix = f"Problem running {job.name}: "
        if explained.text.startswith(prefix):
            failures.append(f"{job.name} failed: {explained.text[len(prefix):]}")
        else:
            failures.append(f"{job.name} failed ({type(error).__name__})")
            details.append(explained.text)
    if failures:
        text = "; ".join(failures) + "."
        text += (f" {' and '.join(finished)} finished" if finished else " No algorithm finished")
        text += f" ({steps} steps)." if ended else "."
        skipped = [job.name for job in runner.jobs if job.state == "ready"]
        if skipped:
            text += f" Not run (stopped): {', '.join(skipped)}."
        return Status("error", text, " ".join(details), "run")
    if runner.stop_requested:
        return Status("warning", f"Stopped; kept {steps or 'no'} steps.", "", "run")
    return Status("success", f"Done: {steps} steps.", "", "run")


def _registry() -> list[str]:
    return algorithms.available()
