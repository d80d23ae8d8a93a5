"""Tests for ercot_nb.evolution._smoothness (smoothness-weight auto-tuning)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import multivariate_normal, norm

from ercot_nb.evolution._smoothness import (
    _fold_split,
    _packed_cholesky,
    _gaussian_cv_loglik_twin,
    _stacking_alpha_exact,
    gaussian_cv_loglik,
    gaussian_loglik,
    match_clusters,
    pair_ridge,
    smoothness_weight,
    stacking_em,
)


def _em_rate(loglik_curr: np.ndarray, loglik_prev: np.ndarray, alpha: float) -> float:
    """|M'(alpha)| of the EM map M at its fixed point (linear convergence rate)."""
    keep = ~(np.isneginf(loglik_curr) & np.isneginf(loglik_prev))
    l1, l2 = loglik_curr[keep], loglik_prev[keep]
    top = np.maximum(l1, l2)
    phi1, phi2 = np.exp(l1 - top), np.exp(l2 - top)
    with np.errstate(divide="ignore", invalid="ignore"):
        if alpha == 0.0:
            return float(np.mean(phi2 / phi1))
        if alpha == 1.0:
            return float(np.mean(phi1 / phi2))
        mix = (1 - alpha) * phi1 + alpha * phi2
        return float(abs(1.0 - alpha * np.mean(phi2 * (phi2 - phi1) / mix**2)))


def _log_mixture(alpha: float, l1: np.ndarray, l2: np.ndarray) -> float:
    with np.errstate(divide="ignore"):
        return float(np.sum(np.logaddexp(np.log1p(-alpha) + l1, np.log(alpha) + l2)))


# --------------------------------------------------------------------------- #
# Stacking EM
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("true_weight", [0.1, 0.3, 0.5, 0.8])
def test_em_recovers_known_mixture_weight(true_weight: float) -> None:
    rng = np.random.default_rng(7)
    n = 4000
    from_second = rng.random(n) < true_weight
    x = np.where(from_second, rng.normal(5.0, 0.5, n), rng.normal(0.0, 1.0, n))
    alpha = stacking_em(norm.logpdf(x, 0.0, 1.0), norm.logpdf(x, 5.0, 0.5))
    assert abs(alpha - true_weight) < 0.02


loglik_value = st.one_of(
    st.floats(-40.0, 5.0, allow_nan=False),
    st.just(-np.inf),
)


@st.composite
def loglik_tables(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 40))
    l1 = np.array(draw(st.lists(loglik_value, min_size=n, max_size=n)))
    l2 = np.array(draw(st.lists(loglik_value, min_size=n, max_size=n)))
    return l1, l2


@settings(max_examples=200, deadline=None)
@given(loglik_tables())
def test_em_matches_exact_bisection(table: tuple[np.ndarray, np.ndarray]) -> None:
    l1, l2 = table
    exact = _stacking_alpha_exact(l1, l2)
    assume(not np.isnan(exact))
    rate = _em_rate(l1, l2, exact)
    # Default EM (<= 100 iterations) on well-determined tables.
    assume(rate < 0.8)
    alpha = stacking_em(l1, l2)
    assert 0.0 <= alpha <= 1.0
    assert abs(alpha - exact) < 1e-6


@settings(max_examples=100, deadline=None)
@given(loglik_tables())
def test_em_converges_to_exact_with_more_iterations(table: tuple[np.ndarray, np.ndarray]) -> None:
    l1, l2 = table
    exact = _stacking_alpha_exact(l1, l2)
    assume(not np.isnan(exact))
    assume(_em_rate(l1, l2, exact) < 0.995)
    alpha = stacking_em(l1, l2, tol=1e-14, max_iter=20_000)
    assert abs(alpha - exact) < 1e-6
    # The exact solution is a maximiser: EM never beats it.
    assert _log_mixture(alpha, l1, l2) <= _log_mixture(exact, l1, l2) + 1e-9


def test_em_drops_rows_with_both_loglik_minus_inf() -> None:
    l1 = np.array([-1.0, -2.0, -np.inf, -0.5])
    l2 = np.array([-3.0, -0.1, -np.inf, -2.0])
    assert stacking_em(l1, l2) == stacking_em(l1[[0, 1, 3]], l2[[0, 1, 3]])
    assert np.isnan(stacking_em(np.array([-np.inf]), np.array([-np.inf])))


