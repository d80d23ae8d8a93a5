"""The view registry (ercot_nb.figures.views): each view defined once, the same content by every route.

For every kind of data (2-D, 3-D, video, one step, a consensus run, a run
without a population) every view that applies obeys the protocol's
invariant: its change to step t applied to its base gives its parts at t,
and its change to a member applied to step t gives the member's parts.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from plotly.utils import PlotlyJSONEncoder

from ercot_nb import ERCOT, datasets, figures
from ercot_nb.ensemble import consensus
from ercot_nb.figures import VIEWS, Change, Patch, ViewData, view, views_for
from ercot_nb.result import ClusteringResult

FAST = dict(pop_size=12, n_evaluations=36)


def plain(parts) -> tuple[dict, dict]:
    def enc(value):
        return json.loads(json.dumps(value, cls=PlotlyJSONEncoder))
    return {t.name: enc(t.to_plotly_json()) for t in parts.traces}, enc(parts.layout)


def _kinds():
    syn3 = datasets.load("syn3", seed=0)[:3]
    syn4 = datasets.load("syn4", seed=0)[:3]
    video = datasets.load("video_mo", seed=0, scale=0.25, n_frames=2)
    runs = [ERCOT(seed=s, **FAST).fit(syn3).result_ for s in (0, 1)]
    return {
        "2-D": (syn3, runs[0]),
        "3-D": (syn4, ERCOT(seed=0, **FAST).fit(syn4).result_),
        "video": (video, ERCOT(seed=0, **FAST).fit(video).result_),
        "one step": (syn3[:1], ERCOT(seed=0, **FAST).fit(syn3[:1]).result_),
        "consensus": (syn3, consensus(runs).to_result(syn3)),
        "no population": (syn3, ClusteringResult.from_labels(syn3)),
    }


@pytest.fixture(scope="module")
def kinds():
    return _kinds()


KINDS = ["2-D", "3-D", "video", "one step", "consensus", "no population"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_view_changes_to_what_it_draws_at_every_step_and_member(kinds, kind):
    dataset, result = kinds[kind]
    data = ViewData(result, dataset)
    shown = list(views_for(data))
    assert shown, kind
    for item, o in [(item, {item.choice: value} if item.choice else {})
                    for item in shown for value in (item.choices(data) if item.choice else [None])]:
        base = item.base(data, **o)  # each value of a view's choice (the scores' metric)
        for t in range(len(result)):
            at_t = item.parts(data, t, **o)
            got = item.step_change(data, t, **o).apply(base)
            assert plain(got) == plain(at_t), (kind, item.key, o, t)
            # absolute changes: from another step too
            other = item.step_change(data, (t + 1) % len(result), **o).apply(base)
            assert plain(item.step_change(data, t, **o).apply(other, base)) == plain(at_t), (kind, item.key, o, t)
            step = result[t]
            if item.member and len(step.population):
                member = next((int(m) for m in np.flatnonzero(step.first_front) if m != step.knee), None)
                if member is not None:
                    expected = item.parts(data, t, member, **o)
                    assert plain(item.member_change(data, t, member, **o).apply(at_t, base)) == plain(expected), \
                        (kind, item.key, o, t, member)
        figures_ = item.report(data)
        assert figures_ and all(hasattr(f, "to_plotly_json") for f in figures_)


def test_which_views_apply_to_which_data(kinds):
    keys = {kind: [v.key for v in views_for(ViewData(kinds[kind][1], kinds[kind][0]))] for kind in KINDS}
    assert keys["2-D"] == ["partition", "pareto", "alpha", "n_clusters", "sizes", "scores", "flows"]
    assert keys["3-D"][:3] == ["partition", "partition3d", "pareto"]
    assert "video" in keys["video"] and "partition" not in keys["video"]
    assert "pareto" not in keys["no population"] and "pareto" not in keys["consensus"]
    bare = [v.key for v in views_for(ViewData(kinds["2-D"][1]))]  # no dataset: no partition, no scores
    assert bare == ["pareto", "alpha", "n_clusters", "sizes", "flows"]
    assert [v.key for v in VIEWS] == ["partition", "partition3d", "video", "pareto", "alpha", "n_clusters",
                                      "sizes", "scores", "flows"]


def test_clicks_are_declared_on_the_traces(kinds):
    dataset, result = kinds["2-D"]
    data = ViewData(result, dataset)
    pareto = view("pareto").parts(data, 1)
    members = [t for t in pareto.traces if t.meta is not None]
    assert members and all(t.meta == {"click": "member"} for t in members)
    assert all(figures.is_member_trace(t.name) for t in members)
    alpha = view("alpha").parts(data, 1)
    assert alpha.trace(figures.ALPHA).meta == {"click": "step"}
    if figures.PAIRS in alpha.names:
        pairs = alpha.trace(figures.PAIRS)
        assert len(pairs.meta["steps"]) == len(pairs.x)
        assert [result.times[s] for s in pairs.meta["steps"]] == list(pairs.x)
    with pytest.raises(ValueError, match="click action"):
        figures.click_meta("zoom")


def test_the_scores_are_one_view_whose_metric_every_front_end_offers(kinds):
    """One name for the score views: the registry's ``scores``, its ``metric`` (RI, NMI, label-free)
    a choice declared once; the report draws each metric that applies; the old keys name their
    replacement; a metric the data cannot give is a clear error, not another metric."""
    from ercot_nb import TemporalDataset
    from ercot_nb.figures.views.scores import LABEL_FREE, METRIC_CHOICES

    dataset, result = kinds["2-D"]
    data = ViewData(result, dataset)
    scores = view("scores")
    assert scores.choice == "metric" and list(scores.choices(data)) == list(METRIC_CHOICES) == ["RI", "NMI", LABEL_FREE]
    bare = TemporalDataset.from_arrays([s.X for s in dataset], ids=[s.ids for s in dataset], times=dataset.times,
                                       name="no labels")
    unlabelled = ViewData(result, bare)
    assert scores.applies(unlabelled) and list(scores.choices(unlabelled)) == [LABEL_FREE]
    y_titles = {metric: scores.parts(data, 1, metric=metric).layout["yaxis"]["title"]["text"]
                for metric in METRIC_CHOICES}
    assert "(RI)" in y_titles["RI"] and "(NMI)" in y_titles["NMI"] and y_titles[LABEL_FREE] == "silhouette"
    assert scores.parts(unlabelled, 1).layout["yaxis"]["title"]["text"] == "silhouette"  # the default: one that applies
    report = scores.report(data)
    assert [f.layout.yaxis.title.text for f in report] == list(y_titles.values())
    assert [f.layout.yaxis.title.text for f in scores.report(data, metric="NMI")] == [y_titles["NMI"]]
    for old, metric in (("ri", "RI"), ("nmi", "NMI")):
        with pytest.raises(KeyError, match=f"no view '{old}': it is view\\('scores'\\) with metric='{metric}'"):
            view(old)
    with pytest.raises(ValueError, match="metric 'RI' needs ground-truth labels and dataset 'no labels' has none"):
        scores.parts(unlabelled, 0, metric="RI")
    with pytest.raises(ValueError, match="scores view: metric must be one of \\['RI', 'NMI', 'label-free'\\]"):
        scores.parts(data, 0, metric="ARI")


def test_bad_view_use_is_named(kinds):
    dataset, result = kinds["2-D"]
    with pytest.raises(KeyError, match="no view 'nope'; views: \\['partition'"):
        view("nope")
    with pytest.raises(TypeError, match="view 'partition': unknown option\\(s\\) \\['colour'\\]"):
        view("partition").parts(ViewData(result, dataset), 0, colour="red")
    with pytest.raises(TypeError, match="ClusteringResult or a fitted estimator"):
        ViewData("run")
    with pytest.raises(ValueError, match="the dataset only 1"):
        ViewData(result, dataset[:1])
    with pytest.raises(ValueError, match="as many values as positions"):
        Patch([1, 2], ["a"])


def test_one_change_then_another_is_one_change_every_front_end_applies_alike(kinds):
    """``Change.then`` (what a live widget sends for a step and a member at once) applied equals the
    two changes applied in turn; the widget sends ``trace_values`` and ``layout_of`` of the change,
    which are what ``Change.apply`` sets (one definition of applying a change in Python)."""
    dataset, result = kinds["2-D"]
    data = ViewData(result, dataset)
    for item in views_for(data):
        base = item.base(data)
        first, second = item.step_change(data, 0), item.step_change(data, len(result) - 1)
        assert plain(first.then(second).apply(base)) == plain(second.apply(first.apply(base), base)), item.key
        at = first.then(second).apply(base)
        assert at.layout == second.layout_of(first.layout_of(base.layout)), item.key
        for name, values in second.trace_values(base).items():
            shown = at.trace(name).to_plotly_json()
            for path, value in values.items():
                node = shown
                for key in path.split("."):
                    node = node[key]
                assert plain(figures.Parts([], {"v": node}))[1] == plain(figures.Parts([], {"v": value}))[1], \
                    (item.key, name, path)
        step = result[1]
        member = next((int(m) for m in np.flatnonzero(step.first_front) if m != step.knee), None)
        if item.member and member is not None:
            both = item.step_change(data, 1).then(item.member_change(data, 1, member))
            assert plain(both.apply(base)) == plain(item.parts(data, 1, member)), item.key


def test_a_patch_edits_the_base_array_only_where_it_says():
    import plotly.graph_objects as go

    a, b, c, y, z = "#000000", "#111111", "#222222", "#eeeeee", "#ffffff"
    base = figures.Parts([go.Scatter(name="s", marker=dict(color=[a, b, c]))], {})
    moved = Change(traces={"s": {"marker.color": Patch([2], [z])}}).apply(base)
    assert list(moved.trace("s").marker.color) == [a, b, z]
    again = Change(traces={"s": {"marker.color": Patch([0], [y])}}).apply(moved, base)
    assert list(again.trace("s").marker.color) == [y, b, c]  # the base's, not the last shown


# ------------------------------------------------------------ the new view: cluster sizes
def test_cluster_sizes_count_each_aligned_cluster_per_step(kinds):
    dataset, result = kinds["2-D"]
    labels, sizes = figures.cluster_sizes(result)
    for step in result:
        expected = {int(k): int(n) for k, n in zip(*np.unique(step.aligned_labels, return_counts=True))}
        assert {k: int(sizes[i, step.t]) for i, k in enumerate(labels) if sizes[i, step.t]} == expected
    assert (sizes.sum(axis=0) == [s.n_samples for s in result]).all()
    fig = figures.cluster_sizes_figure(result, t=1)
    for i, label in enumerate(labels):
        trace = next(tr for tr in fig.data if tr.name == f"cluster {label}")
        assert trace.fillcolor == figures.label_color(label) and list(trace.y) == sizes[i].tolist()
    shape = fig.layout.shapes[0]
    assert shape.name == figures.CURRENT_STEP and shape.x0 == result.times[1]


def test_cluster_sizes_work_without_ground_truth_and_escape_names(kinds):
    dataset, _ = kinds["2-D"]
    bare = ClusteringResult.from_labels(dataset, [np.zeros(s.n_samples, dtype=int) for s in dataset],
                                        algorithm="<b>x</b>")
    fig = figures.cluster_sizes_figure(bare, t=0)
    assert [t.name for t in fig.data] == ["cluster 0"] and "<b>x" not in fig.layout.title.text


def test_cluster_sizes_appear_in_the_report_and_the_page(kinds):
    from ercot_nb.page import page_data

    dataset, result = kinds["2-D"]
    titles = [f.layout.title.text for f in figures.report_figures(result, dataset)]
    assert any("samples per cluster over time" in t for t in titles)
    assert "sizes" in [v["key"] for v in page_data(result, dataset)["views"]]


def test_escaped_quotes_are_entities_plotly_decodes():
    """plotly.js decodes &lt; &gt; &amp; and numeric entities, not &quot; (it was shown as is)."""
    from ercot_nb.figures.style import escape

    text = escape('<b a="1">\'x\' & y</b>')
    assert "&quot;" not in text and "<" not in text
    assert text == "&lt;b a=&#34;1&#34;&gt;&#39;x&#39; &amp; y&lt;/b&gt;"


def test_each_view_is_one_module_and_one_registry_line():
    """Adding a view is one new module plus its key in the registry: every key has its module
    (whose ``VIEW`` has that key), and every public module of the package is registered."""
    import importlib
    import pkgutil

    import ercot_nb.figures.views as package

    assert list(package.REGISTRY) == [v.key for v in VIEWS]
    public = {info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_")}
    assert public == set(package.REGISTRY)
    for key in package.REGISTRY:
        module = importlib.import_module(f"ercot_nb.figures.views.{key}")
        assert module.VIEW.key == key and view(key) is module.VIEW
    assert len(set(package.REGISTRY)) == len(package.REGISTRY)


def _title(layout) -> str:
    title = layout.get("title")
    return title if isinstance(title, str) else (title or {}).get("text", "")


@pytest.mark.parametrize("kind", ["2-D", "3-D", "video", "consensus"])
def test_every_view_title_names_its_dataset_at_every_step_and_member(kinds, kind):
    """Each registered view's title names the dataset: the base, every step's change, a member's change
    and the report figures (a dataset with a name that needs escaping)."""
    dataset, result = kinds[kind]
    dataset = _renamed(dataset)
    data = ViewData(result, dataset)
    name = "&lt;b&gt;set &amp; co&lt;/b&gt;"
    for item in views_for(data):
        base = item.base(data)
        assert name in _title(base.layout), (item.key, _title(base.layout))
        for t in range(data.n_steps):
            shown = item.step_change(data, t).apply(base)
            assert name in _title(shown.layout), (item.key, t, _title(shown.layout))
            if item.member and data.has_population:
                member = int(result[t].first_front[-1])
                changed = item.member_change(data, t, member).apply(shown, base)
                assert name in _title(changed.layout), (item.key, t, member)
        for figure in item.report(data):
            assert name in (figure.layout.title.text or ""), (item.key, figure.layout.title.text)
            for frame in figure.frames:  # an animation's frames keep it
                assert frame.layout.title.text is None or name in frame.layout.title.text, item.key


def _renamed(dataset):
    import copy

    out = copy.copy(dataset)
    object.__setattr__(out, "name", "<b>set & co</b>")
    return out
