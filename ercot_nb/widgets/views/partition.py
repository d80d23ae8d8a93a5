"""Partition view: the registry's partition views (2-D, PCA, 3-D) with the axes buttons and agreement opacity.

What is drawn is the registered views' (:class:`ercot_nb.figures.views.Partition`:
``"partition"`` with its ``projection`` option, ``"partition3d"``), step by step
through :class:`~.registry.RegistryView`; this widget adds the axes buttons (which
view, which projection), the run's agreement as the ``agreement`` option, and the
dataset's ground truth while no run is shown.
"""
from __future__ import annotations

from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from ... import figures
from ...data import TemporalDataset
from ...result import ClusteringResult
from .._state import AppState
from .registry import RegistryView

__all__ = ["PartitionView"]

_AXES_2D = [("first two features", "features"), ("PCA projection", "pca")]
_AXES_3D = ("3-D (three features)", "3d")
_AXES = ("features", "pca", "3d")
_VIEW_OF_AXES = {"features": "partition", "pca": "partition", "3d": "partition3d"}


class PartitionView(RegistryView):
    """Scatter of one step's samples by aligned cluster, for any step or front member.

    A front end of the registered views ``"partition"`` (two features or a
    PCA projection: its ``projection`` option) and ``"partition3d"``: a step
    changes the traces' values only where the trace layout stays (one
    message with the arrays that changed), WebGL above
    :data:`ercot_nb.figures.WEBGL_THRESHOLD` points, each step's traces kept
    by the view's :class:`ercot_nb.figures.PartitionLayer`.

    With :meth:`show_agreement` (an :class:`ercot_nb.ensemble.Ensemble` of
    runs on the same data) each point's opacity is its agreement: the share
    of the runs that put it in its consensus cluster (faint: unsure), the
    view's ``agreement`` option.

    Data with three or more features opens in 3-D (a rotatable scatter of the
    first three features); the buttons above switch to the PCA projection or
    two features.

    Parameters
    ----------
    dataset : TemporalDataset
    result : ClusteringResult, optional
        The run to show; default the dataset's ground truth (or all samples
        in one cluster without labels).
    step : int, default=0
    axes : {"features", "pca", "3d"}, optional
        Default 3-D for three or more features.
    webgl : bool, optional
        Force WebGL on or off; default automatic.
    cache_steps : int, default=128
        Kept for compatibility (each step's traces are kept by the view's layer).
    width, height : int
        Figure size in pixels.
    """

    what = "partition view"
    draws_first = True  # the step's partition: what a user looks at first

    def __init__(
        self,
        dataset: TemporalDataset,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        axes: str | None = None,
        webgl: bool | None = None,
        cache_steps: int = 128,
        width: int = 600,
        height: int = 520,
    ) -> None:
        if axes is not None and axes not in _AXES:
            raise ValueError(f"axes must be one of {_AXES}, got {axes!r}")
        self.webgl = webgl
        self.cache_steps = cache_steps
        self._configuring = False
        self._truth: tuple[Any, Any] = (None, None)
        self._chosen_axes = axes  # the user's choice, kept for other data with >= 3 features
        # the label beside the buttons, not their description: one row (a description sits above)
        self.axes = W.ToggleButtons(options=list(_AXES_2D), tooltip="what the plot's axes show")
        state = AppState.of(dataset, result, step=step)
        view, options = self._configure(dataset, state)
        super().__init__(view, options=options, width=width, height=height, state=state,
                         controls=[W.Label("axes", layout=W.Layout(margin="0 6px 0 2px")), self.axes])
        self.axes.observe(self._on_axes, names="value")

    # -- what is drawn --------------------------------------------------------------------
    def state_run(self) -> Any:
        """The run shown (the state's), or the dataset's ground truth."""
        result = super().state_run()
        if result is not None:
            return result
        data = self.state.dataset
        if data is None:
            return None
        if self._truth[0] is not data:  # made once per dataset
            self._truth = (data, ClusteringResult.from_labels(data))
        return self._truth[1]

    @property
    def agreement(self) -> Any:
        """The ensemble whose agreement is drawn as opacity on the run shown, or None (the state's)."""
        return self.state.agreements.get(self.state_run_name())

    def _state_content(self) -> tuple[Any, ...]:
        # a new agreement changes the view's option (opacity): drawn afresh
        return (*super()._state_content(), self.agreement)

    def _configure(self, dataset: TemporalDataset | None, state: AppState | None = None) -> tuple[str, dict]:
        """The axes buttons for ``dataset``, and the registered view and options they choose."""
        n_features = 0 if dataset is None else dataset.n_features
        axes = self._chosen_axes if n_features >= 3 else None
        if axes is None:
            axes = "3d" if n_features >= 3 else "features"
        if n_features < 3:
            axes = "features"
        options = [_AXES_3D, *_AXES_2D] if n_features >= 3 else list(_AXES_2D[:1])
        self._configuring = True  # options/value changes here must not redraw
        try:
            if list(self.axes.options) != options:
                self.axes.options = options
            self.axes.value = axes
        finally:
            self._configuring = False
        self.axes.disabled = n_features < 3
        agreement = (state or self.state).agreements.get(
            (state or self.state).run if self.run_name is None else self.run_name)
        view_options = {"webgl": self.webgl, "agreement": agreement}
        if axes != "3d":
            view_options["projection"] = axes
        return _VIEW_OF_AXES[axes], view_options

    def _content_parts(self) -> figures.Parts:
        key, options = self._configure(self.state.dataset)
        self.view = figures.view(key)
        self.options = self.view.with_defaults(options)
        return super()._content_parts()

    def show_view(self, key: str) -> bool:
        """Choose the axes that draw the registered view ``key`` (``"partition"``: PCA for three or
        more features, the default 2-D view; ``"partition3d"``); whether it is drawn."""
        n_features = 0 if self.dataset is None else self.dataset.n_features
        axes = {"partition3d": "3d", "partition": "pca" if n_features >= 3 else "features"}.get(key)
        if axes is not None and n_features >= 3 and axes != self.axes.value:
            self.axes.value = axes
        return self.view.key == key

    def _on_axes(self, change: dict[str, Any]) -> None:
        if not self._configuring and self.dataset is not None and self.dataset.n_features >= 3 \
                and change["new"] != change["old"]:
            self._chosen_axes = change["new"]
            self.redraw()

    # -- changes --------------------------------------------------------------------------
    def load(self, dataset: TemporalDataset, result: ClusteringResult | None = None, *,
             step: int = 0) -> None:
        """Show another dataset or run, at ``step`` (the knee's partition): the state shown is set to them."""
        self.state.show(dataset, result, step=step)
        self._state_changed()

    def show_step(self, step: int, member: int | None = None) -> None:
        """Show ``step``: the knee's partition, or that of population ``member``."""
        with self.state.lock, self.state.hold_trait_notifications():
            self.state.set_step(step)
            self.state.select_member(member)
        self._state_changed()

    def show_member(self, member: int | None) -> None:
        """Show another member of the current step's population (None: the knee)."""
        self.state.select_member(member)
        self._state_changed()

    def show_agreement(self, ensemble: Any) -> None:
        """Draw each point with its agreement as opacity (None: plain markers again).

        Parameters
        ----------
        ensemble : Ensemble or None
            Runs of one estimator with several seeds on the data shown
            (:func:`ercot_nb.ensemble.ensemble`); steps whose ids differ
            from the data's are drawn plainly.  It is kept by the state with
            the run shown (``AppState.agreements``): other data drops it.
        """
        self.state.set_agreement(self.state_run_name(), ensemble)

    def precompute(self, steps: Any = None) -> None:
        """Compute the traces of ``steps`` (default: the first ``cache_steps``) ahead of scrubbing."""
        data = self.view_data()
        if data is None or not self.view.applies(data):
            return
        for t in range(min(data.n_steps, self.cache_steps)) if steps is None else steps:
            self.view.step_change(data, t, **self.options)

    def static(self) -> go.Figure:
        """The registered view's figure of what is shown (no kernel needed)."""
        return super().static()
