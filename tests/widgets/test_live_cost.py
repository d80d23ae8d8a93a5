"""A live run costs the apps O(1) per finished step: no work that grows with the run's length.

Counted, not timed: the figure builds and the widget messages of a whole
run, with the paced redraws of live views switched off (so that only the
work done per finished step and at the end of the run is left), must be the
same for a run of 20 steps and one of 80 steps.  The old Explorer built the
Pareto figure of every step at the end of a run (2,000 builds for a
2,000-step run: most of the app's whole-run time in
``python -m ercot_nb.bench.scrubbing``).
"""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import ERCOT, TemporalDataset, figures
from ercot_nb.widgets import Explorer
from ercot_nb.widgets._pace import RateLimit
from ercot_nb.bench.scrubbing import _MeasuringComm, _measuring_comms

PARAMS = {"pop_size": 10, "n_evaluations": 20, "max_clusters": 2, "seed": 0}
BUILDERS = ("pareto_parts", "alpha_parts", "sankey_parts", "scores_parts", "partition_parts")


def drifting(n_steps: int) -> TemporalDataset:
    rng = np.random.default_rng(0)
    frames = [rng.normal(0.01 * t, 0.1, size=(3, 2)) for t in range(n_steps)]
    return TemporalDataset.from_arrays(frames, name=f"{n_steps} steps")


def run_cost(n_steps: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Figure builds and widget messages of a whole live run of ``n_steps`` (paced redraws off)."""
    builds = dict.fromkeys(BUILDERS, 0)
    layer_parts = figures.PartitionLayer.parts

    def counting(name, original):
        def counted(*args, **kwargs):
            builds[name] += 1
            return original(*args, **kwargs)
        return counted

    with monkeypatch.context() as patch:
        for name in BUILDERS[:-1]:
            patch.setattr(figures, name, counting(name, getattr(figures, name)))
        patch.setattr(figures.PartitionLayer, "parts", counting("partition_parts", layer_parts))
        with _measuring_comms():
            explorer = Explorer(drifting(n_steps), params=PARAMS)
            patch.setattr(RateLimit, "ready", lambda self: False)  # no paced redraw during the run
            for name in builds:
                builds[name] = 0
            sent = _MeasuringComm.sent_messages
            job = explorer.run(wait=True)
            messages = _MeasuringComm.sent_messages - sent
    assert job.state == "finished" and len(explorer.result) == n_steps
    # the end of the run shows it all: the last step, every step in the time lines
    assert explorer.step == n_steps - 1 and explorer.scrubber.max == n_steps - 1
    assert len(explorer.alpha.figure.data[0].x) == n_steps
    return {**builds, "messages": messages}


def test_a_live_run_costs_the_same_figure_builds_and_messages_at_any_length(monkeypatch):
    # the kernels loaded first: a process's first fit may show a preview step while they load
    # from the disk cache (or compile), which only the first of the two runs would then draw
    ERCOT(**PARAMS).fit(drifting(2))
    short, long = run_cost(20, monkeypatch), run_cost(80, monkeypatch)
    assert short == long, f"20 steps: {short}; 80 steps: {long}"
    assert sum(short[name] for name in BUILDERS) <= 3 * len(BUILDERS), short


def test_the_sankey_draws_the_steps_around_the_current_one(monkeypatch):
    """A Sankey of every step of a long run cost seconds per redraw and showed no flow."""
    from ercot_nb.widgets.views.flows import WINDOW, FlowsView

    data = drifting(3 * WINDOW)
    result = ERCOT(**PARAMS).fit(data).result_
    view = FlowsView(result, step=0)
    for step in (0, WINDOW, len(result) - 1, 5):
        view.show_step(step)
        flow = view.figure.data[0]
        shown_steps = sorted({row[0] for row in flow.node.customdata})
        assert len(shown_steps) == WINDOW and step in shown_steps  # hover names whole-run steps
        lo = shown_steps[0]
        assert shown_steps == list(range(lo, lo + WINDOW))
        assert view.figure.layout.title.text == (
            figures.sankey_title(result, step) + f" · steps {lo + 1}–{lo + WINDOW} of {len(result)}")
        strong = [step for step, color in zip(shown_steps and [r[0] for r in flow.node.customdata],
                                              flow.node.color) if "0.3)" not in color]
        assert set(strong) == {step}  # the step in focus, in the whole run's numbering
