"""Static Plotly figures: trace content, colours, fixed axes, WebGL switch, export."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs

from ercot_nb import ERCOT, StaticEC, TemporalDataset, datasets, figures
from ercot_nb.metrics import score_steps

FAST = dict(pop_size=20, n_evaluations=60)


@pytest.fixture(scope="module")
def syn3():
    data = datasets.load("syn3", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


@pytest.fixture(scope="module")
def syn5():
    """Samples are removed and inserted between steps."""
    data = datasets.load("syn5", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


def cluster_traces(fig: go.Figure) -> dict[int, go.Scatter]:
    return {int(tr.name.split()[1]): tr for tr in fig.data if tr.name.startswith("cluster ")}


def trace(fig: go.Figure, name: str):
    (found,) = [tr for tr in fig.data if tr.name == name]
    return found


def points(tr) -> np.ndarray:
    return np.column_stack([np.asarray(tr.x, dtype=float), np.asarray(tr.y, dtype=float)])


def same_rows(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal as multisets of rows (order free)."""
    if a.shape != b.shape:
        return False
    return np.allclose(np.array(sorted(map(tuple, a))), np.array(sorted(map(tuple, b))))


# -- colours ---------------------------------------------------------------------


def test_cluster_colors_are_distinct_and_indexed_by_label():
    colors = figures.cluster_colors(12)
    assert len(set(colors)) == 12
    assert all(figures.label_color(k) == c for k, c in enumerate(colors))
    n = len(figures._PALETTE)
    assert figures.label_color(n + 3) == figures.label_color(3)  # wraps around
    with pytest.raises(ValueError):
        figures.cluster_colors(-1)


# -- partition ---------------------------------------------------------------------


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



