"""Issue 22 in the Explorer and Compare: runs, jobs and views stay true to what is shown.

* data switched during a run, an adoption or "How sure?": the run is
  dropped and the status says so, the progress bar forgets it, and the next
  run's views all name the new data;
* Stop works during "Use this partition from here on" (fewer steps refitted,
  the result consistent);
* ``Explorer.adopt`` refuses a step out of range (ValueError naming the
  range) and a member that is not a whole number (TypeError);
* a failed adoption's status names the run and the cause (no ``{n}``);
* the agreement of "How sure?" belongs to the consensus run only; a
  consensus says it has no smoothness weight;
* Compare runs every algorithm after one that fails, and says which
  failed (and why) and which finished.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from ercot_nb import ERCOT, algorithms, figures
from ercot_nb.evolution._ercot import StaticEC
from ercot_nb.widgets import Compare, Explorer

FAST = {"pop_size": 10, "n_evaluations": 20, "max_clusters": 4}
SMALL = {"n_steps": 6, "n_per_cluster": 8}
OTHER = {"n_steps": 3, "n_per_cluster": 6}


def choose(app: Explorer, name: str, **params) -> None:
    """What a user does in 1 · Data: pick the scenario (it loads), or set entries and Load."""
    picker = app.picker
    picker._form(name).set_values(params)
    picker.source.value = "builtin"
    if picker.scenario.value == name:
        picker.load_button.click()
    else:
        picker.scenario.value = name


@pytest.fixture
def slow_steps(monkeypatch):
    """Every ERCOT step takes at least 40 ms: a run is surely still going on when data is switched."""
    original = ERCOT._fit_snapshot

    def slow(self, snapshot):
        time.sleep(0.04)
        return original(self, snapshot)

    monkeypatch.setattr(ERCOT, "_fit_snapshot", slow)


def wait_for(condition, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def start_job(app: Explorer, kind: str):
    """Start a run of ``kind`` ("run", "adopt", "how sure") on the app's data (not waiting)."""
    if kind == "run":
        return app.run()
    app.run(wait=True)
    if kind == "adopt":
        step = app.result[1]
        member = next(m for m in range(len(step.population)) if m != step.knee)
        return app.adopt(1, member)
    app.seeds.value = 4
    return app.run_seeds()


# -- data switched while a run goes on ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["run", "adopt", "how sure"])
def test_data_switched_during_a_run_drops_it_says_so_and_forgets_its_progress(kind, slow_steps):
    app = Explorer("syn1", params=FAST, data_params={"n_steps": 30, "n_per_cluster": 8})
    job = start_job(app, kind)
    assert job is not None, app.message.text
    if kind != "how sure":  # the seeds report no steps until their consensus
        wait_for(lambda: app.runner.job is job and job.n_done >= 2)
    name = job.name
    choose(app, "syn2", **OTHER)
    assert app.wait(60) and job.state in ("stopped", "failed", "finished")
    assert app.state.dataset_name == "syn2" and app.runs == {}
    status = app.state.status
    assert status.text.startswith("Loaded the built-in scenario syn2."), status
    assert "dropped" in status.text and "syn1" in status.text, status
    assert name.split(" ")[0] in status.text and "{n}" not in status.text, status
    # the progress bar shows no step of the dropped run
    assert app.run_panel.progress.value == 0 and app.run_panel.progress_label.value == ""
    # the next run: every view names the new data and run, the progress bar is its own
    new = app.run(wait=True)
    assert new.state == "finished" and app.state.run == list(app.runs)[-1]
    assert_views_name_the_current_data_and_run(app)
    assert app.run_panel.progress_label.value.startswith(f"{len(app.dataset)}/{len(app.dataset)} ·")


def assert_views_name_the_current_data_and_run(app: Explorer) -> None:
    state, data, result = app.state, app.dataset, app.result
    title = app.partition.figure.layout.title.text
    assert title.startswith(f"{data.name}: {result.algorithm} partition at time "), title
    assert title == figures.partition_figure(data, result, state.step, member=state.member).layout.title.text
    assert f"on {data.name}" in app.scores.figure.layout.title.text
    for view in (app.pareto, app.alpha, app.flows):
        assert view.result is result
        assert view.figure.layout.title.text.startswith(f"{data.name}: {result.algorithm}")


def test_a_run_that_ends_before_the_switch_is_kept_out_of_the_status():
    app = Explorer("syn1", params=FAST, data_params=SMALL)
    app.run(wait=True)
    choose(app, "syn2", **OTHER)
    assert app.message.text == "Loaded the built-in scenario syn2."  # nothing was dropped
    assert app.run_panel.progress.value == 0 and app.run_panel.progress_label.value == ""