def test_em_boundary_cases() -> None:
    # phi_2 vanishes everywhere phi_1 does not: weight 0; and the converse.
    l_finite = np.array([-1.0, -2.0, -3.0])
    l_zero = np.full(3, -np.inf)
    assert stacking_em(l_finite, l_zero) == 0.0
    assert stacking_em(l_zero, l_finite) == 1.0
    assert _stacking_alpha_exact(l_finite, l_zero) == 0.0
    assert _stacking_alpha_exact(l_zero, l_finite) == 1.0


# --------------------------------------------------------------------------- #
# Gaussian fits
# --------------------------------------------------------------------------- #
def test_fold_split_is_a_ragged_partition() -> None:
    order, starts = _fold_split(23, 5, np.random.default_rng(0))
    assert np.array_equal(np.sort(order), np.arange(23))
    sizes = np.diff(np.append(starts, 23))
    assert sizes.tolist() == [5, 5, 5, 4, 4]
    # Leave-one-out needs no randomness.
    order, starts = _fold_split(6, 6, None)
    assert np.array_equal(order, np.arange(6)) and np.array_equal(starts, np.arange(6))
    with pytest.raises(ValueError):
        _fold_split(6, 3, None)


def test_gaussian_loglik_matches_scipy() -> None:
    rng = np.random.default_rng(3)
    X_train = rng.normal(size=(40, 3)) @ np.array([[2.0, 0.3, 0], [0, 1.0, 0.5], [0, 0, 0.2]]) + 4.0
    X_eval = rng.normal(size=(15, 3)) * 3.0
    ridge = 0.05
    expected = multivariate_normal(
        X_train.mean(axis=0), np.cov(X_train, rowvar=False) + ridge * np.eye(3)
    ).logpdf(X_eval)
    result = gaussian_loglik(X_train, X_eval, ridge)
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-10)


def test_gaussian_loglik_single_training_sample_uses_ridge_only() -> None:
    X_eval = np.array([[0.0, 0.0], [1.0, -1.0]])
    result = gaussian_loglik(np.array([[1.0, 1.0]]), X_eval, 0.5)
    expected = multivariate_normal([1.0, 1.0], 0.5 * np.eye(2)).logpdf(X_eval)
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_dims", [1, 2, 3, 4])
@pytest.mark.parametrize(
    ("n_samples", "n_folds"),
    [(12, 12), (9, 500), (2, 2), (3, 3), (23, 5), (50, 7), (101, 10), (40, 2)],
)
def test_fast_cv_loglik_matches_twin(n_dims: int, n_samples: int, n_folds: int) -> None:
    rng = np.random.default_rng(n_dims * 1000 + n_samples)
    scales = np.array([3.0, 0.2, 1.0, 7.0])[:n_dims]
    mixing = np.triu(rng.normal(size=(n_dims, n_dims))) + np.eye(n_dims)
    X = (rng.normal(size=(n_samples, n_dims)) * scales) @ mixing + 10.0
    ridge = 1e-3 * X.var(axis=0, ddof=1).sum() / n_dims + 1e-12
    fast = gaussian_cv_loglik(X, n_folds, ridge, np.random.default_rng(42))
    twin = _gaussian_cv_loglik_twin(X, n_folds, ridge, np.random.default_rng(42))
    np.testing.assert_allclose(fast, twin, rtol=0, atol=1e-8)


def _pack(matrices: np.ndarray) -> np.ndarray:
    rows, cols = np.tril_indices(matrices.shape[-1])
    return np.ascontiguousarray(matrices[:, rows, cols].T)


@pytest.mark.parametrize("n_dims", [1, 2, 3, 5])
def test_packed_cholesky_matches_numpy(n_dims: int) -> None:
    rng = np.random.default_rng(n_dims)
    factors = rng.normal(size=(20, n_dims, n_dims))
    spd = factors @ np.swapaxes(factors, 1, 2) + 0.1 * np.eye(n_dims)
    np.testing.assert_allclose(
        _packed_cholesky(_pack(spd), n_dims, 0.1), _pack(np.linalg.cholesky(spd)), atol=1e-12
    )