@pytest.fixture(scope="module")
def syn2():
    """Four features: enough for a 3-D view."""
    data = datasets.load("syn2", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


def points3d(tr) -> np.ndarray:
    return np.column_stack([np.asarray(getattr(tr, axis), dtype=float) for axis in "xyz"])


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


# -- Pareto front ------------------------------------------------------------------------


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
    groups = {int(tr.name.split("=")[1]): tr for tr in fig.data if tr.name.startswith("k =")}
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
        return np.vstack([points(tr) for tr in fig.data if tr.name.startswith("k =")])

    np.testing.assert_allclose(shown(0, True), shown(0, False))
    later = [t for t in range(1, len(result)) if result[t].alpha > 0]
    assert later and not np.allclose(shown(later[0], True), shown(later[0], False))


# -- time series figures -------------------------------------------------------------------


def test_alpha_figure_follows_the_result(syn3):
    _, result = syn3
    fig = figures.alpha_figure(result, show_pairs=True)
    alpha = trace(fig, "alpha")
    assert list(alpha.x) == result.times
    assert alpha.y[0] is None
    np.testing.assert_allclose(np.asarray(alpha.y[1:], dtype=float), result.alpha[1:])
    pairs = trace(fig, "alpha_i per cluster")
    finite = np.concatenate([s.alpha_pairs[np.isfinite(s.alpha_pairs)] for s in result])
    np.testing.assert_allclose(sorted(pairs.y), sorted(finite))
    assert len(figures.alpha_figure(result).data) == 1


def test_scores_figure_plots_score_steps_for_every_run(syn3):
    data, result = syn3
    truth = [s.labels for s in data]
    fig = figures.scores_figure(data, {"ERCOT": result, "truth": truth}, metric="NMI")
    expected = score_steps(data, result.labels)["NMI"].to_numpy()
    ercot, oracle = fig.data
    np.testing.assert_allclose(ercot.y, expected)
    assert ercot.name == f"ERCOT (mean {expected.mean():.3f})"
    np.testing.assert_allclose(oracle.y, 1.0)
    assert fig.layout.yaxis.title.text.startswith("NMI")
    with pytest.raises(ValueError, match="metric"):
        figures.scores_figure(data, {"ERCOT": result}, metric="ARI")


def test_n_clusters_figure_shows_chosen_and_true_counts(syn3):
    data, result = syn3
    fig = figures.n_clusters_figure(result, data)
    chosen, true = fig.data
    np.testing.assert_array_equal(chosen.y, result.n_clusters)
    np.testing.assert_array_equal(true.y, [len(np.unique(s.labels)) for s in data])
    assert len(figures.n_clusters_figure(result).data) == 1


def test_figures_are_deterministic_and_carry_no_uids(syn3):
    data, result = syn3
    def build():
        return [
            figures.partition_figure(data, result, 4),
            figures.partition_animation(data, result),
            figures.pareto_figure(result, 4),
            figures.alpha_figure(result, show_pairs=True),
            figures.scores_figure(data, {"ERCOT": result}),
            figures.n_clusters_figure(result, data),
        ]
    first, second = build(), build()
    for a, b in zip(first, second):
        text = a.to_json()
        assert text == b.to_json()
        assert '"uid"' not in text
        layout = json.loads(text)["layout"]
        assert layout["template"]["layout"]["paper_bgcolor"] == "white"
        assert layout["title"]["text"]
        assert layout["width"] <= 800 and layout["height"] <= 700


def test_builders_accept_a_fitted_estimator(syn3):
    data, _ = syn3
    model = ERCOT(seed=0, **FAST).fit(data[:3])
    assert len(figures.alpha_figure(model).data[0].x) == 3
    with pytest.raises(TypeError):
        figures.alpha_figure(ERCOT())


# -- export -----------------------------------------------------------------------------------


def test_save_html_embeds_plotly_js_once_and_no_cdn(syn3, tmp_path):
    data, result = syn3
    figs = [figures.partition_animation(data, result), figures.alpha_figure(result)]
    path = figures.save_html(figs, tmp_path / "sub" / "report.html", title="Syn3 <run>")
    text = path.read_text(encoding="utf-8")
    assert path == tmp_path / "sub" / "report.html"
    assert get_plotlyjs()[:5000] in text  # the bundle itself, inline
    assert "cdn.plot.ly" not in text and "<script src=" not in text
    assert text.count('id="ercot-nb-figure-') == 2
    assert "<title>Syn3 &lt;run&gt;</title>" in text
    single = figures.save_html(figs[1], tmp_path / "one.html").read_text(encoding="utf-8")
    assert single.count('id="ercot-nb-figure-') == 1 and "cdn.plot.ly" not in single
    with pytest.raises(TypeError):
        figures.save_html([], tmp_path / "empty.html")


# -- membership over time -----------------------------------------------------------------------


def moves_by_loop(result) -> list[tuple]:
    """(id, t, from, to) of every change of aligned label, by a plain loop."""
    last: dict = {}
    moves = []
    for step in result:
        for sample, label in zip(step.ids.tolist(), step.aligned_labels.tolist()):
            if sample in last and last[sample] != label:
                moves.append((sample, step.t, last[sample], label))
            last[sample] = label
    return moves


def cell_color(fig: go.Figure, row: int, col: int) -> str | None:
    """Colour the heatmap's discrete colour scale gives cell (row, col); None for a gap."""
    heat = fig.data[0]
    z = heat.z[row][col]
    if z is None or np.isnan(z):
        return None
    position = (z - heat.zmin) / (heat.zmax - heat.zmin)
    for (low, color), (high, _) in zip(heat.colorscale[::2], heat.colorscale[1::2]):
        if low <= position <= high:
            return color
    raise AssertionError(f"z={z} is outside the colour scale")


def test_cluster_moves_lists_every_change_of_aligned_label(syn5):
    _, result = syn5
    moves = figures.cluster_moves(result)
    expected = moves_by_loop(result)
    assert len(expected) > 0
    got = list(zip(moves["id"].tolist(), moves["t"].tolist(), moves["from_cluster"].tolist(),
                   moves["to_cluster"].tolist()))
    assert sorted(got) == sorted(expected)
    times = {step.t: step.time for step in result}
    assert (moves["time"] == moves["t"].map(times)).all()
    # an id that was absent in between is compared with its previous appearance
    assert (moves["time_from"] < moves["time"]).all()


def test_membership_cells_take_the_aligned_label_colours(syn3):
    data, result = syn3
    fig = figures.membership_figure(result, data, max_rows=None)
    heat = fig.data[0]
    assert isinstance(heat, go.Heatmap)
    assert list(heat.x) == [str(step.time) for step in result]
    aligned = [dict(zip(map(str, s.ids.tolist()), s.aligned_labels.tolist())) for s in result]
    truth = [dict(zip(map(str, s.ids.tolist()), map(str, s.labels.tolist()))) for s in data]
    checked = 0
    for r, sample in enumerate(heat.y):
        for t in range(len(result)):
            label = aligned[t][sample]
            assert cell_color(fig, r, t) == figures.label_color(label)
            assert int(heat.colorbar.ticktext[int(heat.z[r][t])]) == label
            assert list(heat.customdata[r][t]) == [sample, str(result[t].time), str(label), truth[t][sample]]
            checked += 1
    assert checked == len(heat.y) * len(result) > 0


def test_membership_shows_only_movers_unless_asked(syn3):
    data, result = syn3
    movers = {str(sample) for sample, *_ in moves_by_loop(result)}
    everyone = {str(i) for i in data[0].ids.tolist()}
    assert 0 < len(movers) < len(everyone)
    assert set(figures.membership_figure(result, max_rows=None).data[0].y) == movers
    assert set(figures.membership_figure(result, only_movers=False, max_rows=None).data[0].y) == everyone


@pytest.mark.parametrize("sort", figures.MEMBERSHIP_SORTS)
def test_membership_max_rows_keeps_the_first_rows_of_the_order(syn3, sort):
    _, result = syn3
    full = list(figures.membership_figure(result, max_rows=None, sort=sort).data[0].y)
    cut = figures.membership_figure(result, max_rows=5, sort=sort)
    assert list(cut.data[0].y) == full[:5]
    assert np.asarray(cut.data[0].z).shape == (5, len(result))
    assert f"5 of {len(full)}" in cut.layout.title.text


def test_membership_sort_orders(syn3):
    _, result = syn3
    moves = figures.cluster_moves(result)
    moves["id"] = moves["id"].astype(str)
    first = moves.groupby("id")["t"].min()
    counts = moves.groupby("id").size()
    by_first = list(figures.membership_figure(result, max_rows=None).data[0].y)
    assert [first[i] for i in by_first] == sorted(first[i] for i in by_first)
    by_moves = list(figures.membership_figure(result, max_rows=None, sort="moves").data[0].y)
    assert [counts[i] for i in by_moves] == sorted(counts, reverse=True)
    assert list(figures.membership_figure(result, max_rows=None, sort="id").data[0].y) == sorted(by_first)


def test_membership_leaves_gaps_where_an_id_is_absent(syn5):
    data, result = syn5
    fig = figures.membership_figure(result, data, only_movers=False, max_rows=None)
    heat = fig.data[0]
    present = [set(map(str, s.ids.tolist())) for s in data]
    gaps = 0
    for r, sample in enumerate(heat.y):
        for t in range(len(data)):
            if sample in present[t]:
                assert cell_color(fig, r, t) is not None
            else:
                assert cell_color(fig, r, t) is None
                assert heat.customdata[r][t][2] == "absent"
                gaps += 1
    assert gaps > 0  # syn5 removes samples at t = 4 and 8 and inserts some at t = 6


def test_membership_hover_names_the_reference_label():
    frame = __import__("pandas").DataFrame({
        "year": [1, 1, 1, 2, 2, 2],
        "who": ["a", "b", "c", "a", "b", "c"],
        "x": [0.0, 0.1, 5.0, 0.0, 5.1, 5.0],
        "kind": ["low", "low", "high", "low", "high", "high"],
    })
    data = TemporalDataset.from_frame(frame, time="year", id="who", label="kind", name="toy")
    result = figures.ground_truth_result(data)
    fig = figures.membership_figure(result, data)
    heat = fig.data[0]
    assert list(heat.y) == ["b"]  # b goes from the "low" cluster to the "high" one
    # label codes follow the sorted names: "high" is 0, "low" is 1
    assert [list(cell) for cell in heat.customdata[0]] == [["b", "1", "1", "low"], ["b", "2", "0", "high"]]
    assert "reference" in heat.hovertemplate and "toy" in fig.layout.title.text


def test_membership_rejects_bad_arguments(syn3, syn5):
    data, result = syn3
    with pytest.raises(ValueError, match="sort"):
        figures.membership_figure(result, sort="size")
    with pytest.raises(ValueError, match="max_rows"):
        figures.membership_figure(result, max_rows=0)
    with pytest.raises(ValueError, match="ids differ"):
        figures.membership_figure(result, syn5[0])
    with pytest.raises(ValueError, match="steps"):
        figures.membership_figure(result, data[:3])
    assert figures.membership_figure(result).to_json() == figures.membership_figure(result).to_json()
