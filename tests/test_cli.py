"""``ercot-nb`` command line: runs, CSV round trip, one-line input errors."""
from __future__ import annotations

import os
import re
import sys
import types

import numpy as np
import pandas as pd
import pytest

import ercot_nb
from ercot_nb import ClusteringResult, StaticEC, TemporalDataset, datasets
from ercot_nb.cli import main

BUDGET = ["--pop-size", "20", "--evaluations", "40"]
LABEL_COLUMNS = ["t", "time", "id", "label", "aligned_label"]


@pytest.fixture
def long_csv(tmp_path):
    """Three steps of two blobs; string ids, string labels, one id leaves and one enters."""
    rng = np.random.default_rng(0)
    rows = []
    for step in range(3):
        present = [i for i in range(24) if not (step == 2 and i == 0)] + ([99] if step == 2 else [])
        for i in present:
            group = i % 2
            rows.append({
                "day": step + 1,
                "who": f"s{i}",
                "a": group * 6 + rng.normal(scale=0.5),
                "b": rng.normal(scale=0.5),
                "kind": "left" if group == 0 else "right",
                "note": "ok",
            })
    path = tmp_path / "long.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_run_without_a_seed_prints_the_seed_it_drew_and_that_seed_repeats_the_run(tmp_path, capsys):
    code, out, err = run(["run", "--dataset", "syn1", "--algorithm", "staticec", *BUDGET,
                          "--out", str(tmp_path / "drawn.csv")], capsys)
    assert code == 0, err
    match = re.search(r"^seed (\d+) \(drawn for this run: --seed \1 repeats it\)$", out, re.MULTILINE)
    assert match, out
    code, out, err = run(["run", "--dataset", "syn1", "--algorithm", "staticec", *BUDGET,
                          "--seed", match.group(1), "--out", str(tmp_path / "again.csv")], capsys)
    assert code == 0, err
    assert "drawn for this run" not in out  # a seed given is not announced again
    assert (tmp_path / "drawn.csv").read_text() == (tmp_path / "again.csv").read_text()


def test_run_on_a_builtin_dataset_writes_the_labels_table(tmp_path, capsys):
    out_csv = tmp_path / "out" / "labels.csv"
    out_csv.parent.mkdir()  # the command creates no folder (ercot_nb._files)
    saved = tmp_path / "syn1_result.npz"
    code, out, err = run(
        ["run", "--dataset", "syn1", "--algorithm", "staticec", "--seed", "3", *BUDGET,
         "--out", str(out_csv), "--save-result", str(saved)],
        capsys,
    )
    assert code == 0, err
    data = datasets.load("syn1", seed=0)
    table = pd.read_csv(out_csv)
    assert list(table.columns) == LABEL_COLUMNS
    assert len(table) == sum(s.n_samples for s in data)
    assert sorted(table["t"].unique()) == list(range(len(data)))
    assert list(table.drop_duplicates("t")["time"]) == data.times
    # the same run through the API gives the same labels
    expected = StaticEC(seed=3, pop_size=20, n_evaluations=40).fit(data).result_
    np.testing.assert_array_equal(table["label"], np.concatenate(expected.labels))
    loaded = ClusteringResult.load(saved)
    assert loaded.algorithm == "staticEC"
    np.testing.assert_array_equal(np.concatenate(loaded.labels), table["label"])
    # summary: header, one row per step, a mean row, scores since syn1 has labels
    lines = out.splitlines()
    header = next(line for line in lines if line.split()[:2] == ["t", "time"])
    assert header.split() == ["t", "time", "n_samples", "n_clusters", "alpha", "seconds", "hypervolume", "RI", "NMI"]
    assert any(line.split()[0] == "mean" for line in lines)
    assert str(out_csv) in out and str(saved) in out


def test_csv_round_trip(long_csv, tmp_path, capsys):
    out_csv = tmp_path / "labels.csv"
    code, out, err = run(
        ["run", "--csv", str(long_csv), "--time", "day", "--id", "who", "--features", "a", "b",
         "--label", "kind", "--n-clusters", "2", *BUDGET, "--out", str(out_csv)],
        capsys,
    )
    assert code == 0, err
    source = pd.read_csv(long_csv)
    table = pd.read_csv(out_csv)
    assert list(table.columns) == LABEL_COLUMNS
    assert len(table) == len(source)
    pairs = lambda df, time, id: sorted(zip(df[time], df[id].astype(str)))  # noqa: E731
    assert pairs(table, "time", "id") == pairs(source, "day", "who")
    assert set(table["label"]) == {0, 1}
    assert "RI" in out and "ERCOT" in out
    # the two well-separated blobs are found at every step
    merged = table.merge(source, left_on=["time", "id"], right_on=["day", "who"])
    for _, step in merged.groupby("t"):
        assert pd.crosstab(step["label"], step["kind"]).gt(0).sum(axis=1).eq(1).all()


def test_csv_features_default_to_the_numeric_columns(long_csv, capsys):
    code, out, err = run(["run", "--csv", str(long_csv), "--time", "day", "--id", "who", *BUDGET], capsys)
    assert code == 0, err
    assert "features=2" in out  # a and b; the text column "note" is skipped
    assert "RI" not in out  # no --label, no scores


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--time", "date", "--id", "who"], "time column 'date' not found"),
        (["--time", "day", "--id", "who", "--features", "a", "nope"], "feature column 'nope' not found"),
        (["--time", "day", "--id", "who", "--features", "a", "note"], "feature column 'note' is not numeric"),
        (["--time", "day", "--id", "who", "--label", "missing"], "label column 'missing' not found"),
        (["--time", "day"], "--csv needs --id"),
    ],
)
def test_bad_csv_input_is_one_readable_line_and_exit_code_2(long_csv, capsys, extra, message):
    code, out, err = run(["run", "--csv", str(long_csv), *extra, *BUDGET], capsys)
    assert code == 2
    assert err.startswith("ercot-nb: error: ")
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and out == ""


