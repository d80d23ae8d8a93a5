"""Gather what the explorer page shows into one JSON-ready dict, from the view registry.

The page knows no view: for every view of :data:`ercot_nb.figures.VIEWS` that
applies to the run, this module stores what the view itself produces (see
:mod:`ercot_nb.figures.protocol`):

* ``base``: the parts a front end shows first (traces and layout);
* ``steps[t]``: the view's change from the base to step ``t``;
* ``members[t][m]``: for views that follow the selected population member,
  the change from step ``t`` to member ``m`` (the clickable members of
  ``t`` are ``members[t]``'s keys, the same for every view).

A view with a choice (:attr:`~ercot_nb.figures.View.choice`, the scores'
``metric``) stores these per value that applies, in ``choices`` (``[{"value",
"label", "base", "steps", ...}]``, the default first), and the page shows a
toggle between them, as the widget does.

``explorer.js`` applies these changes by name and follows the clicks the
traces declare (``meta.click``).  Changes are stored as the view gave them,
in a compact encoding the page decodes generically:

* numeric arrays travel as plotly.js typed arrays ``{"dtype", "bdata"}``
  (little-endian base64; 64-bit floats as ``f4``, ample for drawing);
* a member trace drawing the same points as the step's knee traces (a
  regrouping of them) travels as ``{"gather": {"paths": [...], "index":
  typed}}``: its arrays are those of the step's traces at these rows;
* a trace of a change's ``data`` named like a trace of the base holds only
  what differs from it (``"inherit": true``; a null value removes a property);
* members whose view draws the same traces (one partition) share them: their
  change's ``data`` is an index into ``member_data[t]``;
* a :class:`~ercot_nb.figures.Patch` travels as ``{"patch": [...],
  "values": [...]}``.

``base``, ``steps``, ``members`` and ``member_data`` are then stored by
columns (:mod:`._table`): what the changes of every step repeat (keys,
unchanged values, the text of titles around their numbers) once, numbers and
arrays in one typed array per place.  ``explorer.js``'s ``table`` reads them
back into the lists above.

The page grows linearly with steps x shown samples.  Sample counts above
``max_points`` per step are subsampled by the partition views (the same ids
at every step where they persist); the page says so.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..data import TemporalDataset
from ..figures import VIDEO_MAX_PIXELS, Change, Patch, ViewData, views_for
from ..result import ClusteringResult, StepResult
from ._table import Typed, table

MAX_POINTS = 5000
"""Default cap on the samples per step drawn in the scatter views."""

MAX_MEMBERS = 30
"""Default cap on the distinct front-member partitions stored per step."""

__all__ = ["MAX_POINTS", "MAX_MEMBERS", "VIDEO_MAX_PIXELS", "page_data"]

_GATHER_PATHS = ("x", "y", "z", "text", "customdata")


def _text(value: Any) -> str:
    """Any label from the data as a plain string (shown by the page as text, never parsed)."""
    return str(value.item() if isinstance(value, np.generic) else value)


_INT_RANGES = tuple((t, (int(np.iinfo(t).min), int(np.iinfo(t).max))) for t in ("<u1", "<u2", "<u4", "<i4"))


def _typed(values: np.ndarray) -> Typed:
    """A numeric array as a :class:`~._table.Typed` (64-bit floats as f4, integers in the smallest type)."""
    if values.dtype.kind == "f":
        values = values.astype("<f4")
    elif values.dtype.kind in "iu":
        low, high = (int(values.min()), int(values.max())) if values.size else (0, 0)
        values = values.astype(next(t for t, (least, most) in _INT_RANGES if least <= low and high <= most),
                               copy=False)
    elif values.dtype.kind == "b":
        values = values.astype("<u1")
    return Typed(values.dtype.str.lstrip("<|"), np.ascontiguousarray(values).tobytes(),
                  ",".join(str(n) for n in values.shape) if values.ndim > 1 else None)


_AS_IS = frozenset({str, int, bool, type(None)})


def _plain(value: Any) -> Any:
    """JSON-ready value: numeric arrays typed, text arrays lists, NaN and inf null."""
    kind = type(value)
    if kind in _AS_IS or kind is Typed:  # the most common values first (a long run's page holds millions)
        return value
    if kind is float or kind is np.float64:
        return float(value) if math.isfinite(value) else None
    if kind is dict:  # plain items kept without a call each
        return {key if type(key) is str else str(key):
                v if type(v) in _AS_IS or (type(v) is float and -math.inf < v < math.inf) else _plain(v)
                for key, v in value.items()}
    if kind is list or kind is tuple:  # plain items kept without a call each
        return [v if type(v) in _AS_IS or (type(v) is float and -math.inf < v < math.inf) else _plain(v)
                for v in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fiub" and value.size and (value.dtype.kind != "f" or np.isfinite(value).all()):
            return _typed(value)
        return _plain(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Patch):
        return {"patch": [int(i) for i in value.index], "values": _plain(list(value.values))}
    return value


def _trace(trace: Any) -> dict[str, Any]:
    return trace.to_plotly_json() if hasattr(trace, "to_plotly_json") else dict(trace)


def _parts(parts: Any) -> dict[str, Any]:
    return {"data": [_plain(_trace(t)) for t in parts.traces], "layout": _plain(parts.layout)}


def _rows(traces: list[dict[str, Any]], paths: tuple[str, ...]) -> dict[tuple, int] | None:
    """Row of every point of the traces holding every path (their arrays concatenated)."""
    rows: dict[tuple, int] = {}
    offset = 0
    for trace in traces:
        if not all(p in trace for p in paths):
            continue
        columns = [np.asarray(trace[p]) for p in paths]
        n = len(columns[0])
        if any(len(c) != n for c in columns):
            return None
        keys = zip(*[c.tolist() if c.ndim == 1 else [tuple(r) for r in c.tolist()] for c in columns])
        for i, key in enumerate(keys):
            rows.setdefault(key, offset + i)
        offset += n
    return rows


def _gathered(trace: dict[str, Any], knee: list[dict[str, Any]], cache: dict) -> dict[str, Any]:
    """``trace`` with its arrays as rows of the knee traces' arrays, where they all are there."""
    paths = tuple(p for p in _GATHER_PATHS if p in trace)
    if not paths or not all(isinstance(trace[p], (np.ndarray, list, tuple)) for p in paths):
        return _plain(trace)
    if paths not in cache:
        cache[paths] = _rows(knee, paths)
    rows = cache[paths]
    if rows is None:
        return _plain(trace)
    columns = [np.asarray(trace[p]) for p in paths]
    keys = zip(*[c.tolist() if c.ndim == 1 else [tuple(r) for r in c.tolist()] for c in columns])
    index = [rows.get(key) for key in keys]
    if any(i is None for i in index):
        return _plain(trace)
    out = _plain({k: v for k, v in trace.items() if k not in paths})
    out["gather"] = {"paths": list(paths), "index": _typed(np.asarray(index, dtype=np.int64))
                     if index else []}
    return out


