"""Engine: one compilation per kernel, thread policy, identical results serial vs parallel."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from ercot_nb import ERCOT, datasets
from ercot_nb.evolution._engine import Engine
from ercot_nb.kernels import get_backend
from ercot_nb.kernels import get_backend

_SIGNATURES = r"""
import json
from ercot_nb import ERCOT, StaticEC, datasets
from ercot_nb.kernels import KERNEL_NAMES, get_backend
data = datasets.load("syn1", seed=0)[:3]
assert not data[0].X.flags.writeable  # dataset arrays are read-only
ERCOT(seed=0, pop_size=20, n_evaluations=60).fit(data)
ERCOT(n_clusters=4, seed=0, pop_size=20, n_evaluations=60).fit(data)
StaticEC(seed=0, pop_size=20, n_evaluations=60).fit(data)
kernels = get_backend("numba")
print(json.dumps({name: len(getattr(kernels, name).signatures) for name in KERNEL_NAMES}))
"""


def test_every_kernel_compiles_once_in_a_fit():
    # Read-only dataset arrays, fancy-indexed copies and fresh buffers must all
    # reach a kernel with the same array types, or numba compiles it twice.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _SIGNATURES], env=env, check=True,
                         capture_output=True, text=True)
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert max(counts.values()) == 1, counts
    assert counts["evaluate_population"] == counts["environmental_selection"] == 1
    # two objectives: the general non-dominated sort is not compiled at all, and the sweep
    # and the crowding run inside the selection kernel (no crowding_distance kernel)
    assert counts["nondominated_rank"] == 0 and counts["crowding_distance"] == 0


_COMPILED = r"""
import json
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        func = ev.data["dispatcher"].py_func
        if func.__module__.startswith("ercot_nb"):
            compiled.append(func.__name__)
