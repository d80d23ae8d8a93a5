"""Smoothness-weight auto-tuning by stacked density estimation.

At every time step t > 1, ERCOT weighs the objectives of the previous data by
alpha^{t-1}, the significance of A^{t-1} for modelling A^t (paper, section
"Smoothness Weight Auto-Tuning"; docs/algorithm.md, *Smoothness weight*):

0. centre each step by the mean over all its samples, keep the common samples;
1. take the pseudo-partition of A^t (computed by the caller) and the final
   partition of A^{t-1}, both restricted to the common samples;
2. match their clusters by the Hungarian algorithm on the contingency table;
3. per matched pair i, build an (n_i, 2) table of out-of-sample
   log-likelihoods of A_i^t: a Gaussian fitted on A_i^t by v-fold
   cross-validation (current model phi_1) and a Gaussian fitted on all of
   A_i^{t-1} (historical model phi_2);
4. estimate the stacking weight alpha_i of phi_2 by EM in log space;
5. aggregate the alpha_i weighted by cluster sizes.

The cross-validated fits are obtained by downdating sufficient statistics
(the total sum and scatter minus each fold's) and factorised by a Cholesky
decomposition vectorised over the folds, so the cost is O(n D^2 + v D^3)
with no Python loop over samples or folds. Leave-one-out on 50,000 samples
takes milliseconds.

Steps 3-4 of every pair run in one numba kernel (``smoothness_pair_alphas``,
the NumPy functions here are its oracle and recompute a pair whose
covariance rounding made indefinite).  For large work on several threads with
free cores, the engine's thread policy (``Engine.kernel_for``) picks its
parallel variant, which spreads each pair's rows (blocks of
``SMOOTHNESS_BLOCK`` rows, partial sums added in block order) and folds over
the threads and gives the same bits.

Plain, slow twins of the cross-validation and of the EM
(``_gaussian_cv_loglik_twin`` and ``_stacking_alpha_exact``) serve as test
oracles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ._pairs import pair_alphas
from ._stacking import _finite_rows, _stacking_alpha_exact, stacking_em  # noqa: F401 (re-exported)

__all__ = [
    "AGGREGATES",
    "AGGREGATE_WORDS",
    "SmoothnessWeight",
    "gaussian_cv_loglik",
    "gaussian_loglik",
    "match_clusters",
    "pair_ridge",
    "smoothness_weight",
    "stacking_em",
]

AGGREGATES = ("common", "matched")
AGGREGATE_WORDS = {"common": "one common weight", "matched": "per matched cluster"}

_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass(frozen=True, eq=False)
class SmoothnessWeight:
    """Result of :func:`smoothness_weight`.

    Immutable; compared by identity (its fields are arrays).

    Attributes
    ----------
    alpha : float
        Aggregated smoothness weight alpha^{t-1} in [0, 1].
    pairs : ndarray of shape (n_pairs, 2)
        Matched clusters with non-zero overlap, as
        (cluster label at t, cluster label at t-1).
    alpha_pairs : ndarray of shape (n_pairs,)
        Stacking weight of each pair; nan for pairs skipped because one side
        has fewer than 2 samples.
    sizes_prev : ndarray of shape (n_pairs,)
        |A_i^{t-1}|: common samples in the matched cluster of t-1.
    sizes_curr : ndarray of shape (n_pairs,)
        |A_i^t|: common samples in the pseudo-cluster of t.
    n_common : int
        Number of common samples.
    """

    alpha: float
    pairs: np.ndarray = field(default_factory=lambda: np.empty((0, 2), dtype=np.int64))
    alpha_pairs: np.ndarray = field(default_factory=lambda: np.empty(0))
    sizes_prev: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    sizes_curr: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    n_common: int = 0


# --------------------------------------------------------------------------- #
# Cluster matching
# --------------------------------------------------------------------------- #
def match_clusters(
    labels_curr: np.ndarray, labels_prev: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Match clusters at t to clusters at t-1 by maximum total overlap.

    Parameters
    ----------
    labels_curr : ndarray of shape (n_common,)
        Labels at t of the common samples.
    labels_prev : ndarray of shape (n_common,)
        Labels at t-1 of the same samples, row-aligned with `labels_curr`.

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2)
        (label at t, label at t-1) of each matched pair, sorted by the label
        at t. Pairs with zero overlap are dropped.
    overlaps : ndarray of shape (n_pairs,)
        Number of common samples shared by each pair.
    """
    pairs, overlaps, _ = _match_codes(labels_curr, labels_prev)
    return pairs, overlaps


