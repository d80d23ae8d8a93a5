"""One self-contained, linked explorer page of a run (no kernel, no network).

:class:`ExplorerPage` gathers every step's data of a run (``_data``) and
fills an HTML/JavaScript template shipped with the package
(``template.html``, ``explorer.js``) with plotly.js embedded.  One time
slider and a Play button drive every view; a click on a Pareto-front member
shows that member's partition.  ``ClusteringResult.to_html`` and
``Explorer.to_html`` write this page.
"""
from ._data import MAX_MEMBERS, MAX_POINTS, VIDEO_MAX_PIXELS, page_data
from ._page import ExplorerPage

__all__ = ["ExplorerPage", "page_data", "MAX_POINTS", "MAX_MEMBERS", "VIDEO_MAX_PIXELS"]
