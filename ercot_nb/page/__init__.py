"""One self-contained, linked explorer page of a run (no kernel, no network).

:class:`ExplorerPage` gathers, from the view registry of
:mod:`ercot_nb.figures`, each view's parts and its changes per step and per
front member (``_data``), and fills an HTML template shipped with the
package (``template.html``) with plotly.js and a generic renderer
(``explorer.js``, which knows no view by name) embedded.  One time
slider and a Play button drive every view; a click on a Pareto-front member
shows that member's partition.  :func:`write` (``page.write(result, path, dataset)``)
and ``Explorer.to_html`` write this page.
"""
from ._data import MAX_MEMBERS, MAX_POINTS, VIDEO_MAX_PIXELS, page_data
from ._page import ExplorerPage, write
from ._table import read_table

__all__ = ["write", "ExplorerPage", "page_data", "read_table", "MAX_POINTS", "MAX_MEMBERS", "VIDEO_MAX_PIXELS"]
