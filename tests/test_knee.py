"""Tests for ercot_nb.knee (final-solution selection)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ercot_nb.knee import (
    KNEE_RULES,
    attainment_scores,
    mock_control_data,
    normalise_front,
    select_knee,
    staircase_signed_distance,
)

# Convex front with a clear knee at index 2: g1 = sqrt(f1/10), g2 = sqrt(f2/10),
# squared norms [1, .5, .4, .5, 1] and chord distances prop. to 1 - g1 - g2.
CONVEX = np.array([[0.0, 10.0], [1.0, 4.0], [2.0, 2.0], [4.0, 1.0], [10.0, 0.0]])
CONVEX_C = np.array([8, 6, 4, 3, 2])


def test_normalise_front() -> None:
    g = normalise_front(np.array([[0.0, 5.0], [1.0, 5.0], [4.0, 5.0]]))
    np.testing.assert_allclose(g, [[0.0, 0.0], [0.5, 0.0], [1.0, 0.0]])


@pytest.mark.parametrize("rule", ["ideal", "chord"])
def test_convex_front_knee(rule: str) -> None:
    assert select_knee(CONVEX, CONVEX_C, rule=rule) == 2


def test_ideal_and_chord_differ_by_hand() -> None:
    # In g-space: (0,1), P=(0.1,0.55), Q=(0.35,0.35), (1,0).
    # Ideal: |P|^2 = 0.3125 > |Q|^2 = 0.245 -> Q. Chord: 1-g1-g2 is 0.35 (P) > 0.30 (Q) -> P.
    F = np.array([[0.0, 1.0], [0.01, 0.3025], [0.1225, 0.1225], [1.0, 0.0]])
    C = np.array([8, 5, 4, 2])
    assert select_knee(F, C, rule="ideal") == 2
    assert select_knee(F, C, rule="chord") == 1


def test_chord_ignores_points_beyond_the_chord() -> None:
    # g = (0.9, 0.9) lies on the far side of the chord: unsigned distance would pick it.
    F = np.array([[0.0, 1.0], [0.81, 0.81], [1.0, 0.0]])
    assert select_knee(F, np.array([8, 3, 2]), rule="chord") == 2


def test_duplicates_keep_first_occurrence() -> None:
    F = np.vstack([CONVEX[[4, 0]], CONVEX[[2]], CONVEX[[1, 2, 3]], CONVEX[[2]]])
    # The later copies of the knee claim fewer clusters, but only the first occurrence counts.
    C = np.array([2, 8, 4, 6, 3, 3, 2])
    assert select_knee(F, C) == 2
    assert select_knee(F, C, rule="chord") == 2


def test_single_point_and_all_duplicates() -> None:
    assert select_knee(np.array([[3.0, 1.0]]), np.array([5])) == 0
    assert select_knee(np.array([[3.0, 1.0]]), np.array([5]), rule="chord") == 0
    same = np.tile([2.0, 7.0], (4, 1))
    assert select_knee(same, np.array([5, 3, 4, 6])) == 0
    assert select_knee(same, np.array([5, 3, 4, 6]), rule="chord") == 0


def test_constant_objective_maps_to_zero() -> None:
    F = np.array([[3.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
    assert select_knee(F, np.array([2, 3, 4])) == 1


def test_ties_broken_by_n_clusters_then_f1() -> None:
    # g1 = [0, 1/3, 2/3, 1], g2 = [1, 2/3, 1/3, 0]: indices 1 and 2 tie (|g|^2 = 5/9).
    F = np.array([[0.0, 9.0], [1.0, 4.0], [4.0, 1.0], [9.0, 0.0]])
    assert select_knee(F, np.array([2, 5, 3, 6])) == 2
    assert select_knee(F, np.array([2, 4, 4, 6])) == 1
    # Two-point front: both extremes tie for both rules.
    F2 = np.array([[0.0, 1.0], [1.0, 0.0]])
    for rule in ("ideal", "chord"):
        assert select_knee(F2, np.array([5, 3]), rule=rule) == 1
        assert select_knee(F2, np.array([3, 3]), rule=rule) == 0


def test_unknown_rule_and_bad_input() -> None:
    with pytest.raises(ValueError, match="ideal.*chord.*mock"):
        select_knee(CONVEX, CONVEX_C, rule="closest")
    with pytest.raises(ValueError):
        select_knee(CONVEX, CONVEX_C, rule="mock")
    with pytest.raises(ValueError):
        select_knee(CONVEX, CONVEX_C, rule="mock", control_fronts=[])
    with pytest.raises(ValueError):
        select_knee(CONVEX[:, :1], CONVEX_C)
    assert KNEE_RULES == ("ideal", "chord", "mock")


# --------------------------------------------------------------------------- #
# Attainment surface distance
# --------------------------------------------------------------------------- #
STAIR = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        # Nearest on the horizontal segment y=1 (not a control point: those are 0.32 and 0.39 away).
        ((0.25, 0.8), 0.2),
        # Nearest at the control point (0.5, 0.5), an inner corner.
        ((0.2, 0.2), 0.3 * np.sqrt(2.0)),
        # Dominated, nearest at the outer corner (0.5, 1).
        ((0.6, 1.2), -np.sqrt(0.05)),
        # Dominated, nearest on the horizontal segment y=0.5.
        ((0.7, 0.6), -0.1),
        # Left of the front, nearest on the vertical ray above (0, 1).
        ((-0.1, 1.5), 0.1),
        # On the surface.
        ((0.75, 0.5), 0.0),
    ],
)
def test_staircase_distance_by_hand(point: tuple[float, float], expected: float) -> None:
    got = staircase_signed_distance(np.array([point]), STAIR)[0]
    assert got == pytest.approx(expected, abs=1e-12)
    # Dominated control points do not change the surface.
    with_dominated = np.vstack([STAIR, [[0.9, 0.9], [0.5, 0.7]]])
    assert staircase_signed_distance(np.array([point]), with_dominated)[0] == pytest.approx(
        expected, abs=1e-12
    )


coord = st.floats(-1.0, 2.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(coord, coord), min_size=1, max_size=8),
    st.lists(st.tuples(coord, coord), min_size=1, max_size=8),
)
def test_staircase_distance_matches_orthant_formulas(control, points) -> None:
    control, points = np.array(control), np.array(points)
    signed = staircase_signed_distance(points, control)
    # Outside: distance to the union of orthants c + R^2_+.
    to_orthants = np.maximum(control[None] - points[:, None], 0.0)
    outside = np.linalg.norm(to_orthants, axis=2).min(axis=1)
    # Inside: distance to the complement, a union of lower-left quadrants at the outer corners.
    order = np.lexsort((control[:, 1], control[:, 0]))
    x, y = control[order, 0], control[order, 1]
    best_y = np.minimum.accumulate(y)
    keep = np.r_[True, y[1:] < best_y[:-1]]
    x, y = x[keep], y[keep]
    corners = np.column_stack([np.r_[x, np.inf], np.r_[np.inf, y]])
    to_quadrants = np.maximum(points[:, None] - corners[None], 0.0)
    inside = np.linalg.norm(to_quadrants, axis=2).min(axis=1)
    dominated = np.any(np.all(control[None] <= points[:, None], axis=2), axis=1)
    expected = np.where(dominated, -inside, outside)
    np.testing.assert_allclose(signed, expected, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- #
# MOCK rule
# --------------------------------------------------------------------------- #
# Solution front in g-space (C = 2..8) with a bulge at C = 4; control front on the chord.
G_SOL = np.array(
    [[1.0, 0.0], [0.6, 0.25], [0.3, 0.3], [0.25, 0.55], [0.15, 0.75], [0.05, 0.9], [0.0, 1.0]]
)
G_CTRL = np.array(
    [[1.0, 0.0], [0.8, 0.2], [0.6, 0.4], [0.4, 0.6], [0.2, 0.8], [0.1, 0.9], [0.0, 1.0]]
)
C_RANGE = np.arange(2, 9)


def test_mock_picks_the_bulge() -> None:
    F = G_SOL**2  # normalisation (min 0, max 1, sqrt) maps back to G_SOL
    controls = [(5.0 + 3.0 * G_CTRL**2, C_RANGE)]  # other units: normalised separately
    scores = attainment_scores(F, C_RANGE, controls)
    # By hand: C=3 -> 0.15 (to (0.6,0.4)), C=4 -> sqrt(0.1) (to (0.4,0.6)/(0.6,0.4)),
    # C=5 -> sqrt(0.025) (to (0.4,0.6)); extremes lie on the surface.
    np.testing.assert_allclose(
        scores[[0, 1, 2, 3, 6]], [0.0, 0.15, np.sqrt(0.1), np.sqrt(0.025), 0.0], atol=1e-12
    )
    assert select_knee(F, C_RANGE, rule="mock", control_fronts=controls) == 2


def test_mock_uses_the_worst_case_over_controls_and_restricts_k() -> None:
    # Solution C=2..5 in g-space (1,0), (0.5,0.2), (0.2,0.5), (0,1), plus a C=6 point
    # outside that range. Only C <= 5 is in every front, so k_max = 5.
    F = np.vstack([np.array([[1.0, 0.0], [0.5, 0.2], [0.2, 0.5], [0.0, 1.0]]) ** 2, [[-3.0, 5.0]]])
    C = np.arange(2, 7)
    flat_g = np.array([[1.0, 0.0], [0.6, 0.4], [0.4, 0.6], [0.0, 1.0]])
    flat = np.vstack([flat_g**2, [[-1.0, 3.0]]])
    bulge = np.array([[1.0, 0.0], [0.4, 0.1], [0.1, 0.4], [0.0, 1.0]]) ** 2
    # Against the flat control alone (k_max = 6), (0.5, 0.2) lies beyond the surface.
    alone = attainment_scores(F, C, [(flat, C)])
    assert alone[1] > 0.0
    # The bulging control dominates (0.5, 0.2): 0.1 inside, to the outer corners
    # (0.4, 0.4) and (1, 0.1) of its staircase; the worst case over controls counts.
    scores = attainment_scores(F, C, [(flat, C), (10.0 * bulge, np.arange(2, 6))])
    np.testing.assert_allclose(scores[:4], [0.0, -0.1, -0.1, 0.0], atol=1e-12)
    assert np.isnan(scores[4])
    # Solution already restricted by hand: exact staircase distances against the flat control.
    # The control front is restricted too (its C=6 point would change its normalisation).
    restricted = attainment_scores(F[:4], C[:4], [(flat, C)])
    np.testing.assert_allclose(restricted, [0.0, np.sqrt(0.05), np.sqrt(0.05), 0.0], atol=1e-12)
    # Ties at score 0 between C=2 and C=5: the smaller C wins.
    controls = [(flat, C), (10.0 * bulge, np.arange(2, 6))]
    assert select_knee(F, C, rule="mock", control_fronts=controls) == 0


def test_mock_requires_a_shared_number_of_clusters() -> None:
    with pytest.raises(ValueError, match="present in every front"):
        attainment_scores(G_SOL, C_RANGE, [(G_CTRL, C_RANGE + 10)])


# --------------------------------------------------------------------------- #
# Control data
# --------------------------------------------------------------------------- #
def _anisotropic_data(n: int = 20_000) -> np.ndarray:
    rng = np.random.default_rng(0)
    rotation = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    return (rng.normal(size=(n, 3)) * [4.0, 1.0, 0.2]) @ rotation.T + [10.0, -5.0, 2.0]


def test_mock_control_data_bbox() -> None:
    X = _anisotropic_data(500)
    sets = mock_control_data(X, np.random.default_rng(1), n_sets=2, box="bbox")
    assert len(sets) == 2 and all(s.shape == X.shape for s in sets)
    for s in sets:
        assert np.all(s >= X.min(axis=0)) and np.all(s <= X.max(axis=0))
    assert not np.allclose(sets[0], sets[1])


def test_mock_control_data_pca_matches_covariance() -> None:
    X = _anisotropic_data()
    (control,) = mock_control_data(X, np.random.default_rng(2), n_sets=1, box="pca")
    assert control.shape == X.shape
    np.testing.assert_allclose(control.mean(axis=0), X.mean(axis=0), atol=0.1)
    np.testing.assert_allclose(np.cov(control, rowvar=False), np.cov(X, rowvar=False), atol=0.3)
    # Uniform: bounded along the principal axes, unlike the Gaussian data.
    eigval, eigvec = np.linalg.eigh(np.cov(X, rowvar=False))
    proj = (control - X.mean(axis=0)) @ eigvec
    assert np.all(np.abs(proj) <= np.sqrt(3.0 * eigval) + 1e-9)
    # Same generator state -> same data.
    again = mock_control_data(X, np.random.default_rng(2), n_sets=1)[0]
    np.testing.assert_array_equal(control, again)
    with pytest.raises(ValueError, match="pca"):
        mock_control_data(X, np.random.default_rng(2), box="sphere")


# --------------------------------------------------------------------------- #
# A-posteriori selection rules (select_member)
# --------------------------------------------------------------------------- #
from ercot_nb.knee import A_POSTERIORI_RULES, SELECTION_RULES, select_member  # noqa: E402


def test_selection_rules_declared_once() -> None:
    assert SELECTION_RULES == KNEE_RULES + A_POSTERIORI_RULES
    assert len(set(SELECTION_RULES)) == len(SELECTION_RULES)


@pytest.mark.parametrize("rule", ["ideal", "chord"])
def test_select_member_delegates_knee_rules(rule: str) -> None:
    assert select_member(CONVEX, CONVEX_C, rule) == select_knee(CONVEX, CONVEX_C, rule=rule)


def test_fixed_k() -> None:
    assert select_member(CONVEX, CONVEX_C, "fixed_k", k=6) == 1
    F = np.vstack([CONVEX, [[3.0, 3.5]]])  # a second 4-cluster member, farther from the ideal
    assert select_member(F, np.append(CONVEX_C, 4), "fixed_k", k=4) == 2
    with pytest.raises(ValueError, match=r"\[2, 3, 4, 6, 8\]"):
        select_member(CONVEX, CONVEX_C, "fixed_k", k=5)


def test_asf_and_pseudo_weights_follow_the_weights() -> None:
    # Linear scaling: (0,1), (.1,.4), (.2,.2), (.4,.1), (1,0).
    assert select_member(CONVEX, CONVEX_C, "asf") == 2  # 0.5 max(g): .5, .2, .1, .2, .5
    assert select_member(CONVEX, CONVEX_C, "asf", weights=(0.9, 0.1)) == 1  # f_cp matters most
    assert select_member(CONVEX, CONVEX_C, "asf", weights=(0.1, 0.9)) == 3
    # Pseudo-weights: (1, 0), (.9/1.5, .6/1.5), (.8/1.6, .8/1.6), ...
    assert select_member(CONVEX, CONVEX_C, "pseudo_weights") == 2
    assert select_member(CONVEX, CONVEX_C, "pseudo_weights", weights=(1.0, 1e-9)) == 0
    assert select_member(CONVEX, CONVEX_C, "pseudo_weights", weights=(1e-9, 1.0)) == 4
    with pytest.raises(ValueError, match="weights"):
        select_member(CONVEX, CONVEX_C, "asf", weights=(1.0, 0.0))
    with pytest.raises(ValueError, match="unknown selection rule"):
        select_member(CONVEX, CONVEX_C, "best")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10), st.floats(0, 10)), min_size=1, max_size=20),
       st.sampled_from(["asf", "pseudo_weights"]), st.floats(0.05, 0.95))
def test_asf_choice_is_nondominated(points, rule, w) -> None:
    F = np.array(points)
    chosen = select_member(F, np.full(len(F), 3), rule, weights=(w, 1 - w))
    if rule == "asf":  # the augmented ASF never picks a dominated member
        dominated = np.all(F <= F[chosen], axis=1) & np.any(F < F[chosen], axis=1)
        assert not dominated.any()
    else:  # brute force: the smallest L1 distance of the pseudo-weights to the weights
        low, high = F.min(axis=0), F.max(axis=0)
        pseudo = [[(high[i] - f[i]) / (high[i] - low[i]) if high[i] > low[i] else 0.0 for i in (0, 1)] for f in F]
        pseudo = [[p / sum(q) for p in q] if sum(q) > 0 else [0.5, 0.5] for q in pseudo]
        distance = [abs(q[0] - w) + abs(q[1] - (1 - w)) for q in pseudo]
        assert distance[chosen] <= min(distance) + 1e-9


def test_pseudo_weights_of_the_worst_member_are_exact() -> None:
    """Deb's (max_i - f_i) / (max_i - min_i) is 0 for the member at the maximum: computed as
    min + span - f it was 1.8e-16, which normalised to (1, 0) and tied with the best member
    (Hypothesis found it in CI: the member worst in f_cp, with f_sep constant, has no
    pseudo-weight, so 0.5 each, the nearest to (0.5, 0.5))."""
    F = np.array([(1.3246107103132867, 0.0), (6.272489124660054, 0.0)])
    assert select_member(F, np.full(2, 3), "pseudo_weights", weights=(0.5, 0.5)) == 1


def test_asf_skips_a_weakly_dominated_tie() -> None:
    # (1, 3) is listed first and ties (1, 2) on max(w g): only the augmentation separates them.
    F = np.array([[1.0, 3.0], [1.0, 2.0], [0.0, 10.0], [10.0, 0.0]])
    assert select_member(F, np.full(4, 3), "asf", weights=(0.9, 0.1)) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, -0.0, 1.0, 2.5, np.inf, np.nan]),
                          st.sampled_from([0.0, 1.0, 3.0, -0.0])), min_size=1, max_size=30))
def test_first_occurrences_equals_numpy_unique(rows):
    """The sort-based first occurrences (no np.unique(axis=0) per knee) equal np.unique's."""
    from ercot_nb.knee import _first_occurrences

    F = np.array(rows, dtype=float)
    _, first = np.unique(F, axis=0, return_index=True)
    np.testing.assert_array_equal(_first_occurrences(F), np.sort(first))
