"""What several views share: clicks declared on traces, a time line's step mark."""
from __future__ import annotations

from typing import Any

from ..layers import Parts
from ..protocol import Change, ViewData, click_meta
from ..style import CURRENT_STEP, step_index


def with_click(parts: Parts, action: str, names: Any = None) -> Parts:
    """Declare the traces named ``names`` (default: all) clickable with ``action``."""
    for trace in parts.traces:
        if names is None or (callable(names) and names(trace.name)) or (not callable(names) and trace.name in names):
            trace.meta = click_meta(action)
    return parts


def line_step_change(data: ViewData, t: int, times: list[Any]) -> Change:
    t = step_index(data.result, t)
    return Change(shapes={CURRENT_STEP: {"x0": times[t], "x1": times[t]}})
