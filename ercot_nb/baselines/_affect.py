"""AFFECT, k-means version (Xu, Kliger, Hero, DMKD 2014).

A port of the behaviour of Kevin Xu's AFFECT MATLAB toolbox
(``batch_affect_kmeans`` and the functions it calls), which the ERCOT paper
used; see ``shared/design/algorithms.md`` section 3.  The toolbox's label
conventions are kept internally: cluster ids start at 1, 0 marks an object
that was not present at the previous step, and ids handed out to clusters
that match nothing at the previous step keep growing over time.

With ``faithful=True`` (default) the toolbox's quirks are reproduced
(algorithms.md section 3.6):

1. after the first step every candidate k starts from the previous labels,
   and an empty cluster stays empty for good (clusters die, none is born);
2. only ids 1..k get centroids, so previous clusters whose (relabelled) id
   exceeds k are dissolved in the first iteration;
3. in silhouette mode the 2nd and later alpha estimates use the k = 2
   candidate's labels (MATLAB logical indexing picks the first column);
4. the silhouette uses the Gram matrix as a similarity, and, as in
   ``select_clu_silhouette``, the mean similarity of an object to another
   cluster includes the object itself; once an object alone in its cluster
   has been met, every later object gets silhouette 0.

``faithful=False`` re-seeds empty clusters (kernel k-means++), seeds the
candidates from the previous clusters renumbered 1..k_prev, uses the usual
distance silhouette, estimates alpha from the silhouette-chosen labels and
relabels by Hungarian matching.
"""
from __future__ import annotations

from itertools import permutations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..data import Snapshot, common_ids
from ._base import TemporalBaseline

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


# --------------------------------------------------------------------------- silhouettes
def silhouette_toolbox(S: np.ndarray, labels: np.ndarray) -> float:
    """Average silhouette width with ``S`` as a similarity (``select_clu_silhouette``).

    Reproduces the toolbox: ``k = max(labels)``; the mean similarity of
    object i to its own cluster excludes i, to any other cluster includes i
    (``xor`` with i's indicator); ``s_i = 1 - b/a`` if ``a > b`` else
    ``a/b - 1`` with ``b`` the largest mean similarity to another cluster;
    from the first object alone in its cluster on, every ``s_i`` is 0.  A
    labelling with a single cluster (where the toolbox would fail) scores
    ``-inf`` ([REC]).
    """
    labels = np.asarray(labels, dtype=np.int64)
    k = int(labels.max())
    if k < 2:
        return -np.inf
    Z = _one_hot(labels, k)
    sizes = Z.sum(axis=0)
    SZ = _chunked_product(S, Z)
    self_similarity = np.diagonal(S)
    rows = np.arange(len(labels))
    own = labels - 1
    own_size = sizes[own]
    with np.errstate(divide="ignore", invalid="ignore"):
        others = (SZ + self_similarity[:, None]) / (sizes + 1.0)
        others[rows, own] = -np.inf
        b = others.max(axis=1)
        a = np.where(own_size > 1, (SZ[rows, own] - self_similarity) / (own_size - 1), np.nan)
        widths = np.where(a > b, 1.0 - b / a, a / b - 1.0)
    singletons = np.flatnonzero(own_size <= 1)
    if len(singletons):
        widths[singletons[0]:] = 0.0
    return float(np.mean(widths))


def silhouette_distance(S: np.ndarray, labels: np.ndarray) -> float:
    """Usual average silhouette width on the feature-space distances of ``S``.

    ``d_ij = sqrt(max(S_ii + S_jj - 2 S_ij, 0))``; singletons score 0; a
    labelling with fewer than two non-empty clusters scores ``-inf``.
    """
    _, codes = np.unique(np.asarray(labels), return_inverse=True)
    codes = codes.ravel()
    k = int(codes.max()) + 1
    if k < 2:
        return -np.inf
    Z = _one_hot(codes + 1, k)
    sizes = Z.sum(axis=0)
    diagonal = np.diagonal(S)

    def distances(block, start):
        rows = diagonal[start:start + len(block)]
        return np.sqrt(np.maximum(rows[:, None] + diagonal[None, :] - 2.0 * block, 0.0))

    DZ = _chunked_product(S, Z, distances)
    rows = np.arange(len(codes))
    own_size = sizes[codes]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_other = DZ / sizes
        mean_other[rows, codes] = np.inf
        b = mean_other.min(axis=1)
        a = DZ[rows, codes] / (own_size - 1)
        widths = np.where(own_size > 1, (b - a) / np.maximum(a, b), 0.0)
    return float(np.mean(np.nan_to_num(widths)))


