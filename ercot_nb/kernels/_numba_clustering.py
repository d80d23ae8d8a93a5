"""Numba kernels for the clustering side of ERCOT: evaluation, Lloyd-style
re-centring and nearest-centroid assignment.

Chromosome layout (one row of a population array ``pop`` of shape
``(n_solutions, n_max + n_max * n_features)``): genes ``0 .. n_max-1`` are the
masks; centroid ``c`` occupies genes ``n_max + c*D .. n_max + (c+1)*D - 1`` and
is active when its mask is ``>= 0.5``.

Each solution's active centroids are first gathered into a small contiguous
array; samples are then processed in blocks of ``_BLOCK`` by
``_nearest_block``.  For D <= 3 that loop reads a feature-major copy of the
samples padded to 3 features (argument ``xt``, made by :func:`feature_major`);
the re-centring sums a row-major copy of ``X_update`` with a column of ones
(argument ``xu``, made by :func:`with_ones`) in four lanes
(``_recentre_one``).  The caller makes these copies once per data array
(the engine: once per step), so the kernels neither copy per call nor carry
the copying code (compile time).  Scratch arrays are allocated once per call
(serial kernels) or once per solution (parallel kernels), never per block.
Sums run in fixed orders that differ from NumPy's (the twins agree to
rounding): results depend neither on the number of threads nor on the block.

Samples (``X``, ``xt``, ``xu``) come in float64 or, for the estimators'
``precision="float32"``, in float32: the kernels then compile a float32
version whose distances, centroid scratch and nearest indices (int32) are
single precision, so the nearest-centroid loop runs eight lanes wide; f_cp,
the re-centring's lane sums and the population stay float64.

Compile time: the per-solution functions are inlined into the kernels
(``inline="always"``); only ``_nearest_block`` is a separate function,
compiled once per process and linked into each kernel's cache entry.

Every population kernel comes twice: a serial one (the default: it compiles
quickly and small calls gain nothing from threads) and a ``*_parallel`` twin
over solutions (or samples) for large calls.  Both call the same per-solution
function, so their results are identical whatever the number of threads.

Contract shared by every kernel here (the model is scikit-learn's
``_k_means_lloyd.pyx``): one step per call, outputs and scratch sized by the
data are allocated by the caller (the exception: small per-call scratch),
nothing is validated, nothing is
printed, no randomness.  Parallel loops run over solutions (or sample blocks) and
never reduce across iterations, so results do not depend on the number of
threads.  Ties go to the lowest centroid index.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from . import MASK_ON as _MASK_ON
# f_sep = 1 / max(min distance, floor), floor = _MIN_SEPARATION x the data's widest
# feature range (a unit-free floor: the same clustering in any unit of measurement).
_MIN_SEPARATION = 1e-12
_TINY = 2.2250738585072014e-308  # smallest normal float64: floor of constant data


@njit(inline="always")
def _gather_active(chromosome, n_max, n_features, centroids, slots):  # pragma: no cover
    """Copy the active centroids into ``centroids[:n_active]``; return n_active.

    ``centroids`` has at least 3 columns; those past ``n_features`` are set to
    0 (the padding that ``_nearest_block`` reads for D < 3, as ``xt``'s rows).
    """
    n_active = 0
    for c in range(n_max):
        if chromosome[c] >= _MASK_ON:
            base = n_max + c * n_features
            for d in range(n_features):
                centroids[n_active, d] = chromosome[base + d]
            for d in range(n_features, centroids.shape[1]):
                centroids[n_active, d] = 0.0
            slots[n_active] = c
            n_active += 1
    return n_active


_BLOCK = 256  # samples per call of _nearest_block (its scratch size)


def _index_scratch(samples, n):
    """Scratch for ``n`` centroid indices: int32 beside float32 samples, else int64.

    Indices as wide as the distances let the nearest-centroid loop compare and
    select in one vector width (8 lanes in float32, 4 in float64).
    """
    return np.empty(n, dtype=np.int32 if samples.dtype == np.float32 else np.int64)


@overload(_index_scratch)
def _index_scratch_numba(samples, n):  # pragma: no cover
    index_dtype = np.int32 if samples.dtype == types.float32 else np.int64

    def index_scratch(samples, n):  # compiled once per sample dtype (a small, separate function)
        return np.empty(n, dtype=index_dtype)
    return index_scratch


def _aligned_zeros(shape: tuple, dtype=np.float64) -> np.ndarray:
    """Zeros whose data starts on a 64-byte boundary (a cache line), as numba's own arrays do.

    NumPy's large arrays start 16 bytes past a page: rows of four doubles
    would then straddle cache lines (measured 5% slower re-centring).
    """
    size = math.prod(shape)  # not np.prod: a tuple made an array costs more than the copy it sizes
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(size + 64 // itemsize, dtype=dtype)
    start = (-raw.ctypes.data % 64) // itemsize
    return raw[start:start + size].reshape(shape)


def _sample_dtype(X) -> np.dtype:
    """float32 for float32 samples (the kernels' float32 option), float64 otherwise."""
    return np.dtype(np.float32) if np.asarray(X).dtype == np.float32 else np.dtype(np.float64)


def feature_major(X: np.ndarray) -> np.ndarray:
    """``X`` transposed to shape (3, n_samples), zero-padded to 3 features, for D <= 3.

    The sample layout that the kernels' nearest-centroid loop reads for D <= 3
    (argument ``xt``); larger D gives an empty (3, 0) array (the loop then
    reads ``X``).  Plain NumPy, made by the caller once per data array.
    """
    X = np.asarray(X, dtype=_sample_dtype(X))
    n_samples, n_features = X.shape
    if n_features > 3:
        return np.empty((3, 0), dtype=X.dtype)
    xt = _aligned_zeros((3, n_samples), X.dtype)
    xt[:n_features] = X.T
    return xt


@njit  # not cached itself: linked into (and cached with) each kernel that calls it
def _nearest_block(X, xt, start, stop, centroids, n_active, nearest, best):  # pragma: no cover
    """Nearest centroid (index into ``centroids``) and squared distance of samples ``start:stop``.

    ``nearest`` (int64) and ``best`` have length 2 * _BLOCK (two rows of
    _BLOCK, see below); the results go to ``nearest[:stop - start]`` and
    ``best[:stop - start]`` (``n_active >= 1``).  For D <= 3 (the paper's 2-D data and RGB pixels)
    the loop reads the feature-major copy ``xt`` (see :func:`feature_major`) and
    runs centroid-outer, sample-inner without branches, which vectorises
    (measured 1.2-1.5x faster per sample-centroid pair than the sample-outer
    loop); the sum ``e0^2 + e1^2 + e2^2`` and the ties (lowest index) are
    those of the generic loop, so the result is the same.  Every kernel's
    sample loop runs through this one function, a block at a time, so it is
    compiled once.
    """
    n_features = X.shape[1]
    n = stop - start
    if n_features <= 3:
        # centroid-outer, sample-inner: the inner loop has no branch and vectorises.
        # Each centroid reads one row (half) of best/nearest and writes the other
        # with min() and bit masks: an update in place, or a conditional
        # expression, compiles to masked stores (slow on AMD), this to plain
        # vector stores
        x0 = xt[0, start:stop]
        x1 = xt[1, start:stop]
        x2 = xt[2, start:stop]
        c0 = centroids[0, 0]
        c1 = centroids[0, 1]
        c2 = centroids[0, 2]
        # start in the row that the last centroid's pass leaves in the first
        src = (n_active - 1) % 2
        b0 = best[src * _BLOCK:]
        k0 = nearest[src * _BLOCK:]
        for j in range(n):
            e0 = x0[j] - c0
            e1 = x1[j] - c1
            e2 = x2[j] - c2
            b0[j] = e0 * e0 + e1 * e1 + e2 * e2
            k0[j] = 0
        for a in range(1, n_active):
            c0 = centroids[a, 0]
            c1 = centroids[a, 1]
            c2 = centroids[a, 2]
            b_in = best[src * _BLOCK:]
            k_in = nearest[src * _BLOCK:]
            b_out = best[(1 - src) * _BLOCK:]
            k_out = nearest[(1 - src) * _BLOCK:]
            for j in range(n):
                e0 = x0[j] - c0
                e1 = x1[j] - c1
                e2 = x2[j] - c2
                d2 = e0 * e0 + e1 * e1 + e2 * e2
                b = b_in[j]
                better = -np.int64(d2 < b)  # all bits set where centroid a is strictly nearer
                b_out[j] = min(d2, b)
                k_out[j] = (k_in[j] & ~better) | (a & better)
            src = 1 - src
        return
    for s in range(start, stop):
        j = s - start
        nearest[j] = -1
        best[j] = np.inf
        for a in range(n_active):
            d2 = 0.0
            for d in range(n_features):
                diff = X[s, d] - centroids[a, d]
                d2 += diff * diff
            if d2 < best[j]:
                best[j] = d2
                nearest[j] = a


@njit(inline="always")
def _separation_floor(X):  # pragma: no cover
    """Floor of the centroid distance in f_sep: 1e-12 x the widest feature range of ``X``."""
    n_samples, n_features = X.shape
    widest = 0.0
    for d in range(n_features):
        low = X[0, d]
        high = X[0, d]
        for s in range(1, n_samples):
            low = min(low, X[s, d])
            high = max(high, X[s, d])
        widest = max(widest, high - low)
    return max(_MIN_SEPARATION * widest, _TINY)


@njit(inline="always")
def _sum4(values, n):  # pragma: no cover
    """``values[:n]`` summed in four interleaved running sums, ``(s0 + s1) + (s2 + s3)``."""
    s0 = s1 = s2 = s3 = 0.0
    n4 = n - n % 4
    for j in range(0, n4, 4):
        s0 += values[j]
        s1 += values[j + 1]
        s2 += values[j + 2]
        s3 += values[j + 3]
    for j in range(n4, n):
        s0 += values[j]
    return (s0 + s1) + (s2 + s3)


@njit(inline="always")
def _evaluate_one(X, xt, chromosome, n_max, nonempty_only, floor, counts_row,
                  centroids, slots, local_counts, nearest, best, partial):  # pragma: no cover
    """f_cp and f_sep of one chromosome; members per slot into ``counts_row``.

    ``centroids`` (n_max, D), ``slots``, ``local_counts`` (n_max,), ``nearest``
    and ``best`` (2 * _BLOCK, see ``_nearest_block``) and
    ``partial`` (_BLOCK,) are scratch.  f_cp is summed by position in the
    block: ``partial[j]`` adds the distances of samples j, j + _BLOCK, ...
    (a vector add, where one running sum waits on each addition), then
    ``partial`` is summed by ``_sum4``: a fixed order whatever the threads.
    """
    n_samples, n_features = X.shape
    n_active = _gather_active(chromosome, n_max, n_features, centroids, slots)
    for c in range(n_max):
        counts_row[c] = 0
        local_counts[c] = 0
    if n_active == 0:
        return np.inf, np.inf
    width = min(n_samples, _BLOCK)
    for j in range(width):
        partial[j] = 0.0
    for start in range(0, n_samples, _BLOCK):
        stop = min(start + _BLOCK, n_samples)
        _nearest_block(X, xt, start, stop, centroids, np.int64(n_active), nearest, best)
        m = stop - start
        # square roots and positional sums vectorise; counts by comparison
        # vectorise where a histogram update waits on memory
        for j in range(m):
            partial[j] += np.sqrt(best[j])
        for a in range(n_active):
            cnt = 0
            for j in range(m):
                cnt += 1 if nearest[j] == a else 0
            local_counts[a] += cnt
    for a in range(n_active):
        counts_row[slots[a]] = local_counts[a]
    total = _sum4(partial, width)

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
        return total, np.inf
    return total, 1.0 / max(np.sqrt(min_d2), floor)


@njit(cache=True)
def evaluate_population(X, pop, n_max, nonempty_only, f_cp, f_sep, counts, xt):  # pragma: no cover
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
    xt : ndarray                                            IN, ``feature_major(X)``
    """
    floor = _separation_floor(X)
    centroids = np.empty((n_max, max(X.shape[1], 3)), dtype=X.dtype)
    slots = np.empty(n_max, dtype=np.int64)
    local_counts = np.empty(n_max, dtype=np.int64)
    nearest = _index_scratch(X, 2 * _BLOCK)
    best = np.empty(2 * _BLOCK, dtype=X.dtype)
    partial = np.empty(_BLOCK)
    for i in range(pop.shape[0]):
        f_cp[i], f_sep[i] = _evaluate_one(X, xt, pop[i], n_max, nonempty_only, floor, counts[i],
                                          centroids, slots, local_counts, nearest, best, partial)


@njit(cache=True, parallel=True)
def evaluate_population_parallel(X, pop, n_max, nonempty_only, f_cp, f_sep, counts, xt):  # pragma: no cover
    """:func:`evaluate_population` with solutions spread over numba's threads."""
    floor = _separation_floor(X)
    for i in prange(pop.shape[0]):
        centroids = np.empty((n_max, max(X.shape[1], 3)), dtype=X.dtype)
        slots = np.empty(n_max, dtype=np.int64)
        local_counts = np.empty(n_max, dtype=np.int64)
        nearest = _index_scratch(X, 2 * _BLOCK)
        best = np.empty(2 * _BLOCK, dtype=X.dtype)
        partial = np.empty(_BLOCK)
        f_cp[i], f_sep[i] = _evaluate_one(X, xt, pop[i], n_max, nonempty_only, floor, counts[i],
                                          centroids, slots, local_counts, nearest, best, partial)


_LANES = 4  # partial sums per centroid in the re-centring (sample j goes to lane j % 4)


def with_ones(X: np.ndarray) -> np.ndarray:
    """Row-major copy of ``X`` with a column of ones, zero-padded to 4 columns for D <= 3.

    Shape (n_samples, W), W = max(D + 1, 4); column W - 1 is 1.0, so summing
    a centroid's rows gives its coordinates' sums and its member count at once
    (exact: counts below 2**53).  The re-centring's argument ``xu``; plain
    NumPy, made by the caller once per data array.
    """
    X = np.asarray(X, dtype=_sample_dtype(X))
    n_samples, n_features = X.shape
    xu = _aligned_zeros((n_samples, max(n_features + 1, 4)), X.dtype)
    xu[:, :n_features] = X
    xu[:, -1] = 1.0
    return xu


@njit(inline="always")
def _recentre_one(X_assign, xt, X_update, xu, chromosome, n_max, reseed_empty, sums, counts_row,
                  centroids, slots, nearest, best, lane_sums):  # pragma: no cover
    """One assign-then-average step of one chromosome, in place (scratch as in ``_evaluate_one``,
    plus ``lane_sums`` (_LANES, n_max, W); ``xu`` is ``with_ones(X_update)``).

    Each block's samples are added to their centroid's partial sums, sample
    ``j`` in lane ``j % _LANES``: consecutive samples of one centroid
    (neighbouring pixels, a cluster's run of rows) then update different
    memory, so the additions do not wait on one another; a row of ``xu``
    carries the count too.  The sum of a centroid's members is
    ``(lane 0 + lane 1) + (lane 2 + lane 3)``: a fixed order, so the result
    depends neither on the number of threads nor on the block size.
    """
    n_samples, n_features = X_assign.shape
    n_active = _gather_active(chromosome, n_max, n_features, centroids, slots)
    for c in range(n_max):
        counts_row[c] = 0
        for d in range(n_features):
            sums[c, d] = 0.0
    if n_active == 0:
        return
    width = xu.shape[1]
    for lane in range(_LANES):
        for a in range(n_active):
            for d in range(width):
                lane_sums[lane, a, d] = 0.0
    farthest = -1
    farthest_d2 = -1.0
    for start in range(0, n_samples, _BLOCK):
        stop = min(start + _BLOCK, n_samples)
        _nearest_block(X_assign, xt, start, stop, centroids, np.int64(n_active), nearest, best)
        m = stop - start
        if width == 4:
            for j in range(m):
                lane = j % _LANES
                a = nearest[j]
                s = start + j
                u0 = xu[s, 0]
                u1 = xu[s, 1]
                u2 = xu[s, 2]
                u3 = xu[s, 3]
                v0 = lane_sums[lane, a, 0] + u0
                v1 = lane_sums[lane, a, 1] + u1
                v2 = lane_sums[lane, a, 2] + u2
                v3 = lane_sums[lane, a, 3] + u3
                lane_sums[lane, a, 0] = v0
                lane_sums[lane, a, 1] = v1
                lane_sums[lane, a, 2] = v2
                lane_sums[lane, a, 3] = v3
        else:
            for j in range(m):
                lane = j % _LANES
                a = nearest[j]
                for d in range(width):
                    lane_sums[lane, a, d] += xu[start + j, d]
        if reseed_empty:
            for j in range(m):
                if best[j] > farthest_d2:
                    farthest_d2 = best[j]
                    farthest = start + j
    for a in range(n_active):
        w = width - 1
        counts_row[a] = np.int64((lane_sums[0, a, w] + lane_sums[1, a, w]) + (lane_sums[2, a, w] + lane_sums[3, a, w]))
        for d in range(n_features):
            sums[a, d] = (lane_sums[0, a, d] + lane_sums[1, a, d]) + (lane_sums[2, a, d] + lane_sums[3, a, d])
    reseeded = not reseed_empty
    for a in range(n_active):
        base = n_max + slots[a] * n_features
        if counts_row[a] > 0:
            for d in range(n_features):
                chromosome[base + d] = sums[a, d] / counts_row[a]
        elif not reseeded and farthest >= 0:
            for d in range(n_features):
                chromosome[base + d] = X_update[farthest, d]
            reseeded = True
    # counts were accumulated per active index; report them per slot
    for a in range(n_active - 1, -1, -1):
        c = slots[a]
        if c != a:
            counts_row[c] = counts_row[a]
            counts_row[a] = 0


@njit(cache=True)
def recentre_population(X_assign, X_update, pop, n_max, reseed_empty, sums, counts, xt, xu):  # pragma: no cover
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
    xt : ndarray                                                      IN, ``feature_major(X_assign)``
    xu : ndarray                                                      IN, ``with_ones(X_update)``
    """
    centroids = np.empty((n_max, max(X_assign.shape[1], 3)), dtype=X_assign.dtype)
    slots = np.empty(n_max, dtype=np.int64)
    nearest = _index_scratch(X_assign, 2 * _BLOCK)
    best = np.empty(2 * _BLOCK, dtype=X_assign.dtype)
    lane_sums = np.empty((_LANES, n_max, xu.shape[1]))
    for i in range(pop.shape[0]):
        _recentre_one(X_assign, xt, X_update, xu, pop[i], n_max, reseed_empty, sums[i], counts[i],
                      centroids, slots, nearest, best, lane_sums)


@njit(cache=True, parallel=True)
def recentre_population_parallel(X_assign, X_update, pop, n_max, reseed_empty, sums, counts, xt, xu):  # pragma: no cover
    """:func:`recentre_population` with solutions spread over numba's threads."""
    for i in prange(pop.shape[0]):
        centroids = np.empty((n_max, max(X_assign.shape[1], 3)), dtype=X_assign.dtype)
        slots = np.empty(n_max, dtype=np.int64)
        nearest = _index_scratch(X_assign, 2 * _BLOCK)
        best = np.empty(2 * _BLOCK, dtype=X_assign.dtype)
        lane_sums = np.empty((_LANES, n_max, xu.shape[1]))
        _recentre_one(X_assign, xt, X_update, xu, pop[i], n_max, reseed_empty, sums[i], counts[i],
                      centroids, slots, nearest, best, lane_sums)


@njit(inline="always")
def _assign_range(X, xt, start, stop, centroids, slots, n_active, labels, distances):  # pragma: no cover
    nearest = _index_scratch(X, 2 * _BLOCK)
    best = np.empty(2 * _BLOCK, dtype=X.dtype)
    for first in range(start, stop, _BLOCK):
        last = min(first + _BLOCK, stop)
        _nearest_block(X, xt, first, last, centroids, np.int64(n_active), nearest, best)
        for s in range(first, last):
            labels[s] = slots[nearest[s - first]] if nearest[s - first] >= 0 else -1
            distances[s] = np.sqrt(best[s - first])


@njit(cache=True)
def assign_nearest(X, chromosome, n_max, labels, distances, xt):  # pragma: no cover
    """Nearest active centroid of every sample for one chromosome.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)     IN
    chromosome : ndarray of shape (n_genes,)         IN
    n_max : int                                      IN
    labels : int64 ndarray of shape (n_samples,)     OUT, centroid slot (-1 if none active)
    distances : ndarray of shape (n_samples,)        OUT, Euclidean distance to it
    xt : ndarray                                     IN, ``feature_major(X)``
    """
    n_features = X.shape[1]
    centroids = np.empty((n_max, max(n_features, 3)), dtype=X.dtype)
    slots = np.empty(n_max, dtype=np.int64)
    n_active = _gather_active(chromosome, n_max, n_features, centroids, slots)
    _assign_range(X, xt, 0, X.shape[0], centroids, slots, n_active, labels, distances)


_ASSIGN_CHUNK = 4096


@njit(cache=True, parallel=True)
def assign_nearest_parallel(X, chromosome, n_max, labels, distances, xt):  # pragma: no cover
    """:func:`assign_nearest` with blocks of samples spread over numba's threads."""
    n_samples, n_features = X.shape
    centroids = np.empty((n_max, max(n_features, 3)), dtype=X.dtype)
    slots = np.empty(n_max, dtype=np.int64)
    n_active = _gather_active(chromosome, n_max, n_features, centroids, slots)
    n_chunks = (n_samples + _ASSIGN_CHUNK - 1) // _ASSIGN_CHUNK
    for k in prange(n_chunks):
        stop = min((k + 1) * _ASSIGN_CHUNK, n_samples)
        _assign_range(X, xt, k * _ASSIGN_CHUNK, stop, centroids, slots, n_active, labels, distances)
