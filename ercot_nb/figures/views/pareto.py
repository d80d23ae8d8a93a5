"""The ``pareto`` view: a step's final population on its two objectives, and its knee."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..layers import Parts
from ..pareto import SELECTED, KMax, is_member_trace, pareto_animation, pareto_plain
from ..protocol import CLICK_MEMBER, Change, View, ViewData, click_meta
from ..style import as_trace, step_index

__all__ = ["Pareto", "VIEW", "STEPS_KEPT"]

STEPS_KEPT = 128
"""Steps whose traces a run's Pareto view keeps (a step costs the same at any length of the run)."""


class Pareto(View):
    """The final population of a step on its two objectives; click a member to show its partition."""

    key = "pareto"
    title = "Pareto front"
    hint = ("Final population on the accumulated objectives (min-max normalised). Filled: first front, "
            "click one to show its partition; hollow: dominated; star: the knee (chosen).")
    member = True
    options = {"accumulated": True}

    def applies(self, data: ViewData) -> bool:
        return data.has_population

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        traces, layout = self.plain(data, t, member, **options)
        return Parts([as_trace(spec) for spec in traces], layout)

    def plain(self, data: ViewData, t: int = 0, member: int | None = None,
              **options: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The traces of :meth:`parts` as plain dicts (see :func:`~.style.plain_trace`), and the layout."""
        o = self.with_defaults(options)
        k_max = data.growing((self.key, "k_max"), KMax)
        k_max.extend(data.result)  # reads only the steps a growing run added
        traces, layout = pareto_plain(data.result, t, accumulated=o["accumulated"], selected=member, fixed=True,
                                      k_max=k_max.value)
        for spec in traces:
            if is_member_trace(spec.get("name")):
                spec["meta"] = click_meta(CLICK_MEMBER)
        return traces, layout

    def _step(self, data: ViewData, t: int, options: dict[str, Any]) -> tuple[tuple, dict[int, tuple]]:
        """The plain traces and layout of step ``t`` and each member's point (x, y, customdata row),
        kept for the last :data:`STEPS_KEPT` steps asked (scrubbing back and forth computes each once)."""
        try:
            key = (self.key, "steps", tuple(sorted(options.items())))
            hash(key)
        except TypeError:
            key = (self.key, "steps", repr(sorted(options.items())))
        cached = data.memo(key, OrderedDict)
        if t in cached:
            cached.move_to_end(t)
        else:
            while len(cached) >= STEPS_KEPT:
                cached.popitem(last=False)
            traces, layout = self.plain(data, t, None, **options)
            points: dict[int, tuple] = {}
            for spec in traces:
                if spec["name"] != SELECTED and is_member_trace(spec["name"]) and spec.get("customdata") is not None:
                    xs, ys = np.asarray(spec["x"]).tolist(), np.asarray(spec["y"]).tolist()  # plain floats
                    for x, y, row in zip(xs, ys, spec["customdata"]):
                        points.setdefault(int(row[0]), (x, y, list(row)))
            cached[t] = ((traces, layout), points)
        return cached[t]

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.result, t)
        traces, layout = self._step(data, t, options)[0]
        return Change(data=list(traces), layout={"title": layout["title"], "annotations": layout["annotations"]})

    def member_change(self, data: ViewData, t: int, member: int | None, **options: Any) -> Change:
        """Only the ring around the selected member: its point, as the step's member traces draw it."""
        t = step_index(data.result, t)
        _, points = self._step(data, t, options)
        if member is None or member == data.result[t].knee:
            return Change(traces={SELECTED: {"x": [], "y": [], "customdata": [], "showlegend": False}})
        if int(member) not in points:
            raise ValueError(f"step {t}: member {member} is not in the final population "
                             f"({len(data.result[t].population)} members)")
        x, y, row = points[int(member)]
        return Change(traces={SELECTED: {"x": [x], "y": [y], "customdata": [row], "showlegend": True}})

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        return [pareto_animation(data.result, accumulated=self.with_defaults(options)["accumulated"])]


VIEW = Pareto()
