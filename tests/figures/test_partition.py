"""Partition view: trace content, colours, fixed axes, WebGL switch, 3-D, animation."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from ercot_nb import StaticEC, TemporalDataset, figures
from ercot_nb.figures.style import rgba
from .plot_helpers import FAST, cluster_traces, trace, points, same_rows, points3d


def test_partition_traces_hold_each_aligned_cluster_in_its_colour(syn3):
    data, result = syn3
    t = 5
    fig = figures.partition_figure(data, result, t)
    step, snapshot = result[t], data[t]
    by_label = cluster_traces(fig)
    assert sorted(by_label) == sorted(np.unique(step.aligned_labels).tolist())
    for label, tr in by_label.items():
        members = step.aligned_labels == label
        assert tr.marker.color == figures.label_color(label)
        assert same_rows(points(tr), snapshot.X[members][:, :2])
        assert sorted(tr.text) == sorted(str(i) for i in snapshot.ids[members])  # hover ids
    assert sum(len(tr.x) for tr in by_label.values()) == snapshot.n_samples
    assert fig.layout.template.layout.plot_bgcolor == "white"  # plotly_white


def test_a_cluster_keeps_its_colour_across_steps(syn3):
    data, result = syn3
    early, late = cluster_traces(figures.partition_figure(data, result, 1)), cluster_traces(
        figures.partition_figure(data, result, 8)
    )
    shared = set(early) & set(late)
    assert shared
    for label in shared:
        assert early[label].marker.color == late[label].marker.color
        # the colour really follows the aligned label: same ids dominate both
        ids_early = set(early[label].text)
        ids_late = set(late[label].text)
        assert len(ids_early & ids_late) > 0


def test_centroids_are_x_markers_coloured_like_their_cluster(syn3):
    data, result = syn3
    t = 3
    step = result[t]
    centroids = trace(figures.partition_figure(data, result, t), "centroids")
    assert centroids.marker.symbol == "x"
    np.testing.assert_allclose(points(centroids), step.centroids[:, :2])
    for c, color in enumerate(centroids.marker.color):
        aligned = np.unique(step.aligned_labels[step.labels == c])
        assert color == figures.label_color(int(aligned[0]))
    no_centroids = figures.partition_figure(data, result, t, show_centroids=False)
    assert all(tr.name != "centroids" for tr in no_centroids.data)


def test_axis_ranges_are_fixed_over_steps_and_cover_all_data(syn3):
    data, result = syn3
    ranges = {
        (tuple(fig.layout.xaxis.range), tuple(fig.layout.yaxis.range))
        for fig in (figures.partition_figure(data, result, t) for t in (0, 4, 9))
    }
    assert len(ranges) == 1
    (x_range, y_range), = ranges
    X = np.vstack([s.X for s in data])
    assert x_range[0] < X[:, 0].min() and X[:, 0].max() < x_range[1]
    assert y_range[0] < X[:, 1].min() and X[:, 1].max() < y_range[1]


def test_entered_samples_are_marked(syn5):
    data, result = syn5
    for t in range(len(data)):
        entered = trace(figures.partition_figure(data, result, t), "entered since previous step")
        expected = set() if t == 0 else set(map(str, data[t].ids)) - set(map(str, data[t - 1].ids))
        assert set(entered.text) == expected
        assert entered.marker.symbol == "circle-open"
    assert any(len(set(map(str, data[t].ids)) - set(map(str, data[t - 1].ids))) for t in range(1, len(data)))


def test_scattergl_above_the_threshold():
    rng = np.random.default_rng(0)
    sizes = (figures.WEBGL_THRESHOLD, figures.WEBGL_THRESHOLD + 1)
    X = [rng.normal(size=(n, 2)) + np.repeat([[0, 0], [6, 6]], [n // 2, n - n // 2], axis=0) for n in sizes]
    data = TemporalDataset.from_arrays(X)
    result = StaticEC(seed=0, max_clusters=3, pop_size=8, n_evaluations=16).fit(data).result_
    at_threshold = figures.partition_figure(data, result, 0)
    above = figures.partition_figure(data, result, 1)
    assert {tr.type for tr in cluster_traces(at_threshold).values()} == {"scatter"}
    assert {tr.type for tr in cluster_traces(above).values()} == {"scattergl"}
    assert trace(above, "entered since previous step").type == "scattergl"
    forced = figures.partition_figure(data, result, 1, webgl=False)
    assert {tr.type for tr in cluster_traces(forced).values()} == {"scatter"}
    animation = figures.partition_animation(data, result)
    assert {tr.type for tr in cluster_traces(animation).values()} == {"scattergl"}


def test_pca_projection_of_3d_data_keeps_the_geometry_and_the_axes():
    # points on a tilted plane in 3-D: the 2-D PCA view must preserve distances
    rng = np.random.default_rng(1)
    basis = np.linalg.qr(rng.normal(size=(3, 2)))[0].T  # (2, 3), orthonormal rows
    planar = [rng.normal(size=(40, 2)) * [3.0, 1.0] + [t, 0] for t in range(3)]
    data = TemporalDataset.from_arrays([P @ basis + [1.0, -2.0, 0.5] for P in planar])
    result = StaticEC(seed=0, **FAST).fit(data).result_
    figs = [figures.partition_figure(data, result, t, projection="pca") for t in range(3)]
    assert figs[0].layout.xaxis.title.text.startswith("PC1")
    assert figs[0].layout.yaxis.title.text.startswith("PC2")
    assert len({(tuple(f.layout.xaxis.range), tuple(f.layout.yaxis.range)) for f in figs}) == 1
    for t, fig in enumerate(figs):
        members = cluster_traces(fig)
        shown = np.vstack([points(tr) for tr in members.values()])
        original = np.vstack([data[t].X[result[t].aligned_labels == k] for k in members])
        d_shown = np.linalg.norm(shown[:, None] - shown[None], axis=2)
        d_original = np.linalg.norm(original[:, None] - original[None], axis=2)
        np.testing.assert_allclose(d_shown, d_original, atol=1e-9)
    # the default view of 3-D data is the first two feature columns
    plain = figures.partition_figure(data, result, 0)
    assert plain.layout.xaxis.title.text == "x0" and plain.layout.yaxis.title.text == "x1"
    by_name = figures.partition_figure(data, result, 0, features=("x2", "x0"))
    assert by_name.layout.xaxis.title.text == "x2"


def test_one_feature_plots_value_against_index():
    rng = np.random.default_rng(2)
    X = [np.r_[rng.normal(0, 0.3, 25), rng.normal(5, 0.3, 25)][:, None] for _ in range(2)]
    data = TemporalDataset.from_arrays(X, feature_names=["height"])
    result = StaticEC(seed=0, **FAST).fit(data).result_
    fig = figures.partition_figure(data, result, 1)
    shown = np.vstack([points(tr) for tr in cluster_traces(fig).values()])
    assert same_rows(shown, np.column_stack([np.arange(50), X[1][:, 0]]))
    assert fig.layout.yaxis.title.text == "height"
    with pytest.raises(ValueError, match="pca"):
        figures.partition_figure(data, result, 1, projection="pca")


def test_partition_rejects_a_result_of_other_data(syn3, syn5):
    with pytest.raises(ValueError, match="samples"):
        figures.partition_figure(syn5[0], syn3[1], 4)
    with pytest.raises(IndexError):
        figures.partition_figure(*syn3, 10)


def test_animation_has_one_frame_per_step_with_identical_trace_layout(syn3):
    data, result = syn3
    fig = figures.partition_animation(data, result, start=2)
    assert [f.name for f in fig.frames] == [str(t) for t in range(len(result))]
    names = [tr.name for tr in fig.data]
    assert all([tr.name for tr in frame.data] == names for frame in fig.frames)
    (slider,) = fig.layout.sliders
    assert slider.active == 2
    assert [s.label for s in slider.steps] == [str(t) for t in data.times]
    assert [list(s.args[0]) for s in slider.steps] == [[str(t)] for t in range(len(result))]
    (menu,) = fig.layout.updatemenus
    assert len(menu.buttons) == 2 and menu.buttons[0].args[0] is None  # play all frames
    # every frame shows the same clusters as the single-step figure
    for t in (2, 7):
        frame = cluster_traces(go.Figure(data=fig.frames[t].data))
        single = cluster_traces(figures.partition_figure(data, result, t))
        assert {k for k, tr in frame.items() if len(tr.x)} == set(single)
        for k, tr in single.items():
            assert same_rows(points(frame[k]), points(tr))
    np.testing.assert_allclose(points(fig.data[0]), points(fig.frames[2].data[0]))  # starts at `start`
    single_range = figures.partition_figure(data, result, 0).layout.xaxis.range
    assert tuple(fig.layout.xaxis.range) == tuple(single_range)


def test_3d_partition_has_scatter3d_traces_in_the_2d_colours(syn2):
    data, result = syn2
    t = 4
    fig = figures.partition_figure(data, result, t, projection="3d")
    flat = figures.partition_figure(data, result, t)
    assert {tr.type for tr in fig.data} == {"scatter3d"}
    assert [tr.name for tr in fig.data] == [tr.name for tr in flat.data]  # same trace layout
    step, snapshot = result[t], data[t]
    by_label, flat_by_label = cluster_traces(fig), cluster_traces(flat)
    assert sorted(by_label) == sorted(flat_by_label)
    for label, tr in by_label.items():
        members = step.aligned_labels == label
        assert tr.marker.color == flat_by_label[label].marker.color == figures.label_color(label)
        assert same_rows(points3d(tr), snapshot.X[members][:, :3])
        assert sorted(tr.text) == sorted(str(i) for i in snapshot.ids[members])  # hover ids
        assert "%{text}" in tr.hovertemplate
    centroids = trace(fig, "centroids")
    assert centroids.marker.symbol == "diamond"
    np.testing.assert_allclose(points3d(centroids), step.centroids[:, :3])
    assert list(centroids.marker.color) == list(trace(flat, "centroids").marker.color)
    assert trace(fig, "entered since previous step").marker.symbol == "circle-open"
    scene = fig.layout.scene
    assert [scene.xaxis.title.text, scene.yaxis.title.text, scene.zaxis.title.text] == data.feature_names[:3]
    chosen = figures.partition_figure(data, result, t, projection="3d", features=(3, "x0", 1))
    assert chosen.layout.scene.xaxis.title.text == data.feature_names[3]
    shown = np.vstack([points3d(tr) for tr in cluster_traces(chosen).values()])
    assert same_rows(shown, snapshot.X[:, [3, 0, 1]])
    assert fig.to_json() == figures.partition_figure(data, result, t, projection="3d").to_json()


def test_3d_scene_ranges_are_fixed_over_steps_and_cover_all_data(syn2):
    data, result = syn2
    ranges = set()
    for t in (0, 4, len(result) - 1):
        scene = figures.partition_figure(data, result, t, projection="3d").layout.scene
        ranges.add(tuple(tuple(axis.range) for axis in (scene.xaxis, scene.yaxis, scene.zaxis)))
        assert scene.xaxis.autorange is False and scene.zaxis.autorange is False
    assert len(ranges) == 1
    (fixed,) = ranges
    X = np.vstack([s.X for s in data])
    for d, (low, high) in enumerate(fixed):
        assert low < X[:, d].min() and X[:, d].max() < high
    animation = figures.partition_animation(data, result, projection="3d", start=1)
    assert len(animation.frames) == len(result)
    names = [tr.name for tr in animation.data]
    assert all([tr.name for tr in frame.data] == names for frame in animation.frames)
    assert all(tr.type == "scatter3d" for frame in animation.frames for tr in frame.data)
    assert tuple(animation.layout.scene.zaxis.range) == fixed[2]
    assert animation.layout.sliders[0].steps[0].args[1]["frame"]["redraw"] is True


def test_3d_needs_three_features(syn3):
    data, result = syn3
    assert data.n_features == 2
    with pytest.raises(ValueError, match="three features"):
        figures.partition_figure(data, result, 0, projection="3d")
    with pytest.raises(ValueError, match="three features"):
        figures.partition_animation(data, result, projection="3d")


@pytest.mark.parametrize("projection", [None, "3d"])
def test_agreement_is_drawn_as_marker_opacity(syn2, projection):
    data, result = syn2
    t = 4
    agreement = np.random.default_rng(1).uniform(0.0, 1.0, data[t].n_samples)
    agreement[:5] = [1.0, 0.5, 0.2, 0.05, 0.0]
    fig = figures.partition_figure(data, result, t, projection=projection, agreement=agreement)
    assert "opacity" in fig.layout.title.text and "agree" in fig.layout.title.text
    seen = 0
    position = {str(i): k for k, i in enumerate(data[t].ids.tolist())}
    for label, tr in cluster_traces(fig).items():
        expected = np.clip([agreement[position[i]] for i in tr.text], 0.1, 1.0)
        if projection == "3d":  # Scatter3d takes one opacity: the alpha of each point's colour
            assert list(tr.marker.color) == [rgba(figures.label_color(label), round(a, 3)) for a in expected]
        else:
            np.testing.assert_allclose(tr.marker.opacity, expected)
            assert tr.marker.color == figures.label_color(label)
        np.testing.assert_allclose(tr.customdata, [agreement[position[i]] for i in tr.text])
        assert "agreement %{customdata:.2f}" in tr.hovertemplate
        seen += len(tr.text)
    assert seen == data[t].n_samples
    plain = figures.partition_figure(data, result, t, projection=projection)
    assert all(np.ndim(tr.marker.opacity) == 0 for tr in cluster_traces(plain).values())
    with pytest.raises(ValueError, match=rf"agreement.*step {t}.*{data[t].n_samples}"):
        figures.partition_figure(data, result, t, agreement=agreement[:-1])
    with pytest.raises(ValueError, match="agreement"):
        figures.partition_figure(data, result, t, agreement=agreement * 2)


def test_agreement_of_an_ensemble_and_its_consensus_partition(syn3):
    from ercot_nb import ERCOT
    from ercot_nb.ensemble import ensemble

    data, _ = syn3
    runs = ensemble(ERCOT(**FAST), data, seeds=[0, 1, 2])
    merged = runs.to_result(data)
    t = 5
    assert merged.algorithm == "consensus of 3 runs"
    np.testing.assert_array_equal(merged[t].labels, runs.labels[t])
    np.testing.assert_array_equal(merged[t].aligned_labels, runs.aligned_labels[t])
    fig = figures.partition_figure(data, merged, t, agreement=runs)
    assert "3 runs" in fig.layout.title.text
    opacities = np.concatenate([np.atleast_1d(tr.marker.opacity) for tr in cluster_traces(fig).values()])
    values = np.concatenate([tr.customdata for tr in cluster_traces(fig).values()])
    np.testing.assert_allclose(np.sort(values), np.sort(runs.agreement[t]))
    np.testing.assert_allclose(opacities, np.clip(values, 0.1, 1.0))
    with pytest.raises(ValueError, match="steps"):
        runs.to_result(data[:3])


def test_a_3d_animation_leaves_later_3d_figures_as_they_were(syn2):
    """The animation makes room for its slider in its own layout, not in the shared 3-D margins."""
    data, result = syn2
    before = figures.partition_3d_figure(data, result, 1).to_plotly_json()["layout"]["margin"]
    animation = figures.partition_animation(data, result, projection="3d")
    assert animation.layout.margin.b == 120  # room for the slider
    after = figures.partition_3d_figure(data, result, 1).to_plotly_json()["layout"]["margin"]
    assert after == before
