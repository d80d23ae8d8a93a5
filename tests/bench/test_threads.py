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


def test_thread_scaling_states_the_split_of_a_step():
    """One thread's step by part, the parallel share p among them: the serial rest caps the scaling."""
    from ercot_nb.bench.threads import PARTS, REST

    rows = thread_scaling(n_samples=300, threads=(1,), repeats=1)
    split = rows[0]["split"]
    assert list(split) == [label for label, *_ in PARTS] + [REST]
    assert sum(split.values()) == pytest.approx(1.0)
    assert all(0.0 <= share <= 1.0 for share in split.values())
    parallel = [label for label, _, _, runs_parallel in PARTS if runs_parallel]
    assert rows[0]["p"] == pytest.approx(sum(split[label] for label in parallel))
    assert split["smoothness weight's kernel over matched pairs (serial)"] > 0
    assert split["smoothness weight, the rest (serial)"] > 0 and split["variation and selection (serial)"] > 0


def test_amdahl_and_the_serial_share_a_target_needs():
    from ercot_nb.bench.threads import amdahl, serial_share_for

    assert amdahl(1.0, 1) == pytest.approx(1.0)
    assert amdahl(0.9, 16) == pytest.approx(1 / (0.1 + 0.9 / (16 * 6.25 / 7)))  # 100 members: 7 rounds of 16
    share = serial_share_for(10.0, 16)
    assert amdahl(1 - share, 16) == pytest.approx(10.0)
    assert 0.02 < share < 0.05


def test_a_timed_call_inside_another_counts_in_its_own_part_only():
    """The smoothness weight calls the engine's assign (a population kernel) and its pair kernel:
    each second of a step is counted in one part (the old split counted the assign twice)."""
    import time

    from ercot_nb.bench.threads import _timed

    outer_spent, inner_spent, nested = [], [], []
    inner = _timed(lambda: time.sleep(0.05), inner_spent, nested)

    def outer_body():
        time.sleep(0.02)
        inner()

    outer = _timed(outer_body, outer_spent, nested)
    outer()
    assert inner_spent[0] == pytest.approx(0.05, abs=0.02)
    assert outer_spent[0] == pytest.approx(0.02, abs=0.015)  # its own time, without the inner call's
    assert nested == []
