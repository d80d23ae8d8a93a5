"""The apps' runner: a queue of fits on one dataset, recorded in the app's state and status line.

:class:`Runner` runs a queue of :class:`~ercot_nb.widgets._job.FitJob` on
one dataset in one daemon thread and records them in an
:class:`~ercot_nb.widgets._state.AppState`: the Explorer runs one fit per
Run, Compare one per selected algorithm, with the same code.  It names the
runs, shows a provisional first step while the kernels compile, says in the
status line where a pooled fit waits for a worker, drops the fit when other
data are loaded, and ends with :func:`job_status`.
:class:`~ercot_nb.widgets._pace.RateLimit` keeps the redrawing of live views
to a bounded share of the run time.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..data import TemporalDataset
from ..result import ClusteringResult, StepResult
from ._job import FitJob
from ._messages import PREVIEW_NOTE, explain, preview_note, waiting_status
from ._pace import RateLimit
from ._redraw import LiveRedraw
from ._state import RUN_NUMBER, AppState, Status

__all__ = ["Runner", "job_status", "unnumbered"]


def unnumbered(name: str) -> str:
    """A run name given to :meth:`AppState.add_run` as it reads before the run has its number.

    ``"ERCOT #{n} (#1 with member 4 at time 5)"`` -> ``"ERCOT (#1 with member 4 at time 5)"``:
    a fit that fails or is dropped before its first step never gets a number.
    """
    return name.replace(f" #{RUN_NUMBER}", "").replace(RUN_NUMBER, "").strip()



JobListener = Callable[[FitJob], None]


class Runner:
    """Fits a queue of estimators on one dataset, one after another, in one daemon thread.

    Each fit is a :class:`FitJob`.  Its run enters ``state.runs`` at its
    first finished step (the result object then grows in place); further
    steps call :meth:`AppState.grow` at the rate :attr:`pace` allows, and
    the end of the fit always does, so that the views that redraw a grown
    run spend a bounded share of the run time.  All state changes happen
    under the state's lock.  A fit that fails does not keep the later fits
    of the queue from running (Compare reports each outcome).  Loading
    other data stops the fit going on and drops it: a fit whose dataset is
    no longer the state's is left out of the state, its end does not touch
    the status line, and the status line says that it was dropped (the
    load's own answer, which comes next, gets the note appended).

    Parameters
    ----------
    state : AppState
    lock : threading.RLock, optional
        Default (and best): the state's lock.
    select : bool, default=True
        Show each new run as it starts (the Explorer); Compare shows all
        its runs at once and passes False.
    numbered : bool, default=True
        Name runs ``"<algorithm> #<n>"`` (the Explorer keeps every run);
        otherwise by the algorithm's name (a new run replaces the old).
    preview : bool, default=False
        Show a fit's provisional first step while its kernels compile (a
        fresh install's first fit; see ``fit(preview=...)``): the run enters
        ``state.runs`` under its final name with a one-step result titled
        ``"<algorithm> (preview)"`` and the status line says
        :data:`PREVIEW_NOTE`; the fit's first real step replaces that
        result with the fit's own (the views redraw the real run), and a fit
        that ends with no step takes the preview away again.

    Attributes
    ----------
    jobs : list of FitJob
        The fits of the current or last :meth:`start`.
    job : FitJob or None
        The fit going on, or the last one.
    pace : RateLimit
        How often a growing run is shown (redrawing takes at most a tenth
        of the time: what a time line of every step so far costs grows with
        the run, so it is redrawn ever more rarely).
    """

    def __init__(self, state: AppState, lock: threading.RLock | None = None, *,
                 select: bool = True, numbered: bool = True, preview: bool = False) -> None:
        self.state = state
        self.lock = lock if lock is not None else state.lock
        self.pace = RateLimit(min_interval=0.25, share=0.1)
        self.select = select
        self.numbered = numbered
        self.jobs: list[FitJob] = []
        self.job: FitJob | None = None
        self.preview = preview
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_listeners: list[JobListener] = []
        self._step_listeners: list[Callable[[FitJob, StepResult], None]] = []
        self._finish_listeners: list[JobListener] = []
        self._done_listeners: list[Callable[[Runner], None]] = []
        self._dropped = ""  # the note about a run dropped by a load, until the load's answer has it
        self._drop_note = ""  # the note of the queue going on, once dropped
        self._before_wait: Status | None = None  # the status line before a pooled fit waited for a worker
        self.redraw = LiveRedraw(state, self.lock, self.pace)  # a growing run's views, apart from the fit
        state.observe(self._on_dataset, names="dataset")
        state.observe(self._on_status, names="status")

    # -- listeners ------------------------------------------------------------------------------
    def on_start(self, listener: JobListener) -> None:
        """Call ``listener(job)`` before each fit starts."""
        self._start_listeners.append(listener)

    def on_step(self, listener: Callable[[FitJob, StepResult], None]) -> None:
        """Call ``listener(job, step)`` after each finished step (worker thread, under the lock)."""
        self._step_listeners.append(listener)

    def on_finish(self, listener: JobListener) -> None:
        """Call ``listener(job)`` when a fit ended (finished, stopped or failed)."""
        self._finish_listeners.append(listener)

    def on_done(self, listener: Callable[[Runner], None]) -> None:
        """Call ``listener(runner)`` when the whole queue ended."""
        self._done_listeners.append(listener)

    # -- control --------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether a queue is being run."""
        return self.state.running

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    def start(self, fits: Sequence[tuple[str, Any]], dataset: TemporalDataset, *,
              wait: bool = False) -> list[FitJob]:
        """Fit ``(algorithm name, estimator)`` pairs on ``dataset``, in order.

        Parameters
        ----------
        fits : sequence of (str, estimator)
        dataset : TemporalDataset
        wait : bool, default=False
            Run in the calling thread and return when done.

        Returns
        -------
        list of FitJob

        Raises
        ------
        RuntimeError
            If a queue is already running.
        """
        with self.lock:
            if self.state.running:
                raise RuntimeError("a run is already going on; stop it first")
            on_preview = self._preview_done if self.preview else None
            self.jobs = [FitJob(estimator, dataset, on_step=self._step_done, on_finish=self._finished,
                                on_preview=on_preview, name=name, on_wait=self._waiting)
                         for name, estimator in fits]
            self._stop.clear()
            self._dropped = self._drop_note = ""
            self.state.running = True
        if wait:
            self._run_all()
        else:
            self._thread = threading.Thread(target=self._run_all, name="ercot-nb runner", daemon=True)
            self._thread.start()
        return self.jobs

    def stop(self) -> None:
        """End after the step in progress; fits not started yet are skipped."""
        self._stop.set()
        if self.job is not None:
            self.job.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the queue ended; ``False`` on timeout."""
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def current(self, job: FitJob) -> bool:
        """Whether ``job`` was fitted on the dataset the state shows now."""
        return job.dataset is self.state.dataset

    def run_name(self, job: FitJob) -> str:
        """The name of ``job``'s run in the state, or (no step yet) its name without a number."""
        return job.run_name or unnumbered(job.name)

    def _on_dataset(self, change: dict[str, Any]) -> None:
        self._dropped = ""
        if not self.state.running:
            return
        if self._stop.is_set() and self._drop_note:  # dropped already, still ending its step
            self._dropped = self._drop_note
            return
        self.stop()  # the fit belongs to the data shown before: it is dropped
        old = change.get("old")
        where = f" on {old.name}" if getattr(old, "name", None) else ""
        pending = [job for job in self.jobs if job.state in ("ready", "running")]
        names = [self.run_name(job) for job in pending or self.jobs[-1:]]
        runs = (f"The run of {names[0]}{where} was stopped and dropped: its" if len(names) == 1 else
                f"The runs of {', '.join(names[:-1])} and {names[-1]}{where} were stopped and "
                "dropped: their")
        self._dropped = self._drop_note = f"{runs} steps belong to the data shown before."
        self.state.status = Status("warning", self._dropped, "", "drop run")

    def _on_status(self, change: dict[str, Any]) -> None:
        """Append the note of a dropped run to the answer of the load that dropped it."""
        note, status = self._dropped, change["new"]
        if not note or status.action == "drop run":
            return
        self._dropped = ""
        if status.action == "load dataset" and note not in status.text:
            level = "warning" if status.level in ("", "info", "success") else status.level
            self.state.status = replace(status, level=level, text=f"{status.text} {note}")

    # -- worker -----------------------------------------------------------------------------------
    def _run_all(self) -> None:
        try:
            for job in self.jobs:
                if self._stop.is_set() or not self.current(job):
                    break
                self.job = job
                self.pace.reset()
                self.redraw.reset()
                for listener in self._start_listeners:
                    listener(job)
                job.run()  # a failure is recorded; the fits after it still run
        finally:
            self.redraw.stop()
            with self.lock:
                self.state.running = False
                for listener in self._done_listeners:
                    try:
                        listener(self)
                    except Exception as exc:  # noqa: BLE001 - shown in the UI, logged
                        self.state.status = explain(exc, "showing the result")

    def _waiting(self, job: FitJob, place: int | None, workers: int) -> None:
        """The status line says that a pooled fit waits for a free worker, then what it said before."""
        with self.lock:
            if not self.current(job):
                return
            if place is not None:
                self._before_wait = self._before_wait or self.state.status
                self.state.status = waiting_status(self.run_name(job), place, workers)
            elif self._before_wait is not None:
                self.state.status, self._before_wait = self._before_wait, None

    def previewing(self, job: FitJob) -> bool:
        """Whether ``job``'s run shows its provisional first step (no real step yet)."""
        return job.status_before_preview is not None

    def _preview_done(self, job: FitJob, step: StepResult) -> None:
        """Show ``job``'s provisional step 0 as its run, until the real steps come."""
        with self.lock:
            if not self.current(job) or job.run_name is not None or self._stop.is_set():
                return
            real = job.result
            algorithm = real.algorithm if real is not None else unnumbered(job.name)
            provisional = ClusteringResult(algorithm=f"{algorithm} (preview)",
                                           params=dict(real.params) if real is not None else {})
            provisional.append(step)
            before = self.state.status
            with self.state.hold_trait_notifications():  # the views see the note with the preview
                # the status changes first, so that its line is told before the views redraw
                # (the page draws each as it comes: no "(preview)" title without the note)
                self.state.status = Status("info", PREVIEW_NOTE, "", "run")
                name = self.state.add_run(job.name, provisional, select=self.select,
                                          name=None if self.numbered else job.name)
                self.state.status = Status("info", f"{name}: {PREVIEW_NOTE}", "", "run")
            job.run_name, job.status_before_preview = name, before
        threading.Thread(target=self._tell_compile_time, args=(job, name), daemon=True,
                         name="ercot-nb preview clock").start()

    def _tell_compile_time(self, job: FitJob, name: str, every: float = 1.0) -> None:
        """While ``job`` previews, the status line counts the seconds against the warm-up's estimate."""
        from ..warmup import FIRST_FIT_SECONDS

        while True:
            time.sleep(every)
            with self.lock:
                if not self.previewing(job) or PREVIEW_NOTE not in self.state.status.text:
                    return  # the real steps came, or the user did something else
                self.state.status = Status("info", preview_note(name, time.perf_counter() - job._started,
                                                                FIRST_FIT_SECONDS), "", "run")

    def _end_preview(self, job: FitJob, name: str) -> None:
        """The real steps came: the run is the fit's own result from now on."""
        before, job.status_before_preview = job.status_before_preview, None
        result = job.result
        if result is not None and len(result):
            self.state.replace_run(name, result)
        else:  # ended with no step: the preview goes away with its number
            self.state.drop_run(name)
            job.run_name = None
        if PREVIEW_NOTE in self.state.status.text:
            self.state.status = before

    def _record(self, job: FitJob) -> str | None:
        """The state's name of ``job``'s run, adding the run at its first step."""
        name = job.run_name
        if name is not None and self.previewing(job):
            self._end_preview(job, name)
            name = job.run_name
        if name is None:
            result = job.result
            if result is None or not len(result):
                return None
            name = self.state.add_run(job.name, result, select=self.select,
                                      name=None if self.numbered else job.name)
            job.run_name = name
        return name

    def _step_done(self, job: FitJob, step: StepResult) -> None:
        known = job.run_name is not None and not self.previewing(job)
        if known and not self.lock.acquire(blocking=False):  # busy (a redraw): a shown run's step goes on
            if not self.current(job):
                return job.stop()
            self.redraw.want(job.run_name)
            for listener in self._step_listeners:
                listener(job, step)
            return None
        if known:
            self.lock.release()  # taken again below, re-entrantly
        with self.lock:
            if not self.current(job):
                job.stop()  # the data changed under the run: its steps belong to nothing shown
                return
            known = job.run_name is not None and not self.previewing(job)
            name = self._record(job)
            if name is not None and known:
                self.redraw.show(name, job.n_done)
            for listener in self._step_listeners:
                listener(job, step)

    def _finished(self, job: FitJob) -> None:
        with self.lock:
            if not self.current(job):
                return
            try:
                if self.previewing(job):  # no real step came (failed or stopped at once)
                    self._end_preview(job, job.run_name)
                if job.state != "failed":
                    self.redraw.cancel()  # the whole run is shown below: no live redraw is due
                    known = job.run_name is not None
                    name = self._record(job)  # algorithms without live steps arrive now
                    if name is not None and known:
                        self.state.grow(name)  # the whole run shown
                for listener in self._finish_listeners:
                    listener(job)
            except Exception as exc:  # noqa: BLE001 - shown in the UI, logged
                job.error, job.state = exc, "failed"
            self.state.status = job_status(job, self.run_name(job))


def job_status(job: FitJob, name: str) -> Status:
    """The status line at the end of ``job`` (its run is called ``name``).

    A failure names the run and its cause: ``"Problem running ERCOT (#1 with
    member 4 at time 5): <the error's message>"``.
    """
    done = f"{job.n_done} of {len(job.dataset)} steps"
    if job.state == "finished":
        return Status("success", f"{name} finished {done} in {job.seconds:.1f} s.", "", "run")
    if job.state == "stopped":
        return Status("warning", f"{name} stopped after {done}; those steps are kept.", "", "run")
    failure = explain(job.error or RuntimeError("unknown failure"), f"running {name}")
    return replace(failure, action="run")
