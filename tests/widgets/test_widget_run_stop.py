"""Run panel: live steps from a background thread, Stop keeping the steps done, errors in the UI."""
from __future__ import annotations

import threading

import pytest

from ercot_nb import StaticEC, algorithms, datasets
from ercot_nb.algorithms import estimator_params
from ercot_nb.widgets import Explorer, RunPanel
from ercot_nb.widgets._job import FitJob, supports_step_callback

FAST = {"pop_size": 20, "n_evaluations": 40}


def test_stop_during_a_run_keeps_the_finished_steps():
    explorer = Explorer("syn3", params=FAST)
    seen = []

    def stop_after_three(job, step):
        if len(explorer.runs) > 1:
            return  # only the first run is stopped
        seen.append(step.t)
        if step.t == 2:
            explorer.run_panel.stop_button.click()

    explorer.run_panel.on_step(stop_after_three)
    job = explorer.run(wait=True)
    assert job.state == "stopped"
    assert seen == [0, 1, 2]
    assert len(explorer.result) == 3 and [s.t for s in explorer.result] == [0, 1, 2]
    assert explorer.scrubber.max == 2 and explorer.step == 2
    assert explorer.partition.figure.layout.title.text.startswith("syn3: ERCOT partition at time 3")
    assert "stopped after 3 of 10 steps" in explorer.run_panel.message.text
    assert not explorer.run_panel.run_button.disabled and explorer.run_panel.stop_button.disabled
    assert not explorer.picker.disabled
    # the stopped run stays available and scored; a new run is added beside it
    explorer.run_panel.form.fields["seed"].widget.value = 1
    explorer.run(wait=True)
    assert list(explorer.runs) == ["ERCOT #1", "ERCOT #2"]
    assert len(explorer.runs["ERCOT #1"]) == 3 and len(explorer.runs["ERCOT #2"]) == 10
    names = [trace.name for trace in explorer.scores.figure.data]
    assert names[0].startswith("ERCOT #1") and names[1].startswith("ERCOT #2")
    explorer.run_choice.value = "ERCOT #1"  # nothing is lost: the stopped run can be shown again
    assert explorer.result is explorer.runs["ERCOT #1"] and explorer.scrubber.max == 2


def test_a_background_run_updates_the_views_live_and_stops_on_the_button():
    explorer = Explorer("syn3", params={"pop_size": 40, "n_evaluations": 400},
                        views=("partition", "alpha"))
    titles = []
    second_step, stop_clicked = threading.Event(), threading.Event()

    def record(job, step):
        titles.append(explorer.partition.figure.layout.title.text)
        if step.t == 1:
            second_step.set()
            stop_clicked.wait(30)  # the main thread clicks Stop while this step is being shown

    explorer.run_panel.on_step(record)
    job = explorer.run()  # returns at once: the fit runs in a thread
    assert job is not None and job.running
    assert explorer.run_panel.run_button.disabled
    assert second_step.wait(60), "no step arrived"
    explorer.scrubber.value = 0  # the kernel still answers the widgets during the run
    explorer.run_panel.stop_button.click()
    stop_clicked.set()
    assert job.wait(60)
    assert job.state == "stopped" and 2 <= job.n_done < 10, (job.state, job.n_done)
    assert len(explorer.result) == job.n_done
    # each finished step was shown as it arrived (the views followed the newest step)
    assert titles[0].endswith("at time 1 ({} clusters)".format(explorer.result[0].n_clusters))
    assert any("at time 2 (" in title for title in titles)
    assert explorer.scrubber.max == job.n_done - 1
    assert not explorer.run_panel.run_button.disabled


def test_invalid_parameters_are_explained_in_the_panel():
    panel = RunPanel("ERCOT", params={"pop_size": 21})
    panel.dataset = datasets.load("syn1")[:2]
    assert panel.run(wait=True) is None  # checked against the specs before anything starts
    assert panel.message.level == "error" and "pop_size must be an even int" in panel.message.text
    assert "Traceback" not in panel.message.value
    assert panel.form.fields["pop_size"].widget.value == 21  # kept for correction
    panel.form.fields["pop_size"].widget.value = 20
    panel.form.fields["n_clusters"].widget.value = "three"
    assert panel.run() is None
    assert "n_clusters must be an int" in panel.message.text
    assert panel.form.fields["n_clusters"].widget.value == "three"  # kept for correction
    assert not panel.run_button.disabled


def test_an_unexpected_error_keeps_the_app_alive_with_details():
    explorer = Explorer("syn1", params=FAST, views=("partition",))

    def broken_view(job, step):
        raise RuntimeError("view exploded")

    explorer.run_panel.on_step(broken_view)
    job = explorer.run(wait=True)
    assert job.state == "failed"
    message = explorer.run_panel.message
    assert message is not explorer.message and message.text == explorer.message.text  # one status
    assert message.level == "error" and "entries are kept" in message.text
    assert "<details>" in message.value and "view exploded" in message.value  # folded away
    assert "Traceback" not in message.value and "/work/" not in message.value
    assert not explorer.run_panel.run_button.disabled and not explorer.picker.disabled


