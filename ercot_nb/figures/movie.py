"""A run's steps as an animated GIF or an MP4: one frame per step, for slides and course pages.

Each frame is a view of the registry (``ercot_nb.figures.VIEWS``) at that step,
or the partition and the Pareto front side by side (``"partition+front"``).
The views' own Plotly figures are drawn with matplotlib (Plotly's static
export needs kaleido and a Chrome, which an offline machine may not have):
their scatter traces (markers, lines, colours, symbols, sizes, opacity),
images (a video's frames and segmentations), subplots, dashed step lines,
axis titles and ranges, title and legend.  A view of another kind (the
Sankey diagram) is refused by name.  Encoding is imageio's: Pillow for GIF,
the ffmpeg binary of ``imageio-ffmpeg`` (H.264, yuv420p) for MP4.
"""
from __future__ import annotations

import base64
import io
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .._files import atomic_write, check_outputs
from ..result import ClusteringResult
from .protocol import ViewData
from .style import as_result

__all__ = ["MOVIE_FORMATS", "PAIR", "movie_frames", "frame_image", "write_movie"]

MOVIE_FORMATS = (".gif", ".mp4")
"""The file suffixes :func:`write_movie` writes."""

PAIR = "partition+front"
"""The ``view`` of :func:`write_movie` drawing the partition (or a video's frames) and the front side by side."""

_DPI = 100
_LEGEND_WIDTH = 190  # pixels right of the plot for the legend
_MIN_HEIGHT = 360.0  # pixels: a front beside a short view keeps readable axes and its legend
_LINE = 14.0  # pixels: one line of an axis title (9 pt)
_SYMBOLS = {
    "circle": "o", "square": "s", "diamond": "D", "cross": "P", "x": "X", "triangle-up": "^",
    "triangle-down": "v", "triangle-left": "<", "triangle-right": ">", "star": "*",
    "pentagon": "p", "hexagon": "h", "hexagram": "*", "star-diamond": "d", "diamond-tall": "d",
    "circle-x": "X", "asterisk": "*", "hourglass": "X", "bowtie": "X",
}
_DASHES = {"dash": "--", "dot": ":", "dashdot": "-."}
_TAG = re.compile(r"<[^>]+>")


def _text(value: Any) -> str:
    """Plotly's text (``<br>``, ``<b>``, entities) as plain text."""
    import html

    text = "" if value is None else str(value)
    return html.unescape(_TAG.sub("", text.replace("<br>", "\n")))


_RGB = re.compile(r"rgba?\(([^)]*)\)")


