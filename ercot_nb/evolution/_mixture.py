"""Gaussian mixture refinement of a hard partition (EM, plain NumPy).

ERCOT's objectives reward compact clusters (f_cp sums the distances to the
nearest centroid), so its partitions are Voronoi cells of equal "radius":
a large, spread segment is split and small ones are merged.  A Gaussian
mixture lets every cluster have its own size (weight) and spread
(covariance).  :func:`fit_mixture` starts from a partition (its clusters'
weights, means and covariances, as scikit-learn's ``GaussianMixture`` does
with ``weights_init``, ``means_init`` and ``precisions_init``) and runs a
fixed number of EM iterations; :meth:`Mixture.bic` scores the result, and
:func:`equal_spread_bic` scores the model a nearest-centroid partition
stands for (equal weights, one shared spherical variance), so that the two
can be compared.

Memory is linear in the samples: the responsibilities are one
(n_samples, n_components) array.  There is no random draw: the result is a
function of the samples and the starting labels.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COVARIANCES = ("full", "diag")


@dataclass(frozen=True)
class Mixture:
    """A fitted Gaussian mixture.

    Attributes
    ----------
    weights : ndarray of shape (k,)
    means : ndarray of shape (k, n_features)
    covariances : ndarray of shape (k, n_features, n_features) or (k, n_features)
        Full matrices, or the diagonals for ``covariance="diag"``.
    labels : ndarray of shape (n_samples,)
        Component of largest posterior of every sample of the fit.
    log_likelihood : float
        Total log-likelihood of the fitted samples.
    covariance : {"full", "diag"}
    """

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    labels: np.ndarray
    log_likelihood: float
    covariance: str = "full"

    @property
    def n_parameters(self) -> int:
        k, d = self.means.shape
        cov = d * (d + 1) // 2 if self.covariance == "full" else d
        return int(k - 1 + k * d + k * cov)

    def bic(self, n_samples: int) -> float:
        """Bayesian information criterion, ``-2 log L + p log n`` (lower is better)."""
        return float(-2.0 * self.log_likelihood + self.n_parameters * np.log(n_samples))

    def log_resp(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Log posterior of each component and the log density of each sample."""
        return _e_step(X, self.weights, self.means, self.covariances, self.covariance)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Component of largest posterior of every row of ``X``."""
        log_resp, _ = self.log_resp(np.asarray(X, dtype=np.float64))
        return np.argmax(log_resp, axis=1)


def _log_gaussian(X: np.ndarray, means: np.ndarray, covariances: np.ndarray, covariance: str) -> np.ndarray:
    """(n, k) log N(x | mean_j, cov_j), every component in one batched pass."""
    n, d = X.shape
    k = len(means)
    if covariance == "full":
        chol = np.linalg.cholesky(covariances)  # (k, d, d)
        whiten = np.linalg.inv(chol).transpose(0, 2, 1)  # (x - mean) @ whiten[j] has identity covariance
        z = (X @ whiten.transpose(1, 0, 2).reshape(d, k * d)).reshape(n, k, d)
        z -= np.einsum("kd,kde->ke", means, whiten)
        maha = np.einsum("nkd,nkd->nk", z, z)
        log_det = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
    else:
        precision = 1.0 / covariances  # (k, d)
        maha = (X * X) @ precision.T - 2.0 * X @ (means * precision).T + (means * means * precision).sum(axis=1)
        log_det = np.log(covariances).sum(axis=1)
    return -0.5 * (d * np.log(2.0 * np.pi) + log_det + maha)


def _e_step(X, weights, means, covariances, covariance):
    weighted = _log_gaussian(X, means, covariances, covariance) + np.log(weights)
    top = weighted.max(axis=1, keepdims=True)
    log_norm = top[:, 0] + np.log(np.exp(weighted - top).sum(axis=1))  # log-sum-exp
    return weighted - log_norm[:, None], log_norm


def _m_step(X, resp, reg, covariance):
    nk = resp.sum(axis=0) + 10.0 * np.finfo(float).eps
    means = (resp.T @ X) / nk[:, None]
    d = X.shape[1]
    if covariance == "full":
        # second moments about the samples' mean (not about each component's: one (n, d*d) product
        # for all components, memory linear in the samples), then shifted to each component's mean
        centre = X.mean(axis=0)
        Xc = X - centre
        offsets = means - centre
        outer = (Xc[:, :, None] * Xc[:, None, :]).reshape(len(X), d * d)
        covs = (resp.T @ outer).reshape(-1, d, d) / nk[:, None, None] - offsets[:, :, None] * offsets[:, None, :]
        # a component without samples (a cluster the subsample missed): no moments to take, only reg
        # (the difference above would leave minus its offset's outer product)
        covs[resp.sum(axis=0) <= 0.0] = 0.0
        covs[:, np.arange(d), np.arange(d)] += reg
    else:
        sq = resp.T @ (X * X) / nk[:, None]
        covs = sq - means**2 + reg
    return nk / len(X), means, covs


def fit_mixture(X: np.ndarray, labels: np.ndarray, n_iter: int = 10, reg: float = 1e-6,
                covariance: str = "full", max_samples: int | None = None) -> Mixture:
    """EM of a Gaussian mixture started from a hard partition.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : int ndarray of shape (n_samples,)
        Starting partition, labels ``0..k-1`` (each used at least once).
        The starting weights, means and covariances are those of its clusters.
    n_iter : int, default=10
        EM iterations (E step, M step), then a last E step for the labels.
    reg : float, default=1e-6
        Added to every variance (keeps a component of one sample or one
        colour invertible), as scikit-learn's ``reg_covar``.
    covariance : {"full", "diag"}, default="full"
    max_samples : int or None, default=None
        Fit the parameters on every ``ceil(n / max_samples)``-th sample only
        (a regular, not random, subsample: for pixels in row-major order an
        even grid), then label every sample with a last E step on all of
        ``X``.  None: fit on all samples.

    Returns
    -------
    Mixture
    """
    if covariance not in COVARIANCES:
        raise ValueError(f"covariance must be one of {COVARIANCES}, got {covariance!r}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    labels = np.asarray(labels)
    k = int(labels.max()) + 1
    if labels.min() < 0 or np.bincount(labels, minlength=k).min() == 0:
        raise ValueError("fit_mixture: labels must be 0..k-1, each used at least once")
    stride = 1 if max_samples is None or len(X) <= max_samples else -(-len(X) // int(max_samples))
    X_fit, start = (X, labels) if stride == 1 else (X[::stride], labels[::stride])
    resp = np.zeros((len(X_fit), k))
    resp[np.arange(len(X_fit)), start] = 1.0
    weights, means, covs = _m_step(X_fit, resp, reg, covariance)
    for _ in range(int(n_iter)):
        log_resp, _ = _e_step(X_fit, weights, means, covs, covariance)
        weights, means, covs = _m_step(X_fit, np.exp(log_resp), reg, covariance)
    log_resp, log_norm = _e_step(X, weights, means, covs, covariance)
    return Mixture(weights=weights, means=means, covariances=covs, labels=np.argmax(log_resp, axis=1),
                   log_likelihood=float(log_norm.sum()), covariance=covariance)


def equal_spread_bic(X: np.ndarray, labels: np.ndarray) -> float:
    """BIC of the equal-spread mixture a nearest-centroid partition stands for.

    The model of k-means: ``k`` components of equal weight and one shared
    spherical variance, the means and the variance those of the partition's
    clusters (not refined).  Compared with :meth:`Mixture.bic` of a mixture
    started from the same partition, it tells whether unequal sizes and
    spreads explain the samples better than the extra parameters cost.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : int ndarray of shape (n_samples,)
        Labels ``0..k-1``, each used at least once.

    Returns
    -------
    float
        ``-2 log L + (k * n_features + 1) log n`` (lower is better).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    labels = np.asarray(labels)
    n, d = X.shape
    k = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=k)
    if labels.min() < 0 or counts.min() == 0:
        raise ValueError("equal_spread_bic: labels must be 0..k-1, each used at least once")
    means = np.zeros((k, d))
    np.add.at(means, labels, X)
    means /= counts[:, None]
    variance = max(float(((X - means[labels]) ** 2).sum()) / (n * d), np.finfo(float).tiny)
    sq = (X * X).sum(axis=1)[:, None] - 2.0 * X @ means.T + (means * means).sum(axis=1)
    weighted = -0.5 * np.maximum(sq, 0.0) / variance - 0.5 * d * np.log(2.0 * np.pi * variance) - np.log(k)
    top = weighted.max(axis=1, keepdims=True)
    log_likelihood = float((top[:, 0] + np.log(np.exp(weighted - top).sum(axis=1))).sum())
    return -2.0 * log_likelihood + (k * d + 1) * np.log(n)


