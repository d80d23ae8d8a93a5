"""Plain NumPy k-means pieces shared by k-meansCOT and E2SC.

Lloyd's algorithm with k-means++ seeding (Arthur & Vassilvitskii 2007).
An empty cluster keeps its centroid (it is not relocated); iterations stop
when the labels no longer change.
"""
from __future__ import annotations

import numpy as np

_CHUNK_ELEMENTS = 4_000_000  # samples x clusters x features per distance block


def squared_distances(X: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Squared Euclidean distance of every sample to every centroid.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centroids : ndarray of shape (n_clusters, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_clusters)
        Computed from differences (no ``|x|^2 - 2 x.c + |c|^2`` cancellation).
    """
    n, k = len(X), len(centroids)
    out = np.empty((n, k))
    rows = max(1, _CHUNK_ELEMENTS // max(1, k * X.shape[1]))
    for start in range(0, n, rows):
        diff = X[start:start + rows, None, :] - centroids[None, :, :]
        np.einsum("ijk,ijk->ij", diff, diff, out=out[start:start + rows])
    return out


def nearest_centroid(X: np.ndarray, centroids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the nearest centroid (first on ties) and the squared distance to it."""
    d2 = squared_distances(X, centroids)
    labels = np.argmin(d2, axis=1)
    return labels, d2[np.arange(len(X)), labels]


def cluster_means(X: np.ndarray, labels: np.ndarray, n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """Sum-based means and sizes of each cluster (rows of empty clusters are 0)."""
    sums = np.zeros((n_clusters, X.shape[1]))
    np.add.at(sums, labels, X)
    sizes = np.bincount(labels, minlength=n_clusters)
    means = np.divide(sums, sizes[:, None], out=np.zeros_like(sums), where=sizes[:, None] > 0)
    return means, sizes


def kmeans_plus_plus(X: np.ndarray, n_clusters: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding: first centre uniform, the others by D^2 sampling.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_clusters : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_clusters, n_features)
    """
    n = len(X)
    chosen = [int(rng.integers(n))]
    closest = squared_distances(X, X[chosen])[:, 0]
    for _ in range(1, n_clusters):
        total = closest.sum()
        if total > 0:
            index = int(np.searchsorted(np.cumsum(closest), rng.random() * total, side="right"))
            index = min(index, n - 1)
        else:  # every sample sits on a chosen centre
            index = int(rng.integers(n))
        chosen.append(index)
        closest = np.minimum(closest, squared_distances(X, X[index:index + 1])[:, 0])
    return np.array(X[chosen], dtype=np.float64)


def lloyd(
    X: np.ndarray, centroids: np.ndarray, max_iter: int = 100
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Lloyd iterations from ``centroids`` until the labels are stable.

    Returns
    -------
    labels : int64 ndarray of shape (n_samples,)
    centroids : ndarray of shape (n_clusters, n_features)
        The means of the final clusters (an empty cluster keeps its centroid).
    inertia : float
        Sum of squared distances to the assigned centroids.
    n_iter : int
        Centroid updates made.
    """
    centroids = np.array(centroids, dtype=np.float64)
    labels, d2 = nearest_centroid(X, centroids)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        means, sizes = cluster_means(X, labels, len(centroids))
        centroids = np.where(sizes[:, None] > 0, means, centroids)
        new_labels, d2 = nearest_centroid(X, centroids)
        stable = np.array_equal(new_labels, labels)
        labels = new_labels
        if stable:
            break
    return labels.astype(np.int64), centroids, float(d2.sum()), n_iter


def kmeans(
    X: np.ndarray, n_clusters: int, rng: np.random.Generator, n_init: int = 10, max_iter: int = 100
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Best of ``n_init`` k-means++-seeded Lloyd runs (lowest inertia, first on ties)."""
    best = None
    for _ in range(n_init):
        run = lloyd(X, kmeans_plus_plus(X, n_clusters, rng), max_iter)
        if best is None or run[2] < best[2]:
            best = run
    return best
