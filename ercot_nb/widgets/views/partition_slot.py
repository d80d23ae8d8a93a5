"""The place of one step's partition in an app: a video view for a video, a scatter otherwise."""
from __future__ import annotations

from typing import Any

import ipywidgets as W

from ... import figures
from ...data import TemporalDataset
from .._messages import explain
from .._state import AppState, Status
from .partition import PartitionView
from .video import VideoView

__all__ = ["PartitionSlot"]


class PartitionSlot(W.HBox):
    """Shows the state's partition: a :class:`VideoView` for a video, else a :class:`PartitionView`.

    Each view is made the first time data of its kind is shown and then
    stays in the page, hidden while the other kind of data is shown: a
    plotly figure taken out of the page loses its front-end view, and one
    put back is drawn from stale state.  Both follow the state, but each
    draws only data of its kind; the slot refuses (through
    :attr:`AppState.checks`) a video the video view cannot show, before
    anything changes.

    Parameters
    ----------
    state : AppState
    run : str, optional
        Always show this run (see :meth:`FigureView.follow`).
    partition_options, video_options : mapping, optional
        Keyword arguments of the views (sizes, ``truth``...).
    """

    def __init__(self, state: AppState, *, run: str | None = None,
                 partition_options: dict[str, Any] | None = None,
                 video_options: dict[str, Any] | None = None) -> None:
        super().__init__(layout=W.Layout(flex_flow="row wrap"))
        self.state, self.run_name = state, run
        self.partition_options = dict(partition_options or {})
        self.video_options = dict(video_options or {})
        self.partition: PartitionView | None = None
        self.video: VideoView | None = None
        state.checks.append(self._check)
        state.observe(self._on_dataset, names="dataset")
        self._on_dataset()

    @property
    def view(self) -> PartitionView | VideoView | None:
        """The view in use."""
        data = self.state.dataset
        if data is None:
            return None
        return self.video if figures.is_video(data) else self.partition

    def _check(self, dataset: TemporalDataset, name: str) -> Status | None:
        if not figures.is_video(dataset):
            return None
        options = {key: value for key, value in self.video_options.items()
                   if key in ("truth", "max_pixels", "panel_width", "max_width")}
        try:
            figures.VideoLayer(dataset, None, **options)
        except Exception as exc:  # noqa: BLE001 - the status says why, the data shown is kept
            return explain(exc, f"showing {name or 'the data'} (the data shown is still "
                                f"{self.state.dataset_name or 'the previous one'})")
        return None

    def _on_dataset(self, change: dict[str, Any] | None = None) -> None:
        state = self.state
        data = state.dataset
        if data is None:
            return
        video = figures.is_video(data)
        view = self.video if video else self.partition
        if view is None:
            result = state.runs.get(self.run_name if self.run_name is not None else state.run)
            if video:
                view = self.video = VideoView(data, result, step=state.step, **self.video_options)
            else:
                view = self.partition = PartitionView(data, result, step=state.step,
                                                      **self.partition_options)
            view.follow(state, run=self.run_name, drawn=True,
                        when=figures.is_video if video else _not_video)
        # the first view keeps its place: a view moved or taken off the page is drawn anew,
        # and plotly's front end keeps the old one listening (the next trace swap fails)
        if view not in self.children:
            self.children = [*self.children, view]
        children = list(self.children)
        for child in children:
            child.layout.display = None if child is view else "none"


def _not_video(dataset: TemporalDataset) -> bool:
    return not figures.is_video(dataset)
