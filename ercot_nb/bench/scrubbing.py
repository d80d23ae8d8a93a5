"""Benchmark: Python-side time of one scrubber update of the Explorer.

Run ``python -m ercot_nb.bench.scrubbing`` (``--help`` for options).  It fits
ERCOT with a small budget on a 20,000-point dataset (seven drifting 3-D
blobs, shown through PCA, so the partition traces use WebGL), builds an
:class:`~ercot_nb.widgets.Explorer` on the result, then times moving the
scrubber between steps: the widget callbacks, the view updates and the
serialisation of the messages a kernel would send (every widget comm is
replaced by one that JSON-encodes each message, as ``jupyter_client`` does,
and counts the bytes).  Only the socket write and the browser are left out.

It then measures a live run (:func:`live_benchmark`): an Explorer fitting
a 2,000-step dataset of 3 points, the time per finished step around step
100 and around step 2,000, next to the same fit without widgets.

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

__all__ = ["ScrubTiming", "scrub_benchmark", "live_benchmark", "main"]


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
    from . import seven_blobs
    from ..widgets.apps.explorer import Explorer
    from ..widgets.views.partition import PartitionView

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
        timing[f"one scrubber update, all {len(explorer.views)} views (ms)"] = f"median {median:.1f}, p90 {p90:.1f}"
        timing["bytes sent per update"] = f"{sent / 1e3:.0f} kB"
        # a view's show_step moves the app's state (every view follows): the view alone is one made alone
        alone = PartitionView(dataset, result)
        for step in steps:
            alone.show_step(step)
        median, p90, _ = _timed(alone.show_step, steps, repeats)
        timing["partition view alone (ms)"] = f"median {median:.1f}, p90 {p90:.1f}"
    return timing


def live_benchmark(n_steps: int = 2000, n_points: int = 3, window: int = 50,
                   seed: int = 0) -> ScrubTiming:
    """Time per finished step of a live Explorer run, early and late in the run.

    Fits ERCOT with a tiny budget on ``n_steps`` steps of ``n_points``
    samples (the cost of the fit itself is then small, so that the widgets'
    share shows) in an Explorer with every view, and records the wall time
    of every finished step (fit step + the app's work for it).

    Parameters
    ----------
    n_steps : int, default=2000
    n_points : int, default=3
        Samples per step (three points in one 2-D cluster drifting).
    window : int, default=50
        Steps averaged around step 100 and before the last step.
    seed : int, default=0

    Returns
    -------
    ScrubTiming
        Mean milliseconds per finished step around step 100 and at the
        end, the same for the bare fit (no widgets), and their ratio.
    """
    import numpy as np

    from .. import ERCOT
    from ..data import TemporalDataset
    from ..widgets.apps.explorer import Explorer

    rng = np.random.default_rng(seed)
    frames = [rng.normal(0.01 * t, 0.1, size=(n_points, 2)) for t in range(n_steps)]
    dataset = TemporalDataset.from_arrays(frames, name=f"{n_steps} steps of {n_points} points")
    params = dict(pop_size=10, n_evaluations=20, max_clusters=2, seed=seed)

    def per_step(callback_owner: list[float]) -> Callable[[Any], None]:
        def record(step: Any) -> None:
            callback_owner.append(time.perf_counter())
        return record

    bare: list[float] = []
    started = time.perf_counter()
    bare.append(started)
    ERCOT(**params).fit(dataset, callback=per_step(bare))
    timing = ScrubTiming()
    timing["bare fit, whole run (s)"] = round(bare[-1] - started, 2)

    live: list[float] = []
    with _measuring_comms():
        explorer = Explorer(dataset, params=params)
        explorer.run_panel.on_step(lambda job, step: live.append(time.perf_counter()))
        started = time.perf_counter()
        live.append(started)
        job = explorer.run(wait=True)
        ended = time.perf_counter()
    timing["Explorer live run, whole run (s)"] = round(ended - started, 2)
    timing["steps done"] = job.n_done

    def mean_ms(stamps: list[float], around: int) -> float:
        lo, hi = max(around - window // 2, 1), min(around + window // 2, len(stamps) - 1)
        return 1000 * (stamps[hi] - stamps[lo]) / (hi - lo)

    early, late = 100, n_steps - window // 2 - 1
    for label, stamps in (("bare fit", bare), ("Explorer live", live)):
        timing[f"{label}: ms per step at step {early}"] = round(mean_ms(stamps, early), 3)
        timing[f"{label}: ms per step at step {late + 1}"] = round(mean_ms(stamps, late), 3)
    timing["Explorer live: late / early"] = round(
        mean_ms(live, late) / mean_ms(live, early), 2)
    return timing


def main(argv: list[str] | None = None) -> int:
    """Command line: print the timings."""
    parser = argparse.ArgumentParser(prog="python -m ercot_nb.bench.scrubbing",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=20_000, help="samples per step (default 20000)")
    parser.add_argument("--steps", type=int, default=4, help="time steps (default 4)")
    parser.add_argument("--repeats", type=int, default=15, help="passes over the steps (default 15)")
    parser.add_argument("--live-steps", type=int, default=2000,
                        help="steps of the live-run measure (default 2000; 0 skips it)")
    args = parser.parse_args(argv)
    print(scrub_benchmark(args.points, args.steps, args.repeats))
    if args.live_steps:
        print(live_benchmark(args.live_steps))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