def _color(value: Any) -> Any:
    """A plotly colour (``#RRGGBB``, ``rgb(r, g, b)``, ``rgba(r, g, b, a)``, a name) for matplotlib."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_color(item) for item in value]
    match = _RGB.fullmatch(str(value).replace(" ", "")) if isinstance(value, str) else None
    if match is None:
        return value
    parts = [float(part) for part in match.group(1).split(",")]
    return (parts[0] / 255, parts[1] / 255, parts[2] / 255, *(parts[3:4] or [1.0]))


def _symbol(symbol: Any) -> tuple[str, bool]:
    """matplotlib marker and whether it is hollow, for a plotly symbol name."""
    name = str(symbol) if isinstance(symbol, str) else "circle"
    hollow = name.endswith("-open") or name.endswith("-open-dot")
    base = name.replace("-open-dot", "").replace("-open", "").replace("-dot", "")
    return _SYMBOLS.get(base, "o"), hollow


def _views(key: str, data: ViewData) -> list[Any]:
    """The views a movie ``key`` draws side by side, checked against the data."""
    from .views import VIEWS

    by_key = {view.key: view for view in VIEWS}
    if key == PAIR:
        first = by_key["partition"] if by_key["partition"].applies(data) else by_key["video"]
        return [first, by_key["pareto"]] if by_key["pareto"].applies(data) else [first]
    if key == "partition" and key in by_key and not by_key[key].applies(data) and "video" in by_key:
        key = "video"  # a video's partition is its frames and segmentation
    choices = (PAIR, *by_key)
    if key not in by_key:
        raise ValueError(f"movie: unknown view {key!r}; choose one of {', '.join(choices)}")
    if not by_key[key].applies(data):
        raise ValueError(f"movie: the {key!r} view does not apply to this run or dataset; choose "
                         f"another of {', '.join(choices)}")
    return [by_key[key]]


def _axes_rects(layout: Any, width: float, height: float, extra: float = 0.0) -> dict[str, list[float]]:
    """The figure rectangle (left, bottom, width, height in figure fractions) of every x axis.

    ``extra`` pixels are added at the right of the ``width`` of the plotly figure (its legend).
    """
    margin = layout.margin
    left = (margin.l if margin.l is not None else 80) / (width + extra)
    right = ((margin.r if margin.r is not None else 80) + extra) / (width + extra)
    top = (margin.t if margin.t is not None else 100) / height
    bottom = (margin.b if margin.b is not None else 80) / height
    names = sorted((name for name in layout if re.fullmatch(r"xaxis\d*", name)), key=len) or ["xaxis"]
    rects = {}
    for name in names:
        x_domain = layout[name].domain or (0, 1)
        y_name = "yaxis" + name[5:]
        y_domain = (layout[y_name].domain if y_name in layout else None) or (0, 1)
        plot_w, plot_h = max(1 - left - right, 0.1), max(1 - top - bottom, 0.1)
        rects["x" + name[5:]] = [left + x_domain[0] * plot_w, bottom + y_domain[0] * plot_h,
                                 (x_domain[1] - x_domain[0]) * plot_w, (y_domain[1] - y_domain[0]) * plot_h]
    return rects


def _draw_trace(ax: Any, trace: Any) -> Any:
    """Draw one plotly trace on ``ax``; the legend handle, or None."""
    if trace.visible in (False, "legendonly"):
        return None
    if trace.type == "image":
        from PIL import Image

        if trace.source:
            image = np.asarray(Image.open(io.BytesIO(base64.b64decode(trace.source.split(",", 1)[1]))))
        else:
            image = np.asarray(trace.z, dtype=np.uint8)
        ax.imshow(image, interpolation="nearest")
        ax.set_axis_off()
        return None
    if trace.type not in ("scatter", "scattergl") or trace.x is None or trace.y is None:
        return None
    x = np.asarray([np.nan if v is None else v for v in trace.x], dtype=object)
    y = np.asarray([np.nan if v is None else v for v in trace.y], dtype=object)
    try:
        x, y = x.astype(float), y.astype(float)
    except (TypeError, ValueError):  # category or date labels: plotted in order
        x = np.arange(len(x), dtype=float) if x.dtype == object else x
        y = y.astype(float)
    mode = trace.mode or "markers"
    opacity = 1.0 if trace.opacity is None else float(trace.opacity)
    handle = None
    if "lines" in mode:
        line = trace.line
        handle, = ax.plot(x, y, color=_color(line.color or "#444444"), linewidth=(line.width or 2) * 0.75,
                          linestyle=_DASHES.get(line.dash or "", "-"), alpha=opacity,
                          label=_text(trace.name))
    if "markers" in mode:
        marker = trace.marker
        symbols = marker.symbol
        symbol = symbols[0] if isinstance(symbols, (list, tuple)) and len(symbols) else symbols
        shape, hollow = _symbol(symbol)
        color = marker.color if marker.color is not None else "#444444"
        if isinstance(color, (list, tuple, np.ndarray)) and len(color) and isinstance(color[0], (int, float)):
            color = "#444444"  # a numeric colour scale: not drawn here
        color = _color(color)
        sizes = marker.size if marker.size is not None else 6
        sizes = np.square(np.asarray(sizes, dtype=float) * 0.75)
        edge = _color(marker.line.color) if marker.line and marker.line.color is not None else "none"
        alpha = marker.opacity if isinstance(marker.opacity, (int, float)) else None
        alpha = opacity * (alpha if alpha is not None else 1.0)
        if hollow:
            handle = ax.scatter(x, y, s=sizes, marker=shape, facecolors="none", edgecolors=color,
                                alpha=alpha, label=_text(trace.name), linewidths=1.2)
        else:
            colors = {"color": color} if isinstance(color, (str, tuple)) else {"c": color}
            handle = ax.scatter(x, y, s=sizes, marker=shape, **colors, alpha=alpha,
                                edgecolors=edge, linewidths=0.8,
                                label=_text(trace.name))
    return handle if trace.showlegend is not False and trace.name else None


def frame_image(figure: Any) -> np.ndarray:
    """A Plotly figure drawn with matplotlib, as an RGB array (height, width, 3) of uint8.

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
        A figure of a view (its ``width`` and ``height`` give the size; 640×500 if unset).

    Returns
    -------
    numpy.ndarray
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    layout = figure.layout
    width, height = float(layout.width or 640), float(layout.height or 500)
    legend = layout.showlegend is not False and any(
        trace.name and trace.showlegend is not False and trace.type != "image" for trace in figure.data)
    extra = _LEGEND_WIDTH if legend else 0.0  # plotly widens its right margin for the legend itself
    canvas_figure = Figure(figsize=((width + extra) / _DPI, height / _DPI), dpi=_DPI)
    canvas = FigureCanvasAgg(canvas_figure)
    rects = _axes_rects(layout, width, height, extra)
    axes = {name: canvas_figure.add_axes(rect) for name, rect in rects.items()}
    handles = []
    for trace in figure.data:
        ax = axes.get(getattr(trace, "xaxis", None) or "x", next(iter(axes.values())))
        handle = _draw_trace(ax, trace)
        if handle is not None and not any(h.get_label() == handle.get_label() for h in handles):
            handles.append(handle)
    for name, ax in axes.items():
        x_axis, y_axis = layout["xaxis" + name[1:]], layout["yaxis" + name[1:]] if (
            "yaxis" + name[1:]) in layout else layout.yaxis
        if not ax.axison:
            continue
        ax.set_xlabel(_text(x_axis.title.text), fontsize=9)
        label = ax.set_ylabel(_text(y_axis.title.text), fontsize=9)
        if label.get_window_extent(canvas.get_renderer()).height > rects[name][3] * height:
            # longer than its axis (a short frame): two lines, the axes moved right by one line
            label.set_text(_two_lines(label.get_text()))
            box, shift = ax.get_position(), _LINE / (width + extra)
            ax.set_position([box.x0 + shift, box.y0, box.width - shift, box.height])
        if x_axis.range is not None:
            ax.set_xlim(*x_axis.range)
        if y_axis.range is not None:
            ax.set_ylim(*y_axis.range)
        ax.tick_params(labelsize=8)
        ax.grid(True, color="#EEEEEE", linewidth=0.8)
        ax.set_axisbelow(True)
        for spine in ax.spines.values():
            spine.set_color("#CCCCCC")
    for shape in layout.shapes or ():
        if shape.type == "line" and shape.x0 is not None and shape.x0 == shape.x1:
            ax = axes.get((shape.xref or "x"), next(iter(axes.values())))
            ax.axvline(float(shape.x0), color=_color(shape.line.color or "#888888"), linestyle="--", linewidth=1)
    for note in layout.annotations or ():  # subplot titles and messages
        if note.xref == "paper" and note.yref == "paper" and note.text:
            # paper coordinates: the plot area, which the axes' domains span
            x_rect = (min(r[0] for r in rects.values()), max(r[0] + r[2] for r in rects.values()))
            y_rect = (min(r[1] for r in rects.values()), max(r[1] + r[3] for r in rects.values()))
            canvas_figure.text(x_rect[0] + (x_rect[1] - x_rect[0]) * (note.x or 0),
                               y_rect[0] + (y_rect[1] - y_rect[0]) * (note.y or 0),
                               _text(note.text), fontsize=9, ha="center", va="bottom")
    canvas_figure.text(0.01, 0.985, _text(layout.title.text), fontsize=11, ha="left", va="top")
    if handles:
        right = max(rect[0] + rect[2] for rect in rects.values())
        canvas_figure.legend(handles=handles, loc="upper left", bbox_to_anchor=(right + 0.01, 0.9),
                             fontsize=8, frameon=False, borderaxespad=0)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def _two_lines(text: str) -> str:
    """``text`` broken at the space nearest its middle."""
    spaces = [i for i, char in enumerate(text) if char == " "]
    if not spaces:
        return text
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return text[:cut] + "\n" + text[cut + 1:]