def _moment_merge(weights, means, covs, a, b):
    """The mixture with components ``a`` and ``b`` replaced by one of the same total weight, mean and covariance."""
    w = weights[a] + weights[b]
    mean = (weights[a] * means[a] + weights[b] * means[b]) / w
    da, db = means[a] - mean, means[b] - mean
    cov = (weights[a] * (covs[a] + np.outer(da, da)) + weights[b] * (covs[b] + np.outer(db, db))) / w
    keep = [j for j in range(len(weights)) if j not in (a, b)]
    return (np.append(weights[keep], w), np.vstack([means[keep], mean]),
            np.concatenate([covs[keep], cov[None]]))


@dataclass(frozen=True)
class HeldOutChoice:
    """What :func:`choose_by_held_out` chose, and why.

    Attributes
    ----------
    mixture : Mixture
        The final mixture (its ``labels`` label every sample).
    chosen : int
        Index of the starting partition chosen.
    held_out : ndarray of shape (n_partitions,)
        Held-out log-likelihood (sum over the held-out samples) of the
        mixture started from each partition (``-inf``: a cluster had no
        training sample, the partition was not scored).
    tolerance : float
        One standard error of the best held-out log-likelihood.
    merged : int
        Number of component pairs merged after the choice.
    """

    mixture: Mixture
    chosen: int
    held_out: np.ndarray
    tolerance: float
    merged: int


