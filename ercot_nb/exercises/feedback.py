"""What :func:`~ercot_nb.exercises.check` returns (:class:`Feedback`) and how a checker says "wrong"."""
from __future__ import annotations

import html
from dataclasses import dataclass

RTOL = 1e-6  # relative tolerance of numeric answers
CLOSE = 0.05  # relative error below which a wrong number counts as "close"


RTOL = 1e-6  # relative tolerance of numeric answers
CLOSE = 0.05  # relative error below which a wrong number counts as "close"


@dataclass(frozen=True)
class Feedback:
    """Result of one :func:`check` call.

    Attributes
    ----------
    exercise : str
        Exercise name, e.g. ``"01_implement_f_sep"``.
    part : str
        Part of the exercise that was checked, e.g. ``"f_sep"``.
    passed : bool
        True when the answer is right.
    attempted : bool
        False when the answer is still the starter placeholder (``None``).
    message : str
        The feedback text (one or more lines).
    """

    exercise: str
    part: str
    passed: bool
    attempted: bool
    message: str

    @property
    def status(self) -> str:
        """``"correct"``, ``"not attempted yet"`` or ``"not yet right"``."""
        if self.passed:
            return "correct"
        return "not yet right" if self.attempted else "not attempted yet"

    def __str__(self) -> str:
        return f"[{self.status}] {self.exercise} / {self.part}\n{self.message}"

    def __repr__(self) -> str:
        return self.__str__()

    def _repr_html_(self) -> str:
        if self.passed:
            border, background, title = "#2e7d32", "#e8f5e9", "&#10004; Correct"
        elif self.attempted:
            border, background, title = "#b26a00", "#fff4e0", "Not yet right"
        else:
            border, background, title = "#b26a00", "#fff4e0", "Not attempted yet"
        body = "<br>".join(html.escape(line) for line in self.message.splitlines())
        return (
            f'<div style="border-left: 6px solid {border}; background: {background}; '
            f'color: #1b1b1b; padding: 8px 12px; margin: 4px 0; border-radius: 4px;">'
            f"<b>{title}</b> &middot; <code>{html.escape(self.exercise)}</code> / "
            f"{html.escape(self.part)}<br>{body}</div>"
        )


class NotAttempted(Exception):
    """The answer is still the starter placeholder."""


class Mistake(Exception):
    """A wrong answer; the message is the feedback.

    ``counts=False`` for problems of form (wrong type, missing context) that
    should not bring a fuller hint closer.
    """

    def __init__(self, message: str, counts: bool = True) -> None:
        super().__init__(message)
        self.counts = counts
