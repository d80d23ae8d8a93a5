"""Alpha view: the registry's smoothness-weight view, with a checkbox for the per-pair weights.

What is drawn, and how a live run's time line grows by its new steps only,
is the registered view's (:class:`ercot_nb.figures.views.Alpha` over
:class:`ercot_nb.figures.AlphaLine`); this widget adds the checkbox of its
``show_pairs`` option.
"""
from __future__ import annotations

import ipywidgets as W

from ...result import ClusteringResult
from .registry import RegistryView

__all__ = ["AlphaView"]


class AlphaView(RegistryView):
    """alpha at every step with the current step marked; alpha_i on request.

    A front end of the registered view ``"alpha"``: the figure holds its
    parts, with the per-pair trace always present (hidden unless asked for).

    Parameters
    ----------
    result : ClusteringResult, optional
    step : int, default=0
    show_pairs : bool, default=False
        Show the per-cluster weights alpha_i (the checkbox ``pairs``).
    width, height : int
        Figure size in pixels.
    """

    what = "smoothness-weight view"

    def __init__(
        self,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        show_pairs: bool = False,
        width: int = 560,
        height: int = 340,
    ) -> None:
        self.pairs = W.Checkbox(value=show_pairs, description="weight per cluster pair", indent=False,
                                tooltip="alpha_i: weights of the matched cluster pairs that alpha aggregates")
        super().__init__("alpha", result, step=step, options={"show_pairs": bool(show_pairs)},
                         width=width, height=height, controls=[self.pairs])
        self.pairs.observe(lambda change: self.set_options(show_pairs=bool(change["new"])), names="value")

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder): the state shown is set to it."""
        self.state.show(self.state.dataset, result, step=step)
        self._state_changed()
