"""The explorer page's work grows linearly with the steps (counted, not timed), content unchanged."""
from __future__ import annotations

import base64
import json
import sys

import numpy as np
import pytest

from ercot_nb.bench.speed import long_run
from ercot_nb.page import page_data, read_table
from ercot_nb.result import ClusteringResult


def _long_run(n_steps: int):
    return long_run(n_steps)  # ERCOT on 12 steps of 3 samples, repeated to n_steps


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


@pytest.mark.slow
def test_page_data_work_grows_linearly_with_the_steps():
    page_data(*_long_run(4))  # one-time costs (imports, caches) out of the count: first in its process, the ratio was 2.7
    small, large = (_calls(page_data, *_long_run(n)) for n in (24, 96))
    # 4x the steps: about 4x the calls (it was about 16x: every member partition rescanned every step)
    assert 3.0 < large / small < 4.6, (small, large)


def test_member_partition_with_free_label_scans_no_other_step():
    counts = []
    for n_steps in (24, 240):
        result, data = _long_run(n_steps)
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


def test_page_content_is_that_of_member_partitions_computed_without_shortcuts(monkeypatch):
    """The page's member partitions equal member_partition's own (which rescans every step)."""
    result, data = _long_run(30)
    fast = page_data(result, data, max_members=3)
    original = ClusteringResult.member_partition
    partitioned = []

    def rescanning(self, X, t, member, *, free_label=None):
        partitioned.append((t, member))
        return original(self, X, t, member)  # no hint: the full scan of every step

    monkeypatch.setattr(ClusteringResult, "member_partition", rescanning)
    slow = page_data(result, data, max_members=3)
    assert partitioned and fast == slow
    partition = next(v for v in fast["views"] if v["key"] == "partition")
    xy = np.vstack([np.column_stack([_floats(tr["x"]), _floats(tr["y"])])
                    for step in read_table(partition["steps"]) for tr in step["data"] if "x" in tr])
    layout = read_table(partition["base"])[0]["layout"]
    for axis, (low, high) in enumerate((layout["xaxis"]["range"], layout["yaxis"]["range"])):
        assert low < xy[:, axis].min() and xy[:, axis].max() < high


def _floats(values) -> np.ndarray:
    if isinstance(values, np.ndarray):  # a typed array of a table
        return values.astype(float)
    if isinstance(values, dict):  # a plotly.js typed array
        return np.frombuffer(base64.b64decode(values["bdata"]), np.dtype(values["dtype"]).newbyteorder("<"))
    return np.asarray(values, dtype=float)


@pytest.mark.parametrize("seed", range(6))
def test_labels_of_members_equals_labels_of_member_row_by_row(seed):
    """The vectorised labels are the one-member ones: ties, inactive and all-inactive members included."""
    rng = np.random.default_rng(seed)
    result, data = _long_run(2)
    step = result[1]
    n_max, d = 5, 2
    population = np.empty((40, n_max * (1 + d)))
    population[:, :n_max] = rng.random((40, n_max))
    population[:, n_max:] = rng.integers(-1, 2, (40, n_max * d)).astype(float)  # many exact ties
    population[0, :n_max] = 0.1  # no active centroid
    population[1, n_max:] = np.inf  # no finite distance
    population[2, :n_max] = 0.5  # exactly on the threshold: active
    step.population, step.n_max = population, n_max
    X = rng.integers(-2, 3, (7, d)).astype(float)
    members = rng.permutation(40)
    rows = result.labels_of_members(X, 1, members)
    for row, member in zip(rows, members):
        np.testing.assert_array_equal(row, result.labels_of_member(X, 1, int(member)), err_msg=str(member))


@pytest.mark.slow
def test_the_speed_bench_times_page_data_of_a_long_run():
    from ercot_nb.bench.speed import page_data_seconds

    timing = page_data_seconds(30)
    assert set(timing) == {"wall", "cpu", "json_bytes", "gzip_bytes"} and all(v > 0 for v in timing.values())
    assert timing["gzip_bytes"] < timing["json_bytes"]


