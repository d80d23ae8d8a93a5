"""Experiment runner and report: Dask sweep, resume, killed worker, Wilcoxon marks, report files."""
from __future__ import annotations

import os
import signal
import time

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster
from scipy import stats

from ercot_nb import algorithms, datasets
from ercot_nb.params._mixin import ParamsMixin
from ercot_nb.cli import main
from ercot_nb.experiments import (
    KNOWN_K,
    PAPER_RESULTS,
    RUN_COLUMNS,
    build_report,
    load_fronts,
    mark_against_reference,
    run_experiments,
    seconds_table,
    significance_marks,
    summary_table,
)
from ercot_nb.metrics import score_steps

BUDGET = dict(pop_size=20, n_evaluations=60)
PARAMS = {"ERCOT": BUDGET, "staticEC": BUDGET}
ALGORITHMS = ["ERCOT", "staticEC"]
DATA = {"syn3": {"n_steps": 4}, "syn7": {"n_steps": 7}}
RUNS = 3
N_RUNS = len(ALGORITHMS) * len(DATA) * RUNS
N_ROWS = len(ALGORITHMS) * RUNS * sum(extra["n_steps"] for extra in DATA.values())


def without_timing(table: pd.DataFrame) -> pd.DataFrame:
    """Everything but the wall-clock column, which legitimately differs between sweeps."""
    return table.drop(columns="seconds").reset_index(drop=True)


@pytest.fixture(scope="module")
def thread_client():
    """A two-worker in-process cluster (threads), started once for the module."""
    # Compile / load the numba kernels here once so that workers find them ready.
    algorithms.make("ERCOT", seed=0, **BUDGET).fit(datasets.load("syn3", seed=0, n_steps=2))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address="127.0.0.1:0") as cluster:
        with Client(cluster) as client:
            yield client


@pytest.fixture(scope="module")
def reference(thread_client, tmp_path_factory):
    """One uninterrupted sweep: (table, folder of its run files)."""
    out_dir = tmp_path_factory.mktemp("reference") / "runs"
    table = run_experiments(ALGORITHMS, DATA, RUNS, params=PARAMS, out_dir=out_dir,
                            client=thread_client, progress=False)
    return table, out_dir


class _Interrupt(Exception):
    pass


def _counter():
    executed: list[tuple[str, str, int]] = []

    def on_run_done(rows: pd.DataFrame) -> None:
        first = rows.iloc[0]
        executed.append((first["algorithm"], first["dataset"], int(first["run"])))

    return executed, on_run_done


def _run_files(out_dir):
    return sorted(p for p in out_dir.glob("*__run*.csv") if not p.name.endswith(".fronts.csv"))


# ---------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------


def test_sweep_gives_one_row_per_step_and_matches_a_direct_fit(reference):
    table, out_dir = reference
    assert list(table.columns) == RUN_COLUMNS
    assert len(table) == N_ROWS
    assert (table["status"] == "ok").all()
    assert table.groupby(["algorithm", "dataset"]).run.nunique().eq(RUNS).all()
    assert len(_run_files(out_dir)) == N_RUNS
    # final populations kept only for ERCOT on syn7 (the default), one file per run
    assert sorted(p.name for p in out_dir.glob("*.fronts.csv")) == [
        f"ERCOT__syn7__run{r:03d}.fronts.csv" for r in range(RUNS)
    ]
    # alpha: none at the first step, ERCOT has one later, staticEC never
    ercot = table[table.algorithm == "ERCOT"]
    assert ercot[ercot.t == 0].alpha.isna().all() and ercot[ercot.t > 0].alpha.notna().all()
    assert table[table.algorithm == "staticEC"].alpha.isna().all()

    # run r = algorithm seed r on data generated with seed 0
    data = datasets.load("syn7", seed=0, n_steps=7)
    model = algorithms.make("ERCOT", seed=2, **BUDGET).fit(data)
    expected = score_steps(data, model.labels_)
    got = table[(table.algorithm == "ERCOT") & (table.dataset == "syn7") & (table.run == 2)]
    np.testing.assert_allclose(got["RI"], expected["RI"])
    np.testing.assert_allclose(got["NMI"], expected["NMI"])
    np.testing.assert_array_equal(got["n_clusters"], model.n_clusters_)


