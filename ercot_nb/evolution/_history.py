"""What one step of an evolutionary clustering run hands to the next."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import Snapshot


@dataclass
class History:
    """What the next step needs from the previous one.

    Attributes
    ----------
    snapshot : Snapshot
        The previous step's data.
    population : ndarray
        Its final population (chromosomes).
    labels : ndarray
        Its chosen partition, aligned with ``snapshot.ids``.
    """

    snapshot: Snapshot
    population: np.ndarray
    labels: np.ndarray
