"""The :class:`Param` record: one parameter's specification, validation and command-line parsing.

Public through :mod:`ercot_nb.params`; the specs themselves are declared by the classes and
datasets that own them.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Param", "validate_params", "parse_assignments", "check_argument", "KINDS", "NO_DEFAULT"]

KINDS = ("int", "float", "bool", "choice", "str", "seed", "subset")

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null", "")


class _NoDefault:
    """Marker of a parameter without a default (a required function argument)."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


@dataclass(frozen=True)
class Param:
    """Specification of one parameter.

    Attributes
    ----------
    name : str
        Code name, e.g. ``"n_per_cluster"``.
    kind : {"int", "float", "bool", "choice", "str", "seed", "subset"}
        ``"seed"``: an int >= 0, a ``numpy.random.Generator`` or None;
        ``"subset"``: a non-empty sequence of distinct ``choices``.
    default : object
        The default value (equal to the signature's default).
    label : str
        Words for a user interface, e.g. ``"points per cluster"``.
    help : str
        One line of help, never empty.
    choices : tuple
        For ``"choice"`` and ``"subset"``: the actual allowed values.
    low, high : float or None
        Bounds of ``"int"`` and ``"float"`` values (inclusive unless
        ``low_open`` / ``high_open``).
    optional : bool
        ``None`` is allowed.
    unit : str
        Unit of the value, for display.
    low_open, high_open : bool
        Exclude the bound itself.
    multiple_of : int or None
        An ``"int"`` value must be a multiple of this (e.g. 2: even).
    also : tuple
        Extra literal values allowed besides the kind (AFFECT's
        ``alpha="estimate"``).
    array_ok : bool
        A numpy array is also accepted (k-meansCOT's ``init`` centroids);
        its shape is checked by the estimator.
    doc : str
        More about the parameter for its docstring entry, after ``help``
        (numpydoc text; the generated Parameters sections show both).
    labels : tuple of (value, str)
        For ``"choice"`` and ``"subset"``: words for each choice, in the
        order of ``choices`` (given as a mapping value -> words, e.g.
        ``{"per_solution": "per solution"}``).  A user interface shows the
        words; the value stays what the estimator receives and what the
        command line takes.  Default: the values themselves.
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    optional: bool = False
    unit: str = ""
    low_open: bool = False
    high_open: bool = False
    multiple_of: int | None = None
    also: tuple = ()
    array_ok: bool = False
    doc: str = ""
    labels: tuple[tuple[Any, str], ...] | Mapping[Any, str] = ()

    def __post_init__(self) -> None:
        given = dict(self.labels)
        if given:
            if self.kind not in ("choice", "subset"):
                raise ValueError(f"Param {self.name!r}: labels are words for choices; "
                                 f"a {self.kind} has none")
            missing = [c for c in self.choices if c not in given]
            extra = [v for v in given if v not in self.choices]
            if missing or extra:
                raise ValueError(
                    f"Param {self.name!r}: labels must name every choice exactly "
                    f"(missing: {', '.join(map(repr, missing)) or 'none'}; "
                    f"not a choice: {', '.join(map(repr, extra)) or 'none'})")
        # kept as (value, words) pairs in the order of the choices: the record stays hashable
        object.__setattr__(self, "labels", tuple((c, str(given[c])) for c in self.choices if given))
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if not self.help.strip():
            raise ValueError(f"Param {self.name!r}: help must not be empty")
        if self.kind in ("choice", "subset") and not self.choices:
            raise ValueError(f"Param {self.name!r}: a {self.kind} needs choices")

    # -- description -------------------------------------------------------------------
    def choice_label(self, value: Any) -> str:
        """Words for the choice ``value`` (the value as text when none are declared)."""
        for choice, words in self.labels:
            if _literal_equal(value, choice):
                return words
        return str(value)

    def allowed(self) -> str:
        """Words describing the allowed values, e.g. ``"an int in [2, 1000]"``."""
        if self.kind == "seed":
            text = "an int >= 0 or a numpy.random.Generator"
        elif self.kind == "bool":
            text = "True or False"
        elif self.kind == "choice":
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "subset":
            text = "a non-empty list of distinct values from " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "str":
            text = "a string"
        else:
            noun = "an int" if self.kind == "int" else "a finite number"
            if self.multiple_of == 2:
                noun = "an even int"
            text = noun + self._range_text()
            if self.multiple_of and self.multiple_of != 2:
                text += f", a multiple of {self.multiple_of}"
        extras = [repr(v) for v in self.also]
        if self.array_ok:
            extras.append("an array")
        if self.optional:
            extras.append("None")
        if extras:
            text += " or " + " or ".join(extras)
        return text

    def _range_text(self) -> str:
        if self.low is None and self.high is None:
            return ""
        if self.high is None:
            return f" {'>' if self.low_open else '>='} {self.low:g}"
        if self.low is None:
            return f" {'<' if self.high_open else '<='} {self.high:g}"
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        return f" in {left}{self.low:g}, {self.high:g}{right}"

    # -- validation ----------------------------------------------------------------------
    def _refuse(self, owner: str, value: Any, error=ValueError, hint: str = ""):
        if hint:
            default = f"; {hint}"
        elif self.default is NO_DEFAULT:
            default = ""
        else:
            default = f"; the default is {self.default!r}"
        return error(
            f"{owner}: {self.name} must be {self.allowed()}, got {_describe(value)}{default}"
        )

    def validate(self, value: Any, owner: str) -> Any:
        """Return ``value`` converted to this parameter's type, or raise.

        Conversions are only the lossless ones: numpy scalars to Python
        numbers, an int to a float.  Text is never parsed here (see
        :meth:`parse` for command-line text).

        Parameters
        ----------
        value : object
        owner : str
            Name of the estimator or dataset, used in the message.

        Raises
        ------
        TypeError
            For a value of the wrong type (e.g. the string ``"0.5"`` for a
            float parameter).
        ValueError
            For a value of the right type outside the allowed set.
        """
        if value is None:
            if self.optional:
                return None
            raise self._refuse(owner, value, TypeError)
        if any(_literal_equal(value, extra) for extra in self.also):
            return value
        if self.array_ok and isinstance(value, (np.ndarray, list, tuple)) and not isinstance(value, str):
            return value
        kind = self.kind
        if kind == "seed":
            if isinstance(value, np.random.Generator):
                return value
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                raise self._refuse(owner, value, TypeError, "pass e.g. seed=0 (the same int gives the same result)")
            if int(value) < 0:
                raise self._refuse(owner, value, ValueError, "pass e.g. seed=0 (the same int gives the same result)")
            return int(value)
        if kind == "bool":
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            raise self._refuse(owner, value, TypeError)
        if kind == "choice":
            for choice in self.choices:
                if _literal_equal(value, choice):
                    return choice
            error = TypeError if not isinstance(value, (str, numbers.Number)) else ValueError
            raise self._refuse(owner, value, error)
        if kind == "subset":
            if isinstance(value, str) or not hasattr(value, "__iter__"):
                raise self._refuse(owner, value, TypeError)
            items = list(value)
            unknown = [item for item in items if item not in self.choices]
            if not items or unknown or len(set(items)) != len(items):
                raise self._refuse(owner, value, ValueError)
            return tuple(items)
        if kind == "str":
            if isinstance(value, str):
                return value
            raise self._refuse(owner, value, TypeError)
        # int / float
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise self._refuse(owner, value, TypeError)
        if kind == "int":
            if not isinstance(value, numbers.Integral):
                raise self._refuse(owner, value, TypeError)
            converted: Any = int(value)
        else:
            converted = float(value)
            if not math.isfinite(converted):
                raise self._refuse(owner, value, ValueError)
        if not self._in_range(converted):
            raise self._refuse(owner, value, ValueError)
        if self.multiple_of and converted % self.multiple_of:
            raise self._refuse(owner, value, ValueError)
        return converted

    def _in_range(self, x: float) -> bool:
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            return False
        if self.high is not None and (x > self.high or (self.high_open and x == self.high)):
            return False
        return True

    def convert(self, text: str) -> Any:
        """Command-line text as a value of this parameter's type, not yet validated.

        ``"none"`` gives None where allowed; booleans accept true/false,
        yes/no, on/off, 1/0; a subset is comma-separated; text that does not
        convert stays text (so that :meth:`validate` names what is allowed).
        """
        raw = str(text).strip()
        if raw.lower() in _NONE and self.optional:
            return None
        for extra in self.also:
            if raw == str(extra):
                return extra
        value: Any = raw
        try:
            if self.kind in ("int", "seed"):
                value = int(raw)
            elif self.kind == "float":
                value = float(raw)
            elif self.kind == "bool":
                if raw.lower() in _TRUE:
                    value = True
                elif raw.lower() in _FALSE:
                    value = False
            elif self.kind == "choice":
                value = next((c for c in self.choices if str(c) == raw), raw)
            elif self.kind == "subset":
                value = [item.strip() for item in raw.split(",") if item.strip()]
        except ValueError:
            value = raw  # validate names the parameter and what is allowed
        return value

    def parse(self, text: str, owner: str) -> Any:
        """Convert command-line text to a valid value (:meth:`convert`, then :meth:`validate`)."""
        return self.validate(self.convert(text), owner)


def _literal_equal(value: Any, literal: Any) -> bool:
    """``value == literal`` for plain literals, without numpy's elementwise surprises."""
    if isinstance(value, np.ndarray):
        return False
    if isinstance(literal, str) or isinstance(value, str):
        return isinstance(value, str) and isinstance(literal, str) and value == literal
    if isinstance(value, (bool, np.bool_)) != isinstance(literal, bool):
        return False
    try:
        return bool(value == literal)
    except Exception:  # noqa: BLE001 - anything incomparable is simply not equal
        return False


