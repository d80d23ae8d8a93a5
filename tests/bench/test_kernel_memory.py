"""``ercot-nb bench kernel``: one app kernel's memory and CPU, stage by stage."""
from __future__ import annotations

import pytest

from ercot_nb.bench.kernel_memory import STAGES, Stage, format_stages, kernel_stages
from ercot_nb.bench.cli import main


def test_the_table_has_a_row_per_stage():
    table = format_stages([Stage("import", 142.4, 110.2, 2.51, 1717, False),
                           Stage("first run", 278.0, 167.6, 6.06, 2338, True)])
    assert table.splitlines()[2:] == ["| import | 142 | 110 | 2.5 | 1717 | no |",
                                      "| first run | 278 | 168 | 6.1 | 2338 | yes |"]


@pytest.mark.slow
def test_a_kernel_is_measured_after_each_stage(capsys):
    stages = kernel_stages("syn3")
    assert [stage.name for stage in stages] == [name for name, _ in STAGES]
    for stage in stages:
        assert 0 < stage.uss_mib <= stage.rss_mib < 2000, stage
    cpu = [stage.cpu_s for stage in stages]
    assert cpu == sorted(cpu) and stages[-1].modules > stages[0].modules
    assert main(["kernel", "--dataset", "syn3"]) == 0
    assert "| first run |" in capsys.readouterr().out


@pytest.mark.slow
def test_a_kernel_of_a_server_with_a_fit_pool_runs_without_numba(capsys):
    workers = []
    stages = kernel_stages("syn3", fit_workers=1, workers=workers)
    assert [stage.name for stage in stages] == [name for name, _ in STAGES]
    assert [stage.numba for stage in stages] == [False] * len(STAGES)  # the fits ran in the pool
    assert [worker.name for worker in workers] == ["fit pool worker 1"] and 0 < workers[0].uss_mib
    assert main(["kernel", "--dataset", "syn3", "--fit-workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "| first run |" in out and "The fit pool's 1 workers" in out and "| fit pool worker 1 |" in out
