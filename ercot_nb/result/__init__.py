"""Result of a temporal clustering run, and its file format.

:class:`ClusteringResult` holds one :class:`StepResult` per time step
(``_result``); ``_format`` is its typed, pickle-free file format
(:meth:`ClusteringResult.save` / :meth:`ClusteringResult.load`);
``_labels`` numbers and aligns labels over steps.
"""
from __future__ import annotations

from ._labels import align_labels, compress_labels
from ._result import ClusteringResult, StepResult
from ._flows import cluster_flows, member_partition
from ._format import result_path

__all__ = ["StepResult", "ClusteringResult", "compress_labels", "align_labels", "cluster_flows",
           "member_partition", "result_path"]
