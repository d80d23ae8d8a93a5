"""Time lines: smoothness weight, scores and number of clusters per step."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import figures
from ercot_nb.figures.lines import ALPHA, PAIRS
from ercot_nb.metrics import score_steps
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
