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


_PEAK = textwrap.dedent("""
    import json, sys, tracemalloc
    from ercot_nb.result import ClusteringResult
    out = {}
    for path in sys.argv[2:]:
        tracemalloc.start()
        try:
            ClusteringResult.load(path, max_bytes=int(sys.argv[1]))
            outcome = "loaded"
        except ValueError as exc:
            outcome = str(exc)
        out[path] = [tracemalloc.get_traced_memory()[1], outcome]
        tracemalloc.stop()
    print(json.dumps(out))
""")


def _peaks(max_bytes, *paths):
    """Peak traced memory of loading each file in a fresh process, and its outcome."""
    done = subprocess.run([sys.executable, "-c", _PEAK, str(max_bytes), *map(str, paths)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def _with_member(path, name, write, stem):
    """Copy the result file ``path`` to ``stem``.npz with member ``name`` written by ``write(handle)``."""
    out = path.with_name(f"{stem}.npz")
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename != name:
                target.writestr(info.filename, source.read(info))
        with target.open(name, "w", force_zip64=True) as handle:
            write(handle)
    return out


def test_loading_stays_within_max_bytes_and_refuses_lying_members_before_reading(tmp_path):
    mib = 1024**2
    path = _run([0, 1, 2], np.arange(6)).save(tmp_path / "r.npz")
    # a valid result holding a 40 MiB array of zeros: tiny on disk, large inflated
    big = _with_member(path, "0/centroids.npy",
                       lambda h: np.lib.format.write_array(h, np.zeros((5 * mib // 2, 2))), "big")
    assert big.stat().st_size < mib
    # a member whose header declares 2 GiB but holds 32 bytes, and one declaring 80 bytes but holding 8 MiB more
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    header["shape"] = (2**28,)
    liar = _with_member(path, "1/centroids.npy", lambda h: (np.lib.format.write_array_header_1_0(h, header),
                                                            h.write(np.zeros(4).tobytes())), "liar")
    padded = _with_member(path, "1/centroids.npy", lambda h: (np.lib.format.write_array(h, np.zeros((10, 2))),
                                                              h.write(bytes(8 * mib))), "padded")
    peaks = _peaks(48 * mib, big, liar, padded)
    peak, outcome = peaks[str(big)]
    assert outcome == "loaded"
    assert 40 * mib <= peak < 48 * mib  # the array once (it was read, then copied: 80 MiB)
    peak, outcome = peaks[str(liar)]
    assert re.search(r"liar\.npz'.*centroids\.npy' declares 2147483648 bytes of data .* but holds 32", outcome), outcome
    assert peak < 2 * mib
    peak, outcome = peaks[str(padded)]
    assert re.search(r"padded\.npz'.*centroids\.npy' declares 160 bytes of data .* but holds 8388768", outcome), outcome
    assert peak < 2 * mib
    # the same 40 MiB array over a smaller max_bytes is refused before anything is read
    peak, outcome = _peaks(32 * mib, big)[str(big)]
    assert "more than max_bytes=33554432" in outcome and peak < 2 * mib


def _with_header(path, text, stem):
    return _with_member(path, "__header__.npy", lambda h: np.lib.format.write_array(h, np.array(text)), stem)


@pytest.mark.parametrize("text", [
    "[" * 100_000, "{" * 100_000, '{"a": ' * 100_000, '{"steps": ' + "[{" * 50_000,
    '{"format_version": 2, "params": ' + '{"p": [' * 40 + "1" + "]}" * 40 + "}",
], ids=["lists", "braces", "objects", "mixed", "deep-but-valid"])
def test_a_deeply_nested_header_is_refused_naming_the_file(tmp_path, text):
    path = _with_header(_run([0, 1], np.arange(6)).save(tmp_path / "r.npz"), text, "deep")
    with pytest.raises(ValueError, match=r"deep\.npz'.*nests \d+ levels.*more than 32"):
        ClusteringResult.load(path)


def _mutations(header, rng):
    """Headers with one entry replaced by a value of another JSON type, removed, or cut short."""
    odd = [None, True, -1, 2**70, 1e400, "x", [], {}, [[1]], {"__type__": "tuple", "value": 5},
           {"__type__": "Timestamp", "value": [1]}, {"__type__": "nope"}, {"object": "json", "values": 3},
           {"object": "int"}, {"object": []}]
    paths = [[]]
    def walk(node, trail):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, value in items:
            paths.append(trail + [key])
            walk(value, trail + [key])
    walk(header, [])
    for trail in paths:
        if len(trail) > 3 or len(trail) > 1 and trail[0] == "params":  # params are free-form
            continue
        for value in range(len(odd)):
            mutated = json.loads(json.dumps(header))
            node = mutated
            for key in trail[:-1]:
                node = node[key]
            if trail:
                node[trail[-1]] = odd[value]
                yield json.dumps(mutated)
        if trail and isinstance(node, dict):
            del node[trail[-1]]
            yield json.dumps(mutated)
    text = json.dumps(header)
    for cut in rng.integers(0, len(text), size=20):
        yield text[:cut]


def test_malformed_headers_raise_a_value_error_naming_the_file(tmp_path):
    times = list(pd.date_range("2020-01-01", periods=2, freq="D"))
    path = _run(times, np.array(["a", "b", "c", "d", "e", "f"], dtype=object)).save(tmp_path / "r.npz")
    header = json.loads(str(np.load(path)["__header__"]))
    rng = np.random.default_rng(0)
    outcomes = {"loaded": 0, "refused": 0}
    loaded = []
    for i, text in enumerate(_mutations(header, rng)):
        bad = _with_header(path, text, "bad")
        try:
            ClusteringResult.load(bad)
            outcomes["loaded"] += 1  # a change that still makes a consistent result (params)
            loaded.append(text)
        except ValueError as exc:
            assert "bad.npz'" in str(exc) and "\n" not in str(exc), (text[:300], exc)
            outcomes["refused"] += 1
    assert outcomes["refused"] > 300, outcomes
    assert outcomes["loaded"] < 30, (outcomes, loaded)  # e.g. other numbers
