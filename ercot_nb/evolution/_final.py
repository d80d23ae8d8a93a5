"""The final partition: how the member chosen at a step labels the samples (``final_partition=``).

``"nearest"`` is the paper's rule (every sample joins its nearest active
centroid); ``"mixture"`` and ``"cv_mixture"`` refine that partition by a
Gaussian mixture (:mod:`._mixture`), the second also choosing the number of
clusters among the front by held-out likelihood.
"""
from __future__ import annotations

import numpy as np

from ..result import compress_labels
from ._engine import Engine
from ._mixture import choose_by_held_out, equal_spread_bic, fit_mixture

__all__ = ["FINAL_PARTITIONS", "FINAL_PARTITION_WORDS", "member_partition"]

MIXTURE_ITERATIONS = 30
"""EM iterations of ``final_partition="mixture"`` at each step."""
MIXTURE_COVARIANCE = "full"
"""Covariance of the mixture's components (full matrices: colour channels are correlated)."""
MIXTURE_SAMPLES = 3000
"""The mixture's parameters are fitted on a regular subsample of at most this many samples."""
HELD_OUT_SETTINGS = dict(n_train=600, n_iter=3, final_iter=10, final_samples=2000)
"""``final_partition="cv_mixture"``: samples of each half of the split, EM iterations of each
candidate, then of the chosen partition on a regular subsample (see
:func:`ercot_nb.evolution._mixture.choose_by_held_out`)."""

FINAL_PARTITIONS = ("nearest", "mixture", "cv_mixture")
"""How the chosen member labels the samples (``final_partition=``)."""
FINAL_PARTITION_WORDS = {"nearest": "nearest centroid (paper)", "mixture": "Gaussian mixture from the knee",
                         "cv_mixture": "Gaussian mixture chosen on held-out pixels"}


def member_partition(engine: Engine, X: np.ndarray, chromosome: np.ndarray, final_partition: str = "nearest", *,
                     seed: int = 0, t: int = 0, front=None):
    """Labels, centroids and (mixture, used components) or None of one member's partition.

    ``final_partition="nearest"`` (the paper): every sample joins its
    nearest active centroid.  Otherwise that partition starts
    :data:`MIXTURE_ITERATIONS` EM iterations of a Gaussian mixture (one
    component per cluster, its own weight and covariance), whose
    components of largest posterior are the labels and whose means are the
    centroids; components left without samples are dropped.  The
    parameters are fitted on a regular subsample of at most
    :data:`MIXTURE_SAMPLES` samples, then every sample is labelled.  The
    mixture replaces the nearest-centroid partition only where its BIC is
    lower than that of the equal-spread model the partition stands for
    (:func:`ercot_nb.evolution._mixture.equal_spread_bic`), both before the EM (the
    clusters' own weights and covariances; otherwise no EM is run) and
    after it: clusters of one size and spread keep the paper's labels.

    ``final_partition="cv_mixture"``: the same check before any EM (on
    the regular subsample of at most :data:`MIXTURE_SAMPLES` samples); then,
    with ``front = (population, objectives, n_clusters, first_front,
    knee)``, the candidates are the knee and, for every other number of
    clusters on the first front, its member of least f_cp; the partition
    (and merges of its components) is chosen by the mixture's
    log-likelihood on held-out samples
    (:func:`ercot_nb.evolution._mixture.choose_by_held_out`, split seeded by
    ``seed`` and the step ``t``); where the samples are too few for any
    candidate's mixture, the paper's labels stay.  Without ``front`` (adopting a member
    other than the knee) the member's own clusters are refined, none merged.

    ``seed`` and ``t`` seed the held-out split of ``"cv_mixture"``.
    """
    slot_labels, _ = engine.assign(X, chromosome)
    labels, centroids = compress_labels(slot_labels, chromosome, engine.config.n_max)
    if final_partition == "nearest":
        return labels, centroids, None
    spread = float(X.var(axis=0).mean())
    settings = dict(reg=1e-6 * (spread if spread > 0 else 1.0), covariance=MIXTURE_COVARIANCE,
                    max_samples=MIXTURE_SAMPLES)
    if final_partition == "cv_mixture":
        # the same check on the regular subsample the EM is fitted on (all samples where a cluster
        # would be missing from it): no pass over every sample before the final labelling
        stride = max(1, -(-len(X) // MIXTURE_SAMPLES))
        X_check, check_labels = X[::stride], labels[::stride]
        if len(np.unique(check_labels)) < len(centroids):
            X_check, check_labels = X, labels
        own = fit_mixture(X_check, check_labels, n_iter=0, reg=settings["reg"], covariance=MIXTURE_COVARIANCE)
        if own.bic(len(X_check)) >= equal_spread_bic(X_check, check_labels):
            return labels, centroids, None
        return _held_out_partition(engine, X, labels, centroids, settings["reg"], seed, t, front)
    equal = equal_spread_bic(X, labels)
    # the clusters' own sizes and spreads, before any EM: where they do not beat one common spread,
    # the step keeps the paper's labels without paying for the EM (clusters of equal spread, Syn1-8)
    if fit_mixture(X, labels, n_iter=0, **settings).bic(len(X)) >= equal:
        return labels, centroids, None
    mixture = fit_mixture(X, labels, n_iter=MIXTURE_ITERATIONS, **settings)
    if mixture.bic(len(X)) >= equal:  # equal spreads explain the samples as well
        return labels, centroids, None
    used, labels = np.unique(mixture.labels, return_inverse=True)
    return labels.astype(np.int64), mixture.means[used].copy(), (mixture, used)


def _held_out_partition(engine: Engine, X: np.ndarray, labels: np.ndarray, centroids: np.ndarray,
                        reg: float, seed: int, t: int, front):
    """``final_partition="cv_mixture"``: see :func:`member_partition`."""
    partitions = [labels]
    if front is not None:
        pop, F, n_clusters, first_front, knee = front
        best: dict[int, int] = {}
        for i in np.flatnonzero(first_front):
            k = int(n_clusters[i])
            if i != knee and k != int(n_clusters[knee]) and (k not in best or F[i, 0] < F[best[k], 0]):
                best[k] = int(i)
        for i in best.values():
            slot_labels, _ = engine.assign(X, np.ascontiguousarray(pop[i]))
            member_labels, _ = compress_labels(slot_labels, pop[i], engine.config.n_max)
            partitions.append(member_labels)
    choice = choose_by_held_out(X, partitions, np.random.default_rng([int(seed), int(t)]), reg=reg,
                                merge=front is not None, **HELD_OUT_SETTINGS)
    if choice is None:  # too few samples for any candidate's mixture: the paper's labels
        return labels, centroids, None
    scored = np.isfinite(choice.held_out)
    if not scored[0] and scored.sum() < 2:
        # The knee's own partition has too many parameters for the samples and a single other one could
        # be scored: it would win uncontested (one cluster for three blobs of 90 points); nothing was judged.
        return labels, centroids, None
    mixture = choice.mixture
    used, labels = np.unique(mixture.labels, return_inverse=True)
    return labels.astype(np.int64), mixture.means[used].copy(), (mixture, used)