# -- Stop during an adoption ----------------------------------------------------------------------


@pytest.mark.parametrize("t", [1, 20])
def test_stop_during_an_adoption_ends_it_after_the_current_step(t):
    n_steps = 40
    app = Explorer("syn1", params=FAST, data_params={"n_steps": n_steps, "n_per_cluster": 6},
                   views=("partition", "pareto"))
    app.run(wait=True)
    original = app.result
    step = original[t]
    member = next(m for m in range(len(step.population)) if m != step.knee)
    stop_at = t + 3  # steps 0..t kept, then two refitted

    def press_stop(job, _step):
        if job.n_done >= stop_at and app.state.running:
            app.stop()

    app.runner.on_step(press_stop)
    job = app.adopt(t, member, wait=True)
    assert job.state == "stopped", app.message.text
    adopted = app.result
    assert app.state.run.startswith("ERCOT #2 (#1 with member")
    assert stop_at <= len(adopted) < n_steps  # not all 40 steps refitted
    assert f"stopped after {len(adopted)} of {n_steps} steps" in app.message.text
    # consistent: the steps before t unchanged, step t the member's, the estimator holds its steps
    for s in range(t):
        np.testing.assert_array_equal(adopted[s].labels, original[s].labels)
    assert adopted[t].knee == member
    estimator = app.estimators[app.state.run]
    assert estimator.result_ is adopted and len(estimator._step_states) == len(adopted)
    assert [s.t for s in adopted] == list(range(len(adopted)))
    assert app.runs["ERCOT #1"] is original and len(original) == n_steps  # the original is kept


# -- adopt's arguments ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fitted():
    app = Explorer("syn1", params=FAST, data_params=SMALL, views=("pareto",))
    app.run(wait=True)
    return app


@pytest.mark.parametrize("t", [99, 6, -1])
def test_adopt_refuses_a_step_out_of_range_naming_the_range(fitted, t):
    with pytest.raises(ValueError, match=r"t must be a step of ERCOT #1, in \[0, 5\], got " + str(t)):
        fitted.adopt(t, 0)


@pytest.mark.parametrize("argument, value", [("member", 1.5), ("member", True), ("t", 2.0), ("t", "3")])
def test_adopt_refuses_what_is_not_a_whole_number(fitted, argument, value):
    kwargs = {"t": 2, "member": 1, argument: value}
    with pytest.raises(TypeError, match=f"{argument} must be an int\\b"):
        fitted.adopt(**kwargs)
    assert list(fitted.runs) == ["ERCOT #1"]


def test_adopt_refuses_a_member_out_of_range(fitted):
    n = len(fitted.result[2].population)
    with pytest.raises(ValueError, match=rf"member must be .*\[0, {n - 1}\].*got {n}"):
        fitted.adopt(2, n)
    assert fitted.adopt(np.int64(2), np.int64(1), wait=True).state == "finished"  # numpy ints are fine


# -- a failed adoption says which run and why ------------------------------------------------------


@pytest.mark.parametrize("breakage", ["no data held", "error while refitting"])
def test_a_failed_adoption_names_the_run_and_the_cause(breakage, monkeypatch):
    app = Explorer("syn1", params=FAST, data_params=SMALL, views=("pareto",))
    app.run(wait=True)
    estimator = app.estimators["ERCOT #1"]
    if breakage == "no data held":
        estimator._step_states = []
        cause = "does not hold the data"
    else:
        original, calls = ERCOT._fit_snapshot, []

        def broken(self, snapshot):  # the second step fitted again fails
            calls.append(1)
            if len(calls) == 2:
                raise ValueError("step data out of reach")
            return original(self, snapshot)
        monkeypatch.setattr(ERCOT, "_fit_snapshot", broken)
        cause = "step data out of reach"
    job = app.adopt(2, 1, wait=True)
    assert job.state == "failed"
    status = app.state.status
    assert status.level == "error" and "{n}" not in status.text, status
    assert "#1" in status.text and "member 1" in status.text and cause in status.text, status
    if breakage == "no data held":  # nothing was adopted; a failure while refitting keeps its steps
        assert list(app.runs) == ["ERCOT #1"]
        assert status.text.startswith("Problem running ERCOT (#1 with member 1 at time 3): "), status
    else:  # its first step fitted again made it a run
        assert status.text.startswith("Problem running ERCOT #2 (#1 with member 1 at time 3): "), status
        assert len(app.runs["ERCOT #2 (#1 with member 1 at time 3)"]) == 4


