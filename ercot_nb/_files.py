"""The one rule for every file ercot-nb writes.

Every writer of the package (``ercot-nb run --out/--save-result``,
``ercot-nb experiments``, ``ercot-nb tutorials``, ``ercot-nb bench quality
--out``, :meth:`ClusteringResult.save`, :func:`ercot_nb.page.write`,
:meth:`ExplorerPage.save`, :func:`ercot_nb.figures.save_html`,
:func:`ercot_nb.experiments.build_report` and the run files of
:func:`ercot_nb.experiments.run_experiments`) follows it:

1. **Inputs are never written.**  An output that is an input of the same
   command (the same file under another spelling, ``./d.csv``, a symbolic or
   hard link: compared with :func:`os.path.samefile` and resolved paths) is
   refused, with or without ``--overwrite``.
2. **Two outputs of one command never share a path** (same comparison).
3. **An existing file is replaced only when asked**: ``--overwrite`` on the
   command line, ``overwrite=True`` in Python.  A single output file carries
   no mark of who wrote it, so any existing file counts as the user's.  The
   one exception is a folder that ``ercot-nb experiments`` /
   :func:`~ercot_nb.experiments.build_report` writes: its manifest
   ``.ercot-nb-manifest.json`` lists the files an earlier report wrote there,
   and a new report replaces exactly those (run files are recognised by
   their completion records, see :mod:`ercot_nb.experiments.store`).
4. **Missing folders are not created by the command line**: a missing parent
   folder of an output is an error naming it (a typo must not create folders
   elsewhere).  Only ``ercot-nb experiments --out DIR`` and ``ercot-nb
   tutorials DIR`` create their own folder ``DIR`` (its parent must exist).
   The Python API (``save``, ``to_html``, ``save_html``, ``build_report``,
   ``run_experiments``) keeps creating the parent folders of the path it is
   given, as documented there: the caller chose that path in code.
5. **Every write is atomic**: the content goes to a temporary file in the
   target's folder, which is then renamed over the target, so an interrupted
   write leaves the old file whole (at worst a stray ``.<name>.*.tmp``).
6. **Two writers of one new file never both win**: a file that must not
   exist (no ``--overwrite``, not listed in a manifest) is created by a hard
   link of the finished temporary file, which fails when the name is taken
   (or, on a file system without hard links, by claiming the name with
   ``O_EXCL`` first): of several processes writing the same new path at once
   exactly one succeeds, the others get an :class:`OutputError` and nothing
   is replaced.  :func:`check_outputs` marks such paths, and
   :func:`atomic_write` honours the mark.
7. **A full disk is one line**: an ``ENOSPC``/``EDQUOT``/``EFBIG``/``EROFS``
   while writing raises :class:`OutputError` naming the file and the limit;
   the temporary file is removed.

Refusals are :class:`OutputError` (a ``ValueError``) with a one-line message
naming the file and what to do; the command line prints it and exits with 2.
"""
from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any

__all__ = ["OutputError", "atomic_write", "atomic_write_text", "check_outputs", "same_file", "write_error",
           "WriteLimitError",
           "read_manifest", "write_manifest", "MANIFEST_NAME"]

MANIFEST_NAME = ".ercot-nb-manifest.json"
"""File listing what an experiments report wrote into its folder (rule 3)."""


class OutputError(ValueError):
    """An output path that the rule above refuses (one-line message)."""


class WriteLimitError(OutputError, OSError):
    """A resource limit hit while writing (full disk, quota, file size, read-only): one line.

    Both an :class:`OutputError` (a ``ValueError``) and an ``OSError``, so
    callers that catch either see it.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class _MarkedPath(type(Path())):  # type: ignore[misc]
    """A path that can carry rule 6's mark (paths derived from it do not: ``parent``, ``/`` ...)."""


def _must_be_new(path: str | os.PathLike[str]) -> Path:
    """``path`` marked as found free by :func:`check_outputs`: :func:`atomic_write` keeps it so."""
    marked = _MarkedPath(path)
    marked.must_be_new = True
    return marked


