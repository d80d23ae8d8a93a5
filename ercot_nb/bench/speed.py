"""Speed benchmark: seconds per step (numba vs the NumPy twin), compile and first-fit time,
and the explorer page's data for a 10,000-step run.

Every figure of one report is measured in the same run, so compare ratios
rather than absolute times across machines.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numba
import numpy as np
import pandas as pd

from .. import datasets
from ..evolution import ERCOT
from ..data import TemporalDataset


def seven_blobs(n_samples: int = 19_200, n_steps: int = 3, seed: int = 0):
    """A video-sized dataset: 7 drifting 3-D Gaussian blobs in [0, 1]^3 (RGB-like)."""
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.15, 0.85, size=(7, 3))
    labels = rng.integers(0, 7, size=n_samples)
    X_list = []
    for t in range(n_steps):
        drift = 0.01 * t * np.sin(np.arange(21).reshape(7, 3) + t)
        X_list.append(means[labels] + drift[labels] + rng.normal(scale=0.05, size=(n_samples, 3)))
    return TemporalDataset.from_arrays(X_list, labels=[labels] * n_steps, name="seven_blobs")


def long_run(n_steps: int = 10_000, seed: int = 0):
    """A fitted run of ``n_steps`` steps of 3 samples, and its dataset, made in about a second.

    ERCOT is fitted on 12 steps; its steps are repeated (renumbered, with
    the long dataset's time labels) up to ``n_steps``.
    """
    import dataclasses

    from ..result import ClusteringResult

    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(3, 2)) + [[0, 0], [5, 5], [0, 5]] for _ in range(12)]
    run = ERCOT(seed=seed, pop_size=12, n_evaluations=48).fit(TemporalDataset.from_arrays(X)).result_
    data = TemporalDataset.from_arrays([X[t % len(X)] for t in range(n_steps)], name=f"{n_steps} steps")
    result = ClusteringResult(algorithm=run.algorithm, params=run.params)
    result.steps = [dataclasses.replace(run.steps[t % len(X)], t=t, time=data[t].time) for t in range(n_steps)]
    return result, data


def page_data_seconds(n_steps: int = 10_000) -> dict[str, float]:
    """Wall and CPU seconds of :func:`ercot_nb.page.page_data` (the explorer page's content) for
    :func:`long_run` of ``n_steps`` steps, and the size of its JSON, plain and gzip-compressed
    (``{"wall", "cpu", "json_bytes", "gzip_bytes"}``)."""
    import gzip
    import json
    import time

    from ..page import page_data

    result, data = long_run(n_steps)
    wall, cpu = time.perf_counter(), time.process_time()
    content = page_data(result, data)
    out = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    text = json.dumps(content, separators=(",", ":")).encode()
    return {**out, "json_bytes": float(len(text)), "gzip_bytes": float(len(gzip.compress(text, 9, mtime=0)))}


def _seconds_per_step(dataset, backend: str, n_runs: int = 1, seed: int = 0,
                      precision: str = "float64") -> float:
    per_step = []
    for run in range(n_runs):
        model = ERCOT(seed=seed + run, backend=backend, precision=precision).fit(dataset)
        per_step.extend(model.result_.seconds[1:])  # steps after the first: reinit + accumulation
    return float(np.mean(per_step))


_FIRST_FIT = """
import time; t0 = time.perf_counter()
import numpy as np
from ercot_nb import ERCOT, datasets
data = datasets.load("syn1", seed=0)[:2]
ERCOT(seed=0).fit(data)
print(time.perf_counter() - t0)
"""


_FIRST_PARTITION = """
import json, resource, time
t0 = time.perf_counter()
from ercot_nb import ERCOT, datasets
data = datasets.load("syn1", seed=0)
seen = {}
def first(kind):
    def record(step):
        seen.setdefault(kind, time.perf_counter() - t0)
        seen.setdefault("first_partition_s", time.perf_counter() - t0)
        seen.setdefault("first_partition_cpu_s", time.process_time())
    return record
ERCOT(seed=0).fit(data, preview=first("preview_s"), callback=first("first_numba_step_s"))
seen["fit_s"] = time.perf_counter() - t0
usage = resource.getrusage(resource.RUSAGE_SELF)
seen["cpu_s"] = usage.ru_utime + usage.ru_stime
print(json.dumps(seen))
"""


def fresh_install_first_partition(cache_dir: str | None = None) -> dict:
    """Seconds from a new process's start to its first partition of Syn1 (``fit(preview=...)``).

    With an empty numba cache (a fresh install without the warm-up) unless
    ``cache_dir`` names another (a filled one: a warm start; an empty folder
    is filled by the run).  Returns ``first_partition_s`` (the
    preview, or the first step if no preview came), ``preview_s``,
    ``first_numba_step_s``, ``fit_s`` (all steps), the process's CPU seconds
    at the first partition (``first_partition_cpu_s``, both threads) and at the end (``cpu_s``).
    """
    import json

    with tempfile.TemporaryDirectory() as empty:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir or empty)
        out = subprocess.run([sys.executable, "-c", _FIRST_PARTITION], env=env, check=True,
                             capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fresh_process_first_fit(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", _FIRST_FIT], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def speed_report(numpy_steps: int = 2) -> pd.DataFrame:
    """Seconds per step (numba vs NumPy twin), compile time and first-fit time."""
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        fresh = fresh_install_first_partition(cache)  # empty: compiles, and fills the cache
        warm_start = fresh_install_first_partition(cache)
    rows.append(("fresh install (empty numba cache, new process, no warm-up): Syn1 first partition (s)",
                 fresh["first_partition_s"]))
    rows.append(("fresh install: Syn1 first step on numba, after compiling (s)", fresh["first_numba_step_s"]))
    rows.append(("fresh install: Syn1 whole fit (s)", fresh["fit_s"]))
    rows.append(("warm cache, new process: Syn1 first partition (s)", warm_start["first_partition_s"]))
    rows.append(("first partition CPU s, cold / warm cache", fresh["first_partition_cpu_s"]
                 / warm_start["first_partition_cpu_s"]))
    with tempfile.TemporaryDirectory() as cache:
        cold = _fresh_process_first_fit(cache)
        warm = _fresh_process_first_fit(cache)
    rows.append(("import + first fit, empty numba cache (s)", cold))
    rows.append(("import + first fit, warm numba cache (s)", warm))
    rows.append(("compile time estimate = cold - warm (s)", cold - warm))

    syn1 = datasets.load("syn1", seed=0)
    _seconds_per_step(syn1[:2], "numba")  # compile in this process
    syn1_numba = _seconds_per_step(syn1, "numba", n_runs=3)
    syn1_numpy = _seconds_per_step(syn1[:3], "numpy")
    rows.append(("Syn1 200x2: s/step, numba", syn1_numba))
    rows.append(("Syn1 200x2: s/step, numpy twin", syn1_numpy))
    rows.append(("Syn1 speed-up numba / numpy", syn1_numpy / syn1_numba))

    blobs = seven_blobs(n_steps=3)
    big_numba = _seconds_per_step(blobs, "numba")
    big_numpy = _seconds_per_step(blobs[: numpy_steps + 1], "numpy")
    _seconds_per_step(blobs[:2], "numba", precision="float32")  # compile the float32 kernels
    big_float32 = _seconds_per_step(blobs, "numba", precision="float32")
    rows.append(("19,200x3, 7 clusters: s/step, numba", big_numba))
    rows.append(("19,200x3, 7 clusters: s/step, numba, precision='float32'", big_float32))
    rows.append(("19,200x3, 7 clusters: s/step, numpy twin", big_numpy))
    rows.append(("19,200x3 speed-up numba / numpy", big_numpy / big_numba))

    from .ratios import busy_core_ratio, cold_warm_ratio, kmeans_ratio

    ratio = cold_warm_ratio()
    rows.append(("import + first fit CPU s, empty numba cache", ratio["cold_cpu_s"]))
    rows.append(("import + first fit CPU s, warm numba cache", ratio["warm_cpu_s"]))
    rows.append(("cold / warm first-fit CPU ratio", ratio["ratio"]))
    rows.append(("numba functions compiled, cold first fit", float(ratio["cold_compiled"])))
    rows.append(("numba functions compiled, warm first fit", float(ratio["warm_compiled"])))
    kmeans = kmeans_ratio(syn1, n_clusters=4)
    if kmeans is not None:
        rows.append(("Syn1: s/step, KMeans(n_init=10, k=4)", kmeans["kmeans_s_per_step"]))
        rows.append(("Syn1: ERCOT / KMeans per step", kmeans["ratio"]))
    for name, data in (("Syn1", syn1), ("bird_flocks", datasets.load("bird_flocks", seed=0))):
        busy = busy_core_ratio(data)
        if busy is not None:
            rows.append((f"{name}, one core busy: default threads / 1 thread", busy["ratio"]))
    page_1k, page_10k = page_data_seconds(1_000), page_data_seconds(10_000)
    rows.append(("explorer page_data, 1,000 steps of 3 samples (s)", page_1k["wall"]))
    rows.append(("explorer page_data, 10,000 steps of 3 samples (s)", page_10k["wall"]))
    rows.append(("explorer page_data, 10,000 steps of 3 samples (CPU s)", page_10k["cpu"]))
    rows.append(("page_data CPU 10,000 / 1,000 steps (10 = linear)", page_10k["cpu"] / page_1k["cpu"]))
    rows.append(("explorer page data, 1,000 steps of 3 samples (JSON MB)", page_1k["json_bytes"] / 1e6))
    rows.append(("explorer page data, 1,000 steps of 3 samples (gzip kB)", page_1k["gzip_bytes"] / 1e3))
    rows.append(("numba threads", float(numba.get_num_threads())))
    return pd.DataFrame(rows, columns=["measure", "value"])
