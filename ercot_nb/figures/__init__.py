"""Static Plotly figures of a temporal clustering run.

Every builder returns a plain :class:`plotly.graph_objects.Figure` (no
widgets, no kernel needed), so the figures render in JupyterLab, nbviewer,
Jupyter Book and exported HTML alike.  Figures are deterministic: the same
inputs give the same JSON (no trace uids, no random div ids), which keeps
notebook output comparisons stable.

Clusters are coloured by their *aligned* label (see
:attr:`ercot_nb.result.StepResult.aligned_labels`), so a cluster keeps its
colour across time steps.  Text from data (dataset, run, feature and label
names, ids, time labels) is HTML-escaped before it reaches a figure.

====================================  ==============================================
builder                               shows
====================================  ==============================================
:func:`partition_figure`              the partition of one step (or of another front
                                      member), centroids, entered and left samples
:func:`partition_3d_figure`           the same as a rotatable 3-D scatter (D >= 3)
:func:`partition_animation`           the same view over all steps (slider + play)
:func:`pareto_figure`                 the final population of one step and its knee
:func:`pareto_frame`                  the same with a fixed trace layout (widgets)
:func:`pareto_animation`              the Pareto view over all steps (slider + play)
:func:`pareto_comparison_figure`      raw vs accumulated objectives side by side
:func:`alpha_figure`                  the smoothness weight alpha (and alpha_i) over time
:func:`scores_figure`                 RI or NMI per step of one or more runs
:func:`n_clusters_figure`             chosen (and true) number of clusters per step
:func:`cluster_sizes_figure`          each cluster's number of samples per step
:func:`sankey_figure`                 cluster flow between steps (persist/split/merge)
:func:`membership_figure`             each id's cluster at every step (who changes cluster)
:func:`video_segmentation_figure`     a video frame, its segmentation and the
                                      ground truth side by side
:func:`video_segmentation_animation`  the same over all steps (slider + play)
:func:`report_figures`                all kernel-free views of a run, in order
:func:`save_html`                     one self-contained offline HTML file
====================================  ==============================================

One module per topic: ``style`` (colours, template), ``layers``
(the parts protocol the widget views share), ``partition``
(with ``projection``), ``pareto``, ``lines`` (time lines),
``flows`` (Sankey, memberships), ``video`` (with ``images``),
``animation``, ``export``, and ``overview`` (a run without ground truth:
label-free scores, ensemble agreement, number of clusters, lifecycle events).  Each view has a ``*_parts`` builder
returning :class:`Parts` (traces named by role and a layout dict): the
figures above wrap them, and the widget views show the same parts and
update traces by name (:func:`update_by_name`).

One definition per view: ``ercot_nb.figures.protocol`` says what a view
is (:class:`View`: its parts at a step and member, and what changes with
the step or member, by trace and shape name), and
``ercot_nb.figures.views`` holds the views (one module per view) and their registry
``VIEWS``, which :func:`report_figures`, the offline page and the
widgets iterate (:func:`views_for`).  The trace and shape role names front
ends update by (``CURRENT_STEP``, ``SELECTED``, ...) are exported
here.

Helpers: :func:`cluster_moves` (every change of cluster of every id),
:func:`ground_truth_result` (a dataset's labels shown with the same views);
for videos :func:`frame_image` and :func:`segmentation_image` (pixels
placed by id).  Re-exported from the layers they belong to:
:func:`~ercot_nb.result.member_partition` (a-posteriori choice of a front
member), :func:`~ercot_nb.result.cluster_flows` (the Sankey's table) and
:func:`~ercot_nb.data.is_video`.
"""
from __future__ import annotations

