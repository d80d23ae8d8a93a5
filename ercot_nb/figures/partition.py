"""Partition figures: one step's samples coloured by cluster, in 2-D or 3-D, and their animation.

They draw with the run's :class:`~.partition_layer.PartitionLayer`.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from ..data import TemporalDataset
from ..ensemble import step_agreement
from ..result import ClusteringResult, member_partition
from .animation import animation_figure
from .layers import Parts
from .partition_layer import (
    CENTROIDS, ENTERED, LEFT, MIN_OPACITY, PartitionLayer, cluster_name,
    shown_positions,
)
from .style import plain_times, step_index

__all__ = [
    "ENTERED", "LEFT", "CENTROIDS", "MIN_OPACITY", "cluster_name", "step_agreement", "PartitionLayer",
    "shown_positions",
    "partition_parts",
    "partition_figure", "partition_3d_figure", "partition_animation", "member_partition",
]


def partition_parts(
    dataset: TemporalDataset,
    result: ClusteringResult,
    t: int,
    *,
    member: int | None = None,
    features: Sequence[int | str] | None = None,
    projection: str | None = None,
    show_centroids: bool = True,
    webgl: bool | None = None,
    fixed: bool = False,
    title: str | None = None,
    agreement: Any = None,
) -> Parts:
    """Parts of :func:`partition_figure` (see ``ercot_nb.figures.layers``).

    Parameters
    ----------
    dataset, result, t, member, features, projection, show_centroids, webgl, title, agreement
        As in :func:`partition_figure`.
    fixed : bool, default=False
        The trace layout the animation and the widget view keep over all
        steps: one cluster trace per aligned label used at any step (empty
        where absent), and WebGL chosen by the largest step.

    Returns
    -------
    Parts
    """
    layer = PartitionLayer(dataset, result, features=features, projection=projection,
                           show_centroids=show_centroids, webgl=webgl)
    t = step_index(layer.result, t)
    if not fixed:
        return layer.parts(t, member, title=title, agreement=agreement)
    return layer.parts(t, member, labels=layer.fixed_labels(member, t),
                       webgl=layer.use_webgl(layer.max_points), title=title, agreement=agreement)


def partition_figure(
    dataset: TemporalDataset,
    result: ClusteringResult,
    t: int,
    *,
    features: Sequence[int | str] | None = None,
    projection: str | None = None,
    show_centroids: bool = True,
    webgl: bool | None = None,
    title: str | None = None,
    member: int | None = None,
    agreement: Any = None,
) -> go.Figure:
    """Scatter of step ``t``'s samples coloured by their aligned cluster label.

    Parameters
    ----------
    dataset : TemporalDataset
        The data the result was fitted on.
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int
        0-based step index (negative counts from the end).
    features : pair (triple in 3-D) of int or str, optional
        The feature columns on the axes; default ``(0, 1)``, or ``(0, 1, 2)``
        with ``projection="3d"``.  Ignored for one feature, where the plot
        shows the feature against the sample index, and with
        ``projection="pca"``.
    projection : {None, "pca", "3d"}, default=None
        ``"pca"`` plots the first two principal components, fitted on all
        steps together so the axes are the same at every step.  ``"3d"``
        draws a rotatable ``go.Scatter3d`` (WebGL) of three feature columns
        (the data needs at least three features); the scene's axis ranges
        are fixed over all steps too, and centroids are diamonds.
    show_centroids : bool, default=True
        Mark each cluster's centroid with an X in the cluster's colour.
    webgl : bool or None, default=None
        Use ``go.Scattergl``; ``None`` switches it on above
        :data:`WEBGL_THRESHOLD` points.
    title : str, optional
        Figure title; a default names the algorithm, time and cluster count.
    member : int, optional
        Show the partition of this member of step ``t``'s final population
        instead of the knee's (see :func:`member_partition`).
    agreement : Ensemble or array-like, optional
        How sure each point's cluster is: an
        :class:`ercot_nb.ensemble.Ensemble` (its agreement at step ``t``) or
        one share in [0, 1] per sample of step ``t``.  Drawn as marker
        opacity (faint: few runs agree), shown on hover, and explained
        under the title.  Draw an ensemble's consensus partition with
        ``result=ensemble.to_result(dataset)``.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per cluster present at ``t`` (named ``"cluster <label>"``),
        a trace ringing the samples that entered since step ``t - 1``, a
        ``"left since previous step"`` trace marking, at their last
        position, the samples gone since ``t - 1``, and a ``"centroids"``
        trace.  Axis ranges are fixed over all steps, so
        figures of different steps share the same axes.
    """
    return partition_parts(
        dataset, result, t, member=member, features=features, projection=projection,
        show_centroids=show_centroids, webgl=webgl, title=title, agreement=agreement,
    ).figure()


def partition_3d_figure(
    dataset: TemporalDataset,
    result: ClusteringResult,
    t: int,
    *,
    features: Sequence[int | str] | None = None,
    **options: Any,
) -> go.Figure:
    """The partition of step ``t`` as a rotatable 3-D scatter of three features.

    For data with three or more features (a video's colours r, g, b, the
    3-D synthetic sets): :func:`partition_figure` with ``projection="3d"``.

    Parameters
    ----------
    dataset, result, t
        As in :func:`partition_figure`.
    features : triple of int or str, optional
        The three feature columns; default the first three.
    **options
        ``show_centroids``, ``title``, ``member`` as in :func:`partition_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        ``go.Scatter3d`` traces (WebGL) named as in :func:`partition_figure`.
    """
    return partition_figure(dataset, result, t, features=features, projection="3d", **options)


def partition_animation(
    dataset: TemporalDataset,
    result: ClusteringResult,
    *,
    features: Sequence[int | str] | None = None,
    projection: str | None = None,
    show_centroids: bool = True,
    webgl: bool | None = None,
    start: int = 0,
    frame_duration: int = 800,
    title: str | None = None,
) -> go.Figure:
    """The partition view of every step as a Plotly animation.

    A time slider and play/pause buttons run in plotly.js alone, so this is
    the kernel-free view of a run (nbviewer, exported HTML, Jupyter Book).

    Parameters
    ----------
    dataset, result, features, projection, show_centroids
        As in :func:`partition_figure`.
    webgl : bool or None, default=None
        ``None`` uses WebGL when the largest step exceeds
        :data:`WEBGL_THRESHOLD` points.
    start : int, default=0
        Step shown before the animation is played.
    frame_duration : int, default=800
        Milliseconds per step when playing.
    title : str, optional
        Fixed title; by default every frame names its own step.

    Returns
    -------
    plotly.graph_objects.Figure
        One frame per step (named by the step index).  Every frame has the
        same traces: one per aligned label used at any step (empty where the
        cluster is absent), the entered-samples and left-samples traces and
        the centroids.
    """
    layer = PartitionLayer(dataset, result, features=features, projection=projection,
                           show_centroids=show_centroids, webgl=webgl)
    start = step_index(layer.result, start)
    labels = layer.fixed_labels()
    use_gl = layer.use_webgl(layer.max_points)
    return animation_figure(
        lambda t: layer.parts(t, labels=labels, webgl=use_gl, title=title), len(layer.result),
        plain_times(layer.result.times), start=start, frame_duration=frame_duration,
        webgl=use_gl or layer.is_3d,  # WebGL and 3-D traces redraw on every frame
    )