# --------------------------------------------------------------------------- relabelling
def _contingency(labels: np.ndarray, previous: np.ndarray):
    names = np.unique(labels)
    previous_names = np.unique(previous[previous != 0])
    table = np.zeros((len(names), len(previous_names)), dtype=np.int64)
    present = previous != 0
    np.add.at(table, (np.searchsorted(names, labels[present]),
                      np.searchsorted(previous_names, previous[present])), 1)
    return names, previous_names, table


def _apply(labels, names, previous_names, matched, unmatched):
    """``matched[i]`` = index into previous_names, or -1 for a fresh id."""
    out = np.zeros_like(labels)
    for i, name in enumerate(names):
        if matched[i] >= 0:
            out[labels == name] = previous_names[matched[i]]
        else:
            out[labels == name] = unmatched
            unmatched += 1
    return out


def permute_clusters_opt(labels: np.ndarray, previous: np.ndarray, unmatched: int) -> np.ndarray:
    """Best renaming by exhaustive search (``permute_clusters_opt``).

    ``previous`` holds each object's previous id (0 = new object).  The
    toolbox scans ``perms(1:max(k, k_old))`` and keeps the first maximum;
    that order is reverse lexicographic, so among the optimal maps the
    lexicographically largest (current cluster 1 first) wins; this searches
    the injective maps in that order.
    """
    names, previous_names, table = _contingency(labels, previous)
    k, k_old = table.shape
    size = max(k, k_old)
    best, best_map = -1, None
    for target in permutations(range(size - 1, -1, -1), k):
        agree = sum(table[i, j] for i, j in enumerate(target) if j < k_old)
        if agree > best:
            best, best_map = agree, target
    matched = [j if j < k_old else -1 for j in best_map]
    return _apply(labels, names, previous_names, matched, unmatched)


def permute_clusters_greedy(labels: np.ndarray, previous: np.ndarray, unmatched: int) -> np.ndarray:
    """Greedy renaming by the largest remaining agreement (``permute_clusters_greedy``)."""
    names, previous_names, table = _contingency(labels, previous)
    table = table.astype(np.float64)
    k, k_old = table.shape
    matched = [-1] * k
    for _ in range(min(k, k_old)):
        if table.sum() == 0:
            break
        rows = np.argmax(table, axis=0)  # first row of each column's maximum
        column = int(np.argmax(table[rows, np.arange(k_old)]))
        matched[int(rows[column])] = column
        table[rows[column], :] = 0
        table[:, column] = 0
    return _apply(labels, names, previous_names, matched, unmatched)


def permute_clusters_hungarian(labels: np.ndarray, previous: np.ndarray, unmatched: int) -> np.ndarray:
    """Renaming by a maximum-agreement assignment (Hungarian)."""
    names, previous_names, table = _contingency(labels, previous)
    matched = [-1] * len(names)
    if table.size:
        rows, columns = linear_sum_assignment(table, maximize=True)
        for r, c in zip(rows, columns):
            matched[int(r)] = int(c)
    return _apply(labels, names, previous_names, matched, unmatched)


