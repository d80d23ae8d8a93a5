"""Numba kernels for the clustering side of ERCOT: evaluation, Lloyd-style
re-centring and nearest-centroid assignment.

Chromosome layout (one row of a population array ``pop`` of shape
``(n_solutions, n_max + n_max * n_features)``): genes ``0 .. n_max-1`` are the
masks; centroid ``c`` occupies genes ``n_max + c*D .. n_max + (c+1)*D - 1`` and
is active when its mask is ``>= 0.5``.

Each solution's active centroids are first gathered into a small contiguous
array; the sample loop is outermost (measured faster than a blocked,
centroid-outer layout for the small D and C_max used here).

Contract shared by every kernel here (the model is scikit-learn's
``_k_means_lloyd.pyx``): one step per call, outputs and scratch sized by the
data are allocated by the caller, nothing is validated, nothing is printed,
no randomness.  Parallel loops run over solutions (or sample blocks) and
never reduce across iterations, so results do not depend on the number of
threads.  Ties go to the lowest centroid index.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

_MASK_ON = 0.5
# f_sep = 1 / max(min distance, floor), floor = _MIN_SEPARATION x the data's widest
# feature range (a unit-free floor: the same clustering in any unit of measurement).
_MIN_SEPARATION = 1e-12
_TINY = 2.2250738585072014e-308  # smallest normal float64: floor of constant data


@njit(cache=True, inline="always")
def _gather_active(chromosome, n_max, n_features, centroids, slots):  # pragma: no cover
    """Copy the active centroids into ``centroids[:n_active]``; return n_active."""
    n_active = 0
    for c in range(n_max):
        if chromosome[c] >= _MASK_ON:
            base = n_max + c * n_features
            for d in range(n_features):
                centroids[n_active, d] = chromosome[base + d]
            slots[n_active] = c
            n_active += 1
    return n_active


@njit(cache=True, inline="always")
def _nearest(X, s, centroids, n_active):  # pragma: no cover
    """Index (into ``centroids``) of the nearest centroid to sample ``s`` and its squared distance.

    D = 2 and D = 3 (the paper's 2-D data and RGB pixels) get unrolled loops,
    measured about 1.6x faster than the generic loop; the arithmetic (and so
    the result) is the same.
    """
    best = np.inf
    nearest = -1
    n_features = X.shape[1]
    if n_features == 2:
        x0 = X[s, 0]
        x1 = X[s, 1]
        for a in range(n_active):
            e0 = x0 - centroids[a, 0]
            e1 = x1 - centroids[a, 1]
            d2 = 0.0 + e0 * e0 + e1 * e1
            if d2 < best:
                best = d2
                nearest = a
    elif n_features == 3:
        x0 = X[s, 0]
        x1 = X[s, 1]
        x2 = X[s, 2]
        for a in range(n_active):
            e0 = x0 - centroids[a, 0]
            e1 = x1 - centroids[a, 1]
            e2 = x2 - centroids[a, 2]
            d2 = 0.0 + e0 * e0 + e1 * e1 + e2 * e2
            if d2 < best:
                best = d2
                nearest = a
    else:
        for a in range(n_active):
            d2 = 0.0
            for d in range(n_features):
                diff = X[s, d] - centroids[a, d]
                d2 += diff * diff
            if d2 < best:
                best = d2
                nearest = a
    return nearest, best


@njit(cache=True, parallel=True)
def evaluate_population(X, pop, n_max, nonempty_only, f_cp, f_sep, counts):  # pragma: no cover
    """Objectives and cluster sizes of every solution.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)            IN
    pop : ndarray of shape (n_solutions, n_genes)           IN
    n_max : int                                             IN, C_max
    nonempty_only : bool                                    IN, f_sep over centroids
        with members only (otherwise over all active centroids, the paper's text)
    f_cp : ndarray of shape (n_solutions,)                  OUT, sum of distances
        of every sample to its nearest active centroid.
    f_sep : ndarray of shape (n_solutions,)                 OUT, 1 / min distance
        between (non-empty) active centroids (inf when fewer than two), the
        distance floored at 1e-12 x the widest feature range of ``X``.
    counts : int64 ndarray of shape (n_solutions, n_max)    OUT, members per centroid.
    """
    n_samples, n_features = X.shape
    widest = 0.0
    for d in range(n_features):
        low = X[0, d]
        high = X[0, d]
        for s in range(1, n_samples):
            low = min(low, X[s, d])
            high = max(high, X[s, d])
        widest = max(widest, high - low)
    floor = max(_MIN_SEPARATION * widest, _TINY)
    for i in prange(pop.shape[0]):
        centroids = np.empty((n_max, n_features))
        slots = np.empty(n_max, dtype=np.int64)
        local_counts = np.zeros(n_max, dtype=np.int64)
        n_active = _gather_active(pop[i], n_max, n_features, centroids, slots)
        for c in range(n_max):
            counts[i, c] = 0
        if n_active == 0:
            f_cp[i] = np.inf
            f_sep[i] = np.inf
            continue
        total = 0.0
        for s in range(n_samples):
            nearest, best = _nearest(X, s, centroids, n_active)
            total += np.sqrt(best)
            local_counts[nearest] += 1
        f_cp[i] = total
        for a in range(n_active):
            counts[i, slots[a]] = local_counts[a]

        min_d2 = np.inf
        n_pairs = 0
        for a in range(n_active):
            if nonempty_only and local_counts[a] == 0:
                continue
            for b in range(a + 1, n_active):
                if nonempty_only and local_counts[b] == 0:
                    continue
                n_pairs += 1
                dist2 = 0.0
                for d in range(n_features):
                    diff = centroids[a, d] - centroids[b, d]
                    dist2 += diff * diff
                if dist2 < min_d2:
                    min_d2 = dist2
        if n_pairs == 0:
            f_sep[i] = np.inf
        else:
            f_sep[i] = 1.0 / max(np.sqrt(min_d2), floor)


@njit(cache=True, parallel=True)
def recentre_population(X_assign, X_update, pop, n_max, reseed_empty, sums, counts):  # pragma: no cover
    """One assign-then-average step on every solution, in place.

    Each sample (row of ``X_assign``) is labelled with its nearest active
    centroid; each active centroid with members then moves to the mean of
    the matching rows of ``X_update``.  With the same array twice this is
    one Lloyd (k-means) step, the paper's refinement of offspring (Remark 2);
    with the common samples at t-1 and t it is the decode-encode of Remark 1.
    Masks are left unchanged; an active centroid without members stays
    where it is, or with ``reseed_empty`` the first one moves onto the
    sample farthest from its nearest centroid (k-means' usual relocation).

    Parameters
    ----------
    X_assign, X_update : ndarray of shape (n_samples, n_features)     IN, row-aligned
    pop : ndarray of shape (n_solutions, n_genes)                     IN/OUT
    n_max : int                                                       IN
    reseed_empty : bool                                               IN
    sums : ndarray of shape (n_solutions, n_max, n_features)          SCRATCH
    counts : int64 ndarray of shape (n_solutions, n_max)              OUT, members
    """
    n_samples, n_features = X_assign.shape
    for i in prange(pop.shape[0]):
        centroids = np.empty((n_max, n_features))
        slots = np.empty(n_max, dtype=np.int64)
        n_active = _gather_active(pop[i], n_max, n_features, centroids, slots)
        for c in range(n_max):
            counts[i, c] = 0
            for d in range(n_features):
                sums[i, c, d] = 0.0
        if n_active == 0:
            continue
        farthest = -1
        farthest_d2 = -1.0
        for s in range(n_samples):
            nearest, best = _nearest(X_assign, s, centroids, n_active)
            counts[i, nearest] += 1
            for d in range(n_features):
                sums[i, nearest, d] += X_update[s, d]
            if best > farthest_d2:
                farthest_d2 = best
                farthest = s
        reseeded = not reseed_empty
        for a in range(n_active):
            base = n_max + slots[a] * n_features
            if counts[i, a] > 0:
                for d in range(n_features):
                    pop[i, base + d] = sums[i, a, d] / counts[i, a]
            elif not reseeded and farthest >= 0:
                for d in range(n_features):
                    pop[i, base + d] = X_update[farthest, d]
                reseeded = True
        # counts were accumulated per active index; report them per slot
        for a in range(n_active - 1, -1, -1):
            c = slots[a]
            if c != a:
                counts[i, c] = counts[i, a]
                counts[i, a] = 0


@njit(cache=True, parallel=True)
def assign_nearest(X, chromosome, n_max, labels, distances):  # pragma: no cover
    """Nearest active centroid of every sample for one chromosome.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)     IN
    chromosome : ndarray of shape (n_genes,)         IN
    n_max : int                                      IN
    labels : int64 ndarray of shape (n_samples,)     OUT, centroid slot (-1 if none active)
    distances : ndarray of shape (n_samples,)        OUT, Euclidean distance to it
    """
    n_samples, n_features = X.shape
    centroids = np.empty((n_max, n_features))
    slots = np.empty(n_max, dtype=np.int64)
    n_active = _gather_active(chromosome, n_max, n_features, centroids, slots)
    for s in prange(n_samples):
        nearest, best = _nearest(X, s, centroids, n_active)
        labels[s] = slots[nearest] if nearest >= 0 else -1
        distances[s] = np.sqrt(best)
