"""Sphinx configuration of ercot-nb's documentation.

Build (from the repository root, after ``pip install -e ".[docs]"``)::

    python -m sphinx -W --keep-going -n -b html -d docs/_build/doctrees docs docs/_build/html

The tutorials are rendered from their stored outputs, not executed (this file
mirrors them into ``docs/notebooks/``, a build folder git ignores, so their
relative links keep working); ``tests/test_docs.py`` builds the site and
checks its links and pages in Chromium.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # this checkout's ercot_nb, whatever is installed
sys.path.insert(0, str(DOCS / "_ext"))  # ercot_docs and its myst-nb entry point

import ercot_nb  # noqa: E402

# Sources of the site that live outside docs/, relative to notebooks/.
NOTEBOOK_SOURCES = (
    "*.ipynb",
    "exercises/*.ipynb",  # the students' versions; exercises/solutions/ stays out
    "exercises/README.md",
    "paper_results/**/*.md",
    "paper_results/**/figures.html",
    "paper_results/**/runs.csv",
)


def _for_readers(path: Path) -> bytes:
    """A notebook's bytes without nbval's ``# NBVAL_...`` cell markers (other files as they are)."""
    if path.suffix != ".ipynb":
        return path.read_bytes()
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], list) else cell["source"].splitlines(True)
            cell["source"] = [line for line in source if not line.lstrip().startswith("# NBVAL_")]
    return json.dumps(notebook, indent=1, ensure_ascii=False).encode("utf-8")


def _mirror_notebooks() -> None:
    """Copy NOTEBOOK_SOURCES into docs/notebooks/ (changed files only), drop stale copies."""
    source, target = ROOT / "notebooks", DOCS / "notebooks"
    wanted = {path.relative_to(source): path for pattern in NOTEBOOK_SOURCES
              for path in source.glob(pattern) if path.is_file()}
    for rel, path in wanted.items():
        copy = target / rel
        content = _for_readers(path)
        if not copy.is_file() or copy.read_bytes() != content:
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(content)
    for copy in [p for p in target.rglob("*") if p.is_file()]:
        if copy.relative_to(target) not in wanted and copy.parent.name != "_thumbs":
            copy.unlink()


_mirror_notebooks()

project = "ercot-nb"
author = "ercot-nb contributors"
copyright = "ercot-nb contributors, BSD-3-Clause"
version = release = ercot_nb.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "numpydoc",
    "sphinx.ext.githubpages",  # writes .nojekyll so GitHub Pages serves _static/ as is
    "ercot_docs",
]

exclude_patterns = [
    "_build",
    "**/.ipynb_checkpoints",
]
suppress_warnings: list[str] = []

# -- MyST and notebooks ------------------------------------------------------
nb_execution_mode = "off"  # the notebooks are stored with their outputs (tested by nbval)
nb_output_stderr = "remove"  # numba/tqdm progress noise, not content
myst_enable_extensions = ["colon_fence", "substitution"]
myst_heading_anchors = 3


def _binder_links() -> dict[str, str]:
    """README's Binder link definitions, the one place naming the repository."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = dict(re.findall(r"^\[(binder-[a-z]+)\]:\s*(\S+)\s*$", text, re.M))
    missing = {"binder-tutorials", "binder-explorer"} - set(links)
    if missing:
        raise ValueError(f"README.md lacks the Binder link definition(s) {sorted(missing)}")
    # Substitutions are parsed as Markdown: each is a whole link (a substitution inside a
    # link target is not expanded).
    return {
        "binder_tutorials": f"[open the tutorials on Binder]({links['binder-tutorials']})",
        "binder_explorer": f"[open the Explorer app on Binder]({links['binder-explorer']})",
    }


myst_substitutions = _binder_links()


def _tutorial_gallery() -> str:
    """The gallery table of tutorials.md (thumbnails into docs/notebooks/_thumbs/, a build folder)."""
    import ercot_docs

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    binder = re.search(r"^\[binder-tutorials\]:\s*(\S+)\s*$", text, re.M).group(1)
    notebooks = sorted((DOCS / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    return ercot_docs.gallery_markdown(notebooks, DOCS / "notebooks" / "_thumbs", DOCS, binder)


myst_substitutions["tutorial_gallery"] = _tutorial_gallery()

# -- API reference -------------------------------------------------------------
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": True}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# External types are not cross-referenced (no intersphinx: the build runs offline);
# every reference inside ercot_nb must resolve (-n).
# Private names (a module or class whose name starts with "_") are not part of the
# reference: a docstring may name one, and it renders as text.
nitpick_ignore_regex = [
    (r"py:.*", r"ercot_nb(\.\w+)*\._\w+(\.\w+)*"),
    (r"py:.*", r"(numpy|np|pandas|pd|sklearn|plotly|go|ipywidgets|widgets|traitlets|anywidget|scipy|dask|distributed|typing|collections|pathlib|os)\..*"),
]

# -- HTML ------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "ercot-nb"
html_static_path = ["_static"]
html_css_files = ["ercot.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_show_sourcelink = False
html_context = {"default_mode": "light"}  # an empty mode logs a console error in the theme
html_copy_source = False  # the notebooks are large; the site links them on GitHub/Binder instead
