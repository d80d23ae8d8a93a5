"""Run an estimator's ``fit`` step by step, in a background thread or in place.

The widgets must stay responsive while a run goes on: the kernel keeps
handling widget messages (scrubbing, Stop) only if the fit does not block
its main thread.  :class:`FitJob` runs ``fit(dataset, callback=...)`` in a
daemon thread, reports every finished step to ``on_step`` and the end to
``on_finish``, and stops cleanly after the current step when asked (the
callback returns ``False``; the steps done stay in ``result_``).
"""
from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from typing import Any

from ..data import TemporalDataset
from ..result import ClusteringResult, StepResult

__all__ = ["FitJob", "supports_step_callback"]


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
    name : str, optional
        Shown in messages; default the estimator's class name.

    Attributes
    ----------
    state : {"ready", "running", "finished", "stopped", "failed"}
    error : BaseException or None
        What ended a failed run.
    seconds : float
        Wall time of the run so far.
    live : bool
        Whether steps are reported as they finish (``fit`` takes
        ``callback``); otherwise they all arrive at the end and :meth:`stop`
        only takes effect then.
    """

    def __init__(
        self,
        estimator: Any,
        dataset: TemporalDataset,
        *,
        on_step: Callable[[FitJob, StepResult], None] | None = None,
        on_finish: Callable[[FitJob], None] | None = None,
        name: str | None = None,
    ) -> None:
        self.estimator = estimator
        self.dataset = dataset
        self.name = name or type(estimator).__name__
        self.on_step = on_step
        self.on_finish = on_finish
        self.live = supports_step_callback(estimator)
        self.state = "ready"
        self.error: BaseException | None = None
        self.seconds = 0.0
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
        result = getattr(self.estimator, "result_", None)
        return result if isinstance(result, ClusteringResult) else None

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
        if self.on_step is not None:
            self.on_step(self, step)
        return not self._stop_requested.is_set()

    def _run(self) -> None:
        try:
            if self.live:
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
