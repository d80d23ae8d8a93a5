"""Video view: a frame, its segmentation and the ground truth side by side, and its animation."""
from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..data import TemporalDataset
from ..metrics import rand_index
from ..result import ClusteringResult, StepResult, align_labels
from .animation import animation_figure
from .images import (
    check_same_ids, display_stride, frame_rgb, frame_shape, image_data, label_rgb, pixel_positions,
)
from .layers import Parts
from .style import TEMPLATE, as_result, counted, escape, plain_times, step_index

__all__ = [
    "VIDEO_MAX_PIXELS", "VIDEO_MAX_WIDTH", "VIDEO_PANEL_WIDTH", "FRAME", "TRUTH", "VideoLayer", "video_parts",
    "video_segmentation_figure", "video_segmentation_animation",
]

VIDEO_MAX_PIXELS = 200_000
"""Default largest number of pixels per image panel of the video views.

Larger frames are shown stride-subsampled (every s-th row and column, with
the smallest s that fits); the axes keep the full frame's pixel coordinates.
"""

VIDEO_MAX_WIDTH = 880
"""Default largest width of a video figure in CSS pixels: panels shrink to fit.

Three 320-pixel panels (1,012 pixels) were cut off on the right of a
JupyterLab notebook with its side bar open.
"""

FRAME = "frame"
TRUTH = "ground truth (colours matched)"
_PANEL_WIDTH = 320  # default display width of one video panel, in CSS pixels
VIDEO_PANEL_WIDTH = _PANEL_WIDTH
"""Default display width of one video panel, in CSS pixels."""
_PANEL_GAP = 16  # CSS pixels between panels
_MARGIN = 20  # left + right margin of the figure


