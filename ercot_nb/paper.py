"""The paper's published numbers, read from the one data file ``paper_results.csv``.

Zhao, Yan & Shi, "Evolutionary robust clustering over time for temporal
data", IEEE Transactions on Cybernetics (2021): Tables II and III (mRI and
mNMI on Syn1-Syn8), IV (seconds per time step), V and VI (mRI on the flock
and video data).  The experiments' report, ``ercot-nb bench quality`` and
the data sets' ``metadata`` all read them from here.

>>> from ercot_nb import paper
>>> paper.paper_value("mRI", "syn1", "ERCOT")
(0.9545, 0.0032, '')
>>> paper.PAPER_SECONDS_PER_STEP["video_mo"]["ERCOT"]
1.9953
"""
from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .algorithms import name_key

__all__ = ["PAPER_ALGORITHMS", "PAPER_RESULTS", "PAPER_SECONDS_PER_STEP", "dataset_numbers", "paper_value"]

SCORE_METRICS = ("mRI", "mNMI")
SECONDS_METRIC = "seconds_per_step"


def _read() -> pd.DataFrame:
    with resources.files(__package__).joinpath("paper_results.csv").open(encoding="utf-8") as file:
        return pd.read_csv(file, comment="#", dtype={"mark": str}, keep_default_na=False,
                           na_values={"mean": [""], "std": [""]})


_TABLE = _read()

PAPER_RESULTS: pd.DataFrame = _TABLE[_TABLE["metric"].isin(SCORE_METRICS)].reset_index(drop=True)
"""The paper's Tables II, III, V and VI as a tidy table.

Columns ``metric`` ("mRI" or "mNMI"), ``dataset``, ``algorithm``, ``mean``,
``std`` (NaN for the paper's "n/a") and ``mark`` (the paper's Wilcoxon mark
against ERCOT: ``">"`` ERCOT significantly better, ``"≈"`` no significant
difference, ``""`` the competitor significantly better, or ERCOT itself).
"""

PAPER_ALGORITHMS: tuple[str, ...] = tuple(dict.fromkeys(PAPER_RESULTS["algorithm"]))
"""Column order of the paper's tables; ERCOT, the reference of the marks, is last."""

PAPER_SECONDS_PER_STEP: dict[str, dict[str, float]] = {
    dataset: dict(zip(block["algorithm"], block["mean"].astype(float)))
    for dataset, block in _TABLE[_TABLE["metric"] == SECONDS_METRIC].groupby("dataset", sort=False)
}
"""The paper's Table IV: mean seconds per time step, by data set and algorithm (missing: n/a)."""


def paper_value(metric: str, dataset: str, algorithm: str) -> tuple[float, float, str] | None:
    """(mean, std, mark) of one cell of the paper's tables, or ``None`` where it has none.

    Parameters
    ----------
    metric : {"mRI", "mNMI", "seconds_per_step"}
    dataset : str
        Built-in data set name ("syn3", "bird_flocks", "video_mo", ...).
    algorithm : str
        Any spelling of a registered name ("k-meansCOT", "kmeanscot").

    Returns
    -------
    tuple or None
        The mean is NaN for the paper's "n/a"; the std is NaN for Table IV.
    """
    rows = _TABLE[(_TABLE["metric"] == metric) & (_TABLE["dataset"] == dataset)
                  & (_TABLE["algorithm"].map(name_key) == name_key(algorithm))]
    if rows.empty:
        return None
    row = rows.iloc[0]
    return float(row["mean"]), float(row["std"]), str(row["mark"])


def dataset_numbers(
    dataset: str,
    algorithms: tuple[str, ...] = ("ERCOT", "staticEC"),
    metrics: tuple[str, ...] = ("mRI", SECONDS_METRIC),
) -> dict[str, float]:
    """The paper's numbers of one data set as ``{"<algorithm>_<metric>": mean}`` (for ``metadata``).

    Cells the paper leaves empty or does not have are left out.

    >>> dataset_numbers("video_bt")
    {'ERCOT_mRI': 0.7335, 'staticEC_mRI': 0.7157}
    """
    numbers = {}
    for algorithm in algorithms:
        for metric in metrics:
            cell = paper_value(metric, dataset, algorithm)
            if cell is not None and np.isfinite(cell[0]):
                numbers[f"{algorithm}_{metric}"] = cell[0]
    return numbers
