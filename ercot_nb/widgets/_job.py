"""One fit of an estimator, step by step, in a background thread (or in the class server's fit pool).

The widgets must stay responsive while a run goes on: the kernel keeps
handling widget messages (scrubbing, Stop) only if the fit does not block
its main thread.  :class:`FitJob` runs one ``fit(dataset, callback=...)``,
reports every finished step to ``on_step`` and the end to ``on_finish``, and
stops cleanly after the current step when asked (the callback returns
``False``; the steps done stay in ``result_``).  In a kernel of
``ercot-nb app --fit-workers`` the fit runs in the server's shared workers
instead (:mod:`ercot_nb.widgets._pool`), with the same reports.  The apps'
queue of fits and their status lines are :mod:`ercot_nb.widgets._runner`'s.
"""
from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from typing import Any

from ..data import TemporalDataset
from ..result import ClusteringResult, StepResult
from ._pool import fit_in_pool, pool_address
from ._state import Status

__all__ = ["FitJob", "supports_step_callback", "supports_preview"]


def supports_step_callback(estimator: Any) -> bool:
    """Whether ``estimator.fit`` accepts ``callback=`` (live steps and Stop).

    Parameters
    ----------
    estimator : object
        Anything with a ``fit`` method.

    Returns
    -------
    bool
    """
    try:
        parameters = inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return False
    return "callback" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def supports_preview(estimator: Any) -> bool:
    """Whether ``estimator.fit`` takes ``preview=`` (a first step while its kernels compile).

    Only an explicit ``preview`` parameter counts: a wrapper's ``**kwargs``
    may hand it to a ``fit`` that does not take it.
    """
    try:
        return "preview" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return False


