"""Baselines the ERCOT paper compares against, with ERCOT's estimator interface.

====================  ==========================================================
class                 algorithm (registry name)
====================  ==========================================================
:class:`PenaltyEC`    ERCOT's EA with objectives (f_cp, 1 - NMI to t-1) ("penaltyEC")
:class:`KMeansCOT`    evolutionary k-means, Chakrabarti et al. 2006 ("k-meansCOT"; [RECALL])
:class:`AFFECT`       adaptive forgetting factor k-means, Xu et al. 2014 ("AFFECT")
:class:`E2SC`         efficient evolutionary spectral clustering, Langone et al. 2016
                      ("E2SC"; details reconstructed)
====================  ==========================================================

Each has ``fit(dataset, *, callback=None)``, ``fit_predict``,
``partial_fit``, ``labels_``, ``result_`` (a
:class:`~ercot_nb.result.ClusteringResult`), ``n_clusters_`` and
``alpha_``, and the ``get_params``/``set_params``/``clone`` of every
estimator here.  How each reads its source is in its docstring and in
``docs/algorithm.md``, *Comparison methods*.
"""
from __future__ import annotations

from ._affect import AFFECT, AFFECT_INITIALIZE, AffectMemoryError, affect_memory_bytes
from ._e2sc import E2SC, E2SC_METHODS
from ._kmeanscot import KMEANS_INITS, KMeansCOT
from ._penalty import PENALTY_KNEE_RULES, PenaltyEC

__all__ = ["AFFECT", "AffectMemoryError", "E2SC", "KMeansCOT", "PenaltyEC", "affect_memory_bytes",
           "AFFECT_INITIALIZE", "E2SC_METHODS", "KMEANS_INITS", "PENALTY_KNEE_RULES"]
