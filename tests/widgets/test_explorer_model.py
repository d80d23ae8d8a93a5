"""Model-based test of the Explorer: random sequences of user actions keep every view true.

A hypothesis ``RuleBasedStateMachine`` drives one Explorer from Python with
the actions a user has: choose any built-in dataset (every video at a small
scale, bird_flocks, gapminder, Syn1-8), change parameters (valid and
invalid), upload good and bad CSV files, Run, Stop, Run again, switch
runs, scrub, Play, click a front member, back to the knee, "How sure?",
and switch the dataset during a run, an adoption ("Use this partition from
here on") or "How sure?".  After every action:

* each view shows the selected run at the selected step: its figure data
  equal what the static builders of :mod:`ercot_nb.figures` give for the
  state's dataset, run, step and member;
* the status line answers the last action (an invalid action keeps the
  previous dataset and says so);
* nothing raises (a handler error would show as an unexpected status).

Small data and tiny budgets keep it fast; the run count and time are
printed.
"""
from __future__ import annotations

import time
from datetime import datetime, timezone

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from ercot_nb import datasets, figures
from ercot_nb.evolution import PRECISIONS
from ercot_nb.widgets import Explorer, PartitionView

FAST = {"pop_size": 10, "n_evaluations": 20, "max_clusters": 4}
SMALL = {  # every built-in scenario at a size that runs in well under a second
    **{f"syn{i}": {"n_steps": 3, "n_per_cluster": 6} for i in range(1, 9)},
    "bird_flocks": {"n_steps": 3, "n_flocks": 2, "n_birds": 5},
    "gapminder": {},
    "video_mo": {"scale": 0.1, "n_frames": 3},
    "video_bt": {"scale": 0.1, "n_frames": 3},
    "video_rc": {"scale": 0.05, "n_frames": 3},
}
NAMES = sorted(SMALL)
STATS = {"actions": 0, "runs": 0, "examples": 0, "seconds": 0.0}


