"""Issue 12: your own data and the API -- no silent wrong answer, a clear error everywhere else.

One test per case of the issue; each failed on the code before the fix.
"""
from __future__ import annotations

import copy
import pickle
import threading
import time
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

from ercot_nb import ERCOT, StaticEC, algorithms, datasets
from ercot_nb.baselines import AFFECT, PenaltyEC
from ercot_nb.cli import main
from ercot_nb.data import TemporalDataset
from ercot_nb.result import ClusteringResult

SMALL = dict(pop_size=10, n_evaluations=40, seed=0)


def _blobs(n_steps=3, n=30, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    X = [np.vstack([c + rng.normal(0, 0.5, (n // 3, 2)) for c in centres]) * scale for _ in range(n_steps)]
    return TemporalDataset.from_arrays(X)


def _long_table(times, n=6, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "time": np.repeat(times, n),
        "id": np.tile(np.arange(n), len(times)),
        "a": rng.random(n * len(times)),
        "b": rng.random(n * len(times)),
    })


# -- silent wrong answers ---------------------------------------------------------------
def test_a_feature_column_with_text_cells_is_refused_naming_it(tmp_path):
    df = _long_table([1, 2, 3])
    df["b"] = df["b"].astype(object)
    df.loc[7, "b"] = "?"
    with pytest.raises(ValueError, match=r"feature column 'b' .*'\?' at time=2, id=1.*1 of 18 cells"):
        TemporalDataset.from_frame(df, "time", "id")
    path = tmp_path / "q.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"q.csv'.*feature column 'b'"):
        TemporalDataset.from_csv(path, "time", "id")


def test_text_columns_left_out_of_the_features_are_named():
    df = _long_table([1, 2])
    df["country"] = "x"
    with pytest.warns(UserWarning, match=r"left out of the features \(not numeric\): \['country'\]"):
        dataset = TemporalDataset.from_frame(df, "time", "id")
    assert dataset.feature_names == ["a", "b"]
    assert dataset.metadata["skipped_columns"] == ["country"]


def test_text_time_labels_with_numbers_are_ordered_naturally():
    labels = [f"t{i}" for i in range(1, 13)]
    df = _long_table(labels[::-1])
    assert TemporalDataset.from_frame(df, "time", "id").times == labels
    numbers_as_text = [str(i) for i in (1, 2, 10, 11)]
    assert TemporalDataset.from_frame(_long_table(numbers_as_text), "time", "id").times == numbers_as_text


def test_date_strings_are_parsed_and_ordered_as_dates():
    stamps = ["2021-01-01T10:00+02:00", "2021-01-01T09:00+00:00", "2021-01-01T09:30+00:00"]
    dataset = TemporalDataset.from_frame(_long_table(stamps), "time", "id")
    assert dataset.times == [stamps[0], stamps[1], stamps[2]]  # 08:00, 09:00, 09:30 UTC; text kept
    days = ["2021-01-02", "2020-12-31T23:00", "2021-01-10", "2021-01-09 08:00", "2020-12-31T22:00"]
    dataset = TemporalDataset.from_frame(_long_table(days), "time", "id")
    assert dataset.times == sorted(days, key=pd.Timestamp)


def test_text_time_labels_without_an_order_are_refused_showing_the_order():
    months = ["jan", "feb", "mar", "apr"]
    with pytest.raises(ValueError, match=r"sorted as text they would be 'apr', 'feb', 'jan', 'mar'.*pd.Categorical"):
        TemporalDataset.from_frame(_long_table(months), "time", "id")
    df = _long_table(months)
    df["time"] = pd.Categorical(df["time"], categories=months, ordered=True)
    assert TemporalDataset.from_frame(df, "time", "id").times == months


@pytest.mark.parametrize("factor", [1e-20, 1e-12, 2.0**-40, 1e-9, 1e9, 1e20, 1e100])
def test_clustering_does_not_depend_on_the_unit(factor):
    data = _blobs()
    base = ERCOT(**SMALL, backend="numpy").fit(data)
    scaled = TemporalDataset.from_arrays([s.X * factor for s in data])
    other = ERCOT(**SMALL, backend="numpy").fit(scaled)
    assert base.n_clusters_.tolist() == other.n_clusters_.tolist()
    for a, b in zip(base.labels_, other.labels_):
        np.testing.assert_array_equal(a, b)


def test_numbers_beyond_the_arithmetic_range_are_refused_naming_step_and_column():
    data = _blobs()
    X = [s.X.copy() for s in data]
    X[1][:, 1] *= 1e154
    with pytest.warns(UserWarning, match="feature ranges differ"):
        huge = TemporalDataset.from_arrays(X, feature_names=["height", "weight"], times=[10, 20, 30])
    with pytest.raises(ValueError, match=r"time 20: feature column 'weight' reaches .*e\+15[45].*scaled"):
        ERCOT(**SMALL).fit(huge)
    tiny = TemporalDataset.from_arrays([s.X * 1e-200 for s in data])
    with pytest.raises(ValueError, match=r"time .*underflow.*scaled"):
        ERCOT(**SMALL).fit(tiny)


def test_float32_refuses_data_it_cannot_hold_naming_step_and_column():
    # precision="float32": squares overflow beyond 1e17 and underflow below
    # spreads of 1e-17; a column with a large offset and a narrow range (Unix
    # seconds over one day: float32 spacing 128 s) has under 1000 float32
    # values.  Each is refused before any step runs; float64 takes them.
    data = _blobs()
    X = [s.X.copy() for s in data]
    X[2][:, 1] = X[2][:, 1] * 1e18
    with pytest.warns(UserWarning, match="feature ranges differ"):
        huge = TemporalDataset.from_arrays(X, feature_names=["height", "weight"], times=[10, 20, 30])
    model = ERCOT(precision="float32", **SMALL)
    with pytest.raises(ValueError, match=r"time 30: feature column 'weight' reaches .*float32.*"
                                         r"overflow.*precision='float64'"):
        model.fit(huge)
    assert not hasattr(model, "result_") or len(model.result_) == 0  # refused before any work
    ERCOT(**SMALL).fit(huge)
    tiny = TemporalDataset.from_arrays([s.X * 1e-20 for s in data])
    with pytest.raises(ValueError, match=r"time .*underflow.*precision='float64'"):
        ERCOT(precision="float32", **SMALL).fit(tiny)
    X = [np.column_stack([s.X[:, 0] * 1e4, 1.7e9 + s.X[:, 1] * 1e4]) for s in data]
    seconds = TemporalDataset.from_arrays(X, feature_names=["duration", "unix_time"])
    with pytest.raises(ValueError, match=r"time .*cannot resolve feature column 'unix_time'.*"
                                         r"precision='float64', or centre"):
        ERCOT(precision="float32", **SMALL).fit(seconds)
    ERCOT(**SMALL).fit(seconds)
    ERCOT(precision="float32", **SMALL).fit(seconds.scaled())


def test_scaled_works_on_data_near_the_float_limit():
    data = _blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning either
        huge = TemporalDataset.from_arrays([s.X * 1e300 for s in data]).scaled()
    expected = data.scaled()
    for a, b in zip(huge, expected):
        np.testing.assert_allclose(a.X, b.X, rtol=1e-12, atol=1e-12)
        assert np.abs(a.X).max() > 0.5


def test_features_in_different_units_warn_and_scaling_is_offered_when_loading():
    df = _long_table([1, 2, 3])
    df["b"] *= 1e5
    with pytest.warns(UserWarning, match=r"feature ranges differ by a factor of .*'b' spans .*'a' spans"):
        TemporalDataset.from_frame(df, "time", "id")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = TemporalDataset.from_frame(df, "time", "id", scale="standardize")
    assert scaled.metadata["scaling"]["method"] == "standardize"
    X = np.vstack([s.X for s in scaled])
    np.testing.assert_allclose(X.std(axis=0), 1.0)


@pytest.mark.parametrize("make", [
    lambda: ERCOT(n_clusters=5, **SMALL), lambda: StaticEC(n_clusters=5, **SMALL),
    lambda: PenaltyEC(n_clusters=5, **SMALL), lambda: AFFECT(n_clusters=5, seed=0),
])
def test_more_clusters_than_samples_is_refused(make):
    data = TemporalDataset.from_arrays([np.random.default_rng(0).random((4, 2))] * 2, times=[7, 8])
    with pytest.raises(ValueError, match=r"step 0 \(time 7\) has 4 samples, fewer than n_clusters=5"):
        make().fit(data)


def test_predict_refuses_a_nan_row_and_a_step_out_of_range():
    model = ERCOT(**SMALL).fit(_blobs())
    with pytest.raises(ValueError, match=r"1 row\(s\) of X hold NaN or inf \(rows \[1\]\)"):
        model.predict(np.array([[0.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match=r"predict \(a result of 3 steps\): t must be an int in \[-3, 2\], got 100"):
        model.predict(np.zeros((1, 2)), t=100)
    assert model.predict(np.zeros((1, 2)), t=-3).shape == (1,)


def test_partial_fit_refuses_the_same_step_twice():
    model = StaticEC(**SMALL)
    X = _blobs()[0].X
    for t in (1, 2, 3):
        model.partial_fit(X, time=t)
    with pytest.raises(ValueError, match=r"partial_fit got time 3 again \(step 2 already has it\)"):
        model.partial_fit(X, time=3)
    assert len(model.result_) == 3


def test_missing_time_labels_are_refused():
    X = [np.random.default_rng(0).random((4, 2))] * 2
    with pytest.raises(ValueError, match=r"step 1 of \d+ \(counting from 1\): time label nan is missing"):
        TemporalDataset.from_arrays(X, times=[float("nan"), float("nan")])
    model = StaticEC(**SMALL)
    with pytest.raises(ValueError, match="missing"):
        model.partial_fit(X[0], time=float("nan"))


def test_save_load_keeps_timestamps_and_object_int_ids(tmp_path):
    times = list(pd.date_range("2020-01-01", periods=3, freq="D"))
    ids = [np.array([10, 11, 12, 13, 14, 15], dtype=object)] * 3
    data = TemporalDataset.from_arrays([np.random.default_rng(t).random((6, 2)) for t in range(3)],
                                       ids=ids, times=times)
    result = StaticEC(**SMALL).fit(data).result_
    loaded = ClusteringResult.load(result.save(tmp_path / "r.npz"))
    assert loaded.times == times and all(isinstance(t, pd.Timestamp) for t in loaded.times)
    assert loaded[0].ids.dtype == object and loaded[0].ids.tolist() == [10, 11, 12, 13, 14, 15]
    assert all(type(v) is int for v in loaded[0].ids)
    pd.testing.assert_frame_equal(loaded.to_frame(), result.to_frame())


def test_load_checks_shapes(tmp_path):
    result = StaticEC(**SMALL).fit(_blobs()).result_
    path = result.save(tmp_path / "r.npz")
    arrays = dict(np.load(path))
    arrays["1/labels"] = arrays["1/labels"][:-3]
    np.savez_compressed(path, **arrays)
    with pytest.raises(ValueError, match=r"r.npz'.*step 1: labels has shape \(27,\).*expected \(30,\)"):
        ClusteringResult.load(path)


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbled", "header"])
def test_load_of_a_damaged_file_names_the_file(tmp_path, damage):
    path = StaticEC(**SMALL).fit(_blobs()).result_.save(tmp_path / "r.npz")
    content = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(content[: len(content) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "garbled":
        path.write_bytes(bytes(b ^ 0x5A for b in content))
    else:
        arrays = dict(np.load(path))
        arrays["__header__"] = np.array("{not json")
        np.savez(path, **arrays)
    with pytest.raises(ValueError, match=r"r\.npz'"):
        ClusteringResult.load(path)


def test_load_refuses_a_decompression_bomb_before_allocating(tmp_path):
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("__header__.npy", "w") as handle:
            np.lib.format.write_array(handle, np.array("{}"))
        with archive.open("0/ids.npy", "w", force_zip64=True) as handle:
            np.lib.format.write_array(handle, np.zeros(64 * 1024**2 // 8))  # 64 MiB of zeros
    assert path.stat().st_size < 1024**2
    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"bomb.npz'.*more than max_bytes=16777216"):
        ClusteringResult.load(path, max_bytes=16 * 1024**2)
    assert time.perf_counter() - started < 2.0
    with pytest.raises(ValueError, match=r"bomb.npz'.*decompress to 6710\d{4} bytes, \d+ times more"):
        ClusteringResult.load(path)  # the default limit (2 GiB) with the ratio check
    # a member whose header claims far more than it holds
    liar = tmp_path / "liar.npz"
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    header["shape"] = (2**28,)  # 2 GiB of float64 declared
    with zipfile.ZipFile(liar, "w") as archive:
        with archive.open("0/ids.npy", "w") as handle:
            np.lib.format.write_array_header_1_0(handle, header)
            handle.write(np.zeros(4).tobytes())
    with pytest.raises(ValueError, match=r"liar.npz'.*declares 2147483648 bytes"):
        ClusteringResult.load(liar)


def test_one_estimator_fitted_from_two_threads_raises():
    model = StaticEC(pop_size=10, n_evaluations=400, seed=0)
    data = _blobs(n_steps=10)
    errors, started = [], threading.Event()

    def slow_callback(step):
        started.set()
        time.sleep(0.05)

    def fit_second():
        started.wait(10)
        try:
            model.fit(data)
        except RuntimeError as exc:
            errors.append(str(exc))

    other = threading.Thread(target=fit_second)
    other.start()
    model.fit(data, callback=slow_callback)
    other.join()
    assert len(model.result_) == 10
    assert errors and "another fit or partial_fit of this same estimator is running" in errors[0]


@pytest.mark.parametrize("name", algorithms.available())
def test_fitted_estimators_pickle_and_deepcopy(name):
    data = _blobs(n_steps=3)
    model = algorithms.make(name, n_clusters=3, seed=0, **({"pop_size": 10, "n_evaluations": 40}
                                                        if name in ("ERCOT", "staticEC", "penaltyEC") else {}))
    model.fit(data[:2])
    blob = pickle.dumps(model)
    assert len(blob) < 2_000_000
    for copy_ in (pickle.loads(blob), copy.deepcopy(model)):
        assert [a.tolist() for a in copy_.labels_] == [a.tolist() for a in model.labels_]
        copy_.partial_fit(data[2])  # carries on from the restored state
        assert len(copy_.result_) == 3


def test_ids_mixing_numbers_and_text_are_refused_at_validation():
    X = [np.random.default_rng(0).random((4, 2))] * 2
    with pytest.raises(ValueError, match=r"time 0: ids mix numbers and text"):
        TemporalDataset.from_arrays(X, ids=[np.array([1, "a", 2, "b"], dtype=object)] * 2)
    with pytest.raises(ValueError, match=r"time 1: ids are text but number at time 0;"):
        TemporalDataset.from_arrays(X, ids=[[1, 2, 3, 4], ["1", "2", "3", "4"]])


def test_cli_prints_a_clean_error_for_overflowing_features(tmp_path, capsys):
    df = _long_table([1, 2, 3])
    df["a"] *= 1e160
    path = tmp_path / "big.csv"
    df.to_csv(path, index=False)
    rc = main(["run", "--csv", str(path), "--time", "time", "--id", "id"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "\nercot-nb: error: time 1: feature column 'a' reaches" in err
    assert "Traceback" not in err


def test_cli_scale_option(tmp_path, capsys):
    df = _long_table([1, 2, 3], n=12)
    df["b"] *= 1e5
    path = tmp_path / "units.csv"
    df.to_csv(path, index=False)
    args = ["run", "--csv", str(path), "--time", "time", "--id", "id", "--pop-size", "10",
            "--evaluations", "20"]
    assert main(args) == 0
    assert "feature ranges differ" in capsys.readouterr().err
    assert main(args + ["--scale", "standardize"]) == 0
    captured = capsys.readouterr()
    assert "feature ranges differ" not in captured.err
    assert "scaled with 'standardize'" in captured.out


@pytest.mark.parametrize("data, message", [
    (pd.DataFrame({"a": [1.0]}), r"pandas DataFrame.*TemporalDataset.from_frame\(df, time="),
    (None, r"fit needs data: a TemporalDataset, or a list of"),
    (np.zeros((5, 2)), r"one 2-D array of shape \(5, 2\).*fit\(\[X\]\)"),
])
def test_fit_explains_what_it_takes(data, message):
    with pytest.raises(TypeError, match=message):
        ERCOT().fit(data)


def test_fit_accepts_a_list_of_arrays_and_a_3d_array():
    X = np.random.default_rng(0).random((2, 12, 2))
    a = StaticEC(**SMALL).fit(list(X)).labels_
    b = StaticEC(**SMALL).fit(X).labels_
    assert [x.tolist() for x in a] == [x.tolist() for x in b]
