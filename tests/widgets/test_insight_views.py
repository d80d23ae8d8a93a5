"""Issue 14 in the Explorer: label-free scores, events on the Sankey, agreement, "use this partition"."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ercot_nb import ERCOT, TemporalDataset, datasets, figures
from ercot_nb.ensemble import ensemble
from ercot_nb.figures.lines import score_trace_name
from ercot_nb.metrics import label_free_steps
from ercot_nb.result import ClusteringResult
from ercot_nb.widgets import Explorer
from ercot_nb.widgets._fits import SeedEnsemble, ensemble_seeds
from ercot_nb.widgets.views.partition import PartitionView
from ercot_nb.widgets.views.flows import FlowsView
from ercot_nb.widgets.views.scores import LABEL_FREE, ScoresView

FAST = {"pop_size": 20, "n_evaluations": 40}


def unlabelled(data: TemporalDataset) -> TemporalDataset:
    return TemporalDataset.from_arrays([s.X for s in data], ids=[s.ids for s in data], times=data.times,
                                       name="own table")


@pytest.fixture(scope="module")
def syn3():
    data = datasets.load("syn3", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


def names(view) -> list[str]:
    return [trace.name for trace in view.figure.data]


def test_scores_view_without_labels_shows_label_free_scores_and_extends_them(syn3):
    data, result = syn3
    plain = unlabelled(data)
    growing = ClusteringResult(result.algorithm, result.params, list(result.steps[:4]))
    view = ScoresView(plain, {"ERCOT": growing})
    assert view.metric.value == LABEL_FREE and view.metric.disabled
    assert score_trace_name("ERCOT", "churn") in names(view)
    growing.steps.extend(result.steps[4:])  # the run grew in place
    view.refresh()
    churn = view.figure.data[names(view).index(score_trace_name("ERCOT", "churn"))]
    expected = label_free_steps(result, plain, sample_size=500)["churn"].to_numpy()
    np.testing.assert_allclose(np.asarray(churn.y, dtype=float), expected)
    # with labels the same scores are one click away, and RI back another
    labelled = ScoresView(data, {"ERCOT": result})
    assert not labelled.metric.disabled and not any("·" in name for name in names(labelled))
    labelled.metric.value = LABEL_FREE
    assert score_trace_name("ERCOT", "silhouette") in names(labelled)
    labelled.metric.value = "RI"
    assert names(labelled) == [trace.name for trace in figures.scores_figure(data, {"ERCOT": result}).data]


def test_sankey_view_marks_events_and_can_hide_them(syn3):
    _, result = syn3
    view = FlowsView(result, step=5)
    flow = view.figure.data[0]
    events = result.events()
    marked = events[(events.t > 0) & (events.event != "continue")]
    assert len(marked) and any(" " in str(label) for label in flow.node.label)
    assert all(len(row) == 4 for row in flow.node.customdata)
    view.show_events.value = False
    assert all(" " not in str(label) for label in view.figure.data[0].node.label)


def test_partition_view_draws_agreement_as_opacity(syn3):
    data, _ = syn3
    runs = ensemble(ERCOT(**FAST), data, seeds=[0, 1, 2])
    merged = runs.to_result(data)
    view = PartitionView(data, merged, step=6)
    view.show_agreement(runs)
    clusters = [tr for tr in view.figure.data if tr.name.startswith("cluster ")]
    shown = np.concatenate([np.atleast_1d(tr.marker.opacity) for tr in clusters if len(tr.x)])
    values = np.concatenate([tr.customdata for tr in clusters if len(tr.x)])
    np.testing.assert_allclose(shown, np.clip(values, 0.1, 1.0))
    np.testing.assert_allclose(np.sort(values), np.sort(runs.agreement[6]))
    assert "agreement" in view.figure.layout.title.text
    view.show_agreement(None)
    assert all(np.ndim(tr.marker.opacity) == 0 for tr in view.figure.data if tr.name.startswith("cluster "))


def test_explorer_shows_an_ensembles_agreement_until_other_data(syn3):
    data, _ = syn3
    explorer = Explorer(data, params=FAST, views=("partition",))
    explorer.run(wait=True)
    runs = ensemble(ERCOT(**FAST), data, seeds=[0, 1, 2])
    explorer.show_agreement(runs)
    explorer.step = 4
    clusters = [tr for tr in explorer.partition.figure.data if tr.name.startswith("cluster ") and len(tr.x)]
    assert all(np.ndim(tr.marker.opacity) == 1 for tr in clusters)
    explorer.picker.scenario.value = "syn5"
    assert explorer.dataset.name == "syn5" and explorer.partition.agreement is None


def other_k_member(result, t: int) -> int:
    step = result[t]
    front = np.flatnonzero(step.first_front)
    others = [m for m in front if step.population_n_clusters[m] != step.n_clusters]
    return int(others[0])


def test_use_this_partition_from_here_on(syn3):
    explorer = Explorer("syn3", params=FAST)
    explorer.run(wait=True)
    original_name = explorer.state.run
    original = explorer.result
    explorer.step = 5
    assert explorer.pareto.use_button.disabled  # the knee is shown: nothing to use
    member = other_k_member(original, 5)
    explorer.select_member(member)
    assert not explorer.pareto.use_button.disabled
    explorer.pareto.use_button.click()
    assert explorer.runner.wait(60)
    adopted = explorer.result
    assert explorer.state.run != original_name and explorer.runs[original_name] is original
    assert explorer.state.run == f"ERCOT #2 (#1 with member {member} at time 6)"
    assert "finished" in explorer.message.text
    assert explorer.step == 5 and explorer.state.member is None
    for t in range(5):
        np.testing.assert_array_equal(adopted[t].labels, original[t].labels)
    assert adopted[5].knee == member
    np.testing.assert_array_equal(adopted[5].labels, original.labels_of_member(explorer.dataset[5].X, 5, member))
    # the views show the new run
    assert explorer.pareto.result is adopted and explorer.flows.result is adopted


def test_use_without_a_fitted_run_says_why(syn3):
    data, result = syn3
    explorer = Explorer(data, result=result, params=FAST)  # a run given, not fitted here
    explorer.step = 5
    explorer.select_member(other_k_member(result, 5))
    assert explorer.adopt() is None
    assert "cannot be continued" in explorer.message.text


def cluster_opacities(figure) -> list:
    return [tr.marker.opacity for tr in figure.data if tr.name.startswith("cluster ") and len(tr.x)]


def test_how_sure_runs_the_seeds_and_draws_their_agreement(syn3):
    data, _ = syn3
    explorer = Explorer(data, params={**FAST, "seed": 7}, views=("partition", "pareto"))
    explorer.run(wait=True)
    original = explorer.result
    explorer.seeds.value = 3
    job = explorer.run_seeds(wait=True)
    assert job is not None and job.state == "finished"
    runs = job.estimator.ensemble
    assert runs.seeds == [8, 9, 10]  # seeds other than the shown run's own (7)
    repeat = ERCOT(**{**FAST, "seed": 8}).fit(data).result_
    for first, again in zip(runs.results[0], repeat):  # each run is the shown run's estimator, reseeded
        np.testing.assert_array_equal(first.labels, again.labels)
    assert any(not np.array_equal(a.labels, b.labels) for a, b in zip(runs.results[0], original))
    assert explorer.state.run == "consensus #2 (3 seeds of #1)"
    assert "finished" in explorer.message.text
    for t in (0, 6):
        explorer.step = t
        expected = figures.partition_figure(data, runs.to_result(data), t, agreement=runs)
        shown = cluster_opacities(explorer.partition.figure)
        assert shown and all(np.ndim(o) == 1 for o in shown)
        for got, want in zip(shown, cluster_opacities(expected)):
            np.testing.assert_allclose(got, want)
    # the consensus has no population: it cannot be continued, and says so
    assert explorer.adopt(member=0) is None and "cannot be continued" in explorer.message.text


def test_how_sure_says_why_when_it_cannot_run(syn3):
    data, result = syn3
    explorer = Explorer(data, params=FAST, views=("partition",))
    assert explorer.run_seeds(3) is None and "Run an algorithm first" in explorer.message.text
    given = Explorer(data, result=result, params=FAST, views=("partition",))
    assert given.run_seeds(3) is None and "cannot be repeated" in given.message.text
    explorer.run(wait=True)
    assert explorer.run_seeds(1) is None and "at least 2 seeds" in explorer.message.text
    assert list(explorer.runs) == ["ERCOT #1"]  # nothing was added


def test_a_stopped_ensemble_merges_the_seeds_done(syn3):
    data, _ = syn3
    fit = SeedEnsemble(ERCOT(**FAST), [0, 1, 2], should_stop=lambda: True).fit(data)
    assert fit.ensemble.seeds == [0] and len(fit.result_) == len(data)
    assert ensemble_seeds(ERCOT(seed=None), 3) == [0, 1, 2]


@pytest.mark.parametrize("seed", [0, 7, 41])
def test_how_sure_seeds_are_other_than_the_shown_runs_own(seed):
    seeds = ensemble_seeds(ERCOT(seed=seed), 4)
    assert len(seeds) == len(set(seeds)) == 4 and seed not in seeds


@settings(max_examples=4, stateful_step_count=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
class AdoptSequences(RuleBasedStateMachine):
    """Scrub, pick members, use them, switch back: earlier steps never change, runs accumulate."""

    @initialize()
    def start(self):
        self.explorer = Explorer("syn1", params=FAST, data_params={"n_steps": 6},
                                 views=("partition", "pareto", "flows"))
        self.explorer.run(wait=True)
        self.kept = dict(self.explorer.runs)

    @rule(step=st.integers(0, 5))
    def scrub(self, step):
        self.explorer.step = step

    @precondition(lambda self: self.explorer.state.run in self.adoptable())
    @rule(pick=st.integers(0, 50))
    def pick(self, pick):
        step = self.explorer.result[self.explorer.step]
        front = np.flatnonzero(step.first_front)
        self.explorer.select_member(int(front[pick % len(front)]))

    @precondition(lambda self: self.explorer.state.member is not None
                  and self.explorer.state.run in self.adoptable())
    @rule()
    def use(self):
        before, t, member = self.explorer.result, self.explorer.step, self.explorer.state.member
        self.explorer.pareto.use_button.click()
        assert self.explorer.runner.wait(60)
        after = self.explorer.result
        assert after is not before and len(after) == len(before)
        for s in range(t):
            np.testing.assert_array_equal(after[s].labels, before[s].labels)
        assert after[t].knee == member
        self.kept[self.explorer.state.run] = after

    @precondition(lambda self: self.explorer.state.run in self.adoptable())
    @rule()
    def how_sure(self):
        self.explorer.run_seeds(2, wait=True)
        consensus = self.explorer.result
        assert self.explorer.state.run.startswith("consensus #") and "(2 seeds of #" in self.explorer.state.run
        assert self.explorer.partition.agreement is not None
        self.kept[self.explorer.state.run] = consensus

    def adoptable(self):
        return [name for name in self.kept if not name.startswith("consensus")]

    @rule(data=st.data())
    def switch(self, data):
        self.explorer.select_run(data.draw(st.sampled_from(sorted(self.kept))))

    @invariant()
    def runs_are_kept_unchanged(self):
        if hasattr(self, "explorer"):
            for name, result in self.kept.items():
                assert self.explorer.runs[name] is result
            assert self.explorer.pareto.use_button.disabled == (self.explorer.state.member is None)


TestAdoptSequences = AdoptSequences.TestCase


def test_how_sure_on_an_adopted_run_repeats_the_adoption(syn3):
    """Each seed's run adopts, at the adopted step, its front member closest to the partition shown."""
    from ercot_nb.metrics import rand_index

    data, _ = syn3
    explorer = Explorer(data, params={**FAST, "seed": 7}, views=("partition", "pareto"))
    explorer.run(wait=True)
    t = 5
    step = explorer.result[t]
    knee_k = int(step.population_n_clusters[step.knee])
    member = next(int(m) for m in np.flatnonzero(step.first_front)
                  if int(step.population_n_clusters[m]) != knee_k)
    explorer.step = t
    assert explorer.adopt(t, member, wait=True).state == "finished"
    shown = explorer.result[t].labels
    job = explorer.run_seeds(2, wait=True)
    assert job is not None and job.state == "finished"
    runs = job.estimator.ensemble
    assert runs.seeds == [8, 9]
    differs = []
    for seed, run in zip(runs.seeds, runs.results):
        plain = ERCOT(**{**FAST, "seed": seed}).fit(data)
        front = np.flatnonzero(plain.result_[t].first_front)
        agreement = {int(m): rand_index(shown, plain.result_.labels_of_member(data[t].X, t, int(m))) for m in front}
        best = max(agreement, key=lambda m: (agreement[m], -m))
        knee = plain.result_[t].knee
        again = plain.adopt(t, best).result_
        for a, b in zip(run, again):
            np.testing.assert_array_equal(a.labels, b.labels)
        differs.append(best != knee)
    assert any(differs)  # the adoption changed at least one seed's run
