"""Explorer: pick data, run an algorithm live, scrub through time, pick front members."""
from __future__ import annotations

import html
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ... import page
from ...data import TemporalDataset
from ...params import check_argument
from ...result import ClusteringResult
from .._fits import Adoption, SeedEnsemble, ensemble_seeds
from .._job import FitJob
from .._runner import Runner
from .._messages import MessageArea, explain
from .._shown import PageShown
from .._state import RUN_NUMBER, AppState, run_number
from ..views.alpha import AlphaView
from ..views.front_ends import front_ends
from ._columns import ViewColumns
from .dataset_picker import DatasetPicker
from .movie_panel import MoviePanel
from ..views.pareto import ParetoView
from ..views.partition_slot import PartitionSlot
from ..views.partition import PartitionView
from .run_panel import RunPanel
from ..views.flows import FlowsView
from ..views.scores import ScoresView
from .scrubber import TimeScrubber
from ..views.video import VideoView

__all__ = ["Explorer", "VIEWS"]

VIEWS = tuple(end.name for end in front_ends())
"""Views an Explorer shows: one per view of ``ercot_nb.figures.VIEWS`` (the registry).

``"partition"`` is the scatter of one step's samples, or for a video
(:func:`ercot_nb.figures.is_video`) the frame and its segmentation side by
side; ``"scores"`` is the registry's scores view (RI, NMI or the label-free scores, a toggle); a registered view without a tuned
widget is shown by :class:`~ercot_nb.widgets.views.registry.RegistryView`
under its key (e.g. ``"sizes"``).  Each is one Plotly figure.
"""

_PANEL = dict(border="1px solid #DDDDDD", padding="6px 10px", margin="0 8px 8px 0")
# the views' column is never narrower than its first view (a 600 px partition, or a 560 px one in
# its panel): where the window (a JupyterLab notebook beside its file browser) leaves less beside
# the side panel, the column wraps below it instead of cutting its figures at the right
_MAIN_MIN_WIDTH = "600px"
_SIDE_WIDTH = "420px"  # a 1280 px laptop keeps 820 px for the views beside it
_VIEWS_WIDTH = 800  # the widest figure in that column (a video's three panels)


def _panel(title: str, body: W.Widget, width: str | None = None) -> W.VBox:
    return W.VBox([W.HTML(f"<b>{html.escape(title)}</b>"), body],
                  layout=W.Layout(width=width, **_PANEL))


class RunChoice(W.Dropdown):
    """"show run": the state's runs, the selected one chosen; choosing one shows it."""

    def __init__(self, state: AppState) -> None:
        super().__init__(options=["(ground truth)"], description="show run",
                         tooltip="the run whose partition, front and weights the views show",
                         style={"description_width": "70px"}, layout=W.Layout(width="400px"))
        self.state = state
        self._setting = False
        state.observe(self._state_changed, names=["runs", "run"])
        self.observe(self._chosen, names="value")
        self._state_changed()

    def _state_changed(self, change: dict[str, Any] | None = None) -> None:
        options = list(self.state.runs) or ["(ground truth)"]
        value = self.state.run if self.state.run is not None else options[0]
        self._setting = True
        try:
            if list(self.options) != options:
                self.options = options
            if self.value != value:
                self.value = value
        finally:
            self._setting = False

    def _chosen(self, change: dict[str, Any]) -> None:
        name, state = change["new"], self.state
        if self._setting or name not in state.runs or name == state.run:
            return
        try:
            with state.lock:
                state.select_run(name)
                state.say("info", f"Showing {name}.", action="switch run")
        except Exception as exc:  # noqa: BLE001 - shown in the status line, logged
            state.status = explain(exc, "switching the run")


