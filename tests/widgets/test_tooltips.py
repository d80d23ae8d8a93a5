"""Hover help of the apps' controls: ipywidgets shows a described control's missing tooltip as "null"."""
from __future__ import annotations

import pytest

W = pytest.importorskip("ipywidgets")

from ercot_nb.widgets import Compare, Explorer  # noqa: E402

FAST = {"pop_size": 12, "n_evaluations": 24}


def _controls(root):
    """Every widget reachable from ``root`` through ``children`` and widget attributes."""
    seen, stack = set(), [root]
    while stack:
        widget = stack.pop()
        if id(widget) in seen:
            continue
        seen.add(id(widget))
        yield widget
        children = list(getattr(widget, "children", ()) or ())
        attributes = [value for value in vars(widget).values() if isinstance(value, W.Widget)]
        stack.extend(child for child in children + attributes if isinstance(child, W.Widget))


def _null_tooltips(app):
    return sorted({widget.description for widget in _controls(app)
                   if isinstance(widget, W.DOMWidget) and getattr(widget, "description", "")
                   and not getattr(widget, "tooltip", None)})


@pytest.mark.parametrize("make", [
    lambda: Explorer("syn1", params=FAST, data_params={"n_steps": 2}),
    lambda: Compare("syn1", algorithms=("ERCOT", "staticEC"),
                    params={"ERCOT": FAST, "staticEC": FAST}, data_params={"n_steps": 2}),
], ids=["Explorer", "Compare"])
def test_no_described_control_of_an_app_shows_a_null_tooltip(make):
    app = make()
    assert _null_tooltips(app) == []
