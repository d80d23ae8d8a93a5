"""Speed ratios measured in one run: ERCOT vs k-means and NSGA-II, cold vs warm start, busy core.

Each ratio compares two things timed in the same process (or in child
processes started from it), interleaved A B A B ... and summarised by
medians, so that a shared or throttled machine shifts both sides alike:

* ``kmeans``: ERCOT seconds per step (steps after the first) over
  scikit-learn ``KMeans(n_init=10)`` with the true number of clusters on the
  same snapshots (``None`` without scikit-learn);
* ``pymoo``: ERCOT seconds per step over pymoo's NSGA-II (population 100,
  1000 evaluations) minimising the same two objectives with ERCOT's own
  evaluation kernel (``None`` without pymoo);
* ``cold_warm``: CPU seconds of ``import + first fit`` in a fresh process
  with an empty numba cache over the same with the cache filled;
* ``busy_core``: ERCOT seconds per step with numba's default threads over
  one thread while another process spins on one core;
* ``kernel_ns_per_pair``: nanoseconds per (sample, active centroid) pair of
  the serial evaluation and re-centring kernels on a fitted population
  (not a ratio: the cost of each nearest-centroid pass, which the ratios
  above multiply).

Only the public API and the kernel backend are used, so this file also runs
as a script against another checkout (``PYTHONPATH=<tree> python ratios.py``).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


def _step_seconds(model) -> np.ndarray:
    seconds = np.asarray(model.result_.seconds, dtype=float)
    return seconds[1:] if len(seconds) > 1 else seconds


def kmeans_ratio(dataset, n_clusters: int, repeats: int = 3, seed: int = 0,
                 precision: str = "float64") -> dict | None:
    """Median ERCOT s/step and KMeans(n_init=10) s/step on the same steps, and their ratio.

    With ``precision="float32"`` ERCOT runs with that option and KMeans is
    given float32 samples (scikit-learn then computes in float32 too).
    """
    try:
        from sklearn.cluster import KMeans
    except ImportError:
        return None
    from ercot_nb import ERCOT

    ercot, kmeans = [], []
    for run in range(repeats):
        ercot.extend(_step_seconds(ERCOT(seed=seed + run, precision=precision).fit(dataset)))
        for snapshot in list(dataset)[1:] if len(dataset) > 1 else dataset:
            X = np.asarray(snapshot.X, dtype=precision)
            started = time.perf_counter()
            KMeans(n_clusters=n_clusters, n_init=10, random_state=seed + run).fit(X)
            kmeans.append(time.perf_counter() - started)
    e, k = float(np.median(ercot)), float(np.median(kmeans))
    return {"ercot_s_per_step": e, "kmeans_s_per_step": k, "ratio": e / k}


def nsga_objective(kernels, X, n_max: int, precision: str = "float64"):
    """pymoo's objective for :func:`pymoo_ratio`: ERCOT's evaluation kernel, run as ERCOT runs it.

    The kernel and its threads are those ERCOT's engine picks for the same
    work (:meth:`ercot_nb.evolution._engine.Engine.kernel_for`: the parallel variant for
    large calls on several threads), so both sides get the same threads; the
    samples are in ERCOT's ``precision``.
    Returns ``objectives(pop) -> F`` of shape (n, 2): f_cp and f_sep.
    """
    import numba

    from ercot_nb.evolution import Engine

    X = np.array(X, dtype=precision, order="C")  # writeable and contiguous, as the engine passes it
    xt = kernels.feature_major(X)

    def objectives(pop):
        pop = np.ascontiguousarray(pop, dtype=np.float64)
        f_cp, f_sep = np.empty(len(pop)), np.empty(len(pop))
        counts = np.empty((len(pop), n_max), dtype=np.int64)
        kernel, threads = Engine.kernel_for(kernels, "evaluate_population", len(pop) * len(X) * n_max, numba)
        with threads:
            kernel(X, pop, n_max, False, f_cp, f_sep, counts, xt)
        return np.column_stack([f_cp, f_sep])

    return objectives


def pymoo_ratio(dataset, repeats: int = 2, seed: int = 0, pop_size: int = 100,
                n_evaluations: int = 1000, precision: str = "float64") -> dict | None:
    """ERCOT s/step over pymoo NSGA-II s/step (same budget, ERCOT's evaluation kernel).

    ``precision`` is ERCOT's option; pymoo's objective reads the samples in the
    same precision, so both sides run the same kernel.
    """
    try:
        from pymoo.algorithms.moo.nsga2 import NSGA2
        from pymoo.core.problem import Problem
        from pymoo.optimize import minimize
    except ImportError:
        return None
    from ercot_nb import ERCOT
    from ercot_nb.kernels import get_backend

    kernels = get_backend("numba")
    n_max = 8  # ERCOT's default max_clusters

    class Clustering(Problem):
        def __init__(self, X):
            self.objectives = nsga_objective(kernels, X, n_max, precision)
            lo, hi = X.min(axis=0), X.max(axis=0)
            super().__init__(n_var=n_max * (1 + X.shape[1]), n_obj=2,
                             xl=np.concatenate([np.zeros(n_max), np.tile(lo, n_max)]),
                             xu=np.concatenate([np.ones(n_max), np.tile(hi, n_max)]))

        def _evaluate(self, x, out, *args, **kwargs):
            out["F"] = self.objectives(x)

    ercot, nsga = [], []
    steps = list(dataset)[1:] if len(dataset) > 1 else list(dataset)
    for run in range(repeats):
        ercot.extend(_step_seconds(ERCOT(seed=seed + run, pop_size=pop_size, n_evaluations=n_evaluations,
                                         precision=precision).fit(dataset)))
        for snapshot in steps:
            started = time.perf_counter()
            minimize(Clustering(snapshot.X), NSGA2(pop_size=pop_size), ("n_eval", n_evaluations),
                     seed=seed + run, verbose=False)
            nsga.append(time.perf_counter() - started)
    e, p = float(np.median(ercot)), float(np.median(nsga))
    return {"ercot_s_per_step": e, "pymoo_s_per_step": p, "ratio": e / p}


def kernel_ns_per_pair(dataset, repeats: int = 9, seed: int = 0, precision: str = "float64") -> dict:
    """Median ns per (sample, active centroid) pair of the serial evaluate and recentre kernels.

    ERCOT is fitted on the first two steps; its final population and the
    second step's samples (in ``precision``, ERCOT's option) are then timed
    ``repeats`` times (each recentre call on a fresh copy of the
    population), one kernel call at a time.
    """
    from ercot_nb import ERCOT
    from ercot_nb.kernels import get_backend

    kernels = get_backend("numba")
    model = ERCOT(seed=seed).fit(dataset[:2])
    step = model.result_[-1]
    X = np.array(dataset[min(1, len(dataset) - 1)].X, dtype=precision, order="C")
    pop = np.ascontiguousarray(step.population, dtype=np.float64)
    n, n_max = len(pop), step.n_max
    pairs = int((pop[:, :n_max] >= 0.5).sum()) * len(X)
    f_cp, f_sep, counts = np.empty(n), np.empty(n), np.empty((n, n_max), dtype=np.int64)
    sums = np.empty((n, n_max, X.shape[1]))
    # the sample layouts that the engine makes once per step (none where the kernels make them)
    layouts = ((kernels.feature_major(X), kernels.with_ones(X)) if hasattr(kernels, "with_ones")
               else ())
    evaluate, recentre = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        kernels.evaluate_population(X, pop, n_max, False, f_cp, f_sep, counts, *layouts[:1])
        evaluate.append(time.perf_counter() - started)
        moved = pop.copy()
        started = time.perf_counter()
        kernels.recentre_population(X, X, moved, n_max, False, sums, counts, *layouts)
        recentre.append(time.perf_counter() - started)
    return {"pairs_per_call": pairs, "evaluate_ns_per_pair": float(np.median(evaluate)) / pairs * 1e9,
            "recentre_ns_per_pair": float(np.median(recentre)) / pairs * 1e9}


_FIRST_FIT = """
from ercot_nb import ERCOT, datasets  # first, as a user would (it sets numba's environment)
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__module__)
event.register("numba:compile", Listener())
ERCOT(seed=0).fit(datasets.load("syn1", seed=0)[:2])
print(sum(module.startswith("ercot_nb") for module in compiled))
"""


def _child_cpu_seconds(env: dict) -> tuple[float, int]:
    """CPU seconds of the first-fit child and the number of ercot_nb functions numba compiled in it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", _FIRST_FIT], env=env, check=True, capture_output=True,
                         text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, int(out.stdout.strip().splitlines()[-1])