def check_argument(owner: str, name: str, value: Any, kind: str, *, default: Any = NO_DEFAULT,
                   low: float | None = None, high: float | None = None, low_open: bool = False,
                   high_open: bool = False, optional: bool = False, choices: tuple = (),
                   also: tuple = ()) -> Any:
    """Validate one plain function argument by the rules of the parameter specs.

    The same :meth:`Param.validate` checks every estimator and dataset
    parameter: a bool is never an int or a float, a float is finite, bounds
    are inclusive unless ``low_open`` / ``high_open``, a seed is an int >= 0
    or a ``numpy.random.Generator``.

    Parameters
    ----------
    owner : str
        The function, e.g. ``"step_events"``, named in the message.
    name : str
        The argument's name.
    value : object
    kind : {"int", "float", "bool", "choice", "str", "seed", "subset"}
    default : object, optional
        Shown in the message when given.
    low, high, low_open, high_open, optional, choices, also
        As the fields of :class:`Param`.

    Returns
    -------
    object
        ``value`` converted (numpy scalars to Python numbers, an int to a float).

    Raises
    ------
    TypeError
        For a value of the wrong type (a bool for an int, text for a number).
    ValueError
        For a value of the right type outside the allowed range or choices.

    Examples
    --------
    >>> check_argument("step_events", "n_permutations", 9, "int", low=0)
    9
    >>> check_argument("step_events", "n_permutations", True, "int", low=0)
    Traceback (most recent call last):
    ...
    TypeError: step_events: n_permutations must be an int >= 0, got True (bool)
    """
    spec = Param(name, kind, default, name, f"argument {name} of {owner}", choices=tuple(choices),
                 low=low, high=high, low_open=low_open, high_open=high_open, optional=optional,
                 also=tuple(also))
    return spec.validate(value, owner)