_LIMIT_ERRNOS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EFBIG: "the file size limit is exceeded",
    errno.EROFS: "the file system is read-only",
}


def write_error(path: str | os.PathLike[str], exc: OSError) -> WriteLimitError | None:
    """A one-line :class:`WriteLimitError` for a resource limit hit while writing ``path``, else ``None``.

    Parameters
    ----------
    path : path
        The file being written.
    exc : OSError
        What the write raised.

    Returns
    -------
    WriteLimitError or None
        For a full disk, an exceeded quota or file size limit, or a read-only
        file system: the message names the file and the limit.
    """
    reason = _LIMIT_ERRNOS.get(getattr(exc, "errno", None))
    if reason is None:
        return None
    error = WriteLimitError(f"could not write {path}: {reason} ([Errno {exc.errno}] {exc.strerror}); "
                            "free some space or write elsewhere (nothing was replaced)")
    error.errno, error.strerror = exc.errno, exc.strerror
    return error


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file (links and spellings resolved).

    Parameters
    ----------
    a, b : path

    Returns
    -------
    bool
    """
    a, b = Path(a), Path(b)
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(os.path.abspath(a)) == os.path.realpath(os.path.abspath(b))


def check_outputs(
    outputs: Mapping[str, str | os.PathLike[str] | None],
    inputs: Mapping[str, str | os.PathLike[str] | None] | None = None,
    *,
    overwrite: bool = False,
    owned: Iterable[str | os.PathLike[str]] = (),
    create_parents: bool = False,
    overwrite_hint: str = "overwrite=True",
) -> dict[str, Path]:
    """Check the outputs of one command against the rule of this module.

    Parameters
    ----------
    outputs : mapping
        What names each output (a flag such as ``"--out"``) -> its path;
        ``None`` entries are skipped.
    inputs : mapping, optional
        The command's input files, named the same way; never written.
    overwrite : bool, default=False
        Replace existing files (never an input).
    owned : iterable of path
        Existing files written earlier by the same kind of command (from a
        manifest): replaced without ``overwrite``.
    create_parents : bool, default=False
        Whether the caller creates missing parent folders (the Python API);
        otherwise a missing parent folder is an error.
    overwrite_hint : str, default="overwrite=True"
        How the user asks for replacement, quoted in messages
        (``"--overwrite"`` on the command line).

    Returns
    -------
    dict
        The given outputs as :class:`~pathlib.Path` (``None`` entries left out).

    Raises
    ------
    OutputError
        Naming the first output that is an input, shares a path with another
        output, is a folder, has a missing parent folder, or exists (and is
        neither owned nor allowed by ``overwrite``).
    """
    paths = {name: Path(path) for name, path in outputs.items() if path is not None}
    sources = {name: Path(path) for name, path in (inputs or {}).items() if path is not None}
    owned_paths = [Path(p) for p in owned]
    seen: list[tuple[str, Path]] = []
    for name, path in paths.items():
        for source_name, source in sources.items():
            if same_file(path, source):
                raise OutputError(f"{name} {path} is the input {source_name} {source}; write the output "
                                  "to another file (an input is never overwritten)")
        for other_name, other in seen:
            if same_file(path, other):
                raise OutputError(f"{name} {path} and {other_name} {other} are the same file; give each "
                                  "output its own path")
        seen.append((name, path))
        if path.is_dir():
            raise OutputError(f"{name} {path} is a folder; give a file path")
        parent = path.parent
        if not create_parents and not parent.is_dir():
            what = "is not a folder" if parent.exists() else "does not exist"
            raise OutputError(f"{name} {path}: the folder {parent} {what}; create it first or choose "
                              "another path")
        existing = next((p for p in (parent, *parent.parents) if p.exists()), None)
        if existing is not None and not existing.is_dir():
            raise OutputError(f"{name} {path}: {existing} is a file, not a folder; choose another path")
        taken = path.exists() or path.is_symlink()
        if taken and not overwrite and not any(same_file(path, mine) for mine in owned_paths):
            raise OutputError(f"{name} {path} already exists; choose another path or pass "
                              f"{overwrite_hint} to replace it")
        if not taken and not overwrite:
            paths[name] = _must_be_new(path)  # rule 6: still free when written, or refused
    return paths


def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[bytes]], Any], *,
                 overwrite: bool | None = None) -> Path:
    """Write ``path`` through a temporary file in its folder, then rename it over ``path``.

    Parameters
    ----------
    path : path
        The target; its folder must exist.
    write : callable
        Called with a binary file object open on the temporary file.
    overwrite : bool, optional
        ``False``: ``path`` must not exist when the content is in place (rule
        6: of concurrent writers exactly one wins, the others get an
        :class:`OutputError`); ``True``: replace it.  By default, ``False``
        for a path that :func:`check_outputs` found free without
        ``overwrite``, otherwise ``True``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Notes
    -----
    The temporary file gets the mode a new file would get (umask applied), or
    the mode of the file it replaces.  On any error it is removed and the old
    file is left as it was; a full disk (or quota, file size limit, read-only
    file system) is an :class:`OutputError` naming the file (rule 7).
    """
    if overwrite is None:
        overwrite = not getattr(path, "must_be_new", False)
    path = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise (write_error(path, exc) or exc) from None
    try:
        with os.fdopen(handle, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError:
            mode = _FILE_MODE
        os.chmod(temporary, mode)
        if overwrite:
            os.replace(temporary, path)
        else:
            _create(temporary, path)
    except OSError as exc:
        _discard(temporary)
        limit = write_error(path, exc)
        if limit is None:
            raise
        raise limit from None
    except BaseException:
        _discard(temporary)
        raise
    return path


def _discard(temporary: str) -> None:
    try:
        os.unlink(temporary)
    except OSError:
        pass


def _taken(path: Path) -> OutputError:
    return OutputError(f"{path} was created by another writer meanwhile; nothing was replaced: choose "
                       "another path, or pass --overwrite / overwrite=True to replace it")


def _create(temporary: str, path: Path) -> None:
    """Put the finished ``temporary`` at ``path`` only if no file is there (rule 6)."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise _taken(path) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK,
                             errno.ENOSYS):
            raise
        # no hard links here: claim the name first, then rename over the claim
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            raise _taken(path) from None
        os.replace(temporary, path)
        return
    os.unlink(temporary)


