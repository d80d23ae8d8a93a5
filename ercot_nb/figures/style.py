"""Shared style of every figure: template, cluster colours, sizes, small layout pieces.

Clusters are coloured by their *aligned* label (see
:attr:`ercot_nb.result.StepResult.aligned_labels`), so a cluster keeps its
colour across time steps and across views.
"""
from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import qualitative

from ..result import ClusteringResult

__all__ = [
    "WEBGL_THRESHOLD", "TEMPLATE", "TEMPLATE_TRACE_TYPES", "PALETTE", "COLOUR_VISION_SAFE", "CLUSTER_SYMBOLS", "label_symbol", "INK", "MUTED", "label_color", "cluster_colors",
    "rgba", "as_result", "plain", "plain_times", "escape", "step_index", "base_layout",
    "padded_range", "time_axis", "message_annotation", "current_step_line", "CURRENT_STEP",
    "counted", "plain_trace", "as_trace", "title_layout", "TICKED_STEPS", "is_numeric_time",
]

WEBGL_THRESHOLD = 5000
"""Above this many points per step, scatter traces use WebGL (``go.Scattergl``)."""

TEMPLATE_TRACE_TYPES = ("scatter", "scattergl", "scatter3d", "heatmap", "image", "sankey", "table")
"""The trace types the package draws: the ones whose defaults :data:`TEMPLATE` keeps."""


def _template() -> go.layout.Template:
    """plotly_white, its trace defaults for ``TEMPLATE_TRACE_TYPES`` only.

    Figures draw the same.  plotly_white also holds the defaults of 17 other trace types
    (bars, maps, polar, ternary, ...), which plotly validated again for every figure, for
    traces no figure of the package has: seven bare FigureWidgets took 27 MiB more of their
    process's own memory with plotly_white, and an app kernel after ``Explorer("syn3")``
    holds 99 modules and about 6 MiB less with this template (``ercot-nb bench kernel``).
    """
    import json
    import pkgutil

    try:  # as plotly.io reads its named templates
        full = json.loads(pkgutil.get_data("plotly", "package_data/templates/plotly_white.json") or b"")
    except (OSError, ValueError):  # pragma: no cover - a plotly without the file
        full = pio.templates["plotly_white"].to_plotly_json()
    data = {name: traces for name, traces in full.get("data", {}).items() if name in TEMPLATE_TRACE_TYPES}
    return go.layout.Template(layout=full.get("layout", {}), data=data)


TEMPLATE = "ercot_nb"
"""The name of every figure's template, registered in ``plotly.io.templates`` on import:
plotly_white with the trace defaults of the trace types the package draws only
(``ercot_nb.figures.style.TEMPLATE_TRACE_TYPES``): figures look the same, and plotly no
longer validates the defaults of 17 other trace types for every figure."""
if TEMPLATE not in pio.templates:
    pio.templates[TEMPLATE] = _template()

COLOUR_VISION_SAFE = ("#0072B2", "#FF7F0E", "#8C564B", "#66CCEE", "#CC3311", "#CC79A7", "#882255", "#4EB265")
"""The first eight cluster colours: chosen among the Okabe-Ito, Paul Tol and D3 colours (none
lighter than L* 80 on white, no grey) so that they stay apart for the common colour-vision
deficiencies: simulated with Machado et al. (2009) at full severity, the least CIELAB distance
(ΔE76) between two of them is 30.8 for normal vision, 22.7 under protanopia, 20.8 under
deuteranopia and 18.0 under tritanopia (D3's first eight: 27.7, 4.6, 7.3 and 15.2);
tests/figures/test_palette_colour_vision.py checks it."""

PALETTE: tuple[str, ...] = tuple(dict.fromkeys(
    c.upper() for c in (*COLOUR_VISION_SAFE, *qualitative.D3, *qualitative.Dark24) if c.upper() != "#222A2A"
))
"""Strong colours that read well on white, :data:`COLOUR_VISION_SAFE` first; near-black is left
out (it marks outlines)."""