class VideoLayer:
    """Image panels of a video step: the frame, the segmentation and the ground truth.

    Without a result the panels are the frame and, when the data has
    labels, the ground truth alone.  The truth panel's labels are matched
    to the result's at the same step (Hungarian, maximum overlap), so a
    true segment takes the colour of the cluster that covers it best; true
    segments left unmatched get colours no cluster of the run uses.
    The static builders and the widget video view both draw with it.

    Parameters
    ----------
    dataset, result, truth, max_pixels, panel_width, max_width
        As in :func:`video_segmentation_figure`.
    """

    def __init__(
        self,
        dataset: TemporalDataset,
        result: Any,
        *,
        truth: bool = True,
        max_pixels: int | None = VIDEO_MAX_PIXELS,
        panel_width: int = _PANEL_WIDTH,
        max_width: int | None = VIDEO_MAX_WIDTH,
    ) -> None:
        self.height, self.width = frame_shape(dataset)
        for t in range(len(dataset)):  # every pixel id checked up front (cheap)
            pixel_positions(dataset, t, self.height * self.width)
        self.dataset = dataset
        self.preview = result is None
        if self.preview:
            self.result = ClusteringResult.from_labels(dataset) if dataset.has_labels else None
            self.show_truth = False
        else:
            self.result = as_result(result)
            if len(self.result) > len(dataset):
                raise ValueError(
                    f"the result has {len(self.result)} steps but the dataset only {len(dataset)}"
                )
            self.show_truth = bool(truth) and dataset.has_labels
        if isinstance(panel_width, bool) or not isinstance(panel_width, (int, np.integer)) or panel_width < 50:
            raise ValueError(f"panel_width must be an int >= 50 (pixels), got {panel_width!r}")
        if max_width is not None and (
            isinstance(max_width, bool) or not isinstance(max_width, (int, np.integer)) or max_width < 100
        ):
            raise ValueError(f"max_width must be None or an int >= 100 (pixels), got {max_width!r}")
        self.stride = display_stride(self.height, self.width, max_pixels)
        algorithm = escape(self.result.algorithm) if self.result is not None else ""
        self.names = [FRAME]
        if self.result is not None:
            self.names.append("ground truth" if self.preview else f"{algorithm} segmentation")
        if self.show_truth:
            self.names.append(TRUTH)
        n = len(self.names)
        fitting = (max_width - (n - 1) * _PANEL_GAP - _MARGIN) // n if max_width is not None else panel_width
        self.panel_width = max(50, min(int(panel_width), int(fitting)))
        self._unused: tuple[int, int] = (-1, 0)  # (steps seen, first label no step uses)

    @property
    def n_steps(self) -> int:
        """Steps that can be shown: the result's, or the dataset's without one."""
        return len(self.result) if self.result is not None else len(self.dataset)

    def size(self) -> tuple[int, int]:
        """Figure width and height in CSS pixels."""
        n = len(self.names)
        panel_height = round(self.panel_width * self.height / self.width)
        return n * self.panel_width + (n - 1) * _PANEL_GAP + _MARGIN, panel_height + 100

    def unused_label(self) -> int:
        """1 + the largest aligned label of any step (labels above are free)."""
        seen, value = self._unused
        if seen != len(self.result):
            value = 1 + max((int(s.aligned_labels.max()) for s in self.result if s.n_samples), default=-1)
            self._unused = (len(self.result), value)
        return value

    def partition(self, t: int, member: int | None) -> StepResult:
        """Step ``t`` of the result, or the partition of population ``member``."""
        if member is None:
            step = self.result[t]
            check_same_ids(step, self.dataset)
            return step
        return self.result.member_partition(self.dataset[t].X, t, member)

    def truth_labels(self, shown: StepResult) -> np.ndarray:
        """Step's true labels renamed to the shown partition's aligned labels (max overlap)."""
        free = max(self.unused_label(), 1 + int(shown.aligned_labels.max(initial=-1)))
        matched, _ = align_labels(shown.ids, shown.aligned_labels, shown.ids,
                                  self.dataset[shown.t].labels, free)
        return matched

    def images(self, t: int, member: int | None = None) -> list[np.ndarray]:
        """uint8 colour image of every panel of step ``t``, at full resolution."""
        n_pixels = self.height * self.width
        positions = pixel_positions(self.dataset, t, n_pixels)
        frame = np.full((n_pixels, 3), np.nan)
        frame[positions] = self.dataset[t].X[:, :3]
        images = [frame_rgb(frame)]
        if self.result is not None:
            shown = self.partition(t, member)
            panels = [shown.aligned_labels] + ([self.truth_labels(shown)] if self.show_truth else [])
            for labels in panels:
                image = np.full(n_pixels, -1, dtype=np.int64)
                image[positions] = labels
                images.append(label_rgb(image))
        return [image.reshape(self.height, self.width, 3) for image in images]

    def traces(self, t: int, member: int | None = None, slots: int = 0) -> list[go.Image]:
        """One ``go.Image`` per panel (named like ``names``), subsampled by ``stride``.

        ``slots`` pads the list with hidden one-pixel images up to that many
        traces, so that a widget keeps its trace count (see :meth:`layout`).
        """
        s = self.stride
        traces = [
            go.Image(
                **image_data(image[::s, ::s]),
                x0=0, y0=0, dx=s, dy=s,
                name=name,
                xaxis=f"x{index + 1 if index else ''}",
                yaxis=f"y{index + 1 if index else ''}",
                hovertemplate=f"row %{{y}}, col %{{x}}<extra>{name}</extra>",
            )
            for index, (name, image) in enumerate(zip(self.names, self.images(t, member)))
        ]
        blank = image_data(np.full((1, 1, 3), 255, dtype=np.uint8))
        traces += [
            go.Image(**blank, name="", visible=False, xaxis=f"x{index + 1}", yaxis=f"y{index + 1}")
            for index in range(len(traces), slots)
        ]
        return traces

    def title(self, t: int, member: int | None = None) -> str:
        """Dataset, algorithm, time, number of clusters and (with truth) the frame's RI.

        The position is named once, by its time (the slider shows the same).
        """
        snapshot = self.dataset[t]
        prefix = f"{escape(self.dataset.name)}: " if self.dataset.name else ""
        where = f"time {escape(snapshot.time)}"
        scale = f" · shown at 1/{self.stride} resolution" if self.stride > 1 else ""
        if self.result is None:
            return f"{prefix}frame at {where}{scale}"
        shown = self.partition(t, member)
        if self.preview:
            return f"{prefix}ground truth at {where} · {counted(shown.n_clusters, 'segment')}{scale}"
        who = escape(self.result.algorithm) + (f" member {member}" if member is not None else "")
        text = f"{prefix}{who} at {where} · {counted(shown.n_clusters, 'cluster')}"
        if self.dataset.has_labels:
            text += f" · RI {rand_index(snapshot.labels, shown.labels):.3f}"
        return text + scale

    def layout(self, title: str, slots: int = 0) -> dict[str, Any]:
        """Side-by-side axes with square pixels, image rows downwards, a title over each panel.

        ``slots`` adds hidden axes up to that many panels, for the padding
        traces of :meth:`traces`: a widget switching between two and three
        panels then updates its traces in place instead of replacing them
        (plotly.js misplaces the panels of image traces added to a plot).

        Pixels are square because the figure is sized to the frame (see
        :meth:`size`).  The ``scaleanchor`` plotly.js gives image axes by
        default is switched off: it shrinks the axis domain, and keeps the
        shrunk domain through later relayouts, which misplaced the panels
        of a widget switching between two and three panels.
        """
        width, height = self.size()
        n = len(self.names)
        plot_width = width - _MARGIN
        share, gap = self.panel_width / plot_width, _PANEL_GAP / plot_width
        layout: dict[str, Any] = dict(
            title=dict(text=title, font=dict(size=14), x=0.01, xanchor="left"),
            template=TEMPLATE,
            width=width,
            height=height,
            margin=dict(l=10, r=10, t=90, b=10),
            showlegend=False,
            annotations=[],
        )
        axis_style = dict(showgrid=False, zeroline=False, showticklabels=False, ticks="")
        for index, name in enumerate(self.names):
            suffix = str(index + 1) if index else ""
            left = index * (share + gap)
            layout[f"xaxis{suffix}"] = dict(
                domain=[left, min(left + share, 1.0)], anchor=f"y{suffix}",
                range=[-0.5, self.width - 0.5], **axis_style,
            )
            layout[f"yaxis{suffix}"] = dict(
                domain=[0.0, 1.0], anchor=f"x{suffix}", range=[self.height - 0.5, -0.5],
                scaleanchor=False, **axis_style,
            )
            layout["annotations"].append(dict(
                text=name, x=left + share / 2, y=1.0, xref="paper", yref="paper",
                xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=13),
            ))
        corner = [0.999, 1.0]  # a hidden subplot's background must not cover the panels
        for index in range(n, slots):
            layout[f"xaxis{index + 1}"] = dict(domain=corner, anchor=f"y{index + 1}", visible=False)
            layout[f"yaxis{index + 1}"] = dict(domain=corner, anchor=f"x{index + 1}", visible=False,
                                               scaleanchor=False)
        return layout

    def parts(self, t: int, member: int | None = None, *, slots: int = 0,
              title: str | None = None) -> Parts:
        """Parts of step ``t`` (or of population ``member``), padded to ``slots`` panels."""
        t = step_index(self.result if self.result is not None else self.dataset, t)
        return Parts(self.traces(t, member, slots=slots),
                     self.layout(title or self.title(t, member), slots=slots))


