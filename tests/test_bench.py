"""The applications benchmark runs a case in a fresh process and reports time, score and memory."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import bench


@pytest.mark.slow
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


@pytest.mark.slow
def test_applications_report_states_the_thread_scaling():
    """bench apps: the speed-up at all of numba's threads, the parallel share of one thread's
    time and the speed-up it lets Amdahl's law expect at 16 threads (ERCOT rows)."""
    import numba

    report = bench.applications_report([("bird_flocks", {"n_steps": 3})], algorithms=("ERCOT",))
    row = report.iloc[0]
    speed_up = f"speed-up at {numba.config.NUMBA_NUM_THREADS} threads"
    assert row[speed_up] > 0
    assert 0.0 < row["parallel share (1 thread)"] < 1.0
    assert 1.0 <= row["expected at 16 threads"] <= 16.0


@pytest.mark.slow
def test_applications_report_compares_each_precision_in_its_own_precision():
    # "ERCOT float32" is ERCOT with precision="float32"; its KMeans ratio is
    # measured with float32 samples on both sides, on its own row.
    report = bench.applications_report([("bird_flocks", {"n_steps": 3})],
                                       algorithms=("ERCOT", "staticEC", "ERCOT float32"))
    assert list(report.algorithm) == ["ERCOT", "staticEC", "ERCOT float32"]
    double, static, single = (report.iloc[i] for i in range(3))
    assert abs(single.mRI - double.mRI) < 0.05
    if "ERCOT/kmeans" in report:  # scikit-learn installed
        assert double["ERCOT/kmeans"] > 0 and single["ERCOT/kmeans"] > 0
        assert np.isnan(static["ERCOT/kmeans"])  # not an ERCOT row
