"""Spend a bounded share of the time on an action: the pace of live redraws and progress."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["RateLimit"]


class RateLimit:
    """Spend at most about ``share`` of the time on an action (e.g. redrawing live views).

    :meth:`ready` says whether enough time passed since the last action:
    at least ``min_interval`` seconds and ``(1 - share) / share`` times what
    the last action took (measured with :meth:`track`).  A redraw whose cost
    grows with the run (a time line of every step so far) is thus done
    ever more rarely, and the work per finished step stays bounded.

    Parameters
    ----------
    min_interval : float, default=0.25
        Seconds between two actions at least.
    share : float, default=0.2
        Largest share of the time spent on the action.
    """

    def __init__(self, min_interval: float = 0.25, share: float = 0.2) -> None:
        if not 0 < share < 1:
            raise ValueError(f"share must be in (0, 1), got {share}")
        self.min_interval = min_interval
        self.share = share
        self._last_end = -float("inf")
        self._last_cost = 0.0

    def ready(self) -> bool:
        """Whether the action may run now."""
        wait = max(self.min_interval, self._last_cost * (1 - self.share) / self.share)
        return time.perf_counter() - self._last_end >= wait

    def reset(self) -> None:
        """Let the next :meth:`ready` say yes."""
        self._last_end = -float("inf")

    @contextmanager
    def track(self) -> Iterator[None]:
        """Measure the action done inside."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self._last_end = time.perf_counter()
            self._last_cost = self._last_end - started
