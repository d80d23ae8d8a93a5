"""The view protocol: what one view is, what it draws, and how it changes with the step.

The views themselves and their registry are in ``ercot_nb.figures.views``.

A *view* (the partition, the Pareto front, alpha over time, ...) is defined
once, here, as a :class:`View`.  The static figures
(:func:`~ercot_nb.figures.report_figures`), the live widgets
(:mod:`ercot_nb.widgets`) and the offline page (:mod:`ercot_nb.page`) are
thin front ends: they iterate ``VIEWS``, keep the views that
:meth:`View.applies` to the data, and show what the view returns.  None of
them knows a view by name.

The protocol
------------
What a view draws from is a :class:`ViewData` (the run, the dataset, the runs
compared); *where* it is drawn is a step ``t`` and optionally a ``member``
of that step's final population; how is given by the view's ``options``
(keyword arguments, defaults in :attr:`View.options`).

* :meth:`View.parts` -- the figure of one step (and member) as
  :class:`~ercot_nb.figures.layers.Parts`: traces named by role and a plain
  layout dict.  The static figure of that step is ``parts(...).figure()``.
* :meth:`View.base` -- what a live front end shows first (the parts of step
  0 with the trace layout kept over all steps).
* :meth:`View.step_change` -- a :class:`Change` from the base to step ``t``
  (knee shown): new values by trace name, shape name and layout path, or a
  whole new trace list (``data``) where the traces themselves differ per
  step.  A change holds *absolute* values, so applying the change of any
  step to the base, or to the view at any other step, gives that step.
* :meth:`View.member_change` -- a :class:`Change` from step ``t`` (knee) to
  ``member`` of step ``t`` (views with :attr:`View.member` only).
* :meth:`View.grown_base` -- optionally, a :class:`Change` from the base of a
  run to the base of the same run grown in place (a live run), cheaper than
  the whole base; its work is kept per run by :meth:`ViewData.growing`.

The invariant every front end relies on (and the conformance tests check)::

    view.step_change(data, t).apply(view.base(data))             ~ view.parts(data, t)
    view.member_change(data, t, m).apply(view.parts(data, t))    ~ view.parts(data, t, m)

(equal plotly JSON, traces compared by name).  :meth:`Change.apply` is the
reference implementation of applying a change; ``Change.data`` replaces the
trace list, ``traces`` sets ``{property path: value}`` of named traces
(a :class:`Patch` value replaces single entries of the *base's* array),
``shapes`` sets properties of named layout shapes, ``layout`` sets layout
paths (``"title.text"``).

Clicks are declared on the traces, as data: a trace whose ``meta`` holds
``{"click": "step"}`` selects the step of the clicked point (point ``i`` is
step ``i``, or ``meta["steps"][i]`` when given); ``{"click": "member"}``
selects the population member in ``customdata[0]`` of the clicked point
(see :data:`CLICK_STEP`, :data:`CLICK_MEMBER`, :func:`click_meta`).

Adding a view is one module with one subclass of :class:`View` plus its key in the registry
(see :class:`~ercot_nb.figures.views.Sizes`).
"""
from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go
from plotly.utils import PlotlyJSONEncoder

from ..data import TemporalDataset
from ..result import ClusteringResult
from .layers import Parts, shape_index, trace_index
from .style import escape

__all__ = [
    "CLICK_STEP", "CLICK_MEMBER", "click_meta", "ViewData", "Patch", "Change", "View",
]

CLICK_STEP = "step"
"""``meta["click"]`` of a trace whose points select a step (point ``i`` is step ``i``)."""
CLICK_MEMBER = "member"
"""``meta["click"]`` of a trace whose points select the member in their ``customdata[0]``."""


def click_meta(action: str, steps: Sequence[int] | None = None) -> dict[str, Any]:
    """The ``meta`` of a clickable trace (see the module docstring).

    Parameters
    ----------
    action : {"step", "member"}
    steps : sequence of int, optional
        For ``"step"``: the step of each point, when point ``i`` is not step ``i``.
    """
    if action not in (CLICK_STEP, CLICK_MEMBER):
        raise ValueError(f"click action must be {CLICK_STEP!r} or {CLICK_MEMBER!r}, got {action!r}")
    meta: dict[str, Any] = {"click": action}
    if steps is not None:
        meta["steps"] = [int(s) for s in steps]
    return meta


