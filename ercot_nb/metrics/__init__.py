"""Scores of a temporal clustering, with and without true labels.

=================================  ==============================================
function                           gives
=================================  ==============================================
:func:`rand_index`, :func:`nmi`    agreement of two labelings (RI, NMI)
:func:`contingency`                their contingency table
:func:`score_steps`                RI and NMI against true labels per step
:func:`mean_scores`                the paper's mRI and mNMI
:func:`silhouette`                 within-step quality on a bounded sample
:func:`centroid_objectives`        the paper's f_cp and f_sep of centroids
:func:`churn`                      share of common ids changing aligned cluster
:func:`consecutive_nmi`            NMI of consecutive steps over common ids
:func:`label_free_steps`           all label-free scores, one row per step
=================================  ==============================================
"""
from __future__ import annotations

from ._agreement import contingency, mean_scores, nmi, rand_index, score_steps
from ._label_free import (
    LABEL_FREE_COLUMNS,
    centroid_objectives,
    churn,
    consecutive_nmi,
    label_free_steps,
    silhouette,
)

__all__ = [
    "contingency",
    "rand_index",
    "nmi",
    "score_steps",
    "mean_scores",
    "silhouette",
    "centroid_objectives",
    "churn",
    "consecutive_nmi",
    "label_free_steps",
    "LABEL_FREE_COLUMNS",
]
