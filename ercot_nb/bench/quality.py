"""Quality benchmark: ERCOT and staticEC on Syn1-Syn8 beside the oracle partition and the paper."""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from .. import datasets
from .._evolutionary import ERCOT, StaticEC
from ..metrics import mean_scores

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


def _one_run(task: tuple) -> dict:
    algorithm, name, seed, params, setting = task
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


def format_quality(summary: pd.DataFrame) -> str:
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