class Explorer(W.VBox):
    """The whole app: dataset picker, run panel, time scrubber and linked views.

    Everything shown is one :class:`~ercot_nb.widgets._state.AppState`
    (``state``): the controls change it and every view follows it
    (:meth:`~ercot_nb.widgets.views._base.FigureView.follow`); the Explorer only
    builds the state and lays the views out.
    A run goes on in a background thread (the shared
    :class:`~ercot_nb.widgets._runner.Runner`): views follow the finished steps
    at a rate that keeps redrawing to a small share of the run time, the
    kernel keeps answering the widgets, and Stop ends the run after the
    current step, keeping the steps done (also during "Use this partition
    from here on").  On a fresh install the first fit's kernels compile
    first: meanwhile the run shows a provisional first step computed by the
    NumPy twins (titled ``"<algorithm> (preview)"``, the status line says
    so), which the run's own first step replaces.  Loading other data during a run stops that run and
    drops it: the status line names it and the progress bar empties.  The
    agreement of "How sure?" is drawn on its consensus run only.  Clicking a
    point of the Pareto front shows that member's partition instead of the
    knee's.  Every run on the current
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
    views : sequence of str, optional
        Which views to show, a subset of ``VIEWS``; default every view of
        the registry (a view registered after import too).

    Attributes
    ----------
    picker : DatasetPicker
    run_panel : RunPanel
    scrubber : TimeScrubber
    movie : MoviePanel
        The "Movie" tab: the shown run as a GIF or an MP4 to download.
    partition, pareto, alpha, scores, flows : views (None when not shown)
        The tuned views; every view is also :meth:`view` ``(name)``, e.g.
        ``view("sizes")`` (a :class:`~ercot_nb.widgets.views.registry.RegistryView`).
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
    seeds : BoundedIntText
        How many seeds "How sure?" runs (:meth:`run_seeds`).
    agreements : dict of str to Ensemble
        The seeds' runs of each consensus made by "How sure?", by run name
        (drawn as opacity while that run is shown).

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
        views: Sequence[str] | None = None,
    ) -> None:
        ends = front_ends()
        names = [end.name for end in ends]
        views = names if views is None else list(views)
        unknown = set(views) - set(names)
        if unknown:
            raise ValueError(f"unknown view(s) {sorted(unknown)}; choose from {tuple(names)}")
        super().__init__()
        state = self.state = AppState()
        self.lock = state.lock
        self.runner = Runner(state, preview=True)  # a first partition while kernels compile
        self.message = MessageArea(state)
        # views first: they say which data they cannot show before the picker loads any
        self._ends = [end for end in ends if end.name in views]
        self._views: dict[str, Any] = {end.name: end.make(state) for end in self._ends}
        for name, view in self._views.items():  # a page (and its tests) finds each view by name, in any layout
            view.add_class(f"ercot-nb-view-{name}")
        if hasattr(self._views.get("partition"), "video_options"):  # a video's panels fit the views' column
            self._views["partition"].video_options.setdefault("max_width", _VIEWS_WIDTH)
        self.picker = DatasetPicker(dataset, seed=data_seed, params=data_params, state=state)
        self.run_panel = RunPanel(algorithm, params, state=state, runner=self.runner,
                                  precheck=lambda: self.picker.pending)
        self.scrubber = TimeScrubber().follow(state)
        self.run_choice = RunChoice(state)
        self.runner.on_finish(self._keep_estimator)
        if self.pareto is not None:
            self.pareto.on_use(lambda step, member: self.adopt(step, member))
        if result is not None:
            state.add_run(result.algorithm, result)
            self._precompute()

        header = W.HTML(
            "<b style='font-size:1.15em'>ERCOT explorer</b><details><summary><small>how to use it"
            "</small></summary><small>Pick data, run an algorithm (views update as steps finish), "
            "scrub through time with the slider or Play, and click a point of the Pareto front to "
            "see that partition instead of the knee's.</small></details>"
        )
        self.seeds = W.BoundedIntText(5, min=2, max=50, description="seeds",
                                      tooltip="how many seeds \"Run the seeds\" fits",
                                      style={"description_width": "40px"}, layout=W.Layout(width="110px"))
        sure_button = W.Button(description="Run the seeds", icon="clone",
                               tooltip="Fit the shown run's algorithm with this many seeds and show "
                                       "their consensus", layout=W.Layout(width="130px"))
        sure_button.on_click(lambda _: self.run_seeds())
        sure = W.VBox([W.HBox([self.seeds, sure_button]), W.HTML(
            "<small>Repeats the shown run with other seeds; in their consensus each point's "
            "opacity is the share of runs that agree on its cluster.</small>")])
        # a laptop's first screen: a side panel (algorithm, Run/Stop and progress first, then the
        # forms in tabs, their details behind a click) beside the status line, the time slider
        # and the views; the views wrap, side by side where the window is wide enough
        self.run_panel.children = [self.run_panel.controls]  # its form goes into a tab
        self.movie = MoviePanel(state)
        self.tabs = W.Tab([self.picker, self.run_panel.form_box, sure, self.movie],
                          titles=("Data", "Parameters", "How sure?", "Movie"))
        side = W.VBox([header, _panel("Run", self.run_panel), self.tabs],
                      layout=W.Layout(width=_SIDE_WIDTH, flex="0 0 auto", margin="0 8px 0 0"))
        side.add_class("ercot-nb-side")
        timeline = W.HBox([self.scrubber, self.run_choice],
                          layout=W.Layout(flex_flow="row wrap", align_items="center"))
        # two columns where the window is wide (no blank band under a short view), else one
        layout = W.HBox(layout=W.Layout(flex_flow="row wrap", align_items="flex-start", justify_content="center"))
        self.views_box = ViewColumns([self._views[end.name] for end in self._ends if not end.wide],
                                     [self._views[end.name] for end in self._ends if end.wide],
                                     scope="ercot-nb-explorer-views", fit=(self, layout, int(_SIDE_WIDTH[:-2])))
        state.observe(lambda _: self.views_box.refresh(), names="dataset")  # a video is wider
        main = self.views_box.container(W.VBox([self.message, timeline, self.views_box],
                                               layout=W.Layout(flex="1 1 0", min_width=_MAIN_MIN_WIDTH)))
        main.add_class("ercot-nb-main")
        # says when a page has drawn the Explorer: run(when_shown=True) starts then
        self._shown = PageShown()
        self._run_when_shown = False  # a run(when_shown=True) waits for the page
        # the flow view: a row of its own (100 % wide: never beside the views column)
        wide_row = W.HBox(self.views_box.wide, layout=W.Layout(width="100%", flex_flow="row wrap",
                                                               justify_content="center"))
        layout.children = [side, main, wide_row]
        self.children = [layout, self._shown, self.views_box.style, self.views_box.scaled_height]

    def view(self, name: str) -> Any:
        """The view called ``name`` (see ``VIEWS``), or None when not shown."""
        return self._views.get(name)

    @property
    def _slot(self) -> PartitionSlot | None:
        return self._views.get("partition")

    @property
    def pareto(self) -> ParetoView | None:
        """The Pareto front view."""
        return self._views.get("pareto")

    @property
    def alpha(self) -> AlphaView | None:
        """The smoothness-weight view."""
        return self._views.get("alpha")

    @property
    def scores(self) -> ScoresView | None:
        """The scores view."""
        return self._views.get("scores")

    @property
    def flows(self) -> FlowsView | None:
        """The cluster-flow view (the registered view ``"flows"``)."""
        return self._views.get("flows")

    @property
    def sankey(self) -> FlowsView | None:
        """Deprecated name of :attr:`flows`."""
        warnings.warn("Explorer.sankey is now Explorer.flows (one name per view: the registry's)",
                      DeprecationWarning, stacklevel=2)
        return self.flows

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
    def estimators(self) -> dict[str, Any]:
        """The fitted estimator behind each run made here, by run name (the state's)."""
        return self.state.estimators

    @property
    def agreements(self) -> dict[str, Any]:
        """The seeds' runs of each consensus made by "How sure?", by run name (the state's)."""
        return self.state.agreements

    @property
    def step(self) -> int:
        """The step shown by every view."""
        return self.state.step

    @step.setter
    def step(self, value: int) -> None:
        self.state.set_step(value)

    @property
    def partition(self) -> PartitionView | None:
        """The scatter view (made for the first dataset that is not a video)."""
        return self._slot.partition if self._slot is not None else None

    @property
    def video(self) -> VideoView | None:
        """The video view (made for the first video)."""
        return self._slot.video if self._slot is not None else None

    @property
    def partition_view(self) -> PartitionView | VideoView | None:
        """The view of one step's partition shown: :attr:`video` for a video, else :attr:`partition`."""
        return self._slot.view if self._slot is not None else None

    @property
    def views(self) -> list[Any]:
        """The views shown, in layout order."""
        return [self.partition_view if end.name == "partition" else self._views[end.name]
                for end in self._ends if end.name != "partition" or self.partition_view is not None]

    # -- actions -------------------------------------------------------------------------------
    def run(self, *, wait: bool = False, when_shown: bool = False) -> FitJob | None:
        """Run the selected algorithm on the current dataset (like the Run button).

        Parameters
        ----------
        wait : bool, default=False
            Block until the run ended (in the calling thread).
        when_shown : bool, default=False
            Start the run only once a page has drawn the Explorer (at once if
            one has).  An app notebook served by Voila asks for its first run
            so: the page takes the widgets' states before it opens their
            channels, and a run's updates sent in between would never reach
            it (see ``ercot_nb/widgets/_shown.py``).  Returns None; the
            status line says that the run waits for the page.

        Returns
        -------
        FitJob or None
            None if nothing started (the status line says why), or if the
            run waits for the page.

        Raises
        ------
        ValueError
            If both ``wait`` and ``when_shown`` are asked for.
        """
        if when_shown and wait:
            raise ValueError("Explorer.run: when_shown=True cannot wait (the page that starts the "
                             "run is drawn after the notebook ran); pass one of them")
        if when_shown and not self._shown.shown:
            if not self._run_when_shown:  # asked again before the page came: still one run
                self._run_when_shown = True
                self.message.show(f"{self.run_panel.algorithm.value} starts once the page is drawn…",
                                  "info", action="run")
                self._shown.when_shown(self.run_panel.run)
            return None
        return self.run_panel.run(wait=wait)

    def stop(self) -> None:
        """Stop the run after the current step (like the Stop button)."""
        self.run_panel.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run ended; ``False`` on timeout."""
        return self.runner.wait(timeout)

    def select_member(self, member: int | None) -> None:
        """Show the partition of population ``member`` at the current step (None: knee)."""
        self.state.select_member(member)

    def adopt(self, t: int | None = None, member: int | None = None, *, wait: bool = False) -> FitJob | None:
        """Use population ``member`` of step ``t`` from there on (the "Use this partition" button).

        Continues the run shown from step ``t`` with that member as the
        step's partition (``ERCOT.adopt``: earlier steps unchanged, later
        steps fitted again from it), through the shared runner; the result
        is a new run, shown at step ``t``, and the original run is kept.

        Stop (:meth:`stop`) ends the adoption after the step being fitted
        again, keeping the steps done.

        Parameters
        ----------
        t : int, optional
            Step of the run shown, in ``[0, steps - 1]``; default the current step.
        member : int, optional
            Index into step ``t``'s population; default the member picked on
            the Pareto front.
        wait : bool, default=False
            Block until done.

        Returns
        -------
        FitJob or None
            None when nothing started (the status line says why).

        Raises
        ------
        TypeError
            If ``t`` or ``member`` is not an integer (a bool or ``1.5`` neither).
        ValueError
            If ``t`` or ``member`` is out of range (the message gives the range).
        """
        state = self.state
        t = None if t is None else check_argument("Explorer.adopt", "t", t, "int")
        member = None if member is None else check_argument("Explorer.adopt", "member", member, "int")
        with self.lock:
            name = state.run
            t = state.step if t is None else t
            member = state.member if member is None else member
            estimator = self.estimators.get(name)
            problem = (
                "A run is going on; stop it first." if state.running
                else "Pick a member of the Pareto front first." if member is None
                else f"{name} cannot be continued here (only runs fitted in this app, by an "
                     "algorithm with a population, can)." if estimator is None
                     or not hasattr(estimator, "adopt") else None
            )
            if problem:
                state.say("warning", problem, action="adopt")
                return None
            run = state.runs[name]
            if not 0 <= t < len(run):
                raise ValueError(f"t must be a step of {name}, in [0, {len(run) - 1}], got {t}")
            n_members = len(run[t].population)
            if not 0 <= member < n_members:
                raise ValueError(f"member must be in [0, {n_members - 1}] (step {t}'s population "
                                 f"of {name}), got {member}")
            time = run[t].time
            state.say("info", f"Continuing {name} from member {member} at time {time}…", action="adopt")
        label = (f"{state.runs[name].algorithm} #{RUN_NUMBER} "
                 f"({run_number(name)} with member {member} at time {time})")
        return self.runner.start([(label, Adoption(estimator, t, member))], state.dataset, wait=wait)[0]

    def run_seeds(self, n_seeds: int | None = None, *, wait: bool = False) -> FitJob | None:
        """How sure is the run shown? Fit its algorithm with ``n_seeds`` seeds (the "How sure?" button).

        The shown run's estimator (same parameters) is fitted once per seed,
        with seeds other than its own (:func:`~ercot_nb.widgets._fits.ensemble_seeds`), its adoptions of front
        members repeated (see :class:`~ercot_nb.widgets._fits.SeedEnsemble`), one after another through the shared
        runner; the runs are merged into a consensus partition
        (:func:`ercot_nb.ensemble.consensus`), shown as a new run, and every
        point is drawn with its agreement (the share of runs that put it in
        its consensus cluster) as opacity.  Stop merges the seeds done.

        Parameters
        ----------
        n_seeds : int, optional
            Default the number in the "seeds" box.
        wait : bool, default=False
            Block until done.

        Returns
        -------
        FitJob or None
            None when nothing started (the status line says why).
        """
        state = self.state
        n_seeds = self.seeds.value if n_seeds is None else int(n_seeds)
        with self.lock:
            name = state.run
            estimator = self.estimators.get(name)
            problem = (
                "A run is going on; stop it first." if state.running
                else "Run an algorithm first: the seeds repeat the run shown." if name is None
                else "Agreement is drawn on the scatter of samples, not on a video." if self.partition_view
                is not self.partition or self.partition is None
                else f"{name} cannot be repeated here (only runs fitted in this app, by an algorithm "
                     "with a seed, can)." if estimator is None or "seed" not in estimator.get_params()
                else f"Choose at least 2 seeds (got {n_seeds})." if n_seeds < 2 else None
            )
            if problem:
                state.say("warning", problem, action="how sure")
                return None
            seeds = ensemble_seeds(estimator, n_seeds)
            state.say("info", f"Fitting {name}'s algorithm with seeds {seeds[0]}-{seeds[-1]}…",
                      action="how sure")
        fit = SeedEnsemble(estimator, seeds, should_stop=lambda: self.runner.stop_requested)
        label = f"consensus #{RUN_NUMBER} ({n_seeds} seeds of {run_number(name)})"
        return self.runner.start([(label, fit)], state.dataset, wait=wait)[0]

    def show_agreement(self, ensemble: Any) -> None:
        """Draw every sample with its agreement across ``ensemble``'s runs as opacity (None: off).

        Parameters
        ----------
        ensemble : Ensemble or None
            :func:`ercot_nb.ensemble.ensemble` of runs on the current data,
            e.g. ``ensemble(ERCOT(), explorer.dataset, seeds=range(5))``;
            drawn on the run shown, whenever it is shown (the state keeps
            it with the run, see ``AppState.agreements``), and dropped
            when other data is loaded; None draws the run plainly again.
        """
        self.state.set_agreement(self.state.run, ensemble)

    def _keep_estimator(self, job: FitJob) -> None:
        name = job.run_name
        if name is None or job.state == "failed":
            return
        estimator = job.estimator
        if isinstance(estimator, SeedEnsemble):  # a consensus has no population to continue
            self.state.set_agreement(name, estimator.ensemble)
            return
        self.state.keep_estimator(name, estimator.estimator if isinstance(estimator, Adoption) else estimator)

    def select_run(self, name: str | None) -> None:
        """Show run ``name`` (None: the dataset) at the current step (like "show run")."""
        self.state.select_run(name)

    def static(self) -> list[go.Figure]:
        """Plain Plotly figures of every view as shown (no kernel needed)."""
        return [view.static() for view in self.views]

    def to_html(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the shown run as one offline HTML page (see :func:`ercot_nb.page.write`).

        Raises
        ------
        ValueError
            If no run is shown, or ``path`` exists and ``overwrite`` is false.
        """
        if self.result is None:
            raise ValueError("no run to export yet: run an algorithm first")
        return page.write(self.result, path, self.dataset, overwrite=overwrite)

    def _precompute(self) -> None:
        """Fill the per-step caches of a run given at the start, so that scrubbing is cheap."""
        for view in self.views:
            if hasattr(view, "precompute"):
                view.precompute()