def test_interrupted_sweep_resumes_without_redoing_or_losing_runs(thread_client, reference, tmp_path):
    reference_table, _ = reference
    out_dir = tmp_path / "runs"
    finished_before_stop = 3

    def stop_after_three(rows: pd.DataFrame) -> None:
        if len(_run_files(out_dir)) >= finished_before_stop:
            raise _Interrupt

    with pytest.raises(_Interrupt):
        run_experiments(ALGORITHMS, DATA, RUNS, params=PARAMS, out_dir=out_dir, client=thread_client,
                        progress=False, on_run_done=stop_after_three)
    kept = {path.name: path.read_bytes() for path in _run_files(out_dir)}
    assert len(kept) == finished_before_stop

    executed, count = _counter()
    table = run_experiments(ALGORITHMS, DATA, RUNS, params=PARAMS, out_dir=out_dir, client=thread_client,
                            progress=False, on_run_done=count)
    assert len(executed) == N_RUNS - finished_before_stop
    assert {path.name: path.read_bytes() for path in _run_files(out_dir) if path.name in kept} == kept
    pd.testing.assert_frame_equal(without_timing(table), without_timing(reference_table))

    # lost files: exactly those runs are redone
    lost = _run_files(out_dir)[1:3]
    for path in lost:
        path.unlink()
    executed, count = _counter()
    table = run_experiments(ALGORITHMS, DATA, RUNS, params=PARAMS, out_dir=out_dir, client=thread_client,
                            progress=False, on_run_done=count)
    assert sorted(f"{a}__{d}__run{r:03d}.csv" for a, d, r in executed) == sorted(p.name for p in lost)
    pd.testing.assert_frame_equal(without_timing(table), without_timing(reference_table))


def test_run_files_of_other_settings_are_refused(thread_client, reference):
    _, out_dir = reference
    other_budget = {"ERCOT": dict(pop_size=20, n_evaluations=80), "staticEC": BUDGET}
    with pytest.raises(ValueError, match="other settings"):
        run_experiments(ALGORITHMS, DATA, RUNS, params=other_budget, out_dir=out_dir,
                        client=thread_client, progress=False)


def test_known_k_gives_the_data_sets_true_number_of_clusters(thread_client, tmp_path):
    table = run_experiments(["staticEC"], DATA, 1, params={"staticEC": {**BUDGET, "n_clusters": KNOWN_K}},
                            out_dir=tmp_path, client=thread_client, progress=False)
    assert (table[table.dataset == "syn3"].n_clusters == 4).all()  # syn3 has k = 4
    assert table[table.dataset == "syn7"].n_clusters.nunique() > 1  # syn7's k is unknown: searched


class Picky(ParamsMixin):
    """Refuses every data set, as k-meansCOT refuses changing sample sets."""

    def __init__(self, seed=None):
        self.seed = seed

    def fit(self, data):
        raise ValueError("needs a fixed sample set")


class Crashy(ParamsMixin):
    """A bug: fails with something other than ValueError."""

    def __init__(self, seed=None):
        self.seed = seed

    def fit(self, data):
        raise RuntimeError("boom")


def test_not_applicable_and_failed_runs_are_recorded_and_only_failures_retried(
    thread_client, tmp_path, monkeypatch
):
    monkeypatch.setitem(algorithms._REGISTRY, "Picky", f"{__name__}:Picky")
    monkeypatch.setitem(algorithms._REGISTRY, "Crashy", f"{__name__}:Crashy")
    sweep = dict(params={"staticEC": BUDGET}, out_dir=tmp_path, client=thread_client, progress=False)
    data = {"syn3": {"n_steps": 3}}
    table = run_experiments(["Picky", "Crashy", "staticEC"], data, 2, **sweep)

    status = table.drop_duplicates(["algorithm", "run"]).set_index(["algorithm", "run"])
    assert (status.loc["Picky", "status"] == "n/a").all()
    assert status.loc["Picky", "error"].str.contains("ValueError: needs a fixed sample set").all()
    assert (status.loc["Crashy", "status"] == "failed").all()
    assert status.loc["Crashy", "error"].str.contains("RuntimeError: boom").all()
    assert (table[table.algorithm == "staticEC"].status == "ok").all()
    assert table[table.status != "ok"]["t"].isna().all()  # one row per run without a partition

    executed, count = _counter()
    run_experiments(["Picky", "Crashy", "staticEC"], data, 2, on_run_done=count, **sweep)
    assert sorted(executed) == [("Crashy", "syn3", 0), ("Crashy", "syn3", 1)]
    executed, count = _counter()
    run_experiments(["Picky", "Crashy", "staticEC"], data, 2, on_run_done=count, retry_failed=False, **sweep)
    assert executed == []

    summary = summary_table(table).set_index("algorithm")
    assert summary.loc["Picky", "status"] == "n/a" and summary.loc["Crashy", "status"] == "failed"


