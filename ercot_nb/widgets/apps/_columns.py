"""An app's views in two columns where its views' column is wide enough, in one where it is not.

A row that wraps (flexbox) leaves a blank band under a short view beside a tall one: a
video's frames (about 250 px) beside the Pareto front (550 px) left 300 px blank under
the frames.  Two columns stack their views independently: the first holds the
partition (or the video) and every other view after it, the second the Pareto front
and the rest, so a short view is followed at once by the next one of its column.
Where the views' column is narrower than the two columns side by side (a 1280 px
laptop, a JupyterLab notebook beside its file browser) the columns dissolve
(``display: contents``) and the views wrap in their registry order, partition first.
Wide views (``FrontEnd.wide``: the cluster flow) are left to the app: a row of its own below
its side panel and views column, whole also where the app is scaled (see below).

The switch is a CSS container query on the app's views column, written into a
``<style>`` of an HTML widget: the same in Voila and inside JupyterLab.

Where the whole app is a little narrower than its side panel beside its first view (a
JupyterLab notebook beside the file browser on a 1280 px laptop: about 850 px), the
side panel would wrap above the views and fill the first screen with forms; where it is
a little narrower than the side panel beside the two columns (the same at 1920 px), the
views would stand in one column with blank bands beside them.  There the app is drawn
at that natural width and scaled down to fit, in steps down to 70 % (80 % for the two
columns): ``transform: scale``, which plotly inverts for its hover and clicks (CSS
``zoom`` it does not), so Run, the status line, the slider and the partition stay on one
screen.  A transform keeps the app's unscaled height in the page, which would leave a blank
of (1 - scale) of its height below a scaled app: :class:`ScaledHeight` takes it back (a
negative bottom margin, set in the page whenever the scale or the height changes).
"""
from __future__ import annotations

from collections.abc import Sequence

import anywidget
import ipywidgets as W
import traitlets

__all__ = ["SCALES", "ScaledHeight", "ViewColumns", "scaled_css"]

_GAP = 8  # px between views (their panels' right and bottom margin)
_SLACK = 40  # px: borders, scrollbars and the controls a little wider than their figure
SCALES = (0.95, 0.9, 0.85, 0.8, 0.75, 0.7)  # the app drawn smaller, in steps, down to 70 %


def _width(view: W.Widget) -> int:
    """The width in px a view's column needs: its figure's (``width``), else 560."""
    shown = getattr(view, "view", view)  # a PartitionSlot shows a partition or a video
    return int(getattr(shown, "width", None) or 560)


class ViewColumns(W.HBox):
    """Views in two columns (wide container) or one wrapping row (narrow), plus wide views below.

    Parameters
    ----------
    views : sequence of Widget
        The views in reading order: dealt to the two columns in turn (first, second,
        first, ...), so the first two sit side by side.
    wide : sequence of Widget
        Views that take a row of their own (:attr:`wide`, placed by the app: not children).
    scope : str
        A CSS class unique to this app, given to the box whose width decides (the
        app's views column, via :meth:`container`).
    fit : tuple of (Widget, Widget, int), optional
        ``(root, layout, side_width)``: the app's outermost box, the box of its side
        panel and views column, and the side panel's width in px: where ``root`` is
        narrower than the side panel beside the first view, ``layout`` is drawn at
        that width and scaled down to fit.

    Attributes
    ----------
    style : HTML
        The CSS (put it anywhere in the app; :meth:`refresh` rewrites it).
    scaled_height : ScaledHeight or None
        With ``fit``: a widget to put in ``root`` (no blank below the layout scaled down).
    threshold : int
        The container width in px from which the two columns sit side by side.
    """

    def __init__(self, views: Sequence[W.Widget], wide: Sequence[W.Widget], scope: str,
                 fit: tuple[W.Widget, W.Widget, int] | None = None) -> None:
        self.scope = scope
        self._fit = None
        if fit is not None:
            root, layout, side = fit
            root.add_class(f"{scope}-root")
            layout.add_class(f"{scope}-layout")
            self._fit = side
        self._columns = [list(views[0::2]), list(views[1::2])]
        boxes = []
        for column in self._columns:
            # centred: a 560 px view under an 800 px video leaves 120 px each side, not a 240 px band
            box = W.VBox(column, layout=W.Layout(align_items="center"))
            box.add_class("ercot-nb-column")
            boxes.append(box)
        for i, view in enumerate(views):  # the order where the columns dissolve
            view.add_class(f"ercot-nb-order-{i}")
        self._n = len(views)
        super().__init__(boxes, layout=W.Layout(
            flex_flow="row wrap", align_items="flex-start", justify_content="space-around"))
        self._wide = list(wide)
        self.add_class("ercot-nb-columns")
        self.style = W.HTML(layout=W.Layout(display="none"))
        # with ``fit``: put it in ``root`` too (no blank below the scaled layout)
        self.scaled_height = ScaledHeight(f".{scope}-root", f".{scope}-layout") if fit is not None else None
        self.threshold = 0
        self.refresh()

    @property
    def wide(self) -> list[W.Widget]:
        """The wide views, for the app to place in a row of their own."""
        return self._wide

    def container(self, box: W.Widget) -> W.Widget:
        """Mark ``box`` (an ancestor) as the container whose width decides; returns it."""
        box.add_class(self.scope)
        return box

    def refresh(self) -> None:
        """Rewrite the CSS for the views' present widths (e.g. a video instead of a scatter)."""
        self.threshold = sum(max((_width(v) for v in column), default=0) + _GAP
                             for column in self._columns) + _SLACK
        s = f".{self.scope}"
        orders = "\n".join(f"{s} .ercot-nb-order-{i} {{ order: {i}; }}" for i in range(self._n))
        self.style.value = f"""<style>
{s} {{ container-type: inline-size; }}
{s} .ercot-nb-columns > .ercot-nb-column.widget-vbox {{ display: contents; }}
{orders}
@container (min-width: {self.threshold}px) {{
  {s} .ercot-nb-columns > .ercot-nb-column.widget-vbox {{ display: flex; }}
}}
{self._scale_css()}
</style>"""

    def _scale_css(self) -> str:
        if self._fit is None:
            return ""
        first = max(600, _width(self._columns[0][0]) if self._columns[0] else 0)
        # the side panel beside one view (below: it wraps above them), and beside two columns
        self.natural = self._fit + _GAP + first + _SLACK
        two = self._fit + 2 * _GAP + self.threshold
        return scaled_css(f".{self.scope}-root", f".{self.scope}-layout",
                          ((two, SCALES[:4]), (self.natural, SCALES)))


