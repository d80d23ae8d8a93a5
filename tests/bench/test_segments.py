"""`ercot-nb bench quality --segments`: final_partition nearest vs mixture beside the oracle and true-k references."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import ERCOT, datasets
from ercot_nb.bench import format_segments, segment_runs, segment_summary
from ercot_nb.bench.cli import main
from ercot_nb.metrics import mean_scores

pytest.importorskip("sklearn")
BUDGET = {"pop_size": 20, "n_evaluations": 60}
CASES = {"syn3": {"n_steps": 2}}


@pytest.fixture(scope="module")
def table():
    return segment_runs(2, (0, 1), CASES, estimator_params=BUDGET)


def test_runs_cover_the_grid_and_score_what_they_ran(table):
    methods = ["oracle", "ERCOT nearest", "ERCOT mixture", "ERCOT cv_mixture", "k-means, true k",
               "Gaussian mixture, true k"]
    assert table["method"].unique().tolist() == methods
    for method in methods[1:]:
        assert len(table[table["method"] == method]) == 4  # 2 seeds x 2 data seeds
    data = datasets.load("syn3", seed=1, n_steps=2)
    row = table[(table["method"] == "ERCOT mixture") & (table["data_seed"] == 1) & (table["seed"] == 1)].iloc[0]
    model = ERCOT(seed=1, final_partition="mixture", **BUDGET).fit(data)
    assert row["mRI"] == pytest.approx(mean_scores(data, model.labels_)["mRI"])
    oracle = table[(table["method"] == "oracle") & (table["data_seed"] == 1)]["mRI"].item()
    assert oracle == pytest.approx(mean_scores(data, datasets.oracle_partition(data))["mRI"])
    assert (table.loc[table["method"] != "oracle", "seconds_per_step"] > 0).all()


def test_summary_per_data_seed_with_welch_and_time_ratio(table):
    summary = segment_summary(table)
    mixture = summary[summary["method"] == "ERCOT mixture"].iloc[0]
    runs = table[table["method"] == "ERCOT mixture"]
    assert mixture["mRI"] == pytest.approx(runs["mRI"].mean())
    first = runs[runs["data_seed"] == 0]["mRI"]
    assert mixture["ds0"] == f"{first.mean():.3f} ± {first.std():.3f}"
    assert 0.0 <= mixture["welch_p"] <= 1.0 or np.isnan(mixture["welch_p"])  # nan only if both are constant
    assert mixture["time_ratio"] > 0
    assert np.isnan(summary[summary["method"] == "ERCOT nearest"]["welch_p"]).all()
    # every option is tested against the paper's partition
    cv = summary[summary["method"] == "ERCOT cv_mixture"].iloc[0]
    assert 0.0 <= cv["welch_p"] <= 1.0 or np.isnan(cv["welch_p"])
    assert cv["time_ratio"] > 0
    assert "ERCOT mixture" in format_segments(summary)


def test_cli_refuses_a_data_set_it_does_not_run(capsys):
    with pytest.raises(SystemExit) as error:
        main(["quality", "--segments", "--datasets", "gapminder", "--runs", "1"])
    assert error.value.code == 2
    assert "not gapminder" in capsys.readouterr().err


def test_cli_position_loads_the_videos_with_position(monkeypatch, capsys):
    import ercot_nb.bench.cli as cli

    seen = {}

    def fake_runs(runs, data_seeds, cases, progress=None, final_partitions=None):
        seen.update(cases)
        return segment_runs(1, (0,), {"syn3": {"n_steps": 2}}, references=False, estimator_params=BUDGET)

    monkeypatch.setattr(cli, "segment_runs", fake_runs)
    assert main(["quality", "--segments", "--position", "--datasets", "video_rc", "syn1", "--runs", "1"]) == 0
    assert seen == {"video_rc": {"scale": 0.25, "position": True}, "syn1": {}}
    assert "position=True" in capsys.readouterr().out


def test_cli_runs_the_final_partitions_asked_for(monkeypatch, capsys):
    import ercot_nb.bench.cli as cli

    asked = {}

    def fake_runs(runs, data_seeds, cases, progress=None, final_partitions=None):
        asked["final_partitions"] = final_partitions
        return segment_runs(1, (0,), {"syn3": {"n_steps": 2}}, final_partitions=final_partitions,
                            references=False, estimator_params=BUDGET)

    monkeypatch.setattr(cli, "segment_runs", fake_runs)
    assert main(["quality", "--segments", "--final-partitions", "nearest", "cv_mixture", "--datasets", "syn1",
                 "--runs", "1"]) == 0
    assert asked["final_partitions"] == ["nearest", "cv_mixture"]
    out = capsys.readouterr().out
    assert "ERCOT cv_mixture" in out and "ERCOT mixture" not in out
    with pytest.raises(SystemExit) as error:
        main(["quality", "--segments", "--final-partitions", "gmm", "--runs", "1"])
    assert error.value.code == 2


def test_gaussian_ceiling_labels_by_the_true_segments_gaussians():
    from scipy.stats import multivariate_normal

    from ercot_nb import TemporalDataset
    from ercot_nb.bench import gaussian_ceiling

    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1], [300, 60])
    X = np.where(labels[:, None] == 0, rng.normal(size=(360, 2)), 0.1 * rng.normal(size=(360, 2)) + [1.2, 0.0])
    data = TemporalDataset.from_arrays([X, X[::-1]], ids=[np.arange(360)] * 2, labels=[labels, labels[::-1]])
    got = gaussian_ceiling(data)
    # by hand at step 0: weights, means and covariances of the true segments, most probable one
    dens = np.column_stack([np.log(np.mean(labels == j)) + multivariate_normal(X[labels == j].mean(axis=0),
                            np.cov(X[labels == j].T, bias=True)).logpdf(X) for j in (0, 1)])
    np.testing.assert_array_equal(got[0], np.argmax(dens, axis=1))
    # a wide segment beside a tight one: its Gaussians place the boundary where nearest true means cannot
    means = np.array([X[labels == j].mean(axis=0) for j in (0, 1)])
    nearest = np.argmin(((X[:, None, :] - means) ** 2).sum(axis=2), axis=1)
    assert (got[0] == labels).mean() > (nearest == labels).mean()