def test_packed_cholesky_repairs_indefinite_matrices() -> None:
    good = np.array([[2.0, 0.5], [0.5, 1.0]])
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    chol = _packed_cholesky(_pack(np.stack([good, bad])), 2, 0.25)
    rows, cols = np.tril_indices(2)
    dense = np.zeros((2, 2, 2))
    dense[:, rows, cols] = chol.T
    np.testing.assert_allclose(dense[0] @ dense[0].T, good, atol=1e-12)
    # Eigenvalue -1 raised to the floor 0.25: V diag(3, 0.25) V^T, V = [[1, 1], [1, -1]] / sqrt(2).
    np.testing.assert_allclose(dense[1] @ dense[1].T, [[1.625, 1.375], [1.375, 1.625]], atol=1e-12)


def test_degenerate_cluster_of_identical_points() -> None:
    X = np.tile([1.0, 2.0, 3.0], (10, 1))
    labels = np.zeros(10, dtype=int)
    loo = gaussian_cv_loglik(X, 10, 1e-12)
    assert np.all(np.isfinite(loo))
    result = _call(X, labels, X.copy(), labels)
    assert 0.0 <= result.alpha <= 1.0


def test_leave_one_out_differs_from_in_sample_fit() -> None:
    # Guards against a downdating bug that would evaluate in-sample.
    X = np.random.default_rng(5).normal(size=(30, 2))
    loo = gaussian_cv_loglik(X, 30, 1e-3)
    in_sample = gaussian_loglik(X, X, 1e-3)
    assert np.all(loo < in_sample)


@pytest.mark.slow
def test_leave_one_out_is_fast_on_50k_samples() -> None:
    X = np.random.default_rng(0).normal(size=(50_000, 3))
    start = time.perf_counter()
    loglik = gaussian_cv_loglik(X, 50_000, 1e-3)
    elapsed = time.perf_counter() - start
    assert np.all(np.isfinite(loglik))
    # Close to the in-sample fit for a large sample, but strictly below it.
    in_sample = gaussian_loglik(X, X, 1e-3)
    assert np.all(loglik < in_sample) and np.max(in_sample - loglik) < 0.05
    assert elapsed < 5.0


# --------------------------------------------------------------------------- #
# Matching
# --------------------------------------------------------------------------- #
def test_match_clusters_recovers_permutation() -> None:
    labels_prev = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    labels_curr = np.array([7, 7, 5, 5, 5, 3, 3, 3, 3])  # 0->7, 1->5, 2->3, one switch
    pairs, overlaps = match_clusters(labels_curr, labels_prev)
    assert pairs.tolist() == [[3, 2], [5, 1], [7, 0]]
    assert overlaps.tolist() == [4, 2, 2]


def test_match_clusters_drops_zero_overlap_pairs() -> None:
    # Contingency (t x t-1): A: X=5, Y=1 ; B: X=3, Y=0. Best total: A-X (5) + B-Y (0).
    labels_curr = np.array(["A"] * 6 + ["B"] * 3)
    labels_prev = np.array(["X"] * 5 + ["Y"] + ["X"] * 3)
    pairs, overlaps = match_clusters(labels_curr, labels_prev)
    assert pairs.tolist() == [["A", "X"]]
    assert overlaps.tolist() == [5]


# --------------------------------------------------------------------------- #
# smoothness_weight
# --------------------------------------------------------------------------- #
def _call(X_prev, labels_prev, X_curr, labels_curr, **kwargs):
    kwargs.setdefault("X_prev_all", X_prev)
    kwargs.setdefault("X_curr_all", X_curr)
    kwargs.setdefault("rng", np.random.default_rng(0))
    return smoothness_weight(X_prev, labels_prev, X_curr, labels_curr, **kwargs)


def test_no_common_samples_gives_zero() -> None:
    empty = np.empty((0, 3))
    result = smoothness_weight(
        empty, np.empty(0, int), empty, np.empty(0, int),
        X_prev_all=np.ones((4, 3)), X_curr_all=np.zeros((5, 3)), rng=np.random.default_rng(0),
    )
    assert result.alpha == 0.0 and result.n_common == 0
    assert result.pairs.shape == (0, 2) and result.alpha_pairs.size == 0


def test_identical_steps_give_large_alpha() -> None:
    # phi_2 is fitted on the very samples it evaluates; the LOO phi_1 is not,
    # so phi_2 is better on every sample and EM moves alpha up from 0.5.
    X = np.random.default_rng(1).normal(size=(200, 3)) * [1.0, 2.0, 0.5] + 3.0
    labels = np.zeros(200, dtype=int)
    result = _call(X, labels, X.copy(), labels)
    assert result.alpha > 0.5
    assert result.alpha_pairs[0] == result.alpha


