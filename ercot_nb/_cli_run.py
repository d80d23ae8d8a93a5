"""The ``ercot-nb run`` command: load the data, fit, print a per-step summary, write the outputs.

Its input problems raise :class:`InputError`, which :func:`ercot_nb.cli.main` prints in one
line (exit code 2).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

PROG = "ercot-nb"
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class InputError(Exception):
    """A problem with the user's input: reported in one line, exit code 2."""



def _load_data(args: argparse.Namespace):
    from .data import TemporalDataset
    from .datasets import load
    from .datasets import dataset_params
    from .params import parse_assignments

    if args.dataset is not None:
        csv_only = [flag for flag, value in (("--time", args.time), ("--id", args.id),
                    ("--features", args.features), ("--label", args.label),
                    ("--time-format", args.time_format)) if value]
        if csv_only:
            raise InputError(f"{', '.join(csv_only)} can only be used with --csv")
        try:
            params = parse_assignments(args.dataset, dataset_params(args.dataset), args.data_param)
            if args.data_seed is not None and "seed" in params:
                raise ValueError("the data seed is given twice (--data-seed and --data-param seed=...); "
                                 "give it once")
            if args.data_seed is not None:
                params["seed"] = args.data_seed
            return load(args.dataset, **params)  # a parameter not given: the dataset's default
        except (ValueError, TypeError) as exc:
            raise InputError(str(exc)) from None
    if args.data_param or args.data_seed is not None:
        raise InputError("--data-param and --data-seed can only be used with --dataset")
    missing = [flag for flag, value in (("--time", args.time), ("--id", args.id)) if not value]
    if missing:
        raise InputError(f"--csv needs {' and '.join(missing)}")
    try:
        return TemporalDataset.from_csv(
            args.csv, time=args.time, id=args.id, features=args.features, label=args.label,
            time_format=args.time_format,
        )
    except (ValueError, TypeError) as exc:
        raise InputError(str(exc)) from None


def _estimator(args: argparse.Namespace):
    from . import algorithms
    from .algorithms import estimator_params
    from .params import parse_assignments

    cls = algorithms.get(args.algorithm)
    owner = cls._algorithm_name
    specs = estimator_params(cls)
    try:
        assigned = parse_assignments(owner, specs, args.param)  # refuses a name given twice
        params: dict[str, Any] = {}  # progress has no flag: the command prints its own summary
        for spec in specs:
            text = getattr(args, f"param_{spec.name}", None)
            if text is None:  # not given: the estimator's default (its spec's)
                continue
            flag = "--" + spec.name.replace("_", "-")
            if spec.name in assigned:
                raise ValueError(f"parameter {spec.name} is given twice ({flag} {text} and "
                                 f"--param {spec.name}=...); give it once")
            params[spec.name] = spec.convert(text)  # validated with the others by _check_params
        params.update(assigned)
        estimator = cls(**params)
        estimator._check_params()
    except (ValueError, TypeError) as exc:
        raise InputError(str(exc)) from None
    return estimator


def summary_frame(dataset, result) -> pd.DataFrame:
    """Per-step summary (with RI/NMI when the data has labels) plus a mean row.

    Parameters
    ----------
    dataset : TemporalDataset
    result : ClusteringResult

    Returns
    -------
    pandas.DataFrame
        Columns ``t, time, n_samples, n_clusters, alpha, seconds`` and, with
        labels, ``RI, NMI``; the last row (``t == "mean"``) averages them.
    """
    import pandas as pd

    from .metrics import score_steps

    table = result.steps_frame()
    if dataset.has_labels:
        scores = score_steps(dataset[: len(result)], result.labels)
        table["RI"] = scores["RI"].to_numpy()
        table["NMI"] = scores["NMI"].to_numpy()
    numeric = [c for c in table.columns if c not in ("t", "time")]
    means = {"t": "mean", "time": "", **{c: table[c].astype(float).mean() for c in numeric}}
    return pd.concat([table.astype({"t": object}), pd.DataFrame([means])], ignore_index=True)


def _format_summary(table: pd.DataFrame) -> str:
    formats = {
        "n_samples": lambda v: f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}",
        "n_clusters": lambda v: f"{v:.0f}" if float(v).is_integer() else f"{v:.2f}",
        "alpha": lambda v: f"{v:.3f}",
        "seconds": lambda v: f"{v:.2f}",
        "RI": lambda v: f"{v:.4f}",
        "NMI": lambda v: f"{v:.4f}",
    }
    used = {column: f for column, f in formats.items() if column in table}
    return table.to_string(index=False, formatters=used, na_rep="-")


