"""Speed ratios: each side is measured and the ratio is their quotient; optional tools may be missing."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import numba
import numpy as np
import pytest

from ercot_nb import ERCOT, datasets
from ercot_nb.evolution._engine import Engine
from ercot_nb.kernels import get_backend
from ercot_nb.bench import ratios


@pytest.fixture(scope="module")
def birds():
    return datasets.load("bird_flocks", seed=0, n_steps=3)


def test_kmeans_ratio_times_both_on_the_same_steps(birds):
    out = ratios.kmeans_ratio(birds, n_clusters=3, repeats=1)
    assert out["ercot_s_per_step"] > 0 and out["kmeans_s_per_step"] > 0
    assert out["ratio"] == pytest.approx(out["ercot_s_per_step"] / out["kmeans_s_per_step"])


def test_busy_core_ratio_compares_default_threads_with_one(birds):
    out = ratios.busy_core_ratio(birds, repeats=1)
    assert out["threads"] >= 1
    assert out["ratio"] == pytest.approx(out["default_s_per_step"] / out["one_thread_s_per_step"])


def test_missing_optional_tools_give_no_column(monkeypatch, birds):
    for module in ("pymoo", "pymoo.algorithms.moo.nsga2", "sklearn", "sklearn.cluster"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    assert ratios.pymoo_ratio(birds) is None
    assert ratios.kmeans_ratio(birds, n_clusters=3) is None


def test_bench_extra_installs_the_tools_the_ratios_import_and_the_tests_do_not_need_pymoo():
    import tomllib
    from pathlib import Path

    extras = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {extra: {req.split(">")[0].split("=")[0].split("[")[0].strip() for req in reqs}
             for extra, reqs in extras.items()}
    assert {"pymoo", "scikit-learn"} <= names["bench"]
    assert "pymoo" not in names["test"]  # the test suite runs without it (columns are left out)


@pytest.mark.slow
def test_cold_warm_ratio_counts_the_compilations_and_the_warm_fit_compiles_none():
    out = ratios.cold_warm_ratio(repeats=1)
    assert out["ratio"] == pytest.approx(out["cold_cpu_s"] / out["warm_cpu_s"])
    assert out["cold_compiled"] >= 1
    assert out["warm_compiled"] == 0  # every kernel loaded from the disk cache


def test_kernel_ns_per_pair_counts_the_active_pairs_of_the_fitted_population(birds):
    out = ratios.kernel_ns_per_pair(birds[:2], repeats=2)
    step = ERCOT(seed=0).fit(birds[:2]).result_[-1]
    active = int((step.population[:, : step.n_max] >= 0.5).sum())
    assert out["pairs_per_call"] == active * len(birds[1].X)
    assert out["evaluate_ns_per_pair"] > 0 and out["recentre_ns_per_pair"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("threads", [1, 2])
def test_pymoo_objective_runs_the_kernel_ercots_engine_would(monkeypatch, birds, threads, precision):
    # The comparison is fair only if pymoo's objective gets ERCOT's threads: the
    # parallel evaluate for large calls on several threads, the serial one otherwise.
    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("needs 2 numba threads")
    kernels = get_backend("numba")
    called = []

    def recorded(name):
        def kernel(*args):
            called.append(name)
            return getattr(kernels, name)(*args)
        return kernel

    spy = SimpleNamespace(**{**vars(kernels), **{name: recorded(name) for name in
                                                  ("evaluate_population", "evaluate_population_parallel")}})
    monkeypatch.setattr(Engine, "PARALLEL_WORK", 0)  # every call counts as large
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        X = birds[1].X
        pop = ERCOT(seed=0).fit(birds[:2]).result_[-1].population
        F = ratios.nsga_objective(spy, X, 8, precision)(pop)
    finally:
        numba.set_num_threads(previous)
    assert called == ["evaluate_population_parallel" if threads > 1 else "evaluate_population"]
    config = ERCOT(seed=0, precision=precision)._config(X.shape[1])
    engine_F, _ = Engine(config, backend="numba").evaluate(X, pop)
    np.testing.assert_array_equal(F, engine_F)
