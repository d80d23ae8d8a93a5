"""The ``n_clusters`` view: the chosen (and true) number of clusters per step."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..layers import Parts
from ..lines import n_clusters_parts
from ..protocol import CLICK_STEP, Change, View, ViewData
from ..style import plain_times
from ._common import line_step_change, with_click

__all__ = ["NClusters", "VIEW"]


class NClusters(View):
    """The chosen number of clusters per step (and the true number, with labels)."""

    key = "n_clusters"
    title = "Number of clusters"
    hint = "Clusters of the chosen (knee) partition at each step; dashed: the true number."

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        return with_click(n_clusters_parts(data.result, data.dataset, t=t), CLICK_STEP)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        return line_step_change(data, t, data.memo("times", lambda: plain_times(data.result.times)))

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        return [n_clusters_parts(data.result, data.dataset).figure()]


VIEW = NClusters()
