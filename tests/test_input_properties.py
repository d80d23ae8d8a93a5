"""Issue 12 properties: units, row order and id names do not change a clustering; results
and fitted estimators survive save/load and pickling with every field and type."""
from __future__ import annotations

import datetime as dt
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ercot_nb import algorithms
from ercot_nb.data import TemporalDataset
from ercot_nb.result import ClusteringResult, StepResult

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _make(name: str, k: int | None, seed: int):
    fast = algorithms.get(name)._unit_test_params()
    if name != "k-meansCOT":  # k-meansCOT needs k: its fast parameters give 3
        fast["n_clusters"] = k
    return algorithms.make(name, **{**fast, "seed": seed})


@st.composite
def blob_datasets(draw, fixed_ids: bool = True):
    """2-4 steps of 3 well-separated blobs (a clear structure), same ids at every step."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_features = draw(st.integers(1, 3))
    per_blob = draw(st.integers(3, 12))
    n_steps = draw(st.integers(2, 4))
    centres = rng.normal(0.0, 1.0, (3, n_features))
    centres[:, 0] = [0.0, 20.0, 40.0]
    X = [np.repeat(centres, per_blob, axis=0) + rng.normal(0.0, 1.0, (3 * per_blob, n_features))
         for _ in range(n_steps)]
    return TemporalDataset.from_arrays(X)


def _partition_by_id(ids, labels) -> frozenset:
    groups: dict[int, list] = {}
    for i, label in zip(ids.tolist(), labels.tolist()):
        groups.setdefault(label, []).append(i)
    return frozenset(frozenset(g) for g in groups.values())


@pytest.mark.parametrize("name", algorithms.available())
@settings(max_examples=12, **SETTINGS)
@given(data=blob_datasets(), exponent=st.integers(-30, 30), known_k=st.booleans())
def test_labels_do_not_depend_on_the_unit(name, data, exponent, known_k):
    """x 2**k on every feature, k in [-30, 30] (about x1e-9 .. x1e9): identical labels."""
    factor = 2.0**exponent
    scaled = TemporalDataset.from_arrays([s.X * factor for s in data])
    a = _make(name, 3 if known_k else None, 0).fit(data)
    b = _make(name, 3 if known_k else None, 0).fit(scaled)
    assert a.n_clusters_.tolist() == b.n_clusters_.tolist()
    for x, y in zip(a.labels_, b.labels_):
        np.testing.assert_array_equal(x, y)


# AFFECT is left out: its faithful kernel k-means starts from random rows by position, so
# another row order is another start (found by this property; reported, not hidden).
ORDER_FREE = [name for name in algorithms.available() if name != "AFFECT"]


@pytest.mark.parametrize("name", ORDER_FREE)
@settings(max_examples=12, **SETTINGS)
@given(data=blob_datasets(), order_seed=st.integers(0, 2**32 - 1))
def test_partitions_do_not_depend_on_the_row_order(name, data, order_seed):
    """Shuffling the rows of each step (ids move with them) gives the same partition by id."""
    rng = np.random.default_rng(order_seed)
    orders = [rng.permutation(s.n_samples) for s in data]
    shuffled = TemporalDataset.from_arrays([s.X[o] for s, o in zip(data, orders)],
                                           ids=[s.ids[o] for s, o in zip(data, orders)])
    a = _make(name, 3, 0).fit(data)
    b = _make(name, 3, 0).fit(shuffled)
    assert a.n_clusters_.tolist() == b.n_clusters_.tolist()
    for s, t, x, y in zip(data, shuffled, a.labels_, b.labels_):
        assert _partition_by_id(s.ids, x) == _partition_by_id(t.ids, y)


@pytest.mark.parametrize("name", algorithms.available())
@settings(max_examples=12, **SETTINGS)
@given(data=blob_datasets(), rename=st.sampled_from(["text", "shifted", "shuffled"]))
def test_labels_do_not_depend_on_the_id_names(name, data, rename):
    n = data[0].n_samples
    if rename == "text":
        new = np.array([f"sample-{i}" for i in range(n)], dtype=object)
    elif rename == "shifted":
        new = np.arange(n) * 7 + 10**12
    else:
        new = np.random.default_rng(n).permutation(10 * n)[:n]
    renamed = TemporalDataset.from_arrays([s.X for s in data], ids=[new[s.ids] for s in data])
    a = _make(name, None, 0).fit(data)
    b = _make(name, None, 0).fit(renamed)
    assert a.n_clusters_.tolist() == b.n_clusters_.tolist()
    for x, y in zip(a.labels_, b.labels_):
        np.testing.assert_array_equal(x, y)


_TIMES = {
    "int": lambda n: list(range(3, 3 + n)),
    "float": lambda n: [0.5 * i for i in range(n)],
    "str": lambda n: [f"t{i}" for i in range(n)],
    "Timestamp": lambda n: list(pd.date_range("2020-02-28", periods=n, freq="12h")),
    "Timestamp-tz": lambda n: list(pd.date_range("2021-03-27", periods=n, freq="D", tz="Europe/Paris")),
    "datetime64": lambda n: list(np.arange("2020-01", n, dtype="datetime64[M]")),
    "date": lambda n: [dt.date(2020, 1, 1) + dt.timedelta(days=i) for i in range(n)],
}
_IDS = {
    "int": lambda n: np.arange(n) + 5,
    "object-int": lambda n: np.array(list(range(100, 100 + n)), dtype=object),
    "str": lambda n: np.array([f"id{i}" for i in range(n)]),
    "object-str": lambda n: np.array([f"c{i}" for i in range(n)], dtype=object),
    "float": lambda n: np.arange(n) + 0.25,
}


@settings(max_examples=40, **SETTINGS)
@given(data=st.data(), time_kind=st.sampled_from(sorted(_TIMES)), id_kind=st.sampled_from(sorted(_IDS)),
       name=st.sampled_from(["staticEC", "ERCOT", "AFFECT"]))
def test_save_load_round_trips_every_field_with_its_type(tmp_path_factory, data, time_kind, id_kind, name):
    n_steps = data.draw(st.integers(1, 3))
    n = data.draw(st.integers(4, 15))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    ids = _IDS[id_kind](n)
    dataset = TemporalDataset.from_arrays([rng.normal(size=(n, 2)) for _ in range(n_steps)],
                                          ids=[ids] * n_steps, times=_TIMES[time_kind](n_steps))
    result = _make(name, None, 0).fit(dataset).result_
    path = result.save(tmp_path_factory.mktemp("r") / "result.npz")
    loaded = ClusteringResult.load(path)
    assert loaded.algorithm == result.algorithm and len(loaded) == len(result)
    for before, after in zip(result, loaded):
        for field in StepResult.__dataclass_fields__:
            x, y = getattr(before, field), getattr(after, field)
            if isinstance(x, np.ndarray):
                assert x.dtype == y.dtype and x.shape == y.shape, field
                assert [type(v) for v in x.ravel().tolist()] == [type(v) for v in y.ravel().tolist()], field
                np.testing.assert_array_equal(x, y, err_msg=field)
            else:
                assert type(x) is type(y), (field, x, y)
                assert x == y or (x != x and y != y), field
    pd.testing.assert_frame_equal(loaded.to_frame(), result.to_frame())


@pytest.mark.parametrize("name", algorithms.available())
@settings(max_examples=8, **SETTINGS)
@given(data=blob_datasets(), known_k=st.booleans())
def test_a_fitted_estimator_pickles_with_its_state(name, data, known_k):
    model = _make(name, 3 if known_k else None, 0).fit(data[:-1])
    restored = pickle.loads(pickle.dumps(model))
    assert restored.get_params().keys() == model.get_params().keys()
    for x, y in zip(model.labels_, restored.labels_):
        np.testing.assert_array_equal(x, y)
    model.partial_fit(data[-1])
    restored.partial_fit(data[-1])  # the restored one continues exactly like the original
    np.testing.assert_array_equal(model.labels_[-1], restored.labels_[-1])
