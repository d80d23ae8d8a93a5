"""The Gaussian-mixture refinement (ercot_nb.evolution._mixture) against scikit-learn's GaussianMixture."""
import numpy as np
import pytest

from ercot_nb.evolution._mixture import choose_by_held_out, fit_mixture

sklearn_mixture = pytest.importorskip("sklearn.mixture")


def _blobs(seed=0):
    rng = np.random.default_rng(seed)
    # unequal sizes and spreads: the case the mixture is for
    parts = [rng.normal([0, 0, 0], 1.0, (600, 3)), rng.normal([3, 0, 1], 0.2, (60, 3)),
             rng.normal([0, 3, -1], [0.3, 0.1, 0.5], (120, 3))]
    return np.vstack(parts)


def _start_labels(X, seed=0):
    rng = np.random.default_rng(seed)
    centres = X[rng.choice(len(X), 3, replace=False)]
    return np.argmin(((X[:, None] - centres[None]) ** 2).sum(-1), axis=1)


def _sklearn_from_labels(X, labels, n_iter, reg, covariance):
    k = labels.max() + 1
    nk = np.bincount(labels, minlength=k).astype(float)
    means = np.array([X[labels == j].mean(0) for j in range(k)])
    if covariance == "full":
        covs = np.array([np.cov(X[labels == j].T, bias=True) + reg * np.eye(X.shape[1]) for j in range(k)])
        precisions = np.linalg.inv(covs)
    else:
        precisions = 1.0 / np.array([X[labels == j].var(0) + reg for j in range(k)])
    gm = sklearn_mixture.GaussianMixture(
        k, covariance_type=covariance, weights_init=nk / len(X), means_init=means, precisions_init=precisions,
        max_iter=n_iter, tol=0.0, reg_covar=reg)
    with pytest.warns(Warning):  # it does not converge in so few iterations (tol=0): ConvergenceWarning
        gm.fit(X)
    return gm


@pytest.mark.parametrize("covariance", ["full", "diag"])
@pytest.mark.parametrize("n_iter", [1, 5])
def test_matches_sklearn_with_the_same_start(covariance, n_iter):
    X = _blobs()
    labels = _start_labels(X)
    ours = fit_mixture(X, labels, n_iter=n_iter, reg=1e-6, covariance=covariance)
    gm = _sklearn_from_labels(X, labels, n_iter, 1e-6, covariance)
    np.testing.assert_allclose(ours.weights, gm.weights_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.means, gm.means_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.covariances, gm.covariances_, rtol=1e-7, atol=1e-10)
    np.testing.assert_array_equal(ours.labels, gm.predict(X))
    assert ours.bic(len(X)) == pytest.approx(gm.bic(X), rel=1e-9)
    np.testing.assert_array_equal(ours.predict(X), ours.labels)


def test_finds_segments_of_unequal_size_and_spread():
    # nearest-centroid labels from the true means split the wide cluster; EM gives it back its pixels
    X = _blobs()
    truth = np.repeat([0, 1, 2], [600, 60, 120])
    means = np.array([X[truth == j].mean(0) for j in range(3)])
    nearest = np.argmin(((X[:, None] - means[None]) ** 2).sum(-1), axis=1)
    mixture = fit_mixture(X, nearest, n_iter=10)
    assert (mixture.labels == truth).mean() > (nearest == truth).mean() + 0.02
    assert (mixture.labels == truth).mean() > 0.98


def test_deterministic_and_refuses_bad_labels():
    X = _blobs()
    labels = _start_labels(X)
    a, b = fit_mixture(X, labels), fit_mixture(X, labels)
    np.testing.assert_array_equal(a.means, b.means)
    with pytest.raises(ValueError, match="each used at least once"):
        fit_mixture(X, np.where(labels == 1, 2, labels))
    with pytest.raises(ValueError, match="covariance"):
        fit_mixture(X, labels, covariance="spherical")


def test_max_samples_fits_on_a_regular_subsample_and_labels_all():
    X = _blobs()
    labels = _start_labels(X)
    sub = fit_mixture(X, labels, n_iter=4, max_samples=200)
    on_grid = fit_mixture(X[::4], labels[::4], n_iter=4)  # ceil(780 / 200) = 4
    np.testing.assert_allclose(sub.means, on_grid.means)
    assert len(sub.labels) == len(X)
    np.testing.assert_array_equal(sub.labels, on_grid.predict(X))
    np.testing.assert_array_equal(fit_mixture(X, labels, max_samples=len(X)).labels, fit_mixture(X, labels).labels)


def test_equal_spread_bic_is_the_bic_of_a_spherical_tied_mixture():
    from ercot_nb.evolution._mixture import equal_spread_bic

    X = _blobs()
    labels = _start_labels(X)
    k, (n, d) = 3, X.shape
    means = np.array([X[labels == j].mean(0) for j in range(k)])
    variance = ((X - means[labels]) ** 2).sum() / (n * d)
    from scipy.stats import multivariate_normal

    density = sum(multivariate_normal(means[j], variance * np.eye(d)).pdf(X) / k for j in range(k))
    expected = -2 * np.log(density).sum() + (k * d + 1) * np.log(n)
    assert equal_spread_bic(X, labels) == pytest.approx(expected, rel=1e-10)
    # unequal spreads: the full mixture explains them better than its extra parameters cost
    assert fit_mixture(X, labels, n_iter=10).bic(n) < equal_spread_bic(X, labels)
    # equal spherical clusters: the equal-spread model wins
    rng = np.random.default_rng(1)
    same = np.vstack([rng.normal(c, 1.0, (60, 2)) for c in ([0, 0], [6, 0], [0, 6])])
    truth = np.repeat([0, 1, 2], 60)
    assert equal_spread_bic(same, truth) < fit_mixture(same, truth, n_iter=10).bic(len(same))


