"""Non-dominated sorting and crowding distance against brute force."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ercot_nb.kernels import get_backend

NUMBA = get_backend("numba")
TWIN = get_backend("numpy")


def brute_force_rank(F):
    """Rank by definition: a point's front is 1 + the longest chain of points dominating it."""
    n = len(F)
    dominates = [[bool(np.all(F[p] <= F[q]) and np.any(F[p] < F[q])) for q in range(n)] for p in range(n)]
    rank = [None] * n

    def depth(q):
        if rank[q] is None:
            rank[q] = max([depth(p) + 1 for p in range(n) if dominates[p][q]], default=0)
        return rank[q]

    return np.array([depth(q) for q in range(n)])


def brute_force_crowding(F, rank):
    crowd = np.zeros(len(F))
    for r in set(rank.tolist()):
        members = [i for i in range(len(F)) if rank[i] == r]
        for k in range(F.shape[1]):
            ordered = sorted(members, key=lambda i: (F[i, k], i))
            span = F[ordered[-1], k] - F[ordered[0], k]
            if span <= 0:
                continue
            crowd[ordered[0]] = crowd[ordered[-1]] = np.inf
            for pos in range(1, len(ordered) - 1):
                crowd[ordered[pos]] += (F[ordered[pos + 1], k] - F[ordered[pos - 1], k]) / span
    return crowd


objective_tables = arrays(
    np.float64,
    st.tuples(st.integers(1, 40), st.integers(2, 3)),
    elements=st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0]) | st.floats(-5, 5, allow_nan=False),
)


@settings(max_examples=80, deadline=None)
@given(objective_tables)
def test_rank_and_crowding_equal_brute_force(F):
    expected_rank = brute_force_rank(F)
    expected_crowd = brute_force_crowding(F, expected_rank)
    for backend in (NUMBA, TWIN):
        rank = np.empty(len(F), dtype=np.int64)
        backend.nondominated_rank(F, np.empty(len(F), dtype=np.int64), rank)
        np.testing.assert_array_equal(rank, expected_rank)
        if F.shape[1] == 2:  # the sweep of a fit's two objectives
            rank_two = np.full(len(F), -7, dtype=np.int64)
            backend.nondominated_rank_two(F, np.empty(len(F), dtype=np.int64), rank_two)
            np.testing.assert_array_equal(rank_two, expected_rank)
        crowd = np.empty(len(F))
        backend.crowding_distance(F, rank, np.empty(len(F), dtype=np.int64), crowd)
        np.testing.assert_allclose(crowd, expected_crowd, rtol=1e-12)


def test_rank_hand_made():
    F = np.array([[1, 5], [2, 2], [5, 1], [3, 3], [6, 6], [2, 2]], dtype=float)
    for kernel in (NUMBA.nondominated_rank, NUMBA.nondominated_rank_two):
        rank = np.empty(6, dtype=np.int64)
        kernel(F, np.empty(6, dtype=np.int64), rank)
        np.testing.assert_array_equal(rank, [0, 0, 0, 1, 2, 0])  # duplicates share a front


def test_environmental_selection_prefers_fronts_then_spread():
    from ercot_nb.evolution._engine import EAConfig, Engine

    engine = Engine(EAConfig(2, 1, 4, 1, 0.9, 0.1, 20.0, False, refine=True, separation="active",
                             reseed_empty=False, precision="float64"), backend="numba")
    F = np.array([[1, 5], [2, 3], [3, 2], [5, 1], [2.5, 2.6], [6, 6], [7, 7]], dtype=float)
    chosen, rank, crowding = engine.select(F, 4)
    # Front 0 = {0,1,2,3,4}: 5 points for 4 slots; the extremes (0, 3) are infinite,
    # and the most crowded interior point (4, between 1 and 2) is dropped.
    assert set(chosen.tolist()) == {0, 1, 2, 3}
    assert np.all(rank == 0)
    assert np.isinf(crowding[:2]).all()


