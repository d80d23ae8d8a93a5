"""``bench speed`` measures a fresh process's first partition (``fit(preview=...)``)."""
from __future__ import annotations

import os

import pytest

from ercot_nb.bench.speed import fresh_install_first_partition


@pytest.mark.slow
def test_fresh_install_first_partition_with_a_filled_cache(tmp_path):
    # with this session's cache (filled by the tests before): no preview, the first step is numba's
    seen = fresh_install_first_partition(cache_dir=os.environ.get("NUMBA_CACHE_DIR") or str(tmp_path))
    assert 0 < seen["first_partition_s"] <= seen["fit_s"]
    assert seen["first_partition_cpu_s"] <= seen["cpu_s"]
    if "preview_s" not in seen:
        assert seen["first_partition_s"] == pytest.approx(seen["first_numba_step_s"], abs=1e-3)