def test_different_previous_covariance_gives_small_alpha() -> None:
    rng = np.random.default_rng(2)
    X_curr = rng.normal(size=(300, 3)) * 0.1
    X_prev = rng.normal(size=(300, 3)) * 3.0
    labels = np.zeros(300, dtype=int)
    result = _call(X_prev, labels, X_curr, labels)
    assert result.alpha < 0.2


@pytest.mark.parametrize("seed", range(5))
def test_alpha_in_unit_interval(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 120
    X_prev = rng.normal(size=(n, 2)) * rng.uniform(0.1, 3.0, 2)
    X_curr = X_prev + rng.normal(size=(n, 2)) * rng.uniform(0.0, 2.0)
    result = _call(X_prev, rng.integers(0, 4, n), X_curr, rng.integers(0, 3, n), n_folds_max=10)
    assert 0.0 <= result.alpha <= 1.0
    finite = result.alpha_pairs[~np.isnan(result.alpha_pairs)]
    assert np.all((finite >= 0.0) & (finite <= 1.0))


def _two_pair_toy():
    rng = np.random.default_rng(11)
    # t-1: clusters 0 (5), 1 (4), 2 (3); t: cluster 0 = old 0, cluster 1 = old 1 + old 2.
    labels_prev = np.array([0] * 5 + [1] * 4 + [2] * 3)
    labels_curr = np.array([0] * 5 + [1] * 7)
    X_prev = rng.normal(size=(12, 2)) + np.where(labels_prev[:, None] == 0, -4.0, 4.0)
    X_curr = X_prev + rng.normal(scale=0.5, size=(12, 2))
    return X_prev, labels_prev, X_curr, labels_curr


def test_aggregation_weights_by_hand() -> None:
    X_prev, labels_prev, X_curr, labels_curr = _two_pair_toy()
    common = _call(X_prev, labels_prev, X_curr, labels_curr)
    assert common.pairs.tolist() == [[0, 0], [1, 1]]
    assert common.sizes_prev.tolist() == [5, 4] and common.sizes_curr.tolist() == [5, 7]
    a0, a1 = common.alpha_pairs
    assert common.alpha == pytest.approx((10 * a0 + 11 * a1) / 24, abs=1e-15)
    matched = _call(X_prev, labels_prev, X_curr, labels_curr, aggregate="matched")
    assert matched.alpha == pytest.approx((10 * a0 + 11 * a1) / 21, abs=1e-15)
    with pytest.raises(ValueError, match="aggregate"):
        _call(X_prev, labels_prev, X_curr, labels_curr, aggregate="mean")


def test_pair_alpha_matches_independent_oracle() -> None:
    # Non-common samples shift the centring means: they must be used.
    X_prev, labels_prev, X_curr, labels_curr = _two_pair_toy()
    rng = np.random.default_rng(4)
    X_prev_all = np.vstack([X_prev, rng.normal(3.0, 1.0, size=(6, 2))])
    X_curr_all = np.vstack([X_curr, rng.normal(-2.0, 1.0, size=(3, 2))])
    result = _call(
        X_prev, labels_prev, X_curr, labels_curr, X_prev_all=X_prev_all, X_curr_all=X_curr_all
    )
    prev_c = X_prev - X_prev_all.mean(axis=0)
    curr_c = X_curr - X_curr_all.mean(axis=0)
    for (label_curr, label_prev), alpha_pair in zip(result.pairs, result.alpha_pairs):
        A_curr = curr_c[labels_curr == label_curr]
        A_prev = prev_c[labels_prev == label_prev]
        union = np.vstack([A_curr, A_prev])
        ridge = 1e-3 * np.trace(np.cov(union, rowvar=False)) / 2 + 1e-12
        l1 = _gaussian_cv_loglik_twin(A_curr, len(A_curr), ridge)
        l2 = multivariate_normal(
            A_prev.mean(axis=0), np.cov(A_prev, rowvar=False) + ridge * np.eye(2)
        ).logpdf(A_curr)
        assert alpha_pair == pytest.approx(stacking_em(l1, l2), abs=1e-12)


def test_pairs_with_fewer_than_two_samples_are_skipped() -> None:
    rng = np.random.default_rng(8)
    labels = np.array([0] * 5 + [1] * 5 + [2])
    X_prev = rng.normal(size=(11, 2)) + labels[:, None] * 5.0
    X_curr = X_prev + 0.1
    result = _call(X_prev, labels, X_curr, labels)
    assert result.pairs.tolist() == [[0, 0], [1, 1], [2, 2]]
    assert np.isnan(result.alpha_pairs[2]) and not np.isnan(result.alpha_pairs[:2]).any()
    a0, a1 = result.alpha_pairs[:2]
    assert result.alpha == pytest.approx((10 * a0 + 10 * a1) / 22, abs=1e-15)
    # No usable pair at all.
    singletons = np.arange(4)
    none_usable = _call(X_prev[:4], singletons, X_curr[:4], singletons)
    assert none_usable.alpha == 0.0 and none_usable.pairs.shape == (0, 2)


def test_fold_split_randomness_is_reproducible() -> None:
    rng = np.random.default_rng(9)
    X_prev = rng.normal(size=(600, 3))
    X_curr = X_prev + rng.normal(scale=0.3, size=(600, 3))
    labels = np.zeros(600, dtype=int)
    first = _call(X_prev, labels, X_curr, labels, n_folds_max=50, rng=np.random.default_rng(1))
    again = _call(X_prev, labels, X_curr, labels, n_folds_max=50, rng=np.random.default_rng(1))
    other = _call(X_prev, labels, X_curr, labels, n_folds_max=50, rng=np.random.default_rng(2))
    assert first.alpha == again.alpha
    assert first.alpha != other.alpha


def _per_pair_reference(X_prev, labels_prev, X_curr, labels_curr, n_folds_max, seed):
    """The per-pair path of the vectorised NumPy functions (pair_ridge, CV and historical log-densities, EM)."""
    rng = np.random.default_rng(seed)
    prev_c, curr_c = X_prev - X_prev.mean(axis=0), X_curr - X_curr.mean(axis=0)
    pairs, _ = match_clusters(labels_curr, labels_prev)
    alphas = np.full(len(pairs), np.nan)
    for i, (label_curr, label_prev) in enumerate(pairs):
        A_curr, A_prev = curr_c[labels_curr == label_curr], prev_c[labels_prev == label_prev]
        if len(A_curr) < 2 or len(A_prev) < 2:
            continue
        ridge = pair_ridge(A_curr, A_prev)
        l1 = gaussian_cv_loglik(A_curr, min(n_folds_max, len(A_curr)), ridge, rng)
        alphas[i] = stacking_em(l1, gaussian_loglik(A_prev, A_curr, ridge))
    return alphas


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(2, 40), st.sampled_from(["numba", "numpy"]))
def test_one_kernel_call_equals_the_per_pair_numpy_path(seed, n_dims, n_folds_max, backend) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 90))
    X_prev = rng.normal(size=(n, n_dims)) * rng.uniform(0.1, 3.0, n_dims)
    X_curr = X_prev + rng.normal(scale=0.5, size=(n, n_dims))
    labels_prev, labels_curr = rng.integers(0, 4, n), rng.integers(0, 3, n)
    result = _call(X_prev, labels_prev, X_curr, labels_curr, n_folds_max=n_folds_max,
                   rng=np.random.default_rng(seed + 1), backend=backend)
    expected = _per_pair_reference(X_prev, labels_prev, X_curr, labels_curr, n_folds_max, seed + 1)
    if np.isnan(expected).all():  # no usable pair: alpha 0 and no pair arrays
        assert result.alpha == 0.0 and result.alpha_pairs.size == 0
    else:
        np.testing.assert_allclose(result.alpha_pairs, expected, rtol=0, atol=1e-9)  # EM tol 1e-10


