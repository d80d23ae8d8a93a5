"""The partition view's 3-D axes option: Scatter3d traces updated in place while scrubbing."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import ERCOT, TemporalDataset, datasets, figures
from ercot_nb.widgets.views.partition import PartitionView

FAST = {"pop_size": 20, "n_evaluations": 60}


@pytest.fixture(scope="module")
def syn2():
    data = datasets.load("syn2", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


def z_data(view: PartitionView) -> list[list[float]]:
    return [np.asarray(tr.z, float).tolist() for tr in view.figure.data]


def test_3d_option_only_with_three_features(syn2):
    data, result = syn2
    view = PartitionView(data, result)
    assert ("3-D (three features)", "3d") in view.axes.options
    rng = np.random.default_rng(0)
    flat = TemporalDataset.from_arrays([rng.normal(size=(30, 2)) for _ in range(2)])
    view.load(flat)
    assert "3d" not in [value for _, value in view.axes.options]
    assert view.axes.value == "features" and view.axes.disabled


def test_selecting_3d_rebuilds_the_traces_and_scrubbing_moves_z(syn2):
    data, result = syn2
    view = PartitionView(data, result, step=1, axes="pca")
    figure = view.figure
    assert {tr.type for tr in figure.data} == {"scatter"}
    view.axes.value = "3d"
    assert view.figure is figure  # the same widget, traces rebuilt
    assert {tr.type for tr in figure.data} == {"scatter3d"}
    assert figure.layout.scene.zaxis.title.text == data.feature_names[2]
    before = z_data(view)
    n_traces = len(figure.data)
    view.show_step(6)
    after = z_data(view)
    assert len(figure.data) == n_traces  # updated in place
    assert before != after
    expected = {tr.name: sorted(np.asarray(tr.z, float).tolist())
                for tr in figures.partition_figure(data, result, 6, projection="3d").data}
    shown = {tr.name: sorted(np.asarray(tr.z, float).tolist()) for tr in figure.data
             if tr.z is not None and len(tr.z)}
    assert shown == {name: z for name, z in expected.items() if z}
    assert view.static().data[0].type == "scatter3d"
    ranges = tuple(figure.layout.scene.zaxis.range)
    view.show_step(2)
    assert tuple(figure.layout.scene.zaxis.range) == ranges
    view.axes.value = "features"  # back to 2-D
    assert {tr.type for tr in figure.data} == {"scatter"}
    assert figure.layout.xaxis.title.text == data.feature_names[0]


def test_data_with_three_features_opens_in_3d_and_keeps_a_chosen_projection(syn2):
    data, result = syn2
    view = PartitionView(data, result, step=3)
    assert view.axes.value == "3d"
    assert {tr.type for tr in view.figure.data} == {"scatter3d"}
    assert view.axes.options[0] == ("3-D (three features)", "3d")  # first of the visible buttons
    rng = np.random.default_rng(0)
    flat = TemporalDataset.from_arrays([rng.normal(size=(30, 2)) for _ in range(2)])
    view.load(flat)
    assert {tr.type for tr in view.figure.data} == {"scatter"}
    view.load(data, result)  # back to three features: 3-D again
    assert view.axes.value == "3d"
    view.axes.value = "pca"  # the user's choice is kept for other data
    view.load(data, result, step=2)
    assert view.axes.value == "pca" and {tr.type for tr in view.figure.data} == {"scatter"}
