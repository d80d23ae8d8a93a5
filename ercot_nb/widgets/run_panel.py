"""Run panel: algorithm, parameters, Run/Stop and a progress bar."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as W

from .. import algorithms
from ..data import TemporalDataset
from ..result import StepResult
from ._job import FitJob
from ._messages import MessageArea
from ._params_form import ParamsForm, param_specs

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
    specs = param_specs(algorithms.get(name), skip=_HIDDEN, defaults=_UI_DEFAULTS)
    return ParamsForm(specs, primary=PRIMARY_PARAMETERS)


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

    Parameters
    ----------
    algorithm : str, default="ERCOT"
        Initial algorithm, one of :func:`ercot_nb.algorithms.available`.
    params : mapping, optional
        Initial parameter values of that algorithm.

    Attributes
    ----------
    job : FitJob or None
        The current or last run.
    dataset : TemporalDataset or None
        The data the next run uses (set by the owner, e.g. the Explorer).
    message : MessageArea
        Status and errors of runs.
    """

    def __init__(self, algorithm: str = "ERCOT", params: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        names = algorithms.available()
        matches = [name for name in names if name.lower() == algorithm.lower()]
        if not matches:
            raise ValueError(f"unknown algorithm {algorithm!r}; available: {', '.join(names)}")
        self.dataset: TemporalDataset | None = None
        self.job: FitJob | None = None
        self._forms: dict[str, ParamsForm] = {}
        self._step_listeners: list[StepListener] = []
        self._finish_listeners: list[FinishListener] = []
        self._start_listeners: list[FinishListener] = []
        self.message = MessageArea()
        self.algorithm = W.Dropdown(
            options=names, value=matches[0], description="algorithm",
            style={"description_width": "120px"}, layout=W.Layout(width="250px"),
        )
        self.run_button = W.Button(description="Run", icon="play", button_style="success",
                                   tooltip="fit the algorithm on the current dataset")
        self.stop_button = W.Button(description="Stop", icon="stop", button_style="danger",
                                    disabled=True, tooltip="end after the current step, keeping the steps done")
        self.progress = W.IntProgress(value=0, min=0, max=1, description="steps",
                                      style={"description_width": "50px"}, layout=W.Layout(width="280px"))
        self.progress_label = W.Label("")
        self._form_box = W.Box([self._form(matches[0])])
        if params:
            self._forms[matches[0]].set_values(params)
        self.children = [
            self.algorithm,
            self._form_box,
            W.HBox([self.run_button, self.stop_button]),
            W.HBox([self.progress, self.progress_label], layout=W.Layout(align_items="center")),
            self.message,
        ]
        self.algorithm.observe(self._on_algorithm, names="value")
        self.run_button.on_click(self.message.guarded("starting the run")(lambda _: self.run()))
        self.stop_button.on_click(lambda _: self.stop())

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
            self._form_box.children = [self._form(change["new"])]

    def make_estimator(self) -> Any:
        """A new estimator of the selected algorithm with the entered parameters.

        Raises
        ------
        ValueError
            For an entry that is not a valid value (the message names it).
        """
        return make_algorithm(self.algorithm.value, self.form)

    # -- listeners -------------------------------------------------------------------------
    def on_start(self, listener: FinishListener) -> None:
        """Call ``listener(job)`` when a run starts."""
        self._start_listeners.append(listener)

    def on_step(self, listener: StepListener) -> None:
        """Call ``listener(job, step)`` after every finished step (worker thread)."""
        self._step_listeners.append(listener)

    def on_finish(self, listener: FinishListener) -> None:
        """Call ``listener(job)`` when a run ends (finished, stopped or failed)."""
        self._finish_listeners.append(listener)

    # -- running ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.job is not None and self.job.running

    def run(self, dataset: TemporalDataset | None = None, *, wait: bool = False) -> FitJob | None:
        """Fit the selected algorithm on ``dataset`` (default: :attr:`dataset`).

        Parameters
        ----------
        dataset : TemporalDataset, optional
        wait : bool, default=False
            Run in the calling thread and return when done; by default the
            fit runs in a background thread and this returns at once.

        Returns
        -------
        FitJob or None
            None when nothing was started (a run is going on, or the
            parameters are invalid: the message says why).
        """
        if self.running:
            self.message.show("A run is already going on; stop it first.", "warning")
            return None
        data = dataset if dataset is not None else self.dataset
        if data is None:
            self.message.show("Load a dataset first.", "warning")
            return None
        with self.message.guard(f"preparing {self.algorithm.value}"):
            estimator = self.make_estimator()
            job = FitJob(estimator, data, on_step=self._step_done, on_finish=self._finished,
                         name=self.algorithm.value)
            for listener in self._start_listeners:
                listener(job)
            self.job = job
            self._set_running(True, len(data))
            self.message.show(f"{job.name} is running on {data.name or 'the data'}…", "info")
            return job.run() if wait else job.start()
        return None

    def stop(self) -> None:
        """Stop the current run after the step in progress."""
        job = self.job
        if job is None or not job.running:
            return
        job.stop()
        if job.live:
            self.message.show(f"Stopping {job.name} after the current step…", "warning")
        else:
            self.message.show(
                f"{job.name} reports no steps while it runs, so it stops only when it ends.",
                "warning",
            )

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run ended; ``False`` on timeout."""
        return True if self.job is None else self.job.wait(timeout)

    # -- job callbacks (worker thread) -----------------------------------------------------------
    def _step_done(self, job: FitJob, step: StepResult) -> None:
        self.progress.value = job.n_done
        self.progress_label.value = f"{job.n_done}/{len(job.dataset)} · {step.seconds:.2f} s/step"
        for listener in self._step_listeners:
            listener(job, step)

    def _finished(self, job: FitJob) -> None:
        self._set_running(False, len(job.dataset))
        self.progress.value = job.n_done
        done = f"{job.n_done} of {len(job.dataset)} steps"
        if job.state == "finished":
            self.message.show(f"{job.name} finished {done} in {job.seconds:.1f} s.", "success")
        elif job.state == "stopped":
            self.message.show(f"{job.name} stopped after {done}; those steps are kept.", "warning")
        else:
            self.message.show_error(job.error or RuntimeError("unknown failure"), f"running {job.name}")
        for listener in self._finish_listeners:
            with self.message.guard("showing the result"):
                listener(job)

    def _set_running(self, running: bool, n_steps: int) -> None:
        self.run_button.disabled = running
        self.stop_button.disabled = not running
        self.algorithm.disabled = running
        self.form.disabled = running
        if running:
            self.progress.max = max(n_steps, 1)
            self.progress.value = 0
            self.progress_label.value = f"0/{n_steps}"
        self.progress.bar_style = "info" if running else ""

