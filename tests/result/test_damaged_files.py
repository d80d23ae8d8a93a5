"""Damaged result files: checked before they are trusted (issue 35).

A seeded fuzz over byte-level mutations of a saved result, and array-level
ones (wrong dtype, shape, range) re-saved as valid ``.npz`` files: every file
either loads into a result whose tables and page data work, or is refused
with a one-line ``ValueError`` naming the file.  Bounded in time.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import signal
import time
import zipfile

import numpy as np
import pytest

from ercot_nb import StaticEC, TemporalDataset
from ercot_nb.result import ClusteringResult

BYTE_MUTATIONS = 3000
BYTE_SECONDS = 15.0  # the byte fuzz stops here even if not all mutations ran
ARRAY_SECONDS = 15.0


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    rng = np.random.default_rng(0)
    data = TemporalDataset.from_arrays([rng.random((8, 2)) for _ in range(2)], ids=[np.arange(8)] * 2,
                                       times=[10, 11])
    result = StaticEC(pop_size=6, n_evaluations=12, seed=0).fit(data).result_
    path = result.save(tmp_path_factory.mktemp("saved") / "r.npz")
    return path, data


@pytest.fixture(scope="module")
def saved_one_step(tmp_path_factory):
    """A one-step result: half the members of ``saved``, so the byte fuzz gets through more files."""
    rng = np.random.default_rng(1)
    data = TemporalDataset.from_arrays([rng.random((8, 2))], ids=[np.arange(8)], times=[10])
    result = StaticEC(pop_size=6, n_evaluations=12, seed=0).fit(data).result_
    path = result.save(tmp_path_factory.mktemp("saved") / "r.npz")
    return path, data


def use(result: ClusteringResult, data) -> None:
    """What a user does next with a loaded result (each must work on a file that loaded)."""
    from ercot_nb.page import page_data

    result.steps_frame()
    result.fronts_frame()
    result.to_frame()
    result.events()
    page_data(result, data)


@contextlib.contextmanager
def at_most(seconds: float):
    """Raise TimeoutError in this (main) thread after ``seconds``: a hang is a finding, not a stuck test."""
    def expired(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def outcome(path, data, used: set | None = None) -> str | None:
    """None when the file is handled well, otherwise what went wrong (a hang of 10 s included).

    ``used``: fingerprints of results already used (a mutation of bytes that do not matter, such as
    a zip timestamp, loads the same result: it is not used again).
    """
    with at_most(10.0):
        return _outcome(path, data, set() if used is None else used)


def fingerprint(result: ClusteringResult) -> bytes:
    parts = [repr((result.algorithm, result.params, result._next_label)).encode()]
    for step in result.steps:
        for field in dataclasses.fields(step):
            value = getattr(step, field.name)
            parts.append(repr((field.name, getattr(value, "dtype", None), getattr(value, "shape", None),
                               value.tolist() if isinstance(value, np.ndarray) else value)).encode())
    return hashlib.sha256(b"|".join(parts)).digest()


def _outcome(path, data, used: set) -> str | None:
    try:
        result = ClusteringResult.load(path)
    except ValueError as exc:
        message = str(exc)
        if str(path) not in message or "\n" in message:
            return f"ValueError not naming the file on one line: {message[:200]}"
        return None
    except Exception as exc:  # noqa: BLE001 - what the test looks for
        return f"load: {type(exc).__name__}: {str(exc)[:200]}"
    key = fingerprint(result)
    if key in used:
        return None
    used.add(key)
    try:
        use(result, data)
    except ValueError as exc:  # e.g. "the result's sample ids differ from the dataset's": one line is fine
        if "\n" in str(exc):
            return f"loaded, then a ValueError of several lines: {str(exc)[:200]}"
    except Exception as exc:  # noqa: BLE001
        return f"loaded, then {type(exc).__name__}: {str(exc)[:200]}"
    return None


def mutate(raw: bytes, rng: np.random.Generator) -> bytes:
    data = bytearray(raw)
    kind = rng.integers(6)
    at = int(rng.integers(len(data)))
    if kind == 0:  # flip a bit
        data[at] ^= 1 << int(rng.integers(8))
    elif kind == 1:  # a random byte
        data[at] = int(rng.integers(256))
    elif kind == 2:  # a run of random bytes
        run = rng.integers(256, size=int(rng.integers(1, 32)), dtype=np.uint8).tobytes()
        data[at:at + len(run)] = run
    elif kind == 3:  # truncated
        del data[at:]
    elif kind == 4:  # bytes removed
        del data[at:at + int(rng.integers(1, 64))]
    else:  # bytes inserted
        data[at:at] = rng.integers(256, size=int(rng.integers(1, 64)), dtype=np.uint8).tobytes()
    return bytes(data)


def test_byte_mutations_load_or_are_refused_naming_the_file(saved_one_step, tmp_path):
    path, data = saved_one_step
    raw = path.read_bytes()
    rng = np.random.default_rng(35)
    target = tmp_path / "mutated.npz"
    problems: dict[str, int] = {}
    started, done = time.perf_counter(), 0
    seen: set[bytes] = set()
    used: set[bytes] = set()
    while done < BYTE_MUTATIONS and time.perf_counter() - started < BYTE_SECONDS:
        mutated = mutate(raw, rng)
        done += 1
        if mutated in seen:
            continue
        seen.add(mutated)
        target.write_bytes(mutated)
        problem = outcome(target, data, used)
        if problem is not None:
            key = problem.split(":")[0] + ":" + problem.split(":")[1][:40] if ":" in problem else problem
            problems[key] = problems.get(key, 0) + 1
    print(f"{done} byte mutations ({len(seen)} distinct, {len(used)} distinct results loaded) in "
          f"{time.perf_counter() - started:.1f} s, problems: {problems}")
    assert done >= 300
    assert problems == {}


def _arrays(path) -> dict[str, np.ndarray]:
    with np.load(path) as stored:
        return {name: stored[name] for name in stored.files}


ARRAY_CHANGES = {
    "float": lambda a: a.astype(float) + 0.5,
    "str": lambda a: a.astype(str),
    "bool": lambda a: a.astype(bool),
    "int8": lambda a: a.astype(np.int8),
    "complex": lambda a: a.astype(complex),
    "2**62": lambda a: np.full(a.shape, 2**62, dtype=np.int64),
    "-1": lambda a: np.full(a.shape, -1, dtype=a.dtype if a.dtype.kind in "iuf" else np.int64),
    "nan": lambda a: np.full(a.shape, np.nan),
    "inf": lambda a: np.full(a.shape, np.inf),
    "2-D": lambda a: a.reshape(1, *a.shape),
    "shorter": lambda a: a[:-1] if a.ndim else a,
    "empty": lambda a: a[:0] if a.ndim else a.reshape(1)[:0],
    "scalar": lambda a: a.ravel()[0] if a.size else np.int64(0),
    "datetime": lambda a: np.zeros(a.shape, dtype="datetime64[ns]"),
}


def test_array_mutations_load_or_are_refused_naming_the_file(saved, tmp_path):
    path, data = saved
    arrays = _arrays(path)
    names = sorted(name for name in arrays if name != "__header__")
    target = tmp_path / "changed.npz"
    problems = []
    started, done = time.perf_counter(), 0
    cases = [(name, change) for name in names for change in ARRAY_CHANGES]
    order = np.random.default_rng(35).permutation(len(cases))  # a spread of cases if time runs out
    used: set[bytes] = set()
    for name, change in (cases[i] for i in order):
        how = ARRAY_CHANGES[change]
        if time.perf_counter() - started > ARRAY_SECONDS:
            break
        try:
            changed = np.asarray(how(arrays[name]))
        except (ValueError, TypeError):
            continue
        np.savez_compressed(target, **{**arrays, name: changed})
        problem = outcome(target, data, used)
        done += 1
        if problem is not None:
            problems.append(f"{name} {change}: {problem}")
    print(f"{done} of {len(cases)} array mutations in {time.perf_counter() - started:.1f} s")
    assert done >= 50
    assert problems == []


@pytest.mark.parametrize("name, value, expected", [
    ("0/population_n_clusters", 2**62, "population_n_clusters"),
    ("0/population_n_clusters", -3, "population_n_clusters"),
    ("1/population_n_active", 2**40, "population_n_active"),
    ("0/aligned_labels", 2**62 + 1, "aligned_labels"),
])
def test_counts_out_of_range_are_refused_at_load(saved, tmp_path, name, value, expected):
    """A cluster count larger than the samples (2**62 made to_html run for ever) is refused at load."""
    path, _ = saved
    arrays = _arrays(path)
    arrays[name] = arrays[name].copy()
    arrays[name][0] = value
    target = tmp_path / "big.npz"
    np.savez_compressed(target, **arrays)
    with pytest.raises(ValueError, match=expected) as caught:
        ClusteringResult.load(target)
    assert str(target) in str(caught.value)


@pytest.mark.parametrize("name, change", [
    ("0/first_front", lambda a: a.astype(float)),
    ("0/population_n_clusters", lambda a: a.astype(str)),
    ("1/objectives", lambda a: a.astype(str)),
    ("0/centroids", lambda a: a.astype(complex)),
])
def test_arrays_of_the_wrong_type_are_refused_at_load(saved, tmp_path, name, change):
    path, _ = saved
    arrays = _arrays(path)
    arrays[name] = change(arrays[name])
    target = tmp_path / "typed.npz"
    np.savez_compressed(target, **arrays)
    with pytest.raises(ValueError, match=name.split("/")[1]) as caught:
        ClusteringResult.load(target)
    assert str(target) in str(caught.value)


@pytest.mark.parametrize("field, value", [(6, 99), (10, 99)])  # version needed to extract; compression method
def test_an_unsupported_zip_feature_names_the_file(saved, tmp_path, field, value):
    """A member whose directory entry asks for a newer zip version or an unknown compression
    (``NotImplementedError: zip file version`` before)."""
    path, _ = saved
    raw = bytearray(path.read_bytes())
    entry = raw.index(b"PK\x01\x02")  # the first central directory entry
    raw[entry + field: entry + field + 2] = value.to_bytes(2, "little")
    target = tmp_path / "feature.npz"
    target.write_bytes(bytes(raw))
    with pytest.raises(ValueError) as caught:
        ClusteringResult.load(target)
    print(caught.value)
    assert str(target) in str(caught.value) and "\n" not in str(caught.value)


def test_a_result_of_data_with_float_ids_loads(tmp_path):
    """The data takes float ids (a CSV's id column read as floats): their result loads back
    (the checks refused float64 ids; Hypothesis found it in CI)."""
    rng = np.random.default_rng(0)
    data = TemporalDataset.from_arrays([rng.normal(size=(6, 2)) for _ in range(2)],
                                       ids=[np.arange(6, dtype=float) + 0.5 for _ in range(2)])
    result = StaticEC(seed=0, pop_size=8, n_evaluations=16, progress=False).fit(data).result_
    path = result.save(tmp_path / "run.npz")
    loaded = ClusteringResult.load(path)
    np.testing.assert_array_equal(loaded[0].ids, result[0].ids)
