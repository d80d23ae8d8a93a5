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
is serial, and so is most of the smoothness weight, once per step.  Its kernel
over matched pairs (``smoothness_pair_alphas``) has a parallel variant too,
picked by the same policy: within each pair, the rows in fixed blocks of
``SMOOTHNESS_BLOCK`` (4,096) rows (gather, sums, scatters, each step of the
stacking EM) and the cross-validation folds in chunks, each block's partial
sum in its own slot, added in block order, so again the result is identical
for any thread count.  (A variant over matched pairs, measured on 2026-11-27,
was left out: a video_rc step has 2-4 pairs, one of them 91% of the kernel's
time.)  It runs on several threads only where the engine's policy picks it
(work of about 28,000 pair rows at D = 3 and more, free cores): the split
below counts it in ``p`` only when the runs on several threads called it.

Expected scaling (Amdahl): with ``p`` the share of one-thread time spent in
the parts that run on several threads, ``speed-up(n) = 1 / ((1 - p) + p / (n * e(n)))``,
where ``e(n) = (members / n) / ceil(members / n)`` is the load balance of
splitting the members (100 members: e(16) = 0.89); the pair kernel's share is
balanced over the blocks of its largest pair's A_t instead (the EM's blocks:
25-27 on video_rc, e(16) = 0.78-0.84).  This script measures ``p`` at one
thread and prints the expected speed-up beside the measured one.

Measured at one thread on the 2-core development machine (19,200 x 3,
seven clusters): p = 0.90 (float64 and float32), so the expected speed-up at
16 threads is 1 / (0.10 + 0.90 / (16 x 0.89)) = 6.1x: the serial tenth of
a generation, not the kernels, caps the scaling (10x needs p >= 0.97, a
serial share below 3.2%).  The script prints that serial tenth by part
(:data:`PARTS`); on 2026-11-26 (load 13, float64): the rest (knee,
re-initialisation, Python between calls) 4.7%, the smoothness weight's
kernel over matched pairs 2.8%, variation and selection 2.3%.

