"""Numba kernels for the evolutionary side: mating selection, variation,
repair, non-dominated sorting and crowding distance.

Randomness is explicit: the caller draws every random number a kernel needs
from its ``numpy.random.Generator`` into arrays and passes them in.  The
kernels are therefore pure functions of their inputs, identical to their
NumPy twins, and independent of the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._compile import lean_pipeline

_LEAN = lean_pipeline(vectorize=False)  # small loops: no vectoriser, one -O2 module pass

from . import MASK_ON as _MASK_ON


@njit(cache=True, pipeline_class=_LEAN)
def binary_tournament(rank, crowding, candidates, coin, winners):  # pragma: no cover
    """Crowded-comparison binary tournaments (NSGA-II mating selection).

    Parameters
    ----------
    rank : int64 ndarray of shape (n_pop,)              IN, front index (0 = best)
    crowding : ndarray of shape (n_pop,)                IN, crowding distance
    candidates : int64 ndarray of shape (n_out, 2)      IN, random entrants
    coin : ndarray of shape (n_out,)                    IN, U(0,1) tie breakers
    winners : int64 ndarray of shape (n_out,)           OUT
    """
    for k in range(candidates.shape[0]):
        a = candidates[k, 0]
        b = candidates[k, 1]
        if rank[a] < rank[b]:
            winners[k] = a
        elif rank[b] < rank[a]:
            winners[k] = b
        elif crowding[a] > crowding[b]:
            winners[k] = a
        elif crowding[b] > crowding[a]:
            winners[k] = b
        elif coin[k] < 0.5:
            winners[k] = a
        else:
            winners[k] = b


@njit(cache=True, pipeline_class=_LEAN)
def single_point_crossover(pop, parents, rate, draw, cut, offspring):  # pragma: no cover
    """Single-point crossover of consecutive parent pairs.

    Pair ``p`` is ``(parents[2p], parents[2p+1])``; with probability ``rate``
    (``draw[p] < rate``) the children swap tails after gene ``cut[p]``,
    otherwise they are copies of the parents.

    Parameters
    ----------
    pop : ndarray of shape (n_pop, n_genes)              IN
    parents : int64 ndarray of shape (n_off,)            IN, n_off even
    rate : float                                         IN
    draw : ndarray of shape (n_off // 2,)                IN, U(0,1)
    cut : int64 ndarray of shape (n_off // 2,)           IN, in 1 .. n_genes-1
    offspring : ndarray of shape (n_off, n_genes)        OUT
    """
    n_genes = pop.shape[1]
    for p in range(parents.shape[0] // 2):
        a = parents[2 * p]
        b = parents[2 * p + 1]
        r = cut[p] if draw[p] < rate else n_genes
        for j in range(n_genes):
            if j < r:
                offspring[2 * p, j] = pop[a, j]
                offspring[2 * p + 1, j] = pop[b, j]
            else:
                offspring[2 * p, j] = pop[b, j]
                offspring[2 * p + 1, j] = pop[a, j]


@njit(cache=True, pipeline_class=_LEAN)
def polynomial_mutation(offspring, lower, upper, rate, eta, draw, r):  # pragma: no cover
    """Bounded polynomial mutation (Deb & Goyal), in place.

    Gene ``j`` of row ``i`` mutates when ``draw[i, j] < rate``.  A gene
    outside its bounds is first clipped into them; genes with
    ``upper == lower`` never mutate.

    Parameters
    ----------
    offspring : ndarray of shape (n_off, n_genes)    IN/OUT
    lower, upper : ndarray of shape (n_genes,)       IN
    rate : float                                     IN, per-gene probability
    eta : float                                      IN, distribution index
    draw, r : ndarray of shape (n_off, n_genes)      IN, U(0,1)
    """
    power = 1.0 / (eta + 1.0)
    for i in range(offspring.shape[0]):
        for j in range(offspring.shape[1]):
            if draw[i, j] >= rate:
                continue
            lo = lower[j]
            hi = upper[j]
            span = hi - lo
            if span <= 0.0:
                continue
            x = min(max(offspring[i, j], lo), hi)
            delta1 = (x - lo) / span
            delta2 = (hi - x) / span
            u = r[i, j]
            if u <= 0.5:
                val = 2.0 * u + (1.0 - 2.0 * u) * (1.0 - delta1) ** (eta + 1.0)
                shift = val ** power - 1.0
            else:
                val = 2.0 * (1.0 - u) + 2.0 * (u - 0.5) * (1.0 - delta2) ** (eta + 1.0)
                shift = 1.0 - val ** power
            offspring[i, j] = min(max(x + shift * span, lo), hi)


@njit(cache=True, pipeline_class=_LEAN)
def repair_min_active(pop, n_max, min_active, pick, value):  # pragma: no cover
    """Activate random inactive masks until ``min_active`` centroids are on.

    Repair ``k`` of row ``i`` switches on inactive mask number
    ``floor(pick[i, k] * n_inactive)`` (counting inactive masks in order) and
    sets it to ``0.5 + 0.5 * value[i, k]``.

    Parameters
    ----------
    pop : ndarray of shape (n, n_genes)                 IN/OUT
    n_max : int                                         IN
    min_active : int                                    IN, at most pick.shape[1]
    pick, value : ndarray of shape (n, min_active)      IN, U(0,1)
    """
    for i in range(pop.shape[0]):
        n_active = 0
        for c in range(n_max):
            if pop[i, c] >= _MASK_ON:
                n_active += 1
        k = 0
        while n_active < min_active:
            n_inactive = n_max - n_active
            target = int(pick[i, k] * n_inactive)
            if target >= n_inactive:
                target = n_inactive - 1
            seen = 0
            for c in range(n_max):
                if pop[i, c] < _MASK_ON:
                    if seen == target:
                        pop[i, c] = 0.5 + 0.5 * value[i, k]
                        break
                    seen += 1
            n_active += 1
            k += 1


@njit(pipeline_class=_LEAN)  # not cached itself: linked into (and cached with) its callers
def _stable_sort_by(values, order, tmp):  # pragma: no cover
    """Sort the indices in ``order`` by ``values[order]``, stably, in place.

    Bottom-up merge sort (``tmp`` is scratch of the same length); NaN sorts
    last, as in NumPy.  Written out here because numba's own ``argsort``
    costs seconds to compile.
    """
    n = order.shape[0]
    width = 1
    src = order
    dst = tmp
    in_tmp = False
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            # while both runs last, without a branch on the comparison (conditional moves: the
            # outcome of comparing objective values is unpredictable, a mispredicted branch dear)
            while i < mid and j < hi:
                a = src[i]
                b = src[j]
                va = values[a]
                vb = values[b]
                # the right one first: smaller, or the left one NaN (NaN sorts last)
                right = vb < va or (np.isnan(va) and not np.isnan(vb))
                dst[k] = b if right else a
                step = np.int64(right)
                j += step
                i += 1 - step
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        in_tmp = not in_tmp
        width *= 2
    if in_tmp:
        for k in range(n):
            order[k] = src[k]


@njit(cache=True, pipeline_class=_LEAN)
def nondominated_rank_two(F, scratch, rank):  # pragma: no cover
    """:func:`nondominated_rank` for two objectives by a sweep: O(n log n + n * n_fronts).

    Points are visited in lexicographic (f1, f2) order.  Within a front f2
    strictly decreases along that order, so a new point is dominated by some
    member of front k exactly when it is dominated by the member added last
    (the one with the smallest f2, kept in ``scratch[k]``); it joins the first
    front whose last member does not dominate it.  A kernel of its own (not a
    branch of :func:`nondominated_rank`): a fit compiles only this one.

    Parameters
    ----------
    F : ndarray of shape (n, 2)                     IN
    scratch : int64 ndarray of shape (n,)           SCRATCH
    rank : int64 ndarray of shape (n,)              OUT, 0 = first front
    """
    last = scratch
    n = F.shape[0]
    by_f1 = np.empty(n, dtype=np.int64)
    for i in range(n):
        by_f1[i] = i
    tmp = np.empty(n, dtype=np.int64)
    _stable_sort_by(F[:, 1], by_f1, tmp)
    _stable_sort_by(F[:, 0], by_f1, tmp)  # stable: ties in f1 stay ordered by f2
    n_fronts = 0
    for p in by_f1:
        k = 0
        while k < n_fronts:
            q = last[k]
            dominated = F[q, 1] <= F[p, 1] and (F[q, 0] < F[p, 0] or F[q, 1] < F[p, 1])
            if not dominated:
                break
            k += 1
        rank[p] = k
        last[k] = p
        if k == n_fronts:
            n_fronts += 1


@njit(cache=True, pipeline_class=_LEAN)
def nondominated_rank(F, scratch, rank):  # pragma: no cover
    """Non-dominated sorting for minimisation: the front index of every point.

    Parameters
    ----------
    F : ndarray of shape (n, n_objectives)          IN
    scratch : int64 ndarray of shape (n,)           SCRATCH
    rank : int64 ndarray of shape (n,)              OUT, 0 = first front

    Notes
    -----
    Deb et al.'s fast non-dominated sort, O(M n^2), peeling each front by
    re-scanning the members of the previous one.  For two objectives
    :func:`nondominated_rank_two` gives the same ranks faster.
    """
    n = F.shape[0]
    dominated_count = scratch
    for q in range(n):
        dominated_count[q] = 0
        rank[q] = -1
    for p in range(n):
        for q in range(n):
            if p != q and _dominates(F, p, q):
                dominated_count[q] += 1
    current = 0
    assigned = 0
    for q in range(n):
        if dominated_count[q] == 0:
            rank[q] = 0
            assigned += 1
    while assigned < n:
        for p in range(n):
            if rank[p] != current:
                continue
            for q in range(n):
                if rank[q] == -1 and _dominates(F, p, q):
                    dominated_count[q] -= 1
        current += 1
        for q in range(n):
            if rank[q] == -1 and dominated_count[q] == 0:
                rank[q] = current
                assigned += 1


@njit(cache=True, inline="always", pipeline_class=_LEAN)
def _dominates(F, p, q):  # pragma: no cover
    better = False
    for k in range(F.shape[1]):
        if F[p, k] > F[q, k]:
            return False
        if F[p, k] < F[q, k]:
            better = True
    return better


@njit(cache=True, pipeline_class=_LEAN)
def crowding_distance(F, rank, order, crowding):  # pragma: no cover
    """Crowding distance of every point within its own front.

    For each objective the points of a front are ordered by value (stable:
    ties by index); the two extremes get ``inf`` and interior points add the
    normalised gap between their neighbours.  Objectives that are constant
    on a front are skipped.

    Parameters
    ----------
    F : ndarray of shape (n, n_objectives)          IN, finite
    rank : int64 ndarray of shape (n,)              IN
    order : int64 ndarray of shape (n,)             SCRATCH
    crowding : ndarray of shape (n,)                OUT
    """
    _crowding(F, rank, order, crowding)


@njit(inline="always", pipeline_class=_LEAN)  # the body of crowding_distance and environmental_selection
def _crowding(F, rank, order, crowding):  # pragma: no cover
    n, m = F.shape
    n_fronts = 0
    for i in range(n):
        crowding[i] = 0.0
        if rank[i] + 1 > n_fronts:
            n_fronts = rank[i] + 1
    start = np.empty(n_fronts + 1, dtype=np.int64)
    for f in range(n_fronts + 1):
        start[f] = 0
    for i in range(n):
        start[rank[i] + 1] += 1
    for f in range(n_fronts):
        start[f + 1] += start[f]
    fill = np.empty(n_fronts, dtype=np.int64)
    by_value = np.empty(n, dtype=np.int64)
    tmp = np.empty(n, dtype=np.int64)
    for k in range(m):
        for i in range(n):
            by_value[i] = i
        _stable_sort_by(F[:, k], by_value, tmp)
        for f in range(n_fronts):
            fill[f] = start[f]
        for i in by_value:
            f = rank[i]
            order[fill[f]] = i
            fill[f] += 1
        for f in range(n_fronts):
            lo = start[f]
            hi = start[f + 1] - 1
            if hi < lo:
                continue
            first = order[lo]
            last = order[hi]
            span = F[last, k] - F[first, k]
            if span <= 0.0:
                continue
            crowding[first] = np.inf
            crowding[last] = np.inf
            for pos in range(lo + 1, hi):
                crowding[order[pos]] += (F[order[pos + 1], k] - F[order[pos - 1], k]) / span


@njit(cache=True, pipeline_class=_LEAN)
def environmental_selection(F, scratch, rank, order, crowding, chosen, chosen_rank, chosen_crowding):  # pragma: no cover
    """NSGA-II environmental selection for two objectives, in one call.

    Ranks every row of ``F`` (:func:`nondominated_rank_two`), computes its
    crowding distance (:func:`crowding_distance`) and writes the first
    ``len(chosen)`` row indices in the order (rank ascending, crowding
    descending, index ascending): whole fronts in rank order, the front that
    overflows cut by crowding, ties by index.  The engine called the two
    kernels and a NumPy ``lexsort`` for this, three calls per generation
    whose fixed costs outweighed their work on small data.  With empty
    ``chosen`` arrays it is rank and crowding only (the engine's
    ``rank_and_crowding``): a fit then compiles this kernel in place of
    ``crowding_distance``, no more functions than before.

    Parameters
    ----------
    F : ndarray of shape (n, 2)                          IN
    scratch, order : int64 ndarray of shape (n,)         SCRATCH
    rank : int64 ndarray of shape (n,)                   OUT, 0 = first front
    crowding : ndarray of shape (n,)                     OUT
    chosen : int64 ndarray of shape (n_select,)          OUT, n_select <= n
    chosen_rank : int64 ndarray of shape (n_select,)     OUT, ``rank[chosen]``
    chosen_crowding : ndarray of shape (n_select,)       OUT, ``crowding[chosen]``
    """
    nondominated_rank_two(F, scratch, rank)
    _crowding(F, rank, order, crowding)  # inlined: a fit compiles no crowding_distance kernel
    n = F.shape[0]
    # (rank, -crowding, index) order: a stable sort by -crowding (NaN last, as NumPy's
    # lexsort) of the indices in order, then a stable counting sort by rank
    # keys as a column view: the array type of crowding_distance's F[:, k], so that the
    # shared merge sort compiles once (a contiguous array would compile it a second time)
    keys = np.empty((n, 1))[:, 0]
    for i in range(n):
        keys[i] = -crowding[i]
        order[i] = i
    _stable_sort_by(keys, order, scratch)
    n_fronts = 0
    for i in range(n):
        n_fronts = max(n_fronts, rank[i] + 1)
    start = np.zeros(n_fronts + 1, dtype=np.int64)
    for i in range(n):
        start[rank[i] + 1] += 1
    for f in range(n_fronts):
        start[f + 1] += start[f]
    n_select = chosen.shape[0]
    for i in order:
        position = start[rank[i]]
        start[rank[i]] += 1
        if position < n_select:
            chosen[position] = i
            chosen_rank[position] = rank[i]
            chosen_crowding[position] = crowding[i]
