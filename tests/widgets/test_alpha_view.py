"""Alpha view: a live run's time line grows by the new steps' points only.

Counted, not timed: while a run grows, every paced redraw of the alpha view
must read only the steps added since the previous redraw, build no figure
and send the same number of widget messages, whatever the run's length;
and after every redraw the view shows exactly
:func:`ercot_nb.figures.alpha_parts` of the run so far.  The old view
rebuilt the figure from every step at each redraw.
"""
from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import plotly.graph_objects as go
import pytest

from ercot_nb import TemporalDataset, figures
from ercot_nb.figures.views import alpha as registry
from ercot_nb.result import ClusteringResult, StepResult
from ercot_nb.widgets._state import AppState
from ercot_nb.widgets.views.alpha import AlphaView
from ercot_nb.bench.scrubbing import _MeasuringComm, _measuring_comms


class CountingStep(StepResult):
    """A step that counts the reads of what the alpha time line draws from it."""

    reads = 0

    def __getattribute__(self, name: str):
        if name in ("time", "alpha", "alpha_pairs"):
            CountingStep.reads += 1
        return super().__getattribute__(name)


def steps_of(n_steps: int, times: list | None = None) -> tuple[TemporalDataset, list[CountingStep]]:
    """A small dataset and its run's steps: alpha from the second step, 0 to 2 pair weights."""
    rng = np.random.default_rng(0)
    frames = [rng.normal(0.01 * t, 0.1, size=(3, 2)) for t in range(n_steps)]
    data = TemporalDataset.from_arrays(frames, times=times, name=f"{n_steps} steps")
    steps = []
    for t, snapshot in enumerate(data):
        alpha = np.nan if t == 0 else float(rng.uniform(0, 1.2))
        step = StepResult.from_partition(t, snapshot.time, snapshot.ids, np.array([0, 1, 1]),
                                         snapshot.X, seconds=0.0, alpha=alpha)
        step.alpha_pairs = rng.uniform(0, 1.5, size=t % 3)
        if t % 5 == 4:
            step.alpha_pairs = np.array([np.nan, 0.5])  # not finite: not drawn
        steps.append(CountingStep(**{f.name: getattr(step, f.name) for f in fields(StepResult)}))
    return data, steps


def layout_json(layout) -> dict:
    return json.loads(go.Layout(layout).to_json())


def assert_shows_parts(view: AlphaView, result: ClusteringResult, t: int) -> None:
    parts = figures.alpha_parts(result, show_pairs=view.pairs.value, t=t, pairs_trace=True)
    shown = json.loads(go.Figure(data=list(view.figure.data)).to_json())["data"]
    for trace in shown:
        trace.pop("uid", None)
    assert shown == json.loads(go.Figure(data=list(parts.traces)).to_json())["data"]
    layout, expected = layout_json(view.figure.layout), layout_json(parts.layout)
    expected["title"]["text"] = figures.ViewData(result, view.dataset).titled(expected["title"]["text"])
    for path in ("title", "xaxis", "yaxis", "shapes"):
        assert layout.get(path) == expected.get(path), path


def live_run(n_steps: int, monkeypatch: pytest.MonkeyPatch, *, times: list | None = None,
             check_every: int = 0) -> dict[str, float]:
    """Grow a run one step per redraw under a followed AlphaView; the work per redraw."""
    data, steps = steps_of(n_steps, times)
    builds = {"alpha_parts": 0}
    original = figures.alpha_parts

    def counted(*args, **kwargs):
        builds["alpha_parts"] += 1
        return original(*args, **kwargs)

    with monkeypatch.context() as patch, _measuring_comms():
        state = AppState()
        state.set_dataset(data, data.name)
        view = AlphaView().follow(state)
        run = ClusteringResult(algorithm="ERCOT", params={})
        run.append(steps[0])
        name = state.add_run("ERCOT", run)
        patch.setattr(registry, "alpha_parts", counted)  # the name the registry's alpha view calls
        window = n_steps - LAST  # measure the last LAST redraws of the run (t = window .. n - 1)
        CountingStep.reads, sent = 0, _MeasuringComm.sent_messages
        for t, step in enumerate(steps[1:], start=1):
            if t == window:
                CountingStep.reads, sent = 0, _MeasuringComm.sent_messages
                builds["alpha_parts"] = 0
            run.append(step)
            state.grow(name)  # one paced redraw per step: the view takes in one new step
            if check_every and t % check_every == 0:
                reads = CountingStep.reads
                patch.setattr(registry, "alpha_parts", original)
                assert_shows_parts(view, run, state.step)
                patch.setattr(registry, "alpha_parts", counted)
                CountingStep.reads = reads
        messages, reads = _MeasuringComm.sent_messages - sent, CountingStep.reads
    assert state.step == n_steps - 1 and len(view.figure.data[0].x) == n_steps
    assert_shows_parts(view, run, n_steps - 1)
    return {"reads per redraw": reads / LAST,
            "builds per redraw": builds["alpha_parts"] / LAST,
            "messages per redraw": (messages / LAST)}


LAST = 10


def test_a_live_run_grows_the_time_line_by_the_new_steps_only(monkeypatch):
    short, long = live_run(20, monkeypatch), live_run(80, monkeypatch)
    assert short == long, f"20 steps: {short}; 80 steps: {long}"
    assert short["builds per redraw"] == 0
    # the new step's time, alpha and pair weights; the marker's step's time and alpha
    assert short["reads per redraw"] <= 5, short


@pytest.mark.parametrize("times", [None, [f"day <{t}>" for t in range(40)]])
def test_the_grown_view_shows_the_static_builders_parts_after_every_redraw(monkeypatch, times):
    """Numeric times past 30 steps drop their tick list; text times make a category axis."""
    live_run(40, monkeypatch, times=times, check_every=1)


def test_scrubbing_back_during_a_run_keeps_the_step_shown(monkeypatch):
    data, steps = steps_of(12)
    state = AppState()
    state.set_dataset(data, data.name)
    view = AlphaView().follow(state)
    run = ClusteringResult(algorithm="ERCOT", params={})
    for step in steps[:6]:
        run.append(step)
    name = state.add_run("ERCOT", run)
    state.set_step(2)
    for step in steps[6:]:
        run.append(step)
        state.grow(name)
    assert state.step == 2 and view.step == 2
    assert_shows_parts(view, run, 2)
    view.pairs.value = True
    assert_shows_parts(view, run, 2)
    state.select_run(None)  # the dataset again: a placeholder
    assert view.result is None and view.figure.data == ()