def test_unreadable_or_missing_file_and_bad_parameters_exit_2(tmp_path, capsys):
    broken = tmp_path / "broken.csv"
    broken.write_text('day,who,a\n1,"s1,0.5\n')
    for argv, message in [
        (["--csv", str(tmp_path / "absent.csv"), "--time", "day", "--id", "who"], "not found"),
        (["--csv", str(broken), "--time", "day", "--id", "who"], "could not parse"),
        (["--dataset", "syn1", "--pop-size", "20", "--evaluations", "30"], "n_evaluations"),
        (["--dataset", "syn1", "--label", "kind"], "--label can only be used with --csv"),
    ]:
        code, _, err = run(["run", *argv], capsys)
        assert code == 2, argv
        assert message in err and len(err.strip().splitlines()) == 1


def test_usage_errors_and_help(capsys):
    code, _, err = run(["run", "--dataset", "syn99"], capsys)
    assert code == 2 and "invalid choice" in err
    code, _, err = run(["run", "--dataset", "syn1", "--csv", "x.csv"], capsys)
    assert code == 2 and "not allowed with" in err
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and all(command in out for command in ("run", "bench", "experiments", "app"))
    code, _, err = run([], capsys)
    assert code == 2


def test_bench_is_delegated_with_its_arguments(monkeypatch):
    calls = []
    fake = types.ModuleType("ercot_nb.bench")
    fake.main = lambda argv: calls.append(argv) or 5
    monkeypatch.setitem(sys.modules, "ercot_nb.bench", fake)
    monkeypatch.setattr(ercot_nb, "bench", fake, raising=False)
    assert main(["bench", "speed", "--repeat", "2"]) == 5
    assert calls == [["speed", "--repeat", "2"]]


def test_string_time_labels_survive_the_round_trip(tmp_path, capsys):
    X = [np.r_[np.zeros((6, 1)), np.full((6, 1), 5.0)] + 0.1 * np.arange(12)[:, None] for _ in range(2)]
    frame = TemporalDataset.from_arrays(X, times=["2024-01", "2024-02"]).to_frame()
    path = tmp_path / "months.csv"
    frame.to_csv(path, index=False)
    out_csv = tmp_path / "labels.csv"
    code, _, err = run(["run", "--csv", str(path), "--time", "time", "--id", "id",
                        "--n-clusters", "2", *BUDGET, "--out", str(out_csv)], capsys)
    assert code == 0, err
    assert list(pd.read_csv(out_csv).drop_duplicates("t")["time"]) == ["2024-01", "2024-02"]


def test_run_shows_a_preview_of_step_0_while_the_kernels_compile(kernels_compiling, tmp_path, capsys):
    """A fresh install's `ercot-nb run`: the first step's partition on stderr before the compilation
    ends; stdout (the summary) and the labels are those of the run itself."""
    done = kernels_compiling
    from ercot_nb.kernels import _firstrun

    real_preview = _firstrun.preview_first_step

    def preview_then_compiled(estimator, dataset, preview):
        called = real_preview(estimator, dataset, preview)
        done.set()  # the compilation ends after the preview
        return called

    import ercot_nb.base as estimator_module

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(estimator_module, "preview_first_step", preview_then_compiled)
    try:
        out_csv = tmp_path / "labels.csv"
        code, out, err = run(["run", "--dataset", "syn1", "--seed", "3", *BUDGET, "--out", str(out_csv)], capsys)
    finally:
        monkeypatch.undo()
    assert code == 0, err
    assert "step 0 (a preview by the NumPy kernels while the fast kernels get ready" in err and "clusters of" in err
    assert "a preview by" not in out  # stdout: the run's own summary only
    expected = ercot_nb.ERCOT(seed=3, pop_size=20, n_evaluations=40).fit(datasets.load("syn1", seed=0)).result_
    np.testing.assert_array_equal(pd.read_csv(out_csv)["label"], np.concatenate(expected.labels))


def test_a_fresh_run_with_a_warm_cache_claims_no_compilation():
    """A new process with the kernels in numba's disk cache loads them (seconds of imports, so a preview
    may come first) but compiles nothing: before, every such run said "while the fast kernels compile"."""
    import subprocess
    import sys

    ercot_nb.ERCOT(seed=3, pop_size=20, n_evaluations=40).fit(datasets.load("syn1", seed=0))  # cache is warm
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-m", "ercot_nb.cli", "run", "--dataset", "syn1", "--seed", "3", *BUDGET],
                          env=env, capture_output=True, text=True, timeout=300)
    print(done.stderr)
    assert done.returncode == 0, done.stderr
    assert "compile" not in done.stderr and "compile" not in done.stdout


def test_run_prints_no_preview_with_ready_kernels(tmp_path, capsys):
    code, out, err = run(["run", "--dataset", "syn1", "--seed", "3", *BUDGET], capsys)
    assert code == 0, err
    assert "kernels compile" not in err and "kernels compile" not in out