def _prepared_data(args: argparse.Namespace):
    """The dataset, rescaled as asked; a range warning goes to stderr when not rescaled."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        dataset = _load_data(args)
    notes = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    if args.scale not in (None, "none"):
        try:
            dataset = dataset.scaled(args.scale)
        except ValueError as exc:
            raise InputError(f"--scale: {exc}") from None
        notes = [note for note in notes if not note.startswith("feature ranges differ")]
        print(f"features scaled with {args.scale!r} (statistics over all steps)")
    elif dataset.range_warning() is not None and not any(n.startswith("feature ranges") for n in notes):
        notes.append(dataset.range_warning())
    for note in notes:
        print(f"{PROG}: warning: {note}", file=sys.stderr)
    return dataset


def _run_outputs(args: argparse.Namespace) -> dict[str, Path]:
    """The checked output paths of ``run`` (see :mod:`ercot_nb._files`), before any work is done."""
    from ._files import OutputError, check_outputs
    from .result import result_path

    outputs = {"--out": args.out,
               "--save-result": None if args.save_result is None else result_path(args.save_result),
               "--movie": args.movie}
    if args.movie is not None and args.movie.suffix.lower() not in (".gif", ".mp4"):
        raise InputError(f"--movie {args.movie}: the file name must end in .gif or .mp4")
    try:
        return check_outputs(outputs, {"--csv": args.csv}, overwrite=args.overwrite,
                             overwrite_hint="--overwrite")
    except OutputError as exc:
        raise InputError(str(exc)) from None


def _run(args: argparse.Namespace) -> int:
    from ._files import OutputError, atomic_write

    outputs = _run_outputs(args)
    dataset = _prepared_data(args)
    estimator = _estimator(args)
    started = time.perf_counter()

    def preview(step) -> None:  # step 0 by the NumPy twins while numba is imported, loads or compiles
        import numpy as np

        # No claim that anything compiles: with a warm cache the kernels only load (importing numba and
        # loading them takes seconds too), and which of the two happens is not known this early.
        sizes = np.bincount(step.labels) if len(step.labels) else np.zeros(0, dtype=np.int64)
        print(f"step 0 (a preview by the NumPy kernels while the fast kernels get ready, "
              f"{time.perf_counter() - started:.1f} s): "
              f"{len(sizes)} clusters of {', '.join(str(int(size)) for size in sizes)} samples; "
              "the run's own steps follow", file=sys.stderr, flush=True)

    try:
        result = estimator.fit(dataset, preview=preview).result_
    except (ValueError, TypeError) as exc:  # data the algorithm refuses, with step/column named
        raise InputError(str(exc)) from None
    elapsed = time.perf_counter() - started

    print(f"{result.algorithm} on {dataset!r}: {len(result)} steps in {elapsed:.1f} s")
    drawn = result.params.get("seed")
    if "seed" in estimator.get_params() and estimator.seed is None and isinstance(drawn, int):
        print(f"seed {drawn} (drawn for this run: --seed {drawn} repeats it)")
    print(_format_summary(summary_frame(dataset, result)))
    _run_outputs(args)  # again: a file may have appeared during the fit
    try:
        if "--out" in outputs:
            frame = result.to_frame()
            atomic_write(outputs["--out"], lambda file: frame.to_csv(file, index=False))
            print(f"labels written to {outputs['--out']}")
        if "--save-result" in outputs:
            print(f"result saved to {result.save(outputs['--save-result'], overwrite=args.overwrite)}")
        if "--movie" in outputs:
            from .figures.movie import write_movie

            try:
                movie = write_movie(result, dataset, outputs["--movie"], view=args.movie_view,
                                    fps=args.fps, overwrite=args.overwrite)
            except ValueError as exc:  # an unknown view, fps <= 0, a file that appeared meanwhile
                raise InputError(str(exc)) from None
            print(f"movie written to {movie} ({movie.stat().st_size / 1e6:.2f} MB)")
    except OutputError as exc:  # another writer took the path meanwhile, or a full disk (one line)
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except OSError as exc:
        print(f"{PROG}: error: could not write output: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK
