"""The explorer page's work grows linearly with the steps (counted, not timed), content unchanged."""
from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

from ercot_nb import ERCOT, TemporalDataset
from ercot_nb.page import page_data
from ercot_nb.result import ClusteringResult


@pytest.fixture(scope="module")
def block():
    """A fitted 12-step run of 3 samples per step, to be repeated into long runs."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(3, 2)) + [[0, 0], [5, 5], [0, 5]] for _ in range(12)]
    return X, ERCOT(seed=0, pop_size=12, n_evaluations=48).fit(TemporalDataset.from_arrays(X)).result_


def _long_run(block, n_steps: int) -> tuple[ClusteringResult, TemporalDataset]:
    X, run = block
    data = TemporalDataset.from_arrays([X[t % len(X)] for t in range(n_steps)])
    result = ClusteringResult(algorithm=run.algorithm, params=run.params)
    result.steps = [dataclasses.replace(run.steps[t % len(X)], t=t, time=data[t].time) for t in range(n_steps)]
    return result, data


def _calls(function, *args) -> int:
    """Python and C function calls made by ``function(*args)`` (a count of the work, not a time)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        function(*args)
    finally:
        sys.setprofile(None)
    return count


def test_page_data_work_grows_linearly_with_the_steps(block):
    small, large = (_calls(page_data, *_long_run(block, n)) for n in (24, 96))
    # 4x the steps: about 4x the calls (it was about 16x: every member partition rescanned every step)
    assert 3.0 < large / small < 4.6, (small, large)


def test_member_partition_with_free_label_scans_no_other_step(block):
    counts = []
    for n_steps in (24, 240):
        result, data = _long_run(block, n_steps)
        step = next(s for s in result if np.flatnonzero(s.first_front).size > 1)
        member = int(next(m for m in np.flatnonzero(step.first_front) if m != step.knee))
        args = (data[step.t].X, step.t, member)
        free = result.first_free_label()
        hinted = result.member_partition(*args, free_label=free)
        np.testing.assert_array_equal(hinted.aligned_labels, result.member_partition(*args).aligned_labels)
        counts.append(_calls(lambda: result.member_partition(*args, free_label=free)))
        with pytest.raises(ValueError, match="free_label=0 is a label step"):
            result.member_partition(*args, free_label=0)
    assert counts[0] == counts[1]  # the same work at 24 and 240 steps


def test_page_content_is_that_of_member_partitions_computed_without_shortcuts(block, monkeypatch):
    """The page's member partitions equal member_partition's own (which rescans every step)."""
    result, data = _long_run(block, 30)
    fast = page_data(result, data, max_members=3)
    original = ClusteringResult.member_partition
    partitioned = []

    def rescanning(self, X, t, member, *, free_label=None):
        partitioned.append((t, member))
        return original(self, X, t, member)  # no hint: the full scan of every step

    monkeypatch.setattr(ClusteringResult, "member_partition", rescanning)
    slow = page_data(result, data, max_members=3)
    assert partitioned and fast == slow
    xy = np.vstack([np.frombuffer(__import__("base64").b64decode(s["xy"]["b64"]), "<f4").reshape(-1, 2)
                    for s in fast["scatter"]["steps"]]
                   + [np.column_stack([e["knee_part"]["centroids"]["x"], e["knee_part"]["centroids"]["y"]])
                      for e in fast["steps"]])
    for axis, (low, high) in enumerate(fast["scatter"]["ranges2"]):
        assert low < xy[:, axis].min() and xy[:, axis].max() < high
