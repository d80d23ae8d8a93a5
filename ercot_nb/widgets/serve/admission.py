"""A queue in front of the app's pages: a class opening the link at once is let in in turn.

Every page of the app starts a kernel that imports the package and runs the app notebook;
on two cores, twenty of them at once starve each other (and Voila's executor then drops
outputs: a blank page).  :class:`Admission` lets at most ``max_starting`` pages start at
once, and at most ``max_kernels`` kernels live; any other page gets a short page that says
its place in the queue and checks again by itself every few seconds, with a ticket (in its
URL) that keeps its place.  Tickets not asked about for ``forget_after`` seconds (a closed
tab) leave the queue.
"""
from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Admission", "Decision", "TICKET_ARG"]

TICKET_ARG = "ercot-nb-ticket"
"""The query argument carrying a waiting page's ticket."""


@dataclass(frozen=True)
class Decision:
    """What to do with one page request.

    Attributes
    ----------
    admitted : bool
        Start its kernel now.
    ticket : str
        Its place in the queue (empty when admitted).
    place : int
        1 for the first in the queue (0 when admitted).
    full : bool
        Waiting because ``max_kernels`` kernels live (not only because others start).
    starting : int
        Pages starting now.
    live : int
        Kernels live now.
    """

    admitted: bool
    ticket: str = ""
    place: int = 0
    full: bool = False
    starting: int = 0
    live: int = 0


class Admission:
    """Who of the waiting pages starts next.

    Parameters
    ----------
    live_kernels : callable
        The number of kernels live now (starting or running, not shutting down).
    max_starting : int
        Most pages starting (kernel start and notebook run) at once; 0: no limit.
    max_kernels : int
        Most kernels live at once; 0: no limit.
    forget_after : float, default=60
        Seconds after which a ticket not asked about leaves the queue.
    clock : callable, default=time.monotonic
    """

    def __init__(self, live_kernels: Callable[[], int], max_starting: int, max_kernels: int,
                 forget_after: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.live_kernels = live_kernels
        self.max_starting = max_starting
        self.max_kernels = max_kernels
        self.forget_after = forget_after
        self.clock = clock
        self.starting = 0
        self._queue: OrderedDict[str, float] = OrderedDict()  # ticket -> when last asked about

    def _free(self) -> tuple[int, bool]:
        """Pages that may start now, and whether the kernel cap is what limits them."""
        free = self.max_starting - self.starting if self.max_starting else 1_000_000
        room = self.max_kernels - max(self.live_kernels(), self.starting) if self.max_kernels else 1_000_000
        return max(0, min(free, room)), room <= 0

    def ask(self, ticket: str | None) -> Decision:
        """Admit the page with ``ticket`` (None: a page just opened) or tell its place.

        An admitted page must call :meth:`done` when its notebook ran (or failed).
        """
        now = self.clock()
        for old, seen in list(self._queue.items()):
            if now - seen > self.forget_after:
                del self._queue[old]
        if ticket not in self._queue:
            ticket = None
        free, full = self._free()
        if ticket is None and not self._queue and free:
            self.starting += 1
            return Decision(True, starting=self.starting, live=self.live_kernels())
        if ticket is None:
            ticket = secrets.token_urlsafe(9)
        self._queue[ticket] = now
        place = list(self._queue).index(ticket) + 1
        if place <= free:
            del self._queue[ticket]
            self.starting += 1
            return Decision(True, starting=self.starting, live=self.live_kernels())
        return Decision(False, ticket, place, full, self.starting, self.live_kernels())

    def done(self) -> None:
        """An admitted page's notebook ran (or failed): one more may start."""
        self.starting = max(0, self.starting - 1)

    def requeue(self, ticket: str | None = None) -> Decision:
        """An admitted page found the kernel cap reached after all: first in the queue again."""
        self.done()
        ticket = ticket or secrets.token_urlsafe(9)
        self._queue[ticket] = self.clock()
        self._queue.move_to_end(ticket, last=False)
        return Decision(False, ticket, 1, True, self.starting, self.live_kernels())

    @property
    def waiting(self) -> int:
        """Pages in the queue now."""
        return len(self._queue)
