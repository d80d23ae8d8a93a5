"""Loading result files: earlier formats, memory within max_bytes, malformed headers (issue 22)."""
from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pandas as pd
import pytest

from ercot_nb import StaticEC, TemporalDataset
from ercot_nb.result import ClusteringResult

SMALL = dict(pop_size=10, n_evaluations=40, seed=0)


def _run(times, ids, n=6, seed=0):
    rng = np.random.default_rng(seed)
    data = TemporalDataset.from_arrays([rng.random((n, 2)) for _ in times], ids=[ids] * len(times), times=times)
    return StaticEC(**SMALL).fit(data).result_


def _write_format_1(result, path):
    """``path`` as ClusteringResult.save wrote it in format 1 (before typed time labels and ids).

    Scalars went through ``_jsonable`` (``repr`` of anything not a plain
    number, string or sequence), object arrays through ``astype(str)``.
    """
    def jsonable(value):
        if isinstance(value, (np.integer,)):
            return int(value)
        if isinstance(value, (np.floating,)):
            return float(value)
        if isinstance(value, (np.bool_,)):
            return bool(value)
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        if isinstance(value, (list, tuple)):
            return [jsonable(v) for v in value]
        return repr(value)

    arrays, scalars = {}, []
    for s in result.steps:
        meta = {}
        for name in s.__dataclass_fields__:
            value = getattr(s, name)
            if isinstance(value, np.ndarray):
                if value.dtype == object:
                    value = value.astype(str)
                    meta[f"{name}__was_object"] = True
                arrays[f"{s.t}/{name}"] = value
            else:
                meta[name] = jsonable(value)
        scalars.append(meta)
    header = {"format_version": 1, "algorithm": result.algorithm,
              "params": {k: jsonable(v) for k, v in result.params.items()},
              "next_label": result._next_label, "steps": scalars}
    arrays["__header__"] = np.array(json.dumps(header))
    np.savez_compressed(path, **arrays)
    return path


FORMAT_1_TIMES = {
    "Timestamp": list(pd.date_range("2020-01-01", periods=3, freq="D")),
    "Timestamp-tz": list(pd.date_range("2021-03-27", periods=3, freq="D", tz="Europe/Paris")),
    "Timestamp-ns": [pd.Timestamp("2020-01-01 10:11:12.123456789") + pd.Timedelta(hours=h) for h in range(3)],
    "datetime64": list(np.arange("2020-01", 3, dtype="datetime64[M]")),
    "datetime64-s": list(np.arange("2020-01-01T00:00:00", 3, dtype="datetime64[s]")),
    "date": [dt.date(2020, 1, 1) + dt.timedelta(days=i) for i in range(3)],
    "datetime": [dt.datetime(2020, 1, 1, 5, 6, 7, 890) + dt.timedelta(days=i) for i in range(3)],
    "Timedelta": [pd.Timedelta(hours=h) for h in range(3)],
    "int": [3, 4, 5],
    "str": ["a", "Timestamp", "t2"],
}
FORMAT_1_IDS = {
    "object-int": np.array([10, 11, 12, 13, 14, -15], dtype=object),
    "object-str": np.array(["a", "b", "c", "d", "e", "f"], dtype=object),
    "object-str-digits": np.array(["1", "b", "3", "d", "007", "f"], dtype=object),
    "int": np.arange(6) + 100,
}


@pytest.mark.parametrize("time_kind", sorted(FORMAT_1_TIMES))
@pytest.mark.parametrize("id_kind", sorted(FORMAT_1_IDS))
def test_a_format_1_file_loads_with_typed_times_and_ids(tmp_path, time_kind, id_kind):
    result = _run(FORMAT_1_TIMES[time_kind], FORMAT_1_IDS[id_kind])
    loaded = ClusteringResult.load(_write_format_1(result, tmp_path / "old.npz"))
    assert [type(t) for t in loaded.times] == [type(t) for t in result.times]
    assert loaded.times == result.times
    for before, after in zip(result, loaded):
        assert after.ids.dtype == before.ids.dtype
        assert [type(v) for v in after.ids.tolist()] == [type(v) for v in before.ids.tolist()]
        np.testing.assert_array_equal(after.ids, before.ids)
        np.testing.assert_array_equal(after.labels, before.labels)
    pd.testing.assert_frame_equal(loaded.to_frame(), result.to_frame())


def test_a_format_1_time_that_cannot_be_read_back_is_refused_naming_the_version(tmp_path):
    result = _run([0, 1], np.arange(6))
    result.steps[1].time = pd.Period("2020-01", "M")  # format 1 wrote "Period('2020-01', 'M')"
    path = _write_format_1(result, tmp_path / "odd.npz")
    with pytest.raises(ValueError, match=r"odd\.npz'.*format 1, step 1, time: \"Period\('2020-01', 'M'\)\""):
        ClusteringResult.load(path)


@pytest.mark.parametrize("version", [0, 3, "2", None, True, [2]])
def test_other_format_versions_are_refused_naming_the_version(tmp_path, version):
    path = _run([0, 1], np.arange(6)).save(tmp_path / "r.npz")
    arrays = dict(np.load(path))
    header = json.loads(str(arrays["__header__"]))
    header["format_version"] = version
    arrays["__header__"] = np.array(json.dumps(header))
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=rf"r\.npz'.*format version {re.escape(repr(version))} .*1 and 2"):
        ClusteringResult.load(path)
