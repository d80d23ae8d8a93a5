"""AFFECT's model selection and relabelling: silhouettes on a similarity or
distance matrix, and matching a step's clusters to the previous step's.

Ports of the corresponding functions of Kevin Xu's AFFECT MATLAB toolbox;
:class:`ercot_nb.baselines._affect.AFFECT` drives them.
"""
from __future__ import annotations

from itertools import permutations

import numpy as np

from ._affect_kmeans import _chunked_product, _one_hot

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
        # imported here: a fresh app process imports this module without needing
        # scipy.optimize (about 0.3 s) before its first page
        from scipy.optimize import linear_sum_assignment

        rows, columns = linear_sum_assignment(table, maximize=True)
        for r, c in zip(rows, columns):
            matched[int(r)] = int(c)
    return _apply(labels, names, previous_names, matched, unmatched)


# --------------------------------------------------------------------------- estimator
