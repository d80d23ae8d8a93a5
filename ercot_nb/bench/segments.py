"""ERCOT's final partition (nearest centroid or Gaussian mixture) on the videos and the checks, over data seeds.

``ercot-nb bench quality --segments`` prints, per data set: the mean and sd
of mRI over the algorithm seeds on each data seed, for ERCOT with
``final_partition="nearest"`` (the paper), ``"mixture"`` and
``"cv_mixture"``, beside the
oracle (nearest true mean), k-means and a Gaussian mixture given the true
number of segments at every step (scikit-learn, seeded), the Welch test of
each option against nearest over every run, and the seconds per step of both.
Runs are made one after another in this process (every number of one report
is measured in the same run).
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .. import ERCOT, datasets
from ..evolution import FINAL_PARTITIONS
from ..metrics import mean_scores

VIDEO_CASES: dict[str, dict[str, Any]] = {
    "video_bt": {"scale": 0.5}, "video_mo": {}, "video_rc": {"scale": 0.25},
}
"""The video scenes and their sizes (video_bt at half, video_rc at a quarter of the paper's)."""
CHECK_CASES: dict[str, dict[str, Any]] = {**{f"syn{i}": {} for i in range(1, 9)}, "bird_flocks": {}}
"""Data sets on which the mixture must not do worse than the paper's partition."""
REFERENCES: tuple[str, ...] = ("k-means, true k", "Gaussian mixture, true k")


def _reference_labels(method: str, data, seed: int) -> list[np.ndarray]:
    """Per step, scikit-learn's k-means or Gaussian mixture given the step's true number of segments."""
    from sklearn.cluster import KMeans
    from sklearn.mixture import GaussianMixture

    labels = []
    for snapshot in data:
        k = len(np.unique(snapshot.labels))
        if method == REFERENCES[0]:
            model = KMeans(n_clusters=k, n_init=1, random_state=seed)
        else:
            model = GaussianMixture(n_components=k, covariance_type="full", random_state=seed)
        labels.append(model.fit_predict(snapshot.X))
    return labels


def gaussian_ceiling(data) -> list[np.ndarray]:
    """Per step, the labels of the Gaussian mixture of the true segments (a supervised ceiling).

    Each true segment is one component, with its share of the samples, its
    mean and its (maximum-likelihood) covariance; every sample takes its most
    probable component.  No unsupervised method that models segments as
    Gaussians in these features should beat it by much: where it falls short
    of a target, the gap is the features', not the method's.

    Parameters
    ----------
    data : TemporalDataset
        With true labels.

    Returns
    -------
    list of ndarray
        One label array per step.
    """
    from scipy.stats import multivariate_normal

    out = []
    for snapshot in data:
        X = np.asarray(snapshot.X, dtype=np.float64)
        segments, truth = np.unique(snapshot.labels, return_inverse=True)
        reg = 1e-6 * float(X.var(axis=0).mean() or 1.0)
        log_dens = np.empty((len(X), len(segments)))
        for j in range(len(segments)):
            members = X[truth == j]
            cov = np.atleast_2d(np.cov(members.T, bias=True)) if len(members) > 1 else np.zeros((X.shape[1],) * 2)
            cov[np.diag_indices_from(cov)] += reg
            log_dens[:, j] = np.log(len(members) / len(X)) + multivariate_normal(members.mean(axis=0), cov).logpdf(X)
        out.append(np.argmax(log_dens, axis=1))
    return out


def segment_runs(
    runs: int = 10,
    data_seeds: Sequence[int] = (0, 1, 2),
    cases: Mapping[str, Mapping[str, Any]] | None = None,
    final_partitions: Sequence[str] = FINAL_PARTITIONS,
    references: bool = True,
    estimator_params: Mapping[str, Any] | None = None,
    progress=None,
) -> pd.DataFrame:
    """Every (data set, data seed, method, seed) run, as a tidy table.

    Parameters
    ----------
    runs : int
        Algorithm seeds ``0..runs-1`` per data set and data seed.
    data_seeds : sequence of int
    cases : mapping, optional
        Name -> ``datasets.load`` arguments (default: :data:`VIDEO_CASES`
        then :data:`CHECK_CASES`).
    final_partitions : sequence of str
        ERCOT's ``final_partition`` values to run.
    references : bool
        Also run k-means and a Gaussian mixture with the true k per step
        (needs scikit-learn) and score the oracle.
    estimator_params : mapping, optional
        Further ERCOT parameters (e.g. a smaller ``n_evaluations`` for a test).
    progress : callable, optional
        Called with each finished row (a dict).

    Returns
    -------
    pandas.DataFrame
        ``dataset, data_seed, method, seed, mRI, mNMI, clusters, seconds_per_step``
        (method: ``"ERCOT nearest"``, ``"ERCOT mixture"``, the references,
        ``"oracle"``; the oracle has no seed and no time).
    """
    cases = dict(cases) if cases is not None else {**VIDEO_CASES, **CHECK_CASES}
    rows = []

    def add(row):
        rows.append(row)
        if progress is not None:
            progress(row)

    # data seed, then algorithm seed, then data set: a sweep stopped early has covered every data set
    for data_seed in data_seeds:
        loaded = {name: datasets.load(name, seed=int(data_seed), **dict(load_args))
                  for name, load_args in cases.items()}
        if references:
            for name, data in loaded.items():
                scores = mean_scores(data, datasets.oracle_partition(data))
                add({"dataset": name, "data_seed": int(data_seed), "method": "oracle", "seed": -1, **scores,
                     "clusters": np.nan, "seconds_per_step": np.nan})
        for seed in range(runs):
            for name, data in loaded.items():
                base = {"dataset": name, "data_seed": int(data_seed)}
                # the options one after another on the same seed: their time ratio is measured alike
                for option in final_partitions:
                    started = time.perf_counter()
                    model = ERCOT(seed=seed, final_partition=option, **dict(estimator_params or {})).fit(data)
                    seconds = (time.perf_counter() - started) / len(data)
                    add({**base, "method": f"ERCOT {option}", "seed": seed, **mean_scores(data, model.labels_),
                         "clusters": float(model.n_clusters_.mean()), "seconds_per_step": seconds})
                if references:
                    for method in REFERENCES:
                        started = time.perf_counter()
                        labels = _reference_labels(method, data, seed)
                        seconds = (time.perf_counter() - started) / len(data)
                        add({**base, "method": method, "seed": seed, **mean_scores(data, labels),
                             "clusters": float(np.mean([len(np.unique(lab)) for lab in labels])),
                             "seconds_per_step": seconds})
    return pd.DataFrame(rows, columns=["dataset", "data_seed", "method", "seed", "mRI", "mNMI", "clusters",
                                       "seconds_per_step"])


def segment_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per data set and method: mean ± sd of mRI on each data seed and over all runs.

    Columns ``ds<seed>`` hold ``"mean ± sd"`` over the algorithm seeds of that
    data seed; ``mRI``/``sd`` are over every run; for ``ERCOT mixture``,
    ``welch_p`` is Welch's t-test against ``ERCOT nearest`` over every run and
    ``time_ratio`` its mean seconds per step over nearest's.
    """
    out = []
    for (name, method), block in table.groupby(["dataset", "method"], sort=False):
        row = {"dataset": name, "method": method}
        for data_seed, part in block.groupby("data_seed"):
            sd = part["mRI"].std()
            row[f"ds{data_seed}"] = f"{part['mRI'].mean():.3f}" + ("" if np.isnan(sd) else f" ± {sd:.3f}")
        row.update(mRI=block["mRI"].mean(), sd=block["mRI"].std(), clusters=block["clusters"].mean(),
                   seconds_per_step=block["seconds_per_step"].mean(), welch_p=np.nan, time_ratio=np.nan)
        if method.startswith("ERCOT ") and method != "ERCOT nearest":
            nearest = table[(table["dataset"] == name) & (table["method"] == "ERCOT nearest")]
            if len(nearest) > 1 and len(block) > 1:
                row["welch_p"] = float(stats.ttest_ind(block["mRI"], nearest["mRI"], equal_var=False).pvalue)
                row["time_ratio"] = block["seconds_per_step"].mean() / nearest["seconds_per_step"].mean()
        out.append(row)
    return pd.DataFrame(out)


def format_segments(summary: pd.DataFrame) -> str:
    """The summary as a text table."""
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        return summary.to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep="")
