"""``bench precision``: float32 against float64 over seeds, with the noise test of the performance issue."""
from __future__ import annotations

import pandas as pd
import pytest

from ercot_nb.bench import main, precision_runs, precision_summary


@pytest.mark.slow
def test_precision_runs_score_both_precisions_on_the_same_seeds():
    table = precision_runs(2, ["syn1"], pop_size=20, n_evaluations=60)
    assert len(table) == 4 and set(table.precision) == {"float64", "float32"}
    summary = precision_summary(table)
    row = summary.iloc[0]
    assert row.dataset == "syn1" and 0.5 < row.float64_mRI <= 1 and 0.5 < row.float32_mRI <= 1


def test_precision_summary_applies_the_noise_rule():
    def table(double, single):
        return pd.DataFrame([{"dataset": "d", "precision": p, "seed": s, "mRI": v}
                             for p, values in (("float64", double), ("float32", single))
                             for s, v in enumerate(values)])
    same = precision_summary(table([0.9, 0.92, 0.91], [0.9, 0.92, 0.91])).iloc[0]
    assert same.within_noise and same.identical_seeds == 3 and same.welch_p == 1.0
    noisy = precision_summary(table([0.90, 0.92, 0.91], [0.905, 0.915, 0.91])).iloc[0]
    assert noisy.within_noise and noisy.identical_seeds == 1
    worse = precision_summary(table([0.90, 0.901, 0.902], [0.80, 0.801, 0.802])).iloc[0]
    assert not worse.within_noise


def test_bench_precision_prints_the_summary(capsys, monkeypatch):
    import ercot_nb.bench.cli as cli

    monkeypatch.setattr(cli, "precision_runs",
                        lambda runs, names: precision_runs(runs, names, pop_size=20, n_evaluations=60))
    assert main(["precision", "--runs", "2", "--datasets", "syn1"]) == 0
    out = capsys.readouterr().out
    assert "syn1" in out and "within_noise" in out
