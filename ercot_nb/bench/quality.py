"""Quality benchmark: registered algorithms on Syn1-Syn8 beside the oracle partition and the paper.

Built on the experiments' runner (:func:`ercot_nb.experiments.run_experiments`):
the same Dask workers, run files, warm-up and :data:`~ercot_nb.experiments.KNOWN_K`,
and algorithms by their registered names.  The paper's numbers come from
:mod:`ercot_nb.paper`.
"""
from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from distributed import Client

from .. import algorithms as registry
from .. import datasets
from ..experiments import KNOWN_K, STATUS_OK, SYNTHETIC_DATASETS, per_run_scores, run_experiments
from ..experiments.runner import dataset_k, local_cluster
from ..metrics import mean_scores
from ..paper import paper_value

DEFAULT_SETTINGS: dict[str, dict[str, Any]] = {"Cmax=8": {}, "k=4": {"n_clusters": KNOWN_K}}
"""Setting name -> estimator parameters; :data:`KNOWN_K` is the scenario's true number of clusters."""

DEFAULT_ALGORITHMS: tuple[str, ...] = ("ERCOT", "staticEC")


def _folder_name(setting: str) -> str:
    return re.sub(r"[^\w.=,-]+", "_", setting)


def quality_runs(
    runs: int = 10,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    datasets_: Sequence[str] | Mapping[str, Mapping[str, Any]] | None = None,
    algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
    workers: int | None = None,
    runs_dir: str | Path | None = None,
    client: Client | None = None,
) -> pd.DataFrame:
    """Every (setting, algorithm, dataset, seed) run, as a tidy table.

    Parameters
    ----------
    runs : int
        Runs per algorithm, data set and setting; run ``r`` uses seed ``r``.
    settings : mapping, optional
        Setting name -> estimator parameters (default :data:`DEFAULT_SETTINGS`).
        A setting that uses :data:`~ercot_nb.experiments.KNOWN_K` skips the
        data sets whose true number of clusters is unknown (Syn7, Syn8).
    datasets_ : sequence of str or mapping, optional
        Data set names (default Syn1-Syn8), or name -> ``datasets.load`` arguments.
    algorithms : sequence of str
        Registered names (``ercot_nb.algorithms.available()``).
    workers : int, optional
        Local worker processes (default one per CPU); ignored with ``client``.
    runs_dir : path, optional
        Keep the run files here (one folder per setting), so that a second
        call resumes; default a temporary folder.
    client : distributed.Client, optional
        Run on this cluster instead of starting local workers.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``setting``, ``algorithm``, ``dataset``, ``seed``,
        ``status``, ``mRI``, ``mNMI``, ``mean_clusters``, ``seconds`` (the
        run's total seconds over its steps); scores are NaN for a run that
        gave no partition.
    """
    settings = dict(settings or DEFAULT_SETTINGS)
    algorithms = [registry.resolve(name) for name in algorithms]  # unknown names fail before any worker starts
    names = datasets_ or SYNTHETIC_DATASETS
    data = dict(names) if isinstance(names, Mapping) else {name: {} for name in names}
    frames = []
    with tempfile.TemporaryDirectory(prefix="ercot-bench-") as scratch:
        root = Path(runs_dir) if runs_dir is not None else Path(scratch)
        cluster = local_cluster(workers) if client is None else None
        own_client = Client(cluster) if cluster is not None else None
        try:
            for setting, params in settings.items():
                uses_k = any(isinstance(v, str) and v == KNOWN_K for v in params.values())
                chosen = {name: extra for name, extra in data.items()
                          if not uses_k or dataset_k(name, 0, extra) is not None}
                if not chosen:
                    continue
                table = run_experiments(
                    list(algorithms), chosen, runs, params={a: dict(params) for a in algorithms},
                    out_dir=root / _folder_name(setting), client=client or own_client, progress=False,
                    keep_fronts=(),
                )
                frames.append(_per_run(table).assign(setting=setting))
        finally:
            if own_client is not None:
                own_client.close()
            if cluster is not None:
                cluster.close()
    columns = ["setting", "algorithm", "dataset", "seed", "status", "mRI", "mNMI", "mean_clusters", "seconds"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


def _per_run(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run of a run table: status, mean scores and total seconds."""
    keys = ["algorithm", "dataset", "run"]
    runs = table.drop_duplicates(keys)[[*keys, "status"]]
    seconds = table.astype({"seconds": "float64"}).groupby(keys, sort=False)["seconds"].sum().rename("seconds")
    scores = per_run_scores(table).drop(columns="seconds_per_step")
    out = runs.merge(scores, on=keys, how="left").merge(seconds.reset_index(), on=keys, how="left")
    out.loc[out["status"] != STATUS_OK, "seconds"] = np.nan
    return out.rename(columns={"run": "seed"})


def oracle_table(datasets_: Sequence[str] | Mapping[str, Mapping[str, Any]] | None = None) -> pd.DataFrame:
    """mRI / mNMI of the nearest-true-mean partition of every scenario (names, or name -> load arguments)."""
    names = datasets_ or SYNTHETIC_DATASETS
    data_params = dict(names) if isinstance(names, Mapping) else {name: {} for name in names}
    rows = []
    for name, extra in data_params.items():
        data = datasets.load(name, seed=0, **extra)
        scores = mean_scores(data, datasets.oracle_partition(data))
        rows.append({"dataset": name, "oracle_mRI": scores["mRI"], "oracle_mNMI": scores["mNMI"]})
    return pd.DataFrame(rows)


def _paper_mean(metric: str, dataset: str, algorithm: str) -> float:
    cell = paper_value(metric, dataset, algorithm)
    return np.nan if cell is None else cell[0]


def quality_summary(
    runs_table: pd.DataFrame, dataset_params: Mapping[str, Mapping[str, Any]] | None = None
) -> pd.DataFrame:
    """mean ± std per (setting, dataset, algorithm) beside the oracle and the paper.

    ``dataset_params`` (name -> ``datasets.load`` arguments) must be those of
    the runs, for the oracle to score the same data.
    """
    done = runs_table[runs_table["status"] == STATUS_OK]
    grouped = done.groupby(["setting", "dataset", "algorithm"], sort=False)
    summary = grouped.agg(
        mRI=("mRI", "mean"), mRI_std=("mRI", "std"), mNMI=("mNMI", "mean"),
        mNMI_std=("mNMI", "std"), clusters=("mean_clusters", "mean"), seconds=("seconds", "mean"),
        runs=("seed", "count"),
    ).reset_index()
    names = dict.fromkeys(runs_table["dataset"])
    summary = summary.merge(oracle_table({n: (dataset_params or {}).get(n, {}) for n in names}), on="dataset")
    summary["gap_to_oracle"] = summary["mRI"] - summary["oracle_mRI"]
    for metric in ("mRI", "mNMI"):
        summary[f"paper_{metric}"] = [_paper_mean(metric, d, a) for a, d in zip(summary.algorithm, summary.dataset)]
    return summary


def format_quality(summary: pd.DataFrame, runs_table: pd.DataFrame | None = None) -> str:
    """The summary as text, one block per setting, then the runs that gave no partition."""
    lines = []
    for setting, block in summary.groupby("setting", sort=False):
        lines.append(f"\n## setting: {setting}")
        lines.append(f"{'dataset':8} {'algorithm':10} {'mRI':>17} {'mNMI':>17} {'oracle':>7} "
                     f"{'gap':>7} {'paper mRI':>9} {'paper mNMI':>10} {'C':>5} {'s/run':>6}")
        for row in block.itertuples():
            lines.append(
                f"{row.dataset:8} {row.algorithm:10} {row.mRI:.4f} ± {row.mRI_std:.4f} "
                f"{row.mNMI:.4f} ± {row.mNMI_std:.4f} {row.oracle_mRI:7.4f} {row.gap_to_oracle:+7.4f} "
                f"{row.paper_mRI:9.4f} {row.paper_mNMI:10.4f} {row.clusters:5.2f} {row.seconds:6.2f}"
            )
    if runs_table is not None:
        problems = runs_table[runs_table["status"] != STATUS_OK]
        for row in problems.itertuples():
            lines.append(f"no partition: {row.setting} {row.algorithm} {row.dataset} seed {row.seed}: {row.status}")
    return "\n".join(lines)
