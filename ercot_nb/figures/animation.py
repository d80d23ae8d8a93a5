"""Time slider and play/pause buttons of the kernel-free Plotly animations."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go

from .layers import Parts

__all__ = ["add_animation_controls", "animation_figure"]

_BUTTONS_WIDTH = 100  # CSS pixels left of the slider for the play/pause buttons (about 82 wide)


def add_animation_controls(
    layout: dict[str, Any],
    labels: Sequence[Any],
    start: int,
    frame_duration: int,
    *,
    webgl: bool,
) -> None:
    """Add a time slider and play/pause buttons over frames named ``"0", "1", ...``.

    The buttons sit in a fixed-width gap left of the slider (a pixel pad,
    whatever the figure's width) and the slider's current value
    ("time: ...") at its right end, so nothing covers anything else.

    Parameters
    ----------
    layout : dict
        The figure's layout dict, changed in place (it grows by 90 pixels).
    labels : sequence
        The time label of every frame (plain, escaped values).
    start : int
        The frame shown first.
    frame_duration : int
        Milliseconds per frame when playing.
    webgl : bool
        Redraw the whole plot on every frame (WebGL, 3-D and image traces).
    """
    frame_args = dict(mode="immediate", transition=dict(duration=0))
    slider_steps = [
        dict(
            label=str(label),
            method="animate",
            args=[[str(t)], dict(frame=dict(duration=0, redraw=webgl), **frame_args)],
        )
        for t, label in enumerate(labels)
    ]
    layout["height"] += 90
    layout["margin"] = {**layout["margin"], "b": 120}  # a new dict: the view's margins may be shared
    layout["sliders"] = [
        dict(
            name="time",
            active=start,
            steps=slider_steps,
            currentvalue=dict(prefix="time: ", xanchor="right", font=dict(size=13)),
            x=0,
            len=1,
            y=0,
            yanchor="top",
            pad=dict(t=50, b=10, l=_BUTTONS_WIDTH),
        )
    ]
    layout["updatemenus"] = [
        dict(
            name="play",
            type="buttons",
            direction="left",
            showactive=False,
            x=0.0,
            y=0,
            xanchor="left",
            yanchor="top",
            pad=dict(t=62, r=10),
            buttons=[
                dict(
                    label="▶",
                    method="animate",
                    args=[None, dict(frame=dict(duration=frame_duration, redraw=webgl),
                                     fromcurrent=True, **frame_args)],
                ),
                dict(
                    label="❚❚",
                    method="animate",
                    args=[[None], dict(frame=dict(duration=0, redraw=False), **frame_args)],
                ),
            ],
        )
    ]


def animation_figure(
    parts_of: Callable[[int], Parts],
    n_steps: int,
    labels: Sequence[Any],
    *,
    start: int,
    frame_duration: int,
    webgl: bool,
    frame_layout: Sequence[str] = ("title",),
) -> go.Figure:
    """A Plotly animation with one frame per step, built from each step's parts.

    Parameters
    ----------
    parts_of : callable
        ``parts_of(t)`` gives step ``t``'s :class:`Parts`; every step must
        have the same traces (names and types), only their data differ.
    n_steps : int
        Frames ``"0"`` to ``str(n_steps - 1)``.
    labels : sequence
        The time label of every frame.
    start, frame_duration, webgl
        As in :func:`add_animation_controls`.
    frame_layout : sequence of str, default=("title",)
        Layout keys that change from frame to frame.

    Returns
    -------
    plotly.graph_objects.Figure
        Showing step ``start``, with a time slider and play/pause buttons.
    """
    frames, layout = [], None
    for t in range(n_steps):
        traces, step_layout = parts_of(t)
        frames.append(go.Frame(name=str(t), data=traces,
                               layout={key: step_layout[key] for key in frame_layout if key in step_layout}))
        if t == start:
            layout = step_layout
    add_animation_controls(layout, labels, start, frame_duration, webgl=webgl)
    return go.Figure(data=frames[start].data, frames=frames, layout=layout)