INK = "#222222"  # outlines, knee, entered-sample rings
MUTED = "#9E9E9E"
SIZES = {"partition": (640, 540), "pareto": (640, 500), "line": (680, 400)}
_PAD = 0.05  # fraction of the data span added around fixed axis ranges

CURRENT_STEP = "current step"

UNCHECKED = {"_validate": False}
"""Keyword arguments of a plotly trace built from this package's own values: plotly's per-property
checks cost about 2 ms a trace, which dominated the page of a long run (every step and member
of the partition and Pareto views is built).  The static figures are checked when ``go.Figure``
takes the traces' JSON."""


def plain_trace(kind: str, **props: Any) -> dict[str, Any]:
    """A trace as a plain dict: what plotly's ``to_plotly_json`` gives for ``kind(**props)``.

    ``None`` values are left out (plotly drops them too).  Views hand such
    dicts to a front end that needs no plotly object (the page's per-step
    changes: building a plotly trace and copying it back out cost most of
    a long run's page); :func:`as_trace` makes the plotly trace of one.
    """
    out = {key: value for key, value in props.items() if value is not None}
    out["type"] = kind
    return out


def as_trace(spec: dict[str, Any]) -> Any:
    """The plotly trace of a :func:`plain_trace` dict (built without plotly's checks, as ``figures.style.UNCHECKED`` says)."""
    kind = spec["type"]
    make = _TRACE_TYPES.get(kind) or getattr(go, kind[:1].upper() + kind[1:])
    return make(**UNCHECKED, **{key: value for key, value in spec.items() if key != "type"})


_TRACE_TYPES: dict[str, Any] = {"scatter": go.Scatter, "scattergl": go.Scattergl, "scatter3d": go.Scatter3d}


def counted(n: int, noun: str) -> str:
    """``"1 cluster"``, ``"3 clusters"``: a count with its noun in the right number.

    Parameters
    ----------
    n : int
    noun : str
        The singular; the plural adds an ``s``.

    Returns
    -------
    str
    """
    return f"{int(n)} {noun}" + ("" if int(n) == 1 else "s")
"""Name of the marker trace and of the dashed line shape that mark the step shown."""


def label_color(label: int) -> str:
    """Colour of one aligned cluster label.

    Parameters
    ----------
    label : int
        Aligned label (non-negative).  Labels beyond the palette length wrap
        around.

    Returns
    -------
    str
        A ``#RRGGBB`` colour.
    """
    return PALETTE[int(label) % len(PALETTE)]


CLUSTER_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "pentagon", "star", "hexagon")
"""Marker shapes of aligned labels 0-7 (then again): a second cue beside the colour (the centroids are x's)."""
CLUSTER_SYMBOLS_3D = ("circle", "square", "diamond", "cross", "circle-open", "square-open", "diamond-open")
"""The same for 3-D scatters, whose markers know fewer shapes (the centroids are diamonds there)."""


def label_symbol(label: int, three_d: bool = False) -> str:
    """Marker shape of one aligned cluster label (wraps around like :func:`label_color`).

    Parameters
    ----------
    label : int
        Aligned label (non-negative).
    three_d : bool, default=False
        For a 3-D scatter.

    Returns
    -------
    str
        A plotly marker symbol.
    """
    symbols = CLUSTER_SYMBOLS_3D if three_d else CLUSTER_SYMBOLS
    return symbols[int(label) % len(symbols)]


def cluster_colors(n: int) -> list[str]:
    """Colours of aligned labels ``0 .. n-1`` (the fixed qualitative palette).

    Parameters
    ----------
    n : int
        Number of colours.

    Returns
    -------
    list of str
        ``cluster_colors(n)[k] == label_color(k)``.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return [label_color(k) for k in range(n)]


def rgba(color: str, opacity: float) -> str:
    """``#RRGGBB`` as an ``rgba(...)`` string."""
    red, green, blue = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{opacity})"


