"""AFFECT's numerical steps: memory estimate, block statistics, the shrinkage
estimate of the forgetting factor and kernel k-means on a Gram matrix.

Ports of the corresponding functions of Kevin Xu's AFFECT MATLAB toolbox;
:class:`ercot_nb.baselines._affect.AFFECT` drives them.
"""
from __future__ import annotations

import numpy as np

_ROW_CHUNK = 2048  # rows of an S x S matrix processed at once by the chunked helpers
_BYTES = 8  # float64


class AffectMemoryError(ValueError, MemoryError):
    """AFFECT would need more memory for its S x S matrices than allowed.

    Both a ``ValueError`` (the data are unsuitable for the configured limit)
    and a ``MemoryError`` (what the allocation would have raised).
    """


def affect_memory_bytes(n_samples: int, n_samples_previous: int = 0) -> int:
    """Upper bound of the bytes AFFECT's S x S matrices take at one step.

    Step t holds the previous smoothed matrix (S_{t-1}^2 doubles), the Gram
    matrix, the smoothed matrix and, when samples come or go, copies of the
    common blocks (at most two more S_t^2), plus row chunks for the
    variance and silhouette computations.

    Parameters
    ----------
    n_samples : int
        S_t.
    n_samples_previous : int, default=0
        S_{t-1} (0 at the first step).

    Returns
    -------
    int
    """
    n, m = int(n_samples), int(n_samples_previous)
    return _BYTES * (m * m + 4 * n * n + 2 * min(n, _ROW_CHUNK) * n)


# --------------------------------------------------------------------------- helpers
def _one_hot(labels: np.ndarray, n_clusters: int) -> np.ndarray:
    """Indicator matrix of ids 1..n_clusters (other ids -> a zero row)."""
    Z = np.zeros((len(labels), n_clusters))
    valid = (labels >= 1) & (labels <= n_clusters)
    Z[np.flatnonzero(valid), labels[valid] - 1] = 1.0
    return Z


def _chunked_product(A: np.ndarray, Z: np.ndarray, transform=None) -> np.ndarray:
    """``transform(A) @ Z`` computed by row chunks (no S x S temporary)."""
    out = np.empty((A.shape[0], Z.shape[1]))
    for start in range(0, A.shape[0], _ROW_CHUNK):
        block = A[start:start + _ROW_CHUNK]
        out[start:start + _ROW_CHUNK] = (block if transform is None else transform(block, start)) @ Z
    return out


def _first_max(values: np.ndarray) -> int:
    """MATLAB ``[~, i] = max(v)``: NaN ignored, first index among equal maxima."""
    values = np.asarray(values, dtype=np.float64)
    if np.all(np.isnan(values)):
        return 0
    return int(np.nanargmax(values))


