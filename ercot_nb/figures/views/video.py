"""The ``video`` view: a video frame, its segmentation and the ground truth."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..layers import Parts
from ..protocol import View, ViewData
from ..video import VIDEO_MAX_PIXELS, VIDEO_MAX_WIDTH, VIDEO_PANEL_WIDTH, VideoLayer, video_segmentation_animation

__all__ = ["Video", "VIEW"]


class Video(View):
    """A video frame, its segmentation (of the knee or a member) and the ground truth."""

    key = "video"
    title = "Video frame and segmentation"
    hint = "Grey pixels are absent at this step. The truth's colours are matched to the shown clusters."
    member = True
    wide = True
    options = {"truth": True, "max_pixels": VIDEO_MAX_PIXELS, "panel_width": VIDEO_PANEL_WIDTH,
               "max_width": VIDEO_MAX_WIDTH, "slots": 0, "preview": False}
    """``slots``: panels padded with hidden ones up to that many (a live front end keeps one trace
    layout whether the truth is shown or not); ``preview``: the data alone, the frame and the ground
    truth, not the run (what a front end shows before a run)."""

    def applies(self, data: ViewData) -> bool:
        return data.is_video

    def layer(self, data: ViewData, **options: Any) -> VideoLayer:
        o = self.with_defaults(options)
        result = None if o["preview"] else data.result
        return data.memo((self.key, o["truth"], o["max_pixels"], o["panel_width"], o["max_width"], o["preview"]),
                         lambda: VideoLayer(data.dataset, result, truth=o["truth"], max_pixels=o["max_pixels"],
                                            panel_width=o["panel_width"], max_width=o["max_width"]))

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        return self.layer(data, **options).parts(t, member, slots=self.with_defaults(options)["slots"])

    def notes(self, data: ViewData, **options: Any) -> list[str]:
        layer, o = self.layer(data, **options), self.with_defaults(options)
        if layer.stride == 1:
            return []
        return [f"Video images are shown at 1/{layer.stride} resolution (at most {o['max_pixels']:,} pixels each)."]

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        o = self.with_defaults(options)
        return [video_segmentation_animation(data.result, data.dataset, truth=o["truth"], max_pixels=o["max_pixels"],
                                             panel_width=o["panel_width"], max_width=o["max_width"])]


VIEW = Video()
