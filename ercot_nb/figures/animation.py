"""Time slider and play/pause buttons of the kernel-free Plotly animations."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["add_animation_controls"]


def add_animation_controls(
    layout: dict[str, Any],
    labels: Sequence[Any],
    start: int,
    frame_duration: int,
    *,
    webgl: bool,
) -> None:
    """Add a time slider and play/pause buttons over frames named ``"0", "1", ...``.

    The buttons sit left of the slider and the slider's current value
    ("time: ...") at its right end, so neither covers the other.

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
    layout["margin"]["b"] = 120
    layout["sliders"] = [
        dict(
            name="time",
            active=start,
            steps=slider_steps,
            currentvalue=dict(prefix="time: ", xanchor="right", font=dict(size=13)),
            x=0.16,
            len=0.84,
            y=0,
            yanchor="top",
            pad=dict(t=50, b=10),
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