def validate_params(owner: str, specs: tuple[Param, ...], values: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``values`` against ``specs``; return the converted values.

    Raises
    ------
    ValueError
        For an invalid value.
    TypeError
        For a value of the wrong type or an unknown parameter name (the
        message lists the known ones).
    """
    by_name = {spec.name: spec for spec in specs}
    unknown = [name for name in values if name not in by_name]
    if unknown:
        raise TypeError(f"{owner} has no parameter {', '.join(map(repr, unknown))}; "
                         f"its parameters: {', '.join(by_name)}")
    return {name: by_name[name].validate(value, owner) for name, value in values.items()}


def parse_assignments(owner: str, specs: tuple[Param, ...], assignments) -> dict[str, Any]:
    """Parse ``["name=value", ...]`` (command-line ``--param``) into valid values."""
    by_name = {spec.name: spec for spec in specs}
    result: dict[str, Any] = {}
    for item in assignments or ():
        name, sep, text = str(item).partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ValueError(f"{owner}: expected NAME=VALUE, got {item!r}")
        if name not in by_name:
            raise TypeError(f"{owner} has no parameter {name!r}; its parameters: {', '.join(by_name)}")
        if name in result:
            raise ValueError(f"{owner}: parameter {name!r} is given twice ({name}=...); give it once")
        result[name] = by_name[name].parse(text, owner)
    return result
