"""Parameter forms built from a function's signature and numpydoc docstring.

Dataset loaders and estimators document their parameters in numpydoc style,
for instance ``knee : {"ideal", "chord", "mock"}, default="ideal"``.  This
module turns such a signature into :class:`ParamSpec` records (name,
default, type, choices, help) and a :class:`ParamsForm` of input widgets, so
a new scenario or baseline gets its form without any widget code.
"""
from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

__all__ = ["ParamSpec", "param_specs", "ParamsForm"]

_REQUIRED = inspect.Parameter.empty


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a form.

    Attributes
    ----------
    name : str
    default : object
        Default value (``inspect.Parameter.empty`` when required).
    kind : {"bool", "int", "float", "str", "choice", "number_or_none"}
        Input widget and parsing rule.
    choices : tuple of str
        Allowed values of a ``"choice"`` parameter.
    help : str
        First sentence of the parameter's documentation (tooltip).
    """

    name: str
    default: Any
    kind: str
    choices: tuple[str, ...] = ()
    help: str = ""

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


def _doc_entries(doc: str) -> dict[str, tuple[str, str]]:
    """``name -> (type line, first description line)`` from numpydoc text."""
    entries: dict[str, tuple[str, str]] = {}
    lines = inspect.cleandoc(doc or "").splitlines()
    for index, line in enumerate(lines):
        match = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$", line)
        if not match:
            continue
        paragraph = []
        for following in lines[index + 1 :]:
            if not following.startswith((" ", "\t")) or not following.strip():
                break
            paragraph.append(following.strip())
        text = " ".join(paragraph).replace("``", "")
        first_sentence = re.split(r"(?<=\.)\s", text, maxsplit=1)[0]
        entries.setdefault(match.group(1), (match.group(2), first_sentence))
    return entries


def _literal(text: str) -> Any:
    """``"2"`` -> 2, ``"'a'"`` -> ``"a"``, ``"None"`` -> None; other text unchanged."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text.strip("\"'")


def _choices(type_line: str) -> tuple[Any, ...]:
    """The values of a ``{2, 3}`` or ``{"a", "b"}`` type line, with their Python types."""
    match = re.match(r"^\s*\{([^}]*)\}", type_line)
    if not match:
        return ()
    return tuple(_literal(item.strip()) for item in match.group(1).split(",") if item.strip())


