"""Numba kernels of the smoothness-weight tuning: the EM of the stacking weight,
and the whole per-pair computation of a step (ridge, cross-validated and
historical log-densities, EM) in one call."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")  # inlined into stacking_em_loop: one compilation
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


@njit(cache=True)
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


@njit(inline="always")
def _cholesky_in_place(a, n_dims):  # pragma: no cover
    """Lower Cholesky factor of ``a[:n_dims, :n_dims]`` in place; False if a pivot is not > 0."""
    for j in range(n_dims):
        pivot = a[j, j]
        for k in range(j):
            pivot -= a[j, k] * a[j, k]
        if not pivot > 0.0:
            return False
        diag = np.sqrt(pivot)
        a[j, j] = diag
        for i in range(j + 1, n_dims):
            dot = a[i, j]
            for k in range(j):
                dot -= a[i, k] * a[j, k]
            a[i, j] = dot / diag
    return True


@njit(inline="always")
def _loglik(x, mean, chol, n_dims, half_logdet, z):  # pragma: no cover
    """Log-density at ``x`` of N(mean, L L^T), L = ``chol`` (forward substitution into ``z``)."""
    maha = 0.0
    for i in range(n_dims):
        acc = x[i] - mean[i]
        for k in range(i):
            acc -= chol[i, k] * z[k]
        z[i] = acc / chol[i, i]
        maha += z[i] * z[i]
    return -0.5 * (n_dims * _LOG_2PI + maha) - half_logdet


@njit(cache=True)
def smoothness_pair_alphas(X_curr, labels_curr, X_prev, labels_prev, pairs, order, n_folds_max,
                           tol, max_iter, rows, loglik, vecs, mats, alpha_pairs):  # pragma: no cover
    """Stacking weight alpha_i of every matched pair, in one call.

    Per pair i (cluster ``pairs[i, 0]`` at t, ``pairs[i, 1]`` at t-1), with
    A_t and A_{t-1} the rows of the centred common samples carrying those
    labels (in row order): the pair ridge, the v-fold cross-validated
    log-density of A_t (v = min(n_folds_max, |A_t|), folds downdated from
    the total sum and scatter), the log-density of A_t under the Gaussian
    of A_{t-1}, and the EM of the stacking weight from 0.5.

    Parameters
    ----------
    X_curr, X_prev : ndarray of shape (n_common, D)   IN, centred common samples at t and t-1
    labels_curr, labels_prev : ndarray of shape (n_common,)   IN
    pairs : ndarray of shape (n_pairs, 2)    IN, (label at t, label at t-1)
    order : ndarray of shape (n_common,)     IN, for pair i, ``order[s_i:s_i + |A_t|]`` (s_i the
                                             sum of the earlier pairs' |A_t|) is the fold order of
                                             A_t: a permutation of 0..|A_t|-1 (identity for
                                             leave-one-out); the folds are its consecutive runs,
                                             the first ``|A_t| % v`` one sample longer
    n_folds_max : int                        IN
    tol, max_iter                            IN, EM stopping rule (see :func:`stacking_em_loop`)
    rows : ndarray of shape (n_common, D)    SCRATCH, the shifted rows of A_t in fold order
    loglik : ndarray of shape (n_common,)    SCRATCH
    vecs : ndarray of shape (4, D)           SCRATCH
    mats : ndarray of shape (3, D, D)        SCRATCH
    alpha_pairs : ndarray of shape (n_pairs,)   OUT, alpha_i; nan when a side has < 2 samples;
                                             -1 when a covariance is not positive definite
                                             after rounding (the caller recomputes that pair)
    """
    n_common, n_dims = X_curr.shape
    total_sum, fold_sum, mean, z = vecs[0], vecs[1], vecs[2], vecs[3]
    total_outer, fold_outer, chol = mats[0], mats[1], mats[2]
    offset = 0
    for p in range(pairs.shape[0]):
        alpha_pairs[p] = np.nan
        n_curr = 0
        n_prev = 0
        for j in range(n_common):
            n_curr += labels_curr[j] == pairs[p, 0]
            n_prev += labels_prev[j] == pairs[p, 1]
        pair_order = order[offset:offset + n_curr]
        offset += n_curr
        if n_curr < 2 or n_prev < 2:
            continue
        # Pair ridge: trace of the union's covariance (two passes), floored.
        mean[:] = 0.0
        for j in range(n_common):
            if labels_curr[j] == pairs[p, 0]:
                for d in range(n_dims):
                    mean[d] += X_curr[j, d]
        for j in range(n_common):
            if labels_prev[j] == pairs[p, 1]:
                for d in range(n_dims):
                    mean[d] += X_prev[j, d]
        n_union = n_curr + n_prev
        level = 0.0
        for d in range(n_dims):
            mean[d] /= n_union
            level += mean[d] * mean[d]
        level /= n_dims
        scatter = 0.0
        for j in range(n_common):
            if labels_curr[j] == pairs[p, 0]:
                for d in range(n_dims):
                    scatter += (X_curr[j, d] - mean[d]) ** 2
            if labels_prev[j] == pairs[p, 1]:
                for d in range(n_dims):
                    scatter += (X_prev[j, d] - mean[d]) ** 2
        variance = scatter / (n_union - 1) / n_dims
        if variance + level > 0:
            ridge = 1e-3 * variance + 1e-12 * min(1.0, variance + level)
        else:
            ridge = 1e-12

        # A_t in fold order, shifted by its mean; total sum and scatter.
        mean[:] = 0.0
        row = 0
        for j in range(n_common):
            if labels_curr[j] == pairs[p, 0]:
                for d in range(n_dims):
                    mean[d] += X_curr[j, d]
        for d in range(n_dims):
            mean[d] /= n_curr
        for j in range(n_common):
            if labels_curr[j] == pairs[p, 0]:
                for d in range(n_dims):
                    rows[row, d] = X_curr[j, d]
                row += 1
        for r in range(n_curr):  # rows[r] <- shifted A_t[r]; then permute into fold order in loglik pass
            for d in range(n_dims):
                rows[r, d] -= mean[d]
        total_sum[:] = 0.0
        total_outer[:, :] = 0.0
        for r in range(n_curr):
            for a in range(n_dims):
                total_sum[a] += rows[r, a]
                for b in range(a + 1):
                    total_outer[a, b] += rows[r, a] * rows[r, b]

        # Folds: downdate, factor, evaluate the held-out samples.
        n_folds = min(n_folds_max, n_curr)
        base = n_curr // n_folds
        extra = n_curr - base * n_folds
        start = 0
        ok = True
        for k in range(n_folds):
            size = base + (1 if k < extra else 0)
            fold_sum[:] = 0.0
            fold_outer[:, :] = 0.0
            for s in range(start, start + size):
                r = pair_order[s]
                for a in range(n_dims):
                    fold_sum[a] += rows[r, a]
                    for b in range(a + 1):
                        fold_outer[a, b] += rows[r, a] * rows[r, b]
            n_train = n_curr - size
            for a in range(n_dims):
                mean[a] = (total_sum[a] - fold_sum[a]) / n_train
            for a in range(n_dims):
                for b in range(a + 1):
                    scatter_ab = total_outer[a, b] - fold_outer[a, b] - n_train * mean[a] * mean[b]
                    chol[a, b] = scatter_ab / (n_train - 1.0) if n_train >= 2 else 0.0
                chol[a, a] += ridge
            if not _cholesky_in_place(chol, n_dims):
                ok = False
                break
            half_logdet = 0.0
            for a in range(n_dims):
                half_logdet += np.log(chol[a, a])
            for s in range(start, start + size):
                r = pair_order[s]
                loglik[r] = _loglik(rows[r], mean, chol, n_dims, half_logdet, z)
            start += size
        if not ok:
            alpha_pairs[p] = -1.0
            continue

        # Historical model: Gaussian of A_{t-1}, evaluated on A_t.
        mean[:] = 0.0
        for j in range(n_common):
            if labels_prev[j] == pairs[p, 1]:
                for d in range(n_dims):
                    mean[d] += X_prev[j, d]
        for d in range(n_dims):
            mean[d] /= n_prev
        chol[:, :] = 0.0
        for j in range(n_common):
            if labels_prev[j] == pairs[p, 1]:
                for a in range(n_dims):
                    for b in range(a + 1):
                        chol[a, b] += (X_prev[j, a] - mean[a]) * (X_prev[j, b] - mean[b])
        for a in range(n_dims):
            for b in range(a + 1):
                chol[a, b] /= n_prev - 1.0
            chol[a, a] += ridge
        if not _cholesky_in_place(chol, n_dims):
            alpha_pairs[p] = -1.0
            continue
        half_logdet = 0.0
        for a in range(n_dims):
            half_logdet += np.log(chol[a, a])
        # Density ratio phi_1 / phi_2 from the log-ratio; rows with both -inf dropped.
        n_kept = 0
        row = 0
        for j in range(n_common):
            if labels_curr[j] == pairs[p, 0]:
                for d in range(n_dims):
                    z[d] = X_curr[j, d]  # x, unshifted, for the historical model
                ll_curr = loglik[row]
                ll_prev = _loglik(z, mean, chol, n_dims, half_logdet, vecs[1])
                row += 1
                if ll_curr == -np.inf and ll_prev == -np.inf:
                    continue
                loglik[n_kept] = np.exp(ll_curr - ll_prev)  # loglik[row-1] is already read
                n_kept += 1
        if n_kept == 0:
            continue
        # EM from 0.5 (the loop of stacking_em_loop, inlined: no second compilation).
        ratio = loglik[:n_kept]
        alpha = 0.5
        for _ in range(max_iter):
            alpha_new = min(max(stacking_em_step(ratio, alpha), 0.0), 1.0)
            converged = abs(alpha_new - alpha) < tol
            alpha = alpha_new
            if converged or alpha == 0.0 or alpha == 1.0:
                break
        alpha_pairs[p] = alpha
    return alpha_pairs
