"""Run files: one CSV per finished run (and its kept final populations), read back as the run table."""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .spec import RUN_COLUMNS, STATUS_FAILED, RunOutput, RunSpec

SETTINGS_COLUMN = "settings_id"
FRONTS_SUFFIX = ".fronts.csv"


def run_path(out_dir: Path, spec: RunSpec) -> Path:
    return out_dir / f"{spec.stem}.csv"


def fronts_path(out_dir: Path, stem: str) -> Path:
    return out_dir / f"{stem}{FRONTS_SUFFIX}"


def write_atomically(frame: pd.DataFrame, path: Path) -> None:
    """Write a CSV so that ``path`` is either absent or complete."""
    partial = path.with_name(path.name + ".partial")
    frame.to_csv(partial, index=False)
    os.replace(partial, path)


def read_run_file(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"time": str, "status": str, "error": str, SETTINGS_COLUMN: str},
                       keep_default_na=False, na_values={c: [""] for c in ("t", "n_samples", "RI", "NMI",
                                                                            "n_clusters", "alpha", "seconds")})


def save_run(out_dir: Path, spec: RunSpec, output: RunOutput) -> None:
    """Fronts first, then the run file, whose presence marks the run as done."""
    if output.fronts is not None:
        write_atomically(output.fronts, fronts_path(out_dir, spec.stem))
    write_atomically(output.rows.assign(**{SETTINGS_COLUMN: spec.settings_id}), run_path(out_dir, spec))


def finished_status(out_dir: Path, spec: RunSpec) -> str | None:
    """Status of a run already on disk, ``None`` if absent or unreadable.

    Raises
    ------
    ValueError
        If the file was made with other settings (parameters or data).
    """
    path = run_path(out_dir, spec)
    if not path.exists():
        return None
    try:
        frame = read_run_file(path)
        status = str(frame["status"].iloc[0])
        stored = set(frame[SETTINGS_COLUMN])
    except Exception:  # unreadable: run it again
        return None
    if stored != {spec.settings_id}:
        raise ValueError(
            f"{path} was made with other settings than this sweep's {spec.settings}; "
            "use another output folder or delete the old run files"
        )
    return status


def needs_run(status: str | None, retry_failed: bool) -> bool:
    return status is None or (status == STATUS_FAILED and retry_failed)


def record_settings(out_dir: Path, specs: Sequence[RunSpec]) -> None:
    """Keep ``settings.json``: settings id -> the settings it stands for."""
    path = out_dir / "settings.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    for spec in specs:
        known.setdefault(spec.settings_id, json.loads(json.dumps(spec.settings, default=repr)))
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(known, indent=1, sort_keys=True))
    os.replace(partial, path)


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
    """The tidy run table of every run file in ``out_dir``.

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
    """
    out_dir = Path(out_dir)
    paths = sorted(p for p in out_dir.glob("*__*__run*.csv") if not p.name.endswith(FRONTS_SUFFIX))
    frames = [read_run_file(path) for path in paths]
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