def good_csv(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    rows = [{"time": t, "who": f"s{i}", "x": 4 * (i % 2) + rng.normal(0, .3), "y": rng.normal(0, .3),
             "group": i % 2} for t in range(3) for i in range(10)]
    return pd.DataFrame(rows).to_csv(index=False).encode()


BAD_CSVS = [b"", b"\x89PNG\r\n\x1a\n\x00\x00", b"time,id\n1,a\n",
            b"time,id,x\n1,a,0\n1,a,1\n"]  # the last: a repeated id in a step


def upload(picker, content: bytes, name: str) -> None:
    picker.upload.value = ({"name": name, "type": "text/csv", "size": len(content),
                            "content": memoryview(content),
                            "last_modified": datetime.now(timezone.utc)},)


def points(figure) -> dict[str, list]:
    """x and y of every trace with points, by name."""
    return {trace.name: (np.asarray(trace.x, float).round(9).tolist(),
                         np.asarray(trace.y, float).round(9).tolist())
            for trace in figure.data if getattr(trace, "x", None) is not None and len(trace.x)}


class ExplorerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        STATS["examples"] += 1
        self.app = Explorer("syn1", params=FAST, data_params=SMALL["syn1"])
        self.expect: tuple[str, ...] = ("success",)  # levels the status may have after the action
        self.must_say = ""  # text the status must contain

    # -- helpers -------------------------------------------------------------------------------
    def _choose(self, name: str) -> None:
        picker = self.app.picker
        picker._form(name).set_values(SMALL[name])
        picker.source.value = "builtin"
        if picker.scenario.value == name:
            picker.load_button.click()
        else:
            picker.scenario.value = name

    def _expect_success(self, text: str) -> None:
        self.expect, self.must_say = ("success",), text

    # -- actions ---------------------------------------------------------------------------------
    @rule(name=st.sampled_from(NAMES))
    def choose_dataset(self, name):
        self._choose(name)
        assert self.app.state.dataset_name == name, self.app.message.text
        self._expect_success(f"Loaded the built-in scenario {name}.")

    @rule(data=st.data())
    def change_parameters(self, data):
        app = self.app
        name = app.picker.scenario.value
        form = app.picker._form(name)
        if "n_steps" in form.fields:
            steps = data.draw(st.sampled_from([2, 3, 4, 0]), label="n_steps")  # 0 is invalid
            form.fields["n_steps"].widget.value = steps
        elif "n_frames" in form.fields:
            steps = data.draw(st.sampled_from([2, 3, 0]), label="n_frames")
            form.fields["n_frames"].widget.value = steps
        else:
            return
        before = app.dataset
        app.picker.source.value = "builtin"
        app.picker.load_button.click()
        if steps == 0 or app.message.level == "error":  # 0 is invalid; syn7 needs more points
            assert app.dataset is before, "an invalid entry replaced the data"
            assert app.message.level == "error" and name in app.message.text
            # Run does not silently fit the data loaded before
            assert app.run() is None and "not loaded" in app.message.text
            self.expect, self.must_say = ("warning",), "not loaded"
        else:
            assert len(app.dataset) == steps
            self._expect_success("Loaded the built-in scenario")

    @rule(precision=st.sampled_from(PRECISIONS))
    def choose_precision(self, precision):
        # the next runs use it; the data and the status stay as they are
        before = (self.app.dataset, self.app.message.text)
        self.app.run_panel.form.fields["precision"].widget.value = precision
        assert (self.app.dataset, self.app.message.text) == before

    @rule(seed=st.integers(0, 3))
    def upload_good_csv(self, seed):
        picker = self.app.picker
        upload(picker, good_csv(seed), f"walk{seed}.csv")
        picker.id_column.value = "who"
        picker.label_column.value = "group"
        picker.load_csv_button.click()
        assert self.app.state.dataset_name == f"walk{seed}.csv", self.app.message.text
        self._expect_success("identified by “who”")

    @rule(content=st.sampled_from(BAD_CSVS))
    def upload_bad_csv(self, content):
        app = self.app
        before = app.dataset
        upload(app.picker, content, "bad.csv")
        if app.picker.message.level == "info":  # readable: the mapping is refused at load
            app.picker.id_column.value = "id"
            app.picker.load_csv_button.click()
        assert app.dataset is before, "a bad file replaced the data"
        self.expect, self.must_say = ("error",), "bad.csv"

    @rule()
    def run(self):
        app = self.app
        n_runs = len(app.runs)
        job = app.run(wait=True)
        if app.picker.pending:
            assert job is None and len(app.runs) == n_runs  # never a silent re-run of other data
            self.expect, self.must_say = ("warning",), "not loaded"
            return
        STATS["runs"] += 1
        assert job.state == "finished", app.message.text
        assert len(app.runs) == n_runs + 1 and app.state.run == list(app.runs)[-1]
        assert len(app.result) == len(app.dataset)
        self._expect_success("finished")

    @precondition(lambda self: not self.app.picker.pending)
    @rule()
    def run_then_stop(self):
        app = self.app
        job = app.run()
        app.stop()
        assert app.wait(60) and job.state in ("stopped", "finished")
        STATS["runs"] += 1
        assert not app.state.running and not app.run_panel.run_button.disabled
        self.expect, self.must_say = ("success", "warning"), ""

    def _start(self, kind: str):
        """Start a fit of ``kind`` on the current data without waiting; None if it could not start."""
        app = self.app
        if kind == "run" or app.result is None or app.result.algorithm != "ERCOT" or (
                app.state.run not in app.estimators):
            return app.run()
        if kind == "adopt":
            step = app.result[app.step]
            others = [m for m in range(len(step.population)) if m != step.knee]
            return app.adopt(app.step, others[0]) if others else app.run()
        app.seeds.value = 2
        return app.run_seeds() or app.run()  # a video has no scatter to draw agreement on

    @precondition(lambda self: not self.app.picker.pending)
    @rule(name=st.sampled_from(NAMES), kind=st.sampled_from(["run", "adopt", "how sure"]))
    def switch_dataset_during_a_run(self, name, kind):
        app = self.app
        job = self._start(kind)
        assert job is not None, app.message.text
        self._choose(name)
        assert app.wait(60) and job.state in ("stopped", "finished")
        STATS["runs"] += 1
        assert app.state.dataset_name == name and app.runs == {} and app.result is None
        status = app.state.status
        if job.state == "stopped":  # only the switch stops it: it was dropped, and the status says so
            assert "dropped" in status.text and "{n}" not in status.text, status
        self.expect, self.must_say = ("success", "warning"), f"Loaded the built-in scenario {name}."

    @precondition(lambda self: self.app.result is not None and self.app.state.run in self.app.estimators
                  and self.app.partition_view is self.app.partition)
    @rule()
    def how_sure(self):
        app = self.app
        app.seeds.value = 2
        shown = app.state.run
        job = app.run_seeds(wait=True)
        STATS["runs"] += 1
        assert job.state == "finished", app.message.text
        assert app.state.run.startswith("consensus #") and app.state.run.endswith(
            f"(2 seeds of {shown.split(' ')[1]})")
        self._expect_success("finished")

    @precondition(lambda self: len(self.app.runs) > 0)
    @rule(data=st.data())
    def switch_run(self, data):
        name = data.draw(st.sampled_from(list(self.app.runs)), label="run")
        changed = name != self.app.state.run
        self.app.run_choice.value = name
        assert self.app.state.run == name
        if changed:
            self.expect, self.must_say = ("info",), f"Showing {name}."

    @rule(step=st.integers(0, 20))
    def scrub(self, step):
        slider = self.app.scrubber.slider
        slider.value = min(step, slider.max)

    @rule()
    def play_one_step(self):
        play = self.app.scrubber.play
        play.value = play.value + 1 if play.value < play.max else play.min

    @precondition(lambda self: self.app.result is not None and self.app.result.algorithm == "ERCOT")
    @rule(data=st.data())
    def click_front_member(self, data):
        app = self.app
        step = app.result[app.step]
        member = data.draw(st.integers(0, len(step.population) - 1), label="member")
        app.pareto.select(member)  # what a click on the point does
        assert app.state.member == (None if member == step.knee else member)

    @rule()
    def back_to_the_knee(self):
        self.app.pareto.knee_button.click()
        assert self.app.state.member is None

    # -- invariants ------------------------------------------------------------------------------
    @invariant()
    def status_answers_the_last_action(self):
        STATS["actions"] += 1
        status = self.app.state.status
        assert status.level in self.expect, (status, self.expect)
        assert self.must_say in status.text, (status.text, self.must_say)
        assert "Traceback" not in self.app.message.value

    @invariant()
    def scrubber_shows_the_step(self):
        app, state = self.app, self.app.state
        assert app.scrubber.value == state.step and app.scrubber.play.value == state.step
        times = app.result.times if app.result is not None else app.dataset.times
        assert app.scrubber.max == max(len(times) - 1, 1) and 0 <= state.step < len(times)
        assert app.scrubber.label == str(times[state.step])

    @invariant()
    def views_show_the_selected_run_at_the_selected_step(self):
        app, state = self.app, self.app.state
        data, result, t, member = state.dataset, state.result, state.step, state.member
        view = app.partition_view
        assert view.step == t and view.member == member
        if isinstance(view, PartitionView):
            # the agreement of "How sure?" is drawn on its consensus, and on no other run
            assert view.agreement is app.agreements.get(state.run)
            shown_result = result if result is not None else figures.ground_truth_result(data)
            static = figures.partition_figure(data, shown_result, t, member=member,
                                              projection={"pca": "pca", "3d": "3d"}.get(view.axes.value),
                                              agreement=view.agreement if member is None else None)
            assert view.figure.layout.title.text == static.layout.title.text
            assert points(view.figure) == points(static)
        else:
            static = figures.video_segmentation_figure(result, data, t, member=member)
            assert view.figure.layout.title.text.startswith(static.layout.title.text)
        assert view.layout.display is None
        if result is None:
            assert app.pareto.result is None and app.alpha.result is None
            return
        time_t = result[t].time
        time_t = time_t.item() if hasattr(time_t, "item") else time_t
        assert app.pareto.result is result and app.pareto.step == t and app.pareto.selected == member
        if result.algorithm == "ERCOT":
            pareto = figures.pareto_figure(result, t, accumulated=True, selected=member)
            assert app.pareto.figure.layout.title.text == f"{data.name}: {pareto.layout.title.text}"
        assert app.alpha.figure.data[-1].x == (time_t,)
        assert app.flows.figure.layout.title.text == f"{data.name}: {figures.sankey_title(result, t)}"
        if app.scores.figure.layout.shapes:
            assert app.scores.figure.layout.shapes[0].x0 == time_t
        assert {name for name in app.runs} == set(app.run_choice.options)

    @invariant()
    def every_view_draws_the_one_state(self):
        # each view of the Explorer (one per registered view) renders the app's state and keeps no
        # copy of it: its step, member and run are the state's, and its instance holds none of them
        app, state = self.app, self.app.state
        copies = {"result", "dataset", "runs", "step", "member", "_step", "_member", "_selected",
                  "_requested", "agreement", "_agreement_result"}
        for view in app.views:
            name = type(view).__name__
            assert view.state is state, name
            assert not copies & set(vars(view)), (name, copies & set(vars(view)))
            run = view.state_run()
            assert view.step == state.step_of(run if run is not None else None) == min(
                state.step, len(run if run is not None else state.dataset) - 1), name
            if hasattr(view, "view") and state.result is not None and len(state.result):
                # one state: a registered view of the chosen partition draws the state's chosen run (the
                # member picked at the step shown, e.g. the sizes and flows after a Pareto click)
                chosen = view.view.chosen and not view.view.member
                assert run is (state.chosen_run() if chosen else state.result), name
            if not isinstance(view, PartitionView) and hasattr(view, "view") and run is not None:
                data = figures.ViewData(run, state.dataset, {k: r for k, r in state.runs.items() if len(r)})
                if view.view.applies(data):  # a registered view: its own static parts at this step
                    static = view.view.parts(data, view.step, view.member, **view.options)  # as it is set
                    assert view.figure.layout.title.text == static.layout["title"]["text"], name

    @invariant()
    def views_name_the_current_dataset_and_run(self):
        app, state = self.app, self.app.state
        data, result = state.dataset, state.result
        titles = {view: view.figure.layout.title.text or "" for view in app.views}
        assert titles[app.partition_view].startswith(f"{data.name}: "), titles
        if result is None:
            assert "ground truth" in titles[app.partition_view], titles
            assert all(view.result is None for view in (app.pareto, app.alpha, app.flows))
        else:
            assert titles[app.partition_view].startswith(f"{data.name}: {result.algorithm}"), titles
            for view in (app.pareto, app.alpha, app.flows):
                # the flows draw the run as chosen (a member picked: its partition at the step shown)
                drawn = state.chosen_run() if view is app.flows else result
                assert view.result is drawn and titles[view].startswith(f"{data.name}: {result.algorithm}"), titles
            assert titles[app.scores].endswith(f"on {data.name}"), titles

    @invariant()
    def the_progress_bar_shows_a_fit_of_the_current_data(self):
        panel = self.app.run_panel
        job = panel.progress_job
        if job is None:
            assert panel.progress.value == 0 and panel.progress_label.value == ""
        else:
            assert job.dataset is self.app.dataset
            assert panel.progress_label.value.startswith(f"{job.n_done}/{len(job.dataset)}")


TestExplorerModel = ExplorerMachine.TestCase
TestExplorerModel.settings = settings(
    max_examples=12, stateful_step_count=10, deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: minutes per failure
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module", autouse=True)
def report(request):
    started = time.perf_counter()
    yield
    STATS["seconds"] = round(time.perf_counter() - started, 1)
    print(f"\nExplorer model test: {STATS}")
