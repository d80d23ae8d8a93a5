"""The quality benchmark runs on the experiments' runner and reads the paper's numbers from ercot_nb.paper."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import algorithms, datasets
from ercot_nb.params._mixin import ParamsMixin
from ercot_nb.bench import format_quality, quality_runs, quality_summary
from ercot_nb.bench.cli import main
from ercot_nb.experiments import KNOWN_K
from ercot_nb.metrics import mean_scores
from ercot_nb.paper import paper_value

BUDGET = {"pop_size": 20, "n_evaluations": 60}
DATA = {"syn3": {"n_steps": 3}, "syn7": {"n_steps": 3}}
SETTINGS = {"Cmax=8": dict(BUDGET), "k=4": {"n_clusters": KNOWN_K, **BUDGET}}


@pytest.fixture(scope="module")
def client(one_thread_client):
    return one_thread_client


@pytest.fixture(scope="module")
def runs_table(client):
    return quality_runs(2, SETTINGS, DATA, ("staticEC",), client=client)


def test_runs_cover_the_grid_and_skip_unknown_k(runs_table):
    counts = runs_table.groupby("setting")["dataset"].agg(lambda d: sorted(set(d))).to_dict()
    assert counts == {"Cmax=8": ["syn3", "syn7"], "k=4": ["syn3"]}  # Syn7's k is unknown
    assert len(runs_table) == 2 * 2 + 2
    assert (runs_table["status"] == "ok").all() and set(runs_table["seed"]) == {0, 1}


def test_a_run_equals_a_direct_fit(runs_table):
    data = datasets.load("syn3", seed=0, n_steps=3)
    for setting, params in (("Cmax=8", BUDGET), ("k=4", {"n_clusters": 4, **BUDGET})):
        model = algorithms.make("staticEC", seed=1, **params).fit(data)
        expected = mean_scores(data, model.labels_)
        row = runs_table[(runs_table.setting == setting) & (runs_table.dataset == "syn3")
                         & (runs_table.seed == 1)].iloc[0]
        assert row.mRI == pytest.approx(expected["mRI"]) and row.mNMI == pytest.approx(expected["mNMI"])
        assert row.mean_clusters == pytest.approx(np.mean(model.n_clusters_))
        assert row.seconds > 0


def test_summary_reads_the_paper_and_the_oracle(runs_table):
    summary = quality_summary(runs_table, DATA)
    row = summary[(summary.setting == "Cmax=8") & (summary.dataset == "syn7")].iloc[0]
    assert row.paper_mRI == paper_value("mRI", "syn7", "staticEC")[0] == 0.8877
    assert row.paper_mNMI == paper_value("mNMI", "syn7", "staticEC")[0]
    oracle = datasets.load("syn7", seed=0, n_steps=3)
    assert row.oracle_mRI == pytest.approx(mean_scores(oracle, datasets.oracle_partition(oracle))["mRI"])
    assert row.runs == 2
    text = format_quality(summary, runs_table)
    assert "## setting: k=4" in text and "0.8877" in text and "no partition" not in text


class Picky(ParamsMixin):
    """Refuses every data set."""

    def __init__(self, seed=None):
        self.seed = seed

    def fit(self, data):
        raise ValueError("needs a fixed sample set")


def test_refused_runs_are_reported_not_dropped(client, monkeypatch):
    monkeypatch.setitem(algorithms._REGISTRY, "Picky", f"{__name__}:Picky")
    table = quality_runs(1, {"plain": {}}, {"syn3": {"n_steps": 2}}, ("Picky",), client=client)
    assert list(table["status"]) == ["n/a"] and np.isnan(table["mRI"].iloc[0])
    assert "no partition: plain Picky syn3 seed 0: n/a" in format_quality(quality_summary(table, {}), table)


def test_cli_rejects_an_unknown_algorithm_before_running():
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        main(["quality", "--algorithms", "nope", "--runs", "1", "--datasets", "syn1"])
