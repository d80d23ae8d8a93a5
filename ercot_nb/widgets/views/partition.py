"""Partition view: the samples of one step coloured by cluster, updated in place."""
from __future__ import annotations

from typing import Any

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ... import figures
from ...data import TemporalDataset
from ...result import ClusteringResult
from .._state import AppState
from ._base import CachedStepView, Parts
from ._figure_widget import trace_values

__all__ = ["PartitionView"]

# What differs between steps; everything else is fixed by the trace layout.
_STEP_PATHS = ("x", "y", "text", "customdata", "marker.color", "marker.size", "marker.opacity")
_STEP_PATHS_3D = ("x", "y", "z", "text", "customdata", "marker.color", "marker.size", "marker.opacity")

_AXES_2D = [("first two features", "features"), ("PCA projection", "pca")]
_AXES_3D = ("3-D (three features)", "3d")
_AXES = ("features", "pca", "3d")


class PartitionView(CachedStepView):
    """Scatter of one step's samples by aligned cluster, for any step or front member.

    The trace layout is fixed for a (dataset, result) pair — one trace per
    aligned label used at any step, then entered samples, left samples and
    centroids — so changing the step only replaces point arrays, in one
    ``batch_update`` message.  Each step's arrays are computed once and
    cached; above :data:`ercot_nb.figures.WEBGL_THRESHOLD` points the traces
    use WebGL.  The figure's data is
    ``figures.partition_parts(dataset, result, step, fixed=True, ...)``'s: both
    draw with one :class:`ercot_nb.figures.PartitionLayer`.

    With :meth:`show_agreement` (an :class:`ercot_nb.ensemble.Ensemble` of
    runs on the same data) each point's opacity is its agreement: the share
    of the runs that put it in its consensus cluster (faint: unsure).

    Data with three or more features opens in 3-D (a rotatable scatter of the
    first three features: a video's r, g, b, the 3-D synthetic sets); the
    buttons above switch to the PCA projection or two features.

    Parameters
    ----------
    dataset : TemporalDataset
    result : ClusteringResult, optional
        The run to show; default the dataset's ground truth (or all samples
        in one cluster without labels).
    step : int, default=0
    axes : {"features", "pca", "3d"}, optional
        Plot the first two features, a PCA projection or (three or more
        features) a 3-D scatter of the first three features; default 3-D
        for three or more features.
    webgl : bool, optional
        Force WebGL on or off; default automatic.
    cache_steps : int, default=128
        Steps whose arrays are kept.
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
        self.webgl = webgl
        self.cache_steps = cache_steps
        self._configuring = False
        # the label beside the buttons, not their description: one row (a description sits above)
        self.axes = W.ToggleButtons(options=list(_AXES_2D), tooltip="what the plot's axes show")
        self._chosen_axes = axes  # the user's choice, kept for other data with >= 3 features
        self._truth: tuple[TemporalDataset | None, ClusteringResult | None] = (None, None)
        self._drawn_agreement: Any = None  # the agreement the cached values were drawn with
        self._use_state(AppState.of(dataset, result, step=step))
        self._configure(axes)
        self._reset()
        parts = self._structure_parts()
        super().__init__(parts, [W.Label("axes", layout=W.Layout(margin="0 6px 0 2px")), self.axes],
                         width=width, height=height)
        self._structure_shown(parts)
        self._draw_step()
        self.axes.observe(self._on_axes, names="value")

    # -- data ------------------------------------------------------------------------------
    @property
    def result(self) -> ClusteringResult:
        """The run shown (the state's), or the dataset's ground truth."""
        result = self.state_run()
        if result is not None:
            return result
        data = self.state.dataset
        if self._truth[0] is not data:  # made once per dataset
            self._truth = (data, ClusteringResult.from_labels(data))
        return self._truth[1]

    @property
    def agreement(self) -> Any:
        """The ensemble whose agreement is drawn as opacity on the run shown, or None (the state's)."""
        return self.state.agreements.get(self.state_run_name())

    def _state_key(self) -> tuple[Any, ...]:
        agreement = self.agreement  # a new one changes values (opacity), not the trace layout
        return (*super()._state_key(), None if agreement is None else id(agreement))

    def _draw_step(self) -> None:
        if self.agreement is not self._drawn_agreement:
            self._drawn_agreement = self.agreement
            self._forget_values()
        super()._draw_step()

    def _configure(self, axes: str | None) -> None:
        dataset = self.state.dataset
        if axes is None:
            axes = "3d" if dataset.n_features >= 3 else "features"
        if axes not in _AXES:
            raise ValueError(f"axes must be one of {_AXES}, got {axes!r}")
        if dataset.n_features < 3:
            axes = "features"
        options = [_AXES_3D, *_AXES_2D] if dataset.n_features >= 3 else list(_AXES_2D[:1])
        self._configuring = True  # options/value changes here must not reload
        try:
            if list(self.axes.options) != options:
                self.axes.options = options
            self.axes.value = axes
        finally:
            self._configuring = False
        self.axes.disabled = dataset.n_features < 3
        self.layer = figures.PartitionLayer(  # drawn from the state, kept to draw its steps
            dataset, self.result, projection=self._projection(axes), webgl=self.webgl,
        )
        self._step_paths = _STEP_PATHS_3D if self.layer.is_3d else _STEP_PATHS
        self._webgl = self.layer.use_webgl(self.layer.max_points)
        self._slots = self.layer.labels_over_time()

    @staticmethod
    def _projection(axes: str) -> str | None:
        return {"pca": "pca", "3d": "3d"}.get(axes)

    def _structure_parts(self) -> Parts:
        if not len(self.result):
            return Parts([], self.layer.layout(""))
        # at the step shown: one message draws it (a structure at step 0 and then the step's values
        # were two, and a page could apply them out of order)
        return self.layer.parts(self.step, labels=self._slots, webgl=self._webgl)

    def load(self, dataset: TemporalDataset, result: ClusteringResult | None = None, *,
             step: int = 0) -> None:
        """Show another dataset or run, at ``step`` (the knee's partition): the state shown is set to them.

        Parameters
        ----------
        dataset : TemporalDataset
        result : ClusteringResult, optional
            Default: the dataset's ground truth.
        step : int, default=0
        """
        self.state.show(dataset, result, step=step)
        self._state_changed()

    def _draw_content(self) -> None:
        dataset = self.state.dataset
        self._configure(self._chosen_axes if dataset.n_features >= 3 else None)
        self._reset()
        self._rebuild()
        self._draw_step()

    def _draw_growth(self) -> None:
        """Take in steps added to the result since the last draw (live runs)."""
        slots = self.layer.labels_over_time()
        if slots != self._slots:
            self._slots = slots
            self._forget_values()
            self._rebuild()
        self._draw_step()

    def _rebuild(self) -> None:
        self._show_structure(self._structure_parts())

    def _n_steps(self) -> int:
        return len(self.result)

    def _compute(self, t: int, member: int | None) -> tuple[dict[str, list[Any]], str]:
        if member is not None:
            partition = self.layer.partition(t, member)
            missing = set(np.unique(partition.aligned_labels).tolist()) - set(self._slots)
            if missing:  # a member with clusters the knees never had: more traces
                self._slots = sorted(set(self._slots) | missing)
                self._forget_values()
                self._rebuild()
        agreement = self.agreement if member is None and self._agrees(t) else None
        traces, layout = self.layer.parts(t, member, labels=self._slots, webgl=self._webgl, agreement=agreement)
        return trace_values(traces, self._step_paths), layout["title"]["text"]

    def _agrees(self, t: int) -> bool:
        """Whether the agreement shown covers step ``t``'s samples."""
        ensemble = self.agreement
        return (ensemble is not None and t < len(ensemble)
                and np.array_equal(ensemble.ids[t], self.dataset[t].ids))

    def show_agreement(self, ensemble: Any) -> None:
        """Draw each point with its agreement as opacity (None: plain markers again).

        Parameters
        ----------
        ensemble : Ensemble or None
            Runs of one estimator with several seeds on the data shown
            (:func:`ercot_nb.ensemble.ensemble`); steps whose ids differ
            from the data's (other data) are drawn plainly.  It is drawn
            on the run shown (the state keeps it with that run, see
            ``AppState.agreements``): other data drops it.
        """
        self.state.set_agreement(self.state_run_name(), ensemble)

    def _on_axes(self, change: dict[str, Any]) -> None:
        if not self._configuring and self.dataset.n_features >= 3 and change["new"] != change["old"]:
            self._chosen_axes = change["new"]
            self.redraw()

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.partition_figure` of what is shown."""
        fig = figures.partition_figure(
            self.dataset, self.result, self.step, member=self.member, webgl=self.webgl,
            projection=self._projection(self.axes.value),
            agreement=self.agreement if self.member is None and self._agrees(self.step) else None,
        )
        return self._static(fig)
