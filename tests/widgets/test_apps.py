"""Explorer and Compare share one state model and one runner: one test suite for both.

Each test runs for both apps (``app`` is parametrized).  The same sequence
of user actions (Run, scrub, Run + Stop, Run again, switch run, click a
front member, switch the dataset during a run) is played on each, and after
every action every view must show the state: its figure data equal to what
the static parts builders of :mod:`ercot_nb.figures` give for the state's
dataset, run, step and member, and the status line must answer the action.
"""
from __future__ import annotations


import numpy as np
import pytest

from ercot_nb import datasets, figures
from ercot_nb.widgets import Compare, Explorer, PartitionView, VideoView
from ercot_nb.widgets._state import AppState
from ercot_nb.widgets.views.alpha import AlphaView
from ercot_nb.widgets.views.pareto import ParetoView
from ercot_nb.widgets.views.flows import FlowsView
from ercot_nb.widgets.views.scores import ScoresView

from .test_views_match_figures import traces_json

FAST = {"pop_size": 10, "n_evaluations": 20, "max_clusters": 4}
SMALL = {"n_steps": 5, "n_per_cluster": 6}
PROJECTION = {"features": None, "pca": "pca", "3d": "3d"}


def title(view) -> str:
    return view.figure.layout.title.text


class Driver:
    """What a user does with either app, and which run each partition view must show."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        if kind == "explorer":
            self.app = Explorer("syn1", params=FAST, data_params=SMALL)
        else:
            self.app = Compare("syn1", algorithms=("ERCOT", "staticEC"),
                               params={"ERCOT": FAST, "staticEC": FAST}, data_params=SMALL)
        self.state: AppState = self.app.state

    def run(self, *, wait: bool = True):
        self.app.run(wait=wait)
        return self.app.runner.jobs

    def choose(self, name: str) -> None:
        picker = self.app.picker
        picker._form(name).set_values(SMALL)
        picker.scenario.value = name

    def partition_views(self) -> list[tuple[object, object, int | None]]:
        """(view, run it must show or None for the data, member) of every partition view."""
        state = self.state
        if self.kind == "explorer":
            return [(self.app.partition_view, state.result, state.member)]
        return [(self.app.partitions[name], state.runs.get(name), None) for name in self.app.selected]


def assert_partition(view, data, result, step: int, member: int | None) -> None:
    """The partition place shows the registered view its controls choose, for the state's run (or the data)."""
    shown_run = result if result is not None else figures.ground_truth_result(data)
    t = min(step, len(shown_run) - 1)
    assert view.step == t and view.member == member
    shown = figures.ViewData(shown_run, data)
    if isinstance(view, VideoView):
        expected = figures.view("video").parts(
            shown, t, member, slots=3, truth=view.truth, max_pixels=view.max_pixels, panel_width=view.panel_width,
            max_width=view.max_width, preview=result is None)
    else:
        assert isinstance(view, PartitionView)
        axes = view.axes.value
        expected = (figures.view("partition3d").parts(shown, t, member) if axes == "3d" else
                    figures.view("partition").parts(shown, t, member, projection=axes))
    assert traces_json(view.figure.data) == traces_json(expected.traces)
    assert title(view).startswith(expected.layout["title"]["text"])


def assert_views_show_the_state(driver: Driver) -> None:
    app, state = driver.app, driver.state
    data, step = state.dataset, state.step
    times = state.result.times if state.result is not None else data.times
    assert app.scrubber.value == step and app.scrubber.label == str(times[step])
    assert app.scrubber.max == max(state.n_done - 1, 1) and state.n_done == len(times)
    for view, result, member in driver.partition_views():
        assert_partition(view, data, result, step, member)
    runs = {name: state.chosen_run(name) for name, run in state.runs.items() if len(run)}  # a member picked: its RI
    if runs and data.has_labels:
        expected = figures.scores_parts(data, runs, app.scores.metric.value, t=step)
        assert traces_json(app.scores.figure.data) == traces_json(expected.traces)
        assert app.scores.figure.layout.shapes[0].x0 == times[step]
    if driver.kind != "explorer":
        return
    result, member = state.result, state.member
    if result is None:
        assert app.pareto.result is None and app.alpha.result is None and app.flows.result is None
        return
    named = figures.ViewData(result, data).titled  # every view's title names the dataset
    if figures.ViewData(result, data).has_population:
        expected = figures.view("pareto").parts(figures.ViewData(result, data), step, member,
                                                accumulated=app.pareto.accumulated)
        assert traces_json(app.pareto.figure.data) == traces_json(expected.traces)
        assert title(app.pareto) == expected.layout["title"]["text"]
    expected = figures.alpha_parts(result, show_pairs=app.alpha.pairs.value, t=step, pairs_trace=True)
    assert traces_json(app.alpha.figure.data) == traces_json(expected.traces)
    expected = figures.sankey_parts(state.chosen_run(), t=step, events=app.flows.show_events.value)
    assert traces_json(app.flows.figure.data) == traces_json(expected.traces)
    assert title(app.flows) == named(expected.layout["title"]["text"])
    assert list(app.run_choice.options) == list(state.runs) and app.run_choice.value == state.run


@pytest.fixture(params=["explorer", "compare"])
def driver(request) -> Driver:
    return Driver(request.param)


