"""A class server's fit pool (``ercot-nb app --fit-workers``): fits in shared workers, as in the kernel."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ercot_nb import ERCOT, datasets
from ercot_nb.widgets._fits import Adoption, SeedEnsemble, adoptions_of
from ercot_nb.widgets._job import FitJob
from ercot_nb.widgets._runner import Runner, job_status
from ercot_nb.widgets._messages import waiting_status
from ercot_nb.widgets._state import AppState
from ercot_nb.widgets._pool import POOL_ENV, POOL_KEY_ENV, FitPoolError
from ercot_nb.widgets.serve.fit_pool import FitPool

SLOW = {"n_evaluations": 20000}  # about 1 s a step: time to stop or kill a worker mid-run


@pytest.fixture(scope="module")
def pool():
    with FitPool(1) as pool:
        assert pool.wait_ready(120), "the fit worker did not start"
        yield pool


@pytest.fixture
def pooled(pool, monkeypatch):
    for name, value in pool.env().items():
        monkeypatch.setenv(name, value)
    return pool


def _same_steps(a, b) -> bool:
    fields = ("t", "labels", "aligned_labels", "centroids", "population", "objectives", "first_front", "knee",
              "alpha", "alpha_pairs")
    return len(a) == len(b) and all(np.array_equal(getattr(x, f), getattr(y, f), equal_nan=True)
                                    for x, y in zip(a, b) for f in fields)


def test_a_pooled_fit_equals_the_fit_in_the_kernel_and_comes_back_fitted(pool, monkeypatch):
    data = datasets.load("syn3")
    here = FitJob(ERCOT(seed=7), data).run()
    here_adopted = FitJob(Adoption(here.estimator, 4, 3), data).run()
    for name, value in pool.env().items():
        monkeypatch.setenv(name, value)
    grown = []
    job = FitJob(ERCOT(seed=7), data, on_step=lambda job, step: grown.append(len(job.result))).run()
    assert job.state == "finished" and job.error is None
    assert grown == list(range(1, 11))  # the result grew step by step in the kernel
    assert _same_steps(job.result, here.result) and job.result.params == here.result.params
    assert job.estimator.result_ is job.result  # fitted in place: the run shown is the estimator's
    # adopt a member of the pooled run, in the pool: the same as adopting here
    adopted = FitJob(Adoption(job.estimator, 4, 3), data).run()
    assert adopted.state == "finished" and _same_steps(adopted.result, here_adopted.result)
    assert [t for t, _ in adoptions_of(adopted.estimator.estimator)] == [4]
    # "How sure?" of the adopted run, in the pool: its adoption repeated on each seed, as here
    monkeypatch.delenv(POOL_ENV)
    here_seeds = FitJob(SeedEnsemble(here_adopted.estimator.estimator, [1, 2]), data).run()
    monkeypatch.setenv(POOL_ENV, pool.address)
    seeds = FitJob(SeedEnsemble(adopted.estimator.estimator, [1, 2]), data).run()
    assert seeds.state == "finished" and _same_steps(seeds.result, here_seeds.result)
    assert all(np.array_equal(a, b) for a, b in zip(seeds.estimator.ensemble.agreement,
                                                    here_seeds.estimator.ensemble.agreement, strict=True))


def test_stop_reaches_a_pooled_fit_and_the_pool_serves_the_next(pooled):
    data = datasets.load("syn3")
    job = FitJob(ERCOT(seed=0, **SLOW), data, on_step=lambda job, step: job.stop())
    job.run()
    assert job.state == "stopped" and 1 <= job.n_done < len(data)
    assert [step.t for step in job.result] == list(range(job.n_done))
    # "How sure?" asks between its seeds: Stop merges the seeds done
    seeds = SeedEnsemble(ERCOT(seed=0), range(40))
    ensemble = FitJob(seeds, data).start()
    threading.Timer(1.0, ensemble.stop).start()
    assert ensemble.wait(120) and ensemble.state in ("finished", "stopped")
    assert 1 <= len(seeds.ensemble.seeds) < 40 and seeds.result_ is ensemble.result


def test_a_second_fit_waits_for_the_one_worker_and_the_status_line_says_so(pooled):
    data = datasets.load("syn3")
    first = FitJob(ERCOT(seed=0, **SLOW), data, on_step=lambda job, step: job.stop() if step.t == 1 else None)
    state = AppState()
    state.set_dataset(data)
    lines = []
    state.observe(lambda change: lines.append(change["new"].text), names="status")
    first.start()
    while first.n_done == 0 and first.running:
        first.wait(0.05)
    second = Runner(state).start([("ERCOT", ERCOT(seed=1))], data, wait=True)[0]
    assert first.wait(60) and second.state == "finished"
    waiting = [line for line in lines if "waits for a free fit worker" in line]
    assert waiting and waiting[0] == waiting_status("ERCOT", 1, 1).text
    assert "the class server's fit worker is busy with other runs, and it is next" in waiting[0]
    assert lines[-1].startswith("ERCOT #1 finished 10 of 10 steps")


def test_a_worker_killed_mid_fit_fails_the_job_in_one_line_and_is_replaced(pooled):
    data = datasets.load("syn3")

    def kill_worker(job, step):
        if step.t == 0:
            os.kill(pooled.pids()[0], 9)

    job = FitJob(ERCOT(seed=0, **SLOW), data, on_step=kill_worker).run()
    assert job.state == "failed" and isinstance(job.error, FitPoolError)
    status = job_status(job, "ERCOT #1")
    assert status.text.startswith("Problem running ERCOT #1: the fit worker stopped during the run (killed by "
                                  "signal 9") and "\n" not in status.text and not status.details
    assert job.n_done >= 1  # the steps done are kept
    assert pooled.wait_ready(120)
    assert FitJob(ERCOT(seed=0), data).run().state == "finished"  # a new worker took its place


def test_a_pool_that_went_away_fails_the_job_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv(POOL_ENV, str(tmp_path / "gone"))
    monkeypatch.setenv(POOL_KEY_ENV, "00" * 32)
    job = FitJob(ERCOT(seed=0), datasets.load("syn3")).run()
    assert job.state == "failed" and isinstance(job.error, FitPoolError)
    assert job_status(job, "ERCOT #1").text.startswith("Problem running ERCOT #1: the class server's fit pool "
                                                       "is not reachable")


def test_a_kernel_of_a_class_server_never_imports_numba(pool):
    """The Explorer's run, adoption and "How sure?", in a fresh process with the pool's variables: no numba."""
    code = ("import sys; from ercot_nb.widgets import Explorer; explorer = Explorer('syn3'); "
            "jobs = [explorer.run(wait=True)]; explorer.step = 5; "
            "jobs += [explorer.adopt(t=3, member=2, wait=True), explorer.run_seeds(2, wait=True)]; "
            "print(*[job.state for job in jobs], len(explorer.runs), sorted({m.split('.')[0] for m in "
            "sys.modules} & {'numba', 'llvmlite'}))")
    env = {**os.environ, **pool.env()}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[-2] == "finished finished finished 3 []"


def test_a_fit_of_the_notebooks_own_class_runs_in_the_kernel(pooled):
    """An estimator class defined in the notebook (``__main__``) cannot reach a worker: it is fitted here."""
    namespace = {"__name__": "__main__", "ERCOT": ERCOT}
    exec("class MyERCOT(ERCOT):\n    pass\n", namespace)  # as a notebook cell defines it
    mine = namespace["MyERCOT"]
    mine.__module__ = "__main__"
    sys.modules["__main__"].MyERCOT = mine
    try:
        job = FitJob(mine(seed=0), datasets.load("syn3")).run()
    finally:
        del sys.modules["__main__"].MyERCOT
    assert job.state == "finished" and job.n_done == 10


def test_a_worker_killed_while_idle_is_replaced(pooled):
    (pid,) = pooled.pids()
    os.kill(pid, 9)
    while pid in pooled.pids():  # polled until it is gone
        time.sleep(0.05)
    job = FitJob(ERCOT(seed=0), datasets.load("syn3")).start()
    assert job.wait(60), "the fit waits for a worker that is gone"
    assert job.state == "finished" and pooled.pids() != [pid] and len(pooled.pids()) == 1


def test_a_deep_temporary_folder_still_gives_the_pool_a_socket(tmp_path, monkeypatch):
    """A unix socket's path has at most about 100 bytes: under a deep TMPDIR (a test's, a CI's) the
    app died with 'AF_UNIX path too long'; the socket then goes to /tmp."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("TMPDIR", str(deep))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again
    pool = FitPool(1, warm=False)
    try:
        pool.start()
        assert len(os.fsencode(pool.address)) <= 100 and os.path.exists(pool.address), pool.address
        assert oct(os.stat(os.path.dirname(pool.address)).st_mode & 0o777) == "0o700"
    finally:
        pool.close()
