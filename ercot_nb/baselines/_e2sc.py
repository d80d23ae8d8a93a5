"""E2SC: efficient evolutionary spectral clustering (Langone, Van Barel, Suykens, PRL 2016).

Only the abstract and highlights of the paper could be checked (low-rank
incomplete Cholesky path, pivots added until the labels stop changing,
linear time and memory).  The kernel, bandwidth, smoothed affinity,
embedding and the choice of k are **reconstructed** ([REC],
``docs/algorithm.md``, *E2SC*), following Chi et al.'s
preserving-cluster-quality smoothing that E2SC extends.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import eigh

from ..data import Snapshot, common_ids
from dataclasses import replace

from ..base import PROGRESS, SEED, max_clusters_param, n_clusters_param
from ..params import Param

E2SC_METHODS = ("auto", "full", "low_rank")
"""How E2SC computes the spectral embedding (``method=``)."""
E2SC_WORDS = {"auto": "by data size", "full": "full eigendecomposition", "low_rank": "low rank"}

from ._base import TemporalBaseline, same_sample_set
from ._kmeans import kmeans, squared_distances


# --------------------------------------------------------------------------- kernel pieces
def median_bandwidth(X: np.ndarray, max_samples: int = 2000) -> float:
    """sigma^2 = median squared pairwise distance (median heuristic).

    Above ``max_samples`` samples a fixed, evenly spaced subsample is used,
    so the result is deterministic.  Returns 1.0 when all points coincide.
    """
    n = len(X)
    if n > max_samples:
        X = X[np.linspace(0, n - 1, max_samples).round().astype(np.int64)]
    d2 = squared_distances(X, X)
    upper = d2[np.triu_indices(len(X), k=1)]
    sigma2 = float(np.median(upper)) if len(upper) else 0.0
    return sigma2 if sigma2 > 0 else 1.0


def gaussian_kernel(X: np.ndarray, Y: np.ndarray, sigma2: float) -> np.ndarray:
    """``exp(-|x - y|^2 / (2 sigma^2))`` for every pair of rows."""
    return np.exp(-squared_distances(X, Y) / (2.0 * sigma2))


def normalised_affinity(X: np.ndarray, sigma2: float) -> np.ndarray:
    """``D^{-1/2} W D^{-1/2}`` of the full Gaussian kernel matrix (N x N)."""
    W = gaussian_kernel(X, X, sigma2)
    scale = 1.0 / np.sqrt(W.sum(axis=1))
    W *= scale[:, None]
    W *= scale[None, :]
    return W


class IncompleteCholesky:
    """Greedy pivoted incomplete Cholesky factor ``W ~ G G^T`` of a Gaussian kernel.

    The next pivot is the sample with the largest residual diagonal; only
    the N x m factor and one kernel column per pivot are ever formed.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    sigma2 : float
    max_rank : int
    """

    def __init__(self, X: np.ndarray, sigma2: float, max_rank: int) -> None:
        self.X = X
        self.sigma2 = sigma2
        self.max_rank = int(min(max_rank, len(X)))
        self.G = np.zeros((len(X), self.max_rank))
        self.residual = np.ones(len(X))  # diagonal of W - G G^T (the kernel diagonal is 1)
        self.pivots: list[int] = []

    @property
    def rank(self) -> int:
        return len(self.pivots)

    def max_residual(self) -> float:
        return float(self.residual.max())

    def extend(self, rank: int, tol: float = 0.0) -> None:
        """Add pivots until ``rank`` columns, ``max_rank``, or residual <= ``tol``."""
        rank = min(int(rank), self.max_rank)
        while self.rank < rank:
            pivot = int(np.argmax(self.residual))
            pivot_value = self.residual[pivot]
            if pivot_value <= tol:
                break
            j = self.rank
            column = gaussian_kernel(self.X, self.X[pivot:pivot + 1], self.sigma2)[:, 0]
            column -= self.G[:, :j] @ self.G[pivot, :j]
            column /= np.sqrt(pivot_value)
            self.G[:, j] = column
            self.residual -= column * column
            self.residual[pivot] = 0.0
            np.maximum(self.residual, 0.0, out=self.residual)
            self.pivots.append(pivot)

    def factor(self) -> np.ndarray:
        return self.G[:, : self.rank]


def normalised_factor(G: np.ndarray) -> np.ndarray:
    """``D^{-1/2} G`` with the degrees ``d = G (G^T 1)`` of the approximate kernel."""
    degrees = G @ G.sum(axis=0)
    floor = 1e-12 * max(float(degrees.max()), 1e-300)
    return G / np.sqrt(np.maximum(degrees, floor))[:, None]


def top_eigen_full(M: np.ndarray, n_vectors: int) -> tuple[np.ndarray, np.ndarray]:
    """Largest ``n_vectors`` eigenpairs of a symmetric matrix, descending."""
    n = len(M)
    r = min(n_vectors, n)
    values, vectors = eigh(M, subset_by_index=[n - r, n - 1])
    return values[::-1], vectors[:, ::-1]


def top_eigen_low_rank(H: np.ndarray, n_vectors: int) -> tuple[np.ndarray, np.ndarray]:
    """Largest eigenpairs of ``H H^T`` from the small matrix ``H^T H``.

    The eigenvectors of ``H H^T`` are the left singular vectors of ``H``:
    ``u = H v / sigma`` for each eigenpair ``(sigma^2, v)`` of ``H^T H``.
    """
    values, V = np.linalg.eigh(H.T @ H)
    order = np.argsort(values)[::-1][: min(n_vectors, H.shape[1])]
    values = np.maximum(values[order], 0.0)
    U = H @ V[:, order]
    norms = np.sqrt(values)
    U = np.divide(U, norms, out=np.zeros_like(U), where=norms > 0)
    return values, U


def eigengap_k(eigenvalues: np.ndarray, max_clusters: int) -> int:
    """k in 2..max_clusters maximising ``lambda_k - lambda_{k+1}`` (descending, 1-based)."""
    top = min(max_clusters, len(eigenvalues) - 1)
    if top < 2:
        return 2
    gaps = eigenvalues[1:top] - eigenvalues[2:top + 1]
    return int(np.argmax(gaps)) + 2


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two labelings are the same partition up to renaming."""
    if len(a) != len(b):
        return False
    pairs = np.unique(np.column_stack([a, b]), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


# --------------------------------------------------------------------------- estimator
class E2SC(TemporalBaseline):
    """E2SC: evolutionary spectral clustering with a smoothed normalised affinity.

    **Details reconstructed** ([REC], docs/algorithm.md, *E2SC*): only the
    paper's abstract and highlights were available.  At step t:

    1. Gaussian kernel ``W^t_ij = exp(-|a_i - a_j|^2 / (2 sigma^2))`` with
       ``sigma^2`` the median squared pairwise distance (median heuristic,
       on a fixed subsample for large N);
    2. smoothed normalised affinity
       ``M^t = (1 - nu) D_t^{-1/2} W^t D_t^{-1/2} + nu D_{t-1}^{-1/2} W^{t-1} D_{t-1}^{-1/2}``
       with ``nu = smoothing = 0.1`` (the ERCOT paper's setting); the
       smoothed Laplacian is ``I - M^t``;
    3. the top-k eigenvectors of ``M^t``, rows normalised (Ng-Jordan-Weiss),
       clustered by k-means with a fixed seed and ``n_init`` k-means++
       restarts (best inertia), so the method is deterministic;
    4. k: ``n_clusters`` or the eigengap ``argmax lambda_k - lambda_{k+1}``
       over k = 2..max_clusters.

    Two paths compute step 3.  ``"full"`` forms the N x N matrices and
    calls a symmetric eigensolver.  ``"low_rank"`` (E2SC's point) never
    forms an N x N matrix: a greedy pivoted incomplete Cholesky factor
    ``W ~ G G^T`` (N x m) gives the degrees ``G (G^T 1)`` and
    ``H = [sqrt(1 - nu) D_t^{-1/2} G_t, sqrt(nu) D_{t-1}^{-1/2} G_{t-1}]``,
    whose left singular vectors are the eigenvectors of ``M^t ~ H H^T``;
    pivots are added ``pivot_batch`` at a time until the partition no
    longer changes after a batch (the E2SC criterion), the factor is exact
    to ``icd_tol``, or ``max_rank`` is reached.  ``"auto"`` uses the
    low-rank path above ``low_rank_threshold`` samples; the path chosen at
    the first step is kept.

    The smoothing needs the same samples at every step: data whose samples
    change are refused (the ERCOT paper marks them n/a for E2SC).

    Attributes
    ----------
    result_ : ClusteringResult
        ``alpha`` is ``smoothing`` from the second step on (nan at the first).
    labels_ : list of ndarray
    n_clusters_ : ndarray
    alpha_ : ndarray
    eigenvalues_ : list of ndarray
        Leading eigenvalues of ``M^t`` at each step, descending.
    ranks_ : list of int
        Pivots m used at each step (N on the full path).
    bandwidths_ : list of float
        sigma^2 at each step.
    method_ : str
        The path used ("full" or "low_rank").

    Examples
    --------
    >>> from ercot_nb import datasets
    >>> from ercot_nb.baselines import E2SC
    >>> model = E2SC(4).fit(datasets.load("syn1", seed=0))
    >>> model.method_, float(model.alpha_[1])
    ('full', 0.1)
    """

    _algorithm_name = "E2SC"

    @classmethod
    def _unit_test_params(cls) -> dict:
        """Candidates k = 2..4."""
        return {"max_clusters": 4}

    param_specs = (
        n_clusters_param(2, "Known number of clusters (None: chosen by eigengap up to max_clusters)."),
        max_clusters_param(8, "Largest number of clusters the eigengap considers.", "ERCOT's C_max."),
        Param("smoothing", "float", 0.1, "smoothing", "Weight of the previous step's operator, in [0, 1).",
              low=0.0, high=1.0, high_open=True, doc="nu in the paper."),
        Param("method", "choice", "auto", "method", "Full eigendecomposition, low rank, or chosen by size.",
              choices=E2SC_METHODS, labels=E2SC_WORDS),
        Param("low_rank_threshold", "int", 1000, "low-rank threshold",
              "Samples above which method='auto' goes low rank.", low=1),
        Param("max_rank", "int", 200, "max rank", "Largest rank of the incomplete Cholesky factor.",
              low=1, high=10**6, doc="The largest number of pivots m."),
        Param("pivot_batch", "int", 8, "pivot batch", "Pivots added between stability checks.", low=1),
        Param("stop_when_stable", "bool", True, "stop when stable",
              "Stop adding pivots once the eigenvectors are stable.",
              doc="Stable: the partition is unchanged after a batch."),
        Param("icd_tol", "float", 1e-8, "Cholesky tolerance", "Residual at which the factorisation stops.",
              low=0.0, doc="Pivots stop when the largest residual diagonal is below this."),
        Param("bandwidth_sample", "int", 2000, "bandwidth sample",
              "Samples used to estimate the kernel bandwidth.", low=1,
              doc="The subsample size of the median heuristic."),
        Param("n_init", "int", 10, "k-means restarts", "k-means runs on the spectral embedding.",
              low=1, high=10**4, doc="k-means++ restarts."),
        Param("kmeans_seed", "int", 0, "k-means seed", "Seed of the k-means on the embedding.",
              low=0, doc="Fixed: E2SC is deterministic."),
        Param("max_iter", "int", 100, "max iterations", "k-means iterations at most.", low=1, high=10**6,
              doc="Lloyd iterations per k-means run."),
        replace(SEED, doc="Accepted for the common estimator interface and ignored: E2SC is "
                          "deterministic (the ERCOT paper reports standard deviations of 0)."),
        PROGRESS,
    )

    # -- hooks ----------------------------------------------------------------------
    def _reset_state(self) -> None:
        self._previous_operator: np.ndarray | None = None  # N x N (full) or N x m (low rank)
        self.method_: str | None = None
        self.eigenvalues_: list[np.ndarray] = []
        self.ranks_: list[int] = []
        self.bandwidths_: list[float] = []

    def _check_snapshot(self, snapshot: Snapshot, previous: Snapshot | None, index: int) -> None:
        k = self.n_clusters if self.n_clusters is not None else 2
        if snapshot.n_samples <= k:
            self._fail(f"step {index} (time {snapshot.time!r}) has {snapshot.n_samples} samples, "
                       f"too few for {k} clusters")
        if previous is not None:
            added, removed = same_sample_set(previous, snapshot)
            if added or removed:
                raise ValueError(
                    f"E2SC needs a fixed sample set, but step {index} (time {snapshot.time!r}) "
                    f"adds {added} and removes {removed} sample(s) compared with the previous step; "
                    "the ERCOT paper marks such data n/a for E2SC"
                )

    # -- one step ---------------------------------------------------------------------
    def _n_vectors(self, n: int) -> int:
        k = self.n_clusters if self.n_clusters is not None else self.max_clusters
        return min(int(k) + 1, n)

    def _partition(self, eigenvalues: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        k = self.n_clusters if self.n_clusters is not None else eigengap_k(eigenvalues, self.max_clusters)
        embedding = vectors[:, :k]
        norms = np.linalg.norm(embedding, axis=1)
        embedding = np.divide(embedding, norms[:, None], out=np.zeros_like(embedding), where=norms[:, None] > 0)
        rng = np.random.default_rng(self.kmeans_seed)
        labels, _, _, _ = kmeans(embedding, k, rng, n_init=int(self.n_init), max_iter=int(self.max_iter))
        return labels

    def _cluster_step(self, snapshot: Snapshot) -> tuple[np.ndarray, float]:
        X = snapshot.X
        n = len(X)
        if self.method_ is None:
            use_low_rank = self.method == "low_rank" or (self.method == "auto" and n > self.low_rank_threshold)
            self.method_ = "low_rank" if use_low_rank else "full"
        previous = self._previous_operator
        if previous is not None:
            order, _ = common_ids(self._previous, snapshot)  # positions at t-1, in the order of t
            previous = previous[np.ix_(order, order)] if self.method_ == "full" else previous[order]
        sigma2 = median_bandwidth(X, int(self.bandwidth_sample))
        nu = float(self.smoothing)
        if self.method_ == "full":
            labels, eigenvalues, operator = self._full_step(X, sigma2, previous, nu)
            rank = n
        else:
            labels, eigenvalues, operator = self._low_rank_step(X, sigma2, previous, nu)
            rank = operator.shape[1]
        self._previous_operator = operator
        self.eigenvalues_.append(eigenvalues)
        self.ranks_.append(int(rank))
        self.bandwidths_.append(sigma2)
        return labels, (nu if previous is not None else np.nan)

    def _full_step(self, X, sigma2, previous, nu):
        affinity = normalised_affinity(X, sigma2)
        smoothed = affinity if previous is None else (1.0 - nu) * affinity + nu * previous
        eigenvalues, vectors = top_eigen_full(smoothed, self._n_vectors(len(X)))
        return self._partition(eigenvalues, vectors), eigenvalues, affinity

    def _low_rank_step(self, X, sigma2, previous, nu):
        n = len(X)
        n_vectors = self._n_vectors(n)
        batch = int(self.pivot_batch)
        icd = IncompleteCholesky(X, sigma2, int(self.max_rank))
        target = batch * int(np.ceil(n_vectors / batch))
        last_labels = None
        while True:
            icd.extend(target, tol=float(self.icd_tol))
            A = normalised_factor(icd.factor())
            H = A if previous is None else np.hstack([np.sqrt(1.0 - nu) * A, np.sqrt(nu) * previous])
            eigenvalues, vectors = top_eigen_low_rank(H, n_vectors)
            labels = self._partition(eigenvalues, vectors)
            exhausted = icd.rank < target or icd.rank >= icd.max_rank or icd.max_residual() <= self.icd_tol
            stable = self.stop_when_stable and last_labels is not None and same_partition(labels, last_labels)
            if exhausted or stable:
                return labels, eigenvalues, A
            last_labels = labels
            target += batch