def video_parts(
    result: ClusteringResult | None,
    dataset: TemporalDataset,
    t: int = 0,
    *,
    truth: bool = True,
    member: int | None = None,
    max_pixels: int | None = VIDEO_MAX_PIXELS,
    panel_width: int = _PANEL_WIDTH,
    max_width: int | None = VIDEO_MAX_WIDTH,
    slots: int = 0,
    title: str | None = None,
) -> Parts:
    """Parts of :func:`video_segmentation_figure` (same parameters).

    ``slots`` pads the panels with hidden ones up to that many, the fixed
    trace layout of the widget video view (see :meth:`VideoLayer.layout`).
    """
    layer = VideoLayer(dataset, result, truth=truth, max_pixels=max_pixels,
                       panel_width=panel_width, max_width=max_width)
    return layer.parts(t, member, slots=slots, title=title)


def video_segmentation_figure(
    result: ClusteringResult | None,
    dataset: TemporalDataset,
    t: int = 0,
    truth: bool = True,
    *,
    member: int | None = None,
    max_pixels: int | None = VIDEO_MAX_PIXELS,
    panel_width: int = _PANEL_WIDTH,
    max_width: int | None = VIDEO_MAX_WIDTH,
    title: str | None = None,
) -> go.Figure:
    """A video frame and its segmentation side by side (and the ground truth).

    Parameters
    ----------
    result : ClusteringResult or None
        The run (a fitted estimator with ``result_`` is accepted too).
        None previews the data: the frame and, with labels, the ground truth.
    dataset : TemporalDataset
        The video the result was fitted on (see :func:`is_video`).
    t : int, default=0
        0-based step index (negative counts from the end).
    truth : bool, default=True
        Add the ground truth as a third panel when the dataset has labels.
        Its segments take the colour of the cluster that overlaps them most
        at this step (Hungarian matching); unmatched segments get colours
        no cluster of the run uses.
    member : int, optional
        Show this member of step ``t``'s final population instead of the
        knee (see :func:`member_partition`).
    max_pixels : int or None, default=VIDEO_MAX_PIXELS
        Most pixels per panel: a larger frame is shown stride-subsampled
        (every s-th row and column), which keeps pages and widget updates
        small.  None shows every pixel.
    panel_width : int, default=320
        Width of one panel in CSS pixels; the height follows the frame.
    max_width : int or None, default=VIDEO_MAX_WIDTH
        Largest width of the whole figure in CSS pixels: panels are made
        narrower to fit (a notebook's output area is not cut off).  None
        keeps ``panel_width``.
    title : str, optional
        Figure title; by default the dataset, algorithm, time, number
        of clusters and, with labels, the frame's Rand index.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``go.Image`` per panel (named ``"frame"``,
        ``"<algorithm> segmentation"``, ``"ground truth (colours matched)"``),
        each on its own axes with square pixels and the frame's pixel
        coordinates (row 0 at the top).  Segmentations are coloured with
        :func:`label_color` of the aligned labels, so a cluster keeps its
        colour across steps.  Pixels absent at the step are light grey.
        Images are lossless PNG data URIs (``source``) when Pillow is
        installed, otherwise ``z`` arrays.
    """
    return video_parts(result, dataset, t, truth=truth, member=member, max_pixels=max_pixels,
                       panel_width=panel_width, max_width=max_width, title=title).figure()


