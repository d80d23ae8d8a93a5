"""Overview of a run without ground truth: scores, agreement, clusters, events on one time axis."""
from __future__ import annotations

import collections

import numpy as np
import pytest

from ercot_nb import ERCOT, figures
from ercot_nb.ensemble import ensemble
from ercot_nb.figures.overview import EVENT_CLASSES, OVERVIEW_TRACES
from ercot_nb.metrics import label_free_steps
from .plot_helpers import FAST, trace


@pytest.fixture(scope="module")
def runs(syn3):
    data, _ = syn3
    return ensemble(ERCOT(**FAST), data, seeds=[0, 1, 2])


def values(fig, code):
    return np.asarray(trace(fig, OVERVIEW_TRACES[code]).y, dtype=float)


def test_overview_rows_hold_the_scores_agreement_clusters_and_events(syn3, runs):
    data, result = syn3
    fig = figures.overview_figure(data, result, ensemble=runs, t=4)
    scores = label_free_steps(result, data, sample_size=500)
    for code in ("silhouette", "consecutive_nmi", "churn"):
        np.testing.assert_allclose(values(fig, code), scores[code].to_numpy(dtype=float))
        assert trace(fig, OVERVIEW_TRACES[code]).yaxis == "y"
    frame = runs.steps_frame()
    np.testing.assert_allclose(values(fig, "agreement_mean"), frame["agreement_mean"])
    np.testing.assert_allclose(values(fig, "share_unanimous"), frame["share_unanimous"])
    np.testing.assert_array_equal(values(fig, "n_clusters"), result.n_clusters)
    band = trace(fig, OVERVIEW_TRACES["band"])
    n = len(data)
    np.testing.assert_array_equal(band.y[:n], frame["runs_n_clusters_high"])
    np.testing.assert_array_equal(band.y[n:][::-1], frame["runs_n_clusters_low"])
    assert {trace(fig, OVERVIEW_TRACES[c]).yaxis for c in ("agreement_mean", "n_clusters")} == {"y2", "y3"}
    # every marked event is one marker count: compare with the events table
    events = result.events(seed=0)
    expected = collections.Counter(
        (row.time, row.event) for row in events.itertuples() if row.event != "continue" and row.t > 0
    )
    drawn = collections.Counter()
    for name in EVENT_CLASSES.values():
        markers = trace(fig, name)
        assert markers.yaxis == "y4"
        for x, y, text in zip(markers.x, markers.y, markers.customdata):
            drawn[(x, y)] += text.count("<br>") + 1
    assert drawn == expected
    assert {s.name for s in fig.layout.shapes} == {"current step"}
    assert fig.layout.xaxis.anchor == "y4"


def test_overview_without_an_ensemble_has_three_rows(syn3):
    data, result = syn3
    fig = figures.overview_figure(data, result, events=False)
    assert {tr.yaxis for tr in fig.data} == {"y", "y2"}
    assert fig.layout.yaxis3.title.text == "what happened"
    assert OVERVIEW_TRACES["agreement_mean"] not in [tr.name for tr in fig.data]
    with pytest.raises(ValueError, match="steps"):
        figures.overview_figure(data[:4], result)
