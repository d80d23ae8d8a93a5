"""Which widget shows each registered view: the apps iterate this, not a list of views.

Every view of :data:`ercot_nb.figures.VIEWS` is shown by a
:class:`~.registry.RegistryView`: the generic one, or a subclass with
controls of the view's options (:data:`TUNED`: what they draw, and how a
growing run is taken in, is the registered view's).  Several registered
views may share one widget (the partition place shows the 2-D, 3-D and
video views, the axes choosing).  A view's :attr:`~ercot_nb.figures.View.choice`
(the scores' ``metric``) is a control of its one widget.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import ipywidgets as W

from ... import figures
from ...figures import View
from .._state import AppState
from .alpha import AlphaView
from .pareto import ParetoView
from .partition_slot import PartitionSlot
from .registry import RegistryView
from .flows import FlowsView
from .scores import ScoresView

__all__ = ["FLOWS_WIDTH", "FrontEnd", "TUNED", "front_ends"]

FLOWS_WIDTH = 800
"""Width in pixels of the Explorer's cluster-flow view: it fits the views' column of a 1280 px
laptop (820 px beside the side panel; the view's own default, 1,140 px, was cut there)."""


@dataclass(frozen=True)
class FrontEnd:
    """The widget of one or more registered views in an app.

    Attributes
    ----------
    name : str
        The app's name for it (``Explorer(views=[...])``, ``explorer.view(name)``).
    make : callable
        ``make(state)``: the widget, drawing ``state``.
    wide : bool
        Takes a whole row of the page.
    """

    name: str
    make: Callable[[AppState], W.Widget]
    wide: bool = False


_PARTITION = FrontEnd("partition", PartitionSlot)

TUNED: dict[str, FrontEnd] = {
    "partition": _PARTITION,
    "partition3d": _PARTITION,
    "video": _PARTITION,
    "pareto": FrontEnd("pareto", lambda state: ParetoView().follow(state)),
    "alpha": FrontEnd("alpha", lambda state: AlphaView().follow(state)),
    "scores": FrontEnd("scores", lambda state: ScoresView(None).follow(state)),
    "flows": FrontEnd("flows", lambda state: FlowsView(width=FLOWS_WIDTH).follow(state), wide=True),
}
"""Registered view key -> its tuned widget."""


def _generic(view: View) -> FrontEnd:
    return FrontEnd(view.key, lambda state: RegistryView(view).follow(state), wide=view.wide)


def front_ends(views: Iterable[View] | None = None) -> list[FrontEnd]:
    """One front end per registered view, in the registry's order (a shared widget once).

    Parameters
    ----------
    views : iterable of View, optional
        Default :data:`ercot_nb.figures.VIEWS`, as it is now (a view added
        to it is included).
    """
    ends: dict[str, FrontEnd] = {}
    for view in figures.VIEWS if views is None else views:
        end = TUNED.get(view.key) or _generic(view)
        ends.setdefault(end.name, end)
    return list(ends.values())
