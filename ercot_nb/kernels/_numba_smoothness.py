"""Numba kernels of the smoothness-weight tuning: the EM of the stacking weight,
and the whole per-pair computation of a step (ridge, cross-validated and
historical log-densities, EM) in one call."""
from __future__ import annotations

import types

import numpy as np
from numba import njit, prange

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
# The EM runs its steps on several threads from this many blocks of A_t: each step starts the
# threads anew (measured on 2 threads: 50 pairs of 1,000 rows ran 0.72x as fast as serially
# with every step threaded).
_EM_THREADS_FROM = 4


def smoothness_pair_alphas(X_curr, codes_curr, X_prev, codes_prev, X_curr_all, X_prev_all, pairs, order,
                           n_folds_max, tol, max_iter, block, members, group_starts, rows, ratios, vecs, mats, slots, slot_values,
                           alpha_pairs):  # pragma: no cover
    """Stacking weight alpha_i of every matched pair, in one call.

    The common samples of each step are centred by the mean of all the
    step's samples (each column's sum in row order, over the count).  Per
    pair i (cluster ``pairs[i, 0]`` at t, ``pairs[i, 1]`` at t-1), with
    A_t and A_{t-1} the rows of the centred common samples in those
    clusters (in row order): the pair ridge, the log-density of A_t under
    the Gaussian of A_{t-1}, the v-fold cross-validated log-density of A_t
    (v = min(n_folds_max, |A_t|); each fold's fit downdated from the total
    sum and scatter of A_t about its mean), and the EM of the stacking
    weight from 0.5.

    Every sum over rows is taken in blocks of ``block`` rows (A_t's, then
    A_{t-1}'s), each block's partial in its own slot, and the partials are
    added in block order; the folds are taken in chunks, each with its own
    slot.  This kernel and ``smoothness_pair_alphas_parallel`` (the blocks
    and chunks spread over numba's threads) are one body compiled twice:
    their results are identical bit for bit, for any thread count.

    Parameters
    ----------
    X_curr, X_prev : ndarray of shape (n_common, D)   IN, common samples at t and t-1
    X_curr_all, X_prev_all : ndarray of shape (S_t, D) and (S_{t-1}, D)   IN, all samples of
                                             each step (only their means are used)
    codes_curr, codes_prev : int64 ndarray of shape (n_common,)   IN, cluster of each sample,
                                             in 0..n_bins - 1
    pairs : int64 ndarray of shape (n_pairs, 2)   IN, (cluster at t, cluster at t-1)
    order : int64 ndarray of shape (n_common,)   IN, for pair i, ``order[s_i:s_i + |A_t|]`` (s_i the
                                             sum of the earlier pairs' |A_t|) is the fold order of
                                             A_t: a permutation of 0..|A_t|-1 (identity for
                                             leave-one-out); the folds are its consecutive runs,
                                             the first ``|A_t| % v`` one sample longer
    n_folds_max : int                        IN
    tol, max_iter                            IN, EM stopping rule (see :func:`stacking_em_loop`)
    block : int                              IN, rows per block of a sum (``SMOOTHNESS_BLOCK`` of
                                             ``ercot_nb.kernels``: the bits depend on it, never
                                             on the threads)
    members : int64 ndarray of shape (2, n_common)   SCRATCH, each step's rows grouped by cluster
    group_starts : int64 ndarray of shape (2, n_bins + 1)   SCRATCH, where each cluster's rows begin
    rows : ndarray of shape (2 n_common, D)  SCRATCH, A_t then A_{t-1}
    ratios : ndarray of shape (n_common,)    SCRATCH, density ratio phi_1 / phi_2 of each row of A_t
    vecs : ndarray of shape (7, D)           SCRATCH; OUT rows 5 and 6: the means of X_curr_all and
                                             X_prev_all
    mats : ndarray of shape (2, D, D)        SCRATCH
    slots : ndarray of shape (n_slots, 2 D + 3, D)   SCRATCH, one per block or fold chunk; n_slots
                                             at least 2 ceil(n_common / block)
    slot_values : ndarray of shape (n_slots, 2)   SCRATCH
    alpha_pairs : ndarray of shape (n_pairs,)   OUT, alpha_i; nan when a side has < 2 samples;
                                             -1 when a covariance is not positive definite
                                             after rounding (the caller recomputes that pair)

    Raises
    ------
    ValueError
        A code (of a sample or a pair) outside 0..n_bins - 1, fewer slots than blocks, an
        array of the wrong shape or ``order`` too short.
    """
    n_common, n_dims = X_curr.shape
    n_slots = slots.shape[0]
    n_bins = group_starts.shape[1] - 1
    wrong = 0  # one sum, not a chain of branches: cheaper to compile
    for bad in (X_prev.shape[0] != n_common, X_prev.shape[1] != n_dims, X_curr_all.shape[1] != n_dims,
                X_prev_all.shape[1] != n_dims, codes_curr.shape[0] != n_common, codes_prev.shape[0] != n_common,
                members.shape[1] < n_common, rows.shape[0] < 2 * n_common, rows.shape[1] != n_dims,
                ratios.shape[0] < n_common, vecs.shape[0] < 7, vecs.shape[1] != n_dims, mats.shape[0] < 2,
                mats.shape[1] != n_dims, mats.shape[2] != n_dims, slots.shape[1] != 2 * n_dims + 3,
                slots.shape[2] != n_dims, slot_values.shape[0] != n_slots, slot_values.shape[1] < 2,
                alpha_pairs.shape[0] != pairs.shape[0], block < 1):
        wrong += bad
    if wrong:
        raise ValueError("smoothness_pair_alphas: arrays of the wrong shape (make the scratch with "
                         "ercot_nb.kernels.pair_alphas_scratch)")
    # Each step's rows grouped by cluster, in row order (a counting sort): the rows of cluster c
    # are members[side, group_starts[side, c]:group_starts[side, c + 1]].
    for side in range(2):
        codes = codes_curr if side == 0 else codes_prev
        for c in range(n_bins + 1):
            group_starts[side, c] = 0
        for j in range(n_common):
            if codes[j] < 0 or codes[j] >= n_bins:
                raise ValueError("smoothness_pair_alphas: a cluster code is outside 0..group_starts.shape[1] - 2")
            group_starts[side, codes[j] + 1] += 1
        for c in range(n_bins):
            group_starts[side, c + 1] += group_starts[side, c]
        for j in range(n_common):  # group_starts[side, c] walks to the start of c + 1 ...
            members[side, group_starts[side, codes[j]]] = j
            group_starts[side, codes[j]] += 1
        for c in range(n_bins, 0, -1):  # ... and back
            group_starts[side, c] = group_starts[side, c - 1]
        group_starts[side, 0] = 0

    # The centres (vecs rows 5 and 6): each step's mean over all its samples, in row order.
    for side in range(2):
        X_all = X_curr_all if side == 0 else X_prev_all
        for a in range(n_dims):
            vecs[5 + side, a] = 0.0
        for j in range(X_all.shape[0]):
            for a in range(n_dims):
                vecs[5 + side, a] += X_all[j, a]
        for a in range(n_dims):
            vecs[5 + side, a] /= X_all.shape[0]

    vm = 2 * n_dims  # slots: rows [0, D) and [D, 2 D) two matrices, rows vm, vm + 1, vm + 2 three vectors
    offset = 0
    for p in range(pairs.shape[0]):
        alpha_pairs[p] = np.nan
        if pairs[p, 0] < 0 or pairs[p, 1] < 0 or pairs[p, 0] >= n_bins or pairs[p, 1] >= n_bins:
            raise ValueError("smoothness_pair_alphas: a pair's cluster code is outside 0..group_starts.shape[1] - 2")
        start_curr = group_starts[0, pairs[p, 0]]
        n_curr = group_starts[0, pairs[p, 0] + 1] - start_curr
        start_prev = group_starts[1, pairs[p, 1]]
        n_prev = group_starts[1, pairs[p, 1] + 1] - start_prev
        first = offset
        offset += n_curr
        if offset > order.shape[0]:
            raise ValueError("smoothness_pair_alphas: order is shorter than the pairs' clusters at t")
        if n_curr < 2 or n_prev < 2:
            continue
        n_union = n_curr + n_prev
        blocks_curr = (n_curr + block - 1) // block
        n_blocks = blocks_curr + (n_prev + block - 1) // block
        if n_blocks > n_slots:
            raise ValueError("smoothness_pair_alphas: fewer slots than blocks of rows (2 ceil(n_common / block))")

        # Rows of A_t then A_{t-1}, gathered in row order, and per block the sum and scatter of
        # its rows less the first row of their side (a member: moderate differences), in slots
        # row vm and rows [0, D).
        for a in range(n_dims):
            vecs[3, a] = X_curr[members[0, start_curr], a] - vecs[5, a]
            vecs[4, a] = X_prev[members[1, start_prev], a] - vecs[6, a]
        for k in prange(n_blocks):
            lo = k * block if k < blocks_curr else n_curr + (k - blocks_curr) * block
            hi = min(lo + block, n_curr if k < blocks_curr else n_union)
            shift = 3 if k < blocks_curr else 4
            for a in range(n_dims):
                slots[k, vm, a] = 0.0
                for b in range(a + 1):
                    slots[k, a, b] = 0.0
            for r in range(lo, hi):
                for a in range(n_dims):
                    if r < n_curr:
                        rows[r, a] = X_curr[members[0, start_curr + r], a] - vecs[5, a]
                    else:
                        rows[r, a] = X_prev[members[1, start_prev + r - n_curr], a] - vecs[6, a]
                    shifted = rows[r, a] - vecs[shift, a]
                    slots[k, vm, a] += shifted
                    for b in range(a + 1):
                        slots[k, a, b] += shifted * (rows[r, b] - vecs[shift, b])
        # The partials in block order (the same bits for any thread count) into vecs 0 and 1 (sums)
        # and mats 1 and 0 (scatters) of A_t and A_{t-1}; then vecs: 0 mean of A_t, 1 mean of
        # A_{t-1}, 2 mean of the union; mats: 0 the historical covariance, 1 the scatter of A_t
        # about its mean (sum (x - s)(x - s)^T - n (mean - s)(mean - s)^T, s the side's shift).
        for a in range(n_dims):
            vecs[0, a] = 0.0
            vecs[1, a] = 0.0
            for b in range(a + 1):
                mats[0, a, b] = 0.0
                mats[1, a, b] = 0.0
        for k in range(n_blocks):
            side = 0 if k < blocks_curr else 1
            for a in range(n_dims):
                vecs[side, a] += slots[k, vm, a]
                for b in range(a + 1):
                    mats[1 - side, a, b] += slots[k, a, b]
        spread = 0.0  # squared distances to the union's mean: each side's about its own, and its mean's
        for side in range(2):
            n_side = n_curr if side == 0 else n_prev
            for a in range(n_dims):
                vecs[side, a] /= n_side
            for a in range(n_dims):
                for b in range(a + 1):
                    mats[1 - side, a, b] -= n_side * vecs[side, a] * vecs[side, b]
                spread += mats[1 - side, a, a]
            for a in range(n_dims):
                vecs[side, a] += vecs[3 + side, a]
        level = 0.0
        for a in range(n_dims):
            vecs[2, a] = (n_curr * vecs[0, a] + n_prev * vecs[1, a]) / n_union
            level += vecs[2, a] * vecs[2, a]
            gap_curr = vecs[0, a] - vecs[2, a]
            gap_prev = vecs[1, a] - vecs[2, a]
            spread += n_curr * gap_curr * gap_curr + n_prev * gap_prev * gap_prev
        # Pair ridge: 1e-3 tr(Sigma_union) / D, floored (see pair_ridge).
        level /= n_dims
        variance = spread / (n_union - 1) / n_dims
        ridge = 1e-3 * variance + 1e-12 * min(1.0, variance + level) if variance + level > 0 else 1e-12
        for a in range(n_dims):
            for b in range(a + 1):
                mats[0, a, b] /= n_prev - 1.0
            mats[0, a, a] += ridge

        # The folds of A_t (consecutive runs of order[first:first + n_curr], the first n_curr % v
        # one longer) in chunks, each chunk in its own slot.  Gaussian h = 0 of a chunk is the
        # historical one (fitted on A_{t-1}), factored into slot rows [0, D); h >= 1 that of
        # fold f = f_lo + h - 1, fitted on the other folds (downdated from A_t's sum and scatter)
        # and factored into rows [D, 2 D).  Each row of fold f gets phi_1 / phi_2 in ratios
        # (-1: both densities 0, the row is left out of the EM); slot_values[c, 1] counts the others.
        n_folds = min(n_folds_max, n_curr)
        base = n_curr // n_folds
        extra = n_curr - base * n_folds
        n_chunks = min(n_folds, n_slots)
        for c in prange(n_chunks):
            f_lo = c * n_folds // n_chunks
            kept = 0
            half_logdet_prev = 0.0
            for h in range((c + 1) * n_folds // n_chunks - f_lo + 1):
                f = f_lo + h - 1
                fold_lo = first + f * base + min(f, extra)
                fold_hi = fold_lo + base + (1 if f < extra else 0)
                at = 0 if h == 0 else n_dims  # the Gaussian's matrix: slot rows [at, at + D)
                if h == 0:
                    for a in range(n_dims):
                        for b in range(a + 1):
                            slots[c, a, b] = mats[0, a, b]
                else:
                    for a in range(n_dims):
                        slots[c, vm, a] = 0.0
                        for b in range(a + 1):
                            slots[c, at + a, b] = 0.0
                    for s in range(fold_lo, fold_hi):
                        r = order[s]
                        for a in range(n_dims):
                            centred = rows[r, a] - vecs[0, a]
                            slots[c, vm, a] += centred
                            for b in range(a + 1):
                                slots[c, at + a, b] += centred * (rows[r, b] - vecs[0, b])
                    n_train = n_curr - (fold_hi - fold_lo)
                    for a in range(n_dims):  # A_t less its mean sums to 0
                        slots[c, vm + 1, a] = -slots[c, vm, a] / n_train
                    for a in range(n_dims):
                        for b in range(a + 1):
                            fold_scatter = (mats[1, a, b] - slots[c, at + a, b]
                                            - n_train * slots[c, vm + 1, a] * slots[c, vm + 1, b])
                            slots[c, at + a, b] = fold_scatter / (n_train - 1.0) if n_train >= 2 else 0.0
                        slots[c, at + a, a] += ridge
                # Lower Cholesky factor in place; a pivot not > 0 fails the pair.
                half_logdet = 0.0
                factored = True
                for j in range(n_dims):
                    pivot = slots[c, at + j, j]
                    for q in range(j):
                        pivot -= slots[c, at + j, q] * slots[c, at + j, q]
                    if not pivot > 0.0:
                        factored = False
                        break
                    diag = np.sqrt(pivot)
                    slots[c, at + j, j] = diag
                    for i in range(j + 1, n_dims):
                        dot = slots[c, at + i, j]
                        for q in range(j):
                            dot -= slots[c, at + i, q] * slots[c, at + j, q]
                        slots[c, at + i, j] = dot / diag
                    half_logdet += np.log(diag)
                if not factored:
                    alpha_pairs[p] = -1.0  # every failing chunk writes the same flag
                    break
                if h == 0:
                    half_logdet_prev = half_logdet
                    continue
                # Each held-out row under both Gaussians, g = 0 the fold's, g = 1 the historical
                # one: log N(x; mu, L L^T) with z = L^-1 (x - mu) (slot row vm + 2).
                for s in range(fold_lo, fold_hi):
                    r = order[s]
                    held_out = 0.0
                    historical = 0.0
                    for g in range(2):
                        factor = n_dims - g * n_dims
                        maha = 0.0
                        for i in range(n_dims):
                            if g == 0:
                                acc = (rows[r, i] - vecs[0, i]) - slots[c, vm + 1, i]
                            else:
                                acc = rows[r, i] - vecs[1, i]
                            for q in range(i):
                                acc -= slots[c, factor + i, q] * slots[c, vm + 2, q]
                            slots[c, vm + 2, i] = acc / slots[c, factor + i, i]
                            maha += slots[c, vm + 2, i] * slots[c, vm + 2, i]
                        if g == 0:
                            held_out = -0.5 * (n_dims * _LOG_2PI + maha) - half_logdet
                        else:
                            historical = -0.5 * (n_dims * _LOG_2PI + maha) - half_logdet_prev
                    if held_out == -np.inf and historical == -np.inf:
                        ratios[r] = -1.0
                    else:
                        ratios[r] = np.exp(held_out - historical)
                        kept += 1
            slot_values[c, 1] = kept
        if alpha_pairs[p] == -1.0:
            continue
        n_kept = 0.0
        for c in range(n_chunks):
            n_kept += slot_values[c, 1]
        if n_kept == 0.0:
            continue

        # EM of the stacking weight from 0.5 (the loop of stacking_em_loop); each step's sum of
        # responsibilities over A_t's blocks, added in block order.
        alpha = 0.5
        for _ in range(max_iter):
            odds = (1.0 - alpha) / alpha
            if blocks_curr >= _EM_THREADS_FROM:
                for k in prange(blocks_curr):
                    responsibility = 0.0
                    for r in range(k * block, min(k * block + block, n_curr)):
                        if not ratios[r] < 0.0:
                            responsibility += 1.0 / (1.0 + ratios[r] * odds)
                    slot_values[k, 0] = responsibility
            else:  # the same loop without threads: a few blocks are not worth a start per step
                for k in range(blocks_curr):
                    responsibility = 0.0
                    for r in range(k * block, min(k * block + block, n_curr)):
                        if not ratios[r] < 0.0:
                            responsibility += 1.0 / (1.0 + ratios[r] * odds)
                    slot_values[k, 0] = responsibility
            total = 0.0
            for k in range(blocks_curr):
                total += slot_values[k, 0]
            alpha_new = min(max(total / n_kept, 0.0), 1.0)
            converged = abs(alpha_new - alpha) < tol
            alpha = alpha_new
            if converged or alpha == 0.0 or alpha == 1.0:
                break
        alpha_pairs[p] = alpha
    return alpha_pairs


def _twin_function(function, name: str, doc: str):
    """A copy of the Python function ``function`` named ``name`` (its own numba dispatcher and cache files)."""
    copy = types.FunctionType(function.__code__, function.__globals__, name, function.__defaults__,
                              function.__closure__)
    copy.__qualname__ = name
    copy.__doc__ = doc
    return copy


# One body, compiled twice: serially (prange is range there), and with numba's parallel
# pipeline (its own function object, so its own cache files; numba's pipeline: the lean one
# does not reach the parfor lowering, like the clustering kernels' parallel variants).
smoothness_pair_alphas_parallel = njit(cache=True, error_model="numpy", parallel=True, pipeline_class=_LEAN)(_twin_function(
    smoothness_pair_alphas, "smoothness_pair_alphas_parallel",
    ":func:`smoothness_pair_alphas` spread over numba's threads (the same body, the same bits)."))
smoothness_pair_alphas = njit(cache=True, error_model="numpy", pipeline_class=_LEAN)(smoothness_pair_alphas)