def param_specs(
    function: Callable[..., Any],
    doc: str | None = None,
    *,
    skip: Iterable[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> list[ParamSpec]:
    """Describe the keyword parameters of ``function`` for a form.

    Parameters
    ----------
    function : callable
        A function or a class (its ``__init__`` is used).
    doc : str, optional
        Numpydoc text documenting the parameters; default the docstring of
        ``function``.
    skip : iterable of str
        Parameter names to leave out.
    defaults : mapping, optional
        Defaults to use instead of the signature's (e.g. ``{"seed": 0}``).

    Returns
    -------
    list of ParamSpec
        In signature order; ``*args``/``**kwargs`` are ignored.
    """
    target = function.__init__ if inspect.isclass(function) else function
    signature = inspect.signature(target)
    entries = _doc_entries(doc if doc is not None else (function.__doc__ or ""))
    skipped = set(skip) | {"self"}
    overrides = dict(defaults or {})
    specs = []
    for parameter in signature.parameters.values():
        if parameter.name in skipped or parameter.kind in (
            parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD
        ):
            continue
        type_line, description = entries.get(parameter.name, ("", ""))
        default = overrides.get(parameter.name, parameter.default)
        choices = _choices(type_line)
        annotation = str(parameter.annotation) if parameter.annotation is not _REQUIRED else type_line
        if choices and (default is _REQUIRED or default in choices):
            kind = "choice"
        elif isinstance(default, bool):
            kind = "bool"
        elif isinstance(default, int):
            kind = "int"
        elif isinstance(default, float):
            kind = "float"
        elif isinstance(default, str):
            kind = "str"
        elif default is None or re.search(r"\b(int|float)\b", annotation):
            kind = "number_or_none"
        elif default is _REQUIRED and re.search(r"\bstr\b", annotation):
            kind = "str"
        else:
            continue  # objects the form cannot edit (callables, arrays, ...)
        specs.append(ParamSpec(parameter.name, default, kind, choices, description))
    return specs


class _Field:
    """One input widget and the rule turning its value into a parameter."""

    def __init__(self, spec: ParamSpec) -> None:
        self.spec = spec
        common: dict[str, Any] = dict(
            description=spec.name,
            style={"description_width": "120px"},
            layout=W.Layout(width="250px"),
        )
        if spec.help:
            common["tooltip"] = spec.help
        default = None if spec.required else spec.default
        if spec.kind == "choice":
            self.widget: W.ValueWidget = W.Dropdown(
                options=list(spec.choices), value=default if default is not None else spec.choices[0],
                **common,
            )
        elif spec.kind == "bool":
            self.widget = W.Checkbox(value=bool(default), indent=False, **common)
        elif spec.kind == "int":
            self.widget = W.IntText(value=int(default), **common)
        elif spec.kind == "float":
            self.widget = W.FloatText(value=float(default), **common)
        else:
            placeholder = "required" if spec.required else ("auto (None)" if default is None else "")
            self.widget = W.Text(
                value="" if default is None else str(default), placeholder=placeholder, **common
            )

    def value(self) -> Any:
        raw = self.widget.value
        if self.spec.kind != "number_or_none":
            if self.spec.kind == "str" and self.spec.required and not str(raw).strip():
                raise ValueError(f"{self.spec.name} is required")
            return raw
        text = str(raw).strip()
        if not text or text.lower() == "none":
            if self.spec.required:
                raise ValueError(f"{self.spec.name} is required")
            return None
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            raise ValueError(
                f"{self.spec.name} must be a number or empty (None), got {text!r}"
            ) from None

    def set(self, value: Any) -> None:
        if self.spec.kind == "number_or_none":
            self.widget.value = "" if value is None else str(value)
        else:
            self.widget.value = value


class ParamsForm(W.VBox):
    """Input widgets for a list of :class:`ParamSpec`, main ones first.

    Parameters
    ----------
    specs : sequence of ParamSpec
    primary : sequence of str, optional
        Names shown at the top; the others go into a collapsed "more
        parameters" section.  Default: all at the top.
    """

    def __init__(self, specs: Sequence[ParamSpec], primary: Sequence[str] | None = None) -> None:
        self.specs = list(specs)
        self.fields = {spec.name: _Field(spec) for spec in self.specs}
        names = [spec.name for spec in self.specs]
        top = [name for name in names if primary is None or name in primary]
        rest = [name for name in names if name not in top]
        grid = dict(grid_template_columns="repeat(2, 255px)", grid_gap="2px 8px")
        children: list[W.Widget] = [
            W.GridBox([self.fields[name].widget for name in top], layout=W.Layout(**grid))
        ]
        if rest:
            more = W.Accordion(
                [W.GridBox([self.fields[name].widget for name in rest], layout=W.Layout(**grid))],
                titles=("more parameters",),
                selected_index=None,
            )
            children.append(more)
        super().__init__(children)

    def values(self) -> dict[str, Any]:
        """The entered parameters.

        Returns
        -------
        dict

        Raises
        ------
        ValueError
            Naming the first field whose text is not a valid value.
        """
        return {name: field.value() for name, field in self.fields.items()}

    def set_values(self, values: Mapping[str, Any]) -> None:
        """Fill fields by name (unknown names are ignored)."""
        for name, value in values.items():
            if name in self.fields:
                self.fields[name].set(value)

    @property
    def disabled(self) -> bool:
        return all(field.widget.disabled for field in self.fields.values())

    @disabled.setter
    def disabled(self, value: bool) -> None:
        for field in self.fields.values():
            field.widget.disabled = value
