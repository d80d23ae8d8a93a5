"""The Explorer's first partition while the numba kernels compile (a fresh install's first fit).

The cold cache is simulated by the ``kernels_compiling`` fixture (tests/conftest.py): ``kernels_ready`` says no and the
"compilation" is a thread that ends when the test says so (here: once the preview is shown).
"""
from __future__ import annotations

import re
import threading
import time

from unittest import mock

import numpy as np
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from ercot_nb import ERCOT, datasets
from ercot_nb.kernels import _firstrun
from ercot_nb.result import StepResult
from ercot_nb.widgets import Explorer
from ercot_nb.widgets._runner import Runner
from ercot_nb.widgets._state import AppState

from .test_explorer_model import ExplorerMachine

FAST = {"pop_size": 20, "n_evaluations": 40, "seed": 3}
DATA = {"n_steps": 4}
COMPILE_S = 2.0


def test_explorer_shows_the_preview_first_then_exactly_the_numba_run(kernels_compiling):
    explorer = Explorer("syn1", params=FAST, data_params=DATA)
    data = explorer.dataset
    plain = ERCOT(**FAST).fit(data)  # the run a warm cache gives
    done = kernels_compiling
    seen = []

    def runs_changed(change):
        result = explorer.result
        if result is not None:
            seen.append({"algorithm": result.algorithm, "steps": len(result),
                         "labels": result[0].labels.copy(), "status": explorer.state.status.text,
                         "title": explorer.partition.figure.layout.title.text,
                         "real": result is explorer.runner.job.result})
        if not done.is_set():
            time.sleep(COMPILE_S)  # the "compilation" lasts a while after the preview
        done.set()  # the kernels are "compiled" once the preview is shown

    explorer.state.observe(runs_changed, names="runs")
    job = explorer.run(wait=True)
    assert job.state == "finished"
    first = seen[0]  # a preview, before any real step, clearly labelled
    assert first["algorithm"] == "ERCOT (preview)" and first["steps"] == 1 and not first["real"]
    assert first["status"] == "ERCOT #1: first step (preview while the fast kernels compile)…"
    assert "ERCOT (preview) partition" in first["title"]
    np.testing.assert_array_equal(first["labels"], plain.result_[0].labels)
    assert seen[1]["real"] and seen[1]["algorithm"] == "ERCOT"  # replaced at the first real step
    # the run is the numba fit's own result, bit for bit a warm run; no preview left anywhere
    assert list(explorer.runs) == ["ERCOT #1"]
    assert explorer.result is job.estimator.result_ and explorer.result.algorithm == "ERCOT"
    assert len(explorer.result) == len(plain.result_) == len(data)
    for ours, warm in zip(explorer.result, plain.result_, strict=True):
        np.testing.assert_array_equal(ours.labels, warm.labels)
        np.testing.assert_array_equal(ours.objectives, warm.objectives)
    title = explorer.partition.figure.layout.title.text
    assert "preview" not in title and f"ERCOT partition at time {len(data)}" in title
    assert explorer.state.status.text.startswith("ERCOT #1 finished")
    assert explorer.step == len(data) - 1 and explorer.scrubber.max == len(data) - 1
    # the pace shown is the run's own: the compilation is not averaged into s/step
    label = explorer.run_panel.progress_label.value
    rate, first_step = map(float, re.fullmatch(r"4/4 · (\S+) s/step \(first step (\S+) s\)", label).groups())
    assert first_step >= COMPILE_S and rate < COMPILE_S / len(data) / 2, label


def test_no_preview_with_warm_kernels(monkeypatch):
    explorer = Explorer("syn1", params=FAST, data_params=DATA)
    monkeypatch.setattr(_firstrun, "kernels_ready", lambda precision="float64": True)
    algorithms = []
    explorer.state.observe(lambda change: algorithms.append(explorer.result.algorithm), names="runs")
    explorer.run(wait=True)
    assert set(algorithms) == {"ERCOT"}


class _PreviewThenFail:
    """A fit that shows a preview and then fails before its first step."""

    def __init__(self, step: StepResult) -> None:
        self.step = step

    def fit(self, data, *, callback=None, preview=None):
        preview(self.step)
        raise ValueError("the kernels could not be compiled")


def test_a_fit_that_fails_after_its_preview_leaves_no_run():
    data = datasets.load("syn1", seed=0, n_steps=2)
    step = ERCOT(**FAST).fit(data).result_[0]
    state = AppState()
    state.set_dataset(data)
    shown = []
    state.observe(lambda change: shown.append(list(change["new"])), names="runs")
    Runner(state, preview=True).start([("Fake", _PreviewThenFail(step))], data, wait=True)
    assert shown == [["Fake #1"], []]  # shown, then taken away with its number
    assert state.runs == {} and state.run is None
    assert state.status.level == "error" and "Problem running Fake:" in state.status.text
    assert "could not be compiled" in state.status.text


def test_runners_without_preview_do_not_ask_for_one():
    data = datasets.load("syn1", seed=0, n_steps=2)
    step = ERCOT(**FAST).fit(data).result_[0]
    state = AppState()
    state.set_dataset(data)
    job = Runner(state).start([("Fake", _PreviewThenFail(step))], data, wait=True)[0]
    assert isinstance(job.error, TypeError)  # preview=None was not handed a step: not asked


