"""Notebook widgets: explore temporal clustering runs live, in JupyterLab or Voila.

Needs the ``notebook`` extra (``pip install ercot-nb[notebook]``: ipywidgets
and anywidget, which Plotly's ``FigureWidget`` uses).  The core package never
imports this module.

============================  ===================================================
class                         what it is
============================  ===================================================
:class:`Explorer`             the whole app: data, run, time scrubber, all views
:class:`Compare`              several algorithms side by side on one dataset
:class:`DatasetPicker`        built-in scenario with parameters, or a CSV upload
:class:`RunPanel`             algorithm, parameters, Run/Stop, progress bar
:class:`TimeScrubber`         Play + step slider
:class:`PartitionView`        samples of one step by cluster (or front member)
:class:`VideoView`            a video frame, its segmentation and the truth
:class:`ParetoView`           final population of one step; click to pick
:class:`AlphaView`            smoothness weight alpha (alpha_i on demand)
:class:`ScoresView`           RI / NMI per step of every run
:class:`FlowsView`            cluster flow between steps (Sankey)
:class:`RegistryView`         any view of ``ercot_nb.figures.VIEWS`` (e.g. sizes)
:class:`PageShown`            invisible; says when a page has drawn an app
============================  ===================================================

Views render one :class:`~ercot_nb.widgets._state.AppState` and keep no copy
of it (a view made alone draws a state of its own); the Explorer shows one
view per registered view (``VIEWS``), so a view added to the registry
appears there as it is.

Every view has ``static()``: the same content as a plain Plotly figure
(:mod:`ercot_nb.figures`), which renders without a kernel (nbviewer, HTML
export); ``ercot_nb.page.write(result, path, dataset)`` writes a whole run offline.

Apps for Voila live in the repository's ``widgets/`` folder;
``ercot-nb app`` serves the Explorer.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Imported on first use, so that `ercot_nb.widgets.serve.launcher` (the `ercot-nb app`
# launcher) starts without loading Plotly's widget machinery.
_LAZY = {
    "Explorer": ".apps.explorer",
    "VIEWS": ".apps.explorer",
    "Compare": ".apps.compare",
    "DatasetPicker": ".apps.dataset_picker",
    "RunPanel": ".apps.run_panel",
    "TimeScrubber": ".apps.scrubber",
    "PartitionView": ".views.partition",
    "VideoView": ".views.video",
    "ParetoView": ".views.pareto",
    "AlphaView": ".views.alpha",
    "ScoresView": ".views.scores",
    "FlowsView": ".views.flows",
    "RegistryView": ".views.registry",
    "PageShown": "._shown",
}

__all__ = list(_LAZY)

if TYPE_CHECKING:  # pragma: no cover
    from .views.alpha import AlphaView
    from .apps.compare import Compare
    from .apps.dataset_picker import DatasetPicker
    from .apps.explorer import VIEWS, Explorer
    from .views.pareto import ParetoView
    from .views.partition import PartitionView
    from .apps.run_panel import RunPanel
    from ._shown import PageShown
    from .views.registry import RegistryView
    from .views.flows import FlowsView
    from .views.scores import ScoresView
    from .apps.scrubber import TimeScrubber
    from .views.video import VideoView


_DEPRECATED = {"SankeyView": "FlowsView"}  # old name -> the name of the registry's view


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        import warnings

        warnings.warn(f"ercot_nb.widgets.{name} is now {_DEPRECATED[name]} (one name per view: the registry's)",
                      DeprecationWarning, stacklevel=2)
        return __getattr__(_DEPRECATED[name])
    if name not in _LAZY:
        raise AttributeError(f"module 'ercot_nb.widgets' has no attribute {name!r}")
    try:
        import anywidget  # noqa: F401  (plotly's FigureWidget needs it)
        import ipywidgets  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "ercot_nb.widgets needs ipywidgets and anywidget: pip install 'ercot-nb[notebook]'"
        ) from exc
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
