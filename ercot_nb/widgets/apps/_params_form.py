"""Parameter forms drawn from the parameter specs of :mod:`ercot_nb.params`.

Every estimator and built-in dataset declares its parameters once, as
:class:`~ercot_nb.params.Param` records (kind, default, words for a user
interface, one line of help, choices or bounds, unit).  A form shows one
input per parameter, labelled in words ("points per cluster") with the help
and the code name in the tooltip; a choice is shown in the words declared
with its spec ("per solution") and keeps its values and their types (the
estimator receives ``"per_solution"``; the ``dims`` of bird_flocks are the
ints 2 and 3), in a dropdown wide enough for its words; every entry is checked
with :meth:`Param.validate <ercot_nb.params.Param.validate>`, so the form,
the estimator and the command line accept exactly the same values.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as W

from ...params import Param

__all__ = ["ParamsForm", "tooltip"]

_LABEL_STYLE = {"description_width": "150px"}  # "evaluations per step" fits
# grid columns: an input (width auto) fills one, its 2 px margins included; two where the form
# has room for two, one in a narrow side panel or the "more parameters" section (no 40 px inputs)
_COLUMNS = "repeat(auto-fit, minmax(240px, 249px))"
# a dropdown in one column has room for about this many characters of its words (measured in
# Chromium: 57 px for the text next to a 150 px label); a choice with longer words gets a row of
# its own, in a one-column grid as wide as both columns (342 px for the text)
_COLUMN_CHARS = 6
_WIDE_COLUMN = "minmax(0, 506px)"


def tooltip(param: Param) -> str:
    """The tooltip of ``param``'s input: its help, unit, allowed values and code name.

    A choice lists each one's words with its code value, e.g.
    ``per solution ('per_solution')``.
    """
    unit = f" Unit: {param.unit}." if param.unit else ""
    allowed = param.allowed()
    if param.labels:
        allowed = ", ".join(f"{words} ({value!r})" for value, words in param.labels)
        allowed = ("one of " if param.kind == "choice" else "any of ") + allowed
    return f"{param.help}{unit} Allowed: {allowed}. (code name: {param.name})"


class _Field:
    """One input widget for one :class:`Param` and the rule turning its entry into a value."""

    def __init__(self, param: Param, owner: str, default: Any) -> None:
        self.param, self.owner = param, owner
        label = param.label + (f" ({param.unit})" if param.unit else "")
        common: dict[str, Any] = dict(description=label, tooltip=tooltip(param),
                                      style=_LABEL_STYLE, layout=W.Layout(width="auto"))
        kind = param.kind
        self.text = False  # a free-text entry parsed with Param.parse
        self.wide = False  # shown in a row of its own (words too long for one column)
        if kind in ("choice", "subset"):
            options = [(param.choice_label(choice), choice) for choice in param.choices]
            self.wide = max(len(words) for words, _ in options) > _COLUMN_CHARS
        if kind == "choice":
            self.widget: W.ValueWidget = W.Dropdown(options=options, value=default, **common)
        elif kind == "subset":
            self.widget = W.SelectMultiple(options=options, value=tuple(default or ()),
                                           rows=min(len(param.choices), 4), **common)
        elif kind == "bool":
            self.widget = W.Checkbox(value=bool(default), indent=False, **common)
        elif kind in ("int", "seed") and default is not None and not param.optional and not param.also:
            self.widget = W.IntText(value=int(default), **common)
        elif kind == "seed" and default is not None:
            self.widget = W.IntText(value=int(default), **common)
        elif kind == "float" and default is not None and not param.optional and not param.also:
            self.widget = W.FloatText(value=float(default), **common)
        else:  # optional numbers (empty = automatic), text, numbers or extra literals ("estimate")
            self.text = kind != "str"
            self.widget = W.Text(value="" if default is None else str(default),
                                 placeholder="automatic" if param.optional else "", **common)

    def value(self) -> Any:
        raw = self.widget.value
        if self.text:
            return self.param.parse(str(raw), self.owner)
        if self.param.kind == "subset":
            raw = tuple(raw)
        return self.param.validate(raw, self.owner)

    def set(self, value: Any) -> None:
        if self.text:
            self.widget.value = "" if value is None else str(value)
        elif self.param.kind == "subset":
            self.widget.value = tuple(value)
        else:
            self.widget.value = value


class ParamsForm(W.VBox):
    """Inputs for a sequence of :class:`~ercot_nb.params.Param`, main ones first.

    Parameters
    ----------
    params : sequence of Param
        E.g. :func:`ercot_nb.algorithms.estimator_params` or
        :func:`ercot_nb.datasets.dataset_params`.
    owner : str, default=""
        Estimator or dataset name, for messages.
    primary : sequence of str, optional
        Names shown at the top; the others go into a collapsed "more
        parameters" section.  Default: all at the top.
    skip : iterable of str
        Parameters the form leaves out (e.g. ``progress``).
    defaults : mapping, optional
        Starting values other than the specs' defaults (e.g. ``{"seed": 0}``:
        reproducible by default in the apps).

    Attributes
    ----------
    params : list of Param
    fields : dict of str to _Field
        ``fields[name].widget`` is the input of parameter ``name``.
    """

    def __init__(self, params: Sequence[Param], owner: str = "", *,
                 primary: Sequence[str] | None = None, skip: Iterable[str] = (),
                 defaults: Mapping[str, Any] | None = None) -> None:
        skipped = set(skip)
        overrides = dict(defaults or {})
        self.owner = owner
        self.params = [param for param in params if param.name not in skipped]
        self.fields = {
            param.name: _Field(param, owner, overrides.get(param.name, param.default))
            for param in self.params
        }
        names = [param.name for param in self.params]
        top = [name for name in names if primary is None or name in primary]
        rest = [name for name in names if name not in top]
        children: list[W.Widget] = self._grids(top)
        if rest:
            children.append(W.Accordion([W.VBox(self._grids(rest))], titles=("more parameters",),
                                        selected_index=None))
        super().__init__(children)

    def _grids(self, names: Sequence[str]) -> list[W.GridBox]:
        """The fields ``names`` in two columns, then the wide choices one per row."""
        grids = []
        for wide, columns in ((False, _COLUMNS), (True, _WIDE_COLUMN)):
            widgets = [self.fields[name].widget for name in names if self.fields[name].wide == wide]
            if widgets or not grids:
                grids.append(W.GridBox(widgets, layout=W.Layout(grid_template_columns=columns,
                                                                grid_gap="2px 8px")))
        return grids

    def values(self) -> dict[str, Any]:
        """The entered parameters, validated against their specs.

        Raises
        ------
        ValueError or TypeError
            Naming the owner, the first invalid parameter and what is allowed.
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
