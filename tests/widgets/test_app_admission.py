"""The app server's queue and kernel count: a class opening the link at once.

Admission: at most ``max_starting`` pages start at once and ``max_kernels`` kernels live;
every other page is told its place and keeps it.  CappedKernelManager: a starting kernel
counts once (it used to count twice: refused pages at "25 running" with 18 kernels), and
the culler leaves a starting kernel alone (it logged a TraitError on ``last_activity``).
"""
from __future__ import annotations

import asyncio
import logging

from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
import hypothesis.strategies as st

from ercot_nb.widgets.serve.admission import Admission


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_class_at_once_starts_two_by_two_and_the_others_keep_their_place():
    live = []
    clock = Clock()
    admission = Admission(lambda: len(live), max_starting=2, max_kernels=4, clock=clock)
    first, second = admission.ask(None), admission.ask(None)
    assert first.admitted and second.admitted
    waiting = [admission.ask(None) for _ in range(3)]
    assert [d.place for d in waiting] == [1, 2, 3] and not any(d.admitted or d.full for d in waiting)
    assert admission.ask(waiting[1].ticket).place == 2  # asking again keeps the place
    live += ["k1", "k2"]
    admission.done()  # the first page's notebook ran
    assert admission.ask(waiting[1].ticket).place == 2  # not first: still waits
    assert admission.ask(waiting[0].ticket).admitted
    assert admission.ask(waiting[1].ticket).place == 1
    clock.now += 40
    assert admission.ask(waiting[2].ticket).place == 2  # still asking: keeps its place
    clock.now += 21  # the first in the queue closed its tab 61 s ago: forgotten
    decision = admission.ask(waiting[2].ticket)
    assert decision.place == 1 and decision.ticket == waiting[2].ticket


def test_a_full_server_says_so_and_admits_when_a_kernel_goes():
    live = ["k"] * 3
    admission = Admission(lambda: len(live), max_starting=2, max_kernels=3)
    told = admission.ask(None)
    assert not told.admitted and told.full and told.place == 1 and told.live == 3
    live.pop()
    assert admission.ask(told.ticket).admitted


class QueueMachine(RuleBasedStateMachine):
    """Pages arrive, poll, finish starting and close, in any order."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = Clock()
        self.kernels = 0
        self.admission = Admission(lambda: self.kernels, max_starting=2, max_kernels=5, clock=self.clock)
        self.tickets: list[str] = []  # in the order they were given
        self.started = 0  # admitted pages still starting

    def _ask(self, ticket):
        decision = self.admission.ask(ticket)
        if decision.admitted:
            if ticket in self.tickets:
                assert self.tickets.index(ticket) < 2  # only the first ones of the queue get in
                self.tickets.remove(ticket)
            self.started += 1
            self.kernels += 1
        else:
            assert decision.ticket
            if decision.ticket not in self.tickets:
                self.tickets.append(decision.ticket)
            assert decision.place == self.tickets.index(decision.ticket) + 1

    @rule()
    def a_page_opens(self):
        self._ask(None)

    @precondition(lambda self: self.tickets)
    @rule(data=st.data())
    def a_waiting_page_checks(self, data):
        self._ask(data.draw(st.sampled_from(self.tickets)))

    @precondition(lambda self: self.started)
    @rule()
    def a_page_finished_starting(self):
        self.started -= 1
        self.admission.done()

    @precondition(lambda self: self.kernels > self.started)
    @rule()
    def a_student_closes_the_explorer(self):
        self.kernels -= 1

    @invariant()
    def within_limits(self):
        assert self.admission.starting == self.started <= 2
        assert self.kernels <= 5
        assert self.admission.waiting == len(self.tickets)


TestQueue = QueueMachine.TestCase
TestQueue.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def _fake_start(monkeypatch, release: asyncio.Event):
    """jupyter_server's start, as it behaves: the kernel is listed before the start returns."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager, ServerKernelManager

    async def start_kernel(self, *, kernel_id=None, **kwargs):
        kernel_id = kernel_id or f"k{len(self._kernels)}"
        self._kernels[kernel_id] = ServerKernelManager()  # last_activity not set yet
        await release.wait()
        self._kernels[kernel_id].last_activity = __import__("datetime").datetime.now(
            __import__("datetime").timezone.utc)
        return kernel_id

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start_kernel)


def test_starting_kernels_count_once_at_the_cap(monkeypatch):
    from ercot_nb.widgets.serve.app_server import CappedKernelManager, ServerBusy

    async def scenario():
        release = asyncio.Event()
        _fake_start(monkeypatch, release)
        manager = CappedKernelManager(max_kernels=3)
        starts = [asyncio.ensure_future(manager.start_kernel()) for _ in range(3)]
        await asyncio.sleep(0.01)  # all three listed, none returned
        release.set()
        ids = await asyncio.gather(*starts)  # the old count (listed + starting) refused the third
        assert len(set(ids)) == 3 and manager.live_kernels() == 3
        try:
            await manager.start_kernel()
        except ServerBusy:
            return
        raise AssertionError("a fourth kernel started beyond the cap of 3")

    asyncio.run(scenario())


def test_the_culler_leaves_a_starting_kernel_alone(monkeypatch, caplog):
    from ercot_nb.widgets.serve.app_server import CappedKernelManager

    async def scenario():
        release = asyncio.Event()
        _fake_start(monkeypatch, release)
        manager = CappedKernelManager()
        manager.cull_idle_timeout = 1
        start = asyncio.ensure_future(manager.start_kernel())
        await asyncio.sleep(0.01)
        with caplog.at_level(logging.DEBUG):
            await manager.cull_kernels()
        release.set()
        await start

    asyncio.run(scenario())
    problems = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not problems, problems


def test_a_kernel_whose_page_is_still_loading_is_not_culled(monkeypatch):
    """Under load a page's scripts take minutes; its kernel (started, never connected) was
    culled after --cull-idle and the page stayed blank.  Once connected and left, it is culled."""
    import datetime

    from ercot_nb.widgets.serve.app_server import CappedKernelManager

    async def scenario():
        release = asyncio.Event()
        release.set()
        _fake_start(monkeypatch, release)
        manager = CappedKernelManager()
        manager.cull_idle_timeout = 1
        shut: list[str] = []

        async def shutdown_kernel(kernel_id, *args, **kwargs):
            shut.append(kernel_id)
        monkeypatch.setattr(manager, "shutdown_kernel", shutdown_kernel)
        kernel_id = await manager.start_kernel()
        manager._kernel_connections[kernel_id] = 0
        kernel = manager.get_kernel(kernel_id)
        kernel.execution_state = "idle"
        kernel.last_activity = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=300)
        await manager.cull_kernel_if_idle(kernel_id)
        assert shut == [], "the kernel of a page still loading was culled"
        manager.notify_connect(kernel_id)
        manager.notify_disconnect(kernel_id)  # the page connected, then went away
        await manager.cull_kernel_if_idle(kernel_id)
        assert shut == [kernel_id]

    asyncio.run(scenario())
