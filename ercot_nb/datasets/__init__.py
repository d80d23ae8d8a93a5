"""Built-in temporal clustering scenarios, generated on the fly (no download).

{table}

Each dataset's ``metadata["description"]`` explains it in full, and
:func:`oracle_partition` gives the nearest-true-mean partition (the reference
accuracy) of any scenario that stores its true means.  The video scenes are
pixel datasets (id = row * W + col, features r, g, b) with exact per-pixel
ground truth; :func:`load_video` turns your own clip (file, image folder or
array) into the same kind of dataset.

The catalogue (:data:`CATALOG`) is the one list of the built-in datasets: this
table, :func:`available`, the apps' dataset picker and the command line's
``--dataset`` read it.  Importing this package imports no generator: each is
imported when its dataset is first loaded or its parameters are asked for.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..params import Param, validate_params
from ._seed import DATA_SEED

if TYPE_CHECKING:  # pragma: no cover
    from ..data import TemporalDataset
    from ._boids import FLOCK_DIMS, STRAY_MODES
    from ._gapminder import FEATURES as GAPMINDER_FEATURES
    from ._synthetic import NOISE_MODES, STEP_MODES, oracle_partition
    from ._video import load_video

__all__ = ["load", "available", "dataset_params", "oracle_partition", "load_video", "STEP_MODES",
           "NOISE_MODES", "STRAY_MODES", "FLOCK_DIMS", "GAPMINDER_FEATURES", "CATALOG", "Entry"]


class Entry(NamedTuple):
    """One built-in dataset: where its generator is, and what it shows."""

    module: str
    """The generator's module in this package."""
    function: str
    """The generator: ``function(seed, **params) -> TemporalDataset``, with ``param_specs``."""
    scenario: str
    """One line on what the data shows."""


CATALOG: dict[str, Entry] = {
    "syn1": Entry("_synthetic", "syn1", "four 2-D Gaussians; one cluster moves onto another"),
    "syn2": Entry("_synthetic", "syn2", "the 4-D version of syn1"),
    "syn3": Entry("_synthetic", "syn3", "syn1 plus membership switches (concept drift) at t = 4, 5, 6"),
    "syn4": Entry("_synthetic", "syn4", "syn2 plus the same membership switches"),
    "syn5": Entry("_synthetic", "syn5", "syn1 plus removed (t = 4, 8) and inserted (t = 6) samples"),
    "syn6": Entry("_synthetic", "syn6", "syn3 plus the same removals and insertions"),
    "syn7": Entry("_synthetic", "syn7", "syn3 whose moving cluster disappears at t = 5, 6 (k unknown)"),
    "syn8": Entry("_synthetic", "syn8", "syn4 whose moving cluster disappears at t = 5, 6 (k unknown)"),
    "bird_flocks": Entry("_boids", "bird_flocks",
                         "Boids flocks on parallel lanes; strays switch flock (k unknown)"),
    "gapminder": Entry("_gapminder", "gapminder",
                       "real data: 142 countries x 12 years (plotly's Gapminder table)"),
    "video_bt": Entry("_video", "video_bt", "video, 320 x 240 x 12 frames: rippling water, static "
                      "boat and lighthouse, a blinking lamp (4-5 segments)"),
    "video_mo": Entry("_video", "video_mo", "video, 160 x 120 x 9 frames: a room whose chair is "
                      "moved and rotated (7 segments)"),
    "video_rc": Entry("_video", "video_rc", "video, 640 x 360 x 8 frames: panning background, "
                      "moving car and ball, a walker who enters (3-4 segments)"),
}
"""name -> :class:`Entry`: every built-in dataset, in the order the apps list them."""

# Names of this package that live in a generator's module (imported on first use).
_LAZY = {
    "oracle_partition": ("_synthetic", "oracle_partition"),
    "STEP_MODES": ("_synthetic", "STEP_MODES"),
    "NOISE_MODES": ("_synthetic", "NOISE_MODES"),
    "STRAY_MODES": ("_boids", "STRAY_MODES"),
    "FLOCK_DIMS": ("_boids", "FLOCK_DIMS"),
    "GAPMINDER_FEATURES": ("_gapminder", "FEATURES"),
    "load_video": ("_video", "load_video"),
}


