"""Statistics of a sweep: per-run scores, Wilcoxon marks against the reference, the summary tables."""
from __future__ import annotations

from math import comb
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..paper import PAPER_SECONDS_PER_STEP, paper_value
from .spec import STATUS_FAILED, STATUS_NOT_APPLICABLE, STATUS_OK, algorithm_order, display_dataset, lookup

TESTS = ("rank-sum", "signed-rank")


def per_run_scores(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's per-run measures of every successful run.

    Parameters
    ----------
    table : pandas.DataFrame
        The run table of :func:`run_experiments`.

    Returns
    -------
    pandas.DataFrame
        One row per (algorithm, dataset, run) with status "ok": ``mRI`` and
        ``mNMI`` (means over the steps), ``seconds_per_step`` and
        ``mean_clusters``.
    """
    done = table[table["status"] == STATUS_OK].astype(
        {"RI": "float64", "NMI": "float64", "seconds": "float64", "n_clusters": "float64"}
    )
    grouped = done.groupby(["algorithm", "dataset", "run"], sort=False)
    return grouped.agg(
        mRI=("RI", "mean"), mNMI=("NMI", "mean"), seconds_per_step=("seconds", "mean"),
        mean_clusters=("n_clusters", "mean"),
    ).reset_index()


def mark_against_reference(
    reference: pd.Series,
    competitor: pd.Series,
    *,
    test: str = "rank-sum",
    significance: float = 0.05,
) -> tuple[float, str]:
    """Wilcoxon comparison of a competitor's per-run values with the reference's.

    Parameters
    ----------
    reference, competitor : pandas.Series
        Per-run values (e.g. mRI), indexed by run; higher is better.
    test : {"rank-sum", "signed-rank"}, default="rank-sum"
        "rank-sum": two-sided Mann-Whitney U test (the runs of two algorithms
        are independent).  "signed-rank": two-sided Wilcoxon signed-rank test
        on the runs both have, paired by run index, with ``zero_method="zsplit"``
        so that identical values (deterministic algorithms) are allowed.
    significance : float, default=0.05
        Level of the test.

    Returns
    -------
    p_value : float
        NaN when a side has no values; 1.0 when every value is tied.
    mark : str
        The paper's mark: ``">"`` the reference is significantly better,
        ``"≈"`` no significant difference, ``""`` the competitor is
        significantly better (or there is nothing to compare).

    Examples
    --------
    >>> better = pd.Series([0.9, 0.91, 0.92, 0.93, 0.94, 0.95])
    >>> worse = better - 0.1
    >>> mark_against_reference(better, worse)[1]
    '>'
    >>> mark_against_reference(better, better)[1]
    '≈'
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")
    reference = reference.dropna()
    competitor = competitor.dropna()
    if test == "signed-rank":
        paired = pd.concat([reference.rename("reference"), competitor.rename("competitor")], axis=1,
                           join="inner")
        reference, competitor = paired["reference"], paired["competitor"]
    if reference.empty or competitor.empty:
        return float("nan"), ""
    difference = reference.to_numpy() - competitor.to_numpy() if test == "signed-rank" else None
    if test == "signed-rank" and not np.any(difference):
        p_value = 1.0
    elif test == "signed-rank":
        p_value = float(stats.wilcoxon(reference, competitor, zero_method="zsplit").pvalue)
    elif np.unique(np.concatenate([reference.to_numpy(), competitor.to_numpy()])).size == 1:
        p_value = 1.0
    else:
        p_value = float(stats.mannwhitneyu(reference, competitor, alternative="two-sided").pvalue)
    if not p_value < significance:
        return p_value, "≈"
    gap = reference.mean() - competitor.mean()
    return p_value, ">" if gap > 0 else ("" if gap < 0 else "≈")


def significance_marks(
    per_run: pd.DataFrame,
    metric: str,
    *,
    reference: str = "ERCOT",
    test: str = "rank-sum",
    significance: float = 0.05,
) -> pd.DataFrame:
    """Marks of every competitor against the reference, per data set.

    Parameters
    ----------
    per_run : pandas.DataFrame
        Columns ``algorithm``, ``dataset``, ``run`` and ``metric`` (e.g. the
        output of :func:`per_run_scores`).
    metric : str
        Column compared, higher is better ("mRI", "mNMI").
    reference : str, default="ERCOT"
    test, significance
        As in :func:`mark_against_reference`.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``algorithm``, ``p_value``, ``mark``; one row per
        competitor and data set where both have runs.
    """
    rows = []
    for dataset, block in per_run.groupby("dataset", sort=False):
        values = {name: group.set_index("run")[metric] for name, group in block.groupby("algorithm", sort=False)}
        if reference not in values:
            continue
        for name, competitor in values.items():
            if name == reference:
                continue
            p_value, mark = mark_against_reference(values[reference], competitor, test=test,
                                                   significance=significance)
            rows.append({"dataset": dataset, "algorithm": name, "p_value": p_value, "mark": mark})
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "p_value", "mark"])


