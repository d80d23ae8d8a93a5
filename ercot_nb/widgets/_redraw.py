"""Live redraws of a growing run, kept off the fit's thread once they cost something.

The views of a run show every step so far, so a redraw's cost grows with the
run: after thousands of steps one took tens of seconds, and done in the
fit's step callback it held that step as long (a run of 10,000 small steps
stood still for 50-60 s near step 6,500).  :class:`LiveRedraw` redraws in
the fit's thread while a redraw is cheap (each step is shown as it arrives),
and in a thread of its own once the last redraw, scaled to the run's length,
would cost more than :data:`INLINE_REDRAW_SECONDS`: the fit goes on
meanwhile, at the same cost per step early and late.  Both follow the
runner's :class:`~ercot_nb.widgets._pace.RateLimit`.
"""
from __future__ import annotations

import threading
import time

from ._messages import explain
from ._pace import RateLimit
from ._state import AppState

__all__ = ["LiveRedraw", "INLINE_REDRAW_SECONDS"]

INLINE_REDRAW_SECONDS = 0.25
"""Redraws expected to cost more than this run in the drawing thread, not in the fit's."""


class LiveRedraw:
    """Show a growing run's new steps in ``state`` at ``pace`` (see the module docstring).

    Parameters
    ----------
    state : AppState
    lock : threading.RLock
        The state's lock (held while the views redraw).
    pace : RateLimit
    """

    def __init__(self, state: AppState, lock: threading.RLock, pace: RateLimit) -> None:
        self.state, self.lock, self.pace = state, lock, pace
        self._drawn = (0.0, 0)  # seconds of the last redraw, steps it showed
        self._wanted = threading.Event()
        self._name: str | None = None
        self._quit = False
        self._thread: threading.Thread | None = None

    def reset(self) -> None:
        """A new run: its first redraws are cheap again."""
        self._drawn = (0.0, 0)

    def cancel(self) -> None:
        """Drop a redraw asked for (the caller shows the whole run itself)."""
        self._wanted.clear()

    def show(self, name: str, n_done: int) -> None:
        """Redraw here while a redraw is cheap (the last one's cost scaled to ``n_done`` steps), else
        in the drawing thread, apart from the fit (a redraw of all steps held it 50-60 s)."""
        cost, n_drawn = self._drawn
        if cost * n_done / max(n_drawn, 1) > INLINE_REDRAW_SECONDS:
            self.want(name)
        elif self.pace.ready():
            self._grow(name)

    def _grow(self, name: str) -> None:
        started = time.perf_counter()
        with self.pace.track():  # the views redraw inside: their cost sets the pace
            self.state.grow(name)
        self._drawn = (time.perf_counter() - started, len(self.state.runs.get(name, ())))

    def want(self, name: str) -> None:
        """Have the drawing thread show run ``name``'s new steps when the pace allows."""
        self._name = name
        if self._thread is None:  # started at the first redraw
            self._quit = False
            self._thread = threading.Thread(target=self._loop, name="ercot_nb-redraw", daemon=True)
            self._thread.start()
        self._wanted.set()

    def _loop(self) -> None:
        while True:
            self._wanted.wait()
            while not (self._quit or self.pace.ready()):
                time.sleep(0.02)
            self._wanted.clear()
            got = False
            while not (self._quit or got):  # waiting for the lock never blocks the queue's end
                got = self.lock.acquire(timeout=0.05)
            if not got:
                return
            try:
                if self._name in self.state.runs:
                    self._grow(self._name)
            except Exception as exc:  # noqa: BLE001 - shown in the UI
                self.state.status = explain(exc, "showing the run")
            finally:
                self.lock.release()

    def stop(self) -> None:
        """End the drawing thread (after the redraw it may be doing)."""
        self._quit = True
        self._wanted.set()
        drawer, self._thread = self._thread, None
        if drawer is not None and drawer is not threading.current_thread():
            drawer.join()
        self._wanted.clear()
        self._quit = False
