"""Thread scaling of one ERCOT fit: seconds per step at 1, 2, 4, 8, 16 numba threads.

How the work splits.  Per generation the engine makes one evaluation and one
re-centring call over the whole population (and the re-initialisation, the
accumulation and the knee add a few more).  Their ``*_parallel`` variants run
a ``prange`` over **population members** (100 by default, one member's pass
over all samples per iteration, dynamic scheduling), and the single-chromosome
``assign_nearest_parallel`` over **blocks of samples**.  Members, not samples,
because a member's pass is independent and its sums stay in one thread: no
reduction across threads, so the result is identical for any thread count,
and 100 members give every thread several iterations up to 16-32 threads.
Everything else of a generation (tournament, crossover, mutation, repair,
non-dominated sort, crowding, the random draws and the Python between calls)
is serial, and so is the smoothness weight, once per step.  A parallel
variant of its kernel, over matched pairs, was built and measured on
2026-11-27 and left out: its parallelism is bounded by the pairs, and a
video_rc step has 2 matched pairs, one of them 91% of the kernel's time
(1.10x at most, 0.98x measured on 2 threads; 8.6-8.7x against 8.5-8.6x
expected at 16 threads), while it added about 7 s of CPU to the warm-up.

Expected scaling (Amdahl): with ``p`` the share of one-thread time spent in
the population kernels, ``speed-up(n) = 1 / ((1 - p) + p / (n * e(n)))``,
where ``e(n) = (members / n) / ceil(members / n)`` is the load balance of
splitting the members (100 members: e(16) = 0.89).  This script measures ``p``
at one thread and prints the expected speed-up beside the measured one.

Measured at one thread on the 2-core development machine (19,200 x 3,
seven clusters): p = 0.90 (float64 and float32), so the expected speed-up at
16 threads is 1 / (0.10 + 0.90 / (16 x 0.89)) = 6.1x: the serial tenth of
a generation, not the kernels, caps the scaling (10x needs p >= 0.97, a
serial share below 3.2%).  The script prints that serial tenth by part
(:data:`PARTS`); on 2026-11-26 (load 13, float64): the rest (knee,
re-initialisation, Python between calls) 4.7%, the smoothness weight's
kernel over matched pairs 2.8%, variation and selection 2.3%.

Run on a many-core machine (the machine's other load is printed: run it idle)::

    NUMBA_NUM_THREADS=16 python -m ercot_nb.bench.threads [n_samples]

The engine's busy-machine rule (``Engine.free_cores``) is switched off here,
so each thread count is honoured whatever the load.
"""
from __future__ import annotations

import math
import os
import sys
import time

import numba
import numpy as np

from .._cpu import cpu_set
from ..evolution import PRECISIONS


def _timed(function, spent: list, nested: list):
    """``function``, adding its own time to ``spent``: less that of the timed calls inside it
    (``nested``, a stack shared by all timed functions)."""
    def timed(*args, **kwargs):
        nested.append(0.0)
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - started
            spent.append(elapsed - nested.pop())
            if nested:
                nested[-1] += elapsed
    return timed


# What one thread spends a step on, by part: (label, owner, attribute, runs on several threads).
# Each part counts its own time: a timed call inside another (the smoothness weight's
# pseudo-partition, an assign, and its pair kernel) counts in its own part only.
PARTS = (
    ("population kernels (evaluate, re-centre, assign)", "engine", ("evaluate", "recentre", "assign"), True),
    ("smoothness weight's kernel over matched pairs (serial)", "kernels", ("smoothness_pair_alphas",), False),
    ("smoothness weight, the rest (serial)", "ercot", ("_smoothness_weight",), False),
    ("variation and selection (serial)", "engine", ("offspring", "select"), False),
)
REST = "rest (serial: knee, re-initialisation, Python between calls)"


def amdahl(p: float, threads: int, members: int = 100) -> float:
    """Expected speed-up at ``threads`` with the share ``p`` of one-thread time spread over members."""
    balance = (members / threads) / math.ceil(members / threads)
    return 1.0 / ((1 - p) + p / (threads * balance))


def serial_share_for(target: float, threads: int, members: int = 100) -> float:
    """Largest serial share of one-thread time that still allows ``target`` speed-up at ``threads``."""
    balance = (members / threads) / math.ceil(members / threads)
    per_thread = 1.0 / (threads * balance)
    return max(0.0, (1.0 / target - per_thread) / (1.0 - per_thread))


