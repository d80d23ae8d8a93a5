"""Where ERCOT and StaticEC lived before the package map of 2026-11-26: a clear refusal.

An estimator pickled by that ercot-nb names this module; unpickling it in
this version ends here with one line saying who wrote it and what to do,
instead of ``ModuleNotFoundError: No module named 'ercot_nb._evolutionary'``.
Its fitted state (history, engine, mixtures) was laid out in modules that
were reorganised, so it is not mapped onto this version's classes: a result
saved with ``result_.save(path)`` loads in every version
(:meth:`ercot_nb.result.ClusteringResult.load`), and the parameters refit.
"""

OLD_MODULE_MESSAGE = (
    "this pickle was written by an ercot-nb from before 2026-11-26 (version 0.1.0 of then, whose module "
    "ercot_nb._evolutionary is now ercot_nb.evolution), and its fitted state does not load in this version: "
    "in the ercot-nb that wrote it, save the run with estimator.result_.save('run.npz') (ClusteringResult.load "
    "reads it here) or note estimator.get_params() and refit here"
)

raise ImportError(OLD_MODULE_MESSAGE, name=__name__)