@dataclass(frozen=True)
class ViewData:
    """What a view draws from.

    Parameters
    ----------
    result : ClusteringResult
        The run shown (a fitted estimator with ``result_`` is accepted too).
    dataset : TemporalDataset, optional
        The data the run was fitted on (partition, video, scores need it).
    runs : mapping of str to ClusteringResult, optional
        Runs compared in the score views; default ``{algorithm: result}``.
    """

    result: ClusteringResult
    dataset: TemporalDataset | None = None
    runs: Mapping[str, Any] | None = None
    _memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    _growing: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def memo(self, key: Any, make: Any) -> Any:
        """``make()`` computed once per key for this data (views keep per-run work here)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def growing(self, key: Any, make: Any) -> Any:
        """``make()`` made once per key for this run, *kept when the run grows* (:meth:`grown`).

        For work that a view extends with the steps a live run added (e.g.
        :class:`~ercot_nb.figures.lines.AlphaLine`): the object kept must
        take the run again and read only its new steps.
        """
        if key not in self._growing:
            self._growing[key] = make()
        return self._growing[key]

    def titled(self, text: str) -> str:
        """``text`` naming the dataset: ``"<name>: text"`` unless it names it already (or the data has no name)."""
        name = self.dataset_name
        if not name or text.startswith(f"{name}: ") or f" on {name}" in text:
            return text
        return f"{name}: {text}"

    @property
    def dataset_name(self) -> str:
        """The dataset's name, escaped for figure text ("" without a named dataset)."""
        name = getattr(self.dataset, "name", "") if self.dataset is not None else ""
        return escape(name) if name else ""

    def grown(self) -> ViewData:
        """This run and data taken again after the run grew in place: :meth:`memo` starts afresh,
        :meth:`growing` is kept."""
        return ViewData(self.result, self.dataset, self.runs, _growing=self._growing)

    def __post_init__(self) -> None:
        inner = getattr(self.result, "result_", self.result)
        if not isinstance(inner, ClusteringResult):
            raise TypeError(f"result must be a ClusteringResult or a fitted estimator, got {type(self.result).__name__}")
        object.__setattr__(self, "result", inner)
        if self.dataset is not None and not isinstance(self.dataset, TemporalDataset):
            raise TypeError(f"dataset must be a TemporalDataset, got {type(self.dataset).__name__}")
        if self.dataset is not None and len(self.dataset) < len(inner):
            raise ValueError(f"the result has {len(inner)} steps but the dataset only {len(self.dataset)}")
        if not len(inner):
            raise ValueError("the result has no steps to show; fit it first")

    @property
    def n_steps(self) -> int:
        """Steps of the run."""
        return len(self.result)

    @property
    def compared(self) -> dict[str, Any]:
        """The runs compared: ``runs``, or the run alone under its algorithm's name."""
        return dict(self.runs) if self.runs else {self.result.algorithm: self.result}

    @property
    def has_population(self) -> bool:
        """Whether any step keeps a final population (ERCOT does; baselines and consensus do not)."""
        return any(len(step.population) for step in self.result)

    @property
    def is_video(self) -> bool:
        """Whether the dataset is a video (pixels placed by id)."""
        return self.dataset is not None and bool(self.dataset.is_video)

    @property
    def has_labels(self) -> bool:
        """Whether the dataset has ground-truth labels."""
        return self.dataset is not None and bool(self.dataset.has_labels)

    @property
    def n_features(self) -> int:
        """Features of the dataset (0 without one)."""
        return 0 if self.dataset is None else int(self.dataset.n_features)


@dataclass(frozen=True)
class Patch:
    """New values at some positions of an array of the view's base parts.

    ``index`` and ``values`` have the same length; the rest of the array is
    the base's.  Keeps the change of one step small where a long array
    (e.g. every Sankey node's colour) changes in a few places.
    """

    index: list[int]
    values: list[Any]

    def __post_init__(self) -> None:
        if len(self.index) != len(self.values):
            raise ValueError(f"a patch needs as many values as positions, got {len(self.values)} and {len(self.index)}")

    def on(self, base: Sequence[Any]) -> list[Any]:
        """The base array with this patch applied."""
        out = list(base)
        for i, value in zip(self.index, self.values):
            out[i] = value
        return out


