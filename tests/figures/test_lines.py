"""Time lines: smoothness weight, scores and number of clusters per step."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import figures
from ercot_nb.figures.lines import ALPHA, LABEL_FREE_DEFAULT, PAIRS, score_trace_name
from ercot_nb.metrics import label_free_steps, score_steps
from .plot_helpers import trace


def test_alpha_figure_follows_the_result(syn3):
    _, result = syn3
    fig = figures.alpha_figure(result, show_pairs=True)
    alpha = trace(fig, ALPHA)
    assert list(alpha.x) == result.times
    assert alpha.y[0] is None
    np.testing.assert_allclose(np.asarray(alpha.y[1:], dtype=float), result.alpha[1:])
    pairs = trace(fig, PAIRS)
    finite = np.concatenate([s.alpha_pairs[np.isfinite(s.alpha_pairs)] for s in result])
    np.testing.assert_allclose(sorted(pairs.y), sorted(finite))
    assert len(figures.alpha_figure(result).data) == 1


def test_scores_figure_plots_score_steps_for_every_run(syn3):
    data, result = syn3
    truth = [s.labels for s in data]
    fig = figures.scores_figure(data, {"ERCOT": result, "truth": truth}, metric="NMI")
    expected = score_steps(data, result.labels)["NMI"].to_numpy()
    ercot, oracle = fig.data
    np.testing.assert_allclose(ercot.y, expected)
    assert ercot.name == f"ERCOT (mean {expected.mean():.3f})"
    np.testing.assert_allclose(oracle.y, 1.0)
    assert fig.layout.yaxis.title.text == "normalised mutual information (NMI)"
    with pytest.raises(ValueError, match="metric"):
        figures.scores_figure(data, {"ERCOT": result}, metric="ARI")


def test_n_clusters_figure_shows_chosen_and_true_counts(syn3):
    data, result = syn3
    fig = figures.n_clusters_figure(result, data)
    chosen, true = fig.data
    np.testing.assert_array_equal(chosen.y, result.n_clusters)
    np.testing.assert_array_equal(true.y, [len(np.unique(s.labels)) for s in data])
    assert len(figures.n_clusters_figure(result).data) == 1


def unlabelled(data):
    """The same steps without labels (as a user's own table)."""
    from ercot_nb import TemporalDataset

    return TemporalDataset.from_arrays([s.X for s in data], ids=[s.ids for s in data],
                                       times=data.times, name="no labels")


def test_scores_without_labels_show_the_label_free_scores_by_name(syn3):
    data, result = syn3
    plain = unlabelled(data)
    fig = figures.scores_figure(plain, {"ERCOT": result}, t=4)
    expected = label_free_steps(result, plain, sample_size=500)
    for score in LABEL_FREE_DEFAULT:
        line = trace(fig, score_trace_name("ERCOT", score))
        np.testing.assert_allclose(np.asarray(line.y, dtype=float), expected[score].to_numpy(dtype=float))
        assert list(line.x) == data.times
    names = [tr.name for tr in fig.data]
    assert not any("mean" in name for name in names)  # no RI/NMI line without labels
    # one row per score, one y axis each, sharing the time axis; the current step spans them all
    assert len({tr.yaxis for tr in fig.data}) == len(LABEL_FREE_DEFAULT)
    objectives = figures.scores_figure(plain, {"ERCOT": result}, label_free=["f_cp", "f_sep"])
    np.testing.assert_allclose(np.asarray(trace(objectives, score_trace_name("ERCOT", "f_cp")).y, dtype=float),
                               expected["f_cp"].to_numpy(dtype=float))
    (line,) = [s for s in fig.layout.shapes if s.name == "current step"]
    assert line.x0 == data.times[4] and line.yref == "paper"
    assert sum(bool(tr.showlegend) for tr in fig.data) == 1  # the run once in the legend
    assert [tr.name for tr in fig.data if tr.showlegend] == ["ERCOT"]  # by its name, not one score's
    axis_titles = [fig.layout[key].title.text for key in ("yaxis", "yaxis2", "yaxis3")]
    assert all(len(line) <= 14 for title in axis_titles for line in title.split("<br>"))  # fit 340 px
    assert list(fig.layout.yaxis3.range) == [-0.05, 1.05]  # churn is a share: its whole scale


def test_label_free_scores_sit_beside_ri_when_asked(syn3):
    data, result = syn3
    truth = [s.labels for s in data]
    fig = figures.scores_figure(data, {"ERCOT": result, "truth": truth}, metric="NMI",
                                label_free=["churn", "consecutive_nmi"])
    expected = score_steps(data, result.labels)["NMI"].to_numpy()
    ercot = trace(fig, f"ERCOT (mean {expected.mean():.3f})")
    np.testing.assert_allclose(ercot.y, expected)
    # the true labels never change cluster: churn 0 and NMI with the previous step 1
    churn = np.asarray(trace(fig, score_trace_name("truth", "churn")).y, dtype=float)
    assert np.isnan(churn[0])
    np.testing.assert_allclose(churn[1:3], 0.0)  # no switch before time 4
    steady = np.asarray(trace(fig, score_trace_name("truth", "consecutive_nmi")).y, dtype=float)
    np.testing.assert_allclose(steady[1:3], 1.0)
    assert {tr.yaxis for tr in fig.data} == {"y", "y2", "y3"}
    with pytest.raises(ValueError, match="no labels"):
        figures.scores_figure(unlabelled(data), {"ERCOT": result}, label_free=False)
    with pytest.raises(ValueError, match="label_free"):
        figures.scores_figure(data, {"ERCOT": result}, label_free=["ARI"])


def test_scores_with_labels_stay_one_panel_by_default(syn3):
    data, result = syn3
    fig = figures.scores_figure(data, {"ERCOT": result})
    assert len(fig.data) == 1 and "yaxis2" not in fig.layout.to_plotly_json()


def test_scores_take_label_free_tables_already_computed(syn3):
    data, result = syn3
    plain = unlabelled(data)
    table = label_free_steps(result, plain, sample_size=500)
    table["churn"] = 0.25  # not what the run gives: the figure must draw the table it is given
    fig = figures.scores_figure(plain, {"ERCOT": result}, tables={"ERCOT": table})
    np.testing.assert_allclose(np.asarray(trace(fig, score_trace_name("ERCOT", "churn")).y, dtype=float), 0.25)
    with pytest.raises(ValueError, match="rows"):
        figures.scores_figure(plain, {"ERCOT": result}, tables={"ERCOT": table.iloc[:3]})
