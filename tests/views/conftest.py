"""One small run of every kind of data the views meet, shared by the view conformance suite.

Each kind is a (name, ViewData) fixture built once per session, with the estimators'
own fast test parameters (``_unit_test_params``):

========== ==========================================================================
kind       what
========== ==========================================================================
2d         ERCOT on syn1 (2 features, labels), 4 steps
3d         ERCOT on syn2 (4 features: the 3-D view and the PCA projection), 4 steps
video      ERCOT on the video_mo scene at 1/4 scale, 3 frames
one_step   ERCOT on the first step of syn3 alone
consensus  the consensus of three ERCOT seeds on syn1 (ercot_nb.ensemble): no population
baseline   k-meansCOT on syn3 (a baseline: no population, no alpha)
========== ==========================================================================
"""
from __future__ import annotations

import pytest

from ercot_nb import algorithms, datasets
from ercot_nb.ensemble import consensus
from ercot_nb.figures import ViewData

KINDS = ("2d", "3d", "video", "one_step", "consensus", "baseline")


def fit(name: str, data, seed: int = 0):
    """``name`` fitted on ``data`` with the class's fast test parameters."""
    params = {**algorithms.get(name)._unit_test_params(), "seed": seed}
    return algorithms.make(name, **params).fit(data).result_


def make_kind(kind: str) -> ViewData:
    if kind == "2d":
        data = datasets.load("syn1", seed=0)[:4]
        return ViewData(fit("ERCOT", data), data)
    if kind == "3d":
        data = datasets.load("syn2", seed=0)[:4]
        return ViewData(fit("ERCOT", data), data)
    if kind == "video":
        data = datasets.load("video_mo", seed=0, scale=0.25, n_frames=3)
        return ViewData(fit("ERCOT", data), data)
    if kind == "one_step":
        data = datasets.load("syn3", seed=0)[:1]
        return ViewData(fit("ERCOT", data), data)
    if kind == "consensus":
        data = datasets.load("syn1", seed=0)[:4]
        runs = [fit("ERCOT", data, seed) for seed in (0, 1, 2)]
        return ViewData(consensus(runs, seeds=[0, 1, 2]).to_result(data), data)
    if kind == "baseline":
        data = datasets.load("syn3", seed=0)[:4]
        return ViewData(fit("k-meansCOT", data), data)
    raise ValueError(f"unknown kind of data {kind!r}; kinds: {KINDS}")


@pytest.fixture(scope="session")
def view_data():
    """``view_data(kind)``: the ViewData of that kind, made once per session."""
    made: dict[str, ViewData] = {}

    def get(kind: str) -> ViewData:
        if kind not in made:
            made[kind] = make_kind(kind)
        return made[kind]

    return get