@dataclass(frozen=True)
class Change:
    """What changes in a view between two selections, by name (see the module docstring).

    Attributes
    ----------
    traces : dict of str to dict
        Trace name -> ``{property path: value}`` (``"marker.color"``); a
        :class:`Patch` value edits the base's array.
    shapes : dict of str to dict
        Layout shape name -> ``{property: value}``.
    layout : dict
        Layout path -> value (``"title.text"``).
    data : list of traces, optional
        The whole trace list, replacing the current one (applied first): plotly
        traces or their plain dicts (``ercot_nb.figures.style.plain_trace``;
        the partition and Pareto views give dicts, cheap to make for every step
        and member of a long run).
    """

    traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    shapes: dict[str, dict[str, Any]] = field(default_factory=dict)
    layout: dict[str, Any] = field(default_factory=dict)
    data: list[Any] | None = None

    def apply(self, parts: Parts, base: Parts | None = None) -> Parts:
        """The parts with this change applied (a new :class:`Parts`; ``parts`` is unchanged).

        ``base`` holds the arrays :class:`Patch` values edit (default ``parts``).  The one
        definition of applying a change in Python: a live front end sends what
        :meth:`trace_values` and :meth:`layout_of` give (the offline page's explorer.js
        reads the same change in the browser).
        """
        base = base or parts
        traces = list(self.data) if self.data is not None else list(parts.traces)
        traces = [go.Figure(data=[t]).data[0] if isinstance(t, dict) else copy.deepcopy(t) for t in traces]
        for name, values in self.trace_values(base).items():
            trace = traces[trace_index(traces, name)]
            for path, value in values.items():
                trace[path] = value
        return Parts(traces, self.layout_of(parts.layout))

    def trace_values(self, base: Parts) -> dict[str, dict[str, Any]]:
        """The named traces' new values, each :class:`Patch` applied to ``base``'s array."""
        return {name: {path: value.on(_get(base.trace(name), path)) if isinstance(value, Patch) else value
                       for path, value in values.items()} for name, values in self.traces.items()}

    def layout_of(self, layout: dict[str, Any]) -> dict[str, Any]:
        """``layout`` with this change's shapes and layout paths set (a copy)."""
        layout = copy.deepcopy(layout)
        for name, values in self.shapes.items():
            layout["shapes"][shape_index(layout, name)].update(values)
        for path, value in self.layout.items():
            _set(layout, path, value)
        return layout

    def then(self, other: Change) -> Change:
        """This change, then ``other``, as one change (``other``'s values win; its trace list
        replaces this one's)."""
        if other.data is not None:
            return Change(traces=other.traces, shapes={**self.shapes, **other.shapes},
                          layout={**self.layout, **other.layout}, data=other.data)
        traces = {name: dict(values) for name, values in self.traces.items()}
        for name, values in other.traces.items():
            traces.setdefault(name, {}).update(values)
        return Change(traces=traces, shapes={**self.shapes, **other.shapes},
                      layout={**self.layout, **other.layout}, data=self.data)

    @property
    def empty(self) -> bool:
        """Whether nothing changes."""
        return not (self.traces or self.shapes or self.layout or self.data is not None)


def _get(obj: Any, path: str) -> Any:
    for key in path.split("."):
        obj = obj[key]
    return obj


def _set(layout: dict[str, Any], path: str, value: Any) -> None:
    keys = path.split(".")
    node = layout
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value


