"""The views and their registry: each view of a run defined once, one module per view (see :mod:`..protocol`).

:data:`VIEWS` lists every view in reading order.  The static report
(:func:`~ercot_nb.figures.report_figures`), the offline page
(:mod:`ercot_nb.page`) and the widgets iterate it and keep the views that
apply to the data (:func:`views_for`); none of them names a view.

==============  ==============================================  ==========================
key (module)    shows                                           applies to
==============  ==============================================  ==========================
``partition``   the samples of a step coloured by cluster       a dataset, not a video
``partition3d`` the same in 3-D (first three features)          3+ features, not a video
``video``       frame, segmentation and ground truth            a video dataset
``pareto``      the final population and its knee               runs with a population
``alpha``       the smoothness weight over time                 every run
``n_clusters``  chosen (and true) number of clusters            every run
``sizes``       each cluster's number of samples over time      every run
``scores``      RI, NMI or label-free scores per step           a dataset (RI, NMI: labels)
``flows``       cluster flow between steps (Sankey)             every run
==============  ==============================================  ==========================

Each view is the module of its key, ``ercot_nb.figures.views.<key>``, whose
``VIEW`` is a :class:`~ercot_nb.figures.protocol.View` with that key.  A
new view is one new module plus its key in :data:`REGISTRY`.

A view's options that a user chooses between (the scores' ``metric``) are
one view with a :attr:`~ercot_nb.figures.protocol.View.choice`, not a key per
value: ``view("scores").figure(data, metric="NMI")``.
"""
from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module

from ..protocol import CLICK_MEMBER, CLICK_STEP, Change, Patch, View, ViewData, click_meta
from .alpha import Alpha
from .flows import Flows
from .n_clusters import NClusters
from .pareto import Pareto
from .scores import Scores
from .partition import Partition
from .sizes import Sizes, cluster_sizes, cluster_sizes_figure, cluster_sizes_parts
from .video import Video

__all__ = [
    "REGISTRY", "VIEWS", "view", "views_for", "Partition", "Video", "Pareto", "Alpha",
    "NClusters", "Sizes", "Scores", "Flows", "cluster_sizes",
    "cluster_sizes_parts", "cluster_sizes_figure",
    # the protocol, re-exported
    "View", "ViewData", "Change", "Patch", "CLICK_STEP", "CLICK_MEMBER", "click_meta",
]

REGISTRY: tuple[str, ...] = (
    "partition", "partition3d", "video", "pareto", "alpha", "n_clusters", "sizes", "scores", "flows",
)
"""Every view's key in reading order; the key names its module here (one line per view added)."""

VIEWS: tuple[View, ...] = tuple(import_module(f"{__name__}.{key}").VIEW for key in REGISTRY)
"""Every view, in reading order; front ends iterate it (see :func:`views_for`)."""


_RENAMED = {"ri": "view('scores') with metric='RI'", "nmi": "view('scores') with metric='NMI'"}
"""Keys of views that are now an option of another: what to use instead."""


def view(key: str) -> View:
    """The registered view with ``key``.

    Raises
    ------
    KeyError
        If no view has that key (the keys are listed; an old key names its replacement).
    """
    for item in VIEWS:
        if item.key == key:
            return item
    if key in _RENAMED:
        raise KeyError(f"no view {key!r}: it is {_RENAMED[key]} (e.g. view('scores').figure(data, "
                       f"metric={key.upper()!r}))")
    raise KeyError(f"no view {key!r}; views: {[item.key for item in VIEWS]}")


def views_for(data: ViewData) -> Iterator[View]:
    """The registered views that apply to ``data``, in order."""
    return (item for item in VIEWS if item.applies(data))
