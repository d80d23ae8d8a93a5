"""A message line for widgets, and a guard that turns errors into messages.

ipywidgets sends exceptions raised in event handlers to the kernel log,
where a Voila user never sees them.  Every handler of this package runs
under :meth:`MessageArea.guard`, which shows a one-line explanation in the
widget instead.  The traceback of an unexpected error goes to the
``ercot_nb.widgets`` logger, never into the page (it names server paths);
when logging is not configured, that logger writes to the kernel's real
stderr: the terminal of the server (``ercot-nb app``, JupyterLab).
"""
from __future__ import annotations

import functools
import html
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import ipywidgets as W

__all__ = ["MessageArea", "EXPECTED_ERRORS"]

LOGGER = logging.getLogger("ercot_nb.widgets")

EXPECTED_ERRORS: tuple[type[BaseException], ...] = (ValueError, TypeError, KeyError, IndexError, OSError)
"""Errors caused by the user's input: shown without technical details."""

_STYLES = {
    "info": ("#0B5394", "#EAF2FB"),
    "success": ("#1E6B2E", "#EAF6EC"),
    "warning": ("#7A4B00", "#FFF5E0"),
    "error": ("#9B1C1C", "#FDECEC"),
}

_Handler = TypeVar("_Handler", bound=Callable[..., Any])


class MessageArea(W.HTML):
    """One status or error message, styled by level; empty when cleared.

    Attributes
    ----------
    level : str
        Level of the message shown: ``"info"``, ``"success"``,
        ``"warning"``, ``"error"`` or ``""`` when empty.
    text : str
        The plain text of the message shown.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.level = ""
        self.text = ""
        self.add_class("ercot-nb-message")

    def show(self, text: str, level: str = "info", details: str | None = None) -> None:
        """Show ``text`` (escaped) with the colours of ``level``.

        Parameters
        ----------
        text : str
            The message.
        level : {"info", "success", "warning", "error"}, default="info"
        details : str, optional
            Extra text (e.g. a traceback) in a collapsed block.
        """
        if level not in _STYLES:
            raise ValueError(f"level must be one of {sorted(_STYLES)}, got {level!r}")
        ink, background = _STYLES[level]
        extra = ""
        if details:
            extra = (
                "<details><summary>technical details</summary>"
                f"<pre style='white-space:pre-wrap;font-size:11px'>{html.escape(details)}</pre></details>"
            )
        self.level, self.text = level, text
        self.value = (
            f"<div role='{'alert' if level == 'error' else 'status'}' "
            f"style='color:{ink};background:{background};padding:4px 8px;border-radius:4px;"
            f"line-height:1.4'>{html.escape(text)}{extra}</div>"
        )

    def clear(self) -> None:
        """Remove the message."""
        self.level, self.text, self.value = "", "", ""

    def show_error(self, exc: BaseException, doing: str) -> None:
        """Explain ``exc`` raised while ``doing`` (e.g. "loading the CSV file").

        Parameters
        ----------
        exc : BaseException
        doing : str
            What the user asked for, in the continuous form.
        """
        message = " ".join(str(exc).split()) or type(exc).__name__
        if isinstance(exc, EXPECTED_ERRORS):
            self.show(f"Problem {doing}: {message}", "error")
        else:
            if not LOGGER.hasHandlers():  # ipykernel's sys.stderr would send it to the page
                LOGGER.addHandler(logging.StreamHandler(sys.__stderr__))
            LOGGER.error("unexpected error %s", doing, exc_info=exc)
            self.show(
                f"Unexpected error {doing} ({type(exc).__name__}: {message}). "
                "Your inputs are kept: try again, or change them. The full error is in the "
                "server's log (the terminal running the app); please report it if it persists.",
                "error",
            )

    @contextmanager
    def guard(self, doing: str) -> Iterator[None]:
        """Context manager: an exception inside is shown here instead of raised.

        Parameters
        ----------
        doing : str
            What is being done, for the message.
        """
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - shown to the user, logged
            self.show_error(exc, doing)

    def guarded(self, doing: str) -> Callable[[_Handler], _Handler]:
        """Decorator version of :meth:`guard` for event handlers."""

        def decorate(handler: _Handler) -> _Handler:
            @functools.wraps(handler)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                with self.guard(doing):
                    return handler(*args, **kwargs)
                return None

            return wrapper  # type: ignore[return-value]

        return decorate
