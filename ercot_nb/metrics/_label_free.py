"""Label-free scores of a temporal clustering: how good, how smooth.

Without true labels, a run can still be judged step by step:

* within-step quality: the silhouette (on a bounded, seeded sample of the
  step, so that large steps stay cheap), the paper's two objectives f_cp
  (sum of distances to the nearest centroid) and f_sep (inverse of the
  smallest distance between centroids) of the step's centroids, and the
  number of clusters;
* temporal smoothness between consecutive steps, over the ids present at
  both: the churn (the share of those ids whose time-aligned cluster
  changes) and the NMI of the two partitions restricted to them.

:func:`label_free_steps` gives all of them as one tidy table, one row per
step.  The objectives reuse the package's own objective kernel
(``evaluate_population`` of the NumPy backend), so they equal the values the
search saw for a member without empty centroids.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist

from ..data import Snapshot, TemporalDataset, common_ids
from ..params import check_argument
from ._agreement import nmi

__all__ = [
    "silhouette",
    "centroid_objectives",
    "churn",
    "consecutive_nmi",
    "label_free_steps",
    "LABEL_FREE_COLUMNS",
]

LABEL_FREE_COLUMNS = (
    "t", "time", "n_samples", "n_clusters", "silhouette", "f_cp", "f_sep",
    "n_common", "churn", "consecutive_nmi",
)


def _check_sample(owner: str, sample_size: Any, seed: Any) -> tuple[int | None, Any]:
    sample_size = check_argument(owner, "sample_size", sample_size, "int", default=1000, low=2, optional=True)
    seed = check_argument(owner, "seed", seed, "seed", default=0, optional=True)
    return sample_size, seed


def _finite_rows(owner: str, name: str, X: Any) -> np.ndarray:
    """``X`` as a 2-D float64 array; refuse NaN or inf, naming the rows."""
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{owner}: {name} must be numbers: {exc}") from None
    if X.ndim != 2:
        raise ValueError(f"{owner}: {name} must be 2-D (n, n_features), got shape {X.shape}")
    bad = np.flatnonzero(~np.isfinite(X).all(axis=1))
    if bad.size:
        raise ValueError(
            f"{owner}: {bad.size} row(s) of {name} hold NaN or inf (rows {bad[:5].tolist()}); "
            "a score over them is undefined. Drop or fill those rows"
        )
    return X


def _sample(n: int, sample_size: int | None, seed: Any) -> np.ndarray:
    """Sorted positions of a seeded sample without replacement (all if small)."""
    if sample_size is None or n <= sample_size:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=int(sample_size), replace=False))


def silhouette(
    X: np.ndarray, labels: Any, *, sample_size: int | None = 1000, seed: Any = 0
) -> float:
    """Mean silhouette coefficient (Euclidean) on a bounded, seeded sample.

    Same value as ``sklearn.metrics.silhouette_score(X[s], labels[s])`` on the
    sample ``s`` this function draws: a sample's silhouette is
    ``(b - a) / max(a, b)`` with ``a`` its mean distance to the other members
    of its cluster and ``b`` the smallest mean distance to another cluster;
    members of singleton clusters score 0.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : array-like of shape (n_samples,)
    sample_size : int or None, default=1000
        At most this many samples (drawn without replacement) enter the
        O(m^2) distance matrix; ``None`` uses all.
    seed : int or None, default=0
        Seed of the sample draw.

    Returns
    -------
    float
        In [-1, 1]; nan when the sample has one cluster, or as many clusters
        as samples (the silhouette is undefined there).

    Raises
    ------
    ValueError
        For a row of ``X`` with NaN or inf (the message names it), labels
        that do not match the rows, or a ``sample_size`` below 2.
    TypeError
        For a ``sample_size`` or ``seed`` of the wrong type (e.g. a bool).
    """
    sample_size, seed = _check_sample("silhouette", sample_size, seed)
    return _silhouette(X, labels, sample_size, seed)


def _silhouette(X: Any, labels: Any, sample_size: int | None, seed: Any) -> float:
    """:func:`silhouette` on checked options (``seed`` may also be a tuple of ints)."""
    X = _finite_rows("silhouette", "X", X)
    labels = np.asarray(labels)
    if X.ndim != 2 or labels.shape != (X.shape[0],):
        raise ValueError(f"X must be 2-D with one label per row; got X {X.shape}, labels {labels.shape}")
    keep = _sample(len(X), sample_size, seed)
    X, labels = X[keep], labels[keep]
    _, codes = np.unique(labels, return_inverse=True)
    codes = codes.reshape(-1)
    k = int(codes.max()) + 1 if len(codes) else 0
    if not 2 <= k <= len(codes) - 1:
        return float("nan")
    distances = cdist(X, X)
    sums = np.zeros((len(X), k))
    np.add.at(sums.T, codes, distances)  # sums[i, c]: distance of i to all of cluster c
    sizes = np.bincount(codes, minlength=k).astype(np.float64)
    own = sizes[codes]
    rows = np.arange(len(X))
    a = np.divide(sums[rows, codes], own - 1, out=np.zeros(len(X)), where=own > 1)
    mean_other = sums / sizes
    mean_other[rows, codes] = np.inf
    b = mean_other.min(axis=1)
    s = np.divide(b - a, np.maximum(a, b), out=np.zeros(len(X)), where=np.maximum(a, b) > 0)
    s[own <= 1] = 0.0
    return float(s.mean())


def centroid_objectives(X: np.ndarray, centroids: np.ndarray) -> tuple[float, float]:
    """The paper's objectives (f_cp, f_sep) of a set of centroids on one step.

    Every sample counts at its nearest centroid (the paper's u_sc), so
    ``f_cp`` is the sum of those distances and ``f_sep`` the inverse of the
    smallest distance between two centroids (inf with fewer than two).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centroids : ndarray of shape (n_clusters, n_features)

    Returns
    -------
    f_cp, f_sep : float
    """
    from ..kernels import get_backend

    X = np.ascontiguousarray(_finite_rows("centroid_objectives", "X", X))
    centroids = _finite_rows("centroid_objectives", "centroids", centroids)
    if centroids.ndim != 2 or centroids.shape[1] != X.shape[1] or len(centroids) == 0:
        raise ValueError(
            f"centroids must have shape (k >= 1, {X.shape[1]}), got {centroids.shape}"
        )
    k = len(centroids)
    chromosome = np.concatenate([np.ones(k), centroids.ravel()])[None, :]
    f_cp, f_sep = np.empty(1), np.empty(1)
    counts = np.empty((1, k), dtype=np.int64)
    get_backend("numpy").evaluate_population(X, chromosome, k, False, f_cp, f_sep, counts)
    return float(f_cp[0]), float(f_sep[0])


def _common_positions(ids_prev: np.ndarray, ids_curr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the ids present at both steps (as :func:`ercot_nb.data.common_ids`)."""
    empty = np.empty((len(ids_prev), 0)), np.empty((len(ids_curr), 0))
    return common_ids(Snapshot(0, np.asarray(ids_prev), empty[0]), Snapshot(1, np.asarray(ids_curr), empty[1]))


def churn(ids_prev: Any, aligned_prev: Any, ids_curr: Any, aligned_curr: Any) -> float:
    """Share of the common ids whose time-aligned cluster changes.

    Parameters
    ----------
    ids_prev, aligned_prev : array-like of shape (n_prev,)
        Ids and time-aligned labels of the earlier step.
    ids_curr, aligned_curr : array-like of shape (n_curr,)
        The same for the later step.

    Returns
    -------
    float
        In [0, 1]; 0 for identical partitions, nan without common ids.
    """
    ia, ib = _common_positions(ids_prev, ids_curr)
    if len(ia) == 0:
        return float("nan")
    return float(np.mean(np.asarray(aligned_prev)[ia] != np.asarray(aligned_curr)[ib]))


def consecutive_nmi(ids_prev: Any, labels_prev: Any, ids_curr: Any, labels_curr: Any) -> float:
    """NMI (geometric mean) of two consecutive partitions over their common ids.

    Label numbering does not matter; 1 for identical partitions, nan without
    common ids.  Arguments as in :func:`churn`.
    """
    ia, ib = _common_positions(ids_prev, ids_curr)
    if len(ia) == 0:
        return float("nan")
    return nmi(np.asarray(labels_prev)[ia], np.asarray(labels_curr)[ib])


def label_free_steps(
    result: Any, data: TemporalDataset, *, sample_size: int | None = 1000, seed: Any = 0, start: int = 0,
    objectives: bool = True,
) -> pd.DataFrame:
    """Label-free scores of every step of a run, as one tidy table.

    Parameters
    ----------
    result : ClusteringResult
        A fitted run (``model.result_``).
    data : TemporalDataset
        The data it was fitted on (same steps, same sample order).
    sample_size : int or None, default=1000
        Samples per step for the silhouette (see :func:`silhouette`).
    seed : int or None, default=0
        Seed of the silhouette samples (step ``t`` draws with ``(seed, t)``).
    start : int, default=0
        Score steps ``start..`` only (compared with step ``start - 1``): the
        rows equal those of the whole table, so a growing run's table can be
        extended.
    objectives : bool, default=True
        Compute ``f_cp`` and ``f_sep`` (one nearest-centroid pass over each
        step's samples); False leaves those two columns out, for callers
        that do not show them.

    Returns
    -------
    pandas.DataFrame
        One row per step with the columns :data:`LABEL_FREE_COLUMNS`:
        ``t, time, n_samples, n_clusters, silhouette, f_cp, f_sep`` (of the
        step's centroids, :func:`centroid_objectives`), ``n_common`` (ids
        shared with the previous step), ``churn`` and ``consecutive_nmi``
        (nan at the first step and where no id is shared).

    Raises
    ------
    ValueError
        If the steps of ``result`` and ``data`` differ in number, or a step's
        ids differ (the message names the step).
    """
    sample_size, seed = _check_sample("label_free_steps", sample_size, seed)
    objectives = check_argument("label_free_steps", "objectives", objectives, "bool", default=True)
    steps = list(result)
    if len(steps) != len(data):
        raise ValueError(
            f"the result has {len(steps)} step(s) but the data has {len(data)}; pass the "
            "dataset the run was fitted on"
        )
    start = check_argument("label_free_steps", "start", start, "int", default=0, low=0, high=len(steps))
    rows = []
    previous = steps[start - 1] if start else None
    for step, snapshot in zip(steps[start:], list(data)[start:]):
        if len(step.ids) != len(snapshot.ids) or not np.array_equal(step.ids, snapshot.ids):
            raise ValueError(
                f"step {step.t} (time={step.time!r}): the result's ids differ from the data's; "
                "pass the dataset the run was fitted on"
            )
        f_cp, f_sep = (
            centroid_objectives(snapshot.X, step.centroids) if objectives and len(step.centroids)
            else (np.nan, np.nan)
        )
        row = {
            "t": step.t,
            "time": step.time,
            "n_samples": step.n_samples,
            "n_clusters": step.n_clusters,
            "silhouette": _silhouette(snapshot.X, step.labels, sample_size,
                                      seed if seed is None or isinstance(seed, np.random.Generator)
                                      else (seed, step.t)),
            "f_cp": f_cp,
            "f_sep": f_sep,
            "n_common": 0,
            "churn": np.nan,
            "consecutive_nmi": np.nan,
        }
        if previous is not None:
            ia, _ = _common_positions(previous.ids, step.ids)
            row["n_common"] = int(len(ia))
            row["churn"] = churn(previous.ids, previous.aligned_labels, step.ids, step.aligned_labels)
            row["consecutive_nmi"] = consecutive_nmi(previous.ids, previous.labels, step.ids, step.labels)
        rows.append(row)
        previous = step
    columns = [c for c in LABEL_FREE_COLUMNS if objectives or c not in ("f_cp", "f_sep")]
    return pd.DataFrame(rows, columns=columns)
