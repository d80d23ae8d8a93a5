"""penaltyEC: ERCOT's evolutionary search with an a-priori temporal penalty.

The ERCOT paper's comparison variant (``docs/algorithm.md``, *penaltyEC*):
the same re-initialisation from the
previous step, reproduction and NSGA-II selection as ERCOT, but at t > 1 the
objectives are ``(f_cp, 1 - NMI(current partition, previous final
partition))`` over the samples present at both steps, and there is no
fitness accumulation.  At the first step (or when no sample carries over)
the objectives are ERCOT's ``(f_cp, f_sep)``, so the first step equals
staticEC's with the same seed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import Snapshot, common_ids
from ..knee import KNEE_RULES, KNEE_WORDS
from ..evolution import EvolutionaryClustering, Engine
from ..params import Param
from ..result import StepResult


PENALTY_KNEE_RULES = tuple(rule for rule in KNEE_RULES if rule != "mock")
"""The knee rules penaltyEC offers ('mock' needs the objectives (f_cp, f_sep))."""


@dataclass
class _PreviousPartition:
    """What the NMI objective compares against during one step."""

    X: np.ndarray  # the current step's data (identity marks calls for this step)
    X_common: np.ndarray  # current rows of the samples present at t-1 and t
    labels: np.ndarray  # final labels at t-1 of those samples, 0..K-1


def _entropy_terms(counts: np.ndarray, axis: int | None = None) -> np.ndarray:
    """Sum of c ln c over positive counts (along ``axis``)."""
    counts = np.asarray(counts, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, counts * np.log(counts), 0.0)
    return terms.sum(axis=axis)


def batch_nmi(labels: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Geometric NMI of many labelings against one reference labeling.

    Same definition and degenerate cases as :func:`ercot_nb.metrics.nmi`
    (1 when both have a single cluster, 0 when exactly one has), computed
    from one contingency table per row with ``bincount``.

    Parameters
    ----------
    labels : int ndarray of shape (n_labelings, n_samples)
        Non-negative labels.
    reference : int ndarray of shape (n_samples,)
        Non-negative labels.

    Returns
    -------
    ndarray of shape (n_labelings,)
    """
    labels = np.asarray(labels, dtype=np.int64)
    reference = np.asarray(reference, dtype=np.int64)
    n_labelings, n = labels.shape
    k = int(labels.max()) + 1 if labels.size else 1
    k_ref = int(reference.max()) + 1 if reference.size else 1
    cells = (np.arange(n_labelings)[:, None] * k + labels) * k_ref + reference[None, :]
    joint = np.bincount(cells.ravel(), minlength=n_labelings * k * k_ref).reshape(n_labelings, k, k_ref)
    rows = joint.sum(axis=2)  # cluster sizes of each labeling
    columns = np.bincount(reference, minlength=k_ref)
    n_clusters = (rows > 0).sum(axis=1)
    n_reference = int((columns > 0).sum())
    log_n = np.log(n) if n > 0 else 0.0
    h_reference = log_n - _entropy_terms(columns) / n
    h_labels = log_n - _entropy_terms(rows, axis=1) / n
    # I = H(ref) - H(ref | labels), H(ref | labels) = (sum a ln a - sum n_ij ln n_ij) / n
    mutual = np.maximum(h_reference - (_entropy_terms(rows, axis=1) - _entropy_terms(joint, axis=(1, 2))) / n, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.minimum(mutual / np.sqrt(h_reference * h_labels), 1.0)
    score = np.where((n_clusters == 1) | (n_reference == 1), 0.0, score)
    return np.where((n_clusters <= 1) & (n_reference <= 1), 1.0, score)


class PenaltyEC(EvolutionaryClustering):
    """penaltyEC: ERCOT's evolutionary search with an NMI penalty to the previous step.

    Same re-initialisation (``keep_fraction`` of the previous final
    population carried over), reproduction and NSGA-II selection as ERCOT,
    no fitness accumulation.  At t > 1 the objectives are
    ``(f_cp, 1 - NMI)``, the NMI (geometric, Strehl & Ghosh) being between a
    solution's partition and the previous step's final partition, over the
    samples present at both steps ([REC] for the 1 - NMI form and the
    common samples, docs/algorithm.md, *penaltyEC*).  At the first step, or when
    no sample carries over, the objectives are ``(f_cp, f_sep)``.  The
    output is the knee of the first front of the step's own objectives,
    with the same rule as ERCOT; ``knee="mock"`` is not offered because its
    control fronts are built for ``(f_cp, f_sep)``.

    Attributes
    ----------
    result_ : ClusteringResult
        Per step: labels, final population, its objectives
        (``(f_cp, 1 - NMI)`` after the first step), knee, timings; alpha is
        nan (no smoothness weight).
    labels_ : list of ndarray
    n_clusters_ : ndarray
    n_features_in_ : int

    Examples
    --------
    >>> from ercot_nb import datasets
    >>> from ercot_nb.baselines import PenaltyEC
    >>> model = PenaltyEC(seed=0, pop_size=20, n_evaluations=100).fit(datasets.load("syn1", seed=0)[:3])
    >>> len(model.labels_)
    3
    """

    _algorithm_name = "penaltyEC"
    _uses_history = True
    _accumulates = False

    param_specs = EvolutionaryClustering.search_params + (
        Param("knee", "choice", "ideal", "knee rule",
              "Rule choosing the final solution on the first front ('mock' is not offered).",
              choices=PENALTY_KNEE_RULES, labels={rule: KNEE_WORDS[rule] for rule in PENALTY_KNEE_RULES},
              doc="See :mod:`ercot_nb.knee`."),
        EvolutionaryClustering.keep_fraction_param,
    ) + EvolutionaryClustering.run_params

    def _check_params(self) -> None:
        if isinstance(self.knee, str) and self.knee == "mock":  # say why, before the spec's list
            raise ValueError(
                "penaltyEC: knee='mock' is not available (its control fronts are built for "
                "(f_cp, f_sep), not (f_cp, 1 - NMI)); use 'ideal' or 'chord'"
            )
        super()._check_params()

    def _reset(self) -> None:
        super()._reset()
        self._target: _PreviousPartition | None = None

    def _fit_snapshot(self, snapshot: Snapshot) -> StepResult:
        history = self._history
        self._target = None
        if history is not None:
            at_previous, at_current = common_ids(history.snapshot, snapshot)
            if len(at_current):
                self._target = _PreviousPartition(
                    X=snapshot.X,
                    X_common=np.ascontiguousarray(snapshot.X[at_current]),
                    labels=np.asarray(history.labels[at_previous], dtype=np.int64),
                )
        try:
            return super()._fit_snapshot(snapshot)
        finally:
            self._target = None

    def _objectives(self, engine: Engine, X: np.ndarray, pop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(f_cp, 1 - NMI to the previous partition)``, or ``(f_cp, f_sep)`` without one."""
        F, counts = engine.evaluate(X, pop)
        target = self._target
        if target is None or X is not target.X:
            return F, counts
        F[:, 1] = 1.0 - batch_nmi(self.common_labels(engine, target.X_common, pop), target.labels)
        return F, counts

    @staticmethod
    def common_labels(engine: Engine, X_common: np.ndarray, pop: np.ndarray) -> np.ndarray:
        """Nearest-active-centroid slot of every common sample under every member."""
        labels = np.empty((len(pop), len(X_common)), dtype=np.int64)
        for member, chromosome in enumerate(pop):
            labels[member], _ = engine.assign(X_common, np.ascontiguousarray(chromosome))
        return labels