class FitJob:
    """One fit of one estimator on one dataset.

    Parameters
    ----------
    estimator : object
        An algorithm following the :mod:`ercot_nb.algorithms` contract.
    dataset : TemporalDataset
    on_step : callable, optional
        ``on_step(job, step)`` after each finished step (in the worker
        thread when started with :meth:`start`).  An exception raised here
        ends the run and becomes :attr:`error`.
    on_finish : callable, optional
        ``on_finish(job)`` once, when the run ended for any reason.
    on_preview : callable, optional
        ``on_preview(job, step)`` at most once, before the first step, with
        a provisional step 0 while the estimator's kernels compile (a fresh
        install's first fit, see ``fit(preview=...)``); only for estimators
        whose ``fit`` takes ``preview``.  The run itself is not affected.
    name : str, optional
        Shown in messages; default the estimator's class name.
    on_wait : callable, optional
        ``on_wait(job, place, workers)`` while a class server's fit pool has no
        free worker for the fit (``place`` in its queue), and with ``place``
        None once one took it; only in a kernel of ``ercot-nb app --fit-workers``
        (:mod:`ercot_nb.widgets._pool`), where the fit runs in a shared worker.

    Attributes
    ----------
    state : {"ready", "running", "finished", "stopped", "failed"}
    error : BaseException or None
        What ended a failed run.
    seconds : float
        Wall time of the run so far.
    first_step_seconds : float or None
        Wall time until the first step was reported (it includes compiling
        the kernels on a fresh install); None before it, or without live steps.
    live : bool
        Whether steps are reported as they finish (``fit`` takes
        ``callback``); otherwise they all arrive at the end and :meth:`stop`
        only takes effect then.
    run_name : str or None
        The name of the job's run in the app's state (``"ERCOT #2"``), set
        by the :class:`~ercot_nb.widgets._runner.Runner` when the run enters the state; None before.
    status_before_preview : Status or None
        While the run shows a provisional first step (see :class:`~ercot_nb.widgets._runner.Runner`'s
        ``preview``): the status line before it; None otherwise.
    """

    def __init__(
        self,
        estimator: Any,
        dataset: TemporalDataset,
        *,
        on_step: Callable[[FitJob, StepResult], None] | None = None,
        on_finish: Callable[[FitJob], None] | None = None,
        on_preview: Callable[[FitJob, StepResult], None] | None = None,
        name: str | None = None,
        on_wait: Callable[[FitJob, int | None, int], None] | None = None,
    ) -> None:
        self.estimator = estimator
        self.dataset = dataset
        self.name = name or type(estimator).__name__
        self.on_step = on_step
        self.on_finish = on_finish
        self.on_preview = on_preview if supports_preview(estimator) else None
        self.live = supports_step_callback(estimator)
        self.state = "ready"
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.first_step_seconds: float | None = None
        self.run_name: str | None = None
        self.status_before_preview: Status | None = None
        self.on_wait, self.remote_result = on_wait, None  # remote_result: a pooled fit's, as it grows
        self._started = 0.0
        self._stop_requested = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    # -- control --------------------------------------------------------------------------
    def start(self) -> FitJob:
        """Run in a daemon thread and return at once."""
        self._claim()
        self._thread = threading.Thread(target=self._run, name=f"ercot-nb fit {self.name}", daemon=True)
        self._thread.start()
        return self

    def run(self) -> FitJob:
        """Run in the calling thread and return when the run ended."""
        self._claim()
        self._run()
        return self

    def stop(self) -> None:
        """Ask the run to end after the step in progress (the steps done are kept)."""
        self._stop_requested.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run ended; ``False`` if ``timeout`` seconds passed first."""
        if self.state == "ready":
            return True
        return self._done.wait(timeout)

    # -- state ----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.state == "running"

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested.is_set()

    @property
    def result(self) -> ClusteringResult | None:
        """The estimator's ``result_`` (growing while the run goes on), if any."""
        result = self.remote_result if self.remote_result is not None else getattr(self.estimator, "result_", None)
        return result if isinstance(result, ClusteringResult) else None

    @property
    def seconds_per_step(self) -> float:
        """Wall time per step at the pace the run goes now: after the first step when there are more.

        The first step of a fresh install's first fit includes compiling the
        kernels; the steps after it show the run's own speed.
        """
        first, n_done = self.first_step_seconds, self.n_done
        if first is None or n_done < 2:
            return self.seconds / max(n_done, 1)
        return (self.seconds - first) / (n_done - 1)

    @property
    def n_done(self) -> int:
        result = self.result
        return len(result) if result is not None else 0

    # -- internals -------------------------------------------------------------------------
    def _claim(self) -> None:
        if self.state != "ready":
            raise RuntimeError(f"this job was already started (state {self.state!r})")
        self.state = "running"
        self._started = time.perf_counter()

    def _callback(self, step: StepResult) -> bool:
        self.seconds = time.perf_counter() - self._started
        if self.first_step_seconds is None:
            self.first_step_seconds = self.seconds
        if self.on_step is not None:
            self.on_step(self, step)
        return not self._stop_requested.is_set()

    def _preview(self, step: StepResult) -> None:
        if self.on_preview is not None and not self._stop_requested.is_set():
            self.on_preview(self, step)

    def waiting(self, place: int | None, workers: int) -> None:
        """A pooled fit waits for a free worker, at ``place`` in the queue (None: a worker took it)."""
        self.on_wait and self.on_wait(self, place, workers)

    def _run(self) -> None:
        try:
            if (pool := pool_address()) and fit_in_pool(self, *pool):
                pass  # a class server: the fit ran in its shared workers (see _pool)
            elif self.live and self.on_preview is not None:
                self.estimator.fit(self.dataset, callback=self._callback, preview=self._preview)
            elif self.live:
                self.estimator.fit(self.dataset, callback=self._callback)
            else:
                self.estimator.fit(self.dataset)
            complete = self.n_done >= len(self.dataset)
            self.state = "finished" if complete or not self.stop_requested else "stopped"
        except Exception as exc:  # noqa: BLE001 - handed to on_finish, shown in the UI
            self.error = exc
            self.state = "failed"
        finally:
            self.seconds = time.perf_counter() - self._started
            try:
                if self.on_finish is not None:
                    self.on_finish(self)
            finally:
                self._done.set()
