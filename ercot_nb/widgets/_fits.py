"""Fits the apps hand to the shared runner besides plain estimators.

Each object here has the ``fit(data, callback=...)`` / ``result_`` shape of
an estimator (:mod:`ercot_nb.algorithms`), so the
:class:`~ercot_nb.widgets._runner.Runner` records its result as a run of its
own, with progress and Stop, like any fit:

- :class:`Adoption`: a fitted run continued from step ``t`` with another
  member of that step's Pareto front ("Use this partition from here on").
- :class:`SeedEnsemble`: the run's estimator fitted with several seeds and
  merged into a consensus partition with per-sample agreement ("How sure?").
"""
from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..data import TemporalDataset
from ..ensemble import Ensemble, consensus
from ..metrics import rand_index
from ..result import ClusteringResult

__all__ = ["Adoption", "SeedEnsemble", "adoptions_of", "ensemble_seeds"]

_ADOPTED: "weakref.WeakKeyDictionary[Any, list[tuple[int, np.ndarray]]]" = weakref.WeakKeyDictionary()
"""Per estimator fitted by an :class:`Adoption`: its adoptions, (step, the labels adopted there), in order."""


def adoptions_of(estimator: Any) -> list[tuple[int, np.ndarray]]:
    """The adoptions that made ``estimator``'s run, in order: (step, the labels adopted); [] for a plain fit."""
    return list(_ADOPTED.get(estimator, []))


class Adoption:
    """A fitted run continued from step ``t`` with population ``member`` (see ``ERCOT.adopt``).

    ``fit`` adopts on a copy of the estimator (the original run stays as it
    was, and can be adopted from again) and reports every step fitted
    again as it is done (the run enters the app with its first one, shown
    at step ``t``); a callback returning ``False`` (Stop)
    ends the adoption after that step, keeping the steps done.
    """

    def __init__(self, estimator: Any, t: int, member: int) -> None:
        self._before = adoptions_of(estimator)
        self.estimator = copy.deepcopy(estimator)
        self.t, self.member = int(t), int(member)

    @property
    def result_(self) -> ClusteringResult | None:
        return getattr(self.estimator, "result_", None)

    def fit(self, data: TemporalDataset, *, callback: Any = None) -> "Adoption":
        result = self.estimator.adopt(self.t, self.member, callback=callback).result_
        t = self.t % len(result) if len(result) else self.t
        self.adopted = [*(a for a in self._before if a[0] < t), (t, np.array(result[t].labels))]
        _ADOPTED[self.estimator] = self.adopted
        return self

    def __setstate__(self, state: dict) -> None:
        """Unpickled (a class server's fit worker sent it back): its adoptions are known again."""
        self.__dict__.update(state)
        if "adopted" in state:
            _ADOPTED[self.estimator] = self.adopted


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
    ``seed`` replaced, see :func:`ercot_nb.ensemble.ensemble`), and the run
    is repeated as it was made: each adoption of the estimator's run
    (:func:`adoptions_of`) is repeated on each seed's run, with the member of
    that step's first front whose partition agrees best (Rand index) with the
    partition adopted (the lowest index among equals);
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
        self.should_stop = should_stop or _never
        self.adoptions = adoptions_of(estimator)
        self.ensemble: Ensemble | None = None
        self.result_: ClusteringResult | None = None

    def __getstate__(self) -> dict:
        """Without ``should_stop`` (a function of the app's): a fit worker asks its own (see ``serve.fit_pool``)."""
        return {key: value for key, value in self.__dict__.items() if key != "should_stop"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.should_stop = _never

    def fit(self, data: TemporalDataset, *, callback: Any = None) -> "SeedEnsemble":
        results, seeds = [], []
        for seed in self.seeds:
            if results and self.should_stop():
                break
            model = self.estimator.clone().set_params(seed=seed)
            if "progress" in model.get_params():
                model.set_params(progress=False)
            model.fit(data)
            for t, labels in self.adoptions:
                model.adopt(t, _closest_member(model.result_, data[t].X, t, labels))
            results.append(model.result_)
            seeds.append(seed)
        self.ensemble = consensus(results, seeds)
        self.result_ = self.ensemble.to_result(data)
        for step in self.result_:
            if callback is not None and callback(step) is False:
                break
        return self


def _never() -> bool:
    return False


def _closest_member(result: ClusteringResult, X: Any, t: int, labels: np.ndarray) -> int:
    """The member of step ``t``'s first front whose partition agrees best with ``labels`` (Rand index)."""
    front = [int(m) for m in np.flatnonzero(result[t].first_front)]
    agreement = {m: rand_index(labels, result.labels_of_member(X, t, m)) for m in front}
    return max(front, key=lambda m: (agreement[m], -m))
