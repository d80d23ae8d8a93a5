"""ERCOT and staticEC: the evolutionary temporal clustering of the paper.

One module per concept of the method:

==================  ==========================================================
``_ercot``          the estimators: parameters, validation, seeding, the loop
                    over steps and the history a posteriori
``_nsga``           one step's NSGA-II search (G_max generations)
``_engine``         buffers, random draws and operators over the kernels
``_history``        what one step hands to the next
``_smoothness``     the smoothness weight alpha (stacked density estimation)
``_pairs``          its pair kernel's call: scratch, serial or parallel variant
``_stacking``       the stacking EM that weighs the historical model
``_adopt``          adopt a front member at step t and continue the run
``_final``          the final partition: how the chosen member labels the samples
``_mixture``        the Gaussian mixture (EM, held-out choice) behind it
``_memory``         a fit's peak memory, estimated before allocating
==================  ==========================================================

The knee rules are :mod:`ercot_nb.knee` (results use them too), the kernels
``ercot_nb.kernels``, the parameter machinery :mod:`ercot_nb.params`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

# public name -> module of this package that defines it (imported on first use)
_PUBLIC = {
    "ERCOT": "_ercot",
    "StaticEC": "_ercot",
    "EvolutionaryClustering": "_ercot",
    "MUTATION_MODES": "_ercot",
    "BUDGET_MODES": "_ercot",
    "FINAL_PARTITIONS": "_final",
    "Engine": "_engine",
    "EAConfig": "_engine",
    "SEPARATIONS": "_engine",
    "EMPTY_CLUSTERS": "_engine",
    "PRECISIONS": "_engine",
    "ALPHA_AGGREGATES": "_smoothness",
    "memory_limit": "_memory",
}
__all__ = list(_PUBLIC)

if TYPE_CHECKING:  # pragma: no cover
    from ._engine import EMPTY_CLUSTERS, PRECISIONS, SEPARATIONS, EAConfig, Engine
    from ._ercot import BUDGET_MODES, ERCOT, MUTATION_MODES, EvolutionaryClustering, StaticEC
    from ._final import FINAL_PARTITIONS
    from ._memory import memory_limit
    from ._smoothness import AGGREGATES as ALPHA_AGGREGATES


def __getattr__(name: str) -> Any:
    # Lazy, so that importing one module of the package (e.g. the smoothness
    # rules) does not import the estimators.
    if name in _PUBLIC:
        import importlib

        module = importlib.import_module(f".{_PUBLIC[name]}", __name__)
        return getattr(module, "AGGREGATES" if name == "ALPHA_AGGREGATES" else name)
    raise AttributeError(f"module 'ercot_nb.evolution' has no attribute {name!r}")
