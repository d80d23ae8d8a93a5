"""One time step's NSGA-II search: G_max generations of reproduction and selection.

:func:`evolve` is the generational loop of Algorithm 1 (``docs/algorithm.md``):
offspring, one Lloyd refinement, evaluation and environmental selection each
generation, with an optional hook that replaces the objectives of the last
selection (ERCOT's fitness accumulation).  The estimators in
``ercot_nb/evolution/_ercot.py`` own everything around it.
"""
from __future__ import annotations

import numpy as np

from ._engine import Engine

__all__ = ["evolve"]


def evolve(engine: Engine, X: np.ndarray, rng: np.random.Generator, pop: np.ndarray,
           objectives, accumulate=None):
    """Run G_max generations of NSGA-II on ``X`` from population ``pop``.

    Parameters
    ----------
    engine : Engine
    X : ndarray of shape (n_samples, n_features)
    rng : numpy.random.Generator
    pop : ndarray of shape (pop_size, n_genes)
        Initial population (not yet evaluated).
    objectives : callable ``(engine, X, pop) -> (F, counts)``
    accumulate : callable ``(union, F_union, counts_union) -> F``, optional
        At the last generation, replaces the objectives the selection uses
        (ERCOT's fitness accumulation).

    Returns
    -------
    pop, F, counts, F_selected
        Final population, its raw objectives and cluster sizes, and the
        objectives its last selection used.
    """
    cfg = engine.config
    lower, upper = engine.bounds(X)
    F, counts = objectives(engine, X, pop)
    F_selected = F
    rank, crowding = engine.rank_and_crowding(F)
    if cfg.n_generations == 0:
        return pop, F, counts, F_selected
    # Two union buffers, used in turn: the population is the first half of one,
    # its children are written into the second half, and the survivors are
    # gathered into the first half of the other (no per-generation stacking).
    n = len(pop)
    unions = [[np.empty((2 * n,) + a.shape[1:], dtype=a.dtype) for a in (pop, F, counts)] for _ in range(2)]
    for buffer, array in zip(unions[0], (pop, F, counts)):
        buffer[:n] = array
    for generation in range(cfg.n_generations):
        union, F_union, counts_union = unions[generation % 2]
        pop = union[:n]
        children = engine.offspring(rng, pop, rank, crowding, lower, upper, out=union[n:])
        if cfg.refine:
            engine.recentre(X, X, children, reseed_empty=cfg.reseed_empty)
        F_union[n:], counts_union[n:] = objectives(engine, X, children)
        F_for_selection = F_union
        last = generation == cfg.n_generations - 1
        if accumulate is not None and last:
            F_for_selection = accumulate(union, F_union, counts_union)
        chosen, rank, crowding = engine.select(F_for_selection, cfg.pop_size)
        if last:  # fresh arrays: the result keeps them
            pop, F, counts = union[chosen], F_union[chosen], counts_union[chosen]
            F_selected = F_for_selection[chosen]
        else:
            for source, target in zip((union, F_union, counts_union), unions[(generation + 1) % 2]):
                np.take(source, chosen, axis=0, out=target[:n])
    return pop, F, counts, F_selected