def test_string_labels_give_the_integer_label_result() -> None:
    X_prev, labels_prev, X_curr, labels_curr = _two_pair_toy()
    names = np.array(["north", "south", "west"])
    as_int = _call(X_prev, labels_prev, X_curr, labels_curr)
    as_str = _call(X_prev, names[labels_prev], X_curr, names[labels_curr])
    assert as_str.alpha == as_int.alpha
    assert as_str.pairs.tolist() == [["north", "north"], ["south", "south"]]


def test_pair_the_kernel_cannot_factor_is_recomputed_in_numpy(monkeypatch) -> None:
    # A covariance made indefinite by rounding: the kernel flags the pair with -1 and
    # smoothness_weight recomputes it with the eigenvalue-repairing NumPy path.
    import ercot_nb.evolution._pairs as module

    X_prev, labels_prev, X_curr, labels_curr = _two_pair_toy()
    expected = _call(X_prev, labels_prev, X_curr, labels_curr, n_folds_max=3)
    kernels = module.get_backend("numba")

    def flag_second_pair(*args):
        out = kernels.smoothness_pair_alphas(*args)
        out[1] = -1.0
        return out

    monkeypatch.setattr(module, "get_backend", lambda name: SimpleNamespace(smoothness_pair_alphas=flag_second_pair))
    flagged = _call(X_prev, labels_prev, X_curr, labels_curr, n_folds_max=3)
    assert flagged.alpha_pairs[0] == expected.alpha_pairs[0]
    assert flagged.alpha_pairs[1] == pytest.approx(expected.alpha_pairs[1], abs=1e-9)
    assert flagged.alpha_pairs[1] != -1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 40), min_size=1, max_size=50), st.sampled_from(["int64", "int32", "uint8", "float64", "str"]))