def _table() -> str:
    """The catalogue as a reStructuredText table (this module's docstring)."""
    import textwrap

    width = max(len(f"``{name}``") for name in CATALOG)
    rule = f"{'=' * width}  {'=' * 69}"
    rows = [rule, f"{'name':<{width}}  scenario", rule]
    for name, entry in CATALOG.items():
        lines = textwrap.wrap(entry.scenario, 69) or [""]
        rows.append(f"{f'``{name}``':<{width}}  {lines[0]}")
        rows += [f"{'':<{width}}  {line}" for line in lines[1:]]
    return "\n".join([*rows, rule])


__doc__ = __doc__.format(table=_table())


def _generator(name: str) -> Callable[..., TemporalDataset]:
    entry = CATALOG[name]
    return getattr(importlib.import_module(f".{entry.module}", __name__), entry.function)


class _Loaders(dict):
    """name -> generator, each imported on first use (a test may put a stand-in in)."""

    def __missing__(self, name: str) -> Callable[..., TemporalDataset]:
        if name not in CATALOG:
            raise KeyError(name)
        self[name] = loader = _generator(name)
        return loader

    def __contains__(self, name: object) -> bool:
        return name in CATALOG or dict.__contains__(self, name)


_LOADERS: dict[str, Callable[..., TemporalDataset]] = _Loaders()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:  # the lazy names too (help(), completion, the API reference)
    return sorted(set(globals()) | set(_LAZY))


def available() -> list[str]:
    """Names accepted by :func:`load`.

    Returns
    -------
    list of str
    """
    return list(CATALOG)


# name -> the specs its generator declares (read from the generator itself: a stand-in
# loader keeps the real form)
_PARAMS: dict[str, tuple[Param, ...]] = {}


def dataset_params(name: str) -> tuple[Param, ...]:
    """Specs of a built-in dataset's parameters (``seed`` first), in signature order.

    Parameters
    ----------
    name : str
        One of :func:`available` (case-insensitive).

    Returns
    -------
    tuple of Param

    Raises
    ------
    ValueError
        For an unknown name (the message lists the available ones).
    """
    key = str(name).lower()
    if key not in CATALOG:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(available())}")
    if key not in _PARAMS:
        _PARAMS[key] = _generator(key).param_specs
    return _PARAMS[key]


def load(name: str, seed: int | None = DATA_SEED.default, **params: Any) -> TemporalDataset:
    """Generate a built-in dataset.

    Parameters
    ----------
    name : str
        One of :func:`available` (case-insensitive), e.g. ``"syn3"``.
    seed : int or None, default=0
        Data seed, separate from any algorithm seed: the same seed gives
        identical arrays.
    **params
        Scenario parameters: :func:`dataset_params` lists them with their
        defaults and allowed values, and each generator documents them, e.g.
        ``help(ercot_nb.datasets._synthetic.syn1)``,
        ``help(ercot_nb.datasets._boids.bird_flocks)``,
        ``help(ercot_nb.datasets._gapminder.gapminder)`` and
        ``help(ercot_nb.datasets._video.video_mo)``.

    Returns
    -------
    TemporalDataset

    Raises
    ------
    ValueError
        For an unknown name (the message lists the available ones) or an
        invalid parameter value.

    Examples
    --------
    >>> from ercot_nb import datasets
    >>> datasets.load("syn5")
    TemporalDataset(name='syn5', steps=10, features=2, samples=160..200, labels=yes)
    """
    key = str(name).lower()
    checked = validate_params(key, dataset_params(key), {"seed": seed, **params})  # an unknown name: the list
    seed = checked.pop("seed")
    if "features" in checked:  # a subset comes back as a tuple; the loader takes any sequence
        checked["features"] = list(checked["features"])
    return _LOADERS[key](seed, **checked)
