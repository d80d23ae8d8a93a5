"""Long runs keep moving: a redraw over the whole run so far does not hold the fit (issue 35).

The Explorer's live views redraw every step so far; after thousands of steps
one redraw took tens of seconds, and it ran inside the fit's step callback: a
run of 10,000 small steps stood still for 50-60 s near step 6,500.  Here a
view whose redraw costs time in proportion to the run's length stands for
them, and the steps are timed early and late in the run.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from ercot_nb import StaticEC, TemporalDataset
from ercot_nb.result import ClusteringResult
from ercot_nb.widgets._runner import Runner
from ercot_nb.widgets._state import AppState

N_STEPS = 1200
STEP_SECONDS = 0.002
# 1,200 steps shown: a 0.6 s redraw.  The runner redraws when the last redraw took at most a tenth of
# the time since, so live redraws come at about steps 3, 10, 34, 110, 360 and 1,160: one late in the run.
REDRAW_SECONDS_PER_STEP = 0.0005


class _ManySmallSteps:
    """A fit of ``len(data)`` steps of ``STEP_SECONDS`` each (one real step, relabelled in time)."""

    def __init__(self, step):
        self.step = step

    def fit(self, data, *, callback=None):
        self.result_ = ClusteringResult(algorithm="Small", params={})
        for t in range(len(data)):
            time.sleep(STEP_SECONDS)
            step = dataclasses.replace(self.step, t=t, time=data[t].time)
            self.result_.append(step)
            if callback is not None and callback(step) is False:
                break
        return self


def test_step_times_do_not_grow_with_the_run_while_views_redraw():
    rng = np.random.default_rng(0)
    data = TemporalDataset.from_arrays([rng.normal(size=(6, 2)) for _ in range(N_STEPS)],
                                       ids=[np.arange(6)] * N_STEPS)
    step = StaticEC(**{**StaticEC._unit_test_params(), "seed": 0}).fit(data[:1]).result_[0]
    state = AppState()
    state.set_dataset(data)
    redraws: list[float] = []

    def view(change):  # a view of every step so far: its redraw grows with the run
        started = time.perf_counter()
        time.sleep(REDRAW_SECONDS_PER_STEP * state.n_done)
        redraws.append(time.perf_counter() - started)

    state.observe(view, names="revision")
    runner = Runner(state)
    stamps: list[float] = []
    runner.on_step(lambda job, step: stamps.append(time.perf_counter()))
    runner.start([("Small", _ManySmallSteps(step))], data, wait=True)

    assert state.n_done == N_STEPS and "finished" in state.status.text, state.status
    gaps = np.diff(stamps)[5:]  # from the run's appearance on (adding it to the state is no step)
    fifth = len(gaps) // 5
    early, late = gaps[:fifth].mean(), gaps[-fifth:].mean()
    live = redraws[:-1]  # the last one shows the finished run
    print(f"step gaps: early {1000 * early:.2f} ms, late {1000 * late:.2f} ms, longest {1000 * gaps.max():.0f} ms; "
          f"live redraws {[round(r, 2) for r in live]} s")
    assert live and max(live) > 0.2  # the views did redraw, at a cost a step would notice
    assert late < 3 * early  # a step costs about the same late in the run as early
    assert gaps[len(gaps) // 2:].max() < 0.5 * max(live)  # no step waited for a redraw
