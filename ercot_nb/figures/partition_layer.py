"""The partition layer: a run's per-step scatter traces (2-D, PCA or 3-D) with axes fixed over all steps.

The figure builders of :mod:`.partition`, the registry's partition views
(:mod:`.views`) and the widget partition view all draw with one
:class:`PartitionLayer`.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..data import TemporalDataset, common_ids
from ..ensemble import step_agreement
from ..result import StepResult
from .layers import Parts
from .projection import Plane
from .style import (
    INK, MUTED, WEBGL_THRESHOLD, as_result, as_trace, base_layout, counted, escape, label_color, label_symbol,
    padded_range, plain_trace, rgba, step_index,
)

SCENE_CAMERA = dict(eye=dict(x=1.6, y=1.6, z=1.25))
"""Where a 3-D view looks from: further out than Plotly's default, so axis titles fit."""
SCENE_MARGIN = dict(l=10, r=10, t=60, b=10)

__all__ = [
    "ENTERED", "LEFT", "CENTROIDS", "MIN_OPACITY", "SCENE_CAMERA", "SCENE_MARGIN", "cluster_name",
    "PartitionLayer", "shown_positions",
]

ENTERED = "entered since previous step"
LEFT = "left since previous step"
CENTROIDS = "centroids"
MIN_OPACITY = 0.1
"""Points drawn with their agreement as opacity never fade below this."""


_TRACE_CACHE = 64
"""Trace lists a layer keeps (the latest used): a step's knee and its members' distinct partitions."""


def cluster_name(label: int) -> str:
    """Name of the trace holding aligned cluster ``label``'s samples."""
    return f"cluster {int(label)}"