def _unique_inverse(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(labels, return_inverse=True)``; by counting for small non-negative integer labels."""
    if labels.dtype.kind in "iu" and labels.min() >= 0 and labels.max() <= 4 * labels.size:
        present = np.bincount(labels) > 0
        code = np.cumsum(present) - 1
        return np.flatnonzero(present).astype(labels.dtype), code[labels]
    return np.unique(labels, return_inverse=True)


def _match_codes(labels_curr: np.ndarray, labels_prev: np.ndarray) -> tuple:
    """:func:`match_clusters`, plus the clusters as integer codes.

    Returns ``pairs``, ``overlaps`` and ``(codes_curr, codes_prev, code_pairs,
    sizes_curr, sizes_prev)``: each sample's cluster index into the sorted
    labels of its step, the matched pairs as such indices, and the sizes of
    the matched clusters.
    """
    labels_curr = np.asarray(labels_curr).ravel()
    labels_prev = np.asarray(labels_prev).ravel()
    if labels_curr.shape != labels_prev.shape:
        raise ValueError("labels_curr and labels_prev must have the same length")
    if labels_curr.size == 0:
        empty = np.empty(0, dtype=np.int64)
        return np.empty((0, 2), dtype=np.int64), empty, (empty, empty, np.empty((0, 2), dtype=np.int64), empty, empty)

    uniq_curr, idx_curr = _unique_inverse(labels_curr)
    uniq_prev, idx_prev = _unique_inverse(labels_prev)
    n_curr, n_prev = uniq_curr.size, uniq_prev.size
    contingency = np.bincount(
        idx_curr * n_prev + idx_prev, minlength=n_curr * n_prev
    ).reshape(n_curr, n_prev)

    # imported here: scipy.optimize costs a fresh process (the Explorer's first page)
    # about 0.3 s that its first step does not need
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(contingency, maximize=True)
    overlaps = contingency[rows, cols]
    keep = overlaps > 0
    rows, cols = rows[keep], cols[keep]
    pairs = np.column_stack([uniq_curr[rows], uniq_prev[cols]])
    codes = (idx_curr.astype(np.int64), idx_prev.astype(np.int64), np.column_stack([rows, cols]).astype(np.int64),
             contingency.sum(axis=1)[rows], contingency.sum(axis=0)[cols])
    return pairs, overlaps[keep].astype(np.int64), codes


# --------------------------------------------------------------------------- #
# Gaussian models
# --------------------------------------------------------------------------- #
def pair_ridge(X_curr: np.ndarray, X_prev: np.ndarray) -> float:
    """Ridge shared by phi_1 and phi_2 of one matched pair.

    lambda = 1e-3 * tr(Sigma_pair) / D + 1e-12 * min(1, m2), Sigma_pair the covariance
    (ddof=1) of the union of the two sets, m2 its per-dimension second moment.

    Parameters
    ----------
    X_curr, X_prev : ndarray of shape (n, D) and (m, D)
        A_i^t and A_i^{t-1}.

    Returns
    -------
    float
    """
    n_union = X_curr.shape[0] + X_prev.shape[0]
    n_dims = X_curr.shape[1]
    if n_union < 2:
        return 1e-12
    # Two-pass trace of the union's covariance, without concatenating.
    mean = (X_curr.sum(axis=0) + X_prev.sum(axis=0)) / n_union
    scatter = np.sum((X_curr - mean) ** 2) + np.sum((X_prev - mean) ** 2)
    variance, level = float(scatter) / (n_union - 1) / n_dims, float(np.mean(mean**2))  # floor: unit-free below 1
    return 1e-3 * variance + 1e-12 * min(1.0, variance + level) if variance + level > 0 else 1e-12


def gaussian_loglik(X_train: np.ndarray, X_eval: np.ndarray, ridge: float) -> np.ndarray:
    """Log-density of a ridge-regularised Gaussian fitted on `X_train`.

    The mean is the ML mean; the covariance uses ddof=1 when there are at
    least 2 training samples and is zero otherwise; `ridge` * I is added.

    Parameters
    ----------
    X_train : ndarray of shape (n_train, D)
    X_eval : ndarray of shape (n_eval, D)
    ridge : float
        Positive ridge added to the covariance diagonal.

    Returns
    -------
    ndarray of shape (n_eval,)
    """
    X_train = np.asarray(X_train, dtype=float)
    X_eval = np.asarray(X_eval, dtype=float)
    n_train, n_dims = X_train.shape
    mean = X_train.mean(axis=0)
    centred = X_train - mean
    cov = centred.T @ centred / (n_train - 1) if n_train >= 2 else np.zeros((n_dims, n_dims))
    cov[np.diag_indices(n_dims)] += ridge

    chol = np.linalg.cholesky(cov)
    # Forward substitution L z = x - mu over all samples at once (D is small;
    # this avoids LAPACK call overhead that dominates for small clusters).
    resid = (X_eval - mean).T
    z = np.empty_like(resid)
    for i in range(n_dims):
        z[i] = (resid[i] - chol[i, :i] @ z[:i]) / chol[i, i]
    half_logdet = np.log(np.diag(chol)).sum()
    return -0.5 * (n_dims * _LOG_2PI + np.einsum("ij,ij->j", z, z)) - half_logdet


def _fold_split(
    n_samples: int, n_folds: int, rng: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray]:
    """Random split into `n_folds` folds of near-equal size.

    Returns ``order`` (a permutation of the samples) and ``starts`` (the
    position in `order` where each fold begins): fold k is
    ``order[starts[k]:starts[k + 1]]``. The first ``n_samples % n_folds``
    folds hold one sample more. With ``n_folds >= n_samples`` the split is
    leave-one-out in sample order and `rng` is not used.
    """
    if n_folds >= n_samples:
        order = np.arange(n_samples)
        return order, order.copy()
    if rng is None:
        raise ValueError("rng is required when n_folds < n_samples")
    return rng.permutation(n_samples), _fold_starts(n_samples, n_folds)


def _fold_starts(n_samples: int, n_folds: int) -> np.ndarray:
    """Where each of `n_folds` near-equal folds begins (the first ``n_samples % n_folds`` one longer)."""
    base, extra = divmod(n_samples, min(n_folds, n_samples))
    sizes = np.full(min(n_folds, n_samples), base)
    sizes[:extra] += 1
    return np.concatenate([[0], np.cumsum(sizes)[:-1]])


def _packed_cholesky(cov: np.ndarray, n_dims: int, floor: float) -> np.ndarray:
    """Cholesky factors of many D x D covariances in packed storage.

    Parameters
    ----------
    cov : ndarray of shape (D (D + 1) / 2, v)
        Lower triangles, entry-major in ``np.tril_indices(D)`` order: one row
        per matrix entry, one column per matrix.
    n_dims : int
        D.
    floor : float
        Lower bound of the exact eigenvalues. A matrix that rounding (from
        downdating) made indefinite has its eigenvalues raised to `floor` and is
        refactored.

    Returns
    -------
    ndarray of shape (D (D + 1) / 2, v)
        The lower Cholesky factors, packed like `cov`.
    """
    entry = _packed_entry_index(n_dims)
    chol = np.zeros_like(cov)
    failed = np.zeros(cov.shape[1], dtype=bool)
    # Column-by-column Cholesky, vectorised over the v matrices.
    for j in range(n_dims):
        pivot = cov[entry[j, j]] - sum(chol[entry[j, k]] ** 2 for k in range(j))
        failed |= ~(pivot > 0.0)
        diag = np.sqrt(np.where(pivot > 0.0, pivot, 1.0))
        chol[entry[j, j]] = diag
        for i in range(j + 1, n_dims):
            dot = sum(chol[entry[i, k]] * chol[entry[j, k]] for k in range(j))
            chol[entry[i, j]] = (cov[entry[i, j]] - dot) / diag
    if failed.any():
        rows, cols = _tril(n_dims)
        dense = np.zeros((int(failed.sum()), n_dims, n_dims))
        dense[:, rows, cols] = cov[:, failed].T
        dense[:, cols, rows] = cov[:, failed].T
        eigval, eigvec = np.linalg.eigh(dense)
        repaired = (eigvec * np.maximum(eigval, floor)[:, None, :]) @ np.swapaxes(eigvec, 1, 2)
        chol[:, failed] = np.linalg.cholesky(repaired)[:, rows, cols].T
    return chol


@lru_cache(maxsize=32)
def _tril(n_dims: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.tril_indices(n_dims)``, read-only and cached (the call costs ~20 us, once per pair and step)."""
    rows, cols = np.tril_indices(n_dims)
    rows.flags.writeable = cols.flags.writeable = False
    return rows, cols


@lru_cache(maxsize=32)
def _packed_entry_index(n_dims: int) -> np.ndarray:
    """(D, D) map from a lower-triangle entry (i, j), i >= j, to its packed row (read-only, cached)."""
    rows, cols = np.tril_indices(n_dims)
    entry = np.full((n_dims, n_dims), -1)
    entry[rows, cols] = np.arange(rows.size)
    entry.flags.writeable = False
    return entry


def gaussian_cv_loglik(
    X: np.ndarray,
    n_folds: int,
    ridge: float,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Cross-validated Gaussian log-density of each sample (fast path).

    Each fold's Gaussian (ML mean, ddof=1 covariance or zeros for a single
    training sample, plus `ridge` * I) is fitted on the other folds and
    evaluated on the held-out samples. Fits are obtained by downdating the
    total sum and scatter by each fold's, vectorised over folds; covariances
    and their Cholesky factors are kept as packed lower triangles, so the
    cost is O(n D^2 + v D^3) with only D^2 Python-level steps.

    Parameters
    ----------
    X : ndarray of shape (n, D)
        Samples, n >= 2.
    n_folds : int
        Number of folds, >= 2; values >= n mean leave-one-out.
    ridge : float
        Positive ridge added to every fold's covariance diagonal.
    rng : numpy.random.Generator, optional
        Draws the random fold split; unused for leave-one-out.

    Returns
    -------
    ndarray of shape (n,)
        Held-out log-density of each sample, in the row order of `X`.
    """
    X = np.asarray(X, dtype=float)
    n_samples, n_dims = X.shape
    if n_samples < 2 or n_folds < 2:
        raise ValueError("need at least 2 samples and 2 folds")
    order, starts = _fold_split(n_samples, n_folds, rng)
    return _split_cv_loglik(X, order, starts, ridge)


def _split_cv_loglik(X: np.ndarray, order: np.ndarray, starts: np.ndarray, ridge: float) -> np.ndarray:
    """:func:`gaussian_cv_loglik` on a given fold split (``order``, ``starts`` of :func:`_fold_split`)."""
    n_samples, n_dims = X.shape
    leave_one_out = starts.size == n_samples
    entry = _packed_entry_index(n_dims)
    rows, cols = _tril(n_dims)
    diag = entry[np.arange(n_dims), np.arange(n_dims)]

    # Features as rows (D, n), samples in fold order, shifted by the sample mean
    # so that downdating subtracts moderate numbers.
    shifted = np.ascontiguousarray((X[order] - X.mean(axis=0)).T)
    outer = shifted[rows] * shifted[cols]  # packed x x^T, (P, n)
    if leave_one_out:  # each fold is one sample
        fold_sum, fold_outer = shifted, outer
        fold_size = np.ones(n_samples)
    else:
        fold_sum = np.add.reduceat(shifted, starts, axis=1)
        fold_outer = np.add.reduceat(outer, starts, axis=1)
        fold_size = np.diff(np.append(starts, n_samples)).astype(float)

    # Training statistics of every fold, (D, v) and (P, v).
    n_train = n_samples - fold_size
    train_mean = (shifted.sum(axis=1, keepdims=True) - fold_sum) / n_train
    # Scatter about the training mean: sum x x^T - n_train mu mu^T.
    train_scatter = outer.sum(axis=1, keepdims=True) - fold_outer
    train_scatter -= n_train * train_mean[rows] * train_mean[cols]
    cov = np.where(n_train >= 2, train_scatter / np.maximum(n_train - 1.0, 1.0), 0.0)
    cov[diag] += ridge

    chol = _packed_cholesky(cov, n_dims, ridge)
    half_logdet = np.log(chol[diag]).sum(axis=0)

    # Per-sample view of its fold's parameters.
    if leave_one_out:
        def per_sample(values: np.ndarray) -> np.ndarray:
            return values
    else:
        fold_of = np.repeat(np.arange(starts.size), fold_size.astype(np.intp))

        def per_sample(values: np.ndarray) -> np.ndarray:
            return values[..., fold_of]

    # Forward substitution L z = x - mu, vectorised over samples.
    resid = shifted - per_sample(train_mean)
    z = np.empty_like(resid)
    for i in range(n_dims):
        acc = resid[i].copy()
        for k in range(i):
            acc -= per_sample(chol[entry[i, k]]) * z[k]
        z[i] = acc / per_sample(chol[entry[i, i]])
    mahalanobis = np.einsum("in,in->n", z, z)

    loglik = np.empty(n_samples)
    loglik[order] = -0.5 * (n_dims * _LOG_2PI + mahalanobis) - per_sample(half_logdet)
    return loglik


def _gaussian_cv_loglik_twin(
    X: np.ndarray,
    n_folds: int,
    ridge: float,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Plain twin of :func:`gaussian_cv_loglik` (test oracle, slow).

    Same fold split (same `rng` draws); one explicit fit per fold with
    ``np.cov`` and ``scipy.stats.multivariate_normal``.
    """
    from scipy.stats import multivariate_normal

    X = np.asarray(X, dtype=float)
    n_samples, n_dims = X.shape
    order, starts = _fold_split(n_samples, n_folds, rng)
    bounds = np.append(starts, n_samples)
    loglik = np.empty(n_samples)
    for k in range(starts.size):
        held_out = order[bounds[k]:bounds[k + 1]]
        train = np.delete(X, held_out, axis=0)
        if train.shape[0] >= 2:
            cov = np.atleast_2d(np.cov(train, rowvar=False, ddof=1))
        else:
            cov = np.zeros((n_dims, n_dims))
        cov = cov + ridge * np.eye(n_dims)
        density = multivariate_normal(mean=train.mean(axis=0), cov=cov)
        loglik[held_out] = np.atleast_1d(density.logpdf(X[held_out]))
    return loglik


# --------------------------------------------------------------------------- #
# Main entry
# --------------------------------------------------------------------------- #
def smoothness_weight(
    X_prev_common: np.ndarray,
    labels_prev_common: np.ndarray,
    X_curr_common: np.ndarray,
    labels_curr_common: np.ndarray,
    *,
    X_prev_all: np.ndarray,
    X_curr_all: np.ndarray,
    n_folds_max: int = 500,
    rng: np.random.Generator | None,
    aggregate: str = "common",
    backend: str = "numba",
) -> SmoothnessWeight:
    """Smoothness weight alpha^{t-1} by per-cluster stacked density estimation.

    Parameters
    ----------
    X_prev_common : ndarray of shape (n_common, D)
        Common samples at their t-1 positions.
    labels_prev_common : ndarray of shape (n_common,)
        Final labels of t-1 on the common samples.
    X_curr_common : ndarray of shape (n_common, D)
        The same samples (same row order) at their t positions.
    labels_curr_common : ndarray of shape (n_common,)
        Pseudo-partition labels at t on the common samples.
    X_prev_all : ndarray of shape (S_{t-1}, D)
        All samples of t-1; only their mean is used (centring).
    X_curr_all : ndarray of shape (S_t, D)
        All samples of t; only their mean is used (centring).
    n_folds_max : int, default=500
        v = min(n_folds_max, |A_i^t|) folds per pair (leave-one-out below).
    rng : numpy.random.Generator or None
        Draws the fold splits of clusters larger than `n_folds_max`; may be
        None only if no cluster is that large.
    aggregate : {"common", "matched"}, default="common"
        "common": alpha = sum_i (|A_i^{t-1}| + |A_i^t|) / (2 n_common) alpha_i
        (literal; unmatched clusters and skipped pairs contribute 0).
        "matched": the same weights renormalised over the pairs that have an
        alpha_i.

    backend : {"numba", "numpy"}, default="numba"
        Kernel backend of the EM steps.
    Returns
    -------
    SmoothnessWeight
        alpha = 0.0 and empty arrays when there is no common sample or no
        pair with at least 2 samples on both sides.
    """
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {AGGREGATES}, got {aggregate!r}")
    if n_folds_max < 2:
        raise ValueError("n_folds_max must be at least 2")
    X_prev_common = np.asarray(X_prev_common, dtype=float)
    X_curr_common = np.asarray(X_curr_common, dtype=float)
    labels_prev_common = np.asarray(labels_prev_common).ravel()
    labels_curr_common = np.asarray(labels_curr_common).ravel()
    n_common = labels_curr_common.size
    if not (
        X_prev_common.shape[0] == X_curr_common.shape[0] == labels_prev_common.size == n_common
    ):
        raise ValueError("common samples and labels must be row-aligned")
    if n_common == 0:
        return SmoothnessWeight(alpha=0.0)
    n_dims = X_curr_common.shape[1]
    X_prev_all = np.asarray(X_prev_all, dtype=float)
    X_curr_all = np.asarray(X_curr_all, dtype=float)
    if not (X_prev_common.ndim == X_prev_all.ndim == X_curr_all.ndim == 2
            and X_prev_common.shape[1] == X_prev_all.shape[1] == X_curr_all.shape[1] == n_dims):
        raise ValueError(f"smoothness_weight: every sample array must have the common samples' {n_dims} "
                         "columns")

    pairs, _, (codes_curr, codes_prev, code_pairs, sizes_curr, sizes_prev) = _match_codes(
        labels_curr_common, labels_prev_common)
    # Fold orders of all pairs, concatenated; the random splits are drawn in pair order.
    orders = []
    for n_curr, n_prev in zip(sizes_curr.tolist(), sizes_prev.tolist()):
        split = n_curr >= 2 and n_prev >= 2 and n_folds_max < n_curr
        orders.append(_fold_split(n_curr, n_folds_max, rng)[0] if split else np.arange(n_curr))
    order = np.concatenate(orders) if orders else np.empty(0, dtype=np.int64)
    # Steps 0 and 3-4 of every pair in one kernel call: centre each step by the mean over all of
    # its samples (the kernel returns these centres), then each pair's alpha_i.
    alpha_pairs, (centre_curr, centre_prev) = pair_alphas(
        backend, X_curr_common, codes_curr, X_prev_common, codes_prev, X_curr_all, X_prev_all, code_pairs, order,
        n_folds_max, sizes_curr, sizes_prev)
    failed = np.flatnonzero(alpha_pairs == -1.0)  # a covariance lost definiteness to rounding
    offsets = np.concatenate([[0], np.cumsum(sizes_curr)]) if failed.size else None
    for i in failed:
        A_curr = X_curr_common[labels_curr_common == pairs[i, 0]] - centre_curr
        A_prev = X_prev_common[labels_prev_common == pairs[i, 1]] - centre_prev
        ridge = pair_ridge(A_curr, A_prev)
        starts = _fold_starts(int(sizes_curr[i]), n_folds_max)
        loglik_curr = _split_cv_loglik(A_curr, order[offsets[i]:offsets[i + 1]], starts, ridge)
        loglik_prev = gaussian_loglik(A_prev, A_curr, ridge)
        alpha_pairs[i] = stacking_em(loglik_curr, loglik_prev, backend=backend)

    usable = ~np.isnan(alpha_pairs)
    if not usable.any():
        return SmoothnessWeight(alpha=0.0, n_common=n_common)

    weights = np.where(usable, (sizes_prev + sizes_curr) / (2.0 * n_common), 0.0)
    if aggregate == "matched":
        weights = weights / weights.sum()
    alpha = min(max(float(np.sum(weights[usable] * alpha_pairs[usable])), 0.0), 1.0)
    return SmoothnessWeight(
        alpha=alpha,
        pairs=pairs,
        alpha_pairs=alpha_pairs,
        sizes_prev=sizes_prev,
        sizes_curr=sizes_curr,
        n_common=n_common,
    )