def _three_segments(seed=0):
    """A large spread segment beside two small tight ones, and partitions of 2, 3 and 5 clusters of them."""
    rng = np.random.default_rng(seed)
    sizes, spreads = (1200, 200, 200), (1.0, 0.2, 0.2)
    means = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    truth = np.repeat(np.arange(3), sizes)
    X = means[truth] + rng.normal(size=(len(truth), 2)) * np.array(spreads)[truth, None]
    merged = np.minimum(truth, 1)  # the two small segments as one cluster
    split = truth.copy()  # the large segment cut into three by angle (what nearest centroids do)
    large = truth == 0
    angle = np.arctan2(X[large, 1], X[large, 0])
    split[large] = np.where(angle < -1.0, 0, np.where(angle < 1.0, 3, 4))
    return X, truth, merged, split


def _agreement(a, b):
    from sklearn.metrics import adjusted_rand_score
    return adjusted_rand_score(a, b)


def test_held_out_choice_takes_the_true_number_of_segments():
    X, truth, merged, split = _three_segments()
    choice = choose_by_held_out(X, [merged, split, truth], np.random.default_rng(0), merge=False)
    assert choice.chosen == 2
    # more clusters fit better in the training half, but not on held-out samples by more than one standard error
    assert np.isfinite(choice.held_out).all() and choice.tolerance > 0
    assert choice.held_out[0] < choice.held_out[2] - choice.tolerance
    assert len(np.unique(choice.mixture.labels)) == 3 and _agreement(choice.mixture.labels, truth) > 0.9


def test_held_out_merge_joins_a_split_segment():
    X, truth, _, split = _three_segments(1)
    alone = choose_by_held_out(X, [split], np.random.default_rng(0), merge=False)
    assert alone.merged == 0 and len(np.unique(alone.mixture.labels)) == 5
    joined = choose_by_held_out(X, [split], np.random.default_rng(0))
    assert joined.merged == 2 and len(np.unique(joined.mixture.labels)) == 3
    assert _agreement(joined.mixture.labels, truth) > 0.9 > _agreement(alone.mixture.labels, truth)


def test_held_out_choice_is_seeded_and_refuses_bad_partitions():
    X, truth, merged, split = _three_segments(2)
    a = choose_by_held_out(X, [merged, split, truth], np.random.default_rng(4))
    b = choose_by_held_out(X, [merged, split, truth], np.random.default_rng(4))
    np.testing.assert_array_equal(a.mixture.labels, b.mixture.labels)
    np.testing.assert_array_equal(a.held_out, b.held_out)
    with pytest.raises(ValueError, match="no partition"):
        choose_by_held_out(X, [], np.random.default_rng(0))
    with pytest.raises(ValueError, match="every partition"):
        choose_by_held_out(X, [truth[:-1]], np.random.default_rng(0))


def test_held_out_choice_scores_no_partition_with_too_many_parameters_for_the_samples():
    X, truth, merged, split = _three_segments(3)
    # 2 features: a full-covariance component has 6 parameters (weight, 2 means, 3 covariances) less one weight
    few = np.random.default_rng(0).choice(len(X), 100, replace=False)  # training half of 50 samples
    part = [np.unique(p[few], return_inverse=True)[1] for p in (merged, truth, split)]
    choice = choose_by_held_out(X[few], part, np.random.default_rng(0), samples_per_parameter=2.5)
    assert np.isfinite(choice.held_out[:2]).all() and choice.held_out[2] == -np.inf  # 5 clusters: 29 parameters
    assert choose_by_held_out(X[few], part, np.random.default_rng(0)) is None  # 5 per parameter: none fits


def test_a_cluster_missing_from_the_subsample_stays_a_harmless_empty_component():
    # the regular subsample (every 4th sample) misses cluster 2 (samples 1, 2, 3 of the data): its component is
    # empty in the fit; its covariance must stay positive definite (the reg), not what cancellation leaves
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(400, 3)) * 0.05 + 0.8, rng.normal(size=(400, 3)) * 0.05 + 0.2])
    labels = np.repeat([0, 1], 400)
    labels[[1, 2, 3]] = 2
    mixture = fit_mixture(X, labels, n_iter=3, reg=1e-8, max_samples=200)
    assert np.all(np.linalg.eigvalsh(mixture.covariances) > 0)
    assert mixture.weights[2] < 1e-12 and set(np.unique(mixture.labels)) <= {0, 1, 2}


def test_held_out_split_never_puts_copies_of_a_point_on_both_sides():
    from ercot_nb.evolution._mixture import _grouped_split

    rng = np.random.default_rng(0)
    points = rng.normal(size=(120, 2))
    counts = rng.integers(1, 12, size=120)  # uneven repeats
    X = np.repeat(points, counts, axis=0)[rng.permutation(counts.sum())]
    for seed in range(5):
        train, test = _grouped_split(X, 800, np.random.default_rng(seed))
        rows_train = {tuple(r) for r in X[train]}
        rows_test = {tuple(r) for r in X[test]}
        assert not rows_train & rows_test
        assert len(rows_train) == len(train) == 60 == len(test)  # one sample per distinct point, half each
    # repeating every sample k times changes nothing the choice sees
    X1 = points
    X10 = np.repeat(points, 10, axis=0)
    a, _ = _grouped_split(X1, 800, np.random.default_rng(3))
    b, _ = _grouped_split(X10, 800, np.random.default_rng(3))
    assert len(a) == len(b) == 60
