"""The explorer page: one self-contained HTML file of a run, linked views, no kernel."""
from __future__ import annotations

import base64
import functools
import gzip
import html
import json
import re
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

from .._files import atomic_write_text, check_outputs
from ..data import TemporalDataset
from ..result import ClusteringResult
from ._data import MAX_MEMBERS, MAX_POINTS, VIDEO_MAX_PIXELS, page_data

# plotly.js's only CDN address is the default map-data URL of geo plots, which
# the page never draws; pointing it at a local folder keeps the page free of
# network references.
_CDN_URL = re.compile(r"https?://cdn\.plot\.ly/[^\"'\s]*")
_TOKEN = re.compile(r"\{\{(TITLE|PLOTLYTYPE|ENCODING|PLOTLYJS|DATA|APPJS)\}\}")
_GZIP = "gzip+base64"


def _packed(text: str) -> str:
    """gzip (fixed header, so the page is reproducible) then base64: safe inside any element."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), 9, mtime=0)).decode("ascii")


@functools.lru_cache(maxsize=2)
def _plotlyjs(compress: bool) -> str:
    from plotly.offline import get_plotlyjs

    code = _CDN_URL.sub("./topojson/", get_plotlyjs())
    return _packed(code) if compress else _script_safe(code)


def _script_safe(text: str) -> str:
    """Text that cannot close or comment its ``<script>`` element."""
    return re.sub(r"<(/?script|!--)", r"<\\\1", text, flags=re.IGNORECASE)


def _json_for_script(data: Any) -> str:
    """JSON that is inert inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` become ``\\u`` escapes, so no string from the data
    can end the element or open a comment; U+2028/9 are escaped for old
    JavaScript parsers.  ``JSON.parse`` gives back the exact strings.
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


def _resource(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


class ExplorerPage:
    """One run's views on one offline page, all driven by one time slider and a Play button.

    The page shows every view of ``ercot_nb.figures.VIEWS`` that applies
    to the run and data (partition in 2-D and 3-D, video, Pareto front,
    alpha, number of clusters, cluster sizes, scores, cluster flow), as the
    views themselves draw them (see :mod:`ercot_nb.page`).

    The page holds plotly.js and every step's data (no network, no kernel),
    so it works in any browser, in e-mail attachments, and inline in any
    notebook front end (JupyterLab, Notebook 7, VS Code, Colab, nbviewer,
    nbconvert HTML) through ``_repr_html_``.  Clicking a first-front
    member of the Pareto plot shows that member's partition (see
    :meth:`ClusteringResult.labels_of_member <ercot_nb.result.ClusteringResult.labels_of_member>`) in the partition, 3-D and
    video views.

    Parameters
    ----------
    result : ClusteringResult or fitted estimator
        The run.
    dataset : TemporalDataset, optional
        The data the run was fitted on; without it the page has no
        partition, 3-D or video view.
    max_points : int, default=MAX_POINTS
        At most this many samples per step are drawn in the scatter views
        (a fixed random choice of ids, said on the page); the other views
        use all samples.  The page grows linearly with steps x shown samples.
    max_members : int, default=MAX_MEMBERS
        At most this many distinct first-front partitions per step are
        stored (spread along the front; the knee always).
    video_max_pixels : int, default=VIDEO_MAX_PIXELS
        Video images above this many pixels are shown strided.
    height : int, default=900
        Height in CSS pixels of the inline frame of ``_repr_html_``.
    compress : bool, default=True
        Store plotly.js and the data gzip-compressed (base64), unpacked by
        the browser's ``DecompressionStream`` (Chrome/Edge 80+, Firefox
        113+, Safari 16.4+): the page is about 2.5 times smaller.  ``False``
        writes plain script and JSON, readable in any browser.

    Examples
    --------
    >>> page = ExplorerPage(model.result_, data)   # doctest: +SKIP
    >>> page.save("run.html")                      # doctest: +SKIP
    """

    def __init__(
        self,
        result: Any,
        dataset: TemporalDataset | None = None,
        *,
        max_points: int = MAX_POINTS,
        max_members: int = MAX_MEMBERS,
        video_max_pixels: int = VIDEO_MAX_PIXELS,
        height: int = 900,
        compress: bool = True,
    ) -> None:
        inner = getattr(result, "result_", result)
        if not isinstance(inner, ClusteringResult):
            raise TypeError(f"expected a ClusteringResult or a fitted estimator, got {type(result).__name__}")
        if isinstance(height, bool) or not isinstance(height, int) or height < 200:
            raise ValueError(f"height must be an int >= 200 (CSS pixels), got {height!r}")
        self.result = inner
        self.dataset = dataset
        self.height = height
        self.compress = bool(compress)
        self.data = page_data(inner, dataset, max_points=max_points, max_members=max_members,
                              video_max_pixels=video_max_pixels)
        self._html: str | None = None

    @property
    def title(self) -> str:
        name = self.data["dataset"]
        return f"{self.data['algorithm']} on {name}" if name else self.data["algorithm"]

    def to_html_string(self) -> str:
        """The whole page as one string (plotly.js embedded)."""
        if self._html is None:
            data = _json_for_script(self.data)
            parts = {
                "TITLE": html.escape(self.title),
                "PLOTLYTYPE": "application/octet-stream" if self.compress else "text/javascript",
                "ENCODING": _GZIP if self.compress else "none",
                "PLOTLYJS": _plotlyjs(self.compress),
                "DATA": _packed(data) if self.compress else data,
                "APPJS": _script_safe(_resource("explorer.js")),
            }
            # one pass over the template: inserted text is never searched for tokens
            self._html = _TOKEN.sub(lambda match: parts[match.group(1)], _resource("template.html"))
        return self._html

    def save(self, path: str | PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the page to ``path`` (parent folders are created); returns the path.

        An existing file is replaced only with ``overwrite=True`` (otherwise a
        ``ValueError``); the write is atomic (see :mod:`ercot_nb._files`).
        """
        path = check_outputs({"path": path}, overwrite=overwrite, create_parents=True)["path"]
        text = self.to_html_string()
        path.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_text(path, text)

    def _repr_html_(self) -> str:
        """An ``<iframe srcdoc>`` holding the page: runs in any notebook front end and export.

        The frame is sandboxed (scripts only, no access to the notebook's
        page), and the whole page is attribute-escaped.
        """
        return (
            f'<iframe class="ercot-nb-explorer-page" title="{html.escape(self.title)} explorer" '
            f'sandbox="allow-scripts" style="width: 100%; height: {self.height}px; border: 1px solid #ddd;" '
            f'srcdoc="{html.escape(self.to_html_string(), quote=True)}"></iframe>'
        )

    def __repr__(self) -> str:
        return f"ExplorerPage({self.title!r}, steps={self.data['n_steps']})"


def write(result: Any, path: str | PathLike[str], dataset: TemporalDataset | None = None, *,
          overwrite: bool = False, **options: Any) -> Path:
    """Write a run's explorer page: one self-contained, offline HTML file.

    plotly.js and every step's data are embedded (no CDN, no kernel).  One
    time slider and a Play button drive every view of
    ``ercot_nb.figures.VIEWS`` that applies to the run and data (the
    partition in 2-D and 3-D and the video view need ``dataset``); a click on
    a first-front member of the Pareto front shows its partition.  See
    :class:`ExplorerPage`.

    Parameters
    ----------
    result : ClusteringResult or fitted estimator
        The run.
    path : str or path-like
        Output ``.html`` file; parent folders are created.
    dataset : TemporalDataset, optional
        The data the run was fitted on (needed for the partition views).
    overwrite : bool, default=False
        Replace an existing file (otherwise a ``ValueError``); the write
        is atomic either way (see :mod:`ercot_nb._files`).
    **options
        Keyword arguments of :class:`ExplorerPage` (``max_points``, ``compress``...).

    Returns
    -------
    pathlib.Path
        The written file.

    Examples
    --------
    >>> from ercot_nb import page
    >>> page.write(model.result_, "run.html", data)   # doctest: +SKIP
    """
    return ExplorerPage(result, dataset, **options).save(path, overwrite=overwrite)