class ColdKernelsExplorerMachine(ExplorerMachine):
    """The Explorer's model test with kernels that always 'compile' for a moment: every ERCOT fit
    shows a preview first (unless stopped at once), and every invariant still holds after it."""

    def __init__(self) -> None:
        def prepare(estimator, n_features):
            thread = threading.Thread(target=time.sleep, args=(0.3,), daemon=True)
            thread.start()
            return thread

        self._patches = [mock.patch.object(_firstrun, "kernels_ready", lambda precision="float64": False),
                         mock.patch.object(_firstrun, "prepare_kernels", prepare)]
        for patch in self._patches:
            patch.start()
        super().__init__()
        self.app.state.observe(self._count_previews, names="runs")

    def _count_previews(self, change):
        if any(result.algorithm.endswith("(preview)") for result in change["new"].values()):
            PREVIEWS["shown"] += 1

    def teardown(self) -> None:
        for patch in self._patches:
            patch.stop()


PREVIEWS = {"shown": 0}


def test_the_explorer_model_holds_with_cold_kernels():
    """The hypothesis model of the Explorer (test_explorer_model.py), every fit previewed first."""
    PREVIEWS["shown"] = 0
    run_state_machine_as_test(ColdKernelsExplorerMachine, settings=settings(
        max_examples=4, stateful_step_count=8, deadline=None, phases=[Phase.generate], derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]))
    assert PREVIEWS["shown"] > 0  # previews really were shown (and replaced: the invariants held)


def test_the_steps_partition_is_the_first_figure_a_new_run_redraws(monkeypatch):
    """Every view redraws when a run (a preview, a first step) arrives, one after another in the
    kernel; the partition, which a user looks at first, goes first (it went last: about 0.3 s
    of a fresh install's first page, behind four figures)."""
    from ipywidgets import Widget

    from ercot_nb.widgets.views._figure_widget import SyncedFigureWidget

    explorer = Explorer("syn1", params=FAST, data_params=DATA)
    result = ERCOT(**FAST).fit(explorer.dataset).result_
    figures = {id(view.figure): name for name, view in explorer._views.items()
               if getattr(view, "figure", None) is not None}
    figures[id(explorer.partition.figure)] = "partition"
    sent: list[str] = []
    real_send = Widget.send_state

    def send_state(self, key=None):
        if isinstance(self, SyncedFigureWidget) and id(self) in figures:
            sent.append(figures[id(self)])
        return real_send(self, key)

    monkeypatch.setattr(Widget, "send_state", send_state)
    explorer.state.add_run("ERCOT", result)
    assert len(set(sent)) >= 4, sent  # every view redrew
    assert sent[0] == "partition", sent


def test_the_status_line_names_the_preview_before_its_partition_is_sent(kernels_compiling, monkeypatch):
    """The page draws each update as it comes: the partition titled "(preview)" must not come
    before the status line that says why (the partition redraws first since it is what a user
    looks at first; the status line went after every view, about 0.4 s later)."""
    from ipywidgets import Widget

    from ercot_nb.widgets._messages import MessageArea

    explorer = Explorer("syn1", params=FAST, data_params=DATA)
    partition = explorer.partition.figure
    sent: list[tuple[str, str]] = []
    real_send = Widget.send_state

    def send_state(self, key=None):
        if self is partition:
            sent.append(("partition", str(partition.layout.title.text)))
        elif isinstance(self, MessageArea):
            sent.append(("status", self.value))
        return real_send(self, key)

    monkeypatch.setattr(Widget, "send_state", send_state)
    explorer.runner.on_finish(lambda *_: None)
    explorer.state.observe(lambda change: kernels_compiling.set(), names="runs")
    explorer.run(wait=True)
    first_preview = next(i for i, (kind, text) in enumerate(sent) if kind == "partition" and "(preview)" in text)
    statuses = [text for kind, text in sent[:first_preview] if kind == "status"]
    assert statuses and "preview while the fast kernels compile" in statuses[-1], sent[:first_preview + 1]


def test_the_status_line_counts_the_compile_seconds_against_the_warm_ups_estimate(kernels_compiling,
                                                                                 monkeypatch):
    """Issue 36: during the preview the status said nothing for 10-60 s; now seconds so far and about how long."""
    import ercot_nb.base
    from ercot_nb.warmup import FIRST_FIT_SECONDS

    explorer = Explorer("syn1", params=FAST, data_params=DATA)
    done = kernels_compiling
    preview_first_step = ercot_nb.base.preview_first_step

    def compiling(estimator, dataset, preview):  # the real fit waits for its kernels, as a cold cache makes it
        shown = preview_first_step(estimator, dataset, preview)
        done.wait(20)
        return shown

    monkeypatch.setattr(ercot_nb.base, "preview_first_step", compiling)
    texts = []

    def status_changed(change):
        texts.append(change["new"].text)
        if sum(" s of about" in text for text in texts) >= 2:
            done.set()  # the "compilation" ends once the line counted twice

    explorer.state.observe(status_changed, names="status")
    threading.Timer(20, done.set).start()  # never stuck
    job = explorer.run(wait=True)
    assert job.state == "finished"
    pattern = (r"ERCOT #1: first step \(preview while the fast kernels compile\)… (\d+) s of about "
               f"{FIRST_FIT_SECONDS:.0f} s")
    seconds = [int(m.group(1)) for m in map(re.compile(pattern).fullmatch, texts) if m]
    assert len(seconds) >= 2 and seconds == sorted(seconds) and seconds[0] >= 1, texts
    assert explorer.state.status.text.startswith("ERCOT #1 finished"), texts