def summary_table(
    table: pd.DataFrame,
    *,
    reference: str = "ERCOT",
    test: str = "rank-sum",
    significance: float = 0.05,
) -> pd.DataFrame:
    """Mean ± std of mRI and mNMI per algorithm and data set, with marks and the paper's numbers.

    Parameters
    ----------
    table : pandas.DataFrame
        The run table of :func:`run_experiments`.
    reference : str, default="ERCOT"
        Algorithm the others are tested against.
    test, significance
        As in :func:`mark_against_reference`.

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, algorithm) with ``status`` ("ok" when at
        least one run succeeded, else "n/a" or "failed"), ``n_runs``,
        ``n_not_applicable``, ``n_failed``, ``<m>_mean``, ``<m>_std``,
        ``<m>_p``, ``<m>_mark``, ``paper_<m>_mean``, ``paper_<m>_std``,
        ``paper_<m>_mark`` for m in mRI, mNMI, and ``seconds_per_step``,
        ``mean_clusters``.
    """
    per_run = per_run_scores(table)
    runs = table.drop_duplicates(["algorithm", "dataset", "run"])
    counts = runs.groupby(["dataset", "algorithm"], sort=False)["status"].value_counts().unstack(fill_value=0)
    rows = []
    for (dataset, algorithm), count in counts.iterrows():
        mine = per_run[(per_run["dataset"] == dataset) & (per_run["algorithm"] == algorithm)]
        n_ok = int(count.get(STATUS_OK, 0))
        status = STATUS_OK if n_ok else (STATUS_NOT_APPLICABLE if count.get(STATUS_NOT_APPLICABLE, 0)
                                         else STATUS_FAILED)
        row: dict[str, Any] = {
            "dataset": dataset, "algorithm": algorithm, "status": status, "n_runs": n_ok,
            "n_not_applicable": int(count.get(STATUS_NOT_APPLICABLE, 0)),
            "n_failed": int(count.get(STATUS_FAILED, 0)),
            "seconds_per_step": mine["seconds_per_step"].mean(),
            "mean_clusters": mine["mean_clusters"].mean(),
        }
        for metric in ("mRI", "mNMI"):
            row[f"{metric}_mean"] = mine[metric].mean()
            row[f"{metric}_std"] = mine[metric].std(ddof=1)
            paper = paper_value(metric, dataset, algorithm)
            row[f"paper_{metric}_mean"], row[f"paper_{metric}_std"], row[f"paper_{metric}_mark"] = (
                paper if paper is not None else (np.nan, np.nan, "")
            )
        rows.append(row)
    summary = pd.DataFrame(rows)
    for metric in ("mRI", "mNMI"):
        marks = significance_marks(per_run, metric, reference=reference, test=test, significance=significance)
        marks = marks.rename(columns={"p_value": f"{metric}_p", "mark": f"{metric}_mark"})
        summary = summary.merge(marks, on=["dataset", "algorithm"], how="left")
        summary[f"{metric}_mark"] = summary[f"{metric}_mark"].fillna("")
    return summary


def seconds_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds per time step: algorithms x data sets, plus the paper's columns.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`summary_table`.

    Returns
    -------
    pandas.DataFrame
        Index: algorithm; columns: data sets, then ``paper <data set>`` for
        each data set of the sweep the paper timed (Syn1, bird_flocks,
        video_mo), or ``paper Syn1`` when there is none.
    """
    wide = summary.pivot(index="algorithm", columns="dataset", values="seconds_per_step")
    wide = wide.reindex(index=algorithm_order(list(wide.index)),
                        columns=list(dict.fromkeys(summary["dataset"])))
    timed = [name for name in wide.columns if name in PAPER_SECONDS_PER_STEP] or ["syn1"]
    for name in timed:
        paper = PAPER_SECONDS_PER_STEP[name]
        wide[f"paper {display_dataset(name)}"] = [lookup(paper, a, np.nan) for a in wide.index]
    return wide


def smallest_p_value(n_runs: int, test: str) -> float:
    """Smallest two-sided exact p-value of the test with ``n_runs`` runs per side (no ties)."""
    if test == "signed-rank":
        return min(1.0, 2.0 / 2.0**n_runs)
    return min(1.0, 2.0 / comb(2 * n_runs, n_runs))
