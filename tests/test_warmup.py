"""``ercot-nb warmup`` fills the numba cache for every kernel a fit, the Explorer and the page use."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ercot_nb import warmup

_AFTER = """
import json
from ercot_nb import ERCOT, StaticEC, datasets
from ercot_nb.baselines._penalty import PenaltyEC
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        function = ev.data["dispatcher"].py_func
        compiled.append(function.__module__ + "." + function.__name__)
event.register("numba:compile", Listener())
data = datasets.load("syn1", seed=0)[:2]
ERCOT(seed=0).fit(data)
ERCOT(seed=0, precision="float32").fit(data)
ERCOT(seed=0, n_clusters=4).fit(data)
StaticEC(seed=0).fit(data[:1])
PenaltyEC(seed=0).fit(data)
# large data on several threads: every parallel variant (the engine's, the smoothness weight's pair kernel)
from ercot_nb.evolution import Engine
Engine.PARALLEL_WORK = 0
Engine.free_cores = classmethod(lambda cls: 99.0)
ERCOT(seed=0).fit(data)
ERCOT(seed=0, precision="float32").fit(data)
print(json.dumps([name for name in compiled if name.startswith("ercot_nb")]))
"""


BINDER_FIRST_FIT = Path(__file__).resolve().parents[1] / "binder" / "first_fit.py"


def _first_fit_report(completed: subprocess.CompletedProcess) -> dict:
    return json.loads(completed.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_cold_cache_compiles_and_after_the_warmup_nothing_does(tmp_path):
    """One cold numba cache, Binder's way (``NUMBA_CPU_NAME=generic``), taken through a class's first day.

    1. ``binder/first_fit.py`` (a fresh Jupyter kernel, ``NUMBA_DEBUG_CACHE=1``) on the cold cache
       compiles, and says so (exit 1);
    2. ``python -m ercot_nb.warmup`` fills the cache, announcing how long it takes;
    3. the same check in a fresh kernel now loads everything and compiles nothing (exit 0);
    4. every estimator, float32 and the parallel variants compile nothing either.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), NUMBA_CPU_NAME="generic",
               NUMBA_NUM_THREADS="2", HOME=str(tmp_path))
    run = dict(env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    check = [sys.executable, str(BINDER_FIRST_FIT)]
    debug = {**env, "NUMBA_DEBUG_CACHE": "1"}

    cold = subprocess.run(check, **{**run, "env": debug})
    assert cold.returncode == 1, cold.stdout + cold.stderr
    cold_report = _first_fit_report(cold)
    assert cold_report["dispatcher_cache_misses"] > 0
    assert cold_report["numba_debug_cache"]["data_saved"] > 0

    warm_up = subprocess.run([sys.executable, "-m", "ercot_nb.warmup"], check=True, **run)
    assert "about" in warm_up.stderr and "compiled and cached in" in warm_up.stderr

    warm = subprocess.run(check, **{**run, "env": debug})
    assert warm.returncode == 0, warm.stdout + warm.stderr
    report = _first_fit_report(warm)
    print("cold:", cold_report, "\nwarm:", report)
    assert report["dispatcher_cache_misses"] == 0 and report["numba_debug_cache"]["data_saved"] == 0
    assert report["dispatcher_cache_hits"] > 0 and report["numba_debug_cache"]["data_loaded"] > 0
    assert report["import_and_first_fit_s"] < cold_report["import_and_first_fit_s"] / 2

    after = subprocess.run([sys.executable, "-c", _AFTER], check=True, **run)
    assert json.loads(after.stdout.strip().splitlines()[-1]) == []  # nothing left to compile


def test_warmup_says_how_long_and_shows_progress(monkeypatch, capsys):
    monkeypatch.setattr(warmup, "_parts", lambda: [("a", 3.0, lambda: None), ("b", 2.0, lambda: None)])
    monkeypatch.setattr(warmup, "_PARALLEL_COMMAND", [sys.executable, "-c", "pass"])
    monkeypatch.setattr(warmup, "_idle_cores", lambda: 2.0)
    warmup.warm_up(verbose=True)
    err = capsys.readouterr().err
    assert f"about {warmup.estimated_seconds():.0f} s" in err
    assert "warm-up" in err  # the tqdm bar
    assert "compiled and cached in" in err


def test_estimate_counts_the_parallel_process_on_two_cores():
    assert warmup.estimated_seconds(cores=2) < warmup.estimated_seconds(cores=1)
    assert warmup.estimated_seconds(cores=0.8) == warmup.estimated_seconds(cores=1)  # one core taken


class _Counters:
    """OtherLoad stand-in: no answer at the first look, then ``others`` cores busy."""

    def __init__(self, others):
        self.looks, self.others = 0, others

    def cores(self):
        self.looks += 1
        return None if self.looks == 1 else self.others


def test_the_estimate_reads_the_cpu_counters_not_the_lagging_load_average(monkeypatch):
    """Right after a test run the load average said 1.3 on two idle cores: the estimate was the
    one-core time (64 s announced, 31 s taken)."""
    monkeypatch.setattr(warmup, "cpu_set", lambda: {0, 1})
    monkeypatch.setattr(warmup.os, "getloadavg", lambda: (1.3, 1.3, 1.3))
    assert warmup._idle_cores(_Counters(0.1), look=0) == pytest.approx(1.9)
    assert warmup._idle_cores(_Counters(1.0), look=0) == pytest.approx(1.0)  # another program
    assert warmup._idle_cores(_Counters(None), look=0) == pytest.approx(0.7)  # no counters: load average


def test_cli_warmup_runs_the_warm_up(monkeypatch):
    from ercot_nb import cli

    calls = []
    monkeypatch.setattr(warmup, "warm_up", lambda verbose=True: calls.append(verbose) or 0.0)
    assert cli.main(["warmup"]) == 0
    assert calls == [True]


def test_the_bar_ends_at_its_total(monkeypatch):
    """Parts of 10, 4, 0.5 and 0.5 s and 30 s in parallel: the bar of 45 ended at 44 (int(0.5) == 0)."""
    bars = []

    class Bar:
        def __init__(self, total, desc, enabled):
            self.total, self.n = total, 0
            bars.append(self)

        def update(self, n=1):
            self.n += n

        def close(self):
            pass

    monkeypatch.setattr("ercot_nb._progress.progress_bar", Bar)
    monkeypatch.setattr(warmup, "_parts", lambda: [(name, seconds, lambda: None)
                                                   for name, seconds in warmup._PARTS])
    monkeypatch.setattr(warmup, "_PARALLEL_COMMAND", [sys.executable, "-c", "pass"])
    warmup.warm_up(verbose=False)
    assert bars[0].total == 45 and bars[0].n == bars[0].total
