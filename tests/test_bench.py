"""The applications benchmark runs a case in a fresh process and reports time, score and memory."""
from __future__ import annotations

import numpy as np

from ercot_nb import bench


def test_applications_report_measures_one_case():
    report = bench.applications_report([("bird_flocks", {"n_steps": 3})], algorithms=("ERCOT",))
    assert report.shape[0] == 1
    row = report.iloc[0]
    assert row.dataset == "bird_flocks n_steps=3"
    assert row.pixels_or_samples == 100 and row.steps == 3
    assert row.s_per_step > 0 and row.s_per_step_after_first > 0
    assert 0.5 < row.mRI <= 1.0  # three steps of well-separated flocks
    assert 2 <= row.clusters <= 8
    assert row.traced_peak_MiB > 0 and np.isfinite(row.rss_growth_MiB)
