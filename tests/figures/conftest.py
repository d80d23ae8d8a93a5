"""Fitted runs shared by the figure tests (fitted once per session)."""
from __future__ import annotations

import pytest

from ercot_nb import ERCOT, datasets

FAST = dict(pop_size=20, n_evaluations=60)


@pytest.fixture(scope="session")
def syn3():
    data = datasets.load("syn3", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


@pytest.fixture(scope="session")
def syn5():
    """Samples are removed and inserted between steps."""
    data = datasets.load("syn5", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


@pytest.fixture(scope="session")
def syn2():
    """Four features: enough for a 3-D view."""
    data = datasets.load("syn2", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_
