"""How many cores of this process's CPU set other programs keep busy, now.

The engine runs its parallel kernels only while other programs leave cores
idle (``ercot_nb/evolution/_engine.py``, ``Engine.free_cores``).  The
1-minute load average says so only about a minute late: a program started
during a fit went unnoticed for that long, and the fit's threads shared its
core meanwhile.  :class:`OtherLoad` reads the kernel's CPU counters instead
(``/proc/stat``, Linux): the CPU time the cores of this process's CPU set
spent busy since the previous reading, less this process's own CPU time,
over the wall time between the two readings.  Where the counters are
unavailable it answers None, and the caller falls back to the load average.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["OtherLoad", "cpu_set"]


def cpu_set() -> set[int]:
    """The CPUs this process may run on (all of them where the OS does not say)."""
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return set(range(os.cpu_count() or 1))


def _busy_seconds(stat_text: str, cpus: set[int], ticks_per_second: float) -> float | None:
    """CPU seconds the ``cpus`` spent busy since boot, from the text of ``/proc/stat``."""
    busy = 0
    seen = 0
    for line in stat_text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu":
            continue
        try:
            index = int(name[3:])
            fields = [int(value) for value in rest.split()]
        except ValueError:
            continue
        if index not in cpus or len(fields) < 4:
            continue
        # user nice system idle iowait irq softirq steal guest guest_nice: guest time is
        # already in user and nice; idle and iowait are the idle ones
        counted = fields[:8]
        idle = counted[3] + (counted[4] if len(counted) > 4 else 0)
        busy += sum(counted) - idle
        seen += 1
    return busy / ticks_per_second if seen else None


class OtherLoad:
    """Cores of this process's CPU set that other programs use, from readings of the CPU counters.

    Each call of :meth:`cores` compares the counters with the previous
    reading; readings less than ``min_interval`` seconds apart answer the
    last estimate (counters tick every 10 ms).

    Parameters
    ----------
    stat_path : path, default="/proc/stat"
    min_interval : float, default=0.2
    clock, own_cpu : callable
        Wall clock and this process's CPU seconds (all its threads); for tests.
    """

    def __init__(self, stat_path: str | os.PathLike[str] = "/proc/stat", *, min_interval: float = 0.2,
                 clock: Callable[[], float] = time.monotonic,
                 own_cpu: Callable[[], float] = time.process_time) -> None:
        self.stat_path = Path(stat_path)
        self.min_interval = min_interval
        self.clock = clock
        self.own_cpu = own_cpu
        try:
            self.ticks_per_second = float(os.sysconf("SC_CLK_TCK"))
        except (AttributeError, ValueError, OSError):
            self.ticks_per_second = 100.0
        self._last: tuple[float, float, float] | None = None
        self._estimate: float | None = None

    def _read(self) -> tuple[float, float, float] | None:
        try:
            text = self.stat_path.read_text()
        except OSError:
            return None
        busy = _busy_seconds(text, cpu_set(), self.ticks_per_second)
        return None if busy is None else (self.clock(), busy, self.own_cpu())

    def cores(self) -> float | None:
        """Cores busy with other programs since the previous reading; None before a second reading
        or where the counters cannot be read."""
        if self._last is not None and self.clock() - self._last[0] < self.min_interval:
            return self._estimate
        reading = self._read()
        if reading is None:
            return None
        if self._last is not None:
            wall = reading[0] - self._last[0]
            others = (reading[1] - self._last[1]) - (reading[2] - self._last[2])
            self._estimate = max(0.0, others / wall)
        self._last = reading
        return self._estimate
