"""Resume cache: a partial or corrupt run file is never taken as finished; bad inputs are named.

Each case damages the run files of one finished sweep the way a crash, a full
disk or a stray hand edit would, and checks that the next sweep redoes
exactly the damaged run (warning with the file's name) and that
``load_runs`` (the ``--report-only`` path) refuses it, naming the file and
what to delete.
"""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from ercot_nb.cli import main
from ercot_nb.experiments import load_runs, run_experiments

BUDGET = {"pop_size": 20, "n_evaluations": 60}
DATA = {"syn3": {"n_steps": 5}}
SWEEP = dict(params={"staticEC": BUDGET}, progress=False)
DAMAGED = "staticEC__syn3__run001.csv"


@pytest.fixture(scope="module")
def client(one_thread_client):
    return one_thread_client


@pytest.fixture(scope="module")
def finished(client, tmp_path_factory):
    """One complete sweep: 2 runs of 5 steps."""
    out_dir = tmp_path_factory.mktemp("finished")
    table = run_experiments(["staticEC"], DATA, 2, out_dir=out_dir, client=client, **SWEEP)
    return table, out_dir


@pytest.fixture
def copy(finished, tmp_path):
    table, out_dir = finished
    target = tmp_path / "runs"
    shutil.copytree(out_dir, target)
    return table, target


def rerun(client, out_dir):
    """Sweep again; return (table, runs executed, warning messages)."""
    executed = []
    with pytest.warns() as caught:
        table = run_experiments(["staticEC"], DATA, 2, out_dir=out_dir, client=client,
                                on_run_done=lambda rows: executed.append(int(rows["run"].iloc[0])), **SWEEP)
    return table, executed, [str(w.message) for w in caught]


def without_seconds(table):
    return table.drop(columns="seconds").reset_index(drop=True)


def truncate_to_header_and_three_rows(path):
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:4]), encoding="utf-8")


def cut_mid_line(path):
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) * 2 // 3], encoding="utf-8")


def garble_a_cell(path):
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[2, "RI"] = "0.9x7"
    frame.to_csv(path, index=False)


def drop_the_completion_record(path):
    path.with_name(path.name.replace(".csv", ".done.json")).unlink()  # a crash before the record


DAMAGE = {
    "truncated to header + 3 rows": truncate_to_header_and_three_rows,
    "cut mid-line": cut_mid_line,
    "garbled cell": garble_a_cell,
    "no completion record": drop_the_completion_record,
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_run_file_is_refused_by_the_report_and_redone_by_the_sweep(client, copy, damage):
    reference, out_dir = copy
    DAMAGE[damage](out_dir / DAMAGED)

    with pytest.raises(ValueError) as refused:
        load_runs(out_dir)
    print(f"[{damage}] load_runs: {refused.value}")
    assert str(out_dir / DAMAGED) in str(refused.value) and f"delete {DAMAGED}" in str(refused.value)

    table, executed, warned = rerun(client, out_dir)
    print(f"[{damage}] sweep warned: {warned}")
    assert executed == [1]  # only the damaged run, again
    assert any(str(out_dir / DAMAGED) in message and "running it again" in message for message in warned)
    pd.testing.assert_frame_equal(without_seconds(table), without_seconds(reference))
    pd.testing.assert_frame_equal(without_seconds(load_runs(out_dir)), without_seconds(reference))


def test_a_stray_file_is_named_by_the_report_and_ignored_by_the_sweep(client, copy):
    reference, out_dir = copy
    (out_dir / "staticEC__syn3__run099.csv").write_text("algorithm,dataset\nstaticEC,syn3\n", encoding="utf-8")
    (out_dir / "notes.txt").write_text("not a run", encoding="utf-8")

    with pytest.raises(ValueError) as refused:
        load_runs(out_dir)
    print(f"[stray file] load_runs: {refused.value}")
    assert "staticEC__syn3__run099.csv" in str(refused.value) and "delete" in str(refused.value)

    executed = []
    table = run_experiments(["staticEC"], DATA, 2, out_dir=out_dir, client=client,
                            on_run_done=lambda rows: executed.append(1), **SWEEP)
    assert executed == []  # both runs are finished; the stray one is not part of the sweep
    pd.testing.assert_frame_equal(without_seconds(table), without_seconds(reference))


def test_an_orphaned_completion_record_is_named(copy):
    _, out_dir = copy
    (out_dir / DAMAGED).unlink()
    with pytest.raises(ValueError, match=f"{DAMAGED} is not a complete run file: the file is missing"):
        load_runs(out_dir)


@pytest.mark.parametrize("content", ["{\"abc\": ", "[1, 2]"])
def test_a_corrupt_settings_file_is_named_before_any_run(client, copy, content):
    _, out_dir = copy
    (out_dir / "settings.json").write_text(content, encoding="utf-8")
    (out_dir / DAMAGED).unlink()  # one run left to do: it must not start
    (out_dir / DAMAGED.replace(".csv", ".done.json")).unlink()
    executed = []
    with pytest.raises(ValueError) as refused:
        run_experiments(["staticEC"], DATA, 2, out_dir=out_dir, client=client,
                        on_run_done=lambda rows: executed.append(1), **SWEEP)
    print(f"[corrupt settings.json {content!r}] {refused.value}")
    assert str(out_dir / "settings.json") in str(refused.value) and "delete it" in str(refused.value)
    assert executed == [] and not (out_dir / DAMAGED).exists()


def test_the_completion_record_holds_rows_and_checksum(finished):
    table, out_dir = finished
    record = json.loads((out_dir / DAMAGED.replace(".csv", ".done.json")).read_text())
    assert record["rows"] == 5 == (table["run"] == 1).sum()
    assert record["status"] == "ok" and len(record["sha256"]) == 64
    assert not list(out_dir.glob("*.partial")) and not list(out_dir.glob(".*.tmp"))


@pytest.mark.parametrize("param, message", [
    ("staticEC:pop_size=7", "staticEC: pop_size must be an even int in [4, 100000], got 7"),
    ("staticEC:knee=steepest", "knee"),
    ("staticEC:pop_sise=20", "pop_sise"),
])
def test_invalid_params_are_refused_before_any_run(tmp_path, capsys, param, message):
    code = main(["experiments", "--runs", "1", "--out", str(tmp_path), "--algorithms", "staticEC",
                 "--datasets", "syn3", "--param", param, "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    print(f"[--param {param}] exit {code}: {err.strip()}")
    assert code == 2 and message in err
    assert not list(tmp_path.rglob("*.csv"))  # nothing ran
