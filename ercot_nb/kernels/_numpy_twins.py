"""Plain NumPy twins of every numba kernel.

Same names, same signatures, same in/out buffers (the sample layouts
``xt`` and ``xu`` that the numba clustering kernels read are optional here
and ignored).  They are written for
obviousness, not speed: they are the oracle of the kernel tests and the
``backend="numpy"`` path (for environments without numba).

Sums are NumPy's (pairwise): the numba kernels add in another fixed order
(f_cp by position in a sample block, centroid sums in four lanes), so
objectives and centroids agree to rounding (the tests use ``rtol=1e-12``),
labels and counts exactly.
"""
from __future__ import annotations

import numpy as np

from . import MASK_ON as _MASK_ON
_MIN_SEPARATION = 1e-12  # relative to the widest feature range (see the numba kernel)
_TINY = np.finfo(np.float64).tiny


def _centroids(chromosome: np.ndarray, n_max: int) -> np.ndarray:
    return chromosome[n_max:].reshape(n_max, -1)


def _nearest(X: np.ndarray, chromosome: np.ndarray, n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Index of the nearest active centroid (lowest index on ties) and squared distance."""
    active = np.flatnonzero(chromosome[:n_max] >= _MASK_ON)
    if active.size == 0:
        return np.full(len(X), -1, dtype=np.int64), np.full(len(X), np.inf)
    C = _centroids(chromosome, n_max)[active]
    d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    nearest = np.argmin(d2, axis=1)  # first minimum = lowest centroid index
    return active[nearest].astype(np.int64), d2[np.arange(len(X)), nearest]


def evaluate_population(X, pop, n_max, nonempty_only, f_cp, f_sep, counts, xt=None):
    floor = max(_MIN_SEPARATION * float(np.ptp(X, axis=0).max()), _TINY)
    for i, chromosome in enumerate(pop):
        labels, d2 = _nearest(X, chromosome, n_max)
        counts[i] = np.bincount(labels[labels >= 0], minlength=n_max)
        active = np.flatnonzero(chromosome[:n_max] >= _MASK_ON)
        if active.size == 0:
            f_cp[i] = np.inf
            f_sep[i] = np.inf
            continue
        f_cp[i] = np.sqrt(d2).sum()
        if nonempty_only:
            active = active[counts[i, active] > 0]
        if active.size < 2:
            f_sep[i] = np.inf
            continue
        C = _centroids(chromosome, n_max)[active]
        pair_d2 = ((C[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        min_d2 = pair_d2[np.triu_indices(len(C), k=1)].min()
        f_sep[i] = 1.0 / max(np.sqrt(min_d2), floor)


def recentre_population(X_assign, X_update, pop, n_max, reseed_empty, sums, counts, xt=None, xu=None):
    n_features = X_assign.shape[1]
    for i, chromosome in enumerate(pop):
        labels, d2 = _nearest(X_assign, chromosome, n_max)
        counts[i] = 0
        sums[i] = 0.0
        reseeded = not reseed_empty
        for c in np.flatnonzero(chromosome[:n_max] >= _MASK_ON):
            members = labels == c
            counts[i, c] = members.sum()
            start = n_max + c * n_features
            if counts[i, c] > 0:
                sums[i, c] = X_update[members].sum(axis=0)
                pop[i, start:start + n_features] = sums[i, c] / counts[i, c]
            elif not reseeded and len(X_assign):
                pop[i, start:start + n_features] = X_update[np.argmax(d2)]
                reseeded = True


def assign_nearest(X, chromosome, n_max, labels, distances, xt=None):
    nearest, d2 = _nearest(X, chromosome, n_max)
    labels[:] = nearest
    distances[:] = np.sqrt(d2)


def binary_tournament(rank, crowding, candidates, coin, winners):
    a, b = candidates[:, 0], candidates[:, 1]
    a_wins = (rank[a] < rank[b]) | (
        (rank[a] == rank[b])
        & ((crowding[a] > crowding[b]) | ((crowding[a] == crowding[b]) & (coin < 0.5)))
    )
    winners[:] = np.where(a_wins, a, b)


def single_point_crossover(pop, parents, rate, draw, cut, offspring):
    n_genes = pop.shape[1]
    for p in range(len(parents) // 2):
        a, b = pop[parents[2 * p]], pop[parents[2 * p + 1]]
        r = cut[p] if draw[p] < rate else n_genes
        offspring[2 * p] = np.concatenate([a[:r], b[r:]])
        offspring[2 * p + 1] = np.concatenate([b[:r], a[r:]])


def polynomial_mutation(offspring, lower, upper, rate, eta, draw, r):
    span = upper - lower
    mutate = (draw < rate) & (span > 0)[None, :]
    x = np.clip(offspring, lower, upper)
    safe_span = np.where(span > 0, span, 1.0)
    delta1 = (x - lower) / safe_span
    delta2 = (upper - x) / safe_span
    power = 1.0 / (eta + 1.0)
    with np.errstate(invalid="ignore"):
        low_branch = (2 * r + (1 - 2 * r) * (1 - delta1) ** (eta + 1)) ** power - 1
        high_branch = 1 - (2 * (1 - r) + 2 * (r - 0.5) * (1 - delta2) ** (eta + 1)) ** power
    shift = np.where(r <= 0.5, low_branch, high_branch)
    mutated = np.clip(x + shift * span, lower, upper)
    offspring[mutate] = mutated[mutate]


def repair_min_active(pop, n_max, min_active, pick, value):
    for i in range(len(pop)):
        k = 0
        while np.count_nonzero(pop[i, :n_max] >= _MASK_ON) < min_active:
            inactive = np.flatnonzero(pop[i, :n_max] < _MASK_ON)
            target = min(int(pick[i, k] * len(inactive)), len(inactive) - 1)
            pop[i, inactive[target]] = 0.5 + 0.5 * value[i, k]
            k += 1


def nondominated_rank(F, scratch, rank):
    """Brute force: peel off the set of points no remaining point dominates."""
    leq = (F[:, None, :] <= F[None, :, :]).all(axis=2)
    lt = (F[:, None, :] < F[None, :, :]).any(axis=2)
    dominates = leq & lt  # dominates[p, q]: p dominates q
    remaining = np.ones(len(F), dtype=bool)
    rank[:] = -1
    front = 0
    while remaining.any():
        dominated = (dominates & remaining[:, None]).any(axis=0)
        current = remaining & ~dominated
        rank[current] = front
        remaining &= ~current
        front += 1


nondominated_rank_two = nondominated_rank  # the brute force holds for two objectives too


def crowding_distance(F, rank, order, crowding):
    crowding[:] = 0.0
    for front in np.unique(rank):
        members = np.flatnonzero(rank == front)
        for k in range(F.shape[1]):
            ordered = members[np.argsort(F[members, k], kind="mergesort")]
            span = F[ordered[-1], k] - F[ordered[0], k]
            if span <= 0:
                continue
            crowding[ordered[0]] = np.inf
            crowding[ordered[-1]] = np.inf
            gaps = (F[ordered[2:], k] - F[ordered[:-2], k]) / span
            crowding[ordered[1:-1]] += gaps
    order[:] = np.argsort(rank, kind="mergesort")


def environmental_selection(F, scratch, rank, order, crowding, chosen, chosen_rank, chosen_crowding):
    nondominated_rank_two(F, scratch, rank)
    crowding_distance(F, rank, order, crowding)
    survivors = np.lexsort((np.arange(len(F)), -crowding, rank))[:len(chosen)]
    chosen[:] = survivors
    chosen_rank[:] = rank[survivors]
    chosen_crowding[:] = crowding[survivors]


def stacking_em_step(density_ratio, alpha):
    return float(np.mean(1.0 / (1.0 + density_ratio * ((1.0 - alpha) / alpha))))


def stacking_em_loop(density_ratio, alpha, tol, max_iter):
    for _ in range(max_iter):
        alpha_new = min(max(stacking_em_step(density_ratio, alpha), 0.0), 1.0)
        converged = abs(alpha_new - alpha) < tol
        alpha = alpha_new
        if converged or alpha in (0.0, 1.0):
            break
    return alpha


def _gaussian_logpdf(X, mean, cov):
    """Log-density of N(mean, cov) at the rows of X; None if cov is not positive definite."""
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        return None
    z = np.linalg.solve(chol, (X - mean).T)
    return -0.5 * (X.shape[1] * np.log(2.0 * np.pi) + (z**2).sum(axis=0)) - np.log(np.diag(chol)).sum()


def smoothness_pair_alphas(X_curr, labels_curr, X_prev, labels_prev, X_curr_all, X_prev_all, pairs, order,
                           n_folds_max, tol, max_iter, block, members, group_starts, rows, ratios, vecs, mats, slots,
                           slot_values, alpha_pairs):
    vecs[5], vecs[6] = X_curr_all.mean(axis=0), X_prev_all.mean(axis=0)
    X_curr, X_prev = X_curr - vecs[5], X_prev - vecs[6]
    offset = 0
    n_dims = X_curr.shape[1]
    for p, (label_curr, label_prev) in enumerate(pairs):
        A_curr, A_prev = X_curr[labels_curr == label_curr], X_prev[labels_prev == label_prev]
        n_curr = len(A_curr)
        folds_order = order[offset:offset + n_curr]
        offset += n_curr
        alpha_pairs[p] = np.nan
        if n_curr < 2 or len(A_prev) < 2:
            continue
        union = np.concatenate([A_curr, A_prev])
        variance = np.trace(np.atleast_2d(np.cov(union, rowvar=False))) / n_dims
        level = np.mean(union.mean(axis=0) ** 2)
        ridge = 1e-3 * variance + 1e-12 * min(1.0, variance + level) if variance + level > 0 else 1e-12
        n_folds = min(n_folds_max, n_curr)
        ll_curr = np.empty(n_curr)
        failed = False
        for held_out in np.array_split(folds_order, n_folds):
            train = np.delete(A_curr, held_out, axis=0)
            cov = np.atleast_2d(np.cov(train, rowvar=False)) if len(train) >= 2 else np.zeros((n_dims, n_dims))
            values = _gaussian_logpdf(A_curr[held_out], train.mean(axis=0), cov + ridge * np.eye(n_dims))
            if values is None:
                failed = True
                break
            ll_curr[held_out] = values
        ll_prev = _gaussian_logpdf(
            A_curr, A_prev.mean(axis=0), np.atleast_2d(np.cov(A_prev, rowvar=False)) + ridge * np.eye(n_dims))
        if failed or ll_prev is None:
            alpha_pairs[p] = -1.0
            continue
        keep = ~(np.isneginf(ll_curr) & np.isneginf(ll_prev))
        if keep.any():
            with np.errstate(over="ignore"):
                alpha_pairs[p] = stacking_em_loop(np.exp(ll_curr[keep] - ll_prev[keep]), 0.5, tol, max_iter)
    return alpha_pairs


# The twins run in one thread: the parallel variants are the same functions.
evaluate_population_parallel = evaluate_population
recentre_population_parallel = recentre_population
assign_nearest_parallel = assign_nearest
smoothness_pair_alphas_parallel = smoothness_pair_alphas
