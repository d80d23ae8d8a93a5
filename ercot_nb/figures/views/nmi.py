"""The ``nmi`` view: the normalised mutual information against the ground truth, per step."""
from __future__ import annotations

from ._scores import Scores

__all__ = ["VIEW"]

VIEW = Scores("NMI")