class PartitionLayer:
    """Per-step parts of a partition scatter of one run, with axes fixed over all steps.

    Coordinates (features, PCA or 3-D) are computed once for every step, so
    the parts of any step, or of any member of a step's final population,
    are cheap.  The static builders and the widget partition view both draw
    with it.

    Parameters
    ----------
    dataset : TemporalDataset
        The data the result was fitted on.
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    features, projection, show_centroids, webgl
        As in :func:`partition_figure`.
    max_points : int, optional
        At most this many samples per step are drawn: the same ids at every
        step where they persist (see ``shown_positions``); None draws all.
    """

    def __init__(
        self,
        dataset: TemporalDataset,
        result: Any,
        *,
        features: Sequence[int | str] | None = None,
        projection: str | None = None,
        show_centroids: bool = True,
        webgl: bool | None = None,
        max_points: int | None = None,
    ) -> None:
        if not isinstance(dataset, TemporalDataset):
            raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
        self.dataset = dataset
        self.result = as_result(result)
        if len(self.result) > len(dataset):
            raise ValueError(
                f"the result has {len(self.result)} steps but the dataset only {len(dataset)}"
            )
        for step in self.result:
            if step.n_samples != dataset[step.t].n_samples:
                raise ValueError(
                    f"step {step.t}: the result has {step.n_samples} samples but the dataset "
                    f"{dataset[step.t].n_samples}; was the result fitted on this dataset?"
                )
        self.plane = Plane(dataset, features, projection)
        self.show_centroids = show_centroids
        self._coords = [self.plane.project(s.X) for s in dataset]
        self.ranges = self._ranges()
        self.max_points = int(dataset.n_samples_per_step.max())
        self.webgl = webgl
        self._id_texts: dict[int, np.ndarray] = {}
        self._members: dict[tuple[int, int], StepResult] = {}
        self._free_label: int | None = None
        self._moves: tuple[tuple | None, list[dict[str, Any]]] = (None, [])  # (t, webgl), entered and left
        self._title_head: str | None = None  # dataset and algorithm, escaped
        self._latest: tuple[int | None, dict] = (None, {})  # the traces of the latest step's members
        self._labels_step: int | None = None  # the step whose members' labels are kept (_front_labels)
        self._labels: dict[int, np.ndarray] = {}
        self._by_labels: dict[int, dict[bytes, StepResult]] = {}
        self._traces: OrderedDict[tuple, list] = OrderedDict()
        if max_points is not None and (isinstance(max_points, bool) or not isinstance(max_points, (int, np.integer))
                                       or max_points < 1):
            raise ValueError(f"max_points must be None or an int >= 1, got {max_points!r}")
        self.max_points_shown = max_points
        self._shown = None if max_points is None else shown_positions(dataset, len(self.result), int(max_points))
        self.subsampled = self._shown is not None and any(
            len(keep) < dataset[t].n_samples for t, keep in enumerate(self._shown))

    def shown(self, t: int) -> np.ndarray | None:
        """Mask of step t's samples drawn (None: all)."""
        if self._shown is None:
            return None
        mask = np.zeros(self.dataset[t].n_samples, dtype=bool)
        mask[self._shown[t]] = True
        return mask

    @property
    def is_3d(self) -> bool:
        """Whether the view is a 3-D scatter (``projection="3d"``)."""
        return self.plane.dims == 3

    def use_webgl(self, n_points: int) -> bool:
        """WebGL as requested, or automatically above the threshold."""
        return n_points > WEBGL_THRESHOLD if self.webgl is None else bool(self.webgl)

    def _ranges(self) -> list[list[float]]:
        per_axis = [[coords[d] for coords in self._coords] for d in range(self.plane.dims)]
        if self.show_centroids and not self.plane.by_index:
            for step in self.result:
                for d, values in enumerate(self.plane.project(step.centroids)):
                    per_axis[d].append(values)
        return [padded_range(np.concatenate(v).min(), np.concatenate(v).max()) for v in per_axis]

    def labels_over_time(self) -> list[int]:
        """Every aligned label used by any step, sorted."""
        return sorted({int(k) for step in self.result for k in np.unique(step.aligned_labels)})

    def partition(self, t: int, member: int | None = None) -> StepResult:
        """Step ``t`` of the run, or its partition by population ``member`` (cached)."""
        if member is None:
            return self.result[t]
        # members with the same chromosome have the same partition: computed once
        key = (t, np.ascontiguousarray(self.result[t].population[int(member)], dtype=np.float64).tobytes())
        if key not in self._members:
            if self._free_label is None:  # once per layer: a scan of every step per member is quadratic
                self._free_label = self.result.first_free_label()
            # members with the same labels have the same partition too: the labels of the step's
            # first front are found in one vectorised pass, a partition made once per distinct labels
            if int(member) == self.result[t].knee:  # the knee's own step
                self._members[key] = self.result.member_partition(self.dataset[t].X, t, member)
                return self._members[key]
            labels = self._front_labels(t, int(member)).tobytes()
            by_labels = self._by_labels.setdefault(t, {})
            if labels not in by_labels:
                by_labels[labels] = self.result.member_partition(self.dataset[t].X, t, member,
                                                                 free_label=self._free_label)
            self._members[key] = by_labels[labels]
        return self._members[key]

    def _front_labels(self, t: int, member: int) -> np.ndarray:
        """Labels of ``member`` of step ``t`` (its first front's computed at once, the latest step kept)."""
        if self._labels_step != t:
            step = self.result[t]
            front = np.flatnonzero(step.first_front)
            front = front[front != step.knee]
            self._labels_step, self._labels = t, dict(zip(
                front.tolist(), self.result.labels_of_members(self.dataset[t].X, t, front)))
            self._by_labels = {}
        if member not in self._labels:
            self._labels[member] = self.result.labels_of_member(self.dataset[t].X, t, member)
        return self._labels[member]

    def entered(self, t: int) -> np.ndarray:
        """Mask of step t's samples absent at step t-1 (all False at t = 0)."""
        current = self.dataset[t]
        mask = np.zeros(current.n_samples, dtype=bool)
        if t > 0:
            mask[:] = True
            _, common = common_ids(self.dataset[t - 1], current)
            mask[common] = False
        return mask

    def left(self, t: int) -> np.ndarray:
        """Positions (within step t-1) of the samples gone at step t (empty at t = 0)."""
        if t == 0:
            return np.empty(0, dtype=np.intp)
        previous = self.dataset[t - 1]
        common, _ = common_ids(previous, self.dataset[t])
        mask = np.ones(previous.n_samples, dtype=bool)
        mask[common] = False
        return np.flatnonzero(mask)

    def title(self, t: int, member: int | None = None) -> str:
        """Dataset, algorithm (and member), time and number of clusters (the position once: its time)."""
        step = self.result[t]
        if self._title_head is None:
            name = f"{escape(self.dataset.name)}: " if self.dataset.name else ""
            self._title_head = f"{name}{escape(self.result.algorithm)}"
        name, algorithm = "", self._title_head
        time = escape(step.time)
        if member is None or int(member) == step.knee:
            return f"{name}{algorithm} partition at time {time} ({counted(step.n_clusters, 'cluster')})"
        partition = self.partition(t, member)
        return (
            f"{name}{algorithm} member {int(member)} at time {time} "
            f"({counted(partition.n_clusters, 'cluster')}; knee is member {step.knee})"
        )

    def id_texts(self, t: int) -> np.ndarray:
        """Step t's sample ids as (escaped) strings for hover text, cached per step."""
        cached = self._id_texts.get(t)
        if cached is None:
            cached = np.array([escape(i) for i in self.dataset[t].ids.tolist()], dtype=str)
            self._id_texts[t] = cached
        return cached

    def id_hover(self, t: int, positions: np.ndarray, webgl: bool) -> tuple[dict[str, Any], str]:
        """Hover ids of step t's samples at ``positions``: trace properties and template token.

        Small figures carry ids as ``text``.  WebGL figures with integer ids
        carry them as a float ``customdata`` array instead, which a widget
        sends as one binary buffer rather than a list of strings (scrubbing
        20,000 points stays fast).
        """
        ids = self.dataset[t].ids
        if webgl and ids.dtype.kind in "iu" and (len(ids) == 0 or np.abs(ids).max() < 2**53):
            return {"customdata": ids[positions].astype(np.float64)}, "%{customdata:d}"
        return {"text": self.id_texts(t)[positions]}, "%{text}"

    def traces(
        self,
        t: int,
        labels: Sequence[int],
        webgl: bool,
        partition: StepResult | None = None,
        agreement: np.ndarray | None = None,
    ) -> list[go.Scatter | go.Scattergl | go.Scatter3d]:
        """Traces of step ``t``: the plotly traces of :meth:`plain_traces`."""
        return [as_trace(spec) for spec in self.plain_traces(t, labels, webgl, partition, agreement)]

    def plain_traces(
        self,
        t: int,
        labels: Sequence[int],
        webgl: bool,
        partition: StepResult | None = None,
        agreement: np.ndarray | None = None,
    ) -> list[dict[str, Any]]:
        """Traces of step ``t`` as plain dicts (see ``style.plain_trace``): one per label in
        ``labels``, entered and left samples, centroids.

        ``partition`` replaces the result's step ``t`` (e.g. the partition of
        another Pareto front member); its ``aligned_labels`` colour the points.
        ``agreement`` (one share in [0, 1] per sample of step ``t``) becomes
        each point's opacity (at least ``MIN_OPACITY``) and is shown on
        hover (``customdata``); in 3-D, where plotly.js takes one opacity per
        trace, it is the alpha of each point's colour.
        In 3-D every trace is a ``scatter3d`` with an extra ``z``.
        """
        step = self.result[t] if partition is None else partition
        coords = self._coords[t]
        scatter = "scatter3d" if self.is_3d else "scattergl" if webgl else "scatter"
        n = len(coords[0])
        size = 7 if n <= 1000 else 5 if n <= WEBGL_THRESHOLD else 3
        if self.is_3d:
            size = max(size - 3, 2)  # 3-D markers read larger
        # plotly.js 3-D markers know fewer symbols than 2-D ones
        left_symbol = "cross" if self.is_3d else "x-thin-open"

        def xyz(values: Sequence[np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
            return dict(zip("xyz", (v[rows] for v in values)))

        traces: list[dict[str, Any]] = []
        keep = self.shown(t)
        for label in labels:
            members = np.flatnonzero(step.aligned_labels == label if keep is None else
                                     (step.aligned_labels == label) & keep)
            hover, token = self.id_hover(t, members, webgl)
            marker: dict[str, Any] = dict(color=label_color(label), size=size, opacity=0.85,
                                          symbol=label_symbol(label, self.is_3d))  # not colour alone
            extra = ""
            if agreement is not None:
                shares = agreement[members]
                opacity = np.clip(shares, MIN_OPACITY, 1.0)
                if self.is_3d:
                    marker.update(color=[rgba(label_color(label), round(float(a), 3)) for a in opacity],
                                  opacity=1.0)
                else:
                    marker.update(opacity=opacity)
                if "customdata" in hover:  # ids travel as customdata already: add a column
                    hover = {"customdata": np.column_stack([hover["customdata"], shares])}
                    token, extra = "%{customdata[0]:d}", "<br>agreement %{customdata[1]:.2f}"
                else:
                    hover = dict(hover, customdata=shares)
                    extra = "<br>agreement %{customdata:.2f}"
            traces.append(plain_trace(
                scatter, **xyz(coords, members), mode="markers", name=cluster_name(label),
                legendgroup=cluster_name(label), marker=marker,
                hovertemplate=f"id {token}<br>cluster {int(label)}{extra}<extra></extra>", **hover,
            ))
        moves = (t, bool(webgl))  # the same for the knee and every member of the step: made once
        if self._moves[0] != moves:
            self._moves = (moves, self._move_traces(t, webgl, scatter, size, left_symbol, keep))
        traces.extend(self._moves[1])
        if self.show_centroids:
            traces.append(self._centroid_trace(step, coords[0]))
        return traces

    def _move_traces(self, t: int, webgl: bool, scatter: str, size: int, left_symbol: str,
                     keep: np.ndarray | None) -> list[dict[str, Any]]:
        """The entered and left samples of step ``t`` (plain traces)."""
        coords = self._coords[t]

        def xyz(values: Sequence[np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
            return dict(zip("xyz", (v[rows] for v in values)))

        traces: list[dict[str, Any]] = []
        new = np.flatnonzero(self.entered(t) if keep is None else self.entered(t) & keep)
        hover, token = self.id_hover(t, new, webgl)
        traces.append(plain_trace(
            scatter, **xyz(coords, new), mode="markers", name=ENTERED,
            marker=dict(symbol="circle-open", size=size + 6, color=INK, line=dict(width=1.5)),
            hovertemplate=f"id {token}<br>new at this step<extra></extra>", **hover,
        ))
        gone = self.left(t)
        if self._shown is not None and t > 0:
            gone = gone[self.shown(t - 1)[gone]]
        previous = self._coords[t - 1] if t > 0 else tuple(v[:0] for v in coords)
        hover, token = self.id_hover(max(t - 1, 0), gone, webgl)
        traces.append(plain_trace(
            scatter, **xyz(previous, gone), mode="markers", name=LEFT,
            marker=dict(symbol=left_symbol, size=size + 4, color=MUTED, line=dict(width=1.5)),
            hovertemplate=f"id {token}<br>gone at this step (last position)<extra></extra>",
            **hover,
        ))
        return traces

    def _centroid_trace(self, step: StepResult, x_samples: np.ndarray) -> dict[str, Any]:
        # centroids are numbered like step.labels; map them to aligned labels
        aligned_of = np.empty(step.n_clusters, dtype=np.int64)
        aligned_of[step.labels] = step.aligned_labels
        if self.plane.by_index:
            # one feature: put each centroid at the mean index of its members
            cx = np.array([x_samples[step.labels == c].mean() for c in range(step.n_clusters)])
            positions: tuple[np.ndarray, ...] = (cx, step.centroids[:, 0])
        else:
            positions = self.plane.project(step.centroids)
        return plain_trace(
            "scatter3d" if self.is_3d else "scatter", **dict(zip("xyz", positions)), mode="markers", name=CENTROIDS,
            marker=dict(
                symbol="diamond" if self.is_3d else "x", size=8 if self.is_3d else 16,
                color=[label_color(k) for k in aligned_of], line=dict(width=1.5, color=INK),
            ),
            text=[cluster_name(k) for k in aligned_of],
            hovertemplate="centroid of %{text}<extra></extra>",
        )

    def layout(self, title: str) -> dict[str, Any]:
        """Layout dict with the axis ranges fixed over all steps."""
        if self.is_3d:
            axes = {
                f"{name}axis": dict(title=dict(text=text), range=list(span), autorange=False)
                for name, text, span in zip("xyz", self.plane.titles, self.ranges)
            }
            # Plotly draws a scene inside the plot area and clips what sticks out of it: the
            # default camera (eye 1.25, 1.25, 1.25) and the 2-D margins cut axis titles off
            # (gapminder's log10_gdpPercap).  A camera further out and thin margins keep the
            # titles inside.
            return base_layout("partition", title,
                               scene=dict(**axes, aspectmode="cube", camera=SCENE_CAMERA),
                               legend=dict(itemsizing="constant"), margin=SCENE_MARGIN)
        (x_title, y_title), (x_range, y_range) = self.plane.titles, self.ranges
        return base_layout(
            "partition", title,
            xaxis=dict(title=dict(text=x_title), range=x_range, autorange=False),
            yaxis=dict(title=dict(text=y_title), range=y_range, autorange=False),
            legend=dict(itemsizing="constant"),
        )

    def parts(
        self,
        t: int,
        member: int | None = None,
        *,
        labels: Sequence[int] | None = None,
        webgl: bool | None = None,
        title: str | None = None,
        agreement: Any = None,
    ) -> Parts:
        """Parts of step ``t`` (or of population ``member`` of step ``t``).

        Parameters
        ----------
        t : int
            Step index.
        member : int, optional
            A member of the step's final population instead of the knee.
        labels : sequence of int, optional
            The cluster traces, one per aligned label (empty where absent);
            default the labels present in the partition shown.
        webgl : bool, optional
            Default :meth:`use_webgl` of the step's number of points.
        title : str, optional
            Default :meth:`title`, plus a line saying what the opacity means
            when ``agreement`` is given.
        agreement : Ensemble or array-like, optional
            Per-sample agreement drawn as opacity (see ``step_agreement``).
        """
        traces, title = self.plain(t, member, labels=labels, webgl=webgl, title=title, agreement=agreement)
        return Parts([as_trace(spec) for spec in traces], self.layout(title))

    def plain(
        self,
        t: int,
        member: int | None = None,
        *,
        labels: Sequence[int] | None = None,
        webgl: bool | None = None,
        title: str | None = None,
        agreement: Any = None,
    ) -> tuple[list[dict[str, Any]], str]:
        """The traces of :meth:`parts` as plain dicts (:meth:`plain_traces`), and its title.

        Without ``agreement``, members drawing the same partition get the
        same list of the same dicts (the latest ones are kept); do not change
        them in place.
        """
        t = step_index(self.result, t)
        if labels is None and webgl is None and title is None and agreement is None:
            # the page asks for every member of every step: the traces of a member's partition
            # (members with the same labels share one) are looked up first, the title made per member
            key = None if member is None else id(self.partition(t, member))  # kept alive in _members
            if self._latest[0] != t:
                self._latest = (t, {})
            if key not in self._latest[1]:
                self._latest[1][key] = self._plain(t, member, None, None, None, None)[0]
            return self._latest[1][key], self.title(t, member)
        return self._plain(t, member, labels, webgl, title, agreement)

    def _plain(self, t: int, member: int | None, labels: Sequence[int] | None, webgl: bool | None,
               title: str | None, agreement: Any) -> tuple[list[dict[str, Any]], str]:
        partition = self.partition(t, member)
        if labels is None:
            labels = sorted(int(k) for k in np.unique(partition.aligned_labels))
        if webgl is None:
            webgl = self.use_webgl(self.dataset[t].n_samples)
        shares = None
        if agreement is not None:
            shares, who = step_agreement(agreement, t, self.dataset[t].n_samples)
            if title is None:
                title = (
                    f"{self.title(t, member)}<br><sup>marker opacity: agreement, the share of {who} "
                    "that put the point in this cluster (faint: unsure)</sup>"
                )
        if shares is None:  # a member with the knee's (or another member's) partition: the same traces
            key = (t, tuple(labels), bool(webgl), partition.aligned_labels.tobytes(),
                   np.asarray(partition.centroids).tobytes(), member is None)
            if key in self._traces:
                self._traces.move_to_end(key)
            else:
                self._traces[key] = self.plain_traces(t, labels, webgl, None if member is None else partition)
                if len(self._traces) > _TRACE_CACHE:
                    self._traces.popitem(last=False)
            traces = self._traces[key]
        else:
            traces = self.plain_traces(t, labels, webgl, None if member is None else partition, shares)
        return traces, title or self.title(t, member)

    def fixed_labels(self, member: int | None = None, t: int = 0) -> list[int]:
        """Labels of a trace layout fixed over all steps (plus those of a member at ``t``)."""
        labels = set(self.labels_over_time())
        if member is not None:
            labels |= {int(k) for k in np.unique(self.partition(t, member).aligned_labels)}
        return sorted(labels)


def shown_positions(dataset: TemporalDataset, n_steps: int, cap: int) -> list[np.ndarray]:
    """Per step, the positions of the samples drawn: all, or ``cap`` chosen by a fixed id ranking.

    Each id gets one random rank (seed 0); a step shows its ``cap``
    lowest-ranked samples, so an id that persists stays shown.
    """
    steps = [dataset[t] for t in range(n_steps)]
    if all(s.n_samples <= cap for s in steps):
        return [np.arange(s.n_samples) for s in steps]
    all_ids = np.unique(np.concatenate([np.asarray(s.ids).astype(str) for s in steps]))
    rank = np.random.default_rng(0).permutation(len(all_ids))
    shown = []
    for s in steps:
        ranks = rank[np.searchsorted(all_ids, np.asarray(s.ids).astype(str))]
        shown.append(np.sort(np.argsort(ranks, kind="stable")[:cap]))
    return shown