@pytest.mark.slow
def test_sweep_survives_a_killed_worker(reference, tmp_path):
    reference_table, _ = reference
    killed: dict[str, object] = {}

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                      host="127.0.0.1", env={"NUMBA_NUM_THREADS": "1"}) as cluster:
        with Client(cluster) as client:

            def kill_a_busy_worker(rows: pd.DataFrame) -> None:
                if killed:
                    return
                pids = client.run(os.getpid)
                busy: dict = {}
                for _ in range(200):  # wait until some worker holds a run
                    busy = {worker: keys for worker, keys in client.processing().items() if keys}
                    if busy:
                        break
                    time.sleep(0.01)
                if not busy:
                    killed.update(pid=None, keys=[])
                    return
                worker, keys = next(iter(busy.items()))
                killed.update(pid=pids[worker], keys=list(keys))
                os.kill(pids[worker], signal.SIGKILL)

            table = run_experiments(ALGORITHMS, DATA, RUNS, params=PARAMS, out_dir=tmp_path, client=client,
                                    progress=False, on_run_done=kill_a_busy_worker)
            assert killed["keys"], "no run was in progress on a worker"
            assert killed["pid"] not in client.run(os.getpid).values()  # the nanny started a new worker

    assert (table["status"] == "ok").all()
    pd.testing.assert_frame_equal(without_timing(table), without_timing(reference_table))


# ---------------------------------------------------------------------------
# Wilcoxon marks
# ---------------------------------------------------------------------------


def _hand_made_runs() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    ercot = 0.9 + rng.uniform(0, 0.02, size=12)
    competitors = {
        "ERCOT": ercot,
        "Worse": ercot - 0.05 + rng.uniform(-0.005, 0.005, size=12),
        "Identical": ercot.copy(),
        "Shuffled": rng.permutation(ercot),
        "Better": ercot + 0.05,
        "Deterministic": np.full(12, 0.8),  # no spread at all, as E2SC in the paper
    }
    return pd.DataFrame([
        {"algorithm": name, "dataset": "syn1", "run": run, "mRI": value}
        for name, values in competitors.items() for run, value in enumerate(values)
    ])


@pytest.mark.parametrize("test", ["rank-sum", "signed-rank"])
def test_marks_on_hand_made_runs(test):
    marks = significance_marks(_hand_made_runs(), "mRI", test=test).set_index("algorithm")["mark"]
    assert marks.to_dict() == {
        "Worse": ">", "Identical": "≈", "Shuffled": "≈", "Better": "", "Deterministic": ">",
    }


def test_marks_use_the_requested_test_and_level():
    runs = _hand_made_runs().pivot(index="run", columns="algorithm", values="mRI")
    p_value, _ = mark_against_reference(runs["ERCOT"], runs["Worse"])
    assert p_value == pytest.approx(stats.mannwhitneyu(runs["ERCOT"], runs["Worse"]).pvalue)
    p_value, _ = mark_against_reference(runs["ERCOT"], runs["Worse"], test="signed-rank")
    assert p_value == pytest.approx(stats.wilcoxon(runs["ERCOT"], runs["Worse"], zero_method="zsplit").pvalue)
    # a real but small difference: significant at 0.05 only with enough separation
    close = runs["ERCOT"] - 0.004
    p_close, mark = mark_against_reference(runs["ERCOT"], close)
    assert 0.05 < p_close and mark == "≈"
    assert mark_against_reference(runs["ERCOT"], close, significance=0.9)[1] == ">"
    with pytest.raises(ValueError, match="test must be"):
        mark_against_reference(runs["ERCOT"], close, test="sign")


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def test_report_files(reference, tmp_path):
    table, runs_dir = reference
    paths = build_report(table, tmp_path, runs_dir=runs_dir, command="pytest", wall_seconds=12.0)

    report = paths["report"].read_text(encoding="utf-8")
    ercot_syn3 = table[(table.algorithm == "ERCOT") & (table.dataset == "syn3")].groupby("run").RI.mean()
    for expected in ("## Table II: mRI", "## Table III: mNMI", "## Table IV: mean seconds per time step",
                     f"{ercot_syn3.mean():.4f}", "paper 0.9554 ± 4.51E-03",  # ERCOT's Syn3 mRI in the paper
                     "paper 0.9153 ± 1.55E-02 >", "not run<br>paper", "Command: `pytest`", "12 s",
                     # 3 runs a side: the rank-sum test cannot go below p = 0.1
                     "With 3 run(s) per algorithm no difference can be significant"):
        assert expected in report, expected
    assert "Table II" in report and "| Syn3 |" in report and "| Syn7 |" in report

    page = paths["figures"].read_text(encoding="utf-8")
    assert len(page) > 1_000_000  # plotly.js embedded
    assert 'src="http' not in page
    assert page.count('class="ercot-nb-figure"') == 4  # RI/step, alpha/step, fronts, seconds table

    runs = pd.read_csv(paths["runs"])
    assert len(runs) == len(table) and list(runs.columns) == RUN_COLUMNS
    np.testing.assert_allclose(runs["RI"], table["RI"])