def video_segmentation_animation(
    result: ClusteringResult | None,
    dataset: TemporalDataset,
    *,
    truth: bool = True,
    max_pixels: int | None = VIDEO_MAX_PIXELS,
    panel_width: int = _PANEL_WIDTH,
    max_width: int | None = VIDEO_MAX_WIDTH,
    start: int = 0,
    frame_duration: int = 800,
    title: str | None = None,
) -> go.Figure:
    """The video view of every step as a Plotly animation (slider + play).

    Runs in plotly.js alone, so exported HTML and nbviewer scrub through
    time without a kernel.  The page holds every step's images: with
    ``max_pixels`` each panel has at most that many pixels, and PNG images
    (with Pillow) stay small — flat segmentation panels take a few kB, a
    frame about as much as its PNG file.

    Parameters
    ----------
    result, dataset, truth, max_pixels, panel_width, max_width
        As in :func:`video_segmentation_figure`.
    start : int, default=0
        Step shown before the animation is played.
    frame_duration : int, default=800
        Milliseconds per step when playing.
    title : str, optional
        Fixed title; by default every frame names its own time.

    Returns
    -------
    plotly.graph_objects.Figure
        One frame per step of the result (of the dataset for a preview),
        named by the step index, each with the same image traces.
    """
    panels = VideoLayer(dataset, result, truth=truth, max_pixels=max_pixels,
                        panel_width=panel_width, max_width=max_width)
    n_steps = panels.n_steps
    if not n_steps:
        raise ValueError("the result has no steps to show")
    start = step_index(panels.result if panels.result is not None else dataset, start)
    # image traces are not animatable in plotly.js: every frame needs a redraw
    fig = animation_figure(lambda t: panels.parts(t, title=title), n_steps,
                           plain_times(dataset.times[:n_steps]), start=start,
                           frame_duration=frame_duration, webgl=True)
    fig.layout.height += 20  # the controls' bottom margin grew by 110, the height by 90
    return fig
