"""The ``alpha`` view: the smoothness weight over time."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..layers import Parts
from ..lines import ALPHA, PAIRS, AlphaLine, alpha_figure, alpha_parts
from ..protocol import CLICK_STEP, Change, View, ViewData, click_meta
from ..style import CURRENT_STEP, step_index

__all__ = ["Alpha", "VIEW"]


class Alpha(View):
    """The smoothness weight alpha over time (and alpha_i of every matched cluster pair).

    Option ``show_pairs`` (default True): show each matched cluster pair's weight (a hidden trace
    without).  The run's :class:`~.lines.AlphaLine` is kept as it grows (:meth:`ViewData.growing`).
    """

    key = "alpha"
    title = "Smoothness weight alpha"
    hint = ("Weight of the previous step in the accumulated fitness (none at the first step); "
            "grey rings: the weight of each matched cluster pair.")
    options = {"show_pairs": True}
    chosen = False  # the run's weights: a member picked does not change them

    def line(self, data: ViewData) -> AlphaLine:
        """The run's time line, taken up to its last step."""
        return data.growing((self.key, "line"), AlphaLine).extend(data.result)

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        o = self.with_defaults(options)
        return alpha_parts(data.result, show_pairs=o["show_pairs"], t=t, pairs_trace=True, line=self.line(data))

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.result, t)
        line = self.line(data)
        time = line.x[t]
        return Change(traces={CURRENT_STEP: {"x": [time], "y": [line.y[t]]}},
                      shapes={CURRENT_STEP: {"x0": time, "x1": time}})

    def grown_base(self, data: ViewData, base: Parts, **options: Any) -> Change | None:
        """The lines' points, the time axis and the y range; None when the note "no weight" comes or goes."""
        line = self.line(data)
        if ("annotations" in base.layout) == line.any_finite or PAIRS not in base.names:
            return None
        axis = line.time_axis()
        return Change(
            traces={ALPHA: {"x": list(line.x), "y": list(line.y), "meta": click_meta(CLICK_STEP)},  # one message
                    PAIRS: {"x": list(line.pair_x), "y": list(line.pair_y),
                            "meta": click_meta(CLICK_STEP, line.pair_steps)}},
            layout={**{f"xaxis.{key}": axis.get(key) for key in ("tickmode", "tickvals", "type")},
                    "yaxis.range": line.y_range(True)},
        )

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        return [alpha_figure(data.result, show_pairs=self.with_defaults(options)["show_pairs"])]


VIEW = Alpha()
