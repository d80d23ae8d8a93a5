"""ViewColumns (ercot_nb/widgets/apps/_columns.py): two columns where wide, one wrapping row where not."""
from __future__ import annotations

import re

import ipywidgets as W

from ercot_nb.widgets.apps._columns import ViewColumns


def _view(width: int) -> W.Widget:
    view = W.VBox()
    view.width = width  # a FigureView's figure width
    return view


def _min_widths(css: str) -> list[int]:
    return [int(w) for w in re.findall(r"@container \(min-width: (\d+)px\)\s*\{", css)]


def test_views_are_dealt_to_two_columns_in_turn_and_keep_their_reading_order():
    views = [_view(600), _view(560), _view(560), _view(560), _view(560)]
    wide = [_view(800)]
    columns = ViewColumns(views, wide, scope="test-views")
    first, second = columns.children
    assert list(first.children) == views[0::2] and list(second.children) == views[1::2]
    assert columns.wide == wide  # a wide view takes a row of its own, placed by the app
    css = columns.style.value
    # where the columns dissolve, the views wrap in their registry order
    for i, view in enumerate(views):
        assert f"ercot-nb-order-{i}" in view._dom_classes
        assert f".ercot-nb-order-{i} {{ order: {i}; }}" in css
    # side by side from the two columns' widths on (600 + 560 + gaps + slack)
    assert _min_widths(css) == [columns.threshold] and 1160 < columns.threshold < 1260


def test_a_wider_first_view_moves_the_switch_and_the_scaled_layout():
    slot = _view(600)
    root, layout = W.VBox(), W.HBox()
    columns = ViewColumns([slot, _view(560)], [], scope="test-views", fit=(root, layout, 420))
    narrow, natural = columns.threshold, columns.natural
    assert "test-views-root" in root._dom_classes and "test-views-layout" in layout._dom_classes
    assert f"width: {natural}px" in columns.style.value and "transform: scale(0.75)" in columns.style.value
    slot.width = 800  # the slot now shows a video's three panels
    columns.refresh()
    assert columns.threshold == narrow + 200 and columns.natural == natural + 200
    assert f"width: {natural + 200}px" in columns.style.value
