"""Validation of the public Python API (issue 22): every argument checked, no silent wrong answer."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ercot_nb.cli import main
from ercot_nb.data import TemporalDataset


def _table(times) -> pd.DataFrame:
    """Two groups of three samples at each step, the steps in the given (unsorted) order."""
    rows = []
    for k, time in enumerate(times):
        for i in range(6):
            rows.append({"time": time, "id": i, "a": float(i // 3) * 5 + 0.1 * k, "b": 0.1 * i})
    return pd.DataFrame(rows)


# -- text dates -------------------------------------------------------------------------
@pytest.mark.parametrize(("given", "ordered"), [
    (["15/1/2020", "16/1/2020", "1/2/2020"], ["15/1/2020", "16/1/2020", "1/2/2020"]),  # day first
    (["1/2/2020", "16/1/2020", "15/1/2020"], ["15/1/2020", "16/1/2020", "1/2/2020"]),
    (["1/1/2020", "12/30/2019"], ["12/30/2019", "1/1/2020"]),  # month first
    (["02.03.2021", "28.02.2021", "1.3.2021"], ["28.02.2021", "1.3.2021", "02.03.2021"]),
    (["01-13-2020", "12-31-2019", "02-01-2020"], ["12-31-2019", "01-13-2020", "02-01-2020"]),
    (["2020/01/15", "2019/12/31", "2020/1/2"], ["2019/12/31", "2020/1/2", "2020/01/15"]),
    (["13/1/2020 09:00", "2/1/2020 10:00", "13/1/2020 08:00"],
     ["2/1/2020 10:00", "13/1/2020 08:00", "13/1/2020 09:00"]),
    (["Feb 2020", "Dec 2019", "Jan 2020"], ["Dec 2019", "Jan 2020", "Feb 2020"]),
    (["3 March 2020", "15 February 2020"], ["15 February 2020", "3 March 2020"]),
])
def test_text_dates_are_ordered_as_dates_never_as_text(given, ordered):
    assert TemporalDataset.from_frame(_table(given), "time", "id").times == ordered


@pytest.mark.parametrize("given", [
    ["1/2/2020", "1/3/2020", "2/1/2020"],  # no field above 12: day or month first?
    ["05.06.2021", "06.05.2021"],
    ["13/1/2020", "1/13/2020"],  # one label needs day first, the other month first
])
def test_ambiguous_text_dates_are_refused_asking_for_the_format(given):
    with pytest.raises(ValueError, match=r"time column 'time'.*time_format=.*--time-format"):
        TemporalDataset.from_frame(_table(given), "time", "id")


def test_time_format_orders_ambiguous_dates_and_names_a_label_that_does_not_match(tmp_path):
    given = ["1/2/2020", "1/3/2020", "2/1/2020"]
    day_first = TemporalDataset.from_frame(_table(given), "time", "id", time_format="%d/%m/%Y")
    assert day_first.times == ["2/1/2020", "1/2/2020", "1/3/2020"]
    month_first = TemporalDataset.from_frame(_table(given), "time", "id", time_format="%m/%d/%Y")
    assert month_first.times == ["1/2/2020", "1/3/2020", "2/1/2020"]
    path = tmp_path / "days.csv"
    _table(given).to_csv(path, index=False)
    assert TemporalDataset.from_csv(path, "time", "id", time_format="%d/%m/%Y").times == day_first.times
    with pytest.raises(ValueError, match=r"'13/13/2020' does not match time_format='%d/%m/%Y'"):
        TemporalDataset.from_frame(_table(["1/2/2020", "13/13/2020"]), "time", "id", time_format="%d/%m/%Y")
    with pytest.raises(TypeError, match="time_format must be"):
        TemporalDataset.from_frame(_table(given), "time", "id", time_format=3)


def test_invalid_or_mixed_text_dates_are_refused_naming_the_label():
    with pytest.raises(ValueError, match=r"'31/2/2020' is not a valid date read as day/month/year"):
        TemporalDataset.from_frame(_table(["31/2/2020", "15/1/2020"]), "time", "id")
    with pytest.raises(ValueError, match=r"mixes dates .* with other text"):
        TemporalDataset.from_frame(_table(["15/1/2020", "t2"]), "time", "id")


def test_names_with_numbers_and_iso_dates_keep_working():
    quarters = ["2001-Q3", "2001-Q4", "2002-Q1"]
    assert TemporalDataset.from_frame(_table(quarters[::-1]), "time", "id").times == quarters
    assert TemporalDataset.from_frame(_table(["t10", "t2", "t1"]), "time", "id").times == ["t1", "t2", "t10"]
    iso = ["2020-01-15", "2019-12-01", "2020-01-02"]
    assert TemporalDataset.from_frame(_table(iso), "time", "id").times == sorted(iso)


def test_cli_time_format(tmp_path, capsys):
    path = tmp_path / "days.csv"
    _table(["1/2/2020", "1/3/2020", "2/1/2020"]).to_csv(path, index=False)
    base = ["run", "--csv", str(path), "--time", "time", "--id", "id", "--pop-size", "20",
            "--evaluations", "40", "--n-clusters", "2"]
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "--time-format" in err and len(err.strip().splitlines()) == 1
    out_csv = tmp_path / "labels.csv"
    assert main([*base, "--time-format", "%d/%m/%Y", "--out", str(out_csv)]) == 0, capsys.readouterr().err
    assert list(pd.read_csv(out_csv).drop_duplicates("t")["time"]) == ["2/1/2020", "1/2/2020", "1/3/2020"]
    assert main([*base, "--time-format", "%Y"]) == 2
    assert "does not match time_format='%Y'" in capsys.readouterr().err


# -- fitted model shared by the adopt / predict tests -------------------------------------
@pytest.fixture(scope="module")
def fitted():
    from ercot_nb import ERCOT

    data = TemporalDataset.from_frame(_table(["t1", "t2", "t3"]), "time", "id")
    return ERCOT(pop_size=10, n_evaluations=20, seed=0, backend="numpy").fit(data)


@pytest.mark.parametrize("rows", [[[1e200, 1e200], [-1e200, -1e200]], [[0.0, 3e151], [1.0, 1.0]]])
def test_predict_refuses_values_fit_refuses(fitted, rows):
    with pytest.raises(ValueError, match=r"predict: 1 row|predict: 2 row"):
        fitted.predict(np.array(rows))
    with pytest.raises(ValueError, match="beyond 1e\\+150"):
        fitted.predict(np.array(rows))
    assert fitted.predict(np.array([[0.0, 0.0], [5.0, 0.5]])).shape == (2,)


@pytest.mark.parametrize(("t", "member", "error", "message"), [
    (2, True, TypeError, r"member must be an int in \[0, 9\], got True \(bool\)"),
    (True, 0, TypeError, r"t must be an int in \[-3, 2\], got True \(bool\)"),
    (np.True_, 0, TypeError, r"t must be an int"),
    (0, 1.5, TypeError, r"member must be an int in \[0, 9\], got 1.5 \(float\)"),
    (0, np.float64(1.0), TypeError, r"member must be an int"),
    (0, 10, ValueError, r"member must be an int in \[0, 9\], got 10"),
    (0, -1, ValueError, r"member must be an int in \[0, 9\]"),
    (3, 0, ValueError, r"t must be an int in \[-3, 2\], got 3"),
    (-4, 0, ValueError, r"t must be an int in \[-3, 2\]"),
])
def test_adopt_refuses_bools_floats_and_out_of_range_naming_the_range(fitted, t, member, error, message):
    with pytest.raises(error, match=r"ERCOT\.adopt.*" + message):
        fitted.adopt(t, member)


def test_predict_step_index_uses_the_same_validator(fitted):
    with pytest.raises(TypeError, match=r"predict.*t must be an int in \[-3, 2\], got True \(bool\)"):
        fitted.predict(np.zeros((2, 2)), t=True)
    with pytest.raises(ValueError, match=r"t must be an int in \[-3, 2\], got 5"):
        fitted.predict(np.zeros((2, 2)), t=5)


# -- metrics with non-finite rows -------------------------------------------------------
def test_silhouette_refuses_a_nan_row_naming_it():
    from ercot_nb.metrics import silhouette

    X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [np.nan, 5.1]])
    with pytest.raises(ValueError, match=r"silhouette: 1 row\(s\) of X hold NaN or inf \(rows \[3\]\)"):
        silhouette(X, [0, 0, 1, 1])
    X[3] = [np.inf, 5.1]
    with pytest.raises(ValueError, match=r"rows \[3\]"):
        silhouette(X, [0, 0, 1, 1])


def test_centroid_objectives_refuse_non_finite_rows_of_data_and_centroids():
    from ercot_nb.metrics import centroid_objectives

    X = np.array([[0.0, 0.0], [np.nan, 1.0], [5.0, 5.0]])
    with pytest.raises(ValueError, match=r"centroid_objectives: 1 row\(s\) of X .*rows \[1\]"):
        centroid_objectives(X, [[0.0, 0.0], [5.0, 5.0]])
    with pytest.raises(ValueError, match=r"row\(s\) of centroids .*rows \[0\]"):
        centroid_objectives(np.zeros((3, 2)), [[np.inf, 0.0], [5.0, 5.0]])


# -- events ---------------------------------------------------------------------------
@pytest.mark.parametrize(("prev", "curr", "which"), [
    ([0, 1, 1, 2], [0, 1, 2, 3], "previous"),
    (["a", "b", "c"], ["a", "b", "a"], "current"),
])
def test_step_events_refuses_repeated_ids_naming_them(prev, curr, which):
    from ercot_nb.events import step_events

    with pytest.raises(ValueError, match=rf"ids of the {which} step must be unique; 1 id\(s\).*"):
        step_events(prev, [0] * len(prev), curr, [0] * len(curr))


@pytest.mark.parametrize(("option", "value", "error", "message"), [
    ("seed", "x", TypeError, r"step_events: seed must be an int >= 0 or a numpy.random.Generator or None, got 'x'"),
    ("seed", -1, ValueError, r"step_events: seed must be"),
    ("seed", 1.5, TypeError, r"step_events: seed must be"),
    ("n_permutations", True, TypeError, r"n_permutations must be an int >= 0, got True \(bool\)"),
    ("n_permutations", 9.0, TypeError, r"n_permutations must be an int"),
    ("n_permutations", -1, ValueError, r"n_permutations must be an int >= 0"),
    ("min_share", True, TypeError, r"min_share must be a finite number in \(0, 1\]"),
    ("min_share", float("nan"), ValueError, r"min_share must be a finite number"),
    ("size_change", "0.2", TypeError, r"size_change must be a finite number in \(0, 1\)"),
])
def test_event_options_are_checked_by_the_shared_validator(option, value, error, message):
    from ercot_nb.events import step_events

    with pytest.raises(error, match=message):
        step_events([0, 1], [0, 0], [0, 1], [0, 0], **{option: value})


# -- hypervolume ------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e308, 1.7e308, 1e200])
def test_front_hypervolume_of_huge_finite_objectives_equals_that_of_the_same_front_scaled_down(scale):
    from ercot_nb.hypervolume import front_hypervolume

    unit = np.array([[-1.0, 1.0], [0.0, 0.0], [1.0, -1.0], [0.5, 0.9]])
    front = np.array([True, True, True, False])
    expected = front_hypervolume(unit, front)
    assert np.isfinite(expected)
    assert front_hypervolume(unit * scale, front) == pytest.approx(expected, rel=1e-12)


def test_hypervolume_2d_refuses_an_area_beyond_float64_naming_the_magnitude():
    from ercot_nb.hypervolume import hypervolume_2d

    with pytest.raises(ValueError, match=r"exceeds the float64 range.*1e\+308"):
        hypervolume_2d([[-1e308, -1e308]], (1e308, 1e308))


@pytest.mark.parametrize("mask", [[True, False], np.ones(5, dtype=bool), np.ones((4, 1), dtype=bool)])
def test_front_hypervolume_names_the_expected_mask_length(mask):
    from ercot_nb.hypervolume import front_hypervolume

    with pytest.raises(ValueError, match=r"first_front must be a mask of length 4"):
        front_hypervolume(np.zeros((4, 2)), mask)


def test_front_hypervolume_reference_is_checked():
    from ercot_nb.hypervolume import front_hypervolume

    with pytest.raises(TypeError, match=r"front_hypervolume: reference must be a finite number > 0"):
        front_hypervolume(np.zeros((2, 2)), [True, True], reference=True)


# -- memory of a fit ----------------------------------------------------------------------
def test_the_issue_s_huge_fit_is_refused_before_allocating_naming_parameters_and_estimate(monkeypatch):
    from ercot_nb import ERCOT

    from ercot_nb.evolution import _memory

    monkeypatch.setattr(_memory, "memory_limit", lambda: (16 * 2**30, "the available memory"))
    X = np.random.default_rng(0).normal(size=(2000, 50))
    model = ERCOT(max_clusters=1000, pop_size=100000, n_evaluations=200000, backend="numpy")
    with pytest.raises(ValueError, match=r"ERCOT: this fit needs about \d+ GiB of memory but 16 GiB is available"
                                         r".*pop_size=100000.*max_clusters=1000.*50 features.*38 GiB"):
        model.fit([X])


@pytest.mark.parametrize(("params", "shape", "n_steps", "slots"), [
    (dict(pop_size=2000, max_clusters=100), (300, 10), 1, "max_clusters=100"),
    (dict(pop_size=400, n_clusters=50, max_clusters=60), (100, 20), 3, "n_clusters=50"),
])
def test_fits_beyond_a_small_available_memory_are_refused(monkeypatch, params, shape, n_steps, slots):
    from ercot_nb import StaticEC

    from ercot_nb.evolution import _memory

    monkeypatch.setattr(_memory, "memory_limit", lambda: (8 * 2**20, "the available memory"))  # a fake 8 MiB machine
    data = [np.random.default_rng(t).normal(size=shape) for t in range(n_steps)]
    model = StaticEC(**params, n_evaluations=2 * params["pop_size"], backend="numpy")
    with pytest.raises(ValueError, match=rf"MiB is available.*{slots}"):
        model.fit(data)
    with pytest.raises(ValueError, match=rf"MiB is available.*{slots}"):
        model.partial_fit(data[0])  # streaming is checked too


def test_a_fit_within_the_available_memory_runs_and_the_estimate_grows_with_every_factor(monkeypatch):
    from ercot_nb import StaticEC

    from ercot_nb.evolution import _memory

    base = dict(pop_size=100, n_max=8, n_samples=100, n_features=3, n_steps=2)
    size = _memory.estimate_fit_bytes(**base)
    for name in base:
        assert _memory.estimate_fit_bytes(**{**base, name: base[name] * 10}) > size, name
    monkeypatch.setattr(_memory, "memory_limit", lambda: (2 * size, "the available memory"))
    StaticEC(pop_size=10, n_evaluations=20, backend="numpy").fit([np.zeros((20, 3)) + np.arange(20)[:, None]])
    monkeypatch.setattr(_memory, "memory_limit", lambda: None)  # unknown: nothing refused
    StaticEC(pop_size=10, n_evaluations=20, backend="numpy").fit([np.zeros((20, 3)) + np.arange(20)[:, None]])


# -- ensemble workers from a script -----------------------------------------------------------
_SCRIPT_HEAD = '''
import numpy as np
from ercot_nb import StaticEC
from ercot_nb.ensemble import ensemble
print("BODY", flush=True)
data = [np.r_[np.zeros((5, 1)), np.full((5, 1), 9.0)] + np.arange(10)[:, None] * 0.01 for _ in range(2)]
model = StaticEC(pop_size=10, n_evaluations=20, n_clusters=2, backend="numpy")
def run():
    print("DONE", len(ensemble(model, data, seeds=[0, 1], n_jobs=2)), flush=True)
'''


def _run_script(tmp_path, tail: str):
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "script.py"
    script.write_text(_SCRIPT_HEAD + tail)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "NUMBA_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=240)


@pytest.mark.parametrize(("tail", "line"), [
    ("print('DONE', len(ensemble(model, data, seeds=[0, 1], n_jobs=2)))\n", 10),  # the call itself
    ("run()\n", 10),  # a function called from unguarded top-level code
    ("if True:\n    run()\n", 11),
])
@pytest.mark.slow
def test_ensemble_workers_from_an_unguarded_script_are_refused_in_one_clear_error(tmp_path, tail, line):
    done = _run_script(tmp_path, tail)
    assert done.returncode == 1
    assert done.stdout.count("BODY") == 1  # the script body ran once: no worker was started
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: ensemble(n_jobs=...) starts worker processes with the 'spawn'")
    assert f"script.py, line {line}" in last and 'if __name__ == "__main__":' in last
    assert "BrokenProcessPool" not in done.stderr


@pytest.mark.slow
def test_ensemble_workers_from_a_guarded_script_run(tmp_path):
    done = _run_script(tmp_path, "if __name__ == '__main__':\n    run()\n")
    assert done.returncode == 0, done.stderr
    assert "DONE 2" in done.stdout


def test_ensemble_refuses_to_start_workers_while_a_worker_is_starting(monkeypatch):
    import multiprocessing

    from ercot_nb import StaticEC
    from ercot_nb.ensemble import ensemble

    class Starting:
        name = "SpawnProcess-1"
        _inheriting = True

    monkeypatch.setattr(multiprocessing, "current_process", lambda: Starting())
    with pytest.raises(RuntimeError, match=r"if __name__ == \"__main__\":"):
        ensemble(StaticEC(pop_size=10, n_evaluations=20), [np.zeros((4, 1))], seeds=[0], n_jobs=2)


# -- property: a bool is never an int or a float ------------------------------------------------
def _public_number_arguments(fitted):
    """(where, parameter name, call with the value) for every int/float argument of the public API."""
    from ercot_nb import algorithms, datasets
    from ercot_nb.ensemble import consensus, consensus_step, ensemble
    from ercot_nb.events import lifecycle_events, step_events
    from ercot_nb.hypervolume import front_hypervolume, hypervolume_2d
    from ercot_nb.metrics import label_free_steps, silhouette
    from ercot_nb.algorithms import estimator_params
    from ercot_nb.datasets import dataset_params

    data = TemporalDataset.from_frame(_table(["t1", "t2", "t3"]), "time", "id")
    X = data[0].X
    clip = np.random.default_rng(0).random((3, 8, 8, 3))
    cases = []
    for name in algorithms.available():
        for spec in estimator_params(name):
            if spec.kind in ("int", "float", "seed"):
                cls = algorithms.get(name)
                cases.append((name, spec.name, lambda v, cls=cls, p=spec.name: cls(**{p: v}).fit(data)))
    for name in datasets.available():
        for spec in dataset_params(name):
            if spec.kind in ("int", "float", "seed"):
                cases.append((name, spec.name, lambda v, n=name, p=spec.name: datasets.load(n, **{p: v})))
    ids, labels = [0, 1, 2, 3], [0, 0, 1, 1]
    for option in ("min_share", "majority", "size_change", "n_permutations", "seed"):
        cases.append(("step_events", option, lambda v, o=option: step_events(ids, labels, ids, labels, **{o: v})))
        cases.append(("lifecycle_events", option, lambda v, o=option: lifecycle_events(fitted.result_, **{o: v})))
    cases += [
        ("lifecycle_events", "start", lambda v: lifecycle_events(fitted.result_, start=v)),
        ("ensemble", "n_jobs", lambda v: ensemble(fitted, data, seeds=[0], n_jobs=v)),
        ("ensemble", "n_iter", lambda v: ensemble(fitted, data, seeds=[0], n_iter=v)),
        ("consensus", "n_iter", lambda v: consensus([fitted.result_], n_iter=v)),
        ("consensus", "band[0]", lambda v: consensus([fitted.result_], band=(v, 0.9))),
        ("consensus_step", "n_iter", lambda v: consensus_step([labels], n_iter=v)),
        ("front_hypervolume", "reference", lambda v: front_hypervolume(np.zeros((2, 2)), [True, True], v)),
        ("hypervolume_2d", "reference[0]", lambda v: hypervolume_2d([[0.0, 0.0]], (v, 1.0))),
        ("silhouette", "sample_size", lambda v: silhouette(X, data[0].ids % 2, sample_size=v)),
        ("silhouette", "seed", lambda v: silhouette(X, data[0].ids % 2, seed=v)),
        ("label_free_steps", "sample_size", lambda v: label_free_steps(fitted.result_, data, sample_size=v)),
        ("label_free_steps", "seed", lambda v: label_free_steps(fitted.result_, data, seed=v)),
        ("label_free_steps", "start", lambda v: label_free_steps(fitted.result_, data, start=v)),
        ("adopt", "t", lambda v: fitted.adopt(v, 0)),
        ("adopt", "member", lambda v: fitted.adopt(0, v)),
        ("predict", "t", lambda v: fitted.predict(X, t=v)),
        ("choose", "t", lambda v: fitted.result_.choose(v)),
        ("labels_of_member", "t", lambda v: fitted.result_.labels_of_member(X, v, 0)),
        ("labels_of_member", "member", lambda v: fitted.result_.labels_of_member(X, 0, v)),
        ("load_video", "stride", lambda v: datasets.load_video(clip, stride=v)),
        ("load_video", "frames", lambda v: datasets.load_video(clip, frames=v)),
        ("load_video", "position_weight", lambda v: datasets.load_video(clip, position=True, position_weight=v)),
    ]
    return cases


def test_every_public_int_or_float_argument_refuses_a_bool_naming_it(fitted):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    cases = _public_number_arguments(fitted)
    assert len(cases) > 100
    wrong = []
    for where, name, call in cases:  # every argument once, then hypothesis varies the bool
        try:
            call(True)
            wrong.append((where, name, "accepted True"))
        except TypeError as exc:
            if f"{name} must be" not in str(exc):
                wrong.append((where, name, str(exc)))
        except Exception as exc:  # noqa: BLE001 - any other error is a finding too
            wrong.append((where, name, f"{type(exc).__name__}: {exc}"))
    assert not wrong, wrong

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(case=st.sampled_from(cases), value=st.sampled_from([True, False, np.True_, np.False_]))
    def check(case, value):
        where, name, call = case
        with pytest.raises(TypeError) as error:
            call(value)
        assert f"{name} must be" in str(error.value), (where, name, str(error.value))

    check()
