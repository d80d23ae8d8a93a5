"""AFFECT, k-means version (Xu, Kliger, Hero, DMKD 2014).

A port of the behaviour of Kevin Xu's AFFECT MATLAB toolbox
(``batch_affect_kmeans`` and the functions it calls), which the ERCOT paper
used; see ``docs/algorithm.md``, *AFFECT*.  The toolbox's label
conventions are kept internally: cluster ids start at 1, 0 marks an object
that was not present at the previous step, and ids handed out to clusters
that match nothing at the previous step keep growing over time.

With ``faithful=True`` (default) the toolbox's quirks are reproduced
(docs/algorithm.md, *AFFECT*):

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

import numpy as np

from ..data import Snapshot, common_ids
from ._affect_kmeans import (
    _ROW_CHUNK,
    AffectMemoryError,
    _first_max,
    affect_memory_bytes,
    estimate_alpha,
    kernel_kmeans,
)
from ._affect_selection import (
    permute_clusters_greedy,
    permute_clusters_hungarian,
    permute_clusters_opt,
    silhouette_distance,
    silhouette_toolbox,
)
from dataclasses import replace

from ..base import PROGRESS, SEED, max_clusters_param, n_clusters_param
from ..params import Param

AFFECT_INITIALIZE = ("previous", "ordinary")
"""Where AFFECT's kernel k-means starts (``initialize=``)."""
INITIALIZE_WORDS = {"previous": "previous partition", "ordinary": "afresh"}

from ._base import TemporalBaseline


class AFFECT(TemporalBaseline):
    """AFFECT evolutionary k-means with an adaptively estimated forgetting factor.

    At step t the Gram matrix ``W^t = A^t (A^t)^T`` of the raw feature rows
    is smoothed over the objects present at t-1 and t,
    ``Psi^t = alpha^t Psi^{t-1} + (1 - alpha^t) W^t`` (rows and columns of
    new objects are taken from ``W^t`` unsmoothed), and clustered by kernel
    k-means on ``Psi^t``.  ``alpha^t`` is re-estimated ``n_alpha_iterations``
    times by shrinkage (``estimate_alpha``), each time from the latest
    clustering, and every k-means run after the first step starts from the
    previous step's labels.  The number of clusters is ``n_clusters`` or the
    candidate 2..max_clusters with the best average silhouette on ``Psi^t``.
    Clusters are renamed to agree with the previous step.

    This follows Kevin Xu's MATLAB toolbox, which the ERCOT paper used
    (docs/algorithm.md, *AFFECT*); see the module docstring for what
    ``faithful`` changes.  The memory need is O(S^2): it is estimated for
    every step before anything is allocated (:func:`affect_memory_bytes`)
    and data above ``max_memory_bytes`` are refused with
    :class:`AffectMemoryError`.

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

    @classmethod
    def _unit_test_params(cls) -> dict:
        """Candidates k = 2..4."""
        return {"max_clusters": 4}

    param_specs = (
        n_clusters_param(1, "Known number of clusters (None: chosen by silhouette over 2..max_clusters)."),
        max_clusters_param(10, "Largest number of clusters tried.",
                           "The largest silhouette candidate (the toolbox default is 10; ERCOT's C_max is 8)."),
        Param("alpha", "float", "estimate", "forgetting factor",
              "Weight of the history in [0, 1], or 'estimate' to estimate it at each step.",
              low=0.0, high=1.0, also=("estimate",)),
        Param("n_alpha_iterations", "int", 3, "alpha iterations",
              "Alternations of clustering and alpha estimation.", low=1, high=1000,
              doc="Alpha estimates per step (the toolbox's num_iter)."),
        Param("initialize", "choice", "previous", "initialise from",
              "Start kernel k-means from the previous partition or afresh.", choices=AFFECT_INITIALIZE,
              labels=INITIALIZE_WORDS,
              doc="Labels of the first alpha estimate: the previous step's, or those of one k-means run "
                  "on the unsmoothed W^t."),
        Param("faithful", "bool", True, "faithful", "Follow the reference toolbox exactly.",
              doc="Reproduce the toolbox's quirks (module docstring)."),
        Param("max_iter", "int", 100, "max iterations", "Kernel k-means iterations at most.",
              low=1, high=10**6),
        Param("max_memory_bytes", "int", 2 * 1024**3, "memory limit",
              "Refuse steps whose S x S matrices need more memory than this.", low=1, unit="bytes"),
        replace(SEED, doc="It seeds the random initial labels (first step) and re-seeding."),
        PROGRESS,
    )

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
