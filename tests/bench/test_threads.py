"""The thread-scaling script runs and reports the measured and the expected speed-up."""
from __future__ import annotations

import numba
import pytest

from ercot_nb.evolution._engine import Engine
from ercot_nb.bench.threads import thread_scaling


def test_thread_scaling_rows():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    free_cores = Engine.__dict__["free_cores"]
    rows = thread_scaling(n_samples=300, threads=(1, 2, 64), repeats=1)
    assert [row["threads"] for row in rows] == [1, 2]  # more than numba has: left out
    assert rows[0]["speed_up"] == pytest.approx(1.0) and rows[0]["expected"] == pytest.approx(1.0)
    assert 0.0 < rows[0]["p"] < 1.0
    assert all(row["s_per_step"] > 0 for row in rows)
    assert Engine.__dict__["free_cores"] is free_cores  # the busy-machine rule is restored