def test_kept_fronts_are_the_final_populations(reference):
    _, runs_dir = reference
    fronts = load_fronts(runs_dir, "ERCOT", "syn7", 0)
    assert set(fronts["time"]) == set(range(1, 8))
    assert len(fronts) == 7 * BUDGET["pop_size"]
    assert fronts.groupby("t")["knee"].sum().eq(1).all()
    assert load_fronts(runs_dir, "staticEC", "syn7", 0) is None


def test_paper_tables_are_complete_and_are_what_the_data_sets_quote():
    syn = PAPER_RESULTS[PAPER_RESULTS.dataset.str.startswith("syn")]
    assert len(syn) == 2 * 8 * 6
    assert set(syn["mark"]) <= {">", "≈", ""}
    assert (syn[syn.algorithm == "ERCOT"]["mark"] == "").all()
    for dataset in sorted(set(syn.dataset)):
        cells = syn[(syn.algorithm == "ERCOT") & (syn.dataset == dataset)].set_index("metric")["mean"]
        assert datasets.load(dataset, seed=0).metadata["paper_ercot"] == {"mRI": cells["mRI"], "mNMI": cells["mNMI"]}
    # the paper's n/a cells: k-meansCOT beyond Syn4, E2SC on Syn5/6
    not_available = syn[syn["mean"].isna()]
    assert set(zip(not_available.algorithm, not_available.dataset)) == {
        *(("k-meansCOT", f"syn{i}") for i in range(5, 9)), ("E2SC", "syn5"), ("E2SC", "syn6"),
    }


def test_cli_runs_on_a_scheduler_and_rebuilds_the_report(thread_client, tmp_path, capsys):
    address = thread_client.scheduler.address
    argv = ["experiments", "--runs", "2", "--out", str(tmp_path), "--algorithms", "ercot", "staticEC",
            "--datasets", "syn3", "--scheduler", address, "--no-progress"]
    for name in ALGORITHMS:
        argv += ["--param", f"{name}:pop_size=20", "--param", f"{name}:n_evaluations=60"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "mRI" in out and "wall time" in out
    assert {p.name for p in tmp_path.iterdir()} >= {"report.md", "figures.html", "runs.csv", "runs"}
    assert len(_run_files(tmp_path / "runs")) == 4

    (tmp_path / "report.md").unlink()
    assert main(argv + ["--report-only", "--test", "signed-rank"]) == 0
    assert "signed-rank" in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_cli_reports_bad_names_in_one_line(tmp_path, capsys):
    assert main(["experiments", "--out", str(tmp_path), "--algorithms", "nope", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ercot-nb: error: unknown algorithm 'nope'") and err.count("\n") == 1


def test_seconds_table_adds_the_papers_times_of_the_timed_data_sets():
    summary = pd.DataFrame([
        {"algorithm": a, "dataset": d, "seconds_per_step": s}
        for a, s in (("ERCOT", 0.5), ("staticEC", 0.25))
        for d in ("bird_flocks", "video_bt", "video_mo")
    ])
    table = seconds_table(summary)
    assert list(table.columns) == ["bird_flocks", "video_bt", "video_mo",
                                   "paper Bird_flocks", "paper Video_mo"]
    assert table.loc["ERCOT", "paper Video_mo"] == 1.9953
    assert table.loc["staticEC", "paper Bird_flocks"] == 0.2131
    # a sweep without any data set the paper timed falls back to its Syn1 column
    only_syn3 = seconds_table(summary.assign(dataset="syn3").drop_duplicates(["algorithm"]))
    assert list(only_syn3.columns) == ["syn3", "paper Syn1"]
    assert only_syn3.loc["ERCOT", "paper Syn1"] == 0.2769
