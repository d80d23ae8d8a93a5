"""Property-based tests: any valid temporal dataset gives valid labels, never a crash."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ercot_nb import ERCOT, StaticEC, TemporalDataset


@st.composite
def temporal_datasets(draw):
    n_features = draw(st.integers(1, 5))
    n_steps = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    pool = np.arange(200)
    X_list, ids_list = [], []
    for _ in range(n_steps):
        n = draw(st.integers(2, 60))
        ids = rng.choice(pool, size=n, replace=False)  # ids come and go
        scale = draw(st.sampled_from([1e-6, 1.0, 1e3]))
        X = rng.normal(scale=scale, size=(n, n_features))
        if draw(st.booleans()):  # duplicated points and constant features happen
            X[: n // 2] = X[0]
        X_list.append(X)
        ids_list.append(ids)
    return TemporalDataset.from_arrays(X_list, ids=ids_list)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=temporal_datasets(), known_k=st.booleans(), static=st.booleans())
def test_random_datasets_give_valid_labels(data, known_k, static):
    known_k = known_k and data.n_samples_per_step.min() >= 3  # fewer samples than k is refused
    estimator = (StaticEC if static else ERCOT)(
        n_clusters=3 if known_k else None, max_clusters=5, pop_size=10, n_evaluations=30, seed=0
    )
    labels = estimator.fit_predict(data)
    assert len(labels) == len(data)
    for snapshot, lab, step in zip(data, labels, estimator.result_):
        assert lab.shape == (snapshot.n_samples,)
        assert lab.dtype.kind == "i"
        assert lab.min() >= 0 and lab.max() == step.n_clusters - 1
        assert len(np.unique(lab)) == step.n_clusters
        assert np.all(np.isfinite(step.centroids))
        assert step.first_front[step.knee]
        if not static and step.t > 0:
            assert 0.0 <= step.alpha <= 1.0