def _grouped_split(X: np.ndarray, n_train: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out samples, ``min(n_train, n_points // 2)`` each, one per distinct point.

    Copies of a point (equal rows) carry no new evidence about the segments:
    with copies on both sides, a component shrunk onto a repeated point
    scored its own copies, and held-out likelihood rewarded splitting (3
    blobs of points repeated 10 times gave 4-6 clusters).  So distinct
    points are drawn, each standing for its copies, and repeating every
    sample k times changes nothing.  Without repeats this is a plain draw of
    samples.
    """
    n = len(X)
    _, first = np.unique(X, axis=0, return_index=True)
    if len(first) == n:  # no repeated point
        half = max(1, min(n_train, n // 2))
        order = rng.permutation(n)
        return np.sort(order[:half]), np.sort(order[half:2 * half])
    half = max(1, min(n_train, len(first) // 2))
    order = first[rng.permutation(len(first))]
    return np.sort(order[:half]), np.sort(order[half:2 * half])


def choose_by_held_out(X: np.ndarray, partitions: list[np.ndarray], rng: np.random.Generator, *,
                       n_train: int = 800, n_iter: int = 5, final_iter: int = 15, final_samples: int = 2000,
                       reg: float = 1e-6, merge: bool = True,
                       samples_per_parameter: float = 5.0) -> HeldOutChoice | None:
    """Choose a partition (and merge its components) by a mixture's likelihood on held-out samples.

    1. A seeded draw splits ``2 * n_train`` samples (at most all of them)
       into a training and a held-out half; where points repeat (equal
       rows), distinct points are drawn instead, one sample each (a held-out
       copy of a training sample is no test, see :func:`_grouped_split`).
    2. Each partition starts a full-covariance mixture (its clusters'
       weights, means and covariances), fitted by ``n_iter`` EM iterations
       on the training half and scored by its log-likelihood on the held-out
       half.  More components always fit the training samples better; on
       held-out samples they stop paying once a segment is split.  A
       partition whose mixture has more parameters than the training half
       holds samples / ``samples_per_parameter`` is not scored (its fit
       would not be trusted).
    3. One-standard-error rule: the partition of fewest clusters whose
       held-out log-likelihood is within one standard error of the best
       (``sd`` of the best's per-sample log-densities times ``sqrt(n)``) is
       chosen; ties in the number of clusters go to the higher score.
    4. ``merge``: while replacing two components by one of their joint
       weight, mean and covariance (moment matching) raises the held-out
       log-likelihood, the best such pair is merged (a segment split in two
       by the starting partition joins again).
    5. The chosen (merged) partition starts ``final_iter`` EM iterations on
       a regular subsample of at most ``final_samples`` samples (see
       :func:`fit_mixture`), which label every sample.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    partitions : list of int ndarray of shape (n_samples,)
        Candidate starting partitions (labels ``0..k-1``, each used), e.g.
        one per number of clusters on a Pareto front.
    rng : numpy.random.Generator
        Draws the split (nothing else is random).
    n_train, n_iter, final_iter, final_samples, reg, merge, samples_per_parameter
        As above; ``reg`` as in :func:`fit_mixture`.

    Returns
    -------
    HeldOutChoice or None
        None where no partition could be scored (too few samples for any of
        them): there is nothing to choose by.

    Raises
    ------
    ValueError
        For no partition, or a partition of the wrong length.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = len(X)
    if not partitions:
        raise ValueError("choose_by_held_out: no partition to choose from")
    if any(len(p) != n for p in partitions):
        raise ValueError(f"choose_by_held_out: every partition must label the {n} samples")
    train, test = _grouped_split(X, int(n_train), rng)
    half = len(train)
    X_train, X_test = X[train], X[test]
    scores = np.full(len(partitions), -np.inf)
    log_dens: dict[int, np.ndarray] = {}
    fitted: dict[int, Mixture] = {}
    n_clusters = np.array([int(np.max(p)) + 1 for p in partitions])
    d = X.shape[1]
    for i, labels in enumerate(partitions):
        k = int(n_clusters[i])
        if (k - 1 + k * d + k * d * (d + 1) // 2) * samples_per_parameter > half:
            continue  # too many parameters for the training half
        used, start = np.unique(labels[train], return_inverse=True)
        if len(used) < k:  # a cluster without training samples: not comparable
            continue
        mixture = fit_mixture(X_train, start, n_iter=n_iter, reg=reg)
        _, log_dens[i] = mixture.log_resp(X_test)
        scores[i], fitted[i] = float(log_dens[i].sum()), mixture
    if not fitted:
        return None
    best = int(np.argmax(scores))
    tolerance = float(np.std(log_dens[best]) * np.sqrt(len(test)))
    near = [i for i in fitted if scores[i] >= scores[best] - tolerance]
    chosen = min(near, key=lambda i: (n_clusters[i], -scores[i]))
    labels = partitions[chosen]
    merged = 0
    if merge:
        m = fitted[chosen]
        weights, means, covs = m.weights, m.means, m.covariances
        current = scores[chosen]
        while len(weights) > 2:
            trials = [(_e_step(X_test, *params, "full")[1].sum(), params)
                      for a in range(len(weights)) for b in range(a + 1, len(weights))
                      for params in [_moment_merge(weights, means, covs, a, b)]]
            top, params = max(trials, key=lambda trial: trial[0])
            if not top > current:
                break
            current, (weights, means, covs) = top, params
            merged += 1
    # the final EM on a regular subsample (as fit_mixture's max_samples), started there from the chosen
    # (merged) partition: one E step over all samples labels them
    stride = 1 if n <= final_samples else -(-n // int(final_samples))
    X_fit = X[::stride]
    if merged:
        start = np.argmax(_e_step(X_fit, weights, means, covs, "full")[0], axis=1)
    else:
        start = labels[::stride]
    fit = fit_mixture(X_fit, np.unique(start, return_inverse=True)[1], n_iter=final_iter, reg=reg)
    log_resp, log_norm = fit.log_resp(X)
    mixture = Mixture(weights=fit.weights, means=fit.means, covariances=fit.covariances,
                      labels=np.argmax(log_resp, axis=1), log_likelihood=float(log_norm.sum()))
    return HeldOutChoice(mixture, chosen, scores, tolerance, merged)
