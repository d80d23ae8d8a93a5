"""k-meansCOT: evolutionary k-means (Chakrabarti, Kumar, Tomkins, KDD 2006).

Everything here is **[RECALL]** (``docs/algorithm.md``, *k-meansCOT*):
no public implementation or readable copy of the paper was found, so the
update rule below is the recalled one, made consistent by normalising its
weights ([REC]).
"""
from __future__ import annotations

import numpy as np

from ..data import Snapshot
from dataclasses import replace

from ..base import PROGRESS, SEED, n_clusters_param
from ..params import Param

KMEANS_INITS = ("k-means++",)
"""Named starts of the first step's Lloyd run (``init=``; an array of centroids is also taken)."""
KMEANS_INIT_WORDS = {"k-means++": "k-means++"}

from ._base import TemporalBaseline, same_sample_set
from ._kmeans import cluster_means, kmeans_plus_plus, lloyd, nearest_centroid


class KMeansCOT(TemporalBaseline):
    """k-meansCOT: k-means whose centroids are pulled towards the previous step's.

    **[RECALL]** — reconstructed from memory of Chakrabarti et al. (KDD 2006);
    no source was available to check it against (docs/algorithm.md, *k-meansCOT*).

    At the first step this is ordinary k-means (k-means++ seeding, one run).
    At every later step Lloyd's iteration starts from the previous step's
    centroids and replaces the mean update by

    ``c_j <- [g_j cp c'_f(j) + (1 - g_j)(1 - cp) m_j] / w_j``

    where ``m_j`` and ``n_j`` are the mean and size of cluster ``j`` now,
    ``f(j)`` is the previous centroid nearest to ``c_j`` (greedy, not
    one-to-one), ``n'`` its cluster's final size at the previous step,
    ``g_j = n' / (n_j + n')`` and ``w_j = g_j cp + (1 - g_j)(1 - cp)``.  The
    recalled rule has no ``w_j``; its weights do not sum to 1 and shrink
    centroids towards the origin unless the data lie on the unit sphere, so
    ``normalise_update=True`` ([REC]) divides by it.  With ``cp = 0`` the
    update is the plain mean (plain k-means from the previous centroids);
    with ``cp = 0.5`` it is the size-weighted pooled mean of the old
    centroid and the new points.  Iterations stop when the labels no longer
    change.  An empty cluster keeps its centroid.

    The method needs the number of clusters and the same samples at every
    step (the ERCOT paper marks other data n/a); ``fit`` refuses other
    data with a ``ValueError`` before doing any work.

    Attributes
    ----------
    result_ : ClusteringResult
        One step per time step; ``alpha`` is ``cp`` from the second step on
        (nan at the first).
    labels_ : list of ndarray
    n_clusters_ : ndarray
    alpha_ : ndarray
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centroids after the last processed step (including empty clusters).
    n_iter_ : list of int
        Lloyd iterations at each step.

    Examples
    --------
    >>> from ercot_nb import datasets
    >>> from ercot_nb.baselines import KMeansCOT
    >>> model = KMeansCOT(4, seed=0).fit(datasets.load("syn1", seed=0))
    >>> model.n_clusters_.tolist()[:3]
    [4, 4, 4]
    """

    _algorithm_name = "k-meansCOT"

    @classmethod
    def _unit_test_params(cls) -> dict:
        """Three clusters (k-meansCOT needs k)."""
        return {"n_clusters": 3}

    param_specs = (
        n_clusters_param(1, "Number of clusters k (required by fit).",
                         "None is accepted at construction so that the registry can build the "
                         "estimator, but fit refuses it."),
        Param("cp", "float", 0.5, "change parameter", "Weight of the history in [0, 1].", low=0.0, high=1.0,
              doc="The change parameter (its default is not recoverable from the paper; [REC])."),
        Param("normalise_update", "bool", True, "normalise update",
              "Divide the centroid update by the sum of its weights.",
              doc="[REC]; False gives the literal recalled rule."),
        Param("init", "choice", "k-means++", "initial centroids",
              "First step's start: k-means++ or an array of shape (n_clusters, n_features).",
              choices=KMEANS_INITS, array_ok=True, labels=KMEANS_INIT_WORDS),
        Param("max_iter", "int", 100, "max iterations", "Lloyd iterations per step at most.",
              low=1, high=10**6),
        replace(SEED, doc="It seeds the k-means++ draw."),
        PROGRESS,
    )

    @property
    def cluster_centers_(self) -> np.ndarray:
        self._check_fitted()
        return self._centroids.copy()

    # -- hooks ----------------------------------------------------------------------
    def _validate_params(self) -> None:
        k = self.n_clusters
        if k is None:
            raise ValueError(
                "k-meansCOT needs n_clusters (the number of clusters k); the ERCOT paper "
                "marks data with unknown k as n/a for it"
            )
        if not isinstance(self.init, str) and (np.ndim(self.init) != 2 or len(self.init) != k):
            self._fail(f"init centroids must have shape ({k}, n_features), got {np.shape(self.init)}")

    def _reset_state(self) -> None:
        self._centroids: np.ndarray | None = None
        self._sizes: np.ndarray | None = None
        self.n_iter_: list[int] = []

    def _check_snapshot(self, snapshot: Snapshot, previous: Snapshot | None, index: int) -> None:
        if snapshot.n_samples < self.n_clusters:
            self._fail(
                f"step {index} (time {snapshot.time!r}) has {snapshot.n_samples} samples, "
                f"fewer than n_clusters={self.n_clusters}"
            )
        if previous is not None:
            added, removed = same_sample_set(previous, snapshot)
            if added or removed:
                raise ValueError(
                    f"k-meansCOT needs a fixed sample set, but step {index} (time {snapshot.time!r}) "
                    f"adds {added} and removes {removed} sample(s) compared with the previous step; "
                    "the ERCOT paper marks such data n/a for k-meansCOT"
                )

    def _cluster_step(self, snapshot: Snapshot) -> tuple[np.ndarray, float]:
        X = snapshot.X
        if self._centroids is None:
            if isinstance(self.init, str):
                start = kmeans_plus_plus(X, self.n_clusters, self._rng)
            else:
                start = np.array(self.init, dtype=np.float64)
                if start.shape[1] != X.shape[1]:
                    self._fail(f"init centroids have {start.shape[1]} features, the data {X.shape[1]}")
            labels, centroids, _, n_iter = lloyd(X, start, self.max_iter)
            alpha = np.nan
        else:
            labels, centroids, n_iter = self._evolutionary_lloyd(X)
            alpha = float(self.cp)
        self._centroids = centroids
        self._sizes = np.bincount(labels, minlength=self.n_clusters)
        self.n_iter_.append(int(n_iter))
        return labels, alpha

    # -- the k-meansCOT iteration ---------------------------------------------------------
    def _evolutionary_lloyd(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        previous, previous_sizes = self._centroids, self._sizes
        centroids = previous.copy()
        labels, _ = nearest_centroid(X, centroids)
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):
            centroids = self._update(X, labels, centroids, previous, previous_sizes)
            new_labels, _ = nearest_centroid(X, centroids)
            stable = np.array_equal(new_labels, labels)
            labels = new_labels
            if stable:
                break
        return labels.astype(np.int64), centroids, n_iter

    def _update(self, X, labels, centroids, previous, previous_sizes) -> np.ndarray:
        """One k-meansCOT centroid update (see the class docstring)."""
        cp = float(self.cp)
        means, sizes = cluster_means(X, labels, len(centroids))
        matched, _ = nearest_centroid(centroids, previous)  # f(j), greedy
        sizes_before = previous_sizes[matched].astype(np.float64)
        total = sizes + sizes_before
        gamma = np.divide(sizes_before, total, out=np.zeros_like(total, dtype=np.float64), where=total > 0)
        weight_history = gamma * cp
        weight_current = (1.0 - gamma) * (1.0 - cp)
        updated = weight_history[:, None] * previous[matched] + weight_current[:, None] * means
        if self.normalise_update:
            weight = weight_history + weight_current
            positive = weight > 0
            updated = np.where(positive[:, None], updated / np.where(positive, weight, 1.0)[:, None], means)
        return np.where(sizes[:, None] > 0, updated, centroids)
