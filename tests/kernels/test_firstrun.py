"""A first partition while the kernels compile: ``fit(..., preview=...)``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from ercot_nb import ERCOT, datasets


from ercot_nb.kernels import _firstrun


def _data():
    return datasets.load("syn1", seed=0)[:3]


def _same_result(a, b):
    for x, y in zip(a.result_, b.result_, strict=True):
        np.testing.assert_array_equal(x.labels, y.labels)
        np.testing.assert_array_equal(x.population, y.population)
        np.testing.assert_array_equal(x.objectives, y.objectives)


def test_preview_is_numpy_step_zero_and_the_fit_stays_numba(kernels_compiling):
    data = _data()
    plain = ERCOT(seed=3).fit(data)
    done = kernels_compiling
    events = []

    def preview(step):
        events.append(("preview", step))
        done.set()

    model = ERCOT(seed=3).fit(data, preview=preview, callback=lambda step: events.append(("step", step)))
    assert [kind for kind, _ in events] == ["preview", "step", "step", "step"]
    first = events[0][1]
    np.testing.assert_array_equal(first.labels, model.result_[0].labels)
    np.testing.assert_allclose(first.objectives, model.result_[0].objectives, rtol=1e-10)
    _same_result(model, plain)  # the run itself is numba's, bit for bit


def test_preview_draws_from_a_copy_of_a_generator_seed(kernels_compiling):
    data = _data()
    plain = ERCOT(seed=np.random.default_rng(5)).fit(data)
    done = kernels_compiling
    model = ERCOT(seed=np.random.default_rng(5)).fit(data, preview=lambda step: done.set())
    _same_result(model, plain)


def test_preview_is_dropped_once_the_kernels_are_ready(kernels_compiling, monkeypatch):
    data = _data()
    monkeypatch.setattr(_firstrun, "PREVIEW_HEAD_START", 0.0)  # the compiler starts with the preview
    kernels_compiling.set()  # compiled before the preview's first kernel
    calls = []
    model = ERCOT(seed=3).fit(data, preview=calls.append)
    assert calls == []
    _same_result(model, ERCOT(seed=3).fit(data))


def _order_of_preview_and_compiler(monkeypatch):
    """Run a fit with a preview; return the order of 'preview' and 'compile' (the compiler's start)."""
    events = []
    done = threading.Event()

    def prepare(estimator, n_features):
        events.append("compile")
        thread = threading.Thread(target=done.wait, daemon=True)
        thread.start()
        return thread

    monkeypatch.setattr(_firstrun, "kernels_ready", lambda precision="float64": False)
    monkeypatch.setattr(_firstrun, "prepare_kernels", prepare)

    def preview(step):
        events.append("preview")
        done.set()

    ERCOT(seed=3).fit(_data()[:1], preview=preview)
    done.set()
    return events


def test_a_quick_preview_is_drawn_before_the_compiler_starts(monkeypatch):
    """The compiler holds the GIL: started with the preview, it made syn3's 0.2 s preview take 1.9 s."""
    monkeypatch.setattr(_firstrun, "PREVIEW_HEAD_START", 60.0)
    assert _order_of_preview_and_compiler(monkeypatch) == ["preview", "compile"]


def test_the_compiler_starts_after_the_head_start_even_if_the_preview_is_not_done(monkeypatch):
    monkeypatch.setattr(_firstrun, "PREVIEW_HEAD_START", 0.0)
    assert _order_of_preview_and_compiler(monkeypatch) == ["compile", "preview"]


def test_the_compiler_starts_when_the_preview_fails(monkeypatch):
    started = []
    monkeypatch.setattr(_firstrun, "PREVIEW_HEAD_START", 60.0)
    monkeypatch.setattr(_firstrun, "kernels_ready", lambda precision="float64": False)

    def prepare(estimator, n_features):
        started.append(1)
        thread = threading.Thread(target=int)
        thread.start()
        return thread

    monkeypatch.setattr(_firstrun, "prepare_kernels", prepare)

    def broken(step):
        raise RuntimeError("the page is gone")

    with pytest.raises(RuntimeError, match="the page is gone"):
        ERCOT(seed=3).fit(_data()[:1], preview=broken)
    assert started == [1]


_NOT_IMPORTED = """
import json, sys
from ercot_nb.kernels import _firstrun
ready = _firstrun.kernels_ready("float64")
print(json.dumps({"ready": ready, "imported": sorted(m for m in sys.modules
                                                     if m.startswith("ercot_nb.kernels._numba"))}))
"""


def test_kernels_ready_asks_without_importing_the_numba_backend():
    """A process that has not imported the kernels has none loaded; importing them (0.25 s)
    would delay the preview that the answer starts."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _NOT_IMPORTED], env=env, check=True, capture_output=True,
                         text=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"ready": False, "imported": []}


def test_no_preview_when_kernels_are_ready():
    ERCOT(seed=0).fit(_data())  # every kernel of a fit compiled (or loaded)
    assert _firstrun.kernels_ready("float64")
    calls = []
    ERCOT(seed=0).fit(_data(), preview=calls.append)
    assert calls == []


_FRESH = """
import json, time
t0 = time.perf_counter()
from ercot_nb import ERCOT, datasets
data = datasets.load("syn1", seed=0)[:2]
seen = {}
def preview(step):
    seen["preview_s"] = time.perf_counter() - t0
    seen["preview_labels"] = step.labels.tolist()
def callback(step):
    seen.setdefault("first_step_s", time.perf_counter() - t0)
model = ERCOT(seed=0).fit(data, preview=preview, callback=callback)
seen["labels"] = model.result_[0].labels.tolist()
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_fresh_process_with_empty_cache_previews_before_compiling(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", _FRESH], env=env, check=True, capture_output=True,
                         text=True, timeout=600)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["preview_s"] < seen["first_step_s"]
    assert seen["preview_labels"] == seen["labels"]


_USED = """
import json
from ercot_nb import ERCOT, datasets
from ercot_nb.kernels import _firstrun
from ercot_nb.kernels import KERNEL_NAMES, get_backend
ERCOT(seed=0).fit(datasets.load("syn1", seed=0)[:3])
kernels = get_backend("numba")
print(json.dumps({"used": [name for name in KERNEL_NAMES if getattr(kernels, name).signatures],
                  "listed": list(_firstrun._FIT_KERNELS), "ready": _firstrun.kernels_ready("float64")}))
"""


def test_the_kernels_a_fit_waits_for_are_those_a_fit_runs():
    """In a new process, after one default fit: ``kernels_ready`` is true, and it waits for
    exactly the kernels that fit ran (a kernel the engine stopped calling would keep it false
    for ever, and every fit of the app would compute a preview)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _USED], env=env, check=True, capture_output=True, text=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["ready"]
    assert set(seen["listed"]) == set(seen["used"])