def test_unique_inverse_equals_numpy_unique(values, dtype) -> None:
    from ercot_nb.evolution._smoothness import _unique_inverse

    labels = np.array(values)
    labels = labels.astype(dtype) if dtype != "uint8" else np.abs(labels).astype(dtype)
    uniq, inverse = _unique_inverse(labels)
    expected_uniq, expected_inverse = np.unique(labels, return_inverse=True)
    assert uniq.dtype == expected_uniq.dtype
    np.testing.assert_array_equal(uniq, expected_uniq)
    np.testing.assert_array_equal(inverse, expected_inverse)


def _two_blobs(n_common: int, seed: int = 5):
    """Two drifting blobs (D = 3) at t-1 and t, 5% of the samples relabelled at t: two matched pairs."""
    rng = np.random.default_rng(seed)
    labels_prev = (np.arange(n_common) % 2).astype(np.int64)
    X_prev = rng.normal(size=(n_common, 3)) + 6.0 * labels_prev[:, None]
    X_curr = X_prev + rng.normal(scale=0.3, size=X_prev.shape)
    labels_curr = labels_prev.copy()
    flip = rng.random(n_common) < 0.05
    labels_curr[flip] = 1 - labels_curr[flip]
    return X_prev, labels_prev, X_curr, labels_curr


@pytest.mark.parametrize("n_common, free_cores, parallel", [
    (20_000, 2.0, True),    # large work, a core free: the parallel variant
    (20_000, 1.0, False),   # another program takes one core of two: serial
    (300, 2.0, False),      # small work: threads would cost more than they save
])
def test_the_pair_kernel_takes_several_threads_for_large_work_and_free_cores(monkeypatch, n_common, free_cores,
                                                                             parallel) -> None:
    """The engine's thread policy (Engine.kernel_for: work, threads, free cores) picks the pair
    kernel's variant; the parallel one gives the serial result bit for bit."""
    import contextlib

    import ercot_nb.evolution._pairs as module
    from ercot_nb.evolution import Engine
    from ercot_nb.kernels import get_backend

    two_threads = SimpleNamespace(get_num_threads=lambda: 2, parallel_chunksize=lambda size: contextlib.nullcontext())
    monkeypatch.setattr(module, "_threads_of", lambda backend: two_threads if backend == "numba" else None)
    monkeypatch.setattr(Engine, "_own_load", Engine._own_load)  # kernel_for records its threads
    kernels = get_backend("numba")
    called = []
    for name in ("smoothness_pair_alphas", "smoothness_pair_alphas_parallel"):
        kernel = getattr(kernels, name)
        monkeypatch.setattr(kernels, name, lambda *args, _k=kernel, _n=name: called.append(_n) or _k(*args))
    X_prev, labels_prev, X_curr, labels_curr = _two_blobs(n_common)
    monkeypatch.setattr(Engine, "free_cores", classmethod(lambda cls: free_cores))
    picked = _call(X_prev, labels_prev, X_curr, labels_curr)
    assert called == ["smoothness_pair_alphas_parallel" if parallel else "smoothness_pair_alphas"]
    monkeypatch.setattr(Engine, "free_cores", classmethod(lambda cls: 0.0))
    serial = _call(X_prev, labels_prev, X_curr, labels_curr)
    assert called[-1] == "smoothness_pair_alphas"
    assert len(serial.pairs) == 2 and np.all((serial.alpha_pairs > 0) & (serial.alpha_pairs < 1))
    assert picked.alpha_pairs.tobytes() == serial.alpha_pairs.tobytes() and picked.alpha == serial.alpha