event.register("numba:compile", Listener())
from ercot_nb import ERCOT, datasets
ERCOT(seed=0, pop_size=20, n_evaluations=60).fit(datasets.load("syn1", seed=0)[:3])
print(json.dumps(compiled))
"""


@pytest.mark.slow
def test_first_fit_compiles_each_kernel_once_and_no_helper_but_the_shared_loop(tmp_path):
    # Cold start: every numba function compiled separately costs a fixed ~0.2 s
    # (typing, LLVM, machine code) and is optimised again in each caller, so
    # per-solution helpers are inlined; only the sample loop (_nearest_block),
    # the merge sort and the index scratch of the sample dtype are shared functions (the smoothness kernel writes its
    # Cholesky factor and Gaussian log-density once, in its own body).  A second
    # process loads every kernel from the disk cache and compiles nothing.
    from ercot_nb.kernels import KERNEL_NAMES

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), NUMBA_CACHE_DIR=str(tmp_path))
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _COMPILED], env=env, check=True,
                             capture_output=True, text=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    assert len(cold) == len(set(cold)), cold
    shared = {"_nearest_block", "_stable_sort_by", "index_scratch"}
    assert set(cold) - set(KERNEL_NAMES) <= shared, cold
    assert warm == []


def _same(a, b):
    for s, t in zip(a, b):
        np.testing.assert_array_equal(s.labels, t.labels)
        np.testing.assert_array_equal(s.objectives, t.objectives)
        np.testing.assert_array_equal(s.population, t.population)
        assert s.alpha == t.alpha or (np.isnan(s.alpha) and np.isnan(t.alpha))


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_parallel_kernels_give_the_serial_result_on_any_thread_count(monkeypatch, precision):
    data = datasets.load("syn1", seed=0)[:3]
    params = dict(seed=5, pop_size=20, n_evaluations=60, precision=precision)
    serial = ERCOT(**params).fit(data).result_
    monkeypatch.setattr(Engine, "PARALLEL_WORK", 0)  # every call takes the parallel variant
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(max(2, before))
        many = ERCOT(**params).fit(data).result_
        numba.set_num_threads(1)
        one = ERCOT(**params).fit(data).result_
    finally:
        numba.set_num_threads(before)
    _same(serial, many)
    _same(serial, one)


@pytest.mark.parametrize("work, threads, parallel", [
    (Engine.PARALLEL_WORK - 1, 2, False),
    (Engine.PARALLEL_WORK, 2, True),
    (Engine.PARALLEL_WORK, 1, False),
])
def test_thread_policy_keeps_small_work_serial(monkeypatch, work, threads, parallel):
    if numba.config.NUMBA_NUM_THREADS < threads:
        pytest.skip("needs 2 numba threads")
    monkeypatch.setattr(Engine, "free_cores", classmethod(lambda cls: 2.0))  # an idle 2-core machine
    engine = ERCOT(seed=0)._config(2)
    engine = Engine(engine)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(threads)
        kernel, _ = engine._kernel("evaluate_population", work)
    finally:
        numba.set_num_threads(before)
    assert (kernel is engine.kernels.evaluate_population_parallel) == parallel
    assert (kernel is engine.kernels.evaluate_population) == (not parallel)


@pytest.mark.parametrize("cores, load, own, parallel", [
    (2, 0.0, 1.0, True),    # idle
    (2, 2.0, 2.0, True),    # the load is this process's own two threads
    (2, 2.0, 1.0, False),   # one core taken by another program: serial
    (2, 10.0, 1.0, False),  # a shared, overloaded machine
    (16, 3.0, 1.0, True),   # two busy cores of sixteen
])
def test_thread_policy_stays_serial_when_another_program_takes_a_core(monkeypatch, cores, load, own, parallel):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr("os.getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(Engine, "_own_load", own)
    monkeypatch.setattr(Engine._other_load, "cores", lambda: None)  # no CPU counters: the load average
    engine = Engine(ERCOT(seed=0)._config(2))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        kernel, _ = engine._kernel("evaluate_population", Engine.PARALLEL_WORK)
    finally:
        numba.set_num_threads(before)
    assert (kernel is engine.kernels.evaluate_population_parallel) == parallel


def test_readonly_data_is_copied_once_per_array():
    engine = Engine(ERCOT(seed=0)._config(2))
    X = np.random.default_rng(0).normal(size=(50, 2))
    X.setflags(write=False)
    first = engine._data(X)
    assert first.flags.writeable and first is engine._data(X)
    np.testing.assert_array_equal(first, X)
    writable = np.ones((3, 2))
    assert engine._data(writable) is writable


def test_float32_precision_gives_the_kernels_float32_samples_once_per_array(monkeypatch):
    # precision="float32": the clustering kernels read float32 samples and
    # layouts (copied once per read-only array, like the float64 copy), while
    # the population and the objectives stay float64.
    engine = Engine(ERCOT(seed=0, precision="float32")._config(2))
    seen = []
    evaluate = engine.kernels.evaluate_population

    def spy(X, pop, *args):
        seen.append((X, pop, args[-1]))
        return evaluate(X, pop, *args)

    monkeypatch.setattr(engine.kernels, "evaluate_population", spy)
    X = np.random.default_rng(0).normal(size=(50, 2))
    X.setflags(write=False)
    pop = engine.random_population(np.random.default_rng(1), 6, *engine.bounds(X))
    F, _ = engine.evaluate(X, pop)
    engine.evaluate(X, pop)
    (X1, pop1, xt1), (X2, _, xt2) = seen
    assert X1.dtype == xt1.dtype == np.float32 and pop1.dtype == F.dtype == np.float64
    assert X1 is X2 and xt1 is xt2
    np.testing.assert_array_equal(X1, X.astype(np.float32))


def test_a_writeable_array_is_never_served_from_a_stale_copy():
    # precision="float32" copies every float64 array; a writeable one may be
    # changed between calls, so its copy is made afresh each time.
    engine = Engine(ERCOT(seed=0, precision="float32")._config(2))
    X = np.random.default_rng(0).normal(size=(50, 2))
    first = engine._samples(X)
    X += 1.0
    np.testing.assert_array_equal(engine._samples(X), X.astype(np.float32))
    assert first.dtype == np.float32


def test_sample_layouts_are_made_once_per_read_only_array_and_never_stale(monkeypatch):
    # The clustering kernels read a feature-major copy of X and a copy with a
    # column of ones; the engine makes them (not each kernel call), once per
    # read-only step array.  A writeable array may change between calls, so
    # its layouts are made afresh: evaluation then sees the new values.
    engine = Engine(ERCOT(seed=0)._config(2))
    made = []
    for name in ("feature_major", "with_ones"):
        make = getattr(engine.kernels, name)
        monkeypatch.setattr(engine.kernels, name, lambda X, make=make, name=name: made.append(name) or make(X))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    X.setflags(write=False)
    pop = engine.random_population(rng, 6, *engine.bounds(X))
    objectives = [engine.evaluate(X, pop)[0] for _ in range(3)]
    for _ in range(3):
        engine.recentre(X, X, pop.copy())
    engine.assign(X, pop[0])
    assert sorted(made) == ["feature_major", "with_ones"]
    np.testing.assert_array_equal(objectives[0], objectives[2])

    Y = X.copy()  # writeable
    before = engine.evaluate(Y, pop)[0]
    Y += 1.0
    after = engine.evaluate(Y, pop)[0]
    expected = np.empty((6, 2))
    counts = np.empty((6, engine.config.n_max), dtype=np.int64)
    get_backend("numpy").evaluate_population(Y, pop, engine.config.n_max, False, expected[:, 0],
                                             expected[:, 1], counts)
    np.testing.assert_allclose(after, expected, rtol=1e-12)
    assert not np.allclose(before[:, 0], after[:, 0])


def test_bounds_are_reused_only_for_the_same_read_only_array():
    engine = Engine(ERCOT(seed=0)._config(2))
    X = np.array([[0.0, 1.0], [2.0, -1.0]])
    X.flags.writeable = False
    first = engine.bounds(X)
    assert all(a is b for a, b in zip(engine.bounds(X), first))
    other = X.copy() * 2  # a different (writeable) array: recomputed, every time
    lower, upper = engine.bounds(other)
    assert upper[-1] == 2.0 and lower[-1] == -2.0
    other[0, 1] = 5.0
    assert engine.bounds(other)[1][-1] == 5.0
    expected = (np.r_[np.zeros(8), np.tile([0.0, -1.0], 8)], np.r_[np.ones(8), np.tile([2.0, 1.0], 8)])
    for got, want in zip(engine.bounds(X), expected):
        np.testing.assert_array_equal(got, want)


def test_thread_policy_sees_a_program_started_a_moment_ago(monkeypatch):
    """The load average still says idle (it lags about a minute); the CPU counters say one core
    of two is taken by another program: the kernels stay serial."""
    from types import SimpleNamespace

    two_threads = SimpleNamespace(get_num_threads=lambda: 2, parallel_chunksize=lambda size: None)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(Engine, "_own_load", Engine._own_load)  # kernel_for records its threads
    kernels = get_backend("numba")
    monkeypatch.setattr(Engine._other_load, "cores", lambda: 1.0)
    busy, _ = Engine.kernel_for(kernels, "evaluate_population", Engine.PARALLEL_WORK, two_threads)
    monkeypatch.setattr(Engine._other_load, "cores", lambda: 0.1)  # a little background noise
    idle, _ = Engine.kernel_for(kernels, "evaluate_population", Engine.PARALLEL_WORK, two_threads)
    assert busy is kernels.evaluate_population
    assert idle is kernels.evaluate_population_parallel