class _BatchOnly(StaticEC):
    """An algorithm whose fit takes no callback (like some baselines)."""

    param_specs = estimator_params("staticEC")

    def fit(self, data):  # noqa: D401 - same contract, no live steps
        return super().fit(data)


def test_an_algorithm_without_live_steps_shows_its_result_at_the_end(monkeypatch):
    monkeypatch.setitem(algorithms._REGISTRY, "batchOnly", f"{__name__}:_BatchOnly")
    explorer = Explorer("syn1", algorithm="batchOnly", params=FAST, views=("partition", "pareto"))
    assert not supports_step_callback(_BatchOnly())
    job = explorer.run()
    explorer.stop()
    assert "stops only when it ends" in explorer.run_panel.message.text
    assert job.wait(60)
    assert job.state == "finished" and len(explorer.result) == 10
    assert list(explorer.runs) == ["batchOnly #1"]
    assert explorer.partition.figure.layout.title.text.startswith("syn1: staticEC partition")


def test_a_job_runs_once_and_reports_its_steps():
    steps = []
    job = FitJob(StaticEC(**FAST, seed=0), datasets.load("syn1")[:3],
                 on_step=lambda job, step: steps.append(step.t))
    assert job.wait(0)  # not started: nothing to wait for
    job.run()
    assert steps == [0, 1, 2] and job.state == "finished" and job.seconds > 0
    with pytest.raises(RuntimeError, match="already started"):
        job.start()


def test_a_second_run_waits_for_the_first():
    explorer = Explorer("syn3", params={"pop_size": 40, "n_evaluations": 400}, views=("partition",))
    first = explorer.run()
    assert explorer.run() is None
    assert "already going on" in explorer.run_panel.message.text
    explorer.stop()
    assert first.wait(60)


def test_loading_other_data_during_a_run_stops_it_and_keeps_the_new_data():
    explorer = Explorer("syn3", params={"pop_size": 40, "n_evaluations": 400},
                        views=("partition", "scores"))
    first_step = threading.Event()
    explorer.runner.on_step(lambda job, step: first_step.set())
    job = explorer.run()
    assert first_step.wait(60)
    explorer.picker.scenario.value = "syn1"  # the user picks other data while it runs
    assert job.wait(60) and job.state == "stopped"
    assert explorer.wait(60)
    assert explorer.dataset.name == "syn1" and explorer.runs == {} and explorer.result is None
    # the end of the dropped run does not overwrite the answer to the last action, which names it
    assert explorer.message.text == ("Loaded the built-in scenario syn1. The run of ERCOT #1 on syn3 "
                                     "was stopped and dropped: its steps belong to the data shown before.")
    assert explorer.partition.figure.layout.title.text.startswith("syn1: ground truth")
    assert not explorer.run_panel.run_button.disabled
    assert explorer.run(wait=True).state == "finished" and explorer.result.times[0] == 1


def test_a_failed_scenario_is_not_replaced_by_a_silent_rerun():
    explorer = Explorer("syn3", params=FAST, views=("partition",))
    form = explorer.picker._form("syn1")
    explorer.picker._show_form("syn1")
    form.fields["n_steps"].widget.value = 0
    explorer.picker.scenario.value = "syn1"  # invalid parameters: syn1 cannot load
    assert explorer.dataset.name == "syn3" and explorer.message.level == "error"
    assert "syn3" in explorer.message.text  # says which data is still shown
    assert explorer.run() is None and explorer.runs == {}
    assert "not loaded" in explorer.message.text


def test_data_float32_cannot_hold_is_refused_on_the_status_line_and_float64_then_runs():
    # An analyst's table with Unix seconds, run with precision="float32": the
    # status names the column and what to do, the form keeps the entries, and
    # switching the form to float64 runs the same data.
    import numpy as np

    from ercot_nb.data import TemporalDataset

    rng = np.random.default_rng(0)
    X = [np.column_stack([rng.uniform(0, 86_400, 60), 1.7e9 + rng.uniform(0, 86_400, 60)]) for _ in range(3)]
    data = TemporalDataset.from_arrays(X, feature_names=["duration", "unix_time"])
    explorer = Explorer("syn1", params={**FAST, "precision": "float32"}, views=("partition",))
    job = explorer.run_panel.run(data, wait=True)
    message = explorer.run_panel.message
    assert job.state == "failed" and message.level == "error"
    assert "'unix_time'" in message.text and "precision='float64'" in message.text
    precision = explorer.run_panel.form.fields["precision"].widget
    assert precision.value == "float32" and explorer.run_panel.form.fields["pop_size"].widget.value == 20
    precision.value = "float64"
    job = explorer.run_panel.run(data, wait=True)
    assert job.state == "finished" and len(explorer.result) == 3