# -- How sure? belongs to the consensus ----------------------------------------------------------


def opacities(figure) -> list:
    return [np.ndim(tr.marker.opacity) for tr in figure.data if tr.name.startswith("cluster ") and len(tr.x)]


@pytest.mark.parametrize("back", ["show run", "scrub then show run"])
def test_the_agreement_is_drawn_on_the_consensus_only(back):
    app = Explorer("syn1", params=FAST, data_params=SMALL)
    app.run(wait=True)
    app.seeds.value = 3
    assert app.run_seeds(wait=True).state == "finished"
    consensus = app.state.run
    assert all(o == 1 for o in opacities(app.partition.figure))
    if back == "scrub then show run":
        app.step = 3
    app.run_choice.value = "ERCOT #1"
    data, result = app.dataset, app.result
    static = figures.partition_figure(data, result, app.step)
    assert app.partition.figure.layout.title.text == static.layout.title.text
    assert opacities(app.partition.figure) and all(o == 0 for o in opacities(app.partition.figure))
    assert app.partition.static().layout.title.text == static.layout.title.text
    app.run_choice.value = consensus  # back to the consensus: its agreement again
    assert all(o == 1 for o in opacities(app.partition.figure))


def test_a_consensus_says_it_has_no_smoothness_weight():
    app = Explorer("syn1", params=FAST, data_params=SMALL, views=("partition", "alpha"))
    app.run(wait=True)
    assert not app.alpha.figure.layout.annotations  # a run with a weight: no message
    app.seeds.value = 2
    app.run_seeds(wait=True)
    notes = [a.text for a in app.alpha.figure.layout.annotations]
    assert any("smoothness weight" in note and "consensus" in note for note in notes), notes
    assert [a.text for a in app.alpha.static().layout.annotations] == notes
    app.run_choice.value = "ERCOT #1"  # the note goes with the run
    assert not app.alpha.figure.layout.annotations


# -- Compare runs every algorithm after a failure ---------------------------------------------------


class BrokenEC(StaticEC):
    """staticEC that fails at its third step."""

    def _fit_snapshot(self, snapshot):
        if len(self.result_) == 2:
            raise ValueError("step 2 broke on purpose")
        return super()._fit_snapshot(snapshot)


@pytest.mark.parametrize("order", [("ERCOT", "broken", "staticEC"), ("broken", "ERCOT", "staticEC"),
                                   ("ERCOT", "staticEC", "broken")])
def test_compare_runs_the_algorithms_after_a_failing_one_and_names_each_outcome(order, monkeypatch):
    targets = {**algorithms._REGISTRY, "broken": f"{__name__}:BrokenEC"}
    monkeypatch.setattr(algorithms, "_REGISTRY", {name: targets[name] for name in order})
    compare = Compare("syn1", algorithms=order, params={name: FAST for name in order},
                      data_params=SMALL)
    assert compare.selected == list(order)
    compare.run(wait=True)
    assert {"ERCOT", "staticEC"} <= set(compare.runs)
    assert len(compare.runs["ERCOT"]) == len(compare.runs["staticEC"]) == 6
    status = compare.state.status
    assert status.level == "error", status
    assert "broken failed" in status.text and "step 2 broke on purpose" in status.text, status
    finished = " and ".join(name for name in order if name != "broken")
    assert f"{finished} finished (" in status.text and "ERCOT 6/6" in status.text, status
    assert not compare.state.running and not compare.run_button.disabled


def test_data_loaded_twice_while_the_dropped_run_ends_names_its_data_once(slow_steps):
    app = Explorer("syn1", params=FAST, data_params={"n_steps": 30, "n_per_cluster": 8})
    job = app.run()
    wait_for(lambda: app.runner.job is job and job.n_done >= 2)
    choose(app, "syn2", **OTHER)
    choose(app, "syn2", **OTHER)  # Load again, perhaps before the dropped run ended its step
    assert app.wait(60)
    text = app.message.text
    assert text.startswith("Loaded the built-in scenario syn2."), text
    assert "on syn2" not in text, text  # never the data it was not fitted on
    if app.runner.job.state == "stopped" and "dropped" in text:
        assert "The run of ERCOT #1 on syn1 was stopped and dropped" in text
    choose(app, "syn3", **OTHER)  # after the run ended: nothing more is dropped
    assert app.message.text == "Loaded the built-in scenario syn3."