def _side_by_side(images: list[np.ndarray]) -> np.ndarray:
    height = max(image.shape[0] for image in images)
    padded = [np.pad(image, ((0, height - image.shape[0]), (0, 0), (0, 0)), constant_values=255)
              for image in images]
    return np.concatenate(padded, axis=1)


def movie_frames(result: Any, dataset: Any = None, view: str = PAIR, *,
                 steps: Any = None) -> Iterator[np.ndarray]:
    """The frames of a movie of ``result``: one RGB array per step.

    Parameters
    ----------
    result : ClusteringResult or fitted estimator
    dataset : TemporalDataset, optional
        The data the run was fitted on (needed by the partition views).
    view : str, default="partition+front"
        A key of ``ercot_nb.figures.VIEWS`` (``"partition"`` of a video draws its
        frames) or :data:`PAIR`.
    steps : iterable of int, optional
        The steps drawn; default all.

    Yields
    ------
    numpy.ndarray
        (height, width, 3) uint8, every frame the same size.
    """
    run: ClusteringResult = as_result(result)
    data = ViewData(run, dataset)
    views = _views(view, data)
    for t in range(len(run)) if steps is None else steps:
        yield _side_by_side([frame_image(figure) for figure in _same_height([v.figure(data, int(t)) for v in views])])


