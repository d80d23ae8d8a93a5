"""Run files: one CSV per finished run (and its kept final populations), read back as the run table."""
from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._files import atomic_write, atomic_write_text
from .spec import RUN_COLUMNS, STATUS_FAILED, RunOutput, RunSpec

SETTINGS_COLUMN = "settings_id"
FRONTS_SUFFIX = ".fronts.csv"
RECORD_SUFFIX = ".done.json"
"""A run is finished only when its completion record ``<stem>.done.json`` exists and matches its file."""
RECORD_FORMAT = 1


_STEM = re.compile(r"(?P<algorithm>.+?)__(?P<dataset>.+)__run(?P<run>\d+)\.csv")


class IncompleteRunError(ValueError):
    """A run file that cannot be taken as a finished run (partial, corrupt, stray or unrecorded)."""

    def __init__(self, path: Path, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(f"{path} is not a complete run file: {reason}")


def run_path(out_dir: Path, spec: RunSpec) -> Path:
    return out_dir / f"{spec.stem}.csv"


def fronts_path(out_dir: Path, stem: str) -> Path:
    return out_dir / f"{stem}{FRONTS_SUFFIX}"


def record_path(out_dir: Path, stem: str) -> Path:
    return out_dir / f"{stem}{RECORD_SUFFIX}"


def _checksum(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_atomically(frame: pd.DataFrame, path: Path) -> None:
    """Write a CSV so that ``path`` is either absent, old or complete (:func:`ercot_nb._files.atomic_write`)."""
    atomic_write(path, lambda file: frame.to_csv(file, index=False))


def read_run_file(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"time": str, "status": str, "error": str, SETTINGS_COLUMN: str},
                       keep_default_na=False, na_values={c: [""] for c in ("t", "n_samples", "RI", "NMI",
                                                                            "n_clusters", "alpha", "seconds")})


def save_run(out_dir: Path, spec: RunSpec, output: RunOutput) -> None:
    """Fronts, then the run file, then its completion record (row count and checksums), each atomically.

    Only the record, written last, marks the run as finished: a crash at any
    point leaves a run that :func:`finished_status` runs again.
    """
    record = record_path(out_dir, spec.stem)
    record.unlink(missing_ok=True)  # the files below are being replaced: never pair them with an old record
    fronts_sum = None
    if output.fronts is not None:
        write_atomically(output.fronts, fronts_path(out_dir, spec.stem))
        fronts_sum = _checksum(fronts_path(out_dir, spec.stem))
    rows = output.rows.assign(**{SETTINGS_COLUMN: spec.settings_id})
    path = run_path(out_dir, spec)
    write_atomically(rows, path)
    content = {
        "format": RECORD_FORMAT, "run_file": path.name, "settings_id": spec.settings_id,
        "status": str(rows["status"].iloc[0]), "rows": len(rows), "sha256": _checksum(path),
        "fronts_sha256": fronts_sum,
    }
    atomic_write_text(record, json.dumps(content, indent=1))


def read_finished(path: Path) -> tuple[dict[str, Any], pd.DataFrame]:
    """The completion record and rows of the run file ``path``, checked against each other.

    Raises
    ------
    IncompleteRunError
        If the record is missing or unreadable, or the file's checksum, row
        count, settings id or status differ from the record's.
    """
    record_file = path.with_name(path.name[: -len(".csv")] + RECORD_SUFFIX)
    if not record_file.exists():
        raise IncompleteRunError(path, f"it has no completion record {record_file.name} (the run was "
                                       "interrupted, or the file was not written by this sweep)")
    try:
        record = json.loads(record_file.read_text(encoding="utf-8"))
        expected = (int(record["rows"]), str(record["sha256"]), str(record["settings_id"]), str(record["status"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise IncompleteRunError(path, f"its completion record {record_file.name} is unreadable ({exc})") from None
    if not path.exists():
        raise IncompleteRunError(path, f"the file is missing but {record_file.name} records it")
    if _checksum(path) != expected[1]:
        raise IncompleteRunError(path, f"its content differs from what {record_file.name} records "
                                       "(truncated, cut or edited after the run)")
    frame = read_run_file(path)
    found = (len(frame), expected[1], str(frame[SETTINGS_COLUMN].iloc[0]) if len(frame) else "",
             str(frame["status"].iloc[0]) if len(frame) else "")
    if found != expected or set(frame[SETTINGS_COLUMN]) != {expected[2]}:
        raise IncompleteRunError(path, f"{len(frame)} rows do not match {record_file.name} ({expected[0]} rows)")
    return record, frame


def _redo_hint(error: IncompleteRunError) -> str:
    return f"{error}; running it again (it replaces {error.path.name})"


def finished_status(out_dir: Path, spec: RunSpec) -> str | None:
    """Status of a run already on disk; ``None`` if it must run (absent, partial or corrupt).

    A partial or corrupt run file is never taken as finished: the run is done
    again (with a warning naming the file) and its files are replaced.

    Raises
    ------
    ValueError
        If the file is complete but was made with other settings (parameters or data).
    """
    path = run_path(out_dir, spec)
    if not path.exists() and not record_path(out_dir, spec.stem).exists():
        return None
    try:
        record, _ = read_finished(path)
    except IncompleteRunError as exc:
        warnings.warn(_redo_hint(exc), RuntimeWarning, stacklevel=2)
        return None
    if record["settings_id"] != spec.settings_id:
        raise ValueError(
            f"{path} was made with other settings than this sweep's {spec.settings}; "
            f"use another output folder, or delete {path.name} and {record_path(out_dir, spec.stem).name} "
            "to run it again"
        )
    return str(record["status"])


def needs_run(status: str | None, retry_failed: bool) -> bool:
    return status is None or (status == STATUS_FAILED and retry_failed)


def record_settings(out_dir: Path, specs: Sequence[RunSpec]) -> None:
    """Keep ``settings.json``: settings id -> the settings it stands for.

    Raises
    ------
    ValueError
        If an existing ``settings.json`` is not a JSON object (before any run starts).
    """
    path = out_dir / "settings.json"
    known: Any = {}
    if path.exists():
        try:
            known = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            known = exc
        if not isinstance(known, dict):
            reason = known if isinstance(known, ValueError) else f"a JSON {type(known).__name__}, not an object"
            raise ValueError(
                f"{path} is corrupt ({reason}); delete it: it only lists the settings behind the run "
                "files' settings ids and the next sweep writes it again"
            )
    for spec in specs:
        known.setdefault(spec.settings_id, json.loads(json.dumps(spec.settings, default=repr)))
    text = json.dumps(known, indent=1, sort_keys=True)
    atomic_write_text(path, text)


def tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """Column order and dtypes of the run table (the same for fresh and resumed sweeps)."""
    frame = frame.reindex(columns=RUN_COLUMNS).copy()
    frame["run"] = frame["run"].astype("int64")
    for column in ("t", "n_samples", "n_clusters"):
        frame[column] = pd.to_numeric(frame[column]).astype("Int64")
    for column in ("RI", "NMI", "alpha", "seconds"):
        frame[column] = pd.to_numeric(frame[column]).astype("float64")
    times = frame["time"].astype(object).where(frame["time"].notna(), None)
    as_numbers = pd.to_numeric(times, errors="coerce")
    if as_numbers.notna().sum() == times.notna().sum() and (as_numbers.dropna() % 1 == 0).all():
        frame["time"] = as_numbers.astype("Int64")
    else:
        frame["time"] = times.astype(object)
    frame["error"] = frame["error"].fillna("").astype(str)
    frame["status"] = frame["status"].astype(str)
    for column in ("algorithm", "dataset"):
        frame[column] = frame[column].astype(str)
    return frame


def load_runs(
    out_dir: str | os.PathLike[str],
    *,
    algorithms: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The tidy run table of every finished run file in ``out_dir``.

    Every run file of the chosen algorithms and data sets must be complete
    (its completion record present and matching); a partial, corrupt or
    stray one is an error naming it.

    Parameters
    ----------
    out_dir : path
        Folder written by :func:`run_experiments`.
    algorithms, datasets : sequence of str, optional
        Keep only these (and order the rows by them); default all, sorted.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RUN_COLUMNS`, rows ordered by algorithm, data set,
        run and step.

    Raises
    ------
    ValueError
        Naming the first incomplete, corrupt or stray run file (or orphaned
        completion record), and what to delete.
    """
    out_dir = Path(out_dir)
    wanted_algorithms = None if algorithms is None else set(algorithms)
    wanted_datasets = None if datasets is None else set(datasets)
    paths = sorted(p for p in out_dir.glob("*__*__run*.csv") if not p.name.endswith(FRONTS_SUFFIX))
    orphans = [p for p in out_dir.glob(f"*{RECORD_SUFFIX}")
               if not p.with_name(p.name[: -len(RECORD_SUFFIX)] + ".csv").exists()]
    frames = []
    for path in paths + [p.with_name(p.name[: -len(RECORD_SUFFIX)] + ".csv") for p in sorted(orphans)]:
        match = _STEM.fullmatch(path.name)
        if match and ((wanted_algorithms is not None and match["algorithm"] not in wanted_algorithms)
                      or (wanted_datasets is not None and match["dataset"] not in wanted_datasets)):
            continue
        try:
            if not match:
                raise IncompleteRunError(path, "its name is not <algorithm>__<dataset>__run<NNN>.csv")
            frames.append(read_finished(path)[1])
        except IncompleteRunError as exc:
            raise ValueError(
                f"{exc}; delete {path.name} and {path.name[: -len('.csv')] + RECORD_SUFFIX} (whichever "
                "exist), or run the sweep again (without --report-only) to redo that run"
            ) from None
    return ordered_table(frames, algorithms, datasets)


def ordered_table(
    frames: Sequence[pd.DataFrame], algorithms: Sequence[str] | None = None, datasets: Sequence[str] | None = None
) -> pd.DataFrame:
    """Run files' rows as one tidy table, ordered by algorithm, data set, run and step."""
    if not frames:
        return tidy(pd.DataFrame(columns=RUN_COLUMNS))
    table = tidy(pd.concat(frames, ignore_index=True))
    algorithm_order = list(algorithms) if algorithms is not None else sorted(table["algorithm"].unique())
    dataset_order = list(datasets) if datasets is not None else sorted(table["dataset"].unique())
    table = table[table["algorithm"].isin(algorithm_order) & table["dataset"].isin(dataset_order)]
    table = table.assign(
        _a=table["algorithm"].map({name: i for i, name in enumerate(algorithm_order)}),
        _d=table["dataset"].map({name: i for i, name in enumerate(dataset_order)}),
    ).sort_values(["_a", "_d", "run", "t"], na_position="first", kind="stable")
    return table.drop(columns=["_a", "_d"]).reset_index(drop=True)


def load_fronts(out_dir: str | os.PathLike[str], algorithm: str, dataset: str, run: int) -> pd.DataFrame | None:
    """The final populations kept for one run, or ``None`` if none were kept.

    Parameters
    ----------
    out_dir : path
        Folder of the run files.
    algorithm, dataset : str
    run : int

    Returns
    -------
    pandas.DataFrame or None
        ``ClusteringResult.fronts_frame()`` of the run.
    """
    path = fronts_path(Path(out_dir), RunSpec(algorithm, dataset, run).stem)
    return pd.read_csv(path) if path.exists() else None
