"""Compile and cache every numba kernel ahead of first use.

``python -m ercot_nb.warmup`` runs tiny fits that call each kernel with the
dtypes and layouts a real run uses, so the on-disk numba cache is filled
(Binder's ``postBuild`` runs it; a first fit afterwards does not compile).
Set ``NUMBA_CACHE_DIR`` to a writable folder if the package folder is read-only,
and ``NUMBA_CPU_NAME=generic`` at build and run time when the two machines differ.
"""
from __future__ import annotations

import sys
import time

import numpy as np


def warm_up(verbose: bool = True) -> float:
    """Run small fits that exercise every kernel; return the seconds it took."""
    from . import ERCOT, StaticEC, TemporalDataset
    from ._engine import Engine

    started = time.perf_counter()
    rng = np.random.default_rng(0)
    for n_features in (1, 2, 3, 4):
        X = [rng.normal(size=(40, n_features)) for _ in range(2)]
        data = TemporalDataset.from_arrays(X)
        ERCOT(pop_size=10, n_evaluations=20, seed=0).fit(data)
        ERCOT(n_clusters=3, pop_size=10, n_evaluations=20, seed=0).fit(data)
        StaticEC(pop_size=10, n_evaluations=20, seed=0).fit(data[:1])
    # The parallel kernel variants (used for large data on several threads) too.
    threshold, Engine.PARALLEL_WORK = Engine.PARALLEL_WORK, 0
    try:
        ERCOT(pop_size=10, n_evaluations=20, seed=0).fit(data)
    finally:
        Engine.PARALLEL_WORK = threshold
    seconds = time.perf_counter() - started
    if verbose:
        print(f"ercot-nb: numba kernels compiled and cached in {seconds:.1f} s")
    return seconds


if __name__ == "__main__":  # pragma: no cover
    warm_up()
    sys.exit(0)
