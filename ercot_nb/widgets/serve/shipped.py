"""The notebooks the package ships: the apps (``ercot-nb app``) and the tutorials (``ercot-nb tutorials``).

The apps are the notebooks ``explorer.ipynb`` and ``compare.ipynb``; their
sources are the repository's top-level ``widgets/`` folder, and a built
wheel ships copies in ``ercot_nb/apps/`` (the build copies them: see
``setup.py``).  :func:`find_app_notebook` looks, in order, in:

1. the folder named by the ``ERCOT_NB_APPS`` environment variable;
2. ``ercot_nb/apps/`` of the installed package (a wheel);
3. ``widgets/`` next to the ``ercot_nb`` package (a checkout or an
   editable install);
4. ``widgets/`` in the current directory.

The tutorials and exercises (sources: the repository's ``notebooks/``) ship
the same way, in ``ercot_nb/tutorials/``; :func:`copy_tutorials` copies them
into a folder of the user's (``ercot-nb tutorials DIR``).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["APPS", "APPS_ENV", "TUTORIAL_FILES", "find_app_notebook", "find_tutorials", "tutorial_files",
           "copy_tutorials"]

APPS = ("explorer", "compare")
APPS_ENV = "ERCOT_NB_APPS"
PACKAGE = Path(__file__).resolve().parents[2]
REPOSITORY = PACKAGE.parent


def find_app_notebook(name: str = "explorer") -> Path:
    """Path of the app notebook ``<name>.ipynb``.

    Parameters
    ----------
    name : str, default="explorer"
        ``"explorer"`` or ``"compare"``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        Listing the places searched and what to do.
    """
    filename = f"{name}.ipynb"
    folders = []
    if os.environ.get(APPS_ENV):
        folders.append(Path(os.environ[APPS_ENV]))
    folders += [PACKAGE / "apps", REPOSITORY / "widgets", Path.cwd() / "widgets"]
    for folder in folders:
        if (folder / filename).is_file():
            return (folder / filename).resolve()
    searched = ", ".join(str(folder) for folder in folders)
    raise FileNotFoundError(
        f"the app notebook {filename} was not found (searched: {searched}); reinstall the "
        f"package (pip install 'ercot-nb[notebook]'), set {APPS_ENV}=/path/to/widgets, or pass "
        "--notebook PATH"
    )


def find_tutorials() -> Path:
    """The folder of the tutorial notebooks and exercises.

    Returns
    -------
    pathlib.Path
        ``ercot_nb/tutorials/`` of an installed wheel, else the checkout's
        ``notebooks/``.

    Raises
    ------
    FileNotFoundError
        When neither exists.
    """
    for folder in (PACKAGE / "tutorials", REPOSITORY / "notebooks"):
        if (folder / "01_quickstart.ipynb").is_file():
            return folder
    raise FileNotFoundError(
        f"the tutorials were not found in {PACKAGE / 'tutorials'} nor {REPOSITORY / 'notebooks'}; "
        "reinstall the package: pip install 'ercot-nb[notebook]'"
    )


TUTORIAL_FILES = ("*.ipynb", "exercises/*.ipynb", "exercises/README.md",
                  "paper_results/**/*.md", "paper_results/**/runs.csv", "paper_results/**/figures.html")
"""What ``ercot-nb tutorials`` copies (and the wheel ships): globs under the tutorials folder.

The student copy: the exercises' ``solutions/`` and teacher notes stay in the source tree
(``ercot-nb teacher solutions DIR`` writes them out)."""


def tutorial_files(folder: Path) -> list[Path]:
    """The tutorial files under ``folder``, relative to it, sorted.

    Parameters
    ----------
    folder : pathlib.Path

    Returns
    -------
    list of pathlib.Path
    """
    found = {path.relative_to(folder) for pattern in TUTORIAL_FILES for path in folder.glob(pattern)
             if path.is_file() and "runs" not in path.relative_to(folder).parts[:-1]}
    return sorted(found)


def copy_tutorials(destination: str | os.PathLike[str], *, overwrite: bool = False) -> list[Path]:
    """Copy the tutorial notebooks and exercises into ``destination``.

    Parameters
    ----------
    destination : path
        Folder to copy into (created when missing; its parent must exist).
    overwrite : bool, default=False
        Replace files that exist there; by default they are kept.  Each copy
        is atomic, and a tutorial is never copied onto itself (see
        :mod:`ercot_nb._files`).

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    ValueError
        When ``destination`` is a file, its parent folder is missing, it is
        the installed tutorials' own folder, or the tutorials are missing.
    """
    from ..._files import atomic_write, same_file

    target = Path(destination).expanduser()
    if target.exists() and not target.is_dir():
        raise ValueError(f"{target} is a file; give a folder to copy the tutorials into")
    if not target.exists() and not target.parent.is_dir():
        raise ValueError(f"the folder {target.parent} does not exist; create it first (only {target.name} "
                         "itself is created)")
    try:
        source = find_tutorials()
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    if target.exists() and same_file(target, source):
        raise ValueError(f"{target} is the folder the tutorials are copied from; give another folder")
    written = []
    for relative in tutorial_files(source):
        out = target / relative
        existed = out.exists()
        if existed and (not overwrite or same_file(out, source / relative)):
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        with (source / relative).open("rb") as original:  # a new file stays new: one writer wins
            atomic_write(out, lambda file: shutil.copyfileobj(original, file), overwrite=existed)
        written.append(out)
    return written