def cold_warm_ratio(repeats: int = 2) -> dict:
    """CPU seconds of import + first Syn1 fit, empty vs filled numba cache (fresh processes).

    Also returns how many ercot_nb functions numba compiled in each (the warm
    run should compile none: every kernel comes from the disk cache).
    """
    cold, warm, compiled = [], [], (0, 0)
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            (c, n_cold), (w, n_warm) = _child_cpu_seconds(env), _child_cpu_seconds(env)
            cold.append(c)
            warm.append(w)
            compiled = (n_cold, n_warm)
    c, w = float(np.median(cold)), float(np.median(warm))
    return {"cold_cpu_s": c, "warm_cpu_s": w, "ratio": c / w,
            "cold_compiled": compiled[0], "warm_compiled": compiled[1]}


def _spin(cpu: int) -> None:  # pragma: no cover - runs in the child
    os.sched_setaffinity(0, {cpu})
    while True:
        pass


def busy_core_ratio(dataset, repeats: int = 5, seed: int = 0) -> dict | None:
    """s/step with default threads over one thread while a child process spins on one core."""
    import multiprocessing

    import numba

    from ercot_nb import ERCOT

    if not hasattr(os, "sched_setaffinity"):
        return None
    threads = numba.get_num_threads()
    ERCOT(seed=seed).fit(dataset[:2])  # load the kernels before timing
    spinner = multiprocessing.get_context("fork").Process(target=_spin, args=(0,), daemon=True)
    spinner.start()
    times: dict[int, list[float]] = {threads: [], 1: []}
    try:
        for run in range(repeats):
            for n in (threads, 1):
                numba.set_num_threads(n)
                times[n].append(float(np.median(_step_seconds(ERCOT(seed=seed + run).fit(dataset)))))
    finally:
        numba.set_num_threads(threads)
        spinner.terminate()
        spinner.join()
    default, one = float(np.median(times[threads])), float(np.median(times[1]))
    return {"threads": threads, "default_s_per_step": default, "one_thread_s_per_step": one,
            "ratio": default / one}


if __name__ == "__main__":  # pragma: no cover - manual runs against any checkout
    import json

    from ercot_nb import datasets

    what = sys.argv[1]
    if what == "cold_warm":
        print(json.dumps(cold_warm_ratio()))
    elif what == "kmeans":
        name, k = sys.argv[2], int(sys.argv[3])
        params = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
        steps = int(sys.argv[5]) if len(sys.argv) > 5 else None
        data = datasets.load(name, seed=0, **params)
        print(json.dumps(kmeans_ratio(data[:steps] if steps else data, k, repeats=1)))
    elif what == "pymoo":
        data = datasets.load(sys.argv[2], seed=0)
        precision = sys.argv[4] if len(sys.argv) > 4 else "float64"
        print(json.dumps(pymoo_ratio(data[: int(sys.argv[3])], repeats=1, precision=precision)))
    elif what == "kernels":
        precision = sys.argv[3] if len(sys.argv) > 3 else "float64"
        print(json.dumps(kernel_ns_per_pair(datasets.load(sys.argv[2], seed=0), precision=precision)))
    elif what == "busy":
        print(json.dumps(busy_core_ratio(datasets.load(sys.argv[2], seed=0))))
