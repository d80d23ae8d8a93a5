"""Built-in temporal clustering scenarios, generated on the fly (no download).

===============  =====================================================================
name             scenario
===============  =====================================================================
``syn1``         four 2-D Gaussians; one cluster moves onto another
``syn2``         the 4-D version of syn1
``syn3``         syn1 plus membership switches (concept drift) at t = 4, 5, 6
``syn4``         syn2 plus the same membership switches
``syn5``         syn1 plus removed (t = 4, 8) and inserted (t = 6) samples
``syn6``         syn3 plus the same removals and insertions
``syn7``         syn3 whose moving cluster disappears at t = 5, 6 (k unknown)
``syn8``         syn4 whose moving cluster disappears at t = 5, 6 (k unknown)
``bird_flocks``  Boids flocks on parallel lanes; strays switch flock (k unknown)
``gapminder``    real data: 142 countries x 12 years (plotly's Gapminder table)
``video_bt``     video, 320 x 240 x 12 frames: rippling water, static boat and
                 lighthouse, a blinking lamp (4-5 segments)
``video_mo``     video, 160 x 120 x 9 frames: a room whose chair is moved and
                 rotated (7 segments)
``video_rc``     video, 640 x 360 x 8 frames: panning background, moving car and
                 ball, a walker who enters (3-4 segments)
===============  =====================================================================

Each dataset's ``metadata["description"]`` explains it in full, and
:func:`oracle_partition` gives the nearest-true-mean partition (the reference
accuracy) of any scenario that stores its true means.  The video scenes are
pixel datasets (id = row * W + col, features r, g, b) with exact per-pixel
ground truth; :func:`load_video` turns your own clip (file, image folder or
array) into the same kind of dataset.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..data import TemporalDataset
from ..params import Param, validate_params
from . import _boids, _gapminder, _synthetic, _video
from ._boids import FLOCK_DIMS, STRAY_MODES
from ._gapminder import FEATURES as GAPMINDER_FEATURES
from ._synthetic import NOISE_MODES, STEP_MODES, oracle_partition
from ._seed import DATA_SEED
from ._video import load_video

__all__ = ["load", "available", "dataset_params", "oracle_partition", "load_video", "STEP_MODES",
           "NOISE_MODES", "STRAY_MODES", "FLOCK_DIMS", "GAPMINDER_FEATURES"]

# One entry per loader: name -> function(seed, **params) -> TemporalDataset; each generator
# carries the specs of its parameters as ``param_specs`` (declared next to it).
_LOADERS: dict[str, Callable[..., TemporalDataset]] = {
    "syn1": _synthetic.syn1,
    "syn2": _synthetic.syn2,
    "syn3": _synthetic.syn3,
    "syn4": _synthetic.syn4,
    "syn5": _synthetic.syn5,
    "syn6": _synthetic.syn6,
    "syn7": _synthetic.syn7,
    "syn8": _synthetic.syn8,
    "bird_flocks": _boids.bird_flocks,
    "gapminder": _gapminder.gapminder,
    "video_bt": _video.video_bt,
    "video_mo": _video.video_mo,
    "video_rc": _video.video_rc,
}


# name -> the specs its generator declares (read once: a stand-in loader keeps the real form)
_PARAMS: dict[str, tuple[Param, ...]] = {name: loader.param_specs for name, loader in _LOADERS.items()}


def available() -> list[str]:
    """Names accepted by :func:`load`.

    Returns
    -------
    list of str
    """
    return list(_LOADERS)


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
    if key not in _PARAMS:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(available())}")
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
