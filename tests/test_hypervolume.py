"""Tests of the exact 2-D hypervolume (ercot_nb.hypervolume) against a brute-force union."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ercot_nb.hypervolume import front_hypervolume, hypervolume_2d


def brute_force_area(F: np.ndarray, r: np.ndarray) -> float:
    """Area of the union of boxes [f, r] on the grid of all their coordinates."""
    xs = np.unique(np.concatenate([np.minimum(F[:, 0], r[0]), [r[0]]]))
    ys = np.unique(np.concatenate([np.minimum(F[:, 1], r[1]), [r[1]]]))
    area = 0.0
    for x0, x1 in zip(xs[:-1], xs[1:]):
        for y0, y1 in zip(ys[:-1], ys[1:]):
            covered = np.any((F[:, 0] <= x0) & (F[:, 1] <= y0))
            area += covered * (x1 - x0) * (y1 - y0)
    return area


@settings(max_examples=200, deadline=None)
@given(
    points=st.lists(st.tuples(st.integers(-5, 20), st.integers(-5, 20)), min_size=0, max_size=25),
    scale=st.floats(0.1, 3.0),
    reference=st.tuples(st.integers(0, 20), st.integers(0, 20)),
)
def test_hypervolume_equals_brute_force(points, scale, reference) -> None:
    F = np.array(points, dtype=float).reshape(-1, 2) * scale  # ties and duplicates on purpose
    r = np.array(reference, dtype=float) * scale
    assert hypervolume_2d(F, r) == pytest.approx(brute_force_area(F, r), rel=1e-12, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40))
def test_hypervolume_random_real_fronts(seed, n) -> None:
    F = np.random.default_rng(seed).random((n, 2))
    assert hypervolume_2d(F, (1.0, 1.0)) == pytest.approx(brute_force_area(F, np.ones(2)), rel=1e-12)


def test_hypervolume_by_hand_and_errors() -> None:
    assert hypervolume_2d([[0, 1], [1, 0]], (2, 2)) == 3.0
    assert hypervolume_2d(np.empty((0, 2)), (1, 1)) == 0.0
    with pytest.raises(ValueError, match="reference"):
        hypervolume_2d([[0, 0]], (np.inf, 1))


def test_front_hypervolume_scales_over_the_population() -> None:
    objectives = np.array([[0.0, 10.0], [10.0, 0.0], [5.0, 5.0], [10.0, 10.0], [1.0, np.inf]])
    front = np.array([True, True, False, False, True])
    # Scaled front (0, 1), (1, 0); reference (1.1, 1.1): 1.1*0.1 + 0.1*1.1 - 0.1*0.1 ... by sweep:
    expected = (1.0 - 0.0) * (1.1 - 1.0) + (1.1 - 1.0) * (1.1 - 0.0)
    assert front_hypervolume(objectives, front) == pytest.approx(expected)
    assert np.isnan(front_hypervolume(objectives, np.zeros(5, bool)))