def test_run_scrub_stop_run_again_switch_click_and_switch_data(driver):
    app, state = driver.app, driver.state
    assert state.status.level == "success" and "syn1" in state.status.text
    assert_views_show_the_state(driver)

    jobs = driver.run()  # Run
    assert [job.state for job in jobs] and all(job.state == "finished" for job in jobs)
    assert state.status.level == "success" and not state.running
    assert all(len(run) == 5 for run in state.runs.values()) and state.runs
    assert_views_show_the_state(driver)

    app.scrubber.value = 2  # scrub
    assert state.step == 2
    assert_views_show_the_state(driver)
    app.scrubber.value = 99  # past the end: clamped to the last step
    assert state.step == 4 and app.scrubber.value == 4

    jobs = driver.run(wait=False)  # Run, then Stop at once
    app.stop()
    assert app.wait(60) and not state.running
    assert all(job.state in ("stopped", "finished", "ready") for job in jobs)
    assert state.status.level in ("success", "warning")
    assert_views_show_the_state(driver)

    jobs = driver.run()  # Run again
    assert all(job.state == "finished" for job in jobs) and state.status.level == "success"
    assert_views_show_the_state(driver)

    if driver.kind == "explorer":
        assert list(state.runs)[0] == "ERCOT #1" and len(state.runs) == 3
        app.run_choice.value = "ERCOT #1"  # switch run
        assert state.run == "ERCOT #1" and state.status.text == "Showing ERCOT #1."
        assert_views_show_the_state(driver)
        app.scrubber.value = 3
        step = state.result[3]
        member = next(m for m in range(len(step.population)) if m != step.knee)
        app.pareto.select(member)  # a click on a front member
        assert state.member == member
        assert_views_show_the_state(driver)
        app.scrubber.value = 1  # another step: back to the knee
        assert state.member is None
        assert_views_show_the_state(driver)
    else:
        assert set(state.runs) == {"ERCOT", "staticEC"}  # a new comparison replaces the runs

    jobs = driver.run(wait=False)  # switch the dataset during a run
    driver.choose("syn2")
    assert app.wait(60) and not state.running
    assert state.dataset_name == "syn2" and state.runs == {} and state.run is None
    text = state.status.text  # the answer to the load, naming the run it dropped (if still going on)
    assert text == "Loaded the built-in scenario syn2." or (
        text.startswith("Loaded the built-in scenario syn2. The run") and "on syn1 w" in text
        and "stopped and dropped" in text), text
    assert_views_show_the_state(driver)


def test_a_video_then_points_show_in_the_right_view(driver):
    app, state = driver.app, driver.state
    video = datasets.load("video_mo", seed=0, scale=0.1, n_frames=3)
    app.picker.dataset = video
    assert all(isinstance(view, VideoView) for view, _, _ in driver.partition_views())
    assert all(job.state == "finished" for job in driver.run())
    app.scrubber.value = 1
    assert_views_show_the_state(driver)
    driver.choose("syn2")
    assert state.dataset_name == "syn2", state.status.text
    assert all(isinstance(view, PartitionView) for view, _, _ in driver.partition_views())
    assert all(job.state == "finished" for job in driver.run())
    assert_views_show_the_state(driver)


def test_data_no_view_can_show_is_refused_and_the_previous_data_stays(driver):
    app, state = driver.app, driver.state
    before = state.dataset
    bad = datasets.load("video_mo", seed=0, scale=0.1, n_frames=2)
    bad.metadata["frame_shape"] = (3, 3)  # not the number of pixels
    app.picker.dataset = bad
    assert state.dataset is before and state.status.level == "error"
    assert "the data shown is still syn1" in state.status.text
    assert_views_show_the_state(driver)


def test_views_draw_only_from_the_state_they_follow():
    """Views made on their own follow a state: the state alone says what they show."""
    state = AppState()
    views = [ParetoView().follow(state), AlphaView().follow(state), FlowsView().follow(state),
             ScoresView(None).follow(state)]
    data = datasets.load("syn3", seed=0, n_steps=6)
    assert state.set_dataset(data, "syn3")
    from ercot_nb import ERCOT

    estimator = ERCOT(seed=0, **FAST)
    result = estimator.fit(data[:3]).result_  # a run that grows, as a live one does
    state.add_run("ERCOT", result)
    pareto, alpha, sankey, scores = views
    assert pareto.result is result and alpha.result is result and sankey.result is result
    state.set_step(2)  # the newest step: the views follow the run as it grows
    assert pareto.step == 2 and alpha.step == 2 and sankey.step == 2 and scores.step == 2
    full = ERCOT(seed=0, **FAST).fit(data).result_
    result.steps.extend(full.steps[3:])  # three more steps, then the runner's growth signal
    state.grow("ERCOT #1")
    assert state.step == 5 and pareto.step == 5 and alpha.step == 5 and sankey.step == 5
    assert traces_json(scores.figure.data) == traces_json(
        figures.scores_parts(data, {"ERCOT #1": result}, "RI", t=5).traces)
    member = next(m for m in range(len(result[5].population)) if m != result[5].knee)
    state.select_member(member)
    assert pareto.selected == member
    assert traces_json(pareto.figure.data) == traces_json(
        figures.view("pareto").parts(figures.ViewData(result), 5, member).traces)  # the registered view
    state.set_step(1)
    assert pareto.selected is None and alpha.figure.data[-1].x == (2,) and scores.step == 1
    assert state.set_dataset(datasets.load("syn1", seed=0, n_steps=3), "syn1")
    assert pareto.result is None and alpha.result is None and sankey.result is None
    assert np.array_equal(scores.dataset.times, [1, 2, 3]) and not scores.runs
