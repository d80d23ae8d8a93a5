"""numpydoc text generated from parameter specs: the Parameters sections of the estimators' docstrings."""
from __future__ import annotations

import textwrap
from collections.abc import Sequence

from ._param import NO_DEFAULT, Param

__all__ = ["numpydoc_type", "parameters_section", "with_parameters_section"]

_SECTIONS = ("Attributes", "Methods", "Returns", "Yields", "Raises", "Warns", "See Also", "Notes",
             "References", "Examples")


def _literal(value) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def numpydoc_type(spec: Param) -> str:
    """The type text of ``spec``'s numpydoc entry, e.g. ``'int or None, default=None'``.

    Parameters
    ----------
    spec : Param

    Returns
    -------
    str
    """
    if spec.kind == "seed":
        text = "int, numpy.random.Generator"
    elif spec.kind == "choice":
        text = "{" + ", ".join(_literal(c) for c in spec.choices) + "}"
    elif spec.kind == "subset":
        text = "sequence of {" + ", ".join(_literal(c) for c in spec.choices) + "}"
    else:
        text = spec.kind
    parts = [text] + [_literal(v) for v in spec.also] + (["ndarray"] if spec.array_ok else []) \
        + (["None"] if spec.optional else [])
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
    if spec.default is not NO_DEFAULT:
        default = spec.default
        shown = ("[" + ", ".join(_literal(v) for v in default) + "]" if isinstance(default, tuple)
                 else _literal(default))
        text += f", default={shown}"
    return text


def parameters_section(specs: Sequence[Param], indent: str = "") -> str:
    """A numpydoc Parameters section for ``specs``: each spec's type, ``help`` and ``doc``.

    Parameters
    ----------
    specs : sequence of Param
    indent : str, default=""
        Put before every line (the indentation of the docstring it goes into).

    Returns
    -------
    str
        Ending with a blank line.
    """
    lines = ["Parameters", "----------"]
    for spec in specs:
        lines.append(f"{spec.name} : {numpydoc_type(spec)}")
        body = spec.help.strip()
        if spec.doc.strip():
            body += " " + " ".join(spec.doc.split())
        if spec.unit:
            body += f" Unit: {spec.unit}."
        lines.extend(textwrap.wrap(body, width=76, initial_indent="    ", subsequent_indent="    ",
                                   break_on_hyphens=False, break_long_words=False))
    return "\n".join(indent + line if line else line for line in lines) + "\n\n"


def with_parameters_section(doc: str | None, specs: Sequence[Param]) -> str:
    """``doc`` with the Parameters section of ``specs`` inserted before its first later section.

    The section takes the indentation of the docstring (its second and later lines), so that
    ``inspect.cleandoc`` and Sphinx read it as one text.
    """
    doc = doc or ""
    lines = doc.split("\n")
    body = [line for line in lines[1:] if line.strip()]
    indent = min((line[: len(line) - len(line.lstrip())] for line in body), key=len, default="    ")
    for index in range(1, len(lines) - 1):
        title = lines[index].strip()
        underline = lines[index + 1].strip()
        if title in _SECTIONS and underline and set(underline) == {"-"}:
            head, tail = "\n".join(lines[:index]), "\n".join(lines[index:])
            indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
            return head.rstrip() + "\n\n" + parameters_section(specs, indent) + tail
    return doc.rstrip() + "\n\n" + parameters_section(specs, indent)
