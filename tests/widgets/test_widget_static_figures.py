"""Static fallbacks: new figure builders and the offline HTML export of a run."""
from __future__ import annotations

import base64
import gzip
import re

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs

from ercot_nb import ERCOT, StaticEC, TemporalDataset, datasets, figures
from ercot_nb.data import common_ids
from ercot_nb.metrics import score_steps
from ercot_nb.page import write as write_page

FAST = {"pop_size": 20, "n_evaluations": 60}


@pytest.fixture(scope="module")
def syn5():
    """Samples leave at t = 4, 8 and arrive at t = 6."""
    data = datasets.load("syn5", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


def trace(fig: go.Figure, name: str):
    (found,) = [tr for tr in fig.data if tr.name == name]
    return found


# -- cluster flow -------------------------------------------------------------------------------


def test_cluster_flows_count_the_shared_samples(syn5):
    data, result = syn5
    flows = figures.cluster_flows(result)
    for t in range(1, len(result)):
        common_prev, common_now = common_ids(data[t - 1], data[t])
        at_t = [f for f in flows if f["t"] == t]
        assert sum(f["count"] for f in at_t) == len(common_now)
        pairs = {(f["source"], f["target"]): f["count"] for f in at_t}
        source = result[t - 1].aligned_labels[common_prev]
        target = result[t].aligned_labels[common_now]
        for (a, b), count in pairs.items():
            assert count == int(np.sum((source == a) & (target == b)))


def test_sankey_nodes_links_and_focus(syn5):
    data, result = syn5
    fig = figures.sankey_figure(result, t=4)
    (sankey,) = fig.data
    nodes = sankey.node.customdata
    assert len(nodes) == sum(len(np.unique(s.aligned_labels)) for s in result)
    for (step, label, size), color in zip(nodes, sankey.node.color):
        assert size == int(np.sum(result[step].aligned_labels == label))
        assert (color == figures.label_color(label)) == (step == 4)  # step 4 in focus
    assert sum(sankey.link.value) == sum(f["count"] for f in figures.cluster_flows(result))
    assert "time 5 in focus" in fig.layout.title.text
    assert [a.text for a in fig.layout.annotations] == [f"time {t}" for t in data.times]
    unfocused = figures.sankey_figure(result)
    assert list(unfocused.data[0].node.color) == [figures.label_color(n[1]) for n in nodes]


# -- partitions ---------------------------------------------------------------------------------


def test_left_samples_are_marked_at_their_last_position(syn5):
    data, result = syn5
    for t in range(1, len(data)):
        left = trace(figures.partition_figure(data, result, t), "left since previous step")
        gone = set(map(str, data[t - 1].ids)) - set(map(str, data[t].ids))
        assert set(left.text) == gone
        where = {str(i): x for i, x in zip(data[t - 1].ids, data[t - 1].X)}
        for text, x, y in zip(left.text, left.x, left.y):
            np.testing.assert_allclose([x, y], where[text])
    assert any(len(trace(figures.partition_figure(data, result, t), "left since previous step").x)
               for t in range(1, len(data)))


def test_member_partition_is_the_chosen_members_and_keeps_the_knees_colours(syn5):
    data, result = syn5
    t = 3
    step = result[t]
    assert figures.member_partition(data, result, t, step.knee) is step
    others = [m for m in np.flatnonzero(step.first_front) if m != step.knee]
    member = int(others[0])
    partition = figures.member_partition(data, result, t, member)
    expected = result.labels_of_member(data[t].X, t, member)
    np.testing.assert_array_equal(partition.labels, expected)
    # the same cluster under knee and member keeps the knee's aligned label
    for label in np.unique(partition.labels):
        members = partition.labels == label
        knee_labels = step.aligned_labels[members]
        if np.all(knee_labels == knee_labels[0]) and members.sum() == np.sum(
                step.aligned_labels == knee_labels[0]):
            assert np.all(partition.aligned_labels[members] == knee_labels[0])
    with pytest.raises(IndexError):
        figures.member_partition(data, result, t, len(step.population))
    static = StaticEC(seed=0, **FAST).fit(data[:2]).result_
    baseline = figures.ground_truth_result(data[:2])
    with pytest.raises(ValueError, match="no final population"):
        figures.member_partition(data[:2], baseline, 0, 0)
    assert len(static[0].population)  # staticEC keeps one


def test_webgl_figures_carry_integer_ids_as_binary_customdata():
    rng = np.random.default_rng(0)
    n = figures.WEBGL_THRESHOLD + 10
    data = TemporalDataset.from_arrays([rng.normal(size=(n, 2)) for _ in range(2)])
    result = StaticEC(seed=0, max_clusters=3, pop_size=8, n_evaluations=16).fit(data).result_
    fig = figures.partition_figure(data, result, 1)
    clusters = [tr for tr in fig.data if tr.name.startswith("cluster ")]
    assert {tr.type for tr in clusters} == {"scattergl"}
    ids = np.concatenate([np.asarray(tr.customdata) for tr in clusters])
    assert sorted(ids.astype(int)) == list(range(n))
    assert all(tr.text is None and "%{customdata:d}" in tr.hovertemplate for tr in clusters)
    small = figures.partition_figure(data, result, 1, webgl=False)
    assert all(tr.text is not None for tr in small.data if tr.name.startswith("cluster "))


def test_ground_truth_result_previews_the_labels(syn5):
    data, _ = syn5
    truth = figures.ground_truth_result(data)
    assert truth.algorithm == "ground truth" and len(truth) == len(data)
    scores = score_steps(data, truth.labels)
    assert np.allclose(scores["RI"], 1.0)
    unlabelled = TemporalDataset.from_arrays([s.X for s in data[:2]])
    assert figures.ground_truth_result(unlabelled).n_clusters.tolist() == [1, 1]


# -- search history -----------------------------------------------------------------------------


def test_pareto_frames_share_one_trace_layout(syn5):
    _, result = syn5
    frames = [figures.pareto_frame(result, t) for t in range(len(result))]
    names = [[tr.name for tr in fig.data] for fig in frames]
    assert all(n == names[0] for n in names)
    k_max = max(max(s.n_max, s.population_n_clusters.max()) for s in result)
    assert [n for n in names[0] if n.split()[0].isdigit()] == [figures.pareto.k_name(k) for k in range(1, k_max + 1)]
    for t, fig in enumerate(frames):
        shown = sorted(int(tr.name.split()[0]) for tr in fig.data if tr.name.split()[0].isdigit() and tr.showlegend)
        assert shown == sorted(np.unique(result[t].population_n_clusters).tolist())
    animation = figures.pareto_animation(result, start=2)
    assert [f.name for f in animation.frames] == [str(t) for t in range(len(result))]
    assert animation.layout.sliders[0].active == 2


def test_pareto_selection_ring_and_raw_vs_accumulated(syn5):
    _, result = syn5
    t = next(t for t in range(1, len(result)) if result[t].alpha > 0)
    step = result[t]
    member = int(next(m for m in range(len(step.population)) if m != step.knee))
    fig = figures.pareto_figure(result, t, selected=member)
    ring = trace(fig, "selected member")
    assert ring.customdata[0][0] == member
    assert "selected member" not in [tr.name for tr in figures.pareto_figure(result, t).data]
    both = figures.pareto_comparison_figure(result, t, selected=member)
    raw = [tr for tr in both.data if tr.xaxis == "x" and tr.name.split()[0].isdigit()]
    accumulated = [tr for tr in both.data if tr.xaxis == "x2" and tr.name.split()[0].isdigit()]
    assert raw and accumulated
    assert f"weight {step.alpha:.3f}" in both.layout.annotations[1].text
    assert not np.allclose(np.concatenate([tr.y for tr in raw]), np.concatenate([tr.y for tr in accumulated]))


def test_alpha_and_scores_mark_the_current_step(syn5):
    data, result = syn5
    fig = figures.alpha_figure(result, t=3)
    assert trace(fig, "current step").x == (data.times[3],)
    assert fig.layout.shapes[0].x0 == data.times[3]
    partial = result.labels[:4]
    scores = figures.scores_figure(data, {"full": result, "partial": partial}, t=6)
    full, part = scores.data
    assert len(full.x) == 10 and list(part.x) == data.times[:4]
    np.testing.assert_allclose(part.y, score_steps(data[:4], partial)["RI"])
    assert scores.layout.shapes[0].x0 == data.times[6]
    with pytest.raises(ValueError, match="only 2"):
        figures.scores_figure(data[:2], {"full": result})


# -- offline export -----------------------------------------------------------------------------


def test_page_write_is_self_contained(syn5, tmp_path):
    data, result = syn5
    path = write_page(result, tmp_path / "out" / "run.html", dataset=data)
    text = path.read_text(encoding="utf-8")
    # the explorer page (ercot_nb.page): plotly.js inline, gzip+base64 packed
    packed = re.search(r'<script id="plotly-js"[^>]*>([^<]*)</script>', text).group(1)
    assert gzip.decompress(base64.b64decode(packed)).decode()[:5000] == get_plotlyjs()[:5000]
    assert "cdn.plot.ly" not in text and "<script src=" not in text and "<link" not in text
    assert "<title>ERCOT on syn5</title>" in text
    assert 'id="ercot-data"' in text
    bare = write_page(result, tmp_path / "bare.html")
    block = re.search(r'id="ercot-data"[^>]*>([^<]*)<', bare.read_text(encoding="utf-8")).group(1)
    assert "No dataset was given" in gzip.decompress(base64.b64decode(block)).decode()


def test_report_figures_without_population(syn5):
    data, _ = syn5
    truth = figures.ground_truth_result(data)
    names = [fig.layout.title.text for fig in figures.report_figures(truth, data)]
    assert not any("final population" in name for name in names)
    with pytest.raises(ValueError, match="no steps"):
        figures.report_figures(type(truth)(algorithm="x", params={}))