# --------------------------------------------------------------------------- alpha
def block_statistics(W: np.ndarray, labels: np.ndarray):
    """Block-model sample statistics of a symmetric matrix (``clu_sample_stats``).

    Parameters
    ----------
    W : ndarray of shape (n, n)
    labels : ndarray of shape (n,)
        Any cluster ids.

    Returns
    -------
    dict
        ``sizes`` (k,), ``diag_mean``/``diag_var`` (k,), ``off_mean``/
        ``off_var`` (k,) for the off-diagonal part of each diagonal block,
        ``cross_mean``/``cross_var`` (k, k) for the blocks between two
        clusters (their diagonals are unused), and ``codes`` (n,), the
        cluster index 0..k-1 of every object.  Variances are unbiased:
        off-diagonal entries are counted over unique pairs of the symmetric
        block (divisor n_c(n_c-1) - 2 for the sum over both triangles);
        degenerate blocks (a single object, the off-diagonal pair of a
        2-object cluster, a 1 x 1 cross block) have variance 0.
    """
    _, codes = np.unique(np.asarray(labels), return_inverse=True)
    codes = codes.ravel()
    k = int(codes.max()) + 1 if len(codes) else 0
    Z = _one_hot(codes + 1, k)
    sizes = Z.sum(axis=0)
    diagonal = np.diagonal(W)
    sums = Z.T @ _chunked_product(W, Z)
    squares = Z.T @ _chunked_product(W, Z, lambda block, _: block * block)

    diag_sum = np.bincount(codes, weights=diagonal, minlength=k)
    diag_mean = diag_sum / sizes
    diag_ss = np.bincount(codes, weights=(diagonal - diag_mean[codes]) ** 2, minlength=k)
    diag_var = np.divide(diag_ss, sizes - 1, out=np.zeros(k), where=sizes > 1)

    off_count = sizes * (sizes - 1)
    off_sum = np.diagonal(sums) - diag_sum
    off_squares = np.diagonal(squares) - np.bincount(codes, weights=diagonal ** 2, minlength=k)
    off_mean = np.divide(off_sum, off_count, out=np.zeros(k), where=off_count > 0)
    off_ss = np.maximum(off_squares - off_mean * off_sum, 0.0)
    off_var = np.divide(off_ss, off_count - 2, out=np.zeros(k), where=off_count > 2)

    cross_count = np.outer(sizes, sizes)
    cross_mean = sums / cross_count
    cross_ss = np.maximum(squares - cross_mean * sums, 0.0)
    cross_var = np.divide(cross_ss, cross_count - 1, out=np.zeros((k, k)), where=cross_count > 1)
    return dict(sizes=sizes, codes=codes, diag_mean=diag_mean, diag_var=diag_var, off_mean=off_mean,
                off_var=off_var, cross_mean=cross_mean, cross_var=cross_var)


def estimate_alpha(W_current: np.ndarray, W_previous: np.ndarray, labels: np.ndarray) -> float:
    """Shrinkage estimate of AFFECT's forgetting factor (``estimate_alpha``).

    ``alpha = sum(v) / (sum(v) + sum((psi_prev - m)^2))`` where ``m`` and
    ``v`` are the block-model means and variances of ``W_current`` under
    ``labels`` (:func:`block_statistics`) and the sums run over every entry
    (both triangles and the diagonal).

    Parameters
    ----------
    W_current : ndarray of shape (n, n)
        Current proximities of the common objects.
    W_previous : ndarray of shape (n, n)
        Previous smoothed proximities of the same objects, same order.
    labels : ndarray of shape (n,)
        Current cluster of each object.

    Returns
    -------
    float
        In [0, 1]; 0 when the denominator is 0 (the toolbox asserts there).
    """
    stats = block_statistics(W_current, labels)
    sizes, codes = stats["sizes"], stats["codes"]
    k = len(sizes)
    off_count = sizes * (sizes - 1)
    cross_count = np.outer(sizes, sizes)
    off_block = ~np.eye(k, dtype=bool)
    total_variance = float(
        (sizes * stats["diag_var"]).sum() + (off_count * stats["off_var"]).sum()
        + (cross_count * stats["cross_var"])[off_block].sum()
    )

    # sum over blocks of (psi - m)^2 = sum psi^2 - 2 m sum psi + count m^2
    Z = _one_hot(codes + 1, k)
    sums = Z.T @ _chunked_product(W_previous, Z)
    squares = Z.T @ _chunked_product(W_previous, Z, lambda block, _: block * block)
    diagonal = np.diagonal(W_previous)
    diag_sum = np.bincount(codes, weights=diagonal, minlength=k)
    diag_squares = np.bincount(codes, weights=diagonal ** 2, minlength=k)
    diag_error = np.bincount(codes, weights=(diagonal - stats["diag_mean"][codes]) ** 2, minlength=k)
    off_sum = np.diagonal(sums) - diag_sum
    off_squares = np.diagonal(squares) - diag_squares
    m_off = stats["off_mean"]
    off_error = off_squares - 2 * m_off * off_sum + off_count * m_off ** 2
    m_cross = stats["cross_mean"]
    cross_error = (squares - 2 * m_cross * sums + cross_count * m_cross ** 2)[off_block]
    total_error = float(max(diag_error.sum() + off_error.sum() + cross_error.sum(), 0.0))

    denominator = total_variance + total_error
    return total_variance / denominator if denominator > 0 else 0.0


