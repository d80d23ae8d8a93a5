"""Every numba kernel equals its plain NumPy twin on the same inputs."""
from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ercot_nb.kernels import (
    KERNEL_NAMES,
    SMOOTHNESS_BLOCK,
    get_backend,
    pair_alphas_scratch,
)

NUMBA = get_backend("numba")
TWIN = get_backend("numpy")


def random_population(rng, n, n_max, n_features, p_active=0.6):
    pop = rng.normal(size=(n, n_max * (1 + n_features)))
    pop[:, :n_max] = rng.random((n, n_max))
    pop[:, :n_max] = np.where(rng.random((n, n_max)) < p_active, 0.75, 0.25)
    pop[0, :n_max] = 0.25  # a solution with no active centroid
    pop[1, :n_max] = 0.25
    pop[1, 0] = 0.75  # and one with a single active centroid
    return pop


def test_both_backends_expose_every_kernel():
    for name in KERNEL_NAMES:
        assert callable(getattr(NUMBA, name))
        assert callable(getattr(TWIN, name))


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend"):
        get_backend("cuda")


@pytest.mark.parametrize("nonempty_only", [False, True])
@pytest.mark.parametrize("n_features", [1, 2, 3, 5])
@pytest.mark.parametrize("n_max", [2, 8])
def test_evaluate_population(n_features, n_max, nonempty_only):
    rng = np.random.default_rng(n_features * 10 + n_max)
    X = rng.normal(size=(137 + 256 * (n_max == 8), n_features))  # > 1 block too
    pop = random_population(rng, 12, n_max, n_features)
    out = {}
    for backend in (NUMBA, TWIN):
        f_cp, f_sep = np.empty(12), np.empty(12)
        counts = np.empty((12, n_max), dtype=np.int64)
        backend.evaluate_population(X, pop, n_max, nonempty_only, f_cp, f_sep, counts, NUMBA.feature_major(X))
        out[backend.name] = (f_cp, f_sep, counts)
    np.testing.assert_allclose(out["numba"][0], out["numpy"][0], rtol=1e-12)
    np.testing.assert_allclose(out["numba"][1], out["numpy"][1], rtol=1e-12)
    np.testing.assert_array_equal(out["numba"][2], out["numpy"][2])
    assert np.isinf(out["numba"][0][0]) and np.isinf(out["numba"][1][1])


def test_evaluate_population_hand_computed():
    # 2-D, two active centroids at (0,0) and (3,4); a third inactive slot.
    n_max, D = 3, 2
    chromosome = np.array([0.9, 0.5, 0.1, 0.0, 0.0, 3.0, 4.0, 100.0, 100.0])
    X = np.array([[0.0, 1.0], [3.0, 3.0], [1.5, 2.0]])  # last one is equidistant: lowest index wins
    f_cp, f_sep = np.empty(1), np.empty(1)
    counts = np.empty((1, n_max), dtype=np.int64)
    NUMBA.evaluate_population(X, chromosome[None, :], n_max, False, f_cp, f_sep, counts, NUMBA.feature_major(X))
    assert f_cp[0] == pytest.approx(1.0 + 1.0 + 2.5)
    assert f_sep[0] == pytest.approx(1 / 5)
    np.testing.assert_array_equal(counts[0], [2, 1, 0])


def test_ghost_centroid_only_counts_for_active_separation():
    # Third active centroid far away with no members: it sets f_sep only in "active" mode.
    n_max = 3
    chromosome = np.array([[0.9, 0.9, 0.9, 0.0, 0.0, 2.0, 0.0, 0.0, 1.5]])
    X = np.array([[0.0, 0.1], [2.0, 0.1], [0.1, 0.0]])
    for backend in (NUMBA, TWIN):
        for nonempty_only, expected in ((False, 1 / 1.5), (True, 1 / 2.0)):
            f_cp, f_sep = np.empty(1), np.empty(1)
            counts = np.empty((1, n_max), dtype=np.int64)
            backend.evaluate_population(X, chromosome, n_max, nonempty_only, f_cp, f_sep, counts,
                                        NUMBA.feature_major(X))
            np.testing.assert_array_equal(counts[0], [2, 1, 0])
            assert f_sep[0] == pytest.approx(expected)


