"""Fits the apps hand to the shared runner besides plain estimators.

Each object here has the ``fit(data, callback=...)`` / ``result_`` shape of
an estimator (:mod:`ercot_nb.algorithms`), so the
:class:`~ercot_nb.widgets._job.Runner` records its result as a run of its
own, with progress and Stop, like any fit:

- :class:`Adoption`: a fitted run continued from step ``t`` with another
  member of that step's Pareto front ("Use this partition from here on").
- :class:`SeedEnsemble`: the run's estimator fitted with several seeds and
  merged into a consensus partition with per-sample agreement ("How sure?").
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from ..data import TemporalDataset
from ..ensemble import Ensemble, consensus
from ..result import ClusteringResult

__all__ = ["Adoption", "SeedEnsemble", "ensemble_seeds"]


class Adoption:
    """A fitted run continued from step ``t`` with population ``member`` (see ``ERCOT.adopt``).

    ``fit`` adopts on a copy of the estimator (the original run stays as it
    was, and can be adopted from again) and reports every step fitted
    again as it is done (the run enters the app with its first one, shown
    at step ``t``); a callback returning ``False`` (Stop)
    ends the adoption after that step, keeping the steps done.
    """

    def __init__(self, estimator: Any, t: int, member: int) -> None:
        self.estimator = copy.deepcopy(estimator)
        self.t, self.member = int(t), int(member)

    @property
    def result_(self) -> ClusteringResult | None:
        return getattr(self.estimator, "result_", None)

    def fit(self, data: TemporalDataset, *, callback: Any = None) -> "Adoption":
        self.estimator.adopt(self.t, self.member, callback=callback)
        return self


def ensemble_seeds(estimator: Any, n_seeds: int) -> list[int]:
    """``n_seeds`` seeds other than ``estimator``'s own: the ones after it (0, 1, ... when it has none).

    "How sure?" repeats the shown run with other seeds; the shown run's own
    seed would only repeat the run the user already has.
    """
    own = estimator.get_params().get("seed")
    first = int(own) + 1 if own is not None else 0
    return list(range(first, first + int(n_seeds)))


class SeedEnsemble:
    """The estimator of a run fitted once per seed, merged into a consensus.

    The seeds are fitted one after another (a copy of the estimator each,
    ``seed`` replaced, see :func:`ercot_nb.ensemble.ensemble`);
    ``should_stop`` is asked between seeds, and a stopped ensemble merges
    the seeds done so far.  The consensus partition
    (:meth:`~ercot_nb.ensemble.Ensemble.to_result`) is the run reported
    step by step; :attr:`ensemble` holds the runs and the per-sample
    agreement.

    Parameters
    ----------
    estimator : object
        An estimator with a ``seed`` parameter; it is not changed.
    seeds : sequence of int
    should_stop : callable, optional
        Returns True when the user asked to stop.
    """

    def __init__(self, estimator: Any, seeds: Sequence[int],
                 should_stop: Callable[[], bool] | None = None) -> None:
        if "seed" not in estimator.get_params():
            raise TypeError(f"{type(estimator).__name__} has no seed to vary")
        self.estimator = estimator.clone()
        self.seeds = [int(seed) for seed in seeds]
        if not self.seeds:
            raise ValueError("an ensemble needs at least one seed")
        self.should_stop = should_stop or (lambda: False)
        self.ensemble: Ensemble | None = None
        self.result_: ClusteringResult | None = None

    def fit(self, data: TemporalDataset, *, callback: Any = None) -> "SeedEnsemble":
        results, seeds = [], []
        for seed in self.seeds:
            if results and self.should_stop():
                break
            model = self.estimator.clone().set_params(seed=seed)
            if "progress" in model.get_params():
                model.set_params(progress=False)
            results.append(model.fit(data).result_)
            seeds.append(seed)
        self.ensemble = consensus(results, seeds)
        self.result_ = self.ensemble.to_result(data)
        for step in self.result_:
            if callback is not None and callback(step) is False:
                break
        return self
