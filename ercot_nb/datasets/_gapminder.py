"""The Gapminder table (shipped with Plotly) as a real temporal dataset."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..data import SCALING_WORDS, SCALINGS, TemporalDataset
from ..params import Param, with_params
from ._seed import DATA_SEED

__all__ = ["gapminder"]

FEATURES = ("lifeExp", "gdpPercap", "pop")
"""The Gapminder indicators a dataset can use (``features=``)."""
FEATURE_WORDS = {"lifeExp": "life expectancy", "gdpPercap": "GDP per capita", "pop": "population"}
_SCALINGS = SCALINGS

PARAMS = (
    replace(DATA_SEED, doc="Unused (the data are fixed); accepted so that every built-in dataset is "
                           "loaded the same way."),
    Param("features", "subset", FEATURES, "features", "Indicators used as features.",
          choices=FEATURES, labels=FEATURE_WORDS),
    Param("log_gdp", "bool", True, "log GDP", "Replace gdpPercap by its base-10 logarithm."),
    Param("log_pop", "bool", True, "log population", "Replace pop by its base-10 logarithm."),
    Param("scaling", "choice", "standardize", "scaling", "Feature scaling after the logarithms.",
          choices=SCALINGS, labels=SCALING_WORDS),
    Param("per_step", "bool", False, "scale per year", "Fit the scaling on each year separately."),
)
"""Parameters of :func:`gapminder`, in signature order."""


@with_params(PARAMS)
def gapminder(
    seed: int | None,
    *,
    features: Sequence[str],
    log_gdp: bool,
    log_pop: bool,
    scaling: str,
    per_step: bool,
) -> TemporalDataset:
    """Countries over the years: life expectancy, GDP per capita and population.

    The Gapminder excerpt that ships with Plotly (``plotly.data.gapminder()``,
    no download): 142 countries observed every 5 years from 1952 to 2007
    (12 steps).  Each country is a sample (id = country name, the same at
    every step) and each year a time step.  The continent is the reference
    label (``label_names`` gives the continent of each integer code); the
    number of clusters is not known (``k=None``), and the continent is only a
    reference, not a true clustering.

    Features, in the order given: ``lifeExp`` (years), ``gdpPercap``
    (inflation-adjusted US dollars) and ``pop`` (people).  GDP per capita and
    population span several orders of magnitude, so by default they are
    replaced by their base-10 logarithms (named ``log10_gdpPercap`` and
    ``log10_pop``).  Then every feature is rescaled with
    :meth:`TemporalDataset.scaled` (by default standardised with statistics
    fitted over all years together, so that countries' movement over time
    is kept); without it population would dominate Euclidean distances.

    Returns
    -------
    TemporalDataset
        Times are the years 1952, 1957, ..., 2007; ids are country names;
        labels are continent codes (``label_names`` lists the continents).
        ``metadata`` holds ``description``, ``params``, ``k`` (None),
        ``source`` and ``scaling`` (the fitted shift and scale).

    Raises
    ------
    ValueError
        For an unknown or repeated feature or an unknown scaling.

    Examples
    --------
    >>> from ercot_nb import datasets
    >>> datasets.load("gapminder")
    TemporalDataset(name='gapminder', steps=12, features=3, samples=142..142, labels=yes)
    """
    from plotly import data as plotly_data  # a core dependency, imported lazily

    features = list(features)
    unknown = [f for f in features if f not in FEATURES]
    if not features or unknown or len(set(features)) != len(features):
        raise ValueError(
            f"features must be a non-empty subset of {list(FEATURES)} without repeats, "
            f"got {features!r}"
        )
    if scaling not in _SCALINGS:
        raise ValueError(f"scaling must be one of {list(_SCALINGS)}, got {scaling!r}")

    table = plotly_data.gapminder()
    frame = table[["country", "year", "continent"]].copy()
    frame["continent"] = frame["continent"].astype(str)
    frame["country"] = frame["country"].astype(str)
    names = []
    for feature in features:
        values = table[feature].to_numpy(dtype=np.float64)
        take_log = (feature == "gdpPercap" and log_gdp) or (feature == "pop" and log_pop)
        name = f"log10_{feature}" if take_log else feature
        frame[name] = np.log10(values) if take_log else values
        names.append(name)

    dataset = TemporalDataset.from_frame(
        frame, time="year", id="country", features=names, label="continent", name="gapminder"
    )
    dataset.metadata.update(
        {
            "description": (
                "gapminder: 142 countries x 12 years (1952-2007) from plotly.data.gapminder(); "
                f"features {names}, scaled with {scaling!r} "
                f"({'per year' if per_step else 'over all years'}); continent as the "
                "reference label; number of clusters unknown."
            ),
            "params": {
                "seed": seed,
                "features": tuple(features),
                "log_gdp": log_gdp,
                "log_pop": log_pop,
                "scaling": scaling,
                "per_step": per_step,
            },
            "k": None,
            "source": "plotly.data.gapminder()",
        }
    )
    return dataset.scaled(scaling, per_step=per_step)
