"""Tests of the Gapminder dataset (ercot_nb.datasets)."""
from __future__ import annotations

import numpy as np
import pytest
from plotly import data as plotly_data

from ercot_nb import datasets


@pytest.fixture(scope="module")
def table():
    return plotly_data.gapminder()


def test_shape_labels_and_times(table):
    ds = datasets.load("gapminder")
    assert len(ds) == 12
    assert ds.times == list(range(1952, 2008, 5))
    assert ds.n_samples_per_step.tolist() == [142] * 12
    assert ds.feature_names == ["lifeExp", "log10_gdpPercap", "log10_pop"]
    assert ds.label_names == ["Africa", "Americas", "Asia", "Europe", "Oceania"]
    assert ds.metadata["k"] is None
    first = ds[0]
    continent = dict(zip(table["country"], table["continent"]))
    names = np.asarray(ds.label_names, dtype=object)
    assert [continent[c] for c in first.ids] == names[first.labels].tolist()
    for snapshot in ds:
        assert snapshot.ids.tolist() == first.ids.tolist()


def test_log_and_standardize_applied_over_all_years(table):
    ds = datasets.load("gapminder")
    X = np.vstack([s.X for s in ds])
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1)
    # Per-year means are not 0: the statistics are shared by all years.
    assert ds[-1].X[:, 0].mean() > 0.5 > -0.5 > ds[0].X[:, 0].mean()
    # By hand for one value: Afghanistan's GDP per capita in 1952.
    gdp = np.log10(table["gdpPercap"].to_numpy())
    row = np.flatnonzero((table["country"] == "Afghanistan") & (table["year"] == 1952))[0]
    index = ds[0].ids.tolist().index("Afghanistan")
    assert ds[0].X[index, 1] == pytest.approx((gdp[row] - gdp.mean()) / gdp.std())


def test_raw_features_and_options(table):
    raw = datasets.load("gapminder", features=("pop", "lifeExp"), log_pop=False, scaling="none")
    assert raw.feature_names == ["pop", "lifeExp"]
    usa = raw[-1].ids.tolist().index("United States")
    expected = table[(table["country"] == "United States") & (table["year"] == 2007)]
    assert raw[-1].X[usa, 0] == pytest.approx(float(expected["pop"].iloc[0]))
    assert raw[-1].X[usa, 1] == pytest.approx(float(expected["lifeExp"].iloc[0]))
    minmax = datasets.load("gapminder", scaling="minmax", per_step=True)
    for snapshot in minmax:
        np.testing.assert_allclose(snapshot.X.min(axis=0), 0)
        np.testing.assert_allclose(snapshot.X.max(axis=0), 1)


@pytest.mark.parametrize(
    "params", [{"features": ("gdp",)}, {"features": ()}, {"scaling": "robust"}]
)
def test_invalid_parameters(params):
    with pytest.raises(ValueError):
        datasets.load("gapminder", **params)
