"""Algorithm registry."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import algorithms
from ercot_nb.result import StepResult


def test_registry_lists_and_makes():
    names = algorithms.available()
    assert {"ERCOT", "staticEC"} <= set(names)
    model = algorithms.make("ercot", seed=3, pop_size=20)
    assert type(model).__name__ == "ERCOT" and model.pop_size == 20
    with pytest.raises(ValueError, match="available"):
        algorithms.make("no-such-algorithm")


def test_register_a_class():
    class Dummy:
        pass

    algorithms.register("dummy-test", Dummy)
    try:
        assert "dummy-test" in algorithms.available()
    finally:
        algorithms._REGISTRY.pop("dummy-test")


def test_step_result_from_partition():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]])
    step = StepResult.from_partition(0, "t0", np.array([5, 6, 7]), np.array([7, 7, 3]), X, 0.1)
    np.testing.assert_array_equal(step.labels, [1, 1, 0])
    np.testing.assert_allclose(step.centroids, [[10, 10], [1, 0]])
    assert step.n_clusters == 2 and np.isnan(step.alpha)