class View:
    """One view, defined once (subclass it; see the module docstring).

    Attributes
    ----------
    key : str
        Stable identifier (a page element id, a widget tab, a test id).
    title, hint : str
        Heading and one-line explanation a front end may show.
    member : bool
        Whether the view draws the selected population member itself (:meth:`member_change`).
    chosen : bool
        Whether the view draws the chosen partitions (a member picked at a step changes it: a
        front end draws the run with that member's partition at that step); False for views of
        what the run did (the smoothness weight).
    wide : bool
        Whether a front end should give it the whole width.
    options : dict
        The view's options and their defaults (keyword arguments of every method).
    choice : str
        The option whose values every front end offers as a choice ("" for none): the static
        report draws each, the offline page and the widget a toggle (values: :meth:`choices`).
    """

    key: str = ""
    title: str = ""
    hint: str = ""
    member: bool = False
    chosen: bool = True
    wide: bool = False
    options: Mapping[str, Any] = {}
    choice: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every view's title names the dataset: what a subclass's :meth:`parts` and changes return
        gets :meth:`ViewData.titled` titles (one place, so a new view cannot forget it)."""
        super().__init_subclass__(**kwargs)
        for name in ("parts", "step_change", "member_change", "grown_base", "report"):
            if name in cls.__dict__:
                setattr(cls, name, _naming_dataset(cls.__dict__[name]))

    # ------------------------------------------------------------ to override
    def applies(self, data: ViewData) -> bool:
        """Whether the view has something to show for ``data``."""
        return True

    def choices(self, data: ViewData) -> dict[Any, str]:
        """The values of the option :attr:`choice` that apply to ``data``, value -> label, the
        default first (none without a choice)."""
        return {}

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        """The view at step ``t`` (and ``member``, None: the knee)."""
        raise NotImplementedError

    def base(self, data: ViewData, **options: Any) -> Parts:
        """What a live front end shows first: the parts of step 0."""
        return self.parts(data, 0, None, **options)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        """From the base (or any step) to step ``t``; default: the whole trace list and the layout
        entries that differ from the base's."""
        return _replace(self.parts(data, t, None, **options), self._base(data, options))

    def member_change(self, data: ViewData, t: int, member: int | None, **options: Any) -> Change:
        """From step ``t`` (knee) to ``member`` of step ``t``; default: the whole trace list and the
        layout entries that differ from the base's."""
        return _replace(self.parts(data, t, member, **options), self._base(data, options))

    def grown_base(self, data: ViewData, base: Parts, **options: Any) -> Change | None:
        """From ``base`` (this view's base of the run before it grew in place) to the base of the
        grown run, leaving alone what :meth:`step_change` sets; None (default): no cheaper than
        drawing :meth:`base` afresh.  A live front end of a growing run uses it."""
        return None

    def notes(self, data: ViewData, **options: Any) -> list[str]:
        """Sentences a front end should show about what the view leaves out (plain text)."""
        return []

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        """The static figures of the whole run (default: the parts of step 0 as a figure)."""
        return [self.parts(data, 0, None, **options).figure()]

    # ---------------------------------------------------------------- helpers
    def _base(self, data: ViewData, options: Mapping[str, Any]) -> Parts:
        """:meth:`base` made once per data and options."""
        key = (self.key, "base", json.dumps(options, sort_keys=True, default=repr))
        return data.memo(key, lambda: self.base(data, **options))

    def figure(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> go.Figure:
        """The view at step ``t`` (and ``member``) as a ``plotly.graph_objects.Figure``."""
        return self.parts(data, t, member, **options).figure()

    def with_defaults(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` completed with the view's defaults (unknown names are an error)."""
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise TypeError(f"view {self.key!r}: unknown option(s) {unknown}; it takes {sorted(self.options)}")
        return {**self.options, **options}

    def __repr__(self) -> str:
        return f"<view {self.key!r}: {self.title}>"


def _naming_dataset(method: Any) -> Any:
    """``method`` (a view's parts, change or report) with its titles naming the data's dataset."""
    if getattr(method, "names_dataset", False):
        return method

    @functools.wraps(method)
    def wrapper(self: View, data: ViewData, *args: Any, **options: Any) -> Any:
        out = method(self, data, *args, **options)
        if out is None or data is None or not data.dataset_name:
            return out
        if isinstance(out, list):  # report figures (and their animation frames)
            for figure in out:
                for layout in [figure.layout, *(frame.layout for frame in figure.frames)]:
                    if layout.title.text is not None:
                        layout.title.text = data.titled(layout.title.text)
        else:
            _name_title(out.layout, data)
        return out

    wrapper.names_dataset = True  # type: ignore[attr-defined]
    return wrapper


def _name_title(layout: dict[str, Any], data: ViewData) -> None:
    """Set the title in ``layout`` (a layout or a change's layout paths) to name the dataset."""
    if "title.text" in layout and isinstance(layout["title.text"], str):
        layout["title.text"] = data.titled(layout["title.text"])
    title = layout.get("title")
    if isinstance(title, str):
        layout["title"] = data.titled(title)
    elif isinstance(title, Mapping) and isinstance(title.get("text"), str):
        layout["title"] = {**title, "text": data.titled(title["text"])}  # a copy: the view may keep the title


def _replace(parts: Parts, base: Parts) -> Change:
    """The whole trace list, and each top-level layout entry that is not the base's."""
    missing = sorted(set(base.layout) - set(parts.layout))
    if missing:
        raise ValueError(f"the parts lack the base's layout entries {missing}: a view's layout keeps its keys")
    layout = {key: value for key, value in parts.layout.items()
              if key in _STEP_LAYOUT or key not in base.layout or _plain_json(value) != _plain_json(base.layout[key])}
    return Change(data=list(parts.traces), layout=layout)


_STEP_LAYOUT = ("title", "annotations")  # always part of a default change, so that changes are absolute


def _plain_json(value: Any) -> str:
    return json.dumps(value, cls=PlotlyJSONEncoder, sort_keys=True)
