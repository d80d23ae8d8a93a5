"""Compile and cache every numba kernel ahead of first use.

``ercot-nb warmup`` (or ``python -m ercot_nb.warmup``) runs tiny fits that
call each kernel with the dtypes and layouts a real run uses, so the on-disk
numba cache is filled and a first fit afterwards does not compile: ERCOT
(free and fixed number of clusters, ``precision="float64"`` and
``"float32"``), staticEC and penaltyEC (what the Explorer and the page run),
the parallel variants for large data on several threads, and the stacking
EM.  It says up front how long it takes and shows a progress bar (tqdm).
Binder's ``postBuild`` runs it.
Set ``NUMBA_CACHE_DIR`` to a writable folder if the package folder is read-only,
and ``NUMBA_CPU_NAME=generic`` at build and run time when the two machines differ.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

from ._cpu import OtherLoad, cpu_set

# Seconds each part took with an empty NUMBA_CACHE_DIR on this project's 2-core machine on
# 2026-11-27 (idle: 31.8 s wall, 45.7 s CPU for the whole warm-up with both processes; the bar
# passed ERCOT float64 at 10 s and float32 at 14 s); the bar's total, so tqdm shows the time left.
# A filled cache loads in a fraction of this.
_PARTS = (
    ("ERCOT float64", 10.0),
    ("ERCOT float32", 4.0),
    ("staticEC, penaltyEC, fixed clusters", 0.5),
    ("stacking EM", 0.5),
)
# The parallel kernel variants (large data on several threads) compile in a second process at
# the same time: they are separate functions with their own cache files, and most of the work.
_PARALLEL_SECONDS = 30.0
_SERIAL_SECONDS = sum(seconds for _, seconds in _PARTS)
FIRST_FIT_SECONDS = _PARTS[0][1]
"""Wall seconds a fresh install's first ERCOT fit spends compiling its kernels: the warm-up's
figure for them (``ERCOT float64`` above, measured with an empty cache on 2 cores); the apps
say it while they show a preview (a busy machine takes longer)."""


def _idle_cores(load: OtherLoad | None = None, look: float = 0.25) -> float:
    """Cores of this process's CPU set that other programs leave idle.

    From the CPU counters over ``look`` seconds (``ercot_nb/_cpu.py``); where
    they cannot be read, from the 1-minute load average, which still counts
    programs that ended up to a minute ago (it made the estimate twice the
    time on an idle machine right after a test run).
    """
    load = OtherLoad() if load is None else load
    load.cores()
    time.sleep(look)
    others = load.cores()
    if others is not None:
        return len(cpu_set()) - others
    try:
        return len(cpu_set()) - os.getloadavg()[0]
    except (AttributeError, OSError):
        return float(len(cpu_set()))


def estimated_seconds(cores: float | None = None) -> float:
    """Wall seconds the warm-up takes with an empty cache on ``cores`` idle cores (default: now)."""
    cores = _idle_cores() if cores is None else cores
    if cores >= 1.5:  # the two processes run side by side
        return max(_SERIAL_SECONDS, _PARALLEL_SECONDS)
    return _SERIAL_SECONDS + _PARALLEL_SECONDS


def _parts():
    """(name, estimated seconds, function) of every serial part of the warm-up."""
    from . import ERCOT, StaticEC, TemporalDataset
    from .baselines import PenaltyEC
    from .kernels import get_backend

    rng = np.random.default_rng(0)
    data = {d: TemporalDataset.from_arrays([rng.normal(size=(40, d)) for _ in range(2)]) for d in (2, 4)}
    small = dict(pop_size=10, n_evaluations=20, seed=0)

    def fits(precision: str) -> None:
        for d in data.values():
            ERCOT(precision=precision, **small).fit(d)

    def others() -> None:
        for d in data.values():
            ERCOT(n_clusters=3, **small).fit(d)
            StaticEC(**small).fit(d[:1])
            PenaltyEC(**small).fit(d)

    def stacking() -> None:
        # the EM loop of the stacking weight (ERCOT's smoothness="stacking")
        get_backend("numba").stacking_em_loop(np.exp(rng.normal(size=20)), 0.5, 1e-10, 100)

    functions = (lambda: fits("float64"), lambda: fits("float32"), others, stacking)
    return [(name, seconds, function) for (name, seconds), function in zip(_PARTS, functions)]


def compile_parallel() -> None:
    """Compile the ``*_parallel`` kernels as ERCOT calls them.

    Only those kernels, so this process writes no cache file the serial part
    writes: the clustering kernels (float64 and float32), by the engine's
    evaluate, re-centre and assign calls with the parallel variants forced,
    on a fixed number of clusters (no repair kernel); and the smoothness
    weight's pair kernel, with the argument types of ``smoothness_weight``'s call.
    """
    from .evolution import PRECISIONS, EAConfig, Engine
    from .kernels import get_backend, pair_alphas_scratch

    rng = np.random.default_rng(0)
    threshold, Engine.PARALLEL_WORK = Engine.PARALLEL_WORK, 0
    try:
        for precision in PRECISIONS:
            config = EAConfig(n_max=3, n_features=2, pop_size=4, n_generations=1, crossover_rate=0.9,
                              mutation_rate_per_gene=0.1, mutation_eta=20.0, fixed_clusters=True,
                              refine=True, separation="active", reseed_empty=False, precision=precision)
            engine = Engine(config)
            X = rng.normal(size=(30, 2))
            lower, upper = engine.bounds(X)
            pop = engine.random_population(rng, 4, lower, upper)
            engine.evaluate(X, pop)
            engine.recentre(X, X.copy(), pop)
            engine.assign(X, pop[0].copy())
    finally:
        Engine.PARALLEL_WORK = threshold
    codes = np.repeat(np.arange(2, dtype=np.int64), 15)
    X = rng.normal(size=(30, 2))
    X.flags.writeable = False  # smoothness_weight hands the kernel read-only views
    get_backend("numba").smoothness_pair_alphas_parallel(
        X, codes, X, codes, X, X, np.array([[0, 0], [1, 1]], dtype=np.int64), np.tile(np.arange(15), 2), 500,
        1e-10, 100, *pair_alphas_scratch(30, 2, 2), np.empty(2))


_PARALLEL_COMMAND = [sys.executable, "-c", "from ercot_nb.warmup import compile_parallel; compile_parallel()"]


def warm_up(verbose: bool = True) -> float:
    """Compile every kernel into the numba cache; return the seconds it took.

    The serial kernels compile in this process (tiny fits of every estimator,
    both precisions), the parallel variants at the same time in a child process.

    Parameters
    ----------
    verbose : bool, default=True
        Say how long it will take, show a progress bar and the time it took.
    """
    from ._progress import progress_bar

    started = time.perf_counter()
    estimate = estimated_seconds()
    if verbose:
        print(f"ercot-nb: compiling the numba kernels into the cache once per install: about "
              f"{estimate:.0f} s here ({_SERIAL_SECONDS + _PARALLEL_SECONDS:.0f} s of CPU in two processes; "
              "seconds if the cache is already filled)",
              file=sys.stderr, flush=True)
    child = subprocess.Popen(_PARALLEL_COMMAND, env=dict(os.environ))
    bar = progress_bar(total=round(_SERIAL_SECONDS + _PARALLEL_SECONDS), desc="warm-up", enabled=verbose)
    try:
        done = 0.0  # estimated seconds done; the bar moves by whole seconds and ends at its total

        def advance(seconds: float) -> None:
            nonlocal done
            done += seconds
            bar.update(round(done) - round(done - seconds))

        for name, seconds, function in _parts():
            if hasattr(bar, "set_postfix_str"):
                bar.set_postfix_str(name)
            function()
            advance(seconds)
        if hasattr(bar, "set_postfix_str"):
            bar.set_postfix_str("parallel kernels")
        if child.wait() != 0:
            raise RuntimeError("ercot-nb warmup: compiling the parallel kernels failed "
                               f"(exit status {child.returncode}); see the messages above")
        advance(_PARALLEL_SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        bar.close()
    elapsed = time.perf_counter() - started
    if verbose:
        print(f"ercot-nb: numba kernels compiled and cached in {elapsed:.1f} s", file=sys.stderr)
    return elapsed


def main() -> int:  # pragma: no cover - the console entry
    warm_up()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
