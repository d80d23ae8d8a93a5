"""An invisible widget that tells the kernel when a page has drawn it.

Voila runs an app notebook to its end, then serves the page; the page takes
every widget's state in one reply and only then opens the widgets' channels.
An update that the kernel sends between the two (a background fit's next
step) never reaches that page.  An app that starts work which updates its
widgets therefore waits until :class:`PageShown`, one of its children, is
drawn: by then the page has opened every channel, and every later update
reaches it.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import ipywidgets as W

__all__ = ["PageShown"]


class PageShown(anywidget.AnyWidget):
    """Invisible; calls its listeners once, when a page first draws it.

    Attributes
    ----------
    shown : bool
        Whether a page (Voila, JupyterLab) has drawn the widget.
    """

    _esm = """
    export default {
      render({ model, el }) {
        el.style.display = "none";
        model.send({ shown: true });
      },
    };
    """

    def __init__(self) -> None:
        super().__init__(layout=W.Layout(display="none"))
        self.shown = False
        self._listeners: list[Callable[[], None]] = []
        self.on_msg(self._on_message)

    def when_shown(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` once a page has drawn the widget (at once if one has)."""
        if self.shown:
            listener()
        else:
            self._listeners.append(listener)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if self.shown or not isinstance(content, dict) or content.get("shown") is not True:
            return
        self.shown = True
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()