video_rc (230,400 pixels x 3, ``data[:3]``, 2026-11-27, the same 2-core machine,
one thread, two runs each): before the pair kernel's parallel variant, the
population kernels 94.7-94.8%, the pair kernel 2.1-2.2%, the rest of the
smoothness weight 1.1-1.2%, variation and selection 0.2%, the rest 1.7-1.8%:
p = 0.947, 8.4x expected at 16 threads.  With it (and the centring of the
common samples moved into the pair kernel): population kernels 95.4-95.8%,
pair kernel 2.0-2.1% (now on several threads), the rest of the smoothness
weight 0.3%, variation and selection 0.2%, the rest 1.7-1.9%: p =
0.976-0.978, a serial share of 2.2-2.4%, 10.8-11.0x expected at 16 threads
(the pair kernel balanced over its largest pair's 25 blocks).  Its own
serial parts (grouping the rows by cluster, the two steps' means, adding the
blocks' partials, the EM of pairs under 4 blocks) take a few ms of its
20-55 ms per step.

Run on a many-core machine (the machine's other load is printed: run it idle)::

    NUMBA_NUM_THREADS=16 python -m ercot_nb.bench.threads [video_rc | n_samples]

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
# pseudo-partition, an assign, and its pair kernel) counts in its own part only.  The pair
# kernel runs on several threads where the engine's policy picks its parallel variant (large
# work): thread_scaling counts it in p only if the runs on several threads called that variant.
PAIR_PART = "smoothness weight's pair kernel (several threads: its parallel variant, large work)"
PARTS = (
    ("population kernels (evaluate, re-centre, assign)", "engine", ("evaluate", "recentre", "assign"), True),
    (PAIR_PART, "kernels", ("smoothness_pair_alphas",), True),
    ("smoothness weight, the rest (serial)", "ercot", ("_smoothness_weight",), False),
    ("variation and selection (serial)", "engine", ("offspring", "select"), False),
)
REST = "rest (serial: knee, re-initialisation, Python between calls)"


def _balance(units: int, threads: int) -> float:
    return (units / threads) / math.ceil(units / threads)


def amdahl(p: float, threads: int, members: int = 100, pair_share: float = 0.0, pair_blocks: int = 100) -> float:
    """Expected speed-up at ``threads`` with the share ``p`` of one-thread time on several threads.

    ``pair_share`` of ``p`` (the pair kernel's) is spread over ``pair_blocks``
    blocks, the rest over ``members``.
    """
    spread = (p - pair_share) / (threads * _balance(members, threads))
    spread += pair_share / (threads * _balance(pair_blocks, threads))
    return 1.0 / ((1 - p) + spread)


def serial_share_for(target: float, threads: int, members: int = 100) -> float:
    """Largest serial share of one-thread time that still allows ``target`` speed-up at ``threads``."""
    per_thread = 1.0 / (threads * _balance(members, threads))
    return max(0.0, (1.0 / target - per_thread) / (1.0 - per_thread))


def thread_scaling(n_samples: int = 19_200, threads=(1, 2, 4, 8, 16), repeats: int = 2,
                   precision: str = "float64", data=None) -> list[dict]:
    """Seconds per step of ERCOT on ``seven_blobs(n_samples)`` (or ``data``) at each thread count (interleaved).

    Returns one dict per thread count: ``threads``, ``s_per_step`` (median over
    steps after the first and ``repeats`` fits), ``speed_up`` (over one
    thread), ``expected`` (Amdahl from the one-thread share ``p``), ``p``,
    ``split``: the share of one-thread time of each part of a step
    (:data:`PARTS`, then the rest), median over the one-thread fits,
    ``parallel_parts``: the parts counted in ``p`` (the pair kernel only if
    the runs on several threads called its parallel variant), ``pair_blocks``:
    the blocks of the largest pair's A_t (fewest over the calls), and
    ``expected_16``: Amdahl's speed-up at 16 threads.
    """
    from ..evolution import ERCOT, Engine
    from ..kernels import SMOOTHNESS_BLOCK, get_backend
    from .speed import seven_blobs

    if data is None:
        data = seven_blobs(n_samples=n_samples, n_steps=3)
    available = numba.config.NUMBA_NUM_THREADS
    threads = [n for n in threads if n <= available]
    before = numba.get_num_threads()
    free_cores = Engine.__dict__["free_cores"]
    Engine.free_cores = classmethod(lambda cls: math.inf)  # honour every thread count
    kernels = get_backend("numba")
    owners = {"engine": Engine, "ercot": ERCOT,  # ERCOT._smoothness_weight: the step's one call
              "kernels": kernels}
    times: dict[int, list[float]] = {n: [] for n in threads}
    shares: dict[str, list[float]] = {label: [] for label, *_ in PARTS}
    shares[REST] = []
    pair_blocks: list[int] = []
    parallel_pair_calls = [0]

    def count_parallel(function):
        def counted(*args):
            parallel_pair_calls[0] += 1
            return function(*args)
        return counted

    def record_blocks(function):  # outside the part's timer: its own time falls in the rest
        def recorded(*args):
            codes_curr, pairs = args[1], args[6]
            if len(pairs):
                largest = int(np.bincount(codes_curr)[pairs[:, 0]].max())
                pair_blocks.append(max(1, -(-largest // SMOOTHNESS_BLOCK)))
            return function(*args)
        return recorded

    try:
        ERCOT(seed=0, precision=precision).fit(data[:2])  # compile outside the timing
        for run in range(repeats):
            for n in threads:
                numba.set_num_threads(n)
                spent: dict[str, list[float]] = {label: [] for label, *_ in PARTS}
                originals = [(owners[owner], name, getattr(owners[owner], name))
                             for _, owner, names, _ in PARTS for name in names]
                originals.append((kernels, "smoothness_pair_alphas_parallel", kernels.smoothness_pair_alphas_parallel))
                if n == 1:
                    nested: list[float] = []
                    for label, owner, names, _ in PARTS:
                        for name in names:
                            setattr(owners[owner], name, _timed(getattr(owners[owner], name), spent[label], nested))
                    kernels.smoothness_pair_alphas = record_blocks(kernels.smoothness_pair_alphas)
                else:
                    kernels.smoothness_pair_alphas_parallel = count_parallel(kernels.smoothness_pair_alphas_parallel)
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
    parallel_parts = [label for label, _, _, parallel in PARTS
                      if parallel and (label != PAIR_PART or parallel_pair_calls[0] > 0)]
    p = sum(split[label] for label in parallel_parts)
    pair_share = split[PAIR_PART] if PAIR_PART in parallel_parts else 0.0
    blocks = min(pair_blocks) if pair_blocks else 1
    one = float(np.median(times[threads[0]]))
    members = ERCOT().pop_size
    rows = []
    for n in threads:
        step = float(np.median(times[n]))
        rows.append({"threads": n, "s_per_step": step, "speed_up": one / step,
                     "expected": amdahl(p, n, members, pair_share, blocks), "p": p, "split": split,
                     "parallel_parts": parallel_parts, "pair_blocks": blocks,
                     "expected_16": amdahl(p, 16, members, pair_share, blocks)})
    return rows


def data_of(argument: str | None):
    """``(label, data)`` the script times: a built-in dataset's first 3 steps (``video_rc``), or
    ``seven_blobs`` of that many samples (a number; default 19,200)."""
    from .. import datasets
    from .speed import seven_blobs

    if argument is None or argument.isdigit():
        n_samples = int(argument) if argument else 19_200
        return f"seven blobs {n_samples} x 3", seven_blobs(n_samples=n_samples, n_steps=3)
    if argument not in datasets.available():
        raise ValueError(f"unknown dataset {argument!r}: a number of samples or one of "
                         f"{', '.join(datasets.available())}")
    data = datasets.load(argument, seed=0)[:3]
    return f"{argument} {data[0].X.shape[0]} x {data[0].X.shape[1]}", data


def main(argv=None) -> int:  # pragma: no cover - a manual run on a many-core machine
    argv = sys.argv[1:] if argv is None else argv
    what, data = data_of(argv[0] if argv else None)
    cores = len(cpu_set())
    print(f"cores in this process's CPU set: {cores}, numba threads available: "
          f"{numba.config.NUMBA_NUM_THREADS}, load average before: {os.getloadavg()[0]:.2f}")
    for precision in PRECISIONS:
        rows = thread_scaling(precision=precision, data=data)
        for row in rows:
            print(f"{precision} {what}, {row['threads']:2d} threads: {row['s_per_step']:.4f} s/step, "
                  f"speed-up {row['speed_up']:.2f}x "
                  f"(expected {row['expected']:.2f}x from p = {row['p']:.3f})")
        p = rows[0]["p"]
        print(f"{precision}: one thread's step by part (share of its time; * runs on several threads here):")
        for label, share in rows[0]["split"].items():
            print(f"  {share:6.1%} {'*' if label in rows[0]['parallel_parts'] else ' '} {label}")
        print(f"{precision}: expected at 16 threads {rows[0]['expected_16']:.1f}x (serial share {1 - p:.1%}); "
              f"10x at 16 threads needs a serial share below {serial_share_for(10.0, 16):.1%}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
