"""Temporal data model: id-tracked samples observed over a sequence of time steps.

A :class:`TemporalDataset` is an ordered sequence of :class:`Snapshot` objects,
one per time step (samples may appear and disappear between steps).  The
package is split by topic: ``_snapshot`` (one step, shared ids),
``_validation`` (checks of raw input), ``_dataset`` (the dataset model),
``_io`` (long tables and CSV files in and out) and ``_scaling`` (feature
scaling).  Import the public names from here.
"""
from __future__ import annotations

from ._dataset import RANGE_RATIO_WARNING, TemporalDataset
from ._scaling import SCALING_WORDS, SCALINGS
from ._snapshot import Snapshot, common_ids
from ._validation import (ARITHMETIC_LIMIT, FLOAT32_LIMIT, FLOAT32_MIN_LEVELS, check_arithmetic_range,
                          check_float32_range)

__all__ = ["Snapshot", "TemporalDataset", "common_ids", "is_video", "check_arithmetic_range", "check_float32_range",
           "ARITHMETIC_LIMIT", "FLOAT32_LIMIT", "FLOAT32_MIN_LEVELS", "RANGE_RATIO_WARNING",
           "SCALINGS", "SCALING_WORDS"]


def is_video(dataset: object) -> bool:
    """Whether ``dataset`` is a video (see ``TemporalDataset.is_video``); False for non-datasets."""
    return isinstance(dataset, TemporalDataset) and dataset.is_video