def _same_height(figures: list[Any]) -> list[Any]:
    """The figures of one frame, those taller than the first brought down to its height.

    A video's row of panels is short (about 300 px) beside a 500 px front: the front is drawn
    as tall as the row, though no shorter than :data:`_MIN_HEIGHT`, so the frame has no blank
    band under the panels.
    """
    target = max(float(figures[0].layout.height or 500), _MIN_HEIGHT)
    for figure in figures[1:]:
        if float(figure.layout.height or 500) > target:
            figure.update_layout(height=target)
    return figures


def _even(frame: np.ndarray, block: int = 16) -> np.ndarray:
    """Padded with white to a multiple of ``block`` pixels each way (H.264 wants even sizes)."""
    height, width = frame.shape[:2]
    return np.pad(frame, ((0, -height % block), (0, -width % block), (0, 0)), constant_values=255)


def _encode(frames: list[np.ndarray], suffix: str, fps: float, target: Path) -> None:
    import imageio.v2 as imageio

    if suffix == ".gif":
        imageio.mimwrite(target, frames, format="GIF", duration=1000.0 / fps, loop=0)
        return
    writer = imageio.get_writer(target, format="FFMPEG", mode="I", fps=fps, codec="libx264",
                                pixelformat="yuv420p", macro_block_size=1, quality=7,
                                ffmpeg_log_level="error")
    with writer:
        for frame in frames:
            writer.append_data(_even(frame))


def write_movie(result: Any, dataset: Any, path: str | os.PathLike[str], *, view: str = PAIR,
                fps: float = 2.0, overwrite: bool = False) -> Path:
    """Write a run's steps as an animated GIF or an MP4 (by ``path``'s suffix), one frame per step.

    Parameters
    ----------
    result : ClusteringResult or fitted estimator
    dataset : TemporalDataset
        The data the run was fitted on.
    path : path
        Ends in ``.gif`` or ``.mp4``; missing parent folders are created.
    view : str, default="partition+front"
        What each frame shows (see :func:`movie_frames`).
    fps : float, default=2.0
        Steps per second.
    overwrite : bool, default=False
        Replace an existing file; otherwise an existing ``path`` is refused,
        also when another writer created it while this one encoded.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        For another suffix, an unknown view, ``fps`` not positive, an empty
        run, or an existing file without ``overwrite``.

    Notes
    -----
    The movie is encoded into a temporary folder, then written with the
    package's rule (:func:`ercot_nb._files.atomic_write`): atomically, and a
    file that was new stays new (of two writers, one wins and the other gets
    a one-line error; a full disk is one line too).
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in MOVIE_FORMATS:
        raise ValueError(f"movie {target}: the file name must end in {' or '.join(MOVIE_FORMATS)}")
    if not fps > 0:
        raise ValueError(f"movie: fps must be positive, got {fps}")
    run = as_result(result)
    if not len(run):
        raise ValueError("movie: the run has no step to draw")
    target = check_outputs({"path": target}, overwrite=overwrite)["path"]
    frames = list(movie_frames(run, dataset, view))
    with tempfile.TemporaryDirectory(prefix="ercot-nb-movie-") as folder:
        encoded = Path(folder) / f"movie{suffix}"  # ffmpeg writes to a path, not a file object
        _encode(frames, suffix, fps, encoded)
        with encoded.open("rb") as movie:  # the package's write rule: atomic, a new file stays new
            atomic_write(target, lambda file: shutil.copyfileobj(movie, file), overwrite=overwrite or None)
    return target
