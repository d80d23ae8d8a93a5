"""Benchmarks: speed of the kernels and the algorithm, and quality on Syn1-Syn8.

Run ``python -m ercot_nb.bench speed``, ``... bench apps`` (bird_flocks and the
video scenes: seconds per step and peak memory) or ``... bench quality``
(also ``ercot-nb bench ...``).  Every figure of one report is measured in the
same run, so compare ratios rather than absolute times across machines.
These are measurements, not tests: nothing here asserts a target.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

# The paper's Tables II and III (mean mRI / mNMI over 30 runs), for reference.
PAPER = {
    "ERCOT": {
        "syn1": (0.9545, 0.8766), "syn2": (0.9907, 0.9693), "syn3": (0.9554, 0.8847),
        "syn4": (0.9949, 0.9839), "syn5": (0.9792, 0.9381), "syn6": (0.9739, 0.9267),
        "syn7": (0.9526, 0.8576), "syn8": (0.9862, 0.9616),
    },
    "staticEC": {
        "syn1": (0.8956, 0.7668), "syn2": (0.8422, 0.7438), "syn3": (0.9153, 0.7918),
        "syn4": (0.8679, 0.7744), "syn5": (0.8666, 0.7583), "syn6": (0.8958, 0.7969),
        "syn7": (0.8877, 0.7580), "syn8": (0.9207, 0.8529),
    },
}
SYN = [f"syn{i}" for i in range(1, 9)]
KNOWN_K = {f"syn{i}": 4 for i in range(1, 7)}


# --------------------------------------------------------------------------- speed
def seven_blobs(n_samples: int = 19_200, n_steps: int = 3, seed: int = 0):
    """A video-sized dataset: 7 drifting 3-D Gaussian blobs in [0, 1]^3 (RGB-like)."""
    from .data import TemporalDataset

    rng = np.random.default_rng(seed)
    means = rng.uniform(0.15, 0.85, size=(7, 3))
    labels = rng.integers(0, 7, size=n_samples)
    X_list = []
    for t in range(n_steps):
        drift = 0.01 * t * np.sin(np.arange(21).reshape(7, 3) + t)
        X_list.append(means[labels] + drift[labels] + rng.normal(scale=0.05, size=(n_samples, 3)))
    return TemporalDataset.from_arrays(X_list, labels=[labels] * n_steps, name="seven_blobs")


def _seconds_per_step(dataset, backend: str, n_runs: int = 1, seed: int = 0) -> float:
    from . import ERCOT

    per_step = []
    for run in range(n_runs):
        model = ERCOT(seed=seed + run, backend=backend).fit(dataset)
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


def _fresh_process_first_fit(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", _FIRST_FIT], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def speed_report(numpy_steps: int = 2) -> pd.DataFrame:
    """Seconds per step (numba vs NumPy twin), compile time and first-fit time."""
    from . import datasets

    rows = []
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
    rows.append(("19,200x3, 7 clusters: s/step, numba", big_numba))
    rows.append(("19,200x3, 7 clusters: s/step, numpy twin", big_numpy))
    rows.append(("19,200x3 speed-up numba / numpy", big_numpy / big_numba))

    import numba

    rows.append(("numba threads", float(numba.get_num_threads())))
    return pd.DataFrame(rows, columns=["measure", "value"])


# --------------------------------------------------------------------------- applications
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
ERCOT(seed=0).fit(datasets.load("syn1", seed=0)[:2])  # load the numba cache first
def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20
before = rss_mib()
data = datasets.load(name, seed=0, **params)
out = {"n_samples": int(data.n_samples_per_step.max()), "n_steps": len(data)}
for algorithm in algorithms:  # timed without tracemalloc, which slows Python code
    estimator = {"ERCOT": ERCOT, "staticEC": StaticEC}[algorithm](seed=0)
    labels = estimator.fit_predict(data)
    seconds = estimator.result_.seconds
    out[algorithm] = {
        "s_per_step": float(np.mean(seconds)),
        "s_per_step_after_first": float(np.mean(seconds[1:])) if len(seconds) > 1 else None,
        "mRI": mean_scores(data, labels)["mRI"] if data[0].labels is not None else None,
        "clusters": float(np.mean(estimator.n_clusters_)),
    }
tracemalloc.start()  # memory of one more ERCOT fit
ERCOT(seed=0).fit(data)
out["traced_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
tracemalloc.stop()
out["rss_growth_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
print(json.dumps(out))
"""

