"""Parameters declared once, as data: the :class:`Param` record and what is derived from it.

Each parameter is a :class:`Param`: its code name, kind, default, words for a
user interface, one line of help, its allowed values (choices or bounds) and
whether ``None`` is allowed.  The specs themselves live with what owns them:
an estimator declares ``param_specs`` in its class body (as scikit-learn's
``_parameter_constraints``), a built-in dataset next to its generator, a
choice set with the concept it names (knee rules in :mod:`ercot_nb.knee`,
scalings in :mod:`ercot_nb.data`, ...).  This package holds only the
machinery, and imports no algorithm, dataset or data module:

* :class:`ParamsMixin` generates a class's ``__init__`` (a real signature) and
  the Parameters section of its docstring from its ``param_specs``;
* :func:`with_params` does the same for a function (a dataset generator);
* :func:`validate_params` checks values in ``fit`` (construction never fails),
  :func:`parse_assignments` / :meth:`Param.parse` read command-line text;
* :func:`specs_of` reads a class's specs; the look-ups by name are
  :func:`ercot_nb.algorithms.estimator_params` and
  :func:`ercot_nb.datasets.dataset_params`.

>>> from ercot_nb.algorithms import estimator_params
>>> [p.name for p in estimator_params("ERCOT")][:3]
['n_clusters', 'max_clusters', 'pop_size']
>>> estimator_params("ERCOT")[0].validate(3, "ERCOT")
3
"""
from __future__ import annotations

from ._doc import numpydoc_type, parameters_section
from ._mixin import ParamsMixin, with_params
from ._param import KINDS, NO_DEFAULT, Param, check_argument, parse_assignments, validate_params

__all__ = [
    "Param",
    "ParamsMixin",
    "with_params",
    "specs_of",
    "validate_params",
    "parse_assignments",
    "check_argument",
    "parameters_section",
    "numpydoc_type",
    "KINDS",
    "NO_DEFAULT",
]


def specs_of(cls) -> tuple[Param, ...]:
    """Specs of a class's (or an instance's) parameters, in signature order.

    A class declares them as its attribute ``param_specs``; a subclass that
    keeps its parent's ``__init__`` keeps its parameters.

    Parameters
    ----------
    cls : class or instance

    Returns
    -------
    tuple of Param

    Raises
    ------
    ValueError
        If the class's ``__init__`` has no specs (a subclass that wrote its own
        ``__init__`` without ``param_specs``).
    """
    cls = cls if isinstance(cls, type) else type(cls)
    for klass in cls.__mro__:
        own = klass.__dict__.get("param_specs")
        if own is not None and klass.__init__ is cls.__init__:
            return own
        if klass.__init__ is not cls.__init__:
            break
    raise ValueError(
        f"no parameter specs for {cls.__name__}; declare them as a class attribute "
        "param_specs (a tuple of ercot_nb.params.Param)"
    )
