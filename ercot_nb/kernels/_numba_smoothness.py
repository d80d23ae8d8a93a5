"""Numba kernels of the smoothness-weight tuning: the EM of the stacking weight,
and the whole per-pair computation of a step (ridge, cross-validated and
historical log-densities, EM) in one call."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._compile import lean_pipeline

_LEAN = lean_pipeline(vectorize=False)  # small loops: no vectoriser, one -O2 module pass


@njit(cache=True, inline="always", pipeline_class=_LEAN)  # inlined into stacking_em_loop: one compilation
def stacking_em_step(density_ratio, alpha):  # pragma: no cover
    """One EM update of the weight of phi_2 in (1 - alpha) phi_1 + alpha phi_2.

    Parameters
    ----------
    density_ratio : ndarray of shape (n,)    IN, phi_1 / phi_2 per sample (may be 0 or inf)
    alpha : float                            IN, current weight, in (0, 1)

    Returns
    -------
    float
        Mean posterior responsibility of phi_2, the next alpha.
    """
    odds = (1.0 - alpha) / alpha
    total = 0.0
    for value in density_ratio:
        total += 1.0 / (1.0 + value * odds)
    return total / density_ratio.shape[0]


@njit(cache=True, pipeline_class=_LEAN)
def stacking_em_loop(density_ratio, alpha, tol, max_iter):  # pragma: no cover
    """EM of the stacking weight from ``alpha`` until it moves less than ``tol``.

    Repeats :func:`stacking_em_step` (clipped to [0, 1]) at most ``max_iter``
    times; 0 and 1 are fixed points and stop the loop.

    Returns
    -------
    float
        The last alpha.
    """
    for _ in range(max_iter):
        alpha_new = min(max(stacking_em_step(density_ratio, alpha), 0.0), 1.0)
        converged = abs(alpha_new - alpha) < tol
        alpha = alpha_new
        if converged or alpha == 0.0 or alpha == 1.0:
            break
    return alpha


_LOG_2PI = 1.8378770664093453  # log(2 pi)


@njit(cache=True, error_model="numpy", pipeline_class=_LEAN)
def smoothness_pair_alphas(X_curr, codes_curr, X_prev, codes_prev, pairs, order, n_folds_max,
                           tol, max_iter, rows, loglik, vecs, mats, alpha_pairs):  # pragma: no cover
    """Stacking weight alpha_i of every matched pair, in one call.

    Per pair i (cluster ``pairs[i, 0]`` at t, ``pairs[i, 1]`` at t-1), with
    A_t and A_{t-1} the rows of the centred common samples in those
    clusters (in row order): the pair ridge, the log-density of A_t under
    the Gaussian of A_{t-1}, the v-fold cross-validated log-density of A_t
    (v = min(n_folds_max, |A_t|); each fold's fit downdated from the total
    sum and scatter of A_t shifted by its mean), and the EM of the stacking
    weight from 0.5.

    Parameters
    ----------
    X_curr, X_prev : ndarray of shape (n_common, D)   IN, centred common samples at t and t-1
    codes_curr, codes_prev : int64 ndarray of shape (n_common,)   IN, cluster of each sample
    pairs : int64 ndarray of shape (n_pairs, 2)   IN, (cluster at t, cluster at t-1)
    order : int64 ndarray of shape (n_common,)   IN, for pair i, ``order[s_i:s_i + |A_t|]`` (s_i the
                                             sum of the earlier pairs' |A_t|) is the fold order of
                                             A_t: a permutation of 0..|A_t|-1 (identity for
                                             leave-one-out); the folds are its consecutive runs,
                                             the first ``|A_t| % v`` one sample longer
    n_folds_max : int                        IN
    tol, max_iter                            IN, EM stopping rule (see :func:`stacking_em_loop`)
    rows : ndarray of shape (2 n_common, D)  SCRATCH, A_t then A_{t-1}
    loglik : ndarray of shape (2, n_common)  SCRATCH
    vecs : ndarray of shape (4, D)           SCRATCH
    mats : ndarray of shape (3, D, D)        SCRATCH
    alpha_pairs : ndarray of shape (n_pairs,)   OUT, alpha_i; nan when a side has < 2 samples;
                                             -1 when a covariance is not positive definite
                                             after rounding (the caller recomputes that pair)
    """
    n_common, n_dims = X_curr.shape
    # vecs rows: 0 mean, 1 fold sum, 2 total sum, 3 scratch; mats: 0 covariance or its
    # factor, 1 fold scatter, 2 total scatter (indexed in place: views cost compile time).
    # Cold-start compile time grows with the code: each statistic, the Cholesky factor and
    # the log-density are written once, inside one loop over the Gaussians of a pair.
    offset = 0
    for p in range(pairs.shape[0]):
        alpha_pairs[p] = np.nan
        n_curr = 0
        for j in range(n_common):
            if codes_curr[j] == pairs[p, 0]:
                for d in range(n_dims):
                    rows[n_curr, d] = X_curr[j, d]
                n_curr += 1
        n_prev = 0
        for j in range(n_common):
            if codes_prev[j] == pairs[p, 1]:
                for d in range(n_dims):
                    rows[n_curr + n_prev, d] = X_prev[j, d]
                n_prev += 1
        first = offset
        offset += n_curr
        if n_curr < 2 or n_prev < 2:
            continue
        n_union = n_curr + n_prev
        # Pair ridge: 1e-3 tr(Sigma_union) / D, floored (see pair_ridge).
        for d in range(n_dims):
            vecs[0, d] = 0.0
        for r in range(n_union):
            for d in range(n_dims):
                vecs[0, d] += rows[r, d]
        level = 0.0
        for d in range(n_dims):
            vecs[0, d] /= n_union
            level += vecs[0, d] * vecs[0, d]
        level /= n_dims
        scatter = 0.0
        for r in range(n_union):
            for d in range(n_dims):
                diff = rows[r, d] - vecs[0, d]
                scatter += diff * diff
        variance = scatter / (n_union - 1) / n_dims
        ridge = 1e-3 * variance + 1e-12 * min(1.0, variance + level) if variance + level > 0 else 1e-12

        # Gaussian g = 0: the historical one (A_{t-1}), evaluated on all of A_t into
        # loglik[1]; g >= 1: fold g - 1, fitted on the other folds (downdated from the
        # total statistics of A_t) and evaluated on its held-out samples into loglik[0].
        # Before the factor of g = 0 (g = 1), the rows of A_{t-1} (A_t) are shifted in
        # place by their mean, summed into vecs[3] (vecs[2]) and scattered into mats[0]
        # (mats[2]); the historical Gaussian is evaluated on A_t before that shift.
        n_folds = min(n_folds_max, n_curr)
        base = n_curr // n_folds
        extra = n_curr - base * n_folds
        start = first
        stop = first + n_curr
        ok = True
        for g in range(n_folds + 1):
            if g <= 1:
                lo = n_curr if g == 0 else 0
                n_rows = n_prev if g == 0 else n_curr
                for d in range(n_dims):
                    vecs[g, d] = 0.0
                for r in range(lo, lo + n_rows):
                    for d in range(n_dims):
                        vecs[g, d] += rows[r, d]
                for a in range(n_dims):
                    vecs[g, a] /= n_rows
                    vecs[3 - g, a] = 0.0
                    for b in range(a + 1):
                        mats[2 * g, a, b] = 0.0
                for r in range(lo, lo + n_rows):
                    for a in range(n_dims):
                        rows[r, a] -= vecs[g, a]
                        vecs[3 - g, a] += rows[r, a]
                        for b in range(a + 1):
                            mats[2 * g, a, b] += rows[r, a] * rows[r, b]
            if g == 0:
                for a in range(n_dims):
                    for b in range(a + 1):
                        mats[0, a, b] /= n_prev - 1.0
                    mats[0, a, a] += ridge
            else:
                stop = start + base + (1 if g - 1 < extra else 0)
                for a in range(n_dims):
                    vecs[1, a] = 0.0
                    for b in range(a + 1):
                        mats[1, a, b] = 0.0
                for s in range(start, stop):
                    r = order[s]
                    for a in range(n_dims):
                        vecs[1, a] += rows[r, a]
                        for b in range(a + 1):
                            mats[1, a, b] += rows[r, a] * rows[r, b]
                n_train = n_curr - (stop - start)
                for a in range(n_dims):
                    vecs[0, a] = (vecs[2, a] - vecs[1, a]) / n_train
                for a in range(n_dims):
                    for b in range(a + 1):
                        scatter_ab = mats[2, a, b] - mats[1, a, b] - n_train * vecs[0, a] * vecs[0, b]
                        mats[0, a, b] = scatter_ab / (n_train - 1.0) if n_train >= 2 else 0.0
                    mats[0, a, a] += ridge
            # Lower Cholesky factor of mats[0] in place; a pivot not > 0 fails the pair.
            half_logdet = 0.0
            for j in range(n_dims):
                pivot = mats[0, j, j]
                for k in range(j):
                    pivot -= mats[0, j, k] * mats[0, j, k]
                if not pivot > 0.0:
                    ok = False
                    break
                diag = np.sqrt(pivot)
                mats[0, j, j] = diag
                for i in range(j + 1, n_dims):
                    dot = mats[0, i, j]
                    for k in range(j):
                        dot -= mats[0, i, k] * mats[0, j, k]
                    mats[0, i, j] = dot / diag
            if not ok:
                break
            for a in range(n_dims):
                half_logdet += np.log(mats[0, a, a])
            # log N(rows[r]; vecs[0], L L^T) for r = order[s], s in start..stop-1 (any
            # order of A_t's rows for g = 0: each row is independent).
            out = 1 if g == 0 else 0
            for s in range(start, stop):
                r = order[s]
                maha = 0.0
                for i in range(n_dims):
                    acc = rows[r, i] - vecs[0, i]
                    for k in range(i):
                        acc -= mats[0, i, k] * vecs[3, k]
                    vecs[3, i] = acc / mats[0, i, i]
                    maha += vecs[3, i] * vecs[3, i]
                loglik[out, r] = -0.5 * (n_dims * _LOG_2PI + maha) - half_logdet
            if g > 0:
                start = stop
        if not ok:
            alpha_pairs[p] = -1.0
            continue

        # Density ratio phi_1 / phi_2 from the log-ratio (rows with both -inf dropped), then EM from 0.5.
        n_kept = 0
        for r in range(n_curr):
            if loglik[0, r] == -np.inf and loglik[1, r] == -np.inf:
                continue
            loglik[0, n_kept] = np.exp(loglik[0, r] - loglik[1, r])
            n_kept += 1
        if n_kept == 0:
            continue
        alpha = 0.5
        for _ in range(max_iter):  # the loop of stacking_em_loop
            odds = (1.0 - alpha) / alpha
            total = 0.0
            for r in range(n_kept):
                total += 1.0 / (1.0 + loglik[0, r] * odds)
            alpha_new = min(max(total / n_kept, 0.0), 1.0)
            converged = abs(alpha_new - alpha) < tol
            alpha = alpha_new
            if converged or alpha == 0.0 or alpha == 1.0:
                break
        alpha_pairs[p] = alpha
    return alpha_pairs
