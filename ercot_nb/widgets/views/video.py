"""Video view: a frame and its segmentation side by side, updated in place."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ... import figures
from ...figures import FRAME
from ...data import TemporalDataset
from ...result import ClusteringResult
from .._state import AppState
from ._base import CachedStepView, Parts
from ._figure_widget import trace_values

__all__ = ["VideoView"]

_SLOTS = 3  # frame, segmentation, ground truth: fewer panels hide the rest (same trace count)


class VideoView(CachedStepView):
    """The frame of one step of a video, its segmentation and the ground truth.

    The panels are :func:`ercot_nb.figures.video_segmentation_figure`'s
    (both draw with one :class:`ercot_nb.figures.VideoLayer`): one image per
    panel, segmentations in the clusters' stable colours.  The figure is no
    wider than ``max_width``: panels shrink to fit a notebook's output area.
    The trace layout is fixed for a (dataset, result) pair, so changing the
    step only replaces each panel's image (a PNG data URI of a few kB per
    segmentation) in one message; each step's images are computed once and
    cached.  During a live run, ``refresh`` takes in the new steps.

    Parameters
    ----------
    dataset : TemporalDataset
        A video (see :attr:`ercot_nb.data.TemporalDataset.is_video`).
    result : ClusteringResult, optional
        The run to show; default a preview of the data (the frame and, with
        labels, the ground truth).
    step : int, default=0
    truth : bool, default=True
        Show the ground truth next to the segmentation when the data has
        labels (its segments matched to the clusters' colours).
    max_pixels : int or None, default=figures.VIDEO_MAX_PIXELS
        Most pixels per panel; larger frames are shown stride-subsampled.
    panel_width : int, default=320
        Width of one panel in pixels; the height follows the frame.
    max_width : int or None, default=figures.VIDEO_MAX_WIDTH
        Largest width of the figure in pixels (narrower panels to fit).
    cache_steps : int, default=64
        Steps whose images are kept.

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
        panel_width: int = 320,
        max_width: int | None = figures.VIDEO_MAX_WIDTH,
        cache_steps: int = 64,
    ) -> None:
        self.truth = truth
        self.max_width = max_width
        self.max_pixels = max_pixels
        self.panel_width = panel_width
        self.cache_steps = cache_steps
        # built first: a bad dataset raises before anything changes
        self._panels, self._panels_of = self._layer(dataset, result), (dataset, result)
        self._use_state(AppState.of(dataset, result, step=step))
        self._configure()
        self._reset()
        width, height = self._panels.size()
        parts = self._structure_parts()
        super().__init__(parts, width=width, height=height)
        self._structure_shown(parts)
        self._draw_step()

    # -- data ------------------------------------------------------------------------------
    def _layer(self, dataset: TemporalDataset, result: ClusteringResult | None) -> figures.VideoLayer:
        return figures.VideoLayer(dataset, result, truth=self.truth, max_pixels=self.max_pixels,
                                  panel_width=self.panel_width, max_width=self.max_width)

    def _configure(self) -> None:
        """The panels of the state's dataset and run (drawn from the state, kept to draw its steps)."""
        shown = (self.state.dataset, self.result)
        if any(a is not b for a, b in zip(shown, self._panels_of)):
            self._panels, self._panels_of = self._layer(*shown), shown
        panels = self._panels
        self._labels_in_use = panels.unused_label() if panels.result is not None else 0

    def _structure_parts(self) -> Parts:
        if not self._panels.n_steps:
            return Parts([], self._panels.layout("", slots=_SLOTS))
        return self._panels.parts(self.step, slots=_SLOTS)  # at the step shown: one message

    def load(self, dataset: TemporalDataset, result: ClusteringResult | None = None, *,
             step: int = 0) -> None:
        """Show another dataset or run, at ``step`` (the knee's partition): the state shown is set to them.

        Parameters
        ----------
        dataset : TemporalDataset
            A video.
        result : ClusteringResult, optional
            Default: a preview of the data.
        step : int, default=0
        """
        # built first: a bad dataset raises before the state changes
        self._panels, self._panels_of = self._layer(dataset, result), (dataset, result)
        self.state.show(dataset, result, step=step)
        self._state_changed()

    def _draw_content(self) -> None:
        self._configure()
        self._reset()
        self.width, self.height = self._panels.size()
        self._show_structure(self._structure_parts())
        self._draw_step()

    def _draw_growth(self) -> None:
        """Take in steps added to the result since the last draw (live runs)."""
        if self._panels.result is not None:
            in_use = self._panels.unused_label()
            if in_use != self._labels_in_use:  # new clusters can change the truth's free colours
                self._labels_in_use = in_use
                self._forget_values()
        self._draw_step()

    def _n_steps(self) -> int:
        return self._panels.n_steps

    def _compute(self, t: int, member: int | None) -> tuple[dict[str, list[Any]], str]:
        parts = self._panels.parts(t, member, slots=_SLOTS)
        # PNG data URIs with Pillow, pixel arrays without
        paths = ("source",) if parts.trace(FRAME).source is not None else ("z",)
        return trace_values(parts.traces, paths), parts.layout["title"]["text"]

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.video_segmentation_animation` starting at the step shown.

        The kernel-free fallback: every step with a slider and Play (the
        knees' segmentations; a member picked instead of a knee is not kept).
        """
        return figures.video_segmentation_animation(
            self.result, self.dataset, truth=self.truth, max_pixels=self.max_pixels,
            panel_width=self.panel_width, max_width=self.max_width, start=self.step,
        )