APP_CASES: list[tuple[str, dict]] = [
    ("bird_flocks", {}),
    ("video_mo", {}),
    ("video_rc", {"scale": 0.25}),
    ("video_rc", {"scale": 0.5}),
    ("video_rc", {}),
]


def _app_case(name: str, params: dict, algorithms: tuple[str, ...]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _APP_CASE, name, json.dumps(params), ",".join(algorithms)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def applications_report(
    cases: list[tuple[str, dict]] | None = None,
    algorithms: tuple[str, ...] = ("ERCOT", "staticEC"),
) -> pd.DataFrame:
    """Seconds per step, one-run mRI and peak memory on bird_flocks and the video scenes.

    Parameters
    ----------
    cases : list of (name, params), optional
        Datasets to measure (default :data:`APP_CASES`: bird_flocks, video_mo,
        and video_rc at 1/4, 1/2 and full size to show how memory grows).
    algorithms : tuple of str
        Any of "ERCOT", "staticEC"; each fits once with seed 0.

    Returns
    -------
    pandas.DataFrame
        One row per case and algorithm.
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
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- quality
def _one_run(task: tuple) -> dict:
    algorithm, name, seed, params, setting = task
    from . import ERCOT, StaticEC, datasets
    from .metrics import mean_scores

    data = datasets.load(name, seed=0)
    estimator = {"ERCOT": ERCOT, "staticEC": StaticEC}[algorithm](seed=seed, **params)
    start = time.perf_counter()
    labels = estimator.fit_predict(data)
    scores = mean_scores(data, labels)
    return {
        "algorithm": algorithm, "dataset": name, "seed": seed,
        "setting": setting,
        "mRI": scores["mRI"], "mNMI": scores["mNMI"],
        "mean_clusters": float(np.mean(estimator.n_clusters_)),
        "seconds": time.perf_counter() - start,
    }


def quality_runs(runs: int = 10, settings: dict | None = None, datasets_: list[str] | None = None,
                 algorithms=("ERCOT", "staticEC"), workers: int | None = None) -> pd.DataFrame:
    """Every (algorithm, dataset, setting, seed) run, as a tidy table.

    ``settings`` maps a setting name to estimator parameters; the value
    ``"known_k"`` for a parameter means the scenario's true number of
    clusters (runs without a known k are skipped for that setting).
    """
    settings = settings or {"Cmax=8": {}, "k=4": {"n_clusters": "known_k"}}
    tasks = []
    for setting, params in settings.items():
        for name in datasets_ or SYN:
            resolved = {}
            for key, value in params.items():
                if value == "known_k":
                    if name not in KNOWN_K:
                        break
                    value = KNOWN_K[name]
                resolved[key] = value
            else:
                tasks += [(alg, name, seed, resolved, setting) for alg in algorithms for seed in range(runs)]
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
        rows = list(pool.map(_one_run, tasks, chunksize=1))
    return pd.DataFrame(rows)


def oracle_table(datasets_: list[str] | None = None) -> pd.DataFrame:
    """mRI / mNMI of the nearest-true-mean partition of every scenario."""
    from . import datasets
    from .metrics import mean_scores

    rows = []
    for name in datasets_ or SYN:
        data = datasets.load(name, seed=0)
        scores = mean_scores(data, datasets.oracle_partition(data))
        rows.append({"dataset": name, "oracle_mRI": scores["mRI"], "oracle_mNMI": scores["mNMI"]})
    return pd.DataFrame(rows)


def quality_summary(runs_table: pd.DataFrame) -> pd.DataFrame:
    """mean ± std per (setting, dataset, algorithm) beside the oracle and the paper."""
    grouped = runs_table.groupby(["setting", "dataset", "algorithm"])
    summary = grouped.agg(
        mRI=("mRI", "mean"), mRI_std=("mRI", "std"), mNMI=("mNMI", "mean"),
        mNMI_std=("mNMI", "std"), clusters=("mean_clusters", "mean"), seconds=("seconds", "mean"),
    ).reset_index()
    summary = summary.merge(oracle_table(sorted(runs_table.dataset.unique())), on="dataset")
    summary["gap_to_oracle"] = summary["mRI"] - summary["oracle_mRI"]
    summary["paper_mRI"] = [PAPER.get(a, {}).get(d, (np.nan, np.nan))[0]
                            for a, d in zip(summary.algorithm, summary.dataset)]
    summary["paper_mNMI"] = [PAPER.get(a, {}).get(d, (np.nan, np.nan))[1]
                             for a, d in zip(summary.algorithm, summary.dataset)]
    return summary


def _format_quality(summary: pd.DataFrame) -> str:
    lines = []
    for setting, block in summary.groupby("setting", sort=False):
        lines.append(f"\n## setting: {setting}")
        lines.append(f"{'dataset':8} {'algorithm':9} {'mRI':>17} {'mNMI':>17} {'oracle':>7} "
                     f"{'gap':>7} {'paper mRI':>9} {'paper mNMI':>10} {'C':>5} {'s/run':>6}")
        for row in block.itertuples():
            lines.append(
                f"{row.dataset:8} {row.algorithm:9} {row.mRI:.4f} ± {row.mRI_std:.4f} "
                f"{row.mNMI:.4f} ± {row.mNMI_std:.4f} {row.oracle_mRI:7.4f} {row.gap_to_oracle:+7.4f} "
                f"{row.paper_mRI:9.4f} {row.paper_mNMI:10.4f} {row.clusters:5.2f} {row.seconds:6.2f}"
            )
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ercot-nb bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("speed", help="seconds per step, numba vs NumPy twin, compile and first-fit time")
    apps = sub.add_parser("apps", help="seconds per step and peak memory on bird_flocks and the videos")
    apps.add_argument("--datasets", nargs="*", default=None,
                      help="names (default: bird_flocks, video_mo, video_rc at 1/4, 1/2, full size)")
    quality = sub.add_parser("quality", help="ERCOT and staticEC on Syn1-Syn8 vs oracle and paper")
    quality.add_argument("--runs", type=int, default=10)
    quality.add_argument("--datasets", nargs="*", default=None)
    quality.add_argument("--knee", nargs="*", default=["ideal"], help="knee rules to compare")
    quality.add_argument("--no-known-k", action="store_true", help="skip the k=4 setting on Syn1-6")
    quality.add_argument("--workers", type=int, default=None)
    quality.add_argument("--out", type=Path, default=None, help="write the per-run table (CSV)")
    args = parser.parse_args(argv)

    if args.what == "speed":
        report = speed_report()
        print(report.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        return 0

    if args.what == "apps":
        cases = [(name, {}) for name in args.datasets] if args.datasets else None
        report = applications_report(cases)
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(report.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        return 0

    settings = {}
    for rule in args.knee:
        suffix = "" if args.knee == ["ideal"] else f",knee={rule}"
        extra = {} if rule == "ideal" else {"knee": rule}
        settings[f"Cmax=8{suffix}"] = dict(extra)
        if not args.no_known_k:
            settings[f"k=4{suffix}"] = {"n_clusters": "known_k", **extra}
    started = time.perf_counter()
    table = quality_runs(args.runs, settings, args.datasets, workers=args.workers)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
    print(_format_quality(quality_summary(table)))
    print(f"\nwall time {time.perf_counter() - started:.1f} s, {len(table)} runs")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