@pytest.mark.parametrize("reseed", [False, True])
@pytest.mark.parametrize("n_features", [1, 3])
def test_recentre_population_matches_twin_and_lloyd(n_features, reseed):
    rng = np.random.default_rng(7)
    X_assign = rng.normal(size=(90, n_features))
    X_update = X_assign + rng.normal(scale=0.3, size=X_assign.shape)
    pop = random_population(rng, 10, 6, n_features)
    results = {}
    for backend in (NUMBA, TWIN):
        moved = pop.copy()
        sums = np.empty((10, 6, n_features))
        counts = np.empty((10, 6), dtype=np.int64)
        backend.recentre_population(X_assign, X_update, moved, 6, reseed, sums, counts,
                                    NUMBA.feature_major(X_assign), NUMBA.with_ones(X_update))
        results[backend.name] = (moved, counts)
    np.testing.assert_allclose(results["numba"][0], results["numpy"][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(results["numba"][1], results["numpy"][1])
    # Masks never change; centroids without members never move.
    moved, counts = results["numba"]
    np.testing.assert_array_equal(moved[:, :6], pop[:, :6])
    cents_before = pop[:, 6:].reshape(10, 6, n_features)
    cents_after = moved[:, 6:].reshape(10, 6, n_features)
    if not reseed:
        np.testing.assert_array_equal(cents_after[counts == 0], cents_before[counts == 0])
    else:  # the first empty active centroid of each solution sits on a sample
        for i in range(10):
            empty = np.flatnonzero((counts[i] == 0) & (pop[i, :6] >= 0.5))
            if len(empty):
                assert any(np.allclose(cents_after[i, empty[0]], x) for x in X_update)


def test_decode_encode_hand_computed():
    # Two clusters at t-1 around (0,0) and (10,0); at t every sample moved by (+1, +2)
    # except sample 3, which moved to (20, 20). Decode labels by t-1 positions,
    # encode centroids as means of t positions.
    X_prev = np.array([[0.0, 0.0], [1.0, 0.0], [10.0, 0.0], [11.0, 0.0]])
    X_curr = np.array([[1.0, 2.0], [2.0, 2.0], [11.0, 2.0], [20.0, 20.0]])
    n_max = 3
    chromosome = np.array([[1.0, 1.0, 0.0, 0.5, 0.0, 10.5, 0.0, -7.0, -7.0]])
    for backend in (NUMBA, TWIN):
        pop = chromosome.copy()
        sums = np.empty((1, n_max, 2))
        counts = np.empty((1, n_max), dtype=np.int64)
        backend.recentre_population(X_prev, X_curr, pop, n_max, False, sums, counts,
                                    NUMBA.feature_major(X_prev), NUMBA.with_ones(X_curr))
        np.testing.assert_allclose(pop[0, 3:5], [1.5, 2.0])
        np.testing.assert_allclose(pop[0, 5:7], [15.5, 11.0])
        np.testing.assert_allclose(pop[0, 7:9], [-7.0, -7.0])  # inactive: untouched
        np.testing.assert_array_equal(counts[0], [2, 2, 0])


def test_assign_nearest():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    chromosome = random_population(rng, 3, 5, 3)[2]
    out = {}
    for backend in (NUMBA, TWIN):
        labels = np.empty(300, dtype=np.int64)
        dist = np.empty(300)
        backend.assign_nearest(X, chromosome, 5, labels, dist, NUMBA.feature_major(X))
        out[backend.name] = (labels, dist)
    np.testing.assert_array_equal(out["numba"][0], out["numpy"][0])
    np.testing.assert_allclose(out["numba"][1], out["numpy"][1], rtol=1e-12)


def test_binary_tournament():
    rng = np.random.default_rng(0)
    rank = rng.integers(0, 3, size=20)
    crowding = rng.choice([0.0, 0.5, 1.0, np.inf], size=20)
    candidates = rng.integers(0, 20, size=(50, 2))
    coin = rng.random(50)
    winners = {b.name: np.empty(50, dtype=np.int64) for b in (NUMBA, TWIN)}
    for backend in (NUMBA, TWIN):
        backend.binary_tournament(rank, crowding, candidates, coin, winners[backend.name])
    np.testing.assert_array_equal(winners["numba"], winners["numpy"])
    for (a, b), w in zip(candidates, winners["numba"]):
        loser = b if w == a else a
        assert (rank[w], -crowding[w]) <= (rank[loser], -crowding[loser])


def test_single_point_crossover():
    rng = np.random.default_rng(1)
    pop = rng.normal(size=(8, 11))
    parents = rng.integers(0, 8, size=8)
    draw = np.array([0.1, 0.95, 0.5, 0.89])
    cut = rng.integers(1, 11, size=4)
    outs = {}
    for backend in (NUMBA, TWIN):
        out = np.empty((8, 11))
        backend.single_point_crossover(pop, parents, 0.9, draw, cut, out)
        outs[backend.name] = out
    np.testing.assert_array_equal(outs["numba"], outs["numpy"])
    out = outs["numba"]
    a, b, r = pop[parents[0]], pop[parents[1]], cut[0]
    np.testing.assert_array_equal(out[0], np.r_[a[:r], b[r:]])
    np.testing.assert_array_equal(out[1], np.r_[b[:r], a[r:]])
    np.testing.assert_array_equal(out[2], pop[parents[2]])  # draw 0.95 >= 0.9: copies
    np.testing.assert_array_equal(out[3], pop[parents[3]])


@pytest.mark.parametrize("rate", [0.05, 0.9, 1.0])
def test_polynomial_mutation(rate):
    rng = np.random.default_rng(2)
    lower = np.r_[np.zeros(4), -np.ones(8)]
    upper = np.r_[np.ones(4), np.ones(8) * 2]
    upper[5] = lower[5]  # a constant feature never mutates
    pop = lower + rng.random((30, 12)) * (upper - lower)
    pop[0, 7] = 5.0  # out of bounds: clipped into them when mutated
    draw = rng.random((30, 12))
    draw[0, 7] = 0.0
    r = rng.random((30, 12))
    outs = {}
    for backend in (NUMBA, TWIN):
        out = pop.copy()
        backend.polynomial_mutation(out, lower, upper, rate, 20.0, draw, r)
        outs[backend.name] = out
    np.testing.assert_allclose(outs["numba"], outs["numpy"], rtol=1e-13, atol=1e-13)
    out = outs["numba"]
    untouched = draw >= rate
    np.testing.assert_array_equal(out[untouched], pop[untouched])
    np.testing.assert_array_equal(out[:, 5], pop[:, 5])
    assert np.all(out >= lower) and np.all(out <= upper)


def test_polynomial_mutation_formula_by_hand():
    # x = 0.25 in [0, 1], eta = 1, u = 0.25: delta = (2u + (1-2u)(1-0.25)^2)^(1/2) - 1
    x = np.array([[0.25]])
    expected = 0.25 + (np.sqrt(0.5 + 0.5 * 0.75**2) - 1.0)
    NUMBA.polynomial_mutation(x, np.zeros(1), np.ones(1), 1.0, 1.0, np.zeros((1, 1)), np.full((1, 1), 0.25))
    assert x[0, 0] == pytest.approx(expected)


def test_repair_min_active():
    rng = np.random.default_rng(5)
    pop = rng.random((40, 6 + 12)) * 0.49  # nothing active
    pop[:10, :6] = rng.random((10, 6))
    pick = rng.random((40, 2))
    value = rng.random((40, 2))
    outs = {}
    for backend in (NUMBA, TWIN):
        out = pop.copy()
        backend.repair_min_active(out, 6, 2, pick, value)
        outs[backend.name] = out
    np.testing.assert_array_equal(outs["numba"], outs["numpy"])
    assert np.all((outs["numba"][:, :6] >= 0.5).sum(axis=1) >= 2)
    already = (pop[:, :6] >= 0.5).sum(axis=1) >= 2
    np.testing.assert_array_equal(outs["numba"][already], pop[already])


def test_kernels_compile_lazily_with_cache():
    from ercot_nb.kernels import _numba_clustering, _numba_evolution

    for module in (_numba_clustering, _numba_evolution):
        for name in KERNEL_NAMES:
            kernel = getattr(module, name, None)
            if kernel is None:
                continue
            assert isinstance(kernel, numba.core.registry.CPUDispatcher)
            assert kernel._cache.__class__.__name__ != "NullCache", f"{name} is not cache=True"


@pytest.mark.parametrize("alpha", [1e-3, 0.3, 0.5, 0.97])
def test_stacking_em_step(alpha):
    rng = np.random.default_rng(9)
    ratio = np.exp(rng.normal(scale=3, size=200))
    ratio[:3] = [0.0, np.inf, 1.0]
    expected = np.mean([1.0 / (1.0 + r * (1 - alpha) / alpha) for r in ratio])
    assert NUMBA.stacking_em_step(ratio, alpha) == pytest.approx(expected, rel=1e-12)
    assert TWIN.stacking_em_step(ratio, alpha) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", ["evaluate_population", "recentre_population"])
def test_parallel_population_kernels_equal_serial(name):
    rng = np.random.default_rng(7)
    n_max, n_features = 8, 3
    X = rng.normal(size=(300, n_features))
    pop = random_population(rng, 16, n_max, n_features)
    out = {}
    for kernel in (name, name + "_parallel"):
        p = pop.copy()
        counts = np.empty((16, n_max), dtype=np.int64)
        if name == "evaluate_population":
            f_cp, f_sep = np.empty(16), np.empty(16)
            getattr(NUMBA, kernel)(X, p, n_max, False, f_cp, f_sep, counts, NUMBA.feature_major(X))
            out[kernel] = (f_cp, f_sep, counts)
        else:
            getattr(NUMBA, kernel)(X, X, p, n_max, True, np.empty((16, n_max, n_features)), counts,
                                   NUMBA.feature_major(X), NUMBA.with_ones(X))
            out[kernel] = (p, counts)
    for serial, parallel in zip(out[name], out[name + "_parallel"]):
        np.testing.assert_array_equal(serial, parallel)


def test_parallel_assign_equals_serial_across_sample_blocks():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(10_000, 2))  # several sample blocks
    chromosome = random_population(rng, 3, 5, 2)[2]
    results = []
    for kernel in (NUMBA.assign_nearest, NUMBA.assign_nearest_parallel):
        labels, distances = np.empty(len(X), dtype=np.int64), np.empty(len(X))
        kernel(X, chromosome, 5, labels, distances, NUMBA.feature_major(X))
        results.append((labels, distances))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize("alpha", [1e-3, 0.5, 0.97])
def test_stacking_em_loop_iterates_the_step(alpha):
    ratio = np.random.default_rng(3).lognormal(sigma=2.0, size=200)
    ratio[:3] = [0.0, np.inf, 1.0]
    expected = alpha
    for _ in range(40):
        new = min(max(TWIN.stacking_em_step(ratio, expected), 0.0), 1.0)
        done = abs(new - expected) < 1e-9
        expected = new
        if done:
            break
    for backend in (NUMBA, TWIN):
        assert backend.stacking_em_loop(ratio, alpha, 1e-9, 40) == pytest.approx(expected, rel=1e-12)
    assert NUMBA.stacking_em_loop(np.zeros(5), 0.5, 1e-9, 40) == 1.0  # fixed point reached


@st.composite
def smoothness_steps(draw):
    """Centred common samples of two steps, their cluster codes, matched pairs, fold orders and a block size."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_common = draw(st.integers(2, 60))
    n_dims = draw(st.integers(1, 4))
    n_clusters = draw(st.integers(1, 4))
    rng = np.random.default_rng(seed)
    X_prev = rng.normal(size=(n_common, n_dims)) * rng.uniform(0.1, 3.0, n_dims)
    X_curr = X_prev + rng.normal(scale=draw(st.sampled_from([0.0, 0.1, 1.0])), size=(n_common, n_dims))
    codes_prev = rng.integers(0, n_clusters, n_common)
    codes_curr = rng.integers(0, n_clusters, n_common)
    pairs = np.column_stack([rng.permutation(n_clusters), rng.permutation(n_clusters)])
    n_folds_max = draw(st.integers(2, 70))
    sizes = [(codes_curr == label).sum() for label in pairs[:, 0]]
    order = np.concatenate([rng.permutation(n) if n > n_folds_max else np.arange(n) for n in sizes])
    block = draw(st.sampled_from([1, 3, 8, SMOOTHNESS_BLOCK]))
    X_all = tuple(np.concatenate([X, rng.normal(loc=5.0, size=(draw(st.integers(0, 5)), n_dims))]) for X in (X_curr, X_prev))
    return X_curr, codes_curr, X_prev, codes_prev, pairs, order, n_folds_max, block, X_all


def _pair_alphas(kernel, X_curr, codes_curr, X_prev, codes_prev, pairs, order, n_folds_max, block,
                 tol=1e-10, max_iter=100, threads=None, X_all=None):
    """``kernel`` (a backend's smoothness_pair_alphas or its variant) with fresh scratch, at ``threads``;
    each step centred by the mean of ``X_all`` (all its samples: the common ones by default)."""
    X_curr_all, X_prev_all = (X_curr, X_prev) if X_all is None else X_all
    n_bins = int(max(codes_curr.max(), codes_prev.max(), pairs.max())) + 1  # a pair's cluster may have no sample
    alpha_pairs = np.full(len(pairs), 7.0)
    before = numba.get_num_threads()
    try:
        if threads is not None:  # as many as numba has, up to threads
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        with numba.parallel_chunksize(1):  # the engine's schedule
            kernel(X_curr, codes_curr, X_prev, codes_prev, X_curr_all, X_prev_all, pairs, order, n_folds_max,
                   tol, max_iter, *pair_alphas_scratch(*X_curr.shape, n_bins, block=block), alpha_pairs)
    finally:
        numba.set_num_threads(before)
    return alpha_pairs


@settings(max_examples=60, deadline=None)
@given(smoothness_steps())
def test_smoothness_pair_alphas(step):
    codes_curr, codes_prev, pairs, X_all = step[1], step[3], step[4], step[-1]
    # tol = 0: both run the same 50 EM steps, so only rounding separates them.
    serial, twin = (_pair_alphas(backend.smoothness_pair_alphas, *step[:-1], tol=0.0, max_iter=50, X_all=X_all)
                    for backend in (NUMBA, TWIN))
    np.testing.assert_allclose(serial, twin, rtol=1e-10, atol=1e-12)
    # The parallel variant: the serial bits, at every thread count.
    for threads in (1, 2):
        parallel = _pair_alphas(NUMBA.smoothness_pair_alphas_parallel, *step[:-1], tol=0.0, max_iter=50,
                                threads=threads, X_all=X_all)
        assert parallel.tobytes() == serial.tobytes()
    skipped = [min((codes_curr == c).sum(), (codes_prev == p).sum()) < 2 for c, p in pairs]
    assert np.isnan(serial).tolist() == skipped
    assert np.all((serial[~np.isnan(serial)] >= 0) & (serial[~np.isnan(serial)] <= 1))


def _smoothness_pairs_case(sizes_curr, sizes_prev, n_folds_max, seed=21, n_dims=3):
    """Common samples of two steps in six clusters each, matched in five pairs (cluster 5 in none).

    Pair 1 has one sample at t (alpha nan); pair 3 a nan sample at t-1, so its
    historical covariance cannot be factored (alpha -1).
    """
    rng = np.random.default_rng(seed)
    codes_curr = rng.permutation(np.repeat(np.arange(6), sizes_curr))
    codes_prev = rng.permutation(np.repeat(np.arange(6), sizes_prev))
    n_common = codes_curr.size
    assert codes_prev.size == n_common
    X_prev = rng.normal(size=(n_common, n_dims)) * rng.uniform(0.1, 3.0, n_dims) + 2.0 * codes_prev[:, None]
    X_curr = X_prev + rng.normal(scale=0.5, size=(n_common, n_dims))
    pairs = np.array([[0, 2], [1, 0], [2, 1], [3, 4], [4, 3]], dtype=np.int64)
    X_prev[np.flatnonzero(codes_prev == 4)[2], 1] = np.nan
    sizes = [int((codes_curr == c).sum()) for c in pairs[:, 0]]
    order = np.concatenate([rng.permutation(n) if n > n_folds_max else np.arange(n) for n in sizes])
    return X_curr, codes_curr, X_prev, codes_prev, pairs, order.astype(np.int64), n_folds_max


def _all_samples(step):
    """All samples of each step: the common ones, the nan one of t-1 as 0 (it spoils its pair only)."""
    return step[0], np.nan_to_num(step[2])


# Pairs of several blocks (6,000 and 5,000 rows at t, blocks of 4,096; 700 rows in blocks of 64),
# random folds and leave-one-out, a pair with one sample at t and one that cannot be factored.
_CASES = {
    "default block": (([6000, 1, 5000, 30, 7, 12], [4000, 25, 6500, 33, 9, 483]), 500, SMOOTHNESS_BLOCK),
    "small blocks": (([700, 1, 300, 30, 7, 12], [350, 25, 600, 33, 9, 33]), 40, 64),
}


@pytest.mark.parametrize("case", list(_CASES))
@pytest.mark.parametrize("threads", [1, 2])
def test_parallel_smoothness_pair_alphas_equal_serial_bit_for_bit(case, threads):
    """Every sum over rows is taken in fixed blocks, added in block order: the parallel variant gives
    the serial bits at any thread count, and both agree with the NumPy twin to rounding."""
    sizes, n_folds_max, block = _CASES[case]
    step = (*_smoothness_pairs_case(*sizes, n_folds_max), block)
    X_all = _all_samples(step)
    assert max(sizes[0]) + max(sizes[1]) > 2 * block  # several blocks per pair
    serial = _pair_alphas(NUMBA.smoothness_pair_alphas, *step, X_all=X_all)
    assert np.isnan(serial[1]) and serial[3] == -1.0
    assert np.all((serial[[0, 2, 4]] > 0) & (serial[[0, 2, 4]] < 1))
    parallel = _pair_alphas(NUMBA.smoothness_pair_alphas_parallel, *step, threads=threads, X_all=X_all)
    assert parallel.tobytes() == serial.tobytes()
    twin = _pair_alphas(TWIN.smoothness_pair_alphas, *step, X_all=X_all)
    assert np.isnan(twin[1])
    np.testing.assert_allclose(serial[[0, 2, 4]], twin[[0, 2, 4]], rtol=1e-9)
    assert TWIN.smoothness_pair_alphas_parallel is TWIN.smoothness_pair_alphas  # the twins alias the variants


def test_smoothness_pair_alphas_blocks_change_rounding_only():
    """Another block size adds in another order: the same weights to rounding."""
    step = _smoothness_pairs_case(*_CASES["small blocks"][0], 40)
    by_block = [_pair_alphas(NUMBA.smoothness_pair_alphas, *step, block, X_all=_all_samples(step))
                for block in (1, 64, SMOOTHNESS_BLOCK)]
    for other in by_block[1:]:
        np.testing.assert_allclose(other[[0, 2, 4]], by_block[0][[0, 2, 4]], rtol=1e-12)


@pytest.mark.parametrize("kernel", ["smoothness_pair_alphas", "smoothness_pair_alphas_parallel"])
def test_smoothness_pair_alphas_refuses_codes_beyond_its_scratch(kernel):
    X_curr, codes_curr, X_prev, codes_prev, pairs, order, n_folds_max = _smoothness_pairs_case(
        *_CASES["small blocks"][0], 40)
    n_common, n_dims = X_curr.shape
    scratch = pair_alphas_scratch(n_common, n_dims, 5)  # codes go up to 5: 6 bins needed
    with pytest.raises(ValueError, match="cluster code"):
        getattr(NUMBA, kernel)(X_curr, codes_curr, X_prev, codes_prev, X_curr, X_prev, pairs, order, n_folds_max,
                               1e-10, 100, *scratch, np.empty(len(pairs)))
    scratch = pair_alphas_scratch(n_common, n_dims, 6)
    with pytest.raises(ValueError, match="pair's cluster code"):  # a pair beyond the bins
        getattr(NUMBA, kernel)(X_curr, codes_curr, X_prev, codes_prev, X_curr, X_prev, np.array([[0, 2], [6, 1]]),
                               order, n_folds_max, 1e-10, 100, *scratch, np.empty(2))


@pytest.mark.parametrize("kernel", ["smoothness_pair_alphas", "smoothness_pair_alphas_parallel"])
def test_smoothness_pair_alphas_refuses_scratch_of_the_wrong_shape(kernel):
    """The kernels read their scratch without bounds checks: a wrong shape is refused, not read past."""
    X_curr, codes_curr, X_prev, codes_prev, pairs, order, n_folds_max = _smoothness_pairs_case(
        *_CASES["small blocks"][0], 40)
    n_common, n_dims = X_curr.shape
    args = (X_curr, codes_curr, X_prev, codes_prev, X_curr, X_prev, pairs, order, n_folds_max, 1e-10, 100)
    scratch = list(pair_alphas_scratch(n_common, n_dims, 6))
    scratch[3] = np.empty((n_common, n_dims))  # rows: A_t and A_{t-1} need 2 n_common
    with pytest.raises(ValueError, match="wrong shape"):
        getattr(NUMBA, kernel)(*args, *scratch, np.empty(len(pairs)))
    with pytest.raises(ValueError, match="order"):
        getattr(NUMBA, kernel)(*args[:7], order[:100], *args[8:], *pair_alphas_scratch(n_common, n_dims, 6),
                               np.empty(len(pairs)))