def _inherit(trace: dict[str, Any], base: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A JSON trace as its differences from the base's trace of the same name (``"inherit": true``)."""
    own = base.get(trace.get("name"))
    if own is None:
        return trace
    out = {key: value for key, value in trace.items() if key == "name" or key not in own or value != own[key]}
    out.update({key: None for key in own if key not in trace})
    out["inherit"] = True
    return out


def _by_name(parts_json: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The base's JSON traces by name (what a trace of a change may inherit)."""
    return {trace["name"]: trace for trace in parts_json["data"] if trace.get("name") is not None}


def _change(change: Change, knee: list[dict[str, Any]] | None = None, shared: dict | None = None,
            base: dict[str, dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """A change as JSON.  With ``shared``, member trace lists already stored for the step (the
    same trace objects: members with one partition) become their index in ``shared["data"]``."""
    if change.empty:
        return None
    out: dict[str, Any] = {}
    if change.data is not None:
        key = tuple(id(t) for t in change.data)
        if shared is not None and key in shared["index"]:
            out["data"] = shared["index"][key]
        else:
            cache: dict = {} if shared is None else shared.setdefault("rows", {})  # rows of the step's traces
            done: dict = {} if shared is None else shared.setdefault("done", {})  # JSON of each trace object
            data = []
            for trace in change.data:  # a trace object in several lists of the step is encoded once
                if id(trace) not in done:
                    json_trace = _gathered(_trace(trace), knee, cache) if knee else _plain(_trace(trace))
                    done[id(trace)] = _inherit(json_trace, base) if base else json_trace
                data.append(done[id(trace)])
            if shared is None:
                out["data"] = data
            else:
                shared["index"][key] = out["data"] = len(shared["data"])
                shared["data"].append(data)
                shared["keep"].append(change.data)  # the ids stay those of live objects
    if change.traces:
        out["traces"] = _plain(change.traces)
    if change.shapes:
        out["shapes"] = _plain(change.shapes)
    if change.layout:
        out["layout"] = _plain(change.layout)
    return out


def _first_of_each_row(rows: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each distinct row, in order."""
    rows = np.ascontiguousarray(rows, dtype=np.float64) + 0.0  # -0.0 and 0.0 are the same gene
    first: dict[bytes, int] = {}
    for i, row in enumerate(rows):
        first.setdefault(row.tobytes(), i)
    return np.fromiter(first.values(), dtype=np.intp, count=len(first))


def _stored_members(step: StepResult, max_members: int) -> tuple[list[int], bool]:
    """First-front members whose view the page stores (the knee aside), and whether the cap cut some.

    At most ``max_members`` distinct chromosomes (spread along the front by
    compactness); a front member with the same chromosome as a stored one
    is stored too.
    """
    if len(step.population) == 0:
        return [], False
    front = np.flatnonzero(step.first_front)
    order = front[np.argsort(step.objectives_accumulated[front, 0], kind="stable")]
    distinct = order[_first_of_each_row(step.population[order])]
    cut = len(distinct) > max_members
    if cut:
        pick = np.unique(np.linspace(0, len(distinct) - 1, max_members).round().astype(int))
        distinct = distinct[pick]
    genes = np.ascontiguousarray(step.population, dtype=np.float64) + 0.0
    chosen = {genes[m].tobytes() for m in distinct if not np.isnan(genes[m]).any()}
    members = {int(m) for m in distinct}
    members |= {int(m) for m in front if genes[m].tobytes() in chosen}
    members.discard(int(step.knee))
    return sorted(members), cut


def _drawing(item: Any, source: ViewData, opts: dict[str, Any], stored: list[list[int]],
             notes: list[str]) -> dict[str, Any]:
    """What the page stores of one view drawn with ``opts``: its base, step changes and member
    changes (of the ``stored`` members of each step), by columns; its notes added to ``notes``."""
    notes.extend(note for note in item.notes(source, **opts) if note not in notes)
    base = item.base(source, **opts)
    entry: dict[str, Any] = {"base": _parts(base), "steps": []}
    inherit = _by_name(entry["base"])
    if item.member:
        entry["members"], entry["member_data"] = [], []
    for t in range(source.n_steps):
        change = item.step_change(source, t, **opts)
        entry["steps"].append(_change(change, base=inherit))
        if item.member:
            knee = [_trace(tr) for tr in (change.data if change.data is not None else base.traces)]
            shared: dict[str, Any] = {"index": {}, "data": [], "keep": []}
            entry["members"].append({str(m): _change(item.member_change(source, t, m, **opts), knee, shared, inherit)
                                     for m in stored[t]})
            entry["member_data"].append(shared["data"])
    entry["base"] = table([entry["base"]])  # by columns: long arrays of repeated strings, rows of numbers
    for name in ("steps", "members", "member_data"):  # by columns: what repeats from step to step once
        if name in entry:
            entry[name] = table(entry[name])
    return entry


def page_data(
    result: ClusteringResult,
    dataset: TemporalDataset | None = None,
    *,
    max_points: int = MAX_POINTS,
    max_members: int = MAX_MEMBERS,
    video_max_pixels: int = VIDEO_MAX_PIXELS,
) -> dict[str, Any]:
    """Everything the explorer page draws, as a JSON-ready dict (see the module docstring)."""
    n_steps = len(result)
    if n_steps == 0:
        raise ValueError("the result has no steps to show; fit it first")
    for name, value, low in (("max_points", max_points, 1), ("max_members", max_members, 1),
                             ("video_max_pixels", video_max_pixels, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if dataset is not None:
        if not isinstance(dataset, TemporalDataset):
            raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
        if len(dataset) < n_steps:
            raise ValueError(f"the result has {n_steps} steps but the dataset only {len(dataset)}")
        for step in result:
            if not np.array_equal(np.asarray(step.ids), np.asarray(dataset[step.t].ids)):
                raise ValueError(
                    f"step {step.t} (time {_text(step.time)}): the result's sample ids differ from "
                    "the dataset's; pass the dataset the result was fitted on"
                )
    source = ViewData(result, dataset)
    notes: list[str] = []
    page_options = {"max_points": int(max_points), "max_pixels": int(video_max_pixels)}
    stored: list[list[int]] = []
    truncated = 0
    for step in result:
        members, cut = _stored_members(step, max_members) if dataset is not None else ([], False)
        stored.append(members)
        truncated += cut
    views: list[dict[str, Any]] = []
    for item in views_for(source):
        opts = {name: value for name, value in page_options.items() if name in item.options}
        entry: dict[str, Any] = {"key": item.key, "title": item.title, "hint": item.hint, "wide": item.wide}
        choices = item.choices(source) if item.choice else {}
        if choices:  # one drawing per value of the view's choice, the page's toggle between them
            entry["choice"] = item.choice
            entry["choices"] = [{"value": value, "label": label,
                                 **_drawing(item, source, {**opts, item.choice: value}, stored, notes)}
                                for value, label in choices.items()]
        else:
            entry.update(_drawing(item, source, opts, stored, notes))
        views.append(entry)
    if dataset is None:
        notes.append("No dataset was given, so the partition plot is missing: "
                     "pass the data the run was fitted on (page.write(result, path, dataset)).")
    if truncated:
        notes.append(f"At {truncated} step(s) the first front has more than {max_members} distinct "
                     f"members; {max_members} of them, spread along the front, can be clicked.")
    return {
        "algorithm": _text(result.algorithm),
        "dataset": _text(dataset.name) if dataset is not None and dataset.name else "",
        "times": [_text(s.time) for s in result],
        "n_steps": n_steps,
        "knees": [int(s.knee) for s in result],
        "notes": notes,
        "max_members": int(max_members),
        "messages": {"member": "The partition of member {member} is not on this page: only first-front members "
                               f"are shown (at most {int(max_members)} distinct ones per step)."},
        "views": views,
    }
