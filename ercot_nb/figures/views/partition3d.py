"""The ``partition3d`` view: the partition view in 3-D (the first three features)."""
from __future__ import annotations

from .partition import Partition

__all__ = ["VIEW"]

VIEW = Partition(3)
