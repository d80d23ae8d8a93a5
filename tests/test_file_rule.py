"""The rule of ``ercot_nb._files`` for every file the package writes.

No output replaces an input of the same command (any spelling, links), two
outputs never share a path, an existing file is replaced only when asked
(experiments folders: only the files a report listed in its manifest), the
command line creates no missing folder, and every write is atomic.
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ercot_nb import ClusteringResult, StaticEC, datasets, figures
from ercot_nb._files import MANIFEST_NAME, OutputError, atomic_write, atomic_write_text, check_outputs
from ercot_nb.cli import main
from ercot_nb.page import write as write_page

BUDGET = ["--pop-size", "20", "--evaluations", "40"]
TINY = ["--algorithm", "staticec", *BUDGET]


def tiny_csv(path: Path, seed: int = 0) -> Path:
    """Three steps of 16 samples in two blobs: a fit takes a fraction of a second."""
    rng = np.random.default_rng(seed)
    rows = [{"time": step, "id": f"s{i}", "x": (i % 2) * 5 + rng.normal(scale=0.3), "y": rng.normal()}
            for step in range(3) for i in range(16)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def csv_args(path) -> list[str]:
    return ["run", "--csv", str(path), "--time", "time", "--id", "id", *TINY]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> bool:
    return err.startswith("ercot-nb: error: ") and err.count("\n") == 1 and "Traceback" not in err


def leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith((".tmp", ".partial"))]


@pytest.fixture(scope="module")
def small_result():
    data = datasets.load("syn1", seed=0, n_steps=2)
    return StaticEC(seed=0, pop_size=20, n_evaluations=40, progress=False).fit(data).result_, data


# ---------------------------------------------------------------------------
# Data loss: an input, or another output, is never written
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_run_out_equal_to_the_input_csv_is_refused(tmp_path, capsys, monkeypatch, spelling, overwrite):
    data = tiny_csv(tmp_path / "d.csv")
    before = data.read_bytes()
    monkeypatch.chdir(tmp_path)
    out = {"same": "d.csv", "dot": "./d.csv"}.get(spelling)
    if spelling == "symlink":
        os.symlink(data, tmp_path / "link.csv")
        out = "link.csv"
    elif spelling == "hardlink":
        os.link(data, tmp_path / "hard.csv")
        out = "hard.csv"
    code, _, err = run(["run", "--csv", "d.csv", "--time", "time", "--id", "id", *TINY, "--out", out,
                        *overwrite], capsys)
    print(f"[--out {out}] exit {code}: {err.strip()}")
    assert code == 2 and one_line_error(err) and "--csv" in err and "input" in err
    assert data.read_bytes() == before


def test_run_save_result_equal_to_the_input_is_refused(tmp_path, capsys):
    data = tiny_csv(tmp_path / "table.npz")  # a CSV file with an .npz name
    before = data.read_bytes()
    code, _, err = run([*csv_args(data), "--save-result", str(tmp_path / "table")], capsys)  # .npz added
    print(f"exit {code}: {err.strip()}")
    assert code == 2 and one_line_error(err) and "--save-result" in err and "--csv" in err
    assert data.read_bytes() == before


@pytest.mark.parametrize("out, saved", [("x.npz", "x.npz"), ("x.npz", "x"), ("sub/../x.npz", "x")])
def test_two_outputs_of_one_run_never_share_a_path(tmp_path, capsys, monkeypatch, out, saved):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    code, _, err = run(["run", "--dataset", "syn1", "--data-param", "n_steps=2", *TINY,
                        "--out", out, "--save-result", saved], capsys)
    print(f"[--out {out} --save-result {saved}] exit {code}: {err.strip()}")
    assert code == 2 and one_line_error(err) and "same file" in err
    assert not (tmp_path / "x.npz").exists()


def test_run_refuses_an_existing_output_unless_overwrite(tmp_path, capsys):
    data = tiny_csv(tmp_path / "d.csv")
    mine = tmp_path / "labels.csv"
    mine.write_text("my own notes\n")
    code, _, err = run([*csv_args(data), "--out", str(mine)], capsys)
    assert code == 2 and one_line_error(err) and "--overwrite" in err
    assert mine.read_text() == "my own notes\n"
    saved = tmp_path / "r.npz"
    saved.write_bytes(b"precious")
    code, _, err = run([*csv_args(data), "--save-result", str(saved)], capsys)
    assert code == 2 and "--save-result" in err and saved.read_bytes() == b"precious"
    # asked for: both replaced
    code, _, err = run([*csv_args(data), "--out", str(mine), "--save-result", str(saved), "--overwrite"], capsys)
    assert code == 0, err
    assert list(pd.read_csv(mine).columns)[:3] == ["t", "time", "id"]
    assert ClusteringResult.load(saved).algorithm == "staticEC"


def _sweep_runs(runs_dir: Path) -> None:
    """Two finished staticEC runs on syn1 (2 steps), written as a sweep writes them (no Dask)."""
    from ercot_nb.experiments.runner import execute_run
    from ercot_nb.experiments.spec import RunSpec
    from ercot_nb.experiments.store import save_run

    runs_dir.mkdir(parents=True)
    for run_index in range(2):
        spec = RunSpec("staticEC", "syn1", run_index, params={"pop_size": 20, "n_evaluations": 40},
                       dataset_params={"n_steps": 2})
        save_run(runs_dir, spec, execute_run(spec))


REPORT_ONLY = ["--runs", "2", "--algorithms", "staticEC", "--datasets", "syn1", "--report-only", "--no-progress"]


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep") / "E"
    _sweep_runs(folder / "runs")
    return folder


@pytest.mark.parametrize("name", ["report.md", "runs.csv", "figures.html"])
def test_experiments_keeps_a_users_own_report_files(sweep_folder, tmp_path, capsys, name):
    import shutil

    folder = tmp_path / "E"
    shutil.copytree(sweep_folder, folder)
    (folder / name).write_text("my own file\n")
    code, _, err = run(["experiments", "--out", str(folder), *REPORT_ONLY], capsys)
    print(f"[{name}] exit {code}: {err.strip()}")
    assert code == 2 and one_line_error(err) and name in err and "--overwrite" in err
    assert (folder / name).read_text() == "my own file\n"
    assert not any((folder / other).exists() for other in {"report.md", "runs.csv", "figures.html"} - {name})


def test_experiments_replaces_exactly_the_files_its_manifest_lists(sweep_folder, tmp_path, capsys):
    import shutil

    folder = tmp_path / "E"
    shutil.copytree(sweep_folder, folder)
    assert run(["experiments", "--out", str(folder), *REPORT_ONLY], capsys)[0] == 0
    manifest = json.loads((folder / MANIFEST_NAME).read_text())
    assert set(manifest["files"]) == {"report.md", "runs.csv", "figures.html"}
    # its own files: a second report replaces them, no --overwrite needed
    (folder / "report.md").write_text("stale")
    code, _, err = run(["experiments", "--out", str(folder), *REPORT_ONLY, "--test", "signed-rank"], capsys)
    assert code == 0, err
    assert "signed-rank" in (folder / "report.md").read_text()
    # a file the manifest does not list is the user's: refused, then replaced when asked
    (folder / MANIFEST_NAME).write_text(json.dumps({"files": ["../outside.txt", "report.md", "figures.html"]}))
    (folder / "runs.csv").write_text("mine\n")
    code, _, err = run(["experiments", "--out", str(folder), *REPORT_ONLY], capsys)
    assert code == 2 and "runs.csv" in err and (folder / "runs.csv").read_text() == "mine\n"
    code, _, err = run(["experiments", "--out", str(folder), *REPORT_ONLY, "--overwrite"], capsys)
    assert code == 0, err
    assert (folder / "runs.csv").read_text() != "mine\n"
    assert leftovers(folder) == []


def test_experiments_refuses_a_runs_folder_no_sweep_wrote(tmp_path, capsys):
    runs = tmp_path / "E" / "runs"
    runs.mkdir(parents=True)
    (runs / "staticEC__syn1__run000.csv").write_text("my own table\n")
    code, _, err = run(["experiments", "--out", str(tmp_path / "E"), "--runs", "1", "--algorithms", "staticEC",
                        "--datasets", "syn1", "--no-progress", "--workers", "1"], capsys)
    assert code == 2 and one_line_error(err) and "no sweep wrote" in err
    assert (runs / "staticEC__syn1__run000.csv").read_text() == "my own table\n"


def test_build_report_api_follows_the_same_rule(sweep_folder, tmp_path):
    from ercot_nb.experiments import build_report, load_runs

    table = load_runs(sweep_folder / "runs")
    (tmp_path / "report.md").write_text("notes")
    with pytest.raises(ValueError, match="report.md already exists.*overwrite=True"):
        build_report(table, tmp_path)
    assert (tmp_path / "report.md").read_text() == "notes"
    paths = build_report(table, tmp_path, overwrite=True)
    assert "Table II" in paths["report"].read_text()
    build_report(table, tmp_path)  # listed in the manifest now: replaced without asking


# ---------------------------------------------------------------------------
# Crashes and unclear messages
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["file", "under_a_file", "runs_is_a_file"])
def test_experiments_out_that_is_not_a_folder_is_one_line(tmp_path, capsys, kind):
    some_file = tmp_path / "some_file.txt"
    some_file.write_text("x")
    out = {"file": some_file, "under_a_file": some_file / "E", "runs_is_a_file": tmp_path / "E"}[kind]
    if kind == "runs_is_a_file":
        out.mkdir()
        (out / "runs").write_text("x")
    code, _, err = run(["experiments", "--out", str(out), "--runs", "1", "--algorithms", "staticEC",
                        "--datasets", "syn1", "--no-progress", "--workers", "1"], capsys)
    print(f"[{kind}] exit {code}: {err.strip()}")
    assert code == 2 and one_line_error(err)
    if kind == "under_a_file":  # the file in the way is named as a file, not as a missing folder
        assert f"{some_file} is a file, not a folder" in err and "does not exist" not in err
    assert some_file.read_text() == "x"


@pytest.mark.parametrize("flag", ["--out", "--save-result"])
def test_run_refuses_a_missing_output_folder_and_creates_none(tmp_path, capsys, flag):
    missing = tmp_path / "nonexistent" / "dir"
    code, _, err = run(["run", "--dataset", "syn1", "--data-param", "n_steps=2", *TINY,
                        flag, str(missing / "l.csv")], capsys)
    print(f"[{flag}] exit {code}: {err.strip()}")
    assert code == 2 and one_line_error(err) and "does not exist" in err and str(missing) in err
    assert not (tmp_path / "nonexistent").exists()


def test_experiments_creates_only_its_own_folder(tmp_path, capsys):
    code, _, err = run(["experiments", "--out", str(tmp_path / "a" / "b"), *REPORT_ONLY], capsys)
    assert code == 2 and one_line_error(err) and "does not exist" in err
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize("argv, name", [
    (["--pop-size", "30", "--param", "pop_size=20"], "pop_size"),
    (["--param", "seed=4", "--seed", "2"], "seed"),
    (["--param", "crossover_rate=0.8", "--param", "crossover_rate=0.9"], "crossover_rate"),
    (["--knee", "ideal", "--param", "knee=mock"], "knee"),
])
def test_run_refuses_a_parameter_given_twice(capsys, argv, name):
    code, _, err = run(["run", "--dataset", "syn1", "--algorithm", "staticec", *argv], capsys)
    print(f"[{' '.join(argv)}] exit {code}: {err.strip()}")
    assert code == 2 and one_line_error(err) and name in err and "twice" in err


@pytest.mark.parametrize("argv", [
    ["--data-seed", "1", "--data-param", "seed=2"],
    ["--data-param", "n_steps=2", "--data-param", "n_steps=3"],
])
def test_run_refuses_a_data_parameter_given_twice(capsys, argv):
    code, _, err = run(["run", "--dataset", "syn1", *TINY, *argv], capsys)
    assert code == 2 and one_line_error(err) and "twice" in err


def test_experiments_refuses_a_parameter_given_twice(tmp_path, capsys):
    code, _, err = run(["experiments", "--out", str(tmp_path), "--algorithms", "staticEC", "--datasets", "syn1",
                        "--param", "staticEC:pop_size=20", "--param", "staticec:pop_size=30"], capsys)
    assert code == 2 and one_line_error(err) and "pop_size" in err and "twice" in err
    assert list(tmp_path.iterdir()) == []


def test_a_flag_alone_or_its_param_alone_still_works(capsys, tmp_path):
    base = ["run", "--dataset", "syn1", "--data-param", "n_steps=2", "--algorithm", "staticec"]
    code, _, err = run([*base, "--param", "pop_size=20", "--evaluations", "40", "--param", "seed=3",
                        "--out", str(tmp_path / "a.csv")], capsys)
    assert code == 0, err
    code, _, err = run([*base, "--pop-size", "20", "--param", "n_evaluations=40", "--seed", "3",
                        "--out", str(tmp_path / "b.csv")], capsys)
    assert code == 0, err
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv"))


HEAVY = ("dask", "distributed", "numba", "scipy", "pandas", "plotly")


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["experiments", "--help"], ["run", "--bogus"]])
def test_help_and_usage_errors_import_nothing_heavy(argv):
    code = (
        "import sys\n"
        "from ercot_nb.cli import main\n"
        f"code = main({argv!r})\n"
        f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))\n"
        "print('HEAVY', heavy, 'CODE', code, file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    last = done.stderr.strip().splitlines()[-1]
    print(argv, last)
    assert last == f"HEAVY [] CODE {2 if argv[-1] == '--bogus' else 0}"


def test_the_parsers_light_choices_equal_their_sources():
    from ercot_nb import cli
    from ercot_nb.experiments import cli as experiments_cli, spec, statistics

    # dataset names, knee rules and scalings are no longer copied: the catalogue, the spec and
    # TemporalDataset.scaled are read
    assert not hasattr(cli, "DATASET_NAMES")
    assert not hasattr(cli, "KNEE_RULES") and not hasattr(cli, "SCALINGS")
    assert experiments_cli.TEST_CHOICES == statistics.TESTS
    assert experiments_cli.DEFAULT_KNOWN_K_NAMES == spec.DEFAULT_KNOWN_K


# ---------------------------------------------------------------------------
# Python API: save, to_html, save_html, ExplorerPage.save, tutorials
# ---------------------------------------------------------------------------


def test_result_save_and_pages_refuse_an_existing_file_unless_overwrite(small_result, tmp_path):
    from ercot_nb.page import ExplorerPage

    result, data = small_result
    writers = {
        "r.npz": lambda path, **kw: result.save(path, **kw),
        "page.html": lambda path, **kw: write_page(result, path, data, **kw),
        "explorer.html": lambda path, **kw: ExplorerPage(result, data).save(path, **kw),
        "figures.html": lambda path, **kw: figures.save_html(figures.alpha_figure(result), path, **kw),
    }
    for name, write in writers.items():
        path = tmp_path / name
        path.write_bytes(b"mine")
        with pytest.raises(ValueError, match="already exists.*overwrite=True"):
            write(path)
        assert path.read_bytes() == b"mine", name
        assert write(path, overwrite=True) == path and path.read_bytes() != b"mine"
    # save appends .npz: the file checked is the file written
    (tmp_path / "s.npz").write_bytes(b"mine")
    with pytest.raises(ValueError, match="s.npz"):
        result.save(tmp_path / "s")
    assert leftovers(tmp_path) == []


def test_an_interrupted_save_leaves_the_old_file_whole(small_result, tmp_path, monkeypatch):
    result, _ = small_result
    path = result.save(tmp_path / "r.npz")
    before = path.read_bytes()

    def disk_full(file, **arrays):
        if isinstance(file, (str, os.PathLike)):
            file = open(file, "wb")  # what np.savez_compressed(path) does first
        file.write(b"PK\x03\x04 half")
        file.flush()
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    with pytest.raises(OSError, match="No space"):
        result.save(path, overwrite=True)
    assert path.read_bytes() == before
    assert leftovers(tmp_path) == []
    assert ClusteringResult.load(path).algorithm == "staticEC"


def test_an_interrupted_labels_write_leaves_the_old_file_whole(tmp_path, capsys, monkeypatch):
    data = tiny_csv(tmp_path / "d.csv")
    out = tmp_path / "labels.csv"
    out.write_text("old,labels\n1,2\n")
    real = pd.DataFrame.to_csv

    def interrupted(frame, target=None, *args, **kwargs):
        if isinstance(target, (str, os.PathLike)):
            target = open(target, "w")
        target.write(b"t,ti" if "b" in getattr(target, "mode", "wb") else "t,ti")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        main([*csv_args(data), "--out", str(out), "--overwrite"])
    monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    assert out.read_text() == "old,labels\n1,2\n"
    assert leftovers(tmp_path) == []


def test_atomic_write_keeps_the_mode_and_cleans_up(tmp_path):
    path = tmp_path / "f.txt"
    atomic_write_text(path, "one")
    path.chmod(0o640)
    atomic_write_text(path, "two")
    assert path.read_text() == "two" and path.stat().st_mode & 0o777 == 0o640
    with pytest.raises(ZeroDivisionError):
        atomic_write(path, lambda file: (file.write(b"half"), 1 / 0))
    assert path.read_text() == "two" and leftovers(tmp_path) == []


def test_tutorials_are_never_copied_onto_themselves(tmp_path, capsys):
    from ercot_nb.widgets.serve.shipped import find_tutorials

    source = find_tutorials()
    before = {p: p.read_bytes() for p in source.rglob("*.ipynb")}
    code, _, err = run(["tutorials", str(source), "--overwrite"], capsys)
    assert code == 2 and one_line_error(err) and "copied from" in err
    assert {p: p.read_bytes() for p in source.rglob("*.ipynb")} == before
    code, _, err = run(["tutorials", str(tmp_path / "no" / "such" / "dir")], capsys)
    assert code == 2 and one_line_error(err) and not (tmp_path / "no").exists()


def test_check_outputs_names_the_problem(tmp_path):
    (tmp_path / "in.csv").write_text("x")
    with pytest.raises(OutputError, match="--out .* is the input --csv"):
        check_outputs({"--out": tmp_path / "in.csv"}, {"--csv": tmp_path / "in.csv"}, overwrite=True)
    with pytest.raises(OutputError, match="is a folder"):
        check_outputs({"--out": tmp_path})
    assert check_outputs({"--out": tmp_path / "new.csv", "--save-result": None}) == {"--out": tmp_path / "new.csv"}
    with pytest.raises(OutputError, match="in.csv is a file, not a folder"):
        check_outputs({"path": tmp_path / "in.csv" / "deeper" / "x.html"}, create_parents=True)


# ---------------------------------------------------------------------------
# Property: no input changes, no file the command did not create is replaced
# ---------------------------------------------------------------------------

NAMES = ["d.csv", "./d.csv", "link.csv", "a.csv", "b.npz", "b", "sub/c.csv", "missing/e.csv", "sub"]
EXISTING = ["a.csv", "b.npz", "sub/c.csv"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(out=st.none() | st.sampled_from(NAMES), saved=st.none() | st.sampled_from(NAMES),
       existing=st.sets(st.sampled_from(EXISTING)), overwrite=st.booleans())
def test_property_run_outputs_never_clobber(capsys, out, saved, existing, overwrite):
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        root = Path(folder)
        (root / "sub").mkdir()
        tiny_csv(root / "d.csv")
        os.symlink(root / "d.csv", root / "link.csv")
        for name in existing:
            (root / name).write_text(f"user's {name}\n")
        before = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
        argv = ["run", "--csv", "d.csv", "--time", "time", "--id", "id", *TINY]
        argv += ["--out", out] if out else []
        argv += ["--save-result", saved] if saved else []
        argv += ["--overwrite"] if overwrite else []
        code, _, err = run(argv, capsys)
        assert code in (0, 2), err
        if code == 2:
            assert one_line_error(err), err
        after = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
        written = set()
        if code == 0:
            written = {Path(os.path.normpath(out))} if out else set()
            if saved:
                written.add(Path(os.path.normpath(saved if saved.endswith(".npz") else
                                                  str(Path(saved).with_suffix(".npz")))))
        assert after[Path("d.csv")] == before[Path("d.csv")]  # the input, whatever the spelling
        for path, content in before.items():
            if path not in written:
                assert after[path] == content, path
            else:
                assert overwrite or path not in {Path(e) for e in existing}, path
        assert set(after) - set(before) <= written  # nothing else created
        assert not (root / "missing").exists()


def test_bench_quality_out_follows_the_rule(tmp_path, capsys):
    mine = tmp_path / "quality.csv"
    mine.write_text("my table\n")
    argv = ["bench", "quality", "--runs", "1", "--datasets", "syn1", "--algorithms", "staticEC", "--no-known-k",
            "--workers", "1"]
    with pytest.raises(SystemExit) as refused:
        main([*argv, "--out", str(mine)])
    assert refused.value.code == 2 and "--overwrite" in capsys.readouterr().err
    assert mine.read_text() == "my table\n"
    with pytest.raises(SystemExit):
        main([*argv, "--out", str(tmp_path / "missing" / "q.csv")])
    assert not (tmp_path / "missing").exists()
