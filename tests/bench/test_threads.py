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
    from ercot_nb.bench.threads import PAIR_PART, PARTS, REST

    rows = thread_scaling(n_samples=300, threads=(1,), repeats=1)
    split = rows[0]["split"]
    assert list(split) == [label for label, *_ in PARTS] + [REST]
    assert sum(split.values()) == pytest.approx(1.0)
    assert all(0.0 <= share <= 1.0 for share in split.values())
    parallel = [label for label, _, _, runs_parallel in PARTS if runs_parallel]
    # one thread only: the pair kernel's parallel variant never ran, so its share is serial here
    assert rows[0]["parallel_parts"] == [label for label in parallel if label != PAIR_PART]
    assert rows[0]["p"] == pytest.approx(sum(split[label] for label in rows[0]["parallel_parts"]))
    assert split[PAIR_PART] > 0 and PAIR_PART in parallel and rows[0]["pair_blocks"] == 1
    assert split["smoothness weight, the rest (serial)"] > 0 and split["variation and selection (serial)"] > 0


def test_amdahl_and_the_serial_share_a_target_needs():
    from ercot_nb.bench.threads import amdahl, serial_share_for

    assert amdahl(1.0, 1) == pytest.approx(1.0)
    assert amdahl(0.9, 16) == pytest.approx(1 / (0.1 + 0.9 / (16 * 6.25 / 7)))  # 100 members: 7 rounds of 16
    # the pair kernel's share of p spread over its blocks: 27 blocks are 2 rounds of 16
    assert amdahl(0.9, 16, pair_share=0.1, pair_blocks=27) == pytest.approx(
        1 / (0.1 + 0.8 / (16 * 6.25 / 7) + 0.1 / (16 * (27 / 16) / 2)))
    assert amdahl(0.9, 16, pair_share=0.1, pair_blocks=27) < amdahl(0.9, 16)
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


def test_the_pair_kernel_counts_as_parallel_where_its_parallel_variant_ran(monkeypatch):
    """Large work (forced here: PARALLEL_WORK = 0) on 2 threads runs the pair kernel's parallel
    variant: its one-thread share then counts in p; the kernels are restored afterwards."""
    from ercot_nb.bench.threads import PAIR_PART
    from ercot_nb.kernels import get_backend

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    kernels = get_backend("numba")
    pair_kernels = (kernels.smoothness_pair_alphas, kernels.smoothness_pair_alphas_parallel)
    monkeypatch.setattr(Engine, "PARALLEL_WORK", 0)
    rows = thread_scaling(n_samples=300, threads=(1, 2), repeats=1)
    assert PAIR_PART in rows[0]["parallel_parts"]
    assert rows[0]["p"] == pytest.approx(sum(rows[0]["split"][label] for label in rows[0]["parallel_parts"]))
    assert (kernels.smoothness_pair_alphas, kernels.smoothness_pair_alphas_parallel) == pair_kernels


def test_the_script_times_a_built_in_dataset_or_seven_blobs():
    """``python -m ercot_nb.bench.threads video_rc`` (the issue's data) or a number of samples."""
    from ercot_nb.bench.threads import data_of

    label, data = data_of("syn1")
    assert label == "syn1 200 x 2" and len(data) == 3
    label, data = data_of("300")
    assert label == "seven blobs 300 x 3" and data[0].X.shape == (300, 3)
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        data_of("nope")
