"""Shared style: the cluster palette, deterministic figures without uids."""
from __future__ import annotations

import json

import pytest

from ercot_nb import ERCOT, figures
from .plot_helpers import FAST


def test_cluster_colors_are_distinct_and_indexed_by_label():
    colors = figures.cluster_colors(12)
    assert len(set(colors)) == 12
    assert all(figures.label_color(k) == c for k, c in enumerate(colors))
    n = len(figures.style.PALETTE)
    assert figures.label_color(n + 3) == figures.label_color(3)  # wraps around
    with pytest.raises(ValueError):
        figures.cluster_colors(-1)


def test_figures_are_deterministic_and_carry_no_uids(syn3):
    data, result = syn3
    def build():
        return [
            figures.partition_figure(data, result, 4),
            figures.partition_animation(data, result),
            figures.pareto_figure(result, 4),
            figures.alpha_figure(result, show_pairs=True),
            figures.scores_figure(data, {"ERCOT": result}),
            figures.n_clusters_figure(result, data),
        ]
    first, second = build(), build()
    for a, b in zip(first, second):
        text = a.to_json()
        assert text == b.to_json()
        assert '"uid"' not in text
        layout = json.loads(text)["layout"]
        assert layout["template"]["layout"]["paper_bgcolor"] == "white"
        assert layout["title"]["text"]
        assert layout["width"] <= 800 and layout["height"] <= 700


def test_builders_accept_a_fitted_estimator(syn3):
    data, _ = syn3
    model = ERCOT(seed=0, **FAST).fit(data[:3])
    assert len(figures.alpha_figure(model).data[0].x) == 3
    with pytest.raises(TypeError):
        figures.alpha_figure(ERCOT())
