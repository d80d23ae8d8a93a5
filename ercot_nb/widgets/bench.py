"""Benchmark: Python-side time of one scrubber update of the Explorer.

Run ``python -m ercot_nb.widgets.bench`` (``--help`` for options).  It fits
ERCOT with a small budget on a 20,000-point dataset (seven drifting 3-D
blobs, shown through PCA, so the partition traces use WebGL), builds an
:class:`~ercot_nb.widgets.Explorer` on the result, then times moving the
scrubber between steps: the widget callbacks, the view updates and the
serialisation of the messages a kernel would send (every widget comm is
replaced by one that JSON-encodes each message, as ``jupyter_client`` does,
and counts the bytes).  Only the socket write and the browser are left out.

This is a measurement, not a test: nothing here asserts the 50 ms target.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import comm
from comm.base_comm import BaseComm

__all__ = ["ScrubTiming", "scrub_benchmark", "main"]


class _MeasuringComm(BaseComm):
    """A comm that encodes every message like a kernel would, and counts bytes."""

    sent_bytes = 0
    sent_messages = 0

    def publish_msg(self, msg_type: str, data: Any = None, metadata: Any = None,
                    buffers: Any = None, **keys: Any) -> None:
        text = json.dumps({"data": data, "metadata": metadata}, default=str)
        extra = sum(memoryview(buffer).nbytes for buffer in buffers or ())
        _MeasuringComm.sent_bytes += len(text) + extra
        _MeasuringComm.sent_messages += 1


@contextmanager
def _measuring_comms() -> Iterator[None]:
    original = comm.create_comm
    comm.create_comm = _MeasuringComm
    try:
        yield
    finally:
        comm.create_comm = original


class ScrubTiming(dict):
    """Timings in milliseconds (median and 90th percentile) and bytes per update."""

    def __str__(self) -> str:
        lines = [f"{key:<38} {value}" for key, value in self.items()]
        return "\n".join(lines)


def _timed(update: Callable[[int], None], steps: list[int], repeats: int) -> tuple[float, float, float]:
    times = []
    before = _MeasuringComm.sent_bytes
    for _ in range(repeats):
        for step in steps:
            started = time.perf_counter()
            update(step)
            times.append(1000 * (time.perf_counter() - started))
    sent = (_MeasuringComm.sent_bytes - before) / len(times)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))], sent


def scrub_benchmark(n_points: int = 20_000, n_steps: int = 4, repeats: int = 15,
                    seed: int = 0) -> ScrubTiming:
    """Time one scrubber update of an Explorer showing ``n_points`` per step.

    Parameters
    ----------
    n_points : int, default=20000
        Samples per step.
    n_steps : int, default=4
        Time steps (the scrubber cycles through all of them).
    repeats : int, default=15
        Passes over the steps; every update is timed.
    seed : int, default=0

    Returns
    -------
    ScrubTiming
        Median and 90th-percentile milliseconds of one update of the whole
        Explorer and of the partition view alone, bytes sent per update,
        plus set-up times.
    """
    from .. import ERCOT
    from ..bench import seven_blobs
    from .explorer import Explorer

    timing = ScrubTiming()
    dataset = seven_blobs(n_samples=n_points, n_steps=n_steps, seed=seed)
    started = time.perf_counter()
    result = ERCOT(seed=seed, pop_size=20, n_evaluations=40, max_clusters=10).fit(dataset).result_
    timing["fit (s, small budget)"] = round(time.perf_counter() - started, 2)
    with _measuring_comms():
        started = time.perf_counter()
        explorer = Explorer(dataset, result=result)
        timing["build Explorer + precompute (s)"] = round(time.perf_counter() - started, 2)
        timing["points per step"] = n_points
        timing["partition traces"] = explorer.partition.figure.data[0].type
        steps = list(range(n_steps)) + list(range(n_steps - 2, 0, -1))

        def scrub(step: int) -> None:
            explorer.scrubber.value = step

        # warm-up pass: fills the per-step caches, as a first Play-through does
        for step in steps:
            scrub(step)
        median, p90, sent = _timed(scrub, steps, repeats)
        timing["one scrubber update, all 5 views (ms)"] = f"median {median:.1f}, p90 {p90:.1f}"
        timing["bytes sent per update"] = f"{sent / 1e3:.0f} kB"
        median, p90, _ = _timed(explorer.partition.show_step, steps, repeats)
        timing["partition view alone (ms)"] = f"median {median:.1f}, p90 {p90:.1f}"
    return timing


def main(argv: list[str] | None = None) -> int:
    """Command line: print the timings."""
    parser = argparse.ArgumentParser(prog="python -m ercot_nb.widgets.bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=20_000, help="samples per step (default 20000)")
    parser.add_argument("--steps", type=int, default=4, help="time steps (default 4)")
    parser.add_argument("--repeats", type=int, default=15, help="passes over the steps (default 15)")
    args = parser.parse_args(argv)
    print(scrub_benchmark(args.points, args.steps, args.repeats))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
