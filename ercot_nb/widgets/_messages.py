"""The status line of an app, and a guard that turns errors into status messages.

ipywidgets sends exceptions raised in event handlers to the kernel log,
where a Voila user never sees them.  Every handler of this package runs
under :meth:`MessageArea.guard`, which sets the app's one status line
(:attr:`AppState.status <ercot_nb.widgets._state.AppState>`) instead: one
line saying what happened and what to do, and for unexpected errors a
folded "details" block with the error type and message.  Tracebacks and
server paths never reach the page; they go to the ``ercot_nb.widgets``
logger, which (when logging is not configured) writes to the kernel's real
stderr: the terminal of the server (``ercot-nb app``, JupyterLab).
"""
from __future__ import annotations

import functools
import html
import logging
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import ipywidgets as W

from ._state import AppState, Status

__all__ = ["MessageArea", "EXPECTED_ERRORS", "explain", "waiting_status", "PREVIEW_NOTE", "preview_note"]

LOGGER = logging.getLogger("ercot_nb.widgets")

EXPECTED_ERRORS: tuple[type[BaseException], ...] = (ValueError, TypeError, KeyError, IndexError, OSError)
"""Errors caused by the user's input: shown without technical details."""

_STYLES = {
    "info": ("#0B5394", "#EAF2FB"),
    "success": ("#1E6B2E", "#EAF6EC"),
    "warning": ("#7A4B00", "#FFF5E0"),
    "error": ("#9B1C1C", "#FDECEC"),
}
# an absolute path (POSIX or Windows) inside a message: only its last part is shown. It starts
# the message or follows a space, quote, bracket or '=' (so dates like 1/2/2020 and formats like
# %d/%m/%Y are left alone)
_PATH = re.compile(r"(?:(?<=^)|(?<=[\s'\"(\[=]))(?:[A-Za-z]:)?(?:[\\/][^\s\\/'\"]+){2,}")

_Handler = TypeVar("_Handler", bound=Callable[..., Any])


def _without_paths(text: str) -> str:
    return _PATH.sub(lambda match: "…/" + re.split(r"[\\/]", match.group(0))[-1], text)


def explain(exc: BaseException, doing: str) -> Status:
    """The status line for ``exc`` raised while ``doing`` (e.g. "loading the CSV file").

    Errors of the user's input (:data:`EXPECTED_ERRORS`) give their message
    (which says what to change); other errors say that the entries are kept
    and carry the error type and message as details.  Server paths are cut
    to their last part; the traceback is logged, never shown.

    Parameters
    ----------
    exc : BaseException
    doing : str
        What the user asked for, in the continuous form.

    Returns
    -------
    Status
    """
    message = _without_paths(" ".join(str(exc).split()) or type(exc).__name__)
    if isinstance(exc, EXPECTED_ERRORS):
        LOGGER.info("input error %s: %s", doing, exc)
        return Status("error", f"Problem {doing}: {message}", "", doing)
    if not LOGGER.hasHandlers():  # ipykernel's sys.stderr would send it to the page
        LOGGER.addHandler(logging.StreamHandler(sys.__stderr__))
    LOGGER.error("unexpected error %s", doing, exc_info=exc)
    return Status(
        "error",
        f"Something went wrong {doing} ({type(exc).__name__}: {message}). Your entries are kept; "
        "the full report is in the server's log (the terminal running the app). Try again, or "
        "report it if it persists.",
        f"{type(exc).__name__}: {message}\nwhile {doing}",
        doing,
    )


PREVIEW_NOTE = "first step (preview while the fast kernels compile)…"


def preview_note(name: str, elapsed: float, estimate: float) -> str:
    """The status line while run ``name`` previews: :data:`PREVIEW_NOTE`, the seconds so far, the estimate.

    Parameters
    ----------
    name : str
        The run's name (``"ERCOT #1"``).
    elapsed : float
        Seconds since the run started.
    estimate : float
        Seconds the compilation takes by the warm-up's figures (``ercot_nb.warmup.FIRST_FIT_SECONDS``).
    """
    if elapsed <= estimate:
        return f"{name}: {PREVIEW_NOTE} {elapsed:.0f} s of about {estimate:.0f} s"
    return (f"{name}: {PREVIEW_NOTE} {elapsed:.0f} s (about {estimate:.0f} s on an idle machine; "
            "a busy one takes longer)")
"""What the status line says while a run shows its provisional first step."""


def waiting_status(name: str, place: int, workers: int) -> Status:
    """The status line of run ``name`` waiting, at ``place``, for one of the class server's ``workers`` fit workers.

    Parameters
    ----------
    name : str
        The run's name (``"ERCOT #1"``).
    place : int
        Its place in the fit pool's queue (1: next).
    workers : int
        The pool's workers, each of which fits one run at a time.
    """
    ahead = "it is next" if place == 1 else f"{place - 1} runs are ahead of it"
    busy = "fit worker is" if workers == 1 else f"{workers} fit workers are"
    return Status("info", f"{name} waits for a free fit worker: the class server's {busy} busy with "
                          f"other runs, and {ahead}. It starts by itself; Stop cancels it.", "", "run")


class MessageArea(W.HTML):
    """The status line: one message of an :class:`AppState`, styled by level.

    Several message areas may show one state; an app shows one of them.

    Parameters
    ----------
    state : AppState, optional
        The state whose :attr:`~AppState.status` is shown; default a new one.

    Attributes
    ----------
    state : AppState
    """

    def __init__(self, state: AppState | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state = state if state is not None else AppState()
        self.add_class("ercot-nb-message")
        self.state.observe(self._render, names="status")
        self._render()

    @property
    def level(self) -> str:
        """Level of the message shown (``""`` when empty)."""
        return self.state.status.level

    @property
    def text(self) -> str:
        """Plain text of the message shown."""
        return self.state.status.text

    def show(self, text: str, level: str = "info", details: str = "", action: str = "") -> None:
        """Show ``text`` with the colours of ``level`` (escaped when drawn).

        Parameters
        ----------
        text : str
            One line.
        level : {"info", "success", "warning", "error"}, default="info"
        details : str, optional
            Extra plain text in a folded block.
        action : str, optional
            The user action this answers.
        """
        if level not in _STYLES:
            raise ValueError(f"level must be one of {sorted(_STYLES)}, got {level!r}")
        self.state.say(level, text, details or "", action)

    def clear(self) -> None:
        """Remove the message."""
        self.state.status = Status()

    def show_error(self, exc: BaseException, doing: str) -> None:
        """Explain ``exc`` raised while ``doing`` (see :func:`explain`)."""
        self.state.status = explain(exc, doing)

    def _render(self, change: Any = None) -> None:
        status = self.state.status
        if not status.level:
            self.value = ""
            return
        ink, background = _STYLES[status.level]
        extra = ""
        if status.details:
            extra = (
                "<details><summary>details</summary>"
                f"<pre style='white-space:pre-wrap;font-size:11px'>{html.escape(status.details)}</pre>"
                "</details>"
            )
        self.value = (
            f"<div role='{'alert' if status.level == 'error' else 'status'}' "
            f"style='color:{ink};background:{background};padding:4px 8px;border-radius:4px;"
            f"line-height:1.4'>{html.escape(status.text)}{extra}</div>"
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