from ..data import TemporalDataset
from ..result import ClusteringResult
from .export import report_figures, save_html
from .flows import (
    FLOW, MEMBERSHIP_SORTS, cluster_flows, cluster_moves, membership_figure, sankey_colors, sankey_nodes,
    sankey_figure, sankey_parts, sankey_title,
)
from ..data import is_video
from .images import frame_image, segmentation_image
from .layers import Parts, shape_index, trace_index, update_by_name
from .lines import (
    ALPHA, PAIRS, AlphaLine, alpha_figure, alpha_parts, n_clusters_figure, n_clusters_parts, scores_figure, scores_parts,
)
from .overview import overview_figure, overview_parts
from .pareto import (
    KNEE, SELECTED, is_member_trace, pareto_animation, pareto_comparison_figure, pareto_figure, pareto_frame,
    pareto_parts, step_k_max, KMax,
)
from .partition import (
    CENTROIDS, ENTERED, LEFT, PartitionLayer, cluster_name, member_partition, partition_3d_figure, partition_animation, partition_figure,
    partition_parts,
)
from .protocol import CLICK_MEMBER, CLICK_STEP, Change, Patch, View, ViewData, click_meta
from .style import (
    CURRENT_STEP, TEMPLATE, WEBGL_THRESHOLD, as_trace, cluster_colors, label_color, plain_times, plain_trace,
    time_axis,
)
from .video import (
    FRAME, TRUTH, VIDEO_MAX_PIXELS, VIDEO_MAX_WIDTH, VideoLayer, video_parts, video_segmentation_animation,
    video_segmentation_figure,
)
from .views import VIEWS, cluster_sizes, cluster_sizes_figure, cluster_sizes_parts, view, views_for

__all__ = [
    "WEBGL_THRESHOLD",
    "TEMPLATE",
    "cluster_colors",
    "label_color",
    "partition_figure",
    "partition_3d_figure",
    "partition_animation",
    "pareto_figure",
    "alpha_figure",
    "scores_figure",
    "n_clusters_figure",
    "save_html",
    "member_partition",
    "pareto_frame",
    "pareto_animation",
    "pareto_comparison_figure",
    "cluster_flows",
    "sankey_figure",
    "sankey_colors",
    "sankey_nodes",
    "sankey_title",
    "ground_truth_result",
    "report_figures",
    "VIDEO_MAX_PIXELS",
    "VIDEO_MAX_WIDTH",
    "is_video",
    "frame_image",
    "segmentation_image",
    "video_segmentation_figure",
    "video_segmentation_animation",
    "MEMBERSHIP_SORTS",
    "cluster_moves",
    "membership_figure",
    "overview_figure",
    # the parts protocol shared with the widget views
    "Parts",
    "plain_trace",
    "as_trace",
    "trace_index",
    "shape_index",
    "update_by_name",
    "PartitionLayer",
    "VideoLayer",
    "partition_parts",
    "pareto_parts",
    "alpha_parts",
    "AlphaLine",
    "scores_parts",
    "sankey_parts",
    "video_parts",
    "overview_parts",
    "n_clusters_parts",
    # one definition per view: the protocol and the registry (ercot_nb.figures.views)
    "View",
    "ViewData",
    "Change",
    "Patch",
    "CLICK_STEP",
    "CLICK_MEMBER",
    "click_meta",
    "VIEWS",
    "view",
    "views_for",
    "cluster_sizes",
    "cluster_sizes_parts",
    "cluster_sizes_figure",
    # trace and shape role names (what front ends update by name)
    "CURRENT_STEP",
    "ALPHA",
    "PAIRS",
    "KNEE",
    "SELECTED",
    "FLOW",
    "FRAME",
    "TRUTH",
    "CENTROIDS",
    "ENTERED",
    "LEFT",
    "cluster_name",
    "is_member_trace",
    "step_k_max",
    "KMax",
    "plain_times",
    "time_axis",
]


def ground_truth_result(dataset: TemporalDataset) -> ClusteringResult:
    """The dataset's own labels as a result, to preview data with the same views.

    Shorthand for :meth:`ClusteringResult.from_labels <ercot_nb.result.ClusteringResult.from_labels>` with the dataset's labels.

    Parameters
    ----------
    dataset : TemporalDataset
        Any dataset; without ground-truth labels every sample is in one
        cluster.

    Returns
    -------
    ClusteringResult
        Algorithm ``"ground truth"`` (or ``"data"`` without labels), one
        step per dataset step, time-aligned like a run.
    """
    if not isinstance(dataset, TemporalDataset):
        raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
    return ClusteringResult.from_labels(dataset)
