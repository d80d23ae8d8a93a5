"""Take a run away: the shown run as an animated GIF or an MP4, offered as a download link."""
from __future__ import annotations

import base64
import html
import tempfile
import threading
from pathlib import Path
from typing import Any

import ipywidgets as W

from ...figures.movie import PAIR
from .._messages import explain
from .._state import AppState

__all__ = ["MoviePanel"]

_FORMATS = {"GIF": ("gif", "image/gif"), "MP4": ("mp4", "video/mp4")}
_VIEWS = (("partition and front", PAIR), ("partition", "partition"), ("front", "pareto"),
          ("smoothness weight", "alpha"), ("number of clusters", "n_clusters"))


class MoviePanel(W.VBox):
    """Make a movie of the run shown (one frame per step) and offer it as a download link.

    The movie is drawn in a background thread (about a second a step); the
    status line says when it starts, when the link is ready, or what failed.

    Parameters
    ----------
    state : AppState
        The app's state: its shown run and dataset.

    Attributes
    ----------
    button : Button
        "Make the movie".
    link : HTML
        The download link once the movie is made (a ``data:`` URL, so that it
        works in Voila and in JupyterLab alike).
    """

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.format = W.ToggleButtons(options=list(_FORMATS), value="GIF", description="format",
                                      tooltip="GIF: any page or slide; MP4: smaller, for video players",
                                      style={"description_width": "60px", "button_width": "60px"})
        self.view = W.Dropdown(options=_VIEWS, value=PAIR, description="frames show",
                               tooltip="what each frame shows", style={"description_width": "80px"},
                               layout=W.Layout(width="300px"))
        self.button = W.Button(description="Make the movie", icon="film",
                               tooltip="draw the run shown, one frame per step, as a file to download")
        self.link = W.HTML()
        self._thread: threading.Thread | None = None
        self.button.on_click(lambda _: self.make())
        super().__init__([self.format, self.view, self.button, self.link, W.HTML(
            "<small>One frame per step, two steps a second; the file downloads from the link.</small>")])

    def make(self, *, wait: bool = False) -> threading.Thread | None:
        """Draw the shown run's movie (in a thread unless ``wait``); None when there is no run."""
        state = self.state
        with state.lock:
            result, dataset, name = state.result, state.dataset, state.run
        if result is None or not len(result) or state.running:
            state.say("warning", "Run an algorithm first (and let it end): the movie draws the run shown.",
                      action="movie")
            return None
        suffix, mime = _FORMATS[self.format.value]
        self.button.disabled = True
        self.link.value = ""
        state.say("info", f"Drawing {name} as {self.format.value}, {len(result)} frames…", action="movie")
        thread = threading.Thread(target=self._draw, args=(result, dataset, name, suffix, mime),
                                  daemon=True, name="ercot-nb movie")
        self._thread = thread
        thread.start()
        if wait:
            thread.join()
        return thread

    def _draw(self, result: Any, dataset: Any, name: str, suffix: str, mime: str) -> None:
        from ...figures.movie import write_movie

        try:
            with tempfile.TemporaryDirectory() as folder:
                path = write_movie(result, dataset, Path(folder) / f"movie.{suffix}", view=self.view.value)
                content = path.read_bytes()
            file_name = f"{name or 'run'}.{suffix}".replace(" ", "_").replace("#", "")
            self.link.value = (
                f"<a download='{html.escape(file_name, quote=True)}' "
                f"href='data:{mime};base64,{base64.b64encode(content).decode('ascii')}'>"
                f"⤓ {html.escape(file_name)}</a> ({len(content) / 1e6:.2f} MB)")
            self.state.say("info", f"The movie of {name} is ready: {file_name}, "
                                   f"{len(content) / 1e6:.2f} MB (the link under Make the movie).",
                           action="movie")
        except Exception as exc:  # noqa: BLE001 - shown in the status line
            self.state.status = explain(exc, "drawing the movie")
        finally:
            self.button.disabled = False