# --------------------------------------------------------------------------- kernel k-means
def _kernel_distances(W: np.ndarray, labels: np.ndarray, n_clusters: int) -> np.ndarray:
    """Squared feature-space distance of every object to every cluster mean.

    ``W_ii - 2/|c| sum_j W_ij + 1/|c|^2 sum_jl W_jl``; NaN for empty clusters
    (0/0, as in MATLAB).
    """
    Z = _one_hot(labels, n_clusters)
    sizes = Z.sum(axis=0)
    WZ = W @ Z
    within = (Z * WZ).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.diagonal(W)[:, None] - 2.0 * WZ / sizes + within / sizes ** 2


def _assign(distances: np.ndarray) -> np.ndarray:
    """MATLAB ``[~, c] = min(D, [], 2)``: NaN ignored, first minimum; ids from 1."""
    return np.argmin(np.where(np.isnan(distances), np.inf, distances), axis=1) + 1


def _reseed_empty(W: np.ndarray, labels: np.ndarray, n_clusters: int, rng: np.random.Generator) -> np.ndarray:
    """Give every empty id in 1..k one member drawn by kernel k-means++ (D^2 weights).

    Only objects whose cluster keeps another member, or objects in no
    cluster, can move, so re-seeding never empties another cluster.
    """
    labels = labels.copy()
    while True:
        member = (labels >= 1) & (labels <= n_clusters)
        sizes = np.bincount(labels[member] - 1, minlength=n_clusters)
        empty = np.flatnonzero(sizes == 0)
        if len(empty) == 0:
            return labels
        movable = ~member | (sizes[np.clip(labels, 1, n_clusters) - 1] > 1)
        candidates = np.flatnonzero(movable)
        if len(candidates) == 0:
            return labels
        distances = _kernel_distances(W, labels, n_clusters)
        nearest = np.min(np.where(np.isnan(distances), np.inf, distances), axis=1)
        weights = np.where(movable & np.isfinite(nearest), np.clip(nearest, 0.0, None), 0.0)
        total = weights.sum()
        if total > 0:
            chosen = int(np.searchsorted(np.cumsum(weights), rng.random() * total, side="right"))
            chosen = int(candidates[-1]) if chosen >= len(labels) or not movable[chosen] else chosen
        else:
            chosen = int(candidates[rng.integers(len(candidates))])
        labels[chosen] = empty[0] + 1


def kernel_kmeans(
    W: np.ndarray,
    n_clusters: int,
    init: np.ndarray | None,
    rng: np.random.Generator,
    max_iter: int = 100,
    reseed_empty: bool = False,
) -> np.ndarray:
    """k-means on a similarity (Gram) matrix (``kmeans_sim``).

    Parameters
    ----------
    W : ndarray of shape (n, n)
    n_clusters : int
        k (at most n are used).
    init : ndarray of shape (n,) or None
        Initial ids; ids outside 1..k (0 for new objects, or relabelled ids
        above k) belong to no cluster. ``None`` draws ids uniformly from 1..k.
    rng : numpy.random.Generator
    max_iter : int, default=100
    reseed_empty : bool, default=False
        Give empty clusters a member before each assignment (not the
        toolbox: there an empty cluster stays empty).

    Returns
    -------
    int64 ndarray of shape (n,)
        Ids in 1..k.
    """
    n = len(W)
    k = min(n, int(n_clusters))
    labels = rng.integers(1, k + 1, size=n) if init is None else np.asarray(init, dtype=np.int64).copy()
    previous = np.zeros(n, dtype=np.int64)
    iteration = 0
    while not np.array_equal(labels, previous) and iteration < max_iter:
        previous = labels
        iteration += 1
        if reseed_empty:
            labels = _reseed_empty(W, labels, k, rng)
        labels = _assign(_kernel_distances(W, labels, k))
    return labels.astype(np.int64)
