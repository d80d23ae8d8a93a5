"""ercot_nb._cpu: the cores other programs keep busy, from the CPU counters (not a minute late)."""
from __future__ import annotations

import os

import pytest

from ercot_nb._cpu import OtherLoad, cpu_set


def stat(busy: dict[int, int], idle: int = 0) -> str:
    """A /proc/stat text: cpu N with ``busy[N]`` ticks of user time."""
    lines = [f"cpu  {sum(busy.values())} 0 0 {idle * len(busy)} 0 0 0 0 0 0"]
    lines += [f"cpu{n} {ticks} 0 0 {idle} 0 0 0 0 0 0" for n, ticks in busy.items()]
    return "\n".join(lines + ["intr 1 2 3", "ctxt 5"]) + "\n"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def two_cpus(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "sysconf", lambda name: 100)


def test_another_program_on_one_core_counts_as_one_core(tmp_path, two_cpus):
    path, clock, own = tmp_path / "stat", Clock(), [0.0]
    path.write_text(stat({0: 1000, 1: 1000, 2: 0}))
    load = OtherLoad(path, clock=clock, own_cpu=lambda: own[0])
    assert load.cores() is None  # one reading: no interval yet
    clock.now += 1.0
    own[0] += 1.0  # this process used one core for the second ...
    path.write_text(stat({0: 1100, 1: 1100, 2: 5000}))  # ... cpu0 and cpu1 were busy; cpu2 is not ours
    assert load.cores() == pytest.approx(1.0)
    clock.now += 0.05  # too soon for the 10 ms counters: the last estimate
    path.write_text(stat({0: 1105, 1: 1100, 2: 5000}))
    assert load.cores() == pytest.approx(1.0)
    clock.now += 0.95
    own[0] += 2.0  # this process alone kept both cores busy
    path.write_text(stat({0: 1200, 1: 1200, 2: 9000}))
    assert load.cores() == pytest.approx(0.0)


def test_no_counters_means_no_answer(tmp_path):
    assert OtherLoad(tmp_path / "missing").cores() is None
    assert cpu_set()


def test_the_counters_of_this_machine_are_read():
    load = OtherLoad(min_interval=0.0)
    assert load.cores() is None  # one reading: no interval yet
    sum(range(200_000))
    if os.path.exists("/proc/stat"):
        assert load.cores() >= 0.0
    else:  # not Linux: no counters, the engine falls back to the load average
        assert load.cores() is None
