"""Minimal scikit-learn style parameter handling (no scikit-learn at run time)."""
from __future__ import annotations

import copy
import inspect
from typing import Any


class ParamsMixin:
    """``get_params``/``set_params``/``clone`` and a compact ``repr`` from ``__init__``'s signature."""

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


def store_params(estimator: ParamsMixin, arguments: dict[str, Any]) -> None:
    """Store ``__init__``'s arguments (pass ``locals()``) as attributes, unchanged."""
    for name in estimator._param_names():
        setattr(estimator, name, arguments[name])
