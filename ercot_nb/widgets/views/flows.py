"""Flows view: the registry's cluster-flow view (a Sankey) around the current step, with an events checkbox.

What is drawn (the window of steps around the step shown, the lifecycle
events, computed once per step as a live run grows) is the registered
view's (:class:`ercot_nb.figures.views.Flows` with its options
``window`` and ``events``); this widget adds the checkbox of ``events``.
"""
from __future__ import annotations

import ipywidgets as W
import pandas as pd

from ...figures.flows import FLOW_WINDOW, flow_window
from ...result import ClusteringResult
from .registry import RegistryView

__all__ = ["FlowsView", "WINDOW"]

WINDOW = FLOW_WINDOW
"""Most steps (columns) the view shows: a 1,140 px Sankey of a longer run shows no flow."""

window = flow_window


class FlowsView(RegistryView):
    """Cluster flow of a run around the current step, its clusters and flows in focus.

    A front end of the registered view ``"flows"`` with ``window=WINDOW``:
    at most ``WINDOW`` steps are drawn (all of a shorter run), so the
    figure's cost is the same at any length of the run.  With "events"
    ticked (the default) every node carries its lifecycle event (birth,
    death, split, merge, grow, shrink; in capitals when the permutation test
    finds it significant, see :func:`ercot_nb.figures.sankey_figure`).

    Parameters
    ----------
    result : ClusteringResult, optional
    step : int, default=0
    width, height : int
        Figure size in pixels.
    """

    what = "cluster-flow view"

    def __init__(
        self,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        width: int = 1140,
        height: int = 440,
    ) -> None:
        self.show_events = W.Checkbox(value=True, description="events (hover a node)", indent=False,
                                      tooltip="mark births, deaths, splits, merges, growth and shrinkage")
        super().__init__("flows", result, step=step, options={"window": WINDOW, "events": True},
                         width=width, height=height, controls=[self.show_events])
        self.show_events.observe(lambda change: self.set_options(events=bool(change["new"])), names="value")

    def events(self, lo: int = 0, hi: int | None = None) -> pd.DataFrame:
        """Lifecycle events of steps ``lo..hi-1`` of the run shown (each against the step before);
        the registered view's ``events``."""
        return self.view.events(self.view_data(), lo, hi)

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder): the state shown is set to it."""
        self.state.show(self.state.dataset, result, step=step)
        self._state_changed()
