"""Counts in titles take the right number: "1 cluster", "3 clusters" (issue 22)."""
from __future__ import annotations

import numpy as np

from ercot_nb import datasets, figures
from ercot_nb.figures.style import counted
from ercot_nb.result import ClusteringResult


def _one_cluster_at(data, t: int, k: int = 3) -> ClusteringResult:
    labels = [np.arange(step.n_samples) % k for step in data]
    labels[t] = np.zeros(data[t].n_samples, dtype=int)
    return ClusteringResult.from_labels(data, labels, algorithm="test")


def test_counted_says_one_cluster_and_many_clusters():
    assert [counted(n, "cluster") for n in (0, 1, 2)] == ["0 clusters", "1 cluster", "2 clusters"]


def test_partition_titles_say_1_cluster_not_1_clusters():
    data = datasets.load("syn2", seed=0)
    result = _one_cluster_at(data, 1)
    for figure in (figures.partition_figure(data, result, 1), figures.partition_3d_figure(data, result, 1)):
        title = figure.layout.title.text
        assert "(1 cluster)" in title and "clusters)" not in title, title
    title = figures.partition_figure(data, result, 0).layout.title.text
    assert "(3 clusters)" in title, title  # the second input: more than one


def test_video_titles_say_1_cluster_and_1_segment():
    from .plot_helpers import result_of, tiny_video

    data = tiny_video()
    result = result_of(data, [np.zeros(step.n_samples, dtype=int) for step in data])
    title = figures.video_segmentation_figure(result, data, 1).layout.title.text
    assert "· 1 cluster" in title and "1 clusters" not in title, title
    one_segment = tiny_video(truth_codes=(5, 5))
    title = figures.video_segmentation_figure(None, one_segment, 1).layout.title.text
    assert title.endswith("· 1 segment"), title
