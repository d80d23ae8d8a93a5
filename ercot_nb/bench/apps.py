"""Applications benchmark: seconds per step, one-run mRI and peak memory on bird_flocks and the videos."""
from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd

# One fresh process per case: the dataset is built there, ERCOT (and staticEC)
# fit on it, and memory is read from the process itself, so cases do not share
# allocator state.  Peak memory is reported two ways: the peak of NumPy/Python
# allocations during one ERCOT fit (tracemalloc, switched on for that fit only
# because it slows Python code; numba's own buffers are not traced), and the
# growth of the peak resident set size over the process's size before the data
# were built (includes the data, numba's buffers and allocator slack).
_APP_CASE = r"""
import json, resource, sys, tracemalloc
import numpy as np
from ercot_nb import ERCOT, StaticEC, datasets
from ercot_nb.metrics import mean_scores

name, params, algorithms = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3].split(",")
PYMOO_MAX_SAMPLES = int(sys.argv[4])
ERCOT(seed=0).fit(datasets.load("syn1", seed=0)[:2])  # load the numba cache first
def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20
before = rss_mib()
data = datasets.load(name, seed=0, **params)
out = {"n_samples": int(data.n_samples_per_step.max()), "n_steps": len(data)}
ESTIMATORS = {"ERCOT": (ERCOT, {}), "staticEC": (StaticEC, {}),
              "ERCOT float32": (ERCOT, {"precision": "float32"})}
for algorithm in algorithms:  # timed without tracemalloc, which slows Python code
    estimator_class, options = ESTIMATORS[algorithm]
    estimator = estimator_class(seed=0, **options)
    labels = estimator.fit_predict(data)
    seconds = estimator.result_.seconds
    out[algorithm] = {
        "s_per_step": float(np.mean(seconds)),
        "s_per_step_after_first": float(np.mean(seconds[1:])) if len(seconds) > 1 else None,
        "mRI": mean_scores(data, labels)["mRI"] if data[0].labels is not None else None,
        "clusters": float(np.mean(estimator.n_clusters_)),
    }
from ercot_nb.bench.ratios import kmeans_ratio, pymoo_ratio
for algorithm in algorithms:  # ERCOT (each precision) against KMeans and pymoo in the same precision
    if not algorithm.startswith("ERCOT"):
        continue
    precision = ESTIMATORS[algorithm][1].get("precision", "float64")
    if data[0].labels is not None:  # KMeans(n_init=10) with the true number of clusters of each step
        k = max(2, int(np.median([len(np.unique(s.labels)) for s in data])))
        out[algorithm]["kmeans"] = kmeans_ratio(data[:3], k, repeats=1, precision=precision)
    if out["n_samples"] <= PYMOO_MAX_SAMPLES:
        out[algorithm]["pymoo"] = pymoo_ratio(data[:3], repeats=1, precision=precision)
import numba
from ercot_nb.bench.threads import thread_scaling
for algorithm in algorithms:  # thread scaling: 1 thread and all of numba's, steps 2-3, and the one-thread split
    if not algorithm.startswith("ERCOT"):
        continue
    precision = ESTIMATORS[algorithm][1].get("precision", "float64")
    counts = sorted({1, numba.config.NUMBA_NUM_THREADS})
    scaling = thread_scaling(threads=counts, repeats=1, precision=precision, data=data[:3])
    out[algorithm]["threads"] = {"threads": counts[-1], "speed_up": scaling[-1]["speed_up"],
                                 "parallel_share": scaling[0]["p"], "expected_16": scaling[0]["expected_16"]}
tracemalloc.start()  # memory of one more ERCOT fit
ERCOT(seed=0).fit(data)
out["traced_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
tracemalloc.stop()
out["rss_growth_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
print(json.dumps(out))
"""

# pymoo's NSGA-II (ERCOT's evaluation kernel as objective) is timed up to this size.
PYMOO_MAX_SAMPLES = 50_000

APP_CASES: list[tuple[str, dict]] = [
    ("bird_flocks", {}),
    ("video_mo", {}),
    ("video_rc", {"scale": 0.25}),
    ("video_rc", {"scale": 0.5}),
    ("video_rc", {}),
]


def _app_case(name: str, params: dict, algorithms: tuple[str, ...]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _APP_CASE, name, json.dumps(params), ",".join(algorithms),
         str(PYMOO_MAX_SAMPLES)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def applications_report(
    cases: list[tuple[str, dict]] | None = None,
    algorithms: tuple[str, ...] = ("ERCOT", "staticEC", "ERCOT float32"),
) -> pd.DataFrame:
    """Seconds per step, one-run mRI and peak memory on bird_flocks and the video scenes.

    Parameters
    ----------
    cases : list of (name, params), optional
        Datasets to measure (default :data:`APP_CASES`: bird_flocks, video_mo,
        and video_rc at 1/4, 1/2 and full size to show how memory grows).
    algorithms : tuple of str
        Any of "ERCOT", "staticEC" and "ERCOT float32" (ERCOT with
        ``precision="float32"``); each fits once with seed 0.

    Returns
    -------
    pandas.DataFrame
        One row per case and algorithm.  On the ERCOT rows, with scikit-learn,
        ``kmeans_s_step`` and ``ERCOT/kmeans`` compare steps 2-3 of an ERCOT
        fit with ``KMeans(n_init=10)`` on the same snapshots (true number of
        clusters); with pymoo and at most :data:`PYMOO_MAX_SAMPLES` samples,
        ``pymoo_s_step`` and ``ERCOT/pymoo`` compare them with pymoo's NSGA-II
        (population 100, 1000 evaluations, ERCOT's evaluation kernel), both
        in the row's precision, see :mod:`ercot_nb.bench.ratios`.  On the
        ERCOT rows, the thread scaling of steps 2-3 (:mod:`ercot_nb.bench.threads`):
        the speed-up at all of numba's threads over one, the share of one
        thread's time that runs on several threads, and the speed-up Amdahl's
        law expects from it at 16 threads.  Columns are omitted when missing.
    """
    rows = []
    for name, params in cases or APP_CASES:
        out = _app_case(name, params, algorithms)
        label = name + "".join(f" {k}={v}" for k, v in params.items())
        for algorithm in algorithms:
            rows.append({
                "dataset": label, "pixels_or_samples": out["n_samples"], "steps": out["n_steps"],
                "algorithm": algorithm, **out[algorithm],
                "traced_peak_MiB": out["traced_peak_mib"], "rss_growth_MiB": out["rss_growth_mib"],
            })
            scaling = rows[-1].pop("threads", None)
            if scaling:
                rows[-1][f"speed-up at {scaling['threads']} threads"] = scaling["speed_up"]
                rows[-1]["parallel share (1 thread)"] = scaling["parallel_share"]
                rows[-1]["expected at 16 threads"] = scaling["expected_16"]
            for other in ("kmeans", "pymoo"):
                ratio = rows[-1].pop(other, None)
                if ratio:
                    rows[-1][f"{other}_s_step"] = ratio[f"{other}_s_per_step"]
                    rows[-1][f"ERCOT/{other}"] = ratio["ratio"]
    return pd.DataFrame(rows)
