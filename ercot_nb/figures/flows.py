"""Flows between steps: the cluster Sankey and every id's membership over time."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from ..data import TemporalDataset
from ..events import EVENT_COLUMNS
from ..result import ClusteringResult, cluster_flows
from .layers import Parts
from .style import (
    INK, MUTED, UNCHECKED, as_result, base_layout, escape, label_color, message_annotation, plain, plain_times,
    rgba, step_index,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FLOW", "SIGNIFICANCE", "EVENTS_LEGEND", "cluster_flows", "sankey_colors", "sankey_nodes", "event_marks",
    "sankey_parts", "sankey_figure", "sankey_title", "FLOW_WINDOW", "flow_window", "steps_between",
    "MEMBERSHIP_SORTS", "cluster_moves", "membership_figure",
]

FLOW = "cluster flow"
"""Name of the Sankey trace."""

SIGNIFICANCE = 0.05
"""An event with a permutation p-value at most this is shown as significant."""

EVENTS_LEGEND = "events legend"
"""Name of the annotation explaining the event marks."""

_MARKED = ("birth", "death", "split", "merge", "grow", "shrink")  # "continue" is left unmarked
# plotly.js draws one outline for all Sankey nodes (it ignores per-node outline colours, and
# per-node widths leave the labels at x = NaN), so significance is written in the node's label


def sankey_colors(
    node_labels: Sequence[int],
    node_steps: Sequence[int],
    link_sources: Sequence[int],
    link_steps: Sequence[int],
    t: int | None,
) -> tuple[list[str], list[str]]:
    """Node and link colours of the Sankey view, bringing step ``t`` forward.

    Nodes take their cluster's colour and links their source cluster's
    colour.  With ``t`` given, the nodes of step ``t`` and the links into and
    out of it are strong and the rest faded.

    Parameters
    ----------
    node_labels, node_steps : sequence of int
        Aligned label and step of every node.
    link_sources, link_steps : sequence of int
        Source aligned label and target step of every link.
    t : int or None
        The step in focus; None shows every step alike.

    Returns
    -------
    node_colors, link_colors : list of str
    """
    node_colors = [
        label_color(label) if t is None or step == t else rgba(label_color(label), 0.3)
        for label, step in zip(node_labels, node_steps)
    ]
    link_colors = [
        rgba(label_color(source), 0.35 if t is None else 0.6 if step in (t, t + 1) else 0.12)
        for source, step in zip(link_sources, link_steps)
    ]
    return node_colors, link_colors


def sankey_figure(
    result: ClusteringResult,
    *,
    t: int | None = None,
    title: str | None = None,
    events: "bool | pd.DataFrame" = False,
) -> go.Figure:
    """Cluster flow between consecutive steps: persistence, splits and merges.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int, optional
        Bring this step forward: its clusters and the flows into and out of
        it in strong colours, the rest faded (see :func:`sankey_colors`).
    title : str, optional
        Figure title.
    events : bool or pandas.DataFrame, default=False
        Mark cluster lifecycle events on the nodes: True computes
        :meth:`ClusteringResult.events <ercot_nb.result.ClusteringResult.events>`
        (a permutation null model gives each split, merge, grow and shrink a
        p-value), or pass such a table.  See ``event_marks``.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``go.Sankey`` trace.  Nodes are (step, aligned cluster) pairs in
        the cluster's colour, placed left to right by step and stacked by
        label; node ``customdata`` holds ``[step, label, size]``.  Links
        follow :func:`cluster_flows`, take the source cluster's colour and
        hold ``[time from, source, time to, target, step to]``.  Each
        column is labelled with its time below.  With ``events`` a node's
        label adds its event words, its ``customdata`` a fourth entry (the
        events in words, shown on hover), and an annotation named
        ``"events legend"`` explains the marks.
    """
    return sankey_parts(result, t=t, title=title, events=events).figure()


def _event_words(row: Any, times: list[Any]) -> tuple[str, str, str]:
    """Word on the node, sentence on hover, and significance class of one event row."""
    kind, before, after = row.event, list(row.before), list(row.after)
    time = times[row.t]  # plain_times: text already escaped, escape the rest once
    time = time if isinstance(time, str) else escape(time)
    if kind == "birth":
        text = f"birth of cluster {after[0]} at time {time}"
    elif kind == "death":
        text = f"death of cluster {before[0]}: gone at time {time}"
    elif kind == "split":
        text = f"split of cluster {before[0]} into {', '.join(map(str, after))} at time {time}"
    elif kind == "merge":
        text = f"merge of clusters {', '.join(map(str, before))} into {after[0]} at time {time}"
    else:
        text = f"cluster {before[0]} {kind}s at time {time}: {row.size_before} → {row.size_after} samples"
    p = float(row.p_value)
    if np.isnan(p):
        return kind, f"{text} (no p-value: births and deaths are not tested)", "untested"
    if p <= SIGNIFICANCE:
        return kind.upper(), f"{text} (p = {p:.3f}: significant, chance rarely gives it)", "significant"
    return f"{kind}?", f"{text} (p = {p:.3f}: could be chance)", "doubtful"


def event_marks(result: ClusteringResult, events: "pd.DataFrame") -> dict[tuple[int, int], list[tuple[str, str, str]]]:
    """The lifecycle events to mark on each Sankey node.

    A birth, split, merge, grow or shrink at step t marks the nodes of its
    ``after`` clusters at t; a death marks the node of its ``before``
    cluster at t-1 (its last step).  ``continue`` events and the births of
    the first step are not marked.

    Parameters
    ----------
    result : ClusteringResult
    events : pandas.DataFrame
        A table of :func:`ercot_nb.events.lifecycle_events` of ``result``.

    Returns
    -------
    dict
        ``(step, aligned label)`` -> list of (word on the node, sentence
        on hover, class).  Class and word: ``"significant"`` (p-value at
        most :data:`SIGNIFICANCE`) in capitals, ``"SPLIT"``; ``"doubtful"``
        (larger p-value) with a question mark, ``"split?"``; ``"untested"``
        (births and deaths) as is.

    Raises
    ------
    ValueError
        If ``events`` lacks a column of :data:`ercot_nb.events.EVENT_COLUMNS`.
    """
    missing = [column for column in EVENT_COLUMNS if column not in getattr(events, "columns", ())]
    if missing:
        raise ValueError(f"events must be a table of result.events(); missing column(s) {missing}")
    times = plain_times(result.times)
    marks: dict[tuple[int, int], list[tuple[str, str, str]]] = {}
    for row in events.itertuples(index=False):
        if row.event not in _MARKED or row.t == 0 or row.t >= len(result):
            continue
        if row.event == "death":
            nodes = [(int(row.t) - 1, int(label)) for label in row.before]
        else:
            nodes = [(int(row.t), int(label)) for label in row.after]
        for node in nodes:
            marks.setdefault(node, []).append(_event_words(row, times))
    return marks


def _events_legend() -> dict[str, Any]:
    """The note under the Sankey that says what the event marks mean."""
    text = (
        "Events on the nodes: <b>birth</b> (new cluster), <b>death</b> (last step of a cluster), "
        "<b>split</b>, <b>merge</b>, <b>grow</b> / <b>shrink</b> (size ±20% or more); hover a node.<br>"
        "CAPITALS (SPLIT): p ≤ 0.05, shuffling the labels rarely gives such an event, a real change; "
        "'split?': p > 0.05, it could be chance; births and deaths are not tested."
    )
    return dict(name=EVENTS_LEGEND, text=text, x=0.0, y=-0.09, xref="paper", yref="paper", xanchor="left",
                yanchor="top", showarrow=False, align="left", font=dict(size=11, color=INK))


def sankey_nodes(result: ClusteringResult) -> dict[str, Any]:
    """Nodes of the cluster-flow Sankey: one per (step, aligned cluster).

    Parameters
    ----------
    result : ClusteringResult

    Returns
    -------
    dict
        ``node_step``, ``node_label``, ``node_size``, ``node_x``, ``node_y``
        (lists, one entry per node: steps left to right, clusters stacked by
        label in proportion to their size) and ``index``, mapping
        ``(step, label)`` to the node's position, for the links of
        :func:`cluster_flows`.
    """
    n_steps = len(result)
    nodes: dict[str, Any] = {key: [] for key in ("node_step", "node_label", "node_size", "node_x", "node_y")}
    index: dict[tuple[int, int], int] = {}
    for step in result:
        labels, sizes = np.unique(step.aligned_labels, return_counts=True)
        total = max(int(sizes.sum()), 1)
        below = 0
        for label, size in zip(labels.tolist(), sizes.tolist()):
            index[(step.t, label)] = len(nodes["node_step"])
            nodes["node_step"].append(step.t)
            nodes["node_label"].append(label)
            nodes["node_size"].append(size)
            nodes["node_x"].append(0.01 + 0.98 * (step.t / (n_steps - 1) if n_steps > 1 else 0.5))
            nodes["node_y"].append(0.01 + 0.98 * (below + size / 2) / total)
            below += size
    nodes["index"] = index
    return nodes


def sankey_parts(
    result: ClusteringResult,
    *,
    t: int | None = None,
    title: str | None = None,
    events: "bool | pd.DataFrame" = False,
) -> Parts:
    """Parts of :func:`sankey_figure` (same parameters): one trace named ``"cluster flow"``."""
    result = as_result(result)
    if events is True:
        events = result.events()
    marks = None if events is False or events is None else event_marks(result, events)
    nodes = sankey_nodes(result)
    node_step, node_label, node_size = nodes["node_step"], nodes["node_label"], nodes["node_size"]
    node_x, node_y, index = nodes["node_x"], nodes["node_y"], nodes["index"]
    flows = cluster_flows(result)
    times = plain_times(result.times)
    highlight = None if t is None else step_index(result, t)
    node_colors, link_colors = sankey_colors(
        node_label, node_step, [f["source"] for f in flows], [f["t"] for f in flows], highlight
    )
    trace = go.Sankey(
        **UNCHECKED,  # checked where a figure is made (Parts.figure); a long run has thousands of nodes
        name=FLOW,
        # without a link plotly.js drops every node and d3-sankey fails on the empty set
        visible=bool(flows),
        arrangement="fixed",
        node=dict(
            label=[f"{label}" for label in node_label],
            x=node_x,
            y=node_y,
            pad=8,
            thickness=14,
            color=node_colors,
            line=dict(width=0.5, color=MUTED),
            customdata=[[s, label, size] for s, label, size in zip(node_step, node_label, node_size)],
            hovertemplate=(
                "step %{customdata[0]}<br>cluster %{customdata[1]}<br>"
                "%{customdata[2]} samples<extra></extra>"
            ),
        ),
        link=dict(
            source=[index[(f["t"] - 1, f["source"])] for f in flows],
            target=[index[(f["t"], f["target"])] for f in flows],
            value=[f["count"] for f in flows],
            color=link_colors,
            customdata=[
                [times[f["t"] - 1], f["source"], times[f["t"]], f["target"], f["t"]] for f in flows
            ],
            hovertemplate=(
                "cluster %{customdata[1]} at time %{customdata[0]} → cluster "
                "%{customdata[3]} at time %{customdata[2]}<br>%{value} samples<extra></extra>"
            ),
        ),
    )
    if marks is not None:
        _mark_nodes(trace, nodes, marks)
    layout = base_layout("line", title or sankey_title(result, highlight))
    layout.update(width=max(680, min(1200, 90 * len(result))), height=420)
    layout["margin"] = dict(l=30, r=30, t=60, b=45)
    # time labels under the columns (node x is in the trace's domain, i.e. paper units)
    columns = sorted({(x, step) for x, step in zip(node_x, node_step)})
    layout["annotations"] = [
        dict(x=x, y=-0.02, xref="paper", yref="paper", yanchor="top", showarrow=False,
             text=f"time {times[step]}", font=dict(size=11, color=MUTED))
        for x, step in columns
    ]
    if not flows:
        layout["annotations"].append(
            message_annotation("no flow yet: needs two steps sharing sample ids")
        )
    if marks is not None:
        layout["annotations"].append(_events_legend())
        layout.update(height=480)
        layout["margin"]["b"] = 100
    return Parts([trace], layout)


def _mark_nodes(trace: go.Sankey, nodes: dict[str, Any], marks: dict) -> None:
    """Event words in the node labels and sentences in the hover."""
    labels, hover = [], []
    for step, label in zip(nodes["node_step"], nodes["node_label"]):
        found = marks.get((step, label), [])
        labels.append(f"{label} {', '.join(word for word, _, _ in found)}" if found else f"{label}")
        hover.append("<br>".join(text for _, text, _ in found) or "no event")
    trace.node.label = labels
    trace.node.customdata = [list(row) + [text] for row, text in zip(trace.node.customdata, hover)]
    trace.node.hovertemplate = (
        "step %{customdata[0]}<br>cluster %{customdata[1]}<br>"
        "%{customdata[2]} samples<br>%{customdata[3]}<extra></extra>"
    )


FLOW_WINDOW = 24
"""Steps (columns) a windowed flow view draws around the step shown (option ``window``):
a 1,140 px Sankey of a longer run shows no flow."""


def flow_window(n_steps: int, step: int, size: int = FLOW_WINDOW) -> tuple[int, int]:
    """The steps ``[lo, hi)`` drawn around ``step``: the window moves by half its size.

    Scrubbing step by step thus draws new columns once every ``size // 2``
    steps, and a live run that follows its newest step shows the last ones.
    """
    half = max(size // 2, 1)
    lo = max(min(step // half * half - half // 2, n_steps - size), 0)
    return lo, min(lo + size, n_steps)


def steps_between(result: ClusteringResult, lo: int, hi: int) -> ClusteringResult:
    """Steps ``lo..hi-1`` of ``result`` as a run of their own (numbered from 0)."""
    if (lo, hi) == (0, len(result)):
        return result
    steps = [replace(step, t=t) for t, step in enumerate(result.steps[lo:hi])]
    return ClusteringResult(result.algorithm, result.params, steps)


def sankey_title(result: ClusteringResult, t: int | None) -> str:
    """Default title of :func:`sankey_figure` (naming the step in focus)."""
    focus = "" if t is None else f" (time {escape(result[t].time)} in focus)"
    return f"{escape(result.algorithm)}: cluster flow over time{focus}"



MEMBERSHIP_SORTS = ("first_move", "moves", "id")
"""Row orders of :func:`membership_figure`."""

def cluster_moves(result: ClusteringResult) -> "pd.DataFrame":
    """Every change of (aligned) cluster of every sample id, as a tidy table.

    Built from :meth:`ClusteringResult.to_frame <ercot_nb.result.ClusteringResult.to_frame>`: each appearance of an id is
    compared with its previous appearance (the step before, or an earlier
    one when the id was missing in between).

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).

    Returns
    -------
    pandas.DataFrame
        One row per move, ordered by step then by first appearance of the id,
        with columns ``id``, ``t`` (0-based step of arrival), ``time_from``,
        ``time`` (time labels of the two appearances), ``from_cluster`` and
        ``to_cluster`` (aligned labels, the colours of every figure here).
    """
    import pandas as pd

    frame = as_result(result).to_frame()
    columns = ["id", "t", "time_from", "time", "from_cluster", "to_cluster"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    by_id = frame.groupby("id", sort=False)
    previous = by_id["aligned_label"].shift()
    time_from = frame["time"].astype(object).groupby(frame["id"], sort=False).shift()
    moved = previous.notna().to_numpy() & (previous.to_numpy() != frame["aligned_label"].to_numpy())
    return pd.DataFrame(
        {
            "id": frame["id"][moved].to_numpy(),
            "t": frame["t"][moved].to_numpy(),
            "time_from": time_from[moved].to_numpy(),
            "time": frame["time"][moved].to_numpy(),
            "from_cluster": previous[moved].to_numpy().astype(np.int64),
            "to_cluster": frame["aligned_label"][moved].to_numpy(),
        },
        columns=columns,
    )


def _reference_names(dataset: TemporalDataset, result: ClusteringResult) -> list[dict[Any, str]] | None:
    """Per step, id -> the dataset's reference label as text (None without labels).

    Also checks that ``dataset`` holds the ids of ``result`` at every step.
    """
    if not isinstance(dataset, TemporalDataset):
        raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
    if len(dataset) != len(result):
        raise ValueError(
            f"dataset has {len(dataset)} steps but the result has {len(result)}: "
            "give the data the result was fitted on"
        )
    for snapshot, step in zip(dataset, result):
        if not np.array_equal(snapshot.ids, step.ids):
            raise ValueError(
                f"step {step.t} (time {plain(step.time)!r}): the dataset's ids differ from the "
                "result's; give the data the result was fitted on"
            )
    if not dataset.has_labels:
        return None
    names = dataset.label_names
    return [
        {
            plain(i): escape(names[label] if names is not None else label)
            for i, label in zip(snapshot.ids, snapshot.labels)
        }
        for snapshot in dataset
    ]


def membership_figure(
    result: ClusteringResult,
    dataset: TemporalDataset | None = None,
    *,
    only_movers: bool = True,
    max_rows: int | None = 60,
    sort: str = "first_move",
    title: str | None = None,
) -> go.Figure:
    """Timeline of every sample's cluster: ids (rows) x time steps (columns).

    Each cell is coloured like the id's aligned cluster at that step (the
    colours of :func:`partition_figure` and :func:`sankey_figure`), so a row
    that changes colour is a sample that moved to another cluster; see
    :func:`cluster_moves` for the same moves as a table.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    dataset : TemporalDataset, optional
        The data the result was fitted on; its name goes in the title and,
        when it has labels, each cell's hover shows the id's reference label
        (e.g. the continent of a Gapminder country).
    only_movers : bool, default=True
        Show only ids that change cluster at least once.
    max_rows : int or None, default=60
        Show at most this many rows (the first ones in ``sort`` order);
        None shows all.
    sort : {"first_move", "moves", "id"}, default="first_move"
        Row order: by the step of the id's first move (ids that never move
        last), by the number of moves (most first), or by id.  Ties keep
        the order of first appearance.
    title : str, optional
        Figure title; by default it says how many rows are shown of how many.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``go.Heatmap``: ``y`` the ids (as text, first row on top), ``x``
        the time labels (as text), ``z`` the index of the cell's cluster in
        the colour bar (``colorbar.ticktext`` names the clusters) and NaN
        where the id is absent at that step (a gap, drawn empty).
        ``customdata`` holds ``[id, time, cluster]`` per cell (plus the
        reference label with a labelled ``dataset``), shown on hover.

    Raises
    ------
    ValueError
        For an unknown ``sort``, a ``max_rows`` below 1, a result without
        steps, or a ``dataset`` whose steps or ids differ from the result's.
    """
    result = as_result(result)
    if not len(result):
        raise ValueError("the result has no steps to show")
    if sort not in MEMBERSHIP_SORTS:
        raise ValueError(f"sort must be one of {MEMBERSHIP_SORTS}, got {sort!r}")
    if max_rows is not None and (
        isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1
    ):
        raise ValueError(f"max_rows must be None or an int >= 1, got {max_rows!r}")
    references = None if dataset is None else _reference_names(dataset, result)

    frame = result.to_frame()
    frame["id"] = [plain(i) for i in frame["id"]]
    grid = frame.pivot(index="id", columns="t", values="aligned_label")
    order = list(dict.fromkeys(frame["id"]))  # ids by first appearance
    grid = grid.reindex(index=order, columns=range(len(result)))

    moves = cluster_moves(result)
    moves["id"] = [plain(i) for i in moves["id"]]
    n_moves = moves.groupby("id", sort=False).size()
    first_move = moves.groupby("id", sort=False)["t"].min()
    rows = [i for i in order if i in n_moves.index] if only_movers else order
    if sort == "first_move":
        rows = sorted(rows, key=lambda i: first_move.get(i, len(result)))
    elif sort == "moves":
        rows = sorted(rows, key=lambda i: -n_moves.get(i, 0))
    else:
        rows = sorted(rows, key=str)
    n_candidates = len(rows)
    if max_rows is not None:
        rows = rows[:max_rows]

    cells = grid.loc[rows].to_numpy(dtype=float) if rows else np.empty((0, len(result)))
    used = sorted(int(k) for k in np.unique(cells[~np.isnan(cells)]))
    position = {label: index for index, label in enumerate(used)}
    z = np.full(cells.shape, np.nan)
    present = ~np.isnan(cells)
    z[present] = [position[int(k)] for k in cells[present]]

    times = [escape(step.time) for step in result]
    customdata = []
    for r, sample in enumerate(rows):
        row = []
        for t, time in enumerate(times):
            cluster = "absent" if np.isnan(cells[r, t]) else f"{int(cells[r, t])}"
            cell = [escape(sample), time, cluster]
            if references is not None:
                cell.append(references[t].get(sample, ""))
            row.append(cell)
        customdata.append(row)
    hover = "%{customdata[0]}<br>time %{customdata[1]}<br>cluster %{customdata[2]}"
    if references is not None:
        hover += "<br>reference: %{customdata[3]}"

    n = max(len(used), 1)
    colorscale = []
    for index, label in enumerate(used):
        colorscale += [[index / n, label_color(label)], [(index + 1) / n, label_color(label)]]
    trace = go.Heatmap(
        z=z,
        x=times,
        y=[escape(i) for i in rows],
        customdata=customdata,
        hovertemplate=hover + "<extra></extra>",
        hoverongaps=False,
        colorscale=colorscale or [[0, MUTED], [1, MUTED]],
        zmin=-0.5,
        zmax=n - 0.5,
        xgap=1,
        ygap=1,
        colorbar=dict(
            title=dict(text="cluster"),
            tickvals=list(range(len(used))),
            ticktext=[f"{label}" for label in used],
            len=min(1.0, 0.1 + 0.06 * n),
            y=1.0,
            yanchor="top",
        ),
    )
    what = "ids that change cluster" if only_movers else "ids"
    on = f" on {escape(dataset.name)}" if dataset is not None and dataset.name else ""
    default = (
        f"{escape(result.algorithm)}{on}: cluster of each id over time"
        f"<br><sup>{len(rows)} of {n_candidates} {what}</sup>"
    )
    longest = max((len(str(i)) for i in rows), default=4)
    layout = base_layout(
        "line",
        title or default,
        xaxis=dict(type="category", side="top"),
        yaxis=dict(type="category", autorange="reversed", automargin=True),
    )
    layout.update(
        width=max(560, min(1200, 140 + 7 * longest + 45 * len(times))),
        height=max(300, min(1600, 130 + 16 * len(rows))),
    )
    layout["margin"] = dict(l=20 + 7 * longest, r=20, t=90, b=20)
    if not rows:
        layout["annotations"] = [message_annotation(f"no {what} to show")]
    return go.Figure(data=[trace], layout=layout)