@pytest.mark.parametrize("n", [1, 2])
def test_tiny_fronts(n):
    F = np.arange(2 * n, dtype=float).reshape(n, 2)
    rank = np.empty(n, dtype=np.int64)
    NUMBA.nondominated_rank(F, np.empty(n, dtype=np.int64), rank)
    rank_two = np.empty(n, dtype=np.int64)
    NUMBA.nondominated_rank_two(F, np.empty(n, dtype=np.int64), rank_two)
    np.testing.assert_array_equal(rank_two, rank)
    crowd = np.empty(n)
    NUMBA.crowding_distance(F, rank, np.empty(n, dtype=np.int64), crowd)
    assert rank[0] == 0


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(0, 70),
              elements=st.sampled_from([0.0, 1.0, -2.5, 3.0, np.inf, -np.inf, np.nan])))
def test_stable_sort_matches_numpy_stable_argsort(values):
    from ercot_nb.kernels._numba_evolution import _stable_sort_by

    order = np.arange(len(values))
    _stable_sort_by(values, order, np.empty(len(values), dtype=np.int64))
    np.testing.assert_array_equal(order, np.argsort(values, kind="stable"))


def _selection_by_parts(backend, F, n_select):
    """Rank, crowding and NumPy's lexsort: what the engine ran before the one-call kernel."""
    rank = np.empty(len(F), dtype=np.int64)
    backend.nondominated_rank_two(F, np.empty(len(F), dtype=np.int64), rank)
    crowding = np.empty(len(F))
    backend.crowding_distance(F, rank, np.empty(len(F), dtype=np.int64), crowding)
    chosen = np.lexsort((np.arange(len(F)), -crowding, rank))[:n_select]
    return rank, crowding, chosen


two_objective_tables = arrays(
    np.float64, st.tuples(st.integers(1, 60), st.just(2)),
    elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, np.inf]) | st.floats(-5, 5, allow_nan=False))


@settings(max_examples=80, deadline=None)
@given(two_objective_tables, st.floats(0.0, 1.0))
def test_environmental_selection_equals_rank_crowding_and_lexsort(F, share):
    """One kernel call ranks, crowds and picks the survivors exactly as the three calls did
    (ties, duplicates and infinite objectives included, so that crowding holds inf and nan)."""
    n_select = max(1, round(share * len(F)))
    for backend in (NUMBA, TWIN):
        rank, crowding = np.empty(len(F), dtype=np.int64), np.empty(len(F))
        chosen, chosen_rank = np.empty(n_select, dtype=np.int64), np.empty(n_select, dtype=np.int64)
        chosen_crowding = np.empty(n_select)
        with np.errstate(invalid="ignore"):  # the twins' inf - inf
            rank_ref, crowding_ref, chosen_ref = _selection_by_parts(backend, F, n_select)
            backend.environmental_selection(F, np.empty(len(F), dtype=np.int64), rank,
                                            np.empty(len(F), dtype=np.int64), crowding,
                                            chosen, chosen_rank, chosen_crowding)
        np.testing.assert_array_equal(rank, rank_ref)
        np.testing.assert_array_equal(crowding, crowding_ref)
        np.testing.assert_array_equal(chosen, chosen_ref)
        np.testing.assert_array_equal(chosen_rank, rank_ref[chosen_ref])
        np.testing.assert_array_equal(chosen_crowding, crowding_ref[chosen_ref])


def test_engine_selection_is_one_kernel_call():
    """Per generation the selection costs one call of compiled code, not three (rank, crowding, lexsort)."""
    from types import SimpleNamespace

    from ercot_nb.evolution._engine import EAConfig, Engine

    engine = Engine(EAConfig(2, 1, 4, 1, 0.9, 0.1, 20.0, False, refine=True, separation="active",
                             reseed_empty=False, precision="float64"), backend="numba")
    calls = []

    def counted(name):
        kernel = getattr(NUMBA, name)
        return lambda *args: (calls.append(name), kernel(*args))[1]

    engine.kernels = SimpleNamespace(**{name: counted(name) for name in vars(NUMBA) if callable(getattr(NUMBA, name))})
    F = np.random.default_rng(0).random((12, 2))
    chosen, _, _ = engine.select(F, 6)
    assert calls == ["environmental_selection"]
    np.testing.assert_array_equal(chosen, _selection_by_parts(NUMBA, F, 6)[2])