def scaled_css(root: str, layout: str, naturals: Sequence[tuple[int, Sequence[float]]]) -> str:
    """CSS drawing ``layout`` at a natural width, scaled to fit ``root`` where that is a little narrower.

    Parameters
    ----------
    root, layout : str
        CSS selectors: the app's outermost box (the container measured) and its child
        that is drawn at ``natural`` px and scaled.
    naturals : sequence of (int, sequence of float)
        Natural widths in px, widest first, each with its scales (largest first): a
        root from ``natural * scale`` up to the next larger step gets that scale.
    """
    rules = [f"{root} {{ container-type: inline-size; overflow: hidden; }}"]
    for natural, scales in naturals:
        upper = natural
        for scale in scales:
            lower = int(natural * scale) + 1
            rules.append(f"@container (min-width: {lower}px) and (max-width: {upper - 0.02}px) {{\n"
                         f"  {root} > {layout} {{ width: {natural}px; flex: 0 0 auto; "
                         f"transform: scale({scale}); transform-origin: 0 0; }}\n}}")
            upper = lower
    return "\n".join(rules)


class ScaledHeight(anywidget.AnyWidget):
    """Invisible; below a layout drawn smaller (:func:`scaled_css`), no blank of its unscaled height.

    A CSS transform leaves an element's layout box as it was: a layout scaled to 80 % would
    leave 20 % of its height blank below it.  In the page this sets the layout's bottom
    margin to minus that part, again whenever its height or its scale changes (a
    ``ResizeObserver`` on it and on the root, whose width picks the scale).

    Parameters
    ----------
    root, layout : str
        CSS selectors of the app's outermost box (an ancestor of this widget) and of its
        child that is scaled, as given to :func:`scaled_css`.
    """

    _esm = """
    export default {
      render({ model, el }) {
        el.style.display = "none";
        let layout = null;
        const resized = new ResizeObserver(() => fit());
        const fit = () => {
          if (layout === null) {
            const root = el.closest(model.get("root_selector"));
            layout = root && root.querySelector(":scope > " + model.get("layout_selector"));
            if (!layout) return;  // not in its box yet: the page still assembles it
            added.disconnect();
            resized.observe(layout);
            resized.observe(root);
          }
          const transform = getComputedStyle(layout).transform;
          const scale = transform && transform !== "none" ? new DOMMatrixReadOnly(transform).a : 1;
          const margin = scale < 1 ? `${(-(1 - scale) * layout.offsetHeight).toFixed(1)}px` : "";
          if (layout.style.marginBottom !== margin) layout.style.marginBottom = margin;
        };
        const added = new MutationObserver(() => fit());
        added.observe(document.body, { subtree: true, childList: true });
        fit();
        return () => { added.disconnect(); resized.disconnect(); };
      },
    };
    """
    root_selector = traitlets.Unicode("").tag(sync=True)
    layout_selector = traitlets.Unicode("").tag(sync=True)

    def __init__(self, root: str, layout: str) -> None:
        super().__init__(root_selector=root, layout_selector=layout, layout=W.Layout(display="none"))
