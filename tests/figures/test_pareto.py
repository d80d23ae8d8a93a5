"""Pareto view: the knee, members grouped by number of clusters, raw vs accumulated."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import figures
from .plot_helpers import trace, points


def is_member_group(name: str) -> bool:
    """A trace of the members with one number of clusters ("3 clusters")."""
    return name.endswith((" cluster", " clusters")) and name.split()[0].isdigit()


def normalised(F: np.ndarray) -> np.ndarray:
    return (F - F.min(axis=0)) / (F.max(axis=0) - F.min(axis=0))


@pytest.mark.parametrize("accumulated", [True, False])
def test_pareto_knee_trace_holds_exactly_the_knee(syn3, accumulated):
    _, result = syn3
    t = 5
    step = result[t]
    fig = figures.pareto_figure(result, t, accumulated=accumulated)
    F = normalised(step.objectives_accumulated if accumulated else step.objectives)
    knee = trace(fig, "knee (chosen)")
    np.testing.assert_allclose(points(knee), F[[step.knee]])
    assert knee.customdata[0][0] == step.knee
    (note,) = fig.layout.annotations
    assert f"member {step.knee}" in note.text
    assert (note.x, note.y) == pytest.approx(tuple(F[step.knee]))


def test_pareto_groups_members_by_number_of_clusters(syn3):
    _, result = syn3
    step = result[5]
    fig = figures.pareto_figure(result, 5)
    F = normalised(step.objectives_accumulated)
    groups = {int(tr.name.split()[0]): tr for tr in fig.data if is_member_group(tr.name)}
    assert sorted(groups) == sorted(np.unique(step.population_n_clusters).tolist())
    assert len({tr.marker.color for tr in groups.values()}) == len(groups)
    for k, tr in groups.items():
        members = np.flatnonzero(step.population_n_clusters == k)
        np.testing.assert_allclose(points(tr), F[members])
        # first-front members are filled, the others open
        expected = ["circle" if on else "circle-open" for on in step.first_front[members]]
        assert list(tr.marker.symbol) == expected
    assert len(trace(fig, "first front").x) == int(step.first_front.sum())


def test_pareto_raw_and_accumulated_differ_only_with_history(syn3):
    _, result = syn3
    def shown(t, accumulated):
        fig = figures.pareto_figure(result, t, accumulated=accumulated)
        return np.vstack([points(tr) for tr in fig.data if is_member_group(tr.name)])

    np.testing.assert_allclose(shown(0, True), shown(0, False))
    later = [t for t in range(1, len(result)) if result[t].alpha > 0]
    assert later and not np.allclose(shown(later[0], True), shown(later[0], False))


def test_the_legend_explains_filled_and_hollow_markers(syn3):
    _, result = syn3
    for fig in (figures.pareto_figure(result, 5), figures.pareto_frame(result, 5)):
        legend = {tr.name: tr for tr in fig.data if tr.showlegend is not False}
        filled = [tr for name, tr in legend.items() if "filled" in name and "first front" in name]
        hollow = [tr for name, tr in legend.items() if "hollow" in name and "dominated" in name]
        assert len(filled) == 1 and len(hollow) == 1
        assert filled[0].marker.symbol == "circle" and hollow[0].marker.symbol == "circle-open"
        # the key holds no member: clicking or hovering it selects nothing
        assert list(filled[0].x) == [None] and list(hollow[0].x) == [None]


@pytest.mark.parametrize("fixed", [True, False])
def test_a_run_without_a_population_shows_its_message_and_no_legend(syn3, fixed):
    # A baseline or a consensus keeps no final population: the view says so,
    # and its legend does not explain markers, a front or a knee it does not
    # draw (the marker key stayed, reading "filled: on the first front").
    from ercot_nb import algorithms

    data, _ = syn3
    result = algorithms.make("k-meansCOT", n_clusters=3, seed=0).fit(data[:2]).result_
    assert len(result[1].population) == 0
    parts = figures.pareto_parts(result, 1, fixed=fixed)
    shown = [tr.name for tr in parts.traces if tr.showlegend is not False]  # None: plotly shows it
    assert shown == [], shown
    assert "no final population" in parts.layout["annotations"][0]["text"]


def test_the_largest_k_grows_with_a_run_reading_each_step_once(syn3, monkeypatch):
    """One rule for the colours of k (the figure, the registry's view, the widget): KMax."""
    from ercot_nb.figures import pareto
    from ercot_nb.result import ClusteringResult

    _, result = syn3
    reads = []
    real = pareto.step_k_max
    monkeypatch.setattr(pareto, "step_k_max", lambda step: (reads.append(step.t), real(step))[1])
    k_max, run = pareto.KMax(), ClusteringResult(algorithm=result.algorithm, params={})
    values, grew = [], []
    for step in result:
        run.append(step)
        grew.append(k_max.extend(run))
        values.append(k_max.value)
    assert reads == [step.t for step in result]  # each step read once
    assert values == [max(real(s) for s in result.steps[:t + 1]) for t in range(len(result))]
    assert grew == [value != before for value, before in zip(values, [1] + values[:-1])]
    reads.clear()
    assert k_max.extend(run) is False and reads == []  # the same run again: nothing new
    assert k_max.extend(result) is (values[-1] != 1) and len(reads) == len(result)  # another run: afresh
    assert k_max.value == pareto._k_max(result)


def test_the_knee_mark_of_a_mixture_says_what_the_partition_shows():
    """With final_partition="cv_mixture" a step's partition is a mixture fitted from the knee's
    centroids, which may keep fewer components than the member has centroids: the mark says so."""
    import dataclasses

    from ercot_nb import ERCOT, datasets
    from ercot_nb.figures.pareto import pareto_plain

    data = datasets.load("syn1", seed=0, n_steps=4)
    result = ERCOT(seed=0, pop_size=20, n_evaluations=40, final_partition="cv_mixture").fit(data).result_
    t = 2
    step = result[t]
    knee, k_member = step.knee, int(step.population_n_clusters[step.knee])
    assert k_member > 2
    merged = np.minimum(step.labels, 1)  # the mixture kept 2 components of the knee's k_member
    result.steps[t] = dataclasses.replace(step, labels=merged, aligned_labels=merged, centroids=step.centroids[:2])
    for layout in (pareto_plain(result, t)[1], figures.pareto_parts(result, t, fixed=True).layout):
        text = layout["annotations"][0]["text"]
        assert text == f"knee: mixture of 2 clusters from member {knee}", text
    plain = ERCOT(seed=0, pop_size=20, n_evaluations=40).fit(data).result_
    assert pareto_plain(plain, t)[1]["annotations"][0]["text"] == (
        f"knee: member {plain[t].knee}, {int(plain[t].population_n_clusters[plain[t].knee])} clusters")
