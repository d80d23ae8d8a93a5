"""Quality of ``precision="float32"`` against float64: ERCOT's mRI over seeds, set by set.

The condition for an option whose results are not bit-identical: over
10 seeds on Syn1-Syn8, bird_flocks and video_mo, float32's mean mRI is within
the seed noise of float64's (Welch's t-test p > 0.05 and a difference of
less than one float64 seed standard deviation).  ``ercot-nb bench precision``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .. import datasets
from ..evolution import ERCOT
from ..metrics import mean_scores
from ..evolution import PRECISIONS

PRECISION_DATASETS = tuple(f"syn{i}" for i in range(1, 9)) + ("bird_flocks", "video_mo")


def precision_runs(runs: int = 10, names=PRECISION_DATASETS, data_seed: int = 0, **params) -> pd.DataFrame:
    """mRI of ERCOT (defaults, or ``params``) with each precision, seeds ``0..runs-1``.

    Returns one row per (dataset, precision, seed).
    """
    rows = []
    for name in names:
        data = datasets.load(name, seed=data_seed)
        for precision in PRECISIONS:
            for seed in range(runs):
                labels = ERCOT(seed=seed, precision=precision, **params).fit_predict(data)
                rows.append({"dataset": name, "precision": precision, "seed": seed,
                             "mRI": mean_scores(data, labels)["mRI"]})
    return pd.DataFrame(rows)


def precision_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: mean and sd of each precision, Welch's p and whether float32 is within the noise."""
    rows = []
    for name, runs in table.groupby("dataset", sort=False):
        double = runs.loc[runs.precision == "float64"].sort_values("seed").mRI.to_numpy()
        single = runs.loc[runs.precision == "float32"].sort_values("seed").mRI.to_numpy()
        same = np.array_equal(double, single)
        p = 1.0 if same else float(stats.ttest_ind(double, single, equal_var=False).pvalue)
        sd = float(double.std(ddof=1)) if len(double) > 1 else 0.0
        difference = float(single.mean() - double.mean())
        rows.append({"dataset": name, "float64_mRI": double.mean(), "float64_sd": sd,
                     "float32_mRI": single.mean(), "float32_sd": float(single.std(ddof=1)) if len(single) > 1 else 0.0,
                     "difference": difference, "welch_p": p, "identical_seeds": int((double == single).sum()),
                     "within_noise": bool(same or (p > 0.05 and abs(difference) < sd))})
    return pd.DataFrame(rows)