def test_page_data_builds_plotly_traces_for_the_bases_only(monkeypatch):
    """Steps and members travel as plain dicts: no plotly trace object is made per step or member
    (making and copying them back out cost most of a long run's page)."""
    from plotly.basedatatypes import BaseTraceType

    made = []
    original = BaseTraceType.__init__

    def counting(self, *args, **kwargs):
        made.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(BaseTraceType, "__init__", counting)
    counts = []
    for n_steps in (24, 96):
        result, data = _long_run(n_steps)
        made.clear()
        page = page_data(result, data)
        assert page["n_steps"] == n_steps
        counts.append(len(made))
    assert counts[0] == counts[1], counts  # the views' bases only, whatever the number of steps


def test_a_long_runs_page_data_is_small():
    """What repeats from step to step is stored once (the page's data by columns): a 200-step run's
    data stays under 0.4 MB of JSON (0.31 MB; it was 1.7 MB as a list of changes, one per step)."""
    from ercot_nb.page._page import _json_for_script

    result, data = _long_run(200)
    size = len(_json_for_script(page_data(result, data)).encode())
    assert size < 400_000, size


@pytest.mark.parametrize("seed", range(4))
def test_a_table_gives_back_its_values(seed):
    """read_table(table(values)) == values for values of every kind a change holds."""
    from ercot_nb.page._table import Typed, finish, table

    rng = np.random.default_rng(seed)

    def typed(n, dtype="f4"):
        return Typed(dtype, rng.normal(size=n).astype("<" + dtype).tobytes())

    def value(t):
        return {
            "data": [{"name": f"cluster {k}", "x": typed(int(rng.integers(0, 4))), "inherit": True,
                      **({"marker": {"color": ["#1F77B4", None][k % 2], "size": [7, 7.5][t % 2]}} if k % 2 else {})}
                     for k in range(int(rng.integers(0, 4)))],
            "layout": {"title": {"text": f"step {t} at time {t * 10}.5 (0{t} x)"}},
            "note": f"{t} of {t + 1} <b>-{t}</b>" if t % 2 else f"none at {t}",  # numbers per string vary
            "traces": {"current step": {"x": [t], "y": [None if t % 3 else float(rng.normal())],
                                        "showlegend": bool(t % 2), "index": typed(t % 3, "u1")}},
            **({"member": int(rng.integers(-5, 5))} if t % 2 else {}),
            "same": [1.0, "a", None],
            "big": [2**40 + t, 1e300 * (t % 2)],
            "mixed": [t, "text", [t]] if t % 2 else [],
        }

    values = [value(t) for t in range(int(rng.integers(1, 30)))]
    back = json.loads(json.dumps(_plain_arrays(read_table(json.loads(json.dumps(table(values)))))))
    expected = _plain_arrays(_decoded(json.loads(json.dumps(finish(values)))))
    _assert_close(back, expected)


def _assert_close(shown, expected, path="") -> None:
    """Equal JSON, numbers to float32 precision (as the page stores floats)."""
    if isinstance(expected, dict):
        assert isinstance(shown, dict) and sorted(shown) == sorted(expected), (path, shown, expected)
        for key in expected:
            _assert_close(shown[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(shown, list) and len(shown) == len(expected), (path, shown, expected)
        for i, (a, b) in enumerate(zip(shown, expected)):
            _assert_close(a, b, f"{path}[{i}]")
    elif isinstance(expected, (int, float)) and not isinstance(expected, bool):  # JavaScript has one number type
        assert type(shown) in (int, float) and abs(shown - expected) <= 1e-6 * max(1.0, abs(expected)), (
            path, shown, expected)
    else:
        assert type(shown) is type(expected) and shown == expected, (path, shown, expected)


def _decoded(value):
    if isinstance(value, dict) and isinstance(value.get("bdata"), str):
        return _floats(value)
    if isinstance(value, dict):
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def _plain_arrays(value):
    if isinstance(value, np.ndarray):
        return [float(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {k: _plain_arrays(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_arrays(v) for v in value]
    return value
