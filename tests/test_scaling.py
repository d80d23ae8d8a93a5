"""Tests of TemporalDataset.scaled (feature scaling over all steps or per step)."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import datasets
from ercot_nb.data import TemporalDataset

X0 = np.array([[0.0, 5.0, 1.0], [2.0, 5.0, 3.0], [4.0, 5.0, 8.0]])
X1 = np.array([[10.0, 5.0, 0.0], [14.0, 5.0, 2.0]])


@pytest.fixture()
def ds():
    return TemporalDataset.from_arrays(
        [X0, X1], ids=[[1, 2, 3], [1, 3]], labels=[[0, 0, 1], [0, 1]], times=[7, 8],
        feature_names=["a", "b", "c"], name="toy", metadata={"note": "kept"},
    )


def test_standardize_over_all_steps(ds):
    out = ds.scaled("standardize")
    stacked = np.vstack([X0, X1])
    mean, std = stacked.mean(axis=0), stacked.std(axis=0)
    # feature b is constant: centred only
    cols = [0, 2]
    np.testing.assert_allclose(out[0].X[:, cols], (X0[:, cols] - mean[cols]) / std[cols])
    np.testing.assert_allclose(out[1].X[:, cols], (X1[:, cols] - mean[cols]) / std[cols])
    assert np.all(out[0].X[:, 1] == 0) and np.all(out[1].X[:, 1] == 0)
    assert out[0].X[0, 0] == pytest.approx((0 - 6.0) / np.sqrt(27.2))
    assert out.times == [7, 8] and out.feature_names == ["a", "b", "c"] and out.name == "toy"
    assert out[1].ids.tolist() == [1, 3] and out[1].labels.tolist() == [0, 1]
    assert out.metadata["note"] == "kept"
    assert out.metadata["scaling"]["method"] == "standardize"
    assert out.metadata["scaling"]["per_step"] is False


def test_standardize_per_step(ds):
    out = ds.scaled("standardize", per_step=True)
    for snapshot in out:
        np.testing.assert_allclose(snapshot.X.mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(snapshot.X.std(axis=0), [1, 0, 1])
    np.testing.assert_allclose(out[1].X[:, 0], [-1, 1])
    np.testing.assert_allclose(out[0].X[:, 0], [-np.sqrt(1.5), 0, np.sqrt(1.5)])


def test_minmax_over_all_steps_and_per_step(ds):
    out = ds.scaled("minmax")
    np.testing.assert_allclose(out[0].X[:, 0], [0, 2 / 14, 4 / 14])
    np.testing.assert_allclose(out[1].X[:, 0], [10 / 14, 1])
    np.testing.assert_allclose(out[0].X[:, 2], [1 / 8, 3 / 8, 1])
    assert np.all(np.concatenate([s.X[:, 1] for s in out]) == 0)
    per = ds.scaled("minmax", per_step=True)
    np.testing.assert_allclose(per[0].X[:, 0], [0, 0.5, 1])
    np.testing.assert_allclose(per[1].X, [[0, 0, 0], [1, 0, 1]])


def test_none_is_identity(ds):
    out = ds.scaled("none")
    for a, b in zip(ds, out):
        np.testing.assert_array_equal(a.X, b.X)
    assert ds[0].X[0, 0] == 0.0  # the original is untouched by any scaling
    ds.scaled("minmax")
    np.testing.assert_array_equal(ds[1].X, X1)


def test_unknown_method(ds):
    with pytest.raises(ValueError, match="method"):
        ds.scaled("robust")


def test_true_means_follow_the_scaling():
    syn = datasets.load("syn3")
    for per_step in (False, True):
        out = syn.scaled("standardize", per_step=per_step)
        assert len(datasets.oracle_partition(out)) == len(syn)
        shift = out.metadata["scaling"]["shift"][4]
        scale = out.metadata["scaling"]["scale"][4]
        np.testing.assert_allclose(
            out.metadata["true_means"][4], (syn.metadata["true_means"][4] - shift) / scale
        )
    assert out[:3].metadata["true_means"][0].shape == syn.metadata["true_means"][0].shape


def test_bad_true_means_are_dropped_with_a_note(ds):
    ds.metadata["true_means"] = [np.zeros((2, 5)), np.zeros((2, 5))]
    ds.metadata["true_mean_labels"] = [[0, 1], [0, 1]]
    out = ds.scaled()
    assert "true_means" not in out.metadata and "true_mean_labels" not in out.metadata
    assert "dropped" in out.metadata["scaling_note"]
