"""Tests of the temporal data model (ercot_nb.data)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ercot_nb.data import Snapshot, TemporalDataset, common_ids


def _three_steps() -> TemporalDataset:
    """Ids coming and going: 3 leaves after step 0, 'new' 7 arrives at step 1."""
    X0 = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, 1.0], [3.0, 1.5]])
    X1 = np.array([[0.1, 0.0], [1.1, 0.5], [2.1, 1.0], [7.0, 7.0]])
    X2 = np.array([[7.1, 7.0], [0.2, 0.0], [1.2, 0.5]])
    return TemporalDataset.from_arrays(
        [X0, X1, X2],
        ids=[[0, 1, 2, 3], [0, 1, 2, 7], [7, 0, 1]],
        labels=[[0, 0, 1, 1], [0, 0, 1, 2], [2, 0, 0]],
        times=[10, 20, 30],
        feature_names=["a", "b"],
        name="three",
    )


# ---------------------------------------------------------------------------
# from_arrays and the stored arrays
# ---------------------------------------------------------------------------


def test_from_arrays_defaults_and_types():
    X = [np.arange(6, dtype=np.int32).reshape(3, 2), np.ones((4, 2))]
    ds = TemporalDataset.from_arrays(X)
    assert len(ds) == 2
    assert ds.times == [0, 1]
    assert ds.feature_names == ["x0", "x1"]
    assert ds.n_features == 2
    assert ds.has_labels is False
    np.testing.assert_array_equal(ds.n_samples_per_step, [3, 4])
    np.testing.assert_array_equal(ds[1].ids, [0, 1, 2, 3])
    assert ds[0].X.dtype == np.float64 and ds[0].X.flags.c_contiguous
    np.testing.assert_array_equal(ds[0].X, X[0])
    assert ds[0].n_samples == 3
    assert ds[-1] is ds[1]
    assert [s.time for s in ds] == [0, 1]


def test_arrays_are_read_only_copies():
    X = np.zeros((3, 2))
    ids = np.array([5, 6, 7])
    labels = np.array([0, 1, 1])
    ds = TemporalDataset.from_arrays([X], ids=[ids], labels=[labels])
    snapshot = ds[0]
    for array in (snapshot.X, snapshot.ids, snapshot.labels):
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1
    # the caller's arrays are neither frozen nor shared
    X[0, 0] = 99.0
    ids[0] = 99
    assert snapshot.X[0, 0] == 0.0 and snapshot.ids[0] == 5
    with pytest.raises(AttributeError):
        snapshot.X = np.ones((3, 2))  # frozen dataclass


def test_string_ids_and_labels_keep_meaning():
    ds = TemporalDataset.from_arrays(
        [np.zeros((3, 1)), np.ones((2, 1))],
        ids=[["a", "b", "c"], ["c", "a"]],
        labels=[["red", "blue", "red"], ["green", "red"]],
    )
    assert ds[0].ids.dtype.kind == "U"
    assert ds.label_names == ["blue", "green", "red"]
    np.testing.assert_array_equal(ds[0].labels, [2, 0, 2])
    np.testing.assert_array_equal(ds[1].labels, [1, 2])
    assert ds[0].labels.dtype == np.int64


def test_partial_labels():
    ds = TemporalDataset.from_arrays([np.zeros((2, 1)), np.ones((2, 1))], labels=[[0, 1], None])
    assert ds.has_labels is False
    assert ds[1].labels is None
    assert "labels=partial" in repr(ds)


GOOD = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"X_list": []}, "X_list is empty"),
        ({"X_list": [GOOD, np.zeros((3, 3))]}, r"time 1: X has 3 feature column\(s\) but 2"),
        ({"X_list": [GOOD, GOOD[:1]], "times": ["a", "b"]}, r"time 'b': has 1 sample"),
        (
            {"X_list": [GOOD, np.array([[0.0, np.nan], [1.0, np.inf], [2, -np.inf]])], "ids": [None, [7, 8, 9]]},
            r"time 1: non-finite .* column 'x1': 3 row\(s\), e\.g\. ids \[7, 8, 9\]",
        ),
        (
            {"X_list": [np.array([[np.nan, 0.0], [1.0, 1.0]])], "feature_names": ["speed", "size"]},
            r"time 0: non-finite .*column 'speed': 1 row\(s\), e\.g\. ids \[0\]",
        ),
        ({"X_list": [GOOD], "ids": [[4, 5, 4]]}, r"time 0: ids must be unique.*\[4\]"),
        ({"X_list": [GOOD], "ids": [["u", "v", "u"]]}, r"time .*occur more than once: \['u'\]"),
        ({"X_list": [GOOD, GOOD], "labels": [None, [0, 1]]}, r"time 1: labels has 2 entries but X has 3"),
        ({"X_list": [GOOD, GOOD], "ids": [None, [1, 2]]}, r"time 1: ids has 2 entries but X has 3"),
        ({"X_list": [GOOD], "ids": [[[1, 2, 3]]]}, r"time .*ids must be 1-D"),
        ({"X_list": [GOOD], "labels": [[[0, 1, 0]]]}, r"time .*labels must be 1-D"),
        ({"X_list": [GOOD], "labels": [[0.5, 1, 0]]}, r"time .*labels must be integers"),
        ({"X_list": [GOOD[0]]}, r"time 0: X must be a 2-D array"),
        ({"X_list": [np.zeros((2, 2, 2))]}, r"time .*got a 3-D array"),
        ({"X_list": [GOOD > 1]}, r"time .*X is boolean"),
        ({"X_list": [np.array([["1", "2"], ["3", "4"]])]}, r"time .*non-numeric dtype"),
        (
            {"X_list": [np.array([[1.0, "a"], [2.0, 3.0]], dtype=object)], "feature_names": ["p", "q"]},
            r"time .*feature column 'q' holds a non-numeric value 'a'",
        ),
        ({"X_list": [GOOD, GOOD], "times": [3, 3]}, r"time label 3 is used by two steps \(1 and 2 of 2, counting from 1\)"),
        ({"X_list": [GOOD, GOOD], "ids": [None]}, "ids has 1 entries but X_list has 2 steps"),
        ({"X_list": [GOOD, GOOD], "times": [1]}, "times has 1 entries"),
        ({"X_list": [GOOD], "feature_names": ["a", "a"]}, r"repeated: \['a'\]"),
        ({"X_list": [GOOD], "ids": [[1, None, 3]]}, r"time .*1 id\(s\) are missing"),
        ({"X_list": [GOOD, GOOD], "labels": [["a", "b", "a"], ["a", None, "b"]]}, r"time 1: 1 label\(s\) are missing"),
    ],
)
def test_from_arrays_rejects_bad_input(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        TemporalDataset.from_arrays(**kwargs)


def test_constructor_validates_snapshots():
    good = Snapshot(time="mon", ids=np.arange(3), X=GOOD)
    bad = Snapshot(time="tue", ids=np.array([0, 1, 2]), X=np.array([[0.0, 1.0], [np.nan, 1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match=r"time 'tue': non-finite .*ids \[1\]"):
        TemporalDataset([good, bad])
    with pytest.raises(ValueError, match="at least one time step"):
        TemporalDataset([])
    with pytest.raises(TypeError, match="step 0: expected a Snapshot"):
        TemporalDataset([GOOD])
    ds = TemporalDataset([good], feature_names=["u", "v"], name="direct", metadata={"k": 2})
    assert ds.feature_names == ["u", "v"] and ds.metadata == {"k": 2}


# ---------------------------------------------------------------------------
# Sequence protocol, repr
# ---------------------------------------------------------------------------


def test_slicing_keeps_per_step_metadata_aligned():
    ds = _three_steps()
    ds.metadata["per_step"] = ["s10", "s20", "s30"]
    ds.metadata["k"] = 3
    tail = ds[1:]
    assert isinstance(tail, TemporalDataset)
    assert tail.times == [20, 30]
    assert tail.metadata == {"per_step": ["s20", "s30"], "k": 3}
    assert tail[0] is ds[1]
    assert tail.name == "three"
    assert ds[::2].times == [10, 30]
    with pytest.raises(ValueError, match="selects no time step"):
        ds[5:]
    with pytest.raises(TypeError, match="int or slice"):
        ds["0"]
    with pytest.raises(IndexError):
        ds[3]


def test_repr_and_html():
    ds = _three_steps()
    assert repr(ds) == "TemporalDataset(name='three', steps=3, features=2, samples=3..4, labels=yes)"
    ds.name = "<b>x</b>"
    page = ds._repr_html_()
    assert page.startswith("<table>") and page.endswith("</table>")
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>" not in page
    assert "<script" not in page
    assert "3..4" in page and "a, b" in page


# ---------------------------------------------------------------------------
# Frames and CSV files
# ---------------------------------------------------------------------------


def test_to_frame_from_frame_round_trip():
    ds = _three_steps()
    df = ds.to_frame()
    assert list(df.columns) == ["time", "id", "a", "b", "label"]
    assert len(df) == 11
    back = TemporalDataset.from_frame(df, time="time", id="id", label="label", name="three")
    assert back.times == ds.times
    assert back.feature_names == ds.feature_names
    for s1, s2 in zip(ds, back):
        np.testing.assert_array_equal(s1.ids, s2.ids)
        np.testing.assert_array_equal(s1.X, s2.X)
        np.testing.assert_array_equal(s1.labels, s2.labels)
    pd.testing.assert_frame_equal(back.to_frame(), df)


def test_round_trip_with_string_ids_and_labels():
    ds = TemporalDataset.from_arrays(
        [np.eye(3), np.eye(3)[:2]],
        ids=[["x", "y", "z"], ["z", "x"]],
        labels=[["B", "A", "A"], ["A", "B"]],
        times=["2024-01", "2024-02"],
    )
    df = ds.to_frame()
    assert df["label"].tolist() == ["B", "A", "A", "A", "B"]
    back = TemporalDataset.from_frame(df, "time", "id", label="label")
    assert back.label_names == ["A", "B"]
    assert back[1].ids.tolist() == ["z", "x"]
    np.testing.assert_array_equal(back[1].labels, [0, 1])
    np.testing.assert_array_equal(back[1].X, np.eye(3)[:2])


def test_from_frame_orders_steps_and_selects_numeric_features():
    df = pd.DataFrame(
        {
            "year": [2001, 1999, 2001, 1999, 1999],
            "who": ["b", "a", "a", "c", "b"],
            "gdp": [3.0, 1.0, 2.0, 5.0, 4.0],
            "pop": [30, 10, 20, 50, 40],
            "continent": ["x", "x", "y", "y", "x"],  # text: skipped
            "flag": [True, False, True, True, False],  # bool: skipped
        }
    )
    ds = TemporalDataset.from_frame(df, time="year", id="who")
    assert ds.times == [1999, 2001]
    assert isinstance(ds.times[0], int)
    assert ds.feature_names == ["gdp", "pop"]
    # rows keep their order within a step
    assert ds[0].ids.tolist() == ["a", "c", "b"]
    np.testing.assert_array_equal(ds[0].X, [[1.0, 10.0], [5.0, 50.0], [4.0, 40.0]])
    assert ds[1].ids.tolist() == ["b", "a"]


def _frame(**overrides) -> pd.DataFrame:
    columns = {"t": [1, 1, 2, 2], "id": [1, 2, 1, 2], "f": [0.0, 1.0, 2.0, 3.0], "g": [1, 2, 3, 4]}
    columns.update(overrides)
    return pd.DataFrame(columns)


@pytest.mark.parametrize(
    ("df", "kwargs", "pattern"),
    [
        (_frame(), {"features": ["nope"]}, r"feature column 'nope' not found; available columns: \['t', 'id', 'f', 'g'\]"),
        (_frame(), {"label": "lab"}, r"label column 'lab' not found; available columns"),
        (_frame().iloc[:0], {}, "the frame is empty"),
        (_frame(f=["a", "b", "c", "d"]), {"features": ["f", "g"]}, r"feature column 'f' is not numeric .*'a' at time=1, id=1"),
        (_frame(f=["0.5", "1", "oops", "3"]), {"features": ["f"]}, r"feature column 'f' is not numeric .*'oops' at time=2, id=1"),
        (_frame(f=[True, False, True, True]), {"features": ["f"]}, r"feature column 'f' is not numeric \(dtype bool\)"),
        (_frame(f=[0.0, np.nan, 2.0, np.inf]), {}, r"time 1: non-finite .*column 'f': 1 row\(s\), e\.g\. ids \[2\]"),
        (_frame(id=[1, 1, 1, 2]), {}, r"time 1: ids must be unique.*\[1\]"),
        (_frame(t=[1, 2, 2, 2]), {}, r"time 1: has 1 sample"),
        (_frame(t=[1, None, 2, 2]), {}, r"time column 't' has 1 missing value"),
        (_frame(id=[1, 2, None, 2]), {}, r"id column 'id' has 1 missing value"),
        (_frame(lab=[0, 1, None, 1]), {"label": "lab"}, r"time 2: label column 'lab' has 1 missing value\(s\), e\.g\. at ids \[1\]"),
        (_frame(f=["a"] * 4, g=["b"] * 4), {}, "no int or float feature columns"),
        (_frame(), {"features": ["f", "t"]}, "cannot be both a feature and time/id/label"),
        (_frame(), {"time": "id"}, "time, id and label must be different columns"),
    ],
)
def test_from_frame_rejects_bad_input(df, kwargs, pattern):
    arguments = {"time": "t", "id": "id"} | kwargs
    with pytest.raises(ValueError, match=pattern):
        TemporalDataset.from_frame(df, **arguments)


def test_to_frame_refuses_clashing_feature_names():
    ds = TemporalDataset.from_arrays([np.zeros((2, 2))], feature_names=["time", "x"])
    with pytest.raises(ValueError, match=r"feature name\(s\) \['time'\] clash"):
        ds.to_frame()


def test_from_csv(tmp_path):
    path = tmp_path / "birds.csv"
    _three_steps().to_frame().to_csv(path, index=False)
    ds = TemporalDataset.from_csv(path, time="time", id="id", label="label")
    assert ds.name == "birds"
    assert ds.times == [10, 20, 30]
    np.testing.assert_array_equal(ds[2].ids, [7, 0, 1])
    np.testing.assert_array_equal(ds[2].X, _three_steps()[2].X)
    semicolons = tmp_path / "semi.csv"
    _three_steps().to_frame().to_csv(semicolons, index=False, sep=";")
    ds = TemporalDataset.from_csv(semicolons, "time", "id", features=["b"], sep=";", name="s")
    assert ds.feature_names == ["b"] and ds.name == "s"


def test_from_csv_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.csv"
    with pytest.raises(ValueError, match="CSV file not found: .*missing.csv"):
        TemporalDataset.from_csv(missing, "t", "id")
    with pytest.raises(ValueError, match="is not a file"):
        TemporalDataset.from_csv(tmp_path, "t", "id")

    ragged = tmp_path / "ragged.csv"
    ragged.write_text("t,id,x\n1,1,0.5\n1,2,0.5,9,9,9\n2,1,\"unterminated\n")
    with pytest.raises(ValueError, match="could not parse CSV file .*ragged.csv"):
        TemporalDataset.from_csv(ragged, "t", "id")

    binary = tmp_path / "binary.csv"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match="binary.csv"):
        TemporalDataset.from_csv(binary, "t", "id")

    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="could not parse CSV file .*empty.csv"):
        TemporalDataset.from_csv(empty, "t", "id")

    text = tmp_path / "text.csv"
    text.write_text("t,id,x,colour\n1,1,0.5,red\n1,2,0.7,blue\n2,1,0.1,red\n2,2,0.2,red\n")
    with pytest.raises(ValueError, match=r"text.csv.*feature column 'colour' is not numeric"):
        TemporalDataset.from_csv(text, "t", "id", features=["x", "colour"])
    with pytest.raises(ValueError, match=r"text.csv.*time column 'time' not found; available columns: \['t', 'id', 'x', 'colour'\]"):
        TemporalDataset.from_csv(text, "time", "id")
    assert TemporalDataset.from_csv(text, "t", "id").feature_names == ["x"]


# ---------------------------------------------------------------------------
# common_ids
# ---------------------------------------------------------------------------


def _brute_force_common(a_ids: list, b_ids: list) -> tuple[list[int], list[int]]:
    ia, ib = [], []
    for j, value in enumerate(b_ids):
        for i, other in enumerate(a_ids):
            if other == value:
                ia.append(i)
                ib.append(j)
    return ia, ib


def _snapshot(ids) -> Snapshot:
    ids = np.asarray(ids) if len(ids) else np.array([], dtype=np.int64)
    return Snapshot(time=0, ids=ids, X=np.zeros((len(ids), 1)))


def test_common_ids_on_a_dataset_with_ids_coming_and_going():
    ds = _three_steps()
    ia, ib = common_ids(ds[0], ds[1])
    np.testing.assert_array_equal(ia, [0, 1, 2])
    np.testing.assert_array_equal(ib, [0, 1, 2])
    ia, ib = common_ids(ds[1], ds[2])
    np.testing.assert_array_equal(ds[1].ids[ia], ds[2].ids[ib])
    np.testing.assert_array_equal(ib, [0, 1, 2])  # ordered by position in the later step
    np.testing.assert_array_equal(ia, [3, 0, 1])
    ia, ib = common_ids(ds[0], ds[2])
    assert ds[2].ids[ib].tolist() == [0, 1]


unique_int_lists = st.lists(st.integers(-50, 50), unique=True, max_size=40)
unique_str_lists = st.lists(st.text(alphabet="abcdé", min_size=0, max_size=3), unique=True, max_size=40)


@settings(max_examples=150, deadline=None)
@given(a=unique_int_lists, b=unique_int_lists)
def test_common_ids_matches_brute_force_for_int_ids(a, b):
    ia, ib = common_ids(_snapshot(a), _snapshot(b))
    expected_a, expected_b = _brute_force_common(a, b)
    assert ia.tolist() == expected_a and ib.tolist() == expected_b


@settings(max_examples=150, deadline=None)
@given(a=unique_str_lists, b=unique_str_lists)
def test_common_ids_matches_brute_force_for_str_ids(a, b):
    ia, ib = common_ids(_snapshot(a), _snapshot(b))
    expected_a, expected_b = _brute_force_common(a, b)
    assert ia.tolist() == expected_a and ib.tolist() == expected_b
    # object arrays take the hashing path and must agree
    ia, ib = common_ids(_snapshot(np.array(a, dtype=object)), _snapshot(b))
    assert ia.tolist() == expected_a and ib.tolist() == expected_b


def test_common_ids_mixed_dtypes():
    a = _snapshot(np.array([1, "x", 3], dtype=object))
    b = _snapshot(np.array([3, 2, 1], dtype=np.int32))
    ia, ib = common_ids(a, b)
    assert ia.tolist() == [2, 0] and ib.tolist() == [0, 2]
    ia, ib = common_ids(_snapshot(np.array([1, 2], dtype=np.int64)), _snapshot(np.array([2, 9], dtype=np.uint64)))
    assert ia.tolist() == [1] and ib.tolist() == [0]
    ia, ib = common_ids(_snapshot(["p"]), _snapshot([1, 2]))
    assert ia.size == 0 and ib.size == 0
