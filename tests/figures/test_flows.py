"""Flows: every id's membership over time and its moves."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from ercot_nb import TemporalDataset, figures


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



def test_a_sankey_without_flows_is_not_drawn(syn3):
    # plotly.js drops unlinked nodes and then fails on the empty node set ("Error setting
    # state: Invalid array length" from d3-sankey) whenever such a figure reaches the page,
    # e.g. after the first step of a live run: the trace is hidden and a note says why
    from ercot_nb import ERCOT

    data, result = syn3
    one_step = ERCOT(seed=0, pop_size=20, n_evaluations=60).fit(data[:1]).result_
    parts = figures.sankey_parts(one_step)
    assert parts.trace(figures.flows.FLOW).visible is False
    assert any("needs two steps" in note["text"] for note in parts.layout["annotations"])
    assert figures.sankey_parts(result).trace(figures.flows.FLOW).visible is not False


def split_then_death():
    """Two clusters of 30; A splits in halves at time 2; B's ids leave and a new cluster C comes at 3."""
    from ercot_nb.result import ClusteringResult

    rng = np.random.default_rng(0)
    ids = [np.arange(60), np.arange(60), np.r_[np.arange(30), np.arange(100, 130)]]
    labels = [np.repeat([0, 1], 30), np.repeat([0, 2, 1], [15, 15, 30]), np.repeat([0, 2, 3], [15, 15, 30])]
    data = TemporalDataset.from_arrays([rng.normal(size=(60, 2)) for _ in range(3)], ids=ids,
                                       times=[1, 2, 3], name="hand-built")
    return data, ClusteringResult.from_labels(data, labels)


def node_of(trace, step: int, label: int) -> int:
    (index,) = [i for i, row in enumerate(trace.node.customdata) if row[0] == step and row[1] == label]
    return index


def test_sankey_marks_lifecycle_events_on_their_nodes():
    _, result = split_then_death()
    events = result.events(seed=0)
    fig = figures.sankey_figure(result, events=True)
    flow = fig.data[0]
    (split,) = events[events.event == "split"].itertuples()
    assert split.p_value <= 0.05
    for label in split.after:  # both halves at step 1 carry the split, its p-value and a thick outline
        node = node_of(flow, 1, label)
        assert flow.node.label[node] == f"{label} SPLIT"  # capitals: significant
        assert "split" in flow.node.customdata[node][3] and f"p = {split.p_value:.3f}" in flow.node.customdata[node][3]
    (death,) = events[events.event == "death"].itertuples()
    dead = node_of(flow, 1, death.before[0])  # the last node of the cluster that dies at step 2
    assert flow.node.label[dead] == f"{death.before[0]} death" and "no p-value" in flow.node.customdata[dead][3]
    (birth,) = events[(events.event == "birth") & (events.t == 2)].itertuples()
    assert "birth" in flow.node.label[node_of(flow, 2, birth.after[0])]
    quiet = node_of(flow, 0, 0)  # step 0's clusters: no event shown (every cluster is born there)
    assert flow.node.label[quiet] == "0"
    assert "%{customdata[3]}" in flow.node.hovertemplate
    (legend,) = [a for a in fig.layout.annotations if a.name == "events legend"]
    assert "p ≤ 0.05" in legend.text and "'split?'" in legend.text and "SPLIT" in legend.text


def test_sankey_events_from_a_table_show_doubtful_ones_with_a_question_mark():
    _, result = split_then_death()
    events = result.events(seed=0)
    events.loc[events.event == "split", "p_value"] = 0.4  # as if chance gave it often
    flow = figures.sankey_figure(result, events=events).data[0]
    for label in events[events.event == "split"].after.iloc[0]:
        node = node_of(flow, 1, label)
        assert "split?" in flow.node.label[node] and "could be chance" in flow.node.customdata[node][3]
    plain = figures.sankey_figure(result).data[0]
    assert all(len(row) == 3 for row in plain.node.customdata)  # no events asked, none shown
    with pytest.raises(ValueError, match="events"):
        figures.sankey_figure(result, events=events.drop(columns="p_value"))


def test_event_sentences_escape_a_text_time_once():
    """A time label from a file is escaped once: '<2>' reads '&lt;2&gt;' in the hover HTML, not '&amp;lt;'."""
    from ercot_nb.result import ClusteringResult

    data, result = split_then_death()
    times = ["q<1>", "q<2>", "q&3"]
    texts = TemporalDataset.from_arrays([s.X for s in data], ids=[s.ids for s in data], times=times)
    relabelled = ClusteringResult.from_labels(texts, [step.labels for step in result])
    flow = figures.sankey_figure(relabelled, events=True).data[0]
    hovers = " ".join(row[3] for row in flow.node.customdata if len(row) > 3)
    assert "time q&lt;2&gt;" in hovers and "<2>" not in hovers
    assert "&amp;lt;" not in hovers