# --------------------------------------------------------------------------- estimator
class AFFECT(TemporalBaseline):
    """AFFECT evolutionary k-means with an adaptively estimated forgetting factor.

    At step t the Gram matrix ``W^t = A^t (A^t)^T`` of the raw feature rows
    is smoothed over the objects present at t-1 and t,
    ``Psi^t = alpha^t Psi^{t-1} + (1 - alpha^t) W^t`` (rows and columns of
    new objects are taken from ``W^t`` unsmoothed), and clustered by kernel
    k-means on ``Psi^t``.  ``alpha^t`` is re-estimated ``n_alpha_iterations``
    times by shrinkage (:func:`estimate_alpha`), each time from the latest
    clustering, and every k-means run after the first step starts from the
    previous step's labels.  The number of clusters is ``n_clusters`` or the
    candidate 2..max_clusters with the best average silhouette on ``Psi^t``.
    Clusters are renamed to agree with the previous step.

    This follows Kevin Xu's MATLAB toolbox, which the ERCOT paper used
    (algorithms.md section 3); see the module docstring for what
    ``faithful`` changes.  The memory need is O(S^2): it is estimated for
    every step before anything is allocated (:func:`affect_memory_bytes`)
    and data above ``max_memory_bytes`` are refused with
    :class:`AffectMemoryError`.

    Parameters
    ----------
    n_clusters : int or None, default=None
        Known number of clusters; ``None`` chooses it by the silhouette.
    max_clusters : int, default=10
        Largest silhouette candidate (the toolbox default is 10; ERCOT's
        C_max is 8).
    alpha : "estimate" or float, default="estimate"
        A float in [0, 1] fixes the forgetting factor.
    n_alpha_iterations : int, default=3
        Alpha estimates per step (``num_iter``).
    initialize : {"previous", "ordinary"}, default="previous"
        Labels of the first alpha estimate: the previous step's, or those of
        one k-means run on the unsmoothed ``W^t``.
    faithful : bool, default=True
        Reproduce the toolbox's quirks (module docstring).
    max_iter : int, default=100
        Kernel k-means iterations per run at most.
    max_memory_bytes : int, default=2 * 1024**3
        Refuse steps whose estimated S x S storage exceeds this.
    seed : int, numpy.random.Generator or None, default=None
        Seed of the random initial labels (first step) and re-seeding.
    progress : bool, default=False

    Attributes
    ----------
    result_ : ClusteringResult
        ``alpha`` per step is the last alpha estimate (nan at the first step).
    labels_ : list of ndarray
    n_clusters_ : ndarray
    alpha_ : ndarray
    alpha_iterations_ : list of ndarray
        Every alpha estimate of every step (empty at the first step).
    silhouettes_ : list of ndarray
        Average silhouette of each candidate k at each step (empty with a
        known ``n_clusters``).

    Examples
    --------
    >>> from ercot_nb import datasets
    >>> from ercot_nb.baselines import AFFECT
    >>> model = AFFECT(4, seed=0).fit(datasets.load("syn1", seed=0))
    >>> bool(0.0 <= model.alpha_[1] <= 1.0)
    True
    """

    _algorithm_name = "AFFECT"

    def __init__(
        self,
        n_clusters: int | None = None,
        *,
        max_clusters: int = 10,
        alpha: str | float = "estimate",
        n_alpha_iterations: int = 3,
        initialize: str = "previous",
        faithful: bool = True,
        max_iter: int = 100,
        max_memory_bytes: int = 2 * 1024**3,
        seed: int | np.random.Generator | None = None,
        progress: bool = False,
    ) -> None:
        self.n_clusters = n_clusters
        self.max_clusters = max_clusters
        self.alpha = alpha
        self.n_alpha_iterations = n_alpha_iterations
        self.initialize = initialize
        self.faithful = faithful
        self.max_iter = max_iter
        self.max_memory_bytes = max_memory_bytes
        self.seed = seed
        self.progress = progress

    # -- hooks ----------------------------------------------------------------------
    def _reset_state(self) -> None:
        self._smoothed_previous: np.ndarray | None = None
        self._labels_previous: np.ndarray | None = None  # toolbox ids of the previous step
        self._unmatched = 0
        self.alpha_iterations_: list[np.ndarray] = []
        self.silhouettes_: list[np.ndarray] = []

    def _check_snapshot(self, snapshot: Snapshot, previous: Snapshot | None, index: int) -> None:
        n_previous = previous.n_samples if previous is not None else 0
        needed = affect_memory_bytes(snapshot.n_samples, n_previous)
        if needed > self.max_memory_bytes:
            raise AffectMemoryError(
                f"AFFECT: step {index} (time {snapshot.time!r}) has {snapshot.n_samples} samples; "
                f"its S x S matrices need about {needed / 1e9:.2f} GB ({needed} bytes), above "
                f"max_memory_bytes={int(self.max_memory_bytes)} ({self.max_memory_bytes / 1e9:.2f} GB). "
                "Raise max_memory_bytes if the machine has the memory, or use a method that scales "
                "linearly (ERCOT, E2SC's low-rank path)."
            )

    # -- one step ---------------------------------------------------------------------
    def _candidates(self) -> list[int]:
        if self.n_clusters is not None:
            return [int(self.n_clusters)]
        return list(range(2, int(self.max_clusters) + 1))

    def _cluster_candidates(self, W: np.ndarray, init: np.ndarray | None) -> np.ndarray:
        """One kernel k-means run per candidate k; columns are labelings."""
        reseed = not self.faithful
        columns = [
            kernel_kmeans(W, k, None if init is None else self._candidate_init(init, k), self._rng,
                          self.max_iter, reseed_empty=reseed)
            for k in self._candidates()
        ]
        return np.column_stack(columns)

    def _candidate_init(self, init: np.ndarray, k: int) -> np.ndarray:
        if self.faithful:
            return init
        # renumber the previous clusters 1..k_prev so that ids above k do not
        # silently dissolve clusters (quirk 2 removed); 0 stays "new"
        names = np.unique(init[init > 0])
        renumbered = np.zeros_like(init)
        renumbered[init > 0] = np.searchsorted(names, init[init > 0]) + 1
        return renumbered

    def _silhouette(self, S: np.ndarray, labels: np.ndarray) -> float:
        return silhouette_toolbox(S, labels) if self.faithful else silhouette_distance(S, labels)

    def _select(self, S: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if candidates.shape[1] == 1:
            return candidates[:, 0], np.empty(0)
        widths = np.array([self._silhouette(S, candidates[:, j]) for j in range(candidates.shape[1])])
        return candidates[:, _first_max(widths)], widths

    def _labels_for_alpha(self, S: np.ndarray, current: np.ndarray) -> np.ndarray:
        if current.ndim == 1:
            return current
        if self.faithful:
            return current[:, 0]  # quirk 3: MATLAB's logical index reads the first column
        return self._select(S, current)[0]

    def _cluster_step(self, snapshot: Snapshot) -> tuple[np.ndarray, float]:
        X = snapshot.X
        n = len(X)
        W = X @ X.T
        previous = self._previous
        alphas: list[float] = []
        curr = prev = None
        if previous is not None:
            prev, curr = common_ids(previous, snapshot)
        if previous is None or len(curr) == 0:
            # first step (or nothing in common): static clustering of W
            smoothed = W
            candidates = self._cluster_candidates(smoothed, None)
            previous_ids = None
        else:
            everything = len(curr) == n and np.array_equal(curr, np.arange(n))
            same_order = everything and len(prev) == len(self._smoothed_previous) and np.array_equal(
                prev, np.arange(len(prev)))
            if same_order:
                W_previous, W_common = self._smoothed_previous, W
            else:
                W_previous = self._smoothed_previous[np.ix_(prev, prev)]
                W_common = W[np.ix_(curr, curr)]
            previous_ids = np.zeros(n, dtype=np.int64)
            previous_ids[curr] = self._labels_previous[prev]
            smoothed = W.copy()

            def smooth(weight: float) -> None:
                if same_order:
                    for start in range(0, n, _ROW_CHUNK):
                        rows = slice(start, start + _ROW_CHUNK)
                        np.multiply(W_previous[rows], weight, out=smoothed[rows])
                        smoothed[rows] += (1.0 - weight) * W_common[rows]
                else:  # by row chunks, so that no S x S temporary is made
                    for start in range(0, len(curr), _ROW_CHUNK):
                        rows = slice(start, start + _ROW_CHUNK)
                        smoothed[np.ix_(curr[rows], curr)] = (
                            weight * W_previous[rows] + (1.0 - weight) * W_common[rows])

            if not isinstance(self.alpha, str):
                alphas.append(float(self.alpha))
                smooth(alphas[-1])
                candidates = self._cluster_candidates(smoothed, previous_ids)
            else:
                if self.initialize == "previous":
                    current = previous_ids
                else:
                    current = self._cluster_candidates(W, previous_ids)
                for _ in range(int(self.n_alpha_iterations)):
                    labels_for_alpha = self._labels_for_alpha(smoothed, current)[curr]
                    alphas.append(estimate_alpha(W_common, W_previous, labels_for_alpha))
                    smooth(alphas[-1])
                    current = self._cluster_candidates(smoothed, previous_ids)
                candidates = current
            del W_previous, W_common

        labels, widths = self._select(smoothed, candidates)
        if previous_ids is not None:
            labels = self._relabel(labels, previous_ids)
            self._unmatched = max(self._unmatched, int(labels.max()) + 1)
        else:
            self._unmatched = max(self._unmatched, int(labels.max()) + 1)
        self._smoothed_previous = smoothed
        self._labels_previous = labels
        self.alpha_iterations_.append(np.array(alphas))
        self.silhouettes_.append(widths)
        return labels, (alphas[-1] if alphas else np.nan)

    def _relabel(self, labels: np.ndarray, previous_ids: np.ndarray) -> np.ndarray:
        if not self.faithful:
            return permute_clusters_hungarian(labels, previous_ids, self._unmatched)
        if len(np.unique(labels)) > 4:
            return permute_clusters_greedy(labels, previous_ids, self._unmatched)
        return permute_clusters_opt(labels, previous_ids, self._unmatched)