def as_result(result: Any) -> ClusteringResult:
    """Accept a ClusteringResult or a fitted estimator exposing ``result_``."""
    if isinstance(result, ClusteringResult):
        return result
    inner = getattr(result, "result_", None)
    if isinstance(inner, ClusteringResult):
        return inner
    raise TypeError(
        f"expected a ClusteringResult or a fitted estimator, got {type(result).__name__}"
    )


def plain(value: Any) -> Any:
    """A numpy scalar as a plain Python value (for clean figure JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def plain_times(times: Sequence[Any]) -> list[Any]:
    """Time labels as plain values; text labels HTML-escaped (Plotly renders HTML in them)."""
    return [escape(t) if isinstance(t, str) else plain(t) for t in times]


def escape(value: Any) -> str:
    """Text of a value from data (names, ids, time labels), safe inside figure text.

    Plotly renders a subset of HTML in titles, hover labels, legends and
    annotations, so every string from data or files is escaped.  Quotes
    become numeric entities: plotly.js decodes ``&#34;`` but shows
    ``&quot;`` as it is.
    """
    return html.escape(str(plain(value)), quote=False).replace('"', "&#34;").replace("'", "&#39;")


def step_index(steps: Any, t: int, what: str = "result") -> int:
    """``t`` as a non-negative step index of ``steps`` (negative counts from the end)."""
    n = len(steps)
    if not isinstance(t, (int, np.integer)) or isinstance(t, bool) or not -n <= t < n:
        raise IndexError(f"step t={t!r} is out of range for a {what} with {n} step(s)")
    return int(t) % n


def title_layout(title: str) -> dict[str, Any]:
    """The ``layout.title`` of :func:`base_layout` (a change of a view's title alone)."""
    return {"text": title}


def base_layout(kind: str, title: str, **extra: Any) -> dict[str, Any]:
    """Layout dict of a figure of ``kind`` (``"partition"``, ``"pareto"``, ``"line"``)."""
    width, height = SIZES[kind]
    return dict(
        title=title_layout(title),
        template=TEMPLATE,
        width=width,
        height=height,
        **{"margin": dict(l=60, r=20, t=60, b=55), **extra},
    )


def padded_range(low: float, high: float) -> list[float]:
    """``[low, high]`` widened by a small margin (a fixed axis range)."""
    span = high - low
    pad = _PAD * span if span > 0 else 0.5
    return [float(low - pad), float(high + pad)]


TICKED_STEPS = 30
"""A time axis of numeric times lists the tick of every time up to this many steps."""


def is_numeric_time(time: Any) -> bool:
    """Whether a time label is a number (not a bool): numeric times make a linear time axis."""
    return isinstance(time, (int, float)) and not isinstance(time, bool)


def time_axis(times: Sequence[Any], *, numeric: bool | None = None) -> dict[str, Any]:
    """x-axis showing every step's time label, numeric or categorical.

    ``numeric``: whether every time is a number, when already known (a
    growing time line keeps it; the axis then costs O(1) past ``TICKED_STEPS``).
    """
    if numeric is None:
        numeric = all(is_numeric_time(t) for t in times)
    axis: dict[str, Any] = dict(title=dict(text="time"))
    if numeric and len(times) <= TICKED_STEPS:
        axis.update(tickmode="array", tickvals=list(times))
    elif not numeric:
        axis.update(type="category")
    return axis


def message_annotation(text: str) -> dict[str, Any]:
    """A note in the middle of an empty plot, wrapped at 40 characters to fit a narrow view."""
    return dict(
        text="<br>".join(textwrap.wrap(text, 40)) or text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
        font=dict(size=14, color=MUTED),
    )


def current_step_line(time: Any) -> dict[str, Any]:
    """A dashed vertical line across the plot at ``time`` (a shape named ``"current step"``)."""
    return dict(
        type="line", name=CURRENT_STEP, xref="x", yref="paper", x0=time, x1=time, y0=0, y1=1,
        line=dict(color=MUTED, width=1.5, dash="dash"),
    )
