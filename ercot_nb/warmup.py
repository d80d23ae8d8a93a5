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

import sys
import time

import numpy as np

# Seconds each part took with an empty NUMBA_CACHE_DIR (2-core VM, one thread, otherwise
# idle-equivalent CPU time); the bar's total, so tqdm shows the time left.  A filled cache
# loads in a fraction of this.
_PARTS = (
    ("ERCOT float64", 14.0),
    ("ERCOT float32", 9.0),
    ("staticEC, penaltyEC, fixed clusters", 2.0),
    ("parallel kernels float64", 9.0),
    ("parallel kernels float32", 7.0),
    ("stacking EM", 1.0),
)
ESTIMATED_SECONDS = sum(seconds for _, seconds in _PARTS)


def _parts():
    """(name, estimated seconds, function) of every part of the warm-up."""
    from . import ERCOT, StaticEC, TemporalDataset
    from ._engine import Engine
    from ._stacking import stacking_em
    from .baselines._penalty import PenaltyEC

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

    def parallel(precision: str) -> None:
        threshold, Engine.PARALLEL_WORK = Engine.PARALLEL_WORK, 0
        try:
            ERCOT(precision=precision, **small).fit(data[2])
        finally:
            Engine.PARALLEL_WORK = threshold

    def stacking() -> None:
        stacking_em(rng.normal(size=20), rng.normal(size=20))

    functions = (lambda: fits("float64"), lambda: fits("float32"), others,
                 lambda: parallel("float64"), lambda: parallel("float32"), stacking)
    return [(name, seconds, function) for (name, seconds), function in zip(_PARTS, functions)]


def warm_up(verbose: bool = True) -> float:
    """Run small fits that exercise every kernel; return the seconds it took.

    Parameters
    ----------
    verbose : bool, default=True
        Say how long it will take, show a progress bar and the time it took.
    """
    from ._progress import progress_bar

    started = time.perf_counter()
    if verbose:
        print(f"ercot-nb: compiling the numba kernels into the cache, about {ESTIMATED_SECONDS:.0f} s "
              "of CPU on a laptop (once per install; seconds if the cache is already filled)",
              file=sys.stderr, flush=True)
    bar = progress_bar(total=int(ESTIMATED_SECONDS), desc="warm-up", enabled=verbose)
    try:
        for name, seconds, function in _parts():
            if verbose and hasattr(bar, "set_postfix_str"):
                bar.set_postfix_str(name)
            function()
            bar.update(int(seconds))
    finally:
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
