"""Benchmarks: speed of the kernels and the algorithm, and quality on Syn1-Syn8.

Run ``ercot-nb bench speed``, ``... bench apps`` (bird_flocks and the video
scenes: seconds per step and peak memory), ``... bench quality`` or
``... bench precision`` (float32 against float64 over seeds) (also
``python -m ercot_nb.bench ...``).  Every figure of one report is measured in
the same run, so compare ratios rather than absolute times across machines.
These are measurements, not tests: nothing here asserts a target.

==========================  ===================================================
module                      measures
==========================  ===================================================
:mod:`.speed`               seconds per step, numba vs NumPy twin, first fit
:mod:`.apps`                bird_flocks and the videos: s/step, mRI, memory
:mod:`.quality`             Syn1-Syn8 beside the oracle and the paper
:mod:`.precision`           mRI with precision float32 against float64
:mod:`.segments`            final_partition options on the videos
:mod:`.cli`                 the ``ercot-nb bench`` command
==========================  ===================================================
"""
from __future__ import annotations

from .apps import APP_CASES, applications_report
from .cli import main
from .precision import PRECISION_DATASETS, precision_runs, precision_summary
from .quality import DEFAULT_SETTINGS, format_quality, oracle_table, quality_runs, quality_summary
from .segments import format_segments, gaussian_ceiling, segment_runs, segment_summary
from .speed import seven_blobs, speed_report

__all__ = [
    "APP_CASES", "DEFAULT_SETTINGS", "PRECISION_DATASETS", "applications_report", "format_quality", "main",
    "oracle_table", "precision_runs", "precision_summary", "quality_runs", "quality_summary", "seven_blobs",
    "speed_report", "format_segments", "gaussian_ceiling", "segment_runs", "segment_summary",
]