def atomic_write_text(path: str | os.PathLike[str], text: str, *, overwrite: bool | None = None) -> Path:
    """:func:`atomic_write` of UTF-8 text."""
    return atomic_write(path, lambda file: file.write(text.encode("utf-8")), overwrite=overwrite)


def read_manifest(folder: str | os.PathLike[str]) -> list[Path]:
    """Files that an earlier report listed in ``folder``'s manifest (rule 3).

    An unreadable manifest lists nothing (every existing file is then the user's).
    """
    path = Path(folder) / MANIFEST_NAME
    try:
        names = json.loads(path.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if not isinstance(names, list):
        return []
    # Only plain names inside the folder: a manifest cannot hand out files elsewhere.
    return [Path(folder) / name for name in names
            if isinstance(name, str) and name and Path(name).name == name and name not in (".", "..")]


def write_manifest(folder: str | os.PathLike[str], files: Iterable[str | os.PathLike[str]]) -> Path:
    """Record ``files`` (inside ``folder``) as written by this package, keeping earlier entries."""
    folder = Path(folder)
    names = {p.name for p in read_manifest(folder)} | {Path(f).name for f in files}
    content = {"written_by": "ercot-nb", "files": sorted(names)}
    return atomic_write_text(folder / MANIFEST_NAME, json.dumps(content, indent=1) + "\n")