def thread_scaling(n_samples: int = 19_200, threads=(1, 2, 4, 8, 16), repeats: int = 2,
                   precision: str = "float64", data=None) -> list[dict]:
    """Seconds per step of ERCOT on ``seven_blobs(n_samples)`` (or ``data``) at each thread count (interleaved).

    Returns one dict per thread count: ``threads``, ``s_per_step`` (median over
    steps after the first and ``repeats`` fits), ``speed_up`` (over one
    thread), ``expected`` (Amdahl from the one-thread kernel share ``p``), ``p``
    and ``split``: the share of one-thread time of each part of a step
    (:data:`PARTS`, then the rest), median over the one-thread fits.
    """
    from ..evolution import Engine
    from ..evolution import ERCOT
    from ..kernels import get_backend
    from .speed import seven_blobs

    if data is None:
        data = seven_blobs(n_samples=n_samples, n_steps=3)
    available = numba.config.NUMBA_NUM_THREADS
    threads = [n for n in threads if n <= available]
    before = numba.get_num_threads()
    free_cores = Engine.__dict__["free_cores"]
    Engine.free_cores = classmethod(lambda cls: math.inf)  # honour every thread count
    owners = {"engine": Engine, "ercot": ERCOT,  # ERCOT._smoothness_weight: the step's one call
              "kernels": get_backend("numba")}
    times: dict[int, list[float]] = {n: [] for n in threads}
    shares: dict[str, list[float]] = {label: [] for label, *_ in PARTS}
    shares[REST] = []
    try:
        ERCOT(seed=0, precision=precision).fit(data[:2])  # compile outside the timing
        for run in range(repeats):
            for n in threads:
                numba.set_num_threads(n)
                spent: dict[str, list[float]] = {label: [] for label, *_ in PARTS}
                originals = [(owners[owner], name, getattr(owners[owner], name))
                             for _, owner, names, _ in PARTS for name in names]
                if n == 1:
                    nested: list[float] = []
                    for label, owner, names, _ in PARTS:
                        for name in names:
                            setattr(owners[owner], name, _timed(getattr(owners[owner], name), spent[label], nested))
                try:
                    model = ERCOT(seed=run, precision=precision).fit(data)
                finally:
                    for owner, name, function in originals:
                        setattr(owner, name, function)
                seconds = np.asarray(model.result_.seconds)
                times[n].extend(seconds[1:])
                if n == 1:
                    total = float(seconds.sum())
                    for label in spent:
                        shares[label].append(sum(spent[label]) / total)
                    shares[REST].append(1.0 - sum(sum(v) for v in spent.values()) / total)
    finally:
        numba.set_num_threads(before)
        Engine.free_cores = free_cores
    split = {label: float(np.median(values)) for label, values in shares.items()}
    p = sum(split[label] for label, _, _, parallel in PARTS if parallel)
    one = float(np.median(times[threads[0]]))
    members = ERCOT().pop_size
    rows = []
    for n in threads:
        step = float(np.median(times[n]))
        rows.append({"threads": n, "s_per_step": step, "speed_up": one / step,
                     "expected": amdahl(p, n, members), "p": p, "split": split})
    return rows


def main(argv=None) -> int:  # pragma: no cover - a manual run on a many-core machine
    argv = sys.argv[1:] if argv is None else argv
    n_samples = int(argv[0]) if argv else 19_200
    cores = len(cpu_set())
    print(f"cores in this process's CPU set: {cores}, numba threads available: "
          f"{numba.config.NUMBA_NUM_THREADS}, load average before: {os.getloadavg()[0]:.2f}")
    for precision in PRECISIONS:
        rows = thread_scaling(n_samples, precision=precision)
        for row in rows:
            print(f"{precision} {n_samples} x 3, {row['threads']:2d} threads: {row['s_per_step']:.4f} s/step, "
                  f"speed-up {row['speed_up']:.2f}x "
                  f"(expected {row['expected']:.2f}x from p = {row['p']:.3f})")
        p = rows[0]["p"]
        print(f"{precision}: one thread's step by part (share of its time; only the first runs on several threads):")
        for label, share in rows[0]["split"].items():
            print(f"  {share:6.1%}  {label}")
        print(f"{precision}: expected at 16 threads {amdahl(p, 16):.1f}x (serial share {1 - p:.1%}); "
              f"10x at 16 threads needs a serial share below {serial_share_for(10.0, 16):.1%}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
