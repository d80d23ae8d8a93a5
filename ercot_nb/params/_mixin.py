"""Minimal scikit-learn style parameter handling (no scikit-learn at run time).

A class declares its parameters once, as the class attribute ``param_specs`` (a tuple of
:class:`~ercot_nb.params.Param`); :class:`ParamsMixin` derives from it the ``__init__`` (a real
function with a real signature: ``help()``, ``inspect.signature``, ``get_params``) and the
Parameters section of the class docstring.
"""
from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._doc import with_parameters_section
from ._param import NO_DEFAULT, Param

_ANNOTATIONS = {"int": "int", "float": "float", "bool": "bool", "choice": "str", "str": "str",
                "seed": "int | numpy.random.Generator", "subset": "Sequence[str]"}


def _annotation(spec: Param) -> str:
    kinds = {type(c).__name__ for c in spec.choices} if spec.kind == "choice" else set()
    text = kinds.pop() if len(kinds) == 1 else _ANNOTATIONS[spec.kind]
    if spec.also:
        text += " | str"
    if spec.array_ok:
        text += " | numpy.ndarray"
    return text + (" | None" if spec.optional else "")


def make_init(specs: tuple[Param, ...], n_positional: int = 0, qualname: str = "__init__"):
    """An ``__init__(self, <positional>, *, <keyword-only>)`` with the specs' names and defaults.

    The function is compiled from source, so its signature, defaults and annotations are real
    (``inspect.signature``, ``help()``, IDEs that inspect); it stores every argument unchanged
    as an attribute of the same name (scikit-learn's rule: no validation at construction).
    """
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names) or not all(name.isidentifier() for name in names):
        raise ValueError(f"parameter names must be distinct identifiers, got {names}")
    namespace: dict[str, Any] = {"numpy": np, "Sequence": Sequence}
    arguments = []
    for index, spec in enumerate(specs):
        default = "" if spec.default is NO_DEFAULT else f" = _default_{index}"
        namespace[f"_default_{index}"] = spec.default
        arguments.append(f"{spec.name}: {_annotation(spec)}{default}")
        if index + 1 == n_positional and index + 1 < len(specs):
            arguments.append("*")
    if n_positional == 0 and arguments:
        arguments.insert(0, "*")
    body = "".join(f"    self.{name} = {name}\n" for name in names) or "    pass\n"
    source = f"def __init__(self, {', '.join(arguments)}) -> None:\n{body}"
    exec(compile(source, f"<generated __init__ of {qualname}>", "exec", dont_inherit=True), namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__qualname__ = f"{qualname}.__init__"
    init.__doc__ = "Store the parameters unchanged (validated by ``fit``); see the class docstring."
    return init


def with_params(specs, *, document: bool = True):
    """Decorate a function whose parameters ``specs`` declare: defaults and docs come from them.

    The function is written without defaults (``def f(seed, *, n_steps): ...``); the decorator
    sets its defaults (``__defaults__`` / ``__kwdefaults__``, so ``inspect.signature`` and calls
    see them), stores the specs as ``f.param_specs`` and inserts the Parameters section into its
    docstring.

    Parameters
    ----------
    specs : sequence of Param
        In the order of the function's parameters (names must match).
    document : bool, default=True
        Insert the generated Parameters section into the docstring.
    """
    specs = tuple(specs)

    def decorate(function):
        parameters = list(inspect.signature(function).parameters.values())
        if [p.name for p in parameters] != [spec.name for spec in specs]:
            raise ValueError(f"{function.__qualname__}: its parameters {[p.name for p in parameters]} "
                             f"are not those of its specs {[spec.name for spec in specs]}")
        if any(p.default is not p.empty for p in parameters):
            raise ValueError(f"{function.__qualname__}: write no default in the signature; "
                             "the specs declare them")
        by_name = {spec.name: spec for spec in specs}
        positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if any(by_name[name].default is NO_DEFAULT for name in positional):
            raise ValueError(f"{function.__qualname__}: every positional parameter needs a default")
        function.__defaults__ = tuple(by_name[name].default for name in positional) or None
        function.__kwdefaults__ = {p.name: by_name[p.name].default for p in parameters
                                   if p.kind is p.KEYWORD_ONLY and by_name[p.name].default is not NO_DEFAULT}
        function.param_specs = specs
        if document and function.__doc__:
            function.__doc__ = with_parameters_section(function.__doc__, specs)
        return function

    return decorate


class ParamsMixin:
    """``get_params``/``set_params``/``clone`` and a compact ``repr`` from ``__init__``'s signature.

    A subclass that declares ``param_specs`` in its body and writes no ``__init__`` gets both
    generated: the ``__init__`` of those parameters (the first ``_n_positional`` may be given
    by position) and the Parameters section of its docstring.
    """

    param_specs: tuple[Param, ...]
    _n_positional = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        specs = cls.__dict__.get("param_specs")
        if specs is None or "__init__" in cls.__dict__:
            return
        cls.param_specs = specs = tuple(specs)
        init = make_init(specs, cls._n_positional, cls.__qualname__)
        init.__module__ = cls.__module__
        cls.__init__ = init
        if cls.__doc__ is not None:
            cls.__doc__ = with_parameters_section(cls.__doc__, specs)

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [
            name
            for name, p in signature.parameters.items()
            if name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        ]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this estimator, as given to ``__init__``."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any):
        """Set parameters; unknown names raise ``ValueError``."""
        valid = set(self._param_names())
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; valid: {sorted(valid)}")
            setattr(self, name, value)
        return self

    def clone(self):
        """A new, unfitted estimator with the same parameters."""
        return type(self)(**copy.deepcopy(self.get_params()))

    def __repr__(self) -> str:
        defaults = {
            name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()
        }
        changed = [
            f"{name}={value!r}"
            for name, value in self.get_params().items()
            if not _same(value, defaults.get(name, inspect.Parameter.empty))
        ]
        return f"{type(self).__name__}({', '.join(changed)})"


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # e.g. arrays
        return a is b
