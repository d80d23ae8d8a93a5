"""Run panel: algorithm, parameters, Run/Stop and a progress bar."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as W

from ... import algorithms
from ...data import TemporalDataset
from ...result import StepResult
from .._job import FitJob
from .._runner import Runner
from .._pace import RateLimit
from .._messages import MessageArea
from .._state import AppState
from ...algorithms import estimator_params
from ._params_form import ParamsForm

__all__ = ["RunPanel", "PRIMARY_PARAMETERS", "algorithm_form", "make_algorithm"]

PRIMARY_PARAMETERS = (
    "n_clusters", "max_clusters", "pop_size", "n_evaluations", "knee", "seed",
    "k", "n_init", "max_iter",
)
"""Parameters shown at the top of the form when an algorithm has them."""

_UI_DEFAULTS = {"seed": 0, "random_state": 0}
_HIDDEN = ("progress", "verbose")

StepListener = Callable[[FitJob, StepResult], None]
FinishListener = Callable[[FitJob], None]


def algorithm_form(name: str) -> ParamsForm:
    """The parameter form of a registered algorithm (main parameters first).

    Parameters
    ----------
    name : str
        One of :func:`ercot_nb.algorithms.available`.

    Returns
    -------
    ParamsForm
    """
    cls = algorithms.get(name)
    return ParamsForm(estimator_params(cls), owner=name, primary=PRIMARY_PARAMETERS,
                      skip=_HIDDEN, defaults=_UI_DEFAULTS)


def make_algorithm(name: str, form: ParamsForm) -> Any:
    """A new estimator ``name`` with the parameters entered in ``form``.

    Progress output is switched off: the widgets show progress themselves.

    Raises
    ------
    ValueError
        For an entry that is not a valid value (the message names it).
    """
    cls = algorithms.get(name)
    values = form.values()
    accepted = inspect.signature(cls).parameters
    values.update({hidden: False for hidden in _HIDDEN if hidden in accepted})
    return cls(**values)


class RunPanel(W.VBox):
    """Choose an algorithm and its parameters, run it, follow and stop it.

    The panel is a control of an app's :class:`~ercot_nb.widgets._state.AppState`:
    Run starts the app's :class:`~ercot_nb.widgets._runner.Runner` on the
    state's dataset, and the answer (started, finished, stopped, failed)
    goes to the state's status line.  Alone (no ``state``) it makes its
    own state, runner and status line.

    Parameters
    ----------
    algorithm : str, default="ERCOT"
        Initial algorithm, one of :func:`ercot_nb.algorithms.available`.
    params : mapping, optional
        Initial parameter values of that algorithm.
    state : AppState, optional
        The app's state; default a new one (set :attr:`dataset`).
    runner : Runner, optional
        The app's runner (on ``state``); default a new one.
    precheck : callable, optional
        ``precheck()`` returns a reason not to run (e.g. the data shown in
        the picker is not the data loaded) or None.

    Attributes
    ----------
    job : FitJob or None
        The current or last run.
    progress_job : FitJob or None
        The fit the progress bar shows: one on the state's dataset (other
        data loaded empties the bar: the run shown there is dropped).
    message : MessageArea
        The status line (shown in the panel only when it has its own state).
    controls : VBox
        Algorithm, Run/Stop and the progress bar: what an app shows first.
    form_box : Box
        The selected algorithm's parameters (an app may show it apart, e.g. in a tab).
    """

    def __init__(self, algorithm: str = "ERCOT", params: Mapping[str, Any] | None = None, *,
                 state: AppState | None = None, runner: Runner | None = None,
                 precheck: Callable[[], str | None] | None = None) -> None:
        super().__init__()
        names = algorithms.available()
        matches = [name for name in names if name.lower() == algorithm.lower()]
        if not matches:
            raise ValueError(f"unknown algorithm {algorithm!r}; available: {', '.join(names)}")
        own = state is None
        self.state = state if state is not None else AppState()
        self.runner = runner if runner is not None else Runner(self.state)
        self.precheck = precheck
        self._forms: dict[str, ParamsForm] = {}
        self._progress_limit = RateLimit(min_interval=0.1, share=0.05)
        self.progress_job: FitJob | None = None
        self.message = MessageArea(self.state)
        self.algorithm = W.Dropdown(
            options=names, value=matches[0], description="algorithm", tooltip="the algorithm Run fits",
            style={"description_width": "120px"}, layout=W.Layout(width="250px"),
        )
        self.run_button = W.Button(description="Run", icon="play", button_style="success",
                                   tooltip="fit the algorithm on the loaded dataset")
        self.stop_button = W.Button(description="Stop", icon="stop", button_style="danger",
                                    disabled=True, tooltip="end after the current step, keeping the steps done")
        self.progress = W.IntProgress(value=0, min=0, max=1, description="steps",
                                      tooltip="steps of the current run fitted so far",
                                      style={"description_width": "50px"}, layout=W.Layout(width="280px"))
        # plain text that wraps (a Label cuts "10/10 · 0.07 s/step (first step 1.8 s)" at its edge)
        self.progress_label = W.HTML("", layout=W.Layout(min_width="0"))
        self.progress_label.add_class("ercot-nb-progress-text")
        self.form_box = W.Box([self._form(matches[0])])
        if params:
            self._forms[matches[0]].set_values(params)
        self.controls = W.VBox([
            self.algorithm,
            W.HBox([self.run_button, self.stop_button]),
            W.HBox([self.progress, self.progress_label],
                   layout=W.Layout(align_items="center", flex_flow="row wrap")),
        ])
        self.children = [self.controls, self.form_box, *([self.message] if own else [])]
        self.algorithm.observe(self._on_algorithm, names="value")
        self.run_button.on_click(self.message.guarded("starting the run")(lambda _: self.run()))
        self.stop_button.on_click(lambda _: self.stop())
        self.runner.on_start(self._started)
        self.runner.on_step(self._step_done)
        self.runner.on_done(self._done)
        self.state.observe(self._on_running, names="running")
        self.state.observe(self._clear_progress, names="dataset")

    # -- forms ------------------------------------------------------------------------------
    def _form(self, name: str) -> ParamsForm:
        if name not in self._forms:
            self._forms[name] = algorithm_form(name)
        return self._forms[name]

    @property
    def form(self) -> ParamsForm:
        """The parameter form of the selected algorithm (entries kept per algorithm)."""
        return self._forms[self.algorithm.value]

    def _on_algorithm(self, change: dict[str, Any]) -> None:
        with self.message.guard(f"preparing {change['new']}"):
            self.form_box.children = [self._form(change["new"])]

    def make_estimator(self) -> Any:
        """A new estimator of the selected algorithm with the entered parameters.

        Raises
        ------
        ValueError
            For an entry that is not a valid value (the message names it).
        """
        return make_algorithm(self.algorithm.value, self.form)

    # -- state ------------------------------------------------------------------------------
    @property
    def dataset(self) -> TemporalDataset | None:
        """The data the next run uses: the state's dataset."""
        return self.state.dataset

    @dataset.setter
    def dataset(self, data: TemporalDataset) -> None:
        self.state.set_dataset(data)

    @property
    def job(self) -> FitJob | None:
        """The current or last fit."""
        return self.runner.job

    @property
    def running(self) -> bool:
        return self.state.running

    # -- listeners (kept for callers of the old panel) -------------------------------------------
    def on_start(self, listener: Callable[[FitJob], None]) -> None:
        """Call ``listener(job)`` when a run starts."""
        self.runner.on_start(listener)

    def on_step(self, listener: StepListener) -> None:
        """Call ``listener(job, step)`` after every finished step (worker thread)."""
        self.runner.on_step(listener)

    def on_finish(self, listener: FinishListener) -> None:
        """Call ``listener(job)`` when a run ends (finished, stopped or failed)."""
        self.runner.on_finish(listener)

    # -- running ---------------------------------------------------------------------------
    def run(self, dataset: TemporalDataset | None = None, *, wait: bool = False) -> FitJob | None:
        """Fit the selected algorithm on the state's dataset.

        Parameters
        ----------
        dataset : TemporalDataset, optional
            Must be the state's dataset if given (kept for older callers).
        wait : bool, default=False
            Run in the calling thread and return when done; by default the
            fit runs in a background thread and this returns at once.

        Returns
        -------
        FitJob or None
            None when nothing was started (a run is going on, the data is
            not loaded, or the parameters are invalid: the status says why).
        """
        with self.runner.lock:
            if self.running:
                self.message.show("A run is already going on; stop it first.", "warning",
                                  action="run")
                return None
            if dataset is not None and dataset is not self.state.dataset:
                self.state.set_dataset(dataset)
            data = self.state.dataset
            problem = self.precheck() if self.precheck is not None else None
            if data is None:
                problem = problem or "Load a dataset first (the Data tab)."
            if problem:
                self.message.show(problem, "warning", action="run")
                return None
            try:
                estimator = self.make_estimator()
            except Exception as exc:  # noqa: BLE001 - shown to the user
                self.message.show_error(exc, f"preparing {self.algorithm.value}")
                return None
            self.message.show(f"{self.algorithm.value} is running on "
                              f"{self.state.dataset_name or data.name or 'the data'}…", "info",
                              action="run")
        return self.runner.start([(self.algorithm.value, estimator)], data, wait=wait)[0]

    def stop(self) -> None:
        """Stop the current run after the step in progress."""
        job = self.job
        if job is None or not self.running:
            return
        self.runner.stop()
        name = self.runner.run_name(job)
        if job.live:
            self.message.show(f"Stopping {name} after the current step…", "warning", action="stop")
        else:
            self.message.show(
                f"{name} reports no steps while it runs, so it stops only when it ends.",
                "warning", action="stop",
            )

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run ended; ``False`` on timeout."""
        return self.runner.wait(timeout)

    # -- runner callbacks (worker thread) ---------------------------------------------------------
    def _clear_progress(self, change: Any = None) -> None:
        """Other data: the bar shows no run (one going on is dropped)."""
        with self.runner.lock:
            self.progress_job = None
            self.progress.value = 0
            self.progress_label.value = ""

    def _started(self, job: FitJob) -> None:
        with self.runner.lock:
            if not self.runner.current(job):
                return
            self.progress_job = job
            self._show_start(job)

    def _show_start(self, job: FitJob) -> None:
        self.progress.max = max(len(job.dataset), 1)
        self.progress.value = 0
        self.progress_label.value = f"0/{len(job.dataset)}"
        self._progress_limit.reset()

    def _step_done(self, job: FitJob, step: StepResult) -> None:
        if self._progress_limit.ready():  # one message per step would cost more than the step
            with self._progress_limit.track():
                self._show_progress(job)

    def _show_progress(self, job: FitJob) -> None:
        if job is not self.progress_job:
            return  # a dropped run (other data) or none
        self.progress.value = job.n_done
        seconds, first = job.seconds_per_step, job.first_step_seconds
        # a first step much slower than the rest compiled the kernels: said apart, not averaged in
        slow_start = f" (first step {first:.3g} s)" if (
            job.n_done >= 2 and first is not None and first > 3 * seconds + 0.5) else ""
        self.progress_label.value = f"{job.n_done}/{len(job.dataset)} · {seconds:.3g} s/step{slow_start}"

    def _done(self, runner: Runner) -> None:
        if runner.job is not None and runner.current(runner.job):
            self._show_progress(runner.job)

    def _on_running(self, change: dict[str, Any]) -> None:
        running = bool(change["new"])
        self.run_button.disabled = running
        self.stop_button.disabled = not running
        self.algorithm.disabled = running
        self.form.disabled = running
        self.progress.bar_style = "info" if running else ""
