"""Fixtures shared by test folders."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from ercot_nb import algorithms, datasets

from ercot_nb.kernels import _firstrun

SMALL_BUDGET = {"pop_size": 20, "n_evaluations": 60}
BROWSER_TESTS = Path(__file__).parent / "browser"
CHROMIUM = Path("/usr/bin/chromium")


def pytest_collection_modifyitems(config, items):
    """Every test under tests/browser is a ``browser`` test; every browser test needs Debian's Chromium.

    Tests elsewhere that drive Chromium carry ``@pytest.mark.browser`` themselves.  The long
    files run first (see :func:`_long_files_first`).
    """
    missing = pytest.mark.skip(reason="Debian's chromium is not installed at /usr/bin/chromium "
                                      "(.ci/run installs it)")
    for item in items:
        if BROWSER_TESTS in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.browser)
        if not CHROMIUM.exists() and item.get_closest_marker("browser"):
            item.add_marker(missing)
    _long_files_first(items)


def _long_files_first(items) -> None:
    """Sort the files whose tests are ``slow`` or ``browser`` first (most such tests first), in place.

    ``--dist loadfile`` hands each worker a whole file, in this order (``--no-loadscope-reorder``
    in pyproject's addopts: xdist would otherwise put the files with the most tests first, which
    leaves the long one-test browser files for the end, one worker busy while the others idle).
    The sort is stable: each file's tests keep their order, the other files theirs.
    """
    weight: dict[str, int] = {}
    for item in items:
        cost = 2 if item.get_closest_marker("slow") else 1 if item.get_closest_marker("browser") else 0
        weight[str(item.path)] = weight.get(str(item.path), 0) + cost
    items.sort(key=lambda item: -weight[str(item.path)])


@pytest.fixture(scope="module")
def one_thread_client():
    """A one-worker in-process Dask cluster, with staticEC's kernels loaded first."""
    algorithms.make("staticEC", seed=0, **SMALL_BUDGET).fit(datasets.load("syn3", seed=0, n_steps=2))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client:
        yield client


@pytest.fixture
def kernels_compiling(monkeypatch) -> threading.Event:
    """Pretend the numba kernels must compile; the 'compilation' ends when the event is set."""
    done = threading.Event()

    def prepare(estimator, n_features):
        thread = threading.Thread(target=done.wait, daemon=True)
        thread.start()
        return thread

    monkeypatch.setattr(_firstrun, "kernels_ready", lambda precision="float64": False)
    monkeypatch.setattr(_firstrun, "prepare_kernels", prepare)
    return done
