"""Video view: the registry's video view (a frame, its segmentation and the ground truth), sized to its panels.

What is drawn is the registered view's (:class:`ercot_nb.figures.views.Video`),
step by step through :class:`~.registry.RegistryView`; this widget sizes the
figure to the panels, keeps three panels (hidden ones pad a preview: plotly.js
misplaces image panels added later) and, while no run is shown, previews the
frame and the ground truth.
"""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ... import figures
from ...figures.video import VIDEO_PANEL_WIDTH
from ...data import TemporalDataset
from ...result import ClusteringResult
from .._state import AppState
from .registry import RegistryView

__all__ = ["VideoView"]

_SLOTS = 3  # frame, segmentation, ground truth: fewer panels hide the rest (same trace count)


class VideoView(RegistryView):
    """The frame of one step of a video, its segmentation and the ground truth.

    A front end of the registered view ``"video"``: one image per panel,
    segmentations in the clusters' stable colours; a step replaces each
    panel's image (a PNG data URI of a few kB per segmentation) in one
    message.  The figure is no wider than ``max_width``.

    Parameters
    ----------
    dataset : TemporalDataset
        A video (see :attr:`ercot_nb.data.TemporalDataset.is_video`).
    result : ClusteringResult, optional
        The run to show; default a preview of the data (the frame and the
        ground truth: the view's ``preview`` option).
    step : int, default=0
    truth : bool, default=True
        Show the ground truth next to the segmentation when the data has labels.
    max_pixels : int or None, default=figures.VIDEO_MAX_PIXELS
        Most pixels per panel; larger frames are shown stride-subsampled.
    panel_width : int, default=320
        Width of one panel in pixels; the height follows the frame.
    max_width : int or None, default=figures.VIDEO_MAX_WIDTH
        Largest width of the figure in pixels (narrower panels to fit).
    cache_steps : int, default=64
        Kept for compatibility.

    Raises
    ------
    ValueError
        If ``dataset`` is not a video or ``result`` was not fitted on it.
    """

    what = "video view"
    draws_first = True  # the step's partition: what a user looks at first

    def __init__(
        self,
        dataset: TemporalDataset,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        truth: bool = True,
        max_pixels: int | None = figures.VIDEO_MAX_PIXELS,
        panel_width: int = VIDEO_PANEL_WIDTH,
        max_width: int | None = figures.VIDEO_MAX_WIDTH,
        cache_steps: int = 64,
    ) -> None:
        self.truth, self.max_pixels = truth, max_pixels
        self.panel_width, self.max_width = panel_width, max_width
        self.cache_steps = cache_steps
        self._truth: tuple[Any, Any] = (None, None)
        # built first: a bad dataset raises before anything changes
        width, height = figures.VideoLayer(dataset, result, truth=truth, max_pixels=max_pixels,
                                           panel_width=panel_width, max_width=max_width).size()
        options = {"truth": truth, "max_pixels": max_pixels, "panel_width": panel_width,
                   "max_width": max_width, "slots": _SLOTS}
        super().__init__("video", options=options, width=width, height=height,
                         state=AppState.of(dataset, result, step=step))

    def state_run(self) -> Any:
        """The run shown (the state's), or the dataset's ground truth as a preview."""
        result = super().state_run()
        if result is not None:
            return result
        data = self.state.dataset
        if data is None or not figures.is_video(data):
            return None
        if self._truth[0] is not data:  # made once per dataset
            self._truth = (data, ClusteringResult.from_labels(data))
        return self._truth[1]

    def _content_parts(self) -> figures.Parts:
        # before a run: the registered view's preview of the data (the frame and the ground truth)
        preview = super(RegistryView, self).state_run() is None
        self.options = self.view.with_defaults({**self.options, "preview": preview})
        data = self.view_data()
        if data is not None and self.view.applies(data):
            self.width, self.height = self.view.layer(data, **self.options).size()
        return super()._content_parts()

    def load(self, dataset: TemporalDataset, result: ClusteringResult | None = None, *,
             step: int = 0) -> None:
        """Show another dataset or run, at ``step``: the state shown is set to them.

        Raises
        ------
        ValueError
            If ``dataset`` is not a video (before anything changes).
        """
        figures.VideoLayer(dataset, result, truth=self.truth, max_pixels=self.max_pixels,
                           panel_width=self.panel_width, max_width=self.max_width)
        self.state.show(dataset, result, step=step)
        self._state_changed()

    def show_step(self, step: int, member: int | None = None) -> None:
        """Show ``step``: the knee's segmentation, or that of population ``member``."""
        with self.state.lock, self.state.hold_trait_notifications():
            self.state.set_step(step)
            self.state.select_member(member)
        self._state_changed()

    def precompute(self, steps: Any = None) -> None:
        """Compute the images of ``steps`` (default: the first ``cache_steps``) ahead of scrubbing."""
        data = self.view_data()
        if data is None or not self.view.applies(data):
            return
        for t in range(min(data.n_steps, self.cache_steps)) if steps is None else steps:
            self.view.parts(data, t, **self.options)

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.video_segmentation_animation` starting at the step shown.

        The kernel-free fallback: every step with a slider and Play (the
        knees' segmentations; a member picked instead of a knee is not kept).
        """
        data = self.view_data()
        if data is None:
            return super().static()
        return figures.video_segmentation_animation(
            None if self.options["preview"] else data.result, self.dataset, truth=self.options["truth"], max_pixels=self.max_pixels,
            panel_width=self.panel_width, max_width=self.max_width, start=self.step)
