"""The ``ri`` view: the Rand index of the chosen partition against the ground truth, per step."""
from __future__ import annotations

from ._scores import Scores

__all__ = ["VIEW"]

VIEW = Scores("RI")
