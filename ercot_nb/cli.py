"""Command line interface: ``ercot-nb run ...``, ``bench ...`` and ``experiments ...``.

``run`` clusters a built-in scenario or a long-format CSV file (one row per
(time, id)) step by step, prints a per-step summary and optionally writes
the tidy labels table and the full result.  ``bench`` hands its arguments to
:func:`ercot_nb.bench.main`.  ``experiments`` runs the paper's comparison and
writes its report (:mod:`ercot_nb.experiments`).  ``app`` serves the Explorer
notebook app with Voila, on 127.0.0.1 by default (:mod:`ercot_nb.widgets.app`);
``tutorials`` copies the tutorial notebooks and exercises into a folder.

Input problems (a missing file or column, a non-numeric feature, an invalid
parameter) print one ``ercot-nb: error: ...`` line on stderr and return exit
code 2, like argparse's own usage errors.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["main", "build_parser"]

PROG = "ercot-nb"
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

from .params import KNEE_RULES, SCALINGS


class _InputError(Exception):
    """A problem with the user's input: reported in one line, exit code 2."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``ercot-nb`` command.

    Returns
    -------
    argparse.ArgumentParser
    """
    from . import algorithms
    from .datasets import available

    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Evolutionary robust clustering over time (ERCOT): one partition per time "
            "step of the same id-tracked samples."
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser(
        "run",
        help="cluster a built-in dataset or a long-format CSV file",
        description=(
            "Cluster every time step of a built-in dataset or of a long-format CSV "
            "file (one row per time and sample id) and print a per-step summary."
        ),
    )
    source = run.add_argument_group("data (give --dataset or --csv)")
    choice = source.add_mutually_exclusive_group(required=True)
    choice.add_argument("--dataset", metavar="NAME", type=str.lower, choices=available(),
                        help=f"built-in dataset: {', '.join(available())}")
    choice.add_argument("--csv", metavar="PATH", type=Path, help="long-format CSV file")
    source.add_argument("--data-seed", type=int, default=0, metavar="N",
                        help="seed of the built-in dataset's generator (default: 0)")
    source.add_argument("--time", metavar="COL", help="CSV column holding the time step")
    source.add_argument("--id", metavar="COL", help="CSV column holding the sample id")
    source.add_argument("--features", metavar="COL", nargs="+",
                        help="CSV feature columns (default: every other numeric column)")
    source.add_argument("--label", metavar="COL",
                        help="CSV column of ground-truth labels (adds RI/NMI to the summary)")
    source.add_argument("--scale", choices=SCALINGS, default="none",
                        help="rescale every feature before clustering (statistics over all steps): "
                             "standardize (mean 0, sd 1) or minmax ([0, 1]); default: none, with a "
                             "warning when feature ranges differ by 100 times or more")
    source.add_argument("--data-param", metavar="NAME=VALUE", action="append", default=[],
                        help="a built-in dataset's parameter, e.g. n_steps=5 (repeatable; "
                             "see ercot_nb.params.dataset_params)")

    algo = run.add_argument_group("algorithm")
    algo.add_argument("--algorithm", type=str.lower, choices=[n.lower() for n in algorithms.available()],
                      default="ercot",
                      help="ercot (with temporal smoothness), staticec (each step alone) or a "
                           f"baseline: {', '.join(algorithms.available())}; default: ercot")
    algo.add_argument("--seed", type=int, default=0, metavar="N", help="algorithm seed (default: 0)")
    algo.add_argument("--max-clusters", type=_positive_int, default=8, metavar="N",
                      help="largest number of clusters searched (default: 8)")
    algo.add_argument("--n-clusters", type=_positive_int, default=None, metavar="N",
                      help="fix the number of clusters instead of searching it")
    algo.add_argument("--pop-size", type=_positive_int, default=100, metavar="N",
                      help="population size, even (default: 100)")
    algo.add_argument("--evaluations", type=_positive_int, default=1000, metavar="N",
                      help="fitness evaluations per step, at least 2 x pop-size (default: 1000)")
    algo.add_argument("--knee", choices=KNEE_RULES, default=None,
                      help="rule choosing the final solution on the Pareto front (default: ideal)")
    algo.add_argument("--param", metavar="NAME=VALUE", action="append", default=[],
                      help="any parameter of the algorithm, e.g. crossover_rate=0.8 or seed=none "
                           "(repeatable; see ercot_nb.params.estimator_params)")

    out = run.add_argument_group("output")
    out.add_argument("--out", metavar="PATH", type=Path,
                     help="write the per-step labels (t, time, id, label, aligned_label) as CSV")
    out.add_argument("--save-result", metavar="PATH", type=Path,
                     help="save the full result (fronts, weights, ...) as .npz")
    run.set_defaults(handler=_run)

    # Listed for --help; its arguments go to ercot_nb.bench untouched (see main).
    commands.add_parser("bench", help="run benchmark experiments (ercot-nb bench --help)",
                        add_help=False)

    from .experiments import add_arguments as add_experiments_arguments

    experiments = commands.add_parser(
        "experiments",
        help="the paper's comparison: runs on a Dask cluster, tables, figures",
        description=(
            "Run algorithms x data sets x runs (resumable; local worker processes or a "
            "dask.distributed scheduler) and write report.md, figures.html and runs.csv."
        ),
    )
    add_experiments_arguments(experiments)
    experiments.set_defaults(handler=_experiments)

    app = commands.add_parser(
        "app",
        help="serve the Explorer (or Compare) app with Voila, on 127.0.0.1 by default",
        description=(
            "Serve the notebook app Explorer (or Compare) with Voila, with a built-in dataset "
            "preselected. It listens on 127.0.0.1 unless --ip asks for another address (a "
            "classroom server), which is then protected by a token that this command prints. "
            "Needs the notebook extra: pip install 'ercot-nb[notebook]'."
        ),
    )
    app.add_argument("--port", type=int, default=8866, help="port, 1 to 65535 (default: 8866)")
    app.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    app.add_argument("--dataset", metavar="NAME", type=str.lower, choices=available(), default="syn3",
                     help="built-in dataset shown first (default: syn3)")
    app.add_argument("--app", choices=("explorer", "compare"), default="explorer",
                     help="which app to serve (default: explorer)")
    app.add_argument("--notebook", metavar="PATH", type=Path, default=None,
                     help="app notebook to serve instead (default: the installed explorer.ipynb)")
    app.add_argument("--ip", metavar="ADDRESS", default="127.0.0.1",
                     help="address to listen on (default: 127.0.0.1, this computer only); "
                          "0.0.0.0 serves every network interface, with a token")
    app.add_argument("--allow-host", metavar="NAME", action="append", default=[],
                     help="also answer requests for this host name (as typed in the browser's "
                          "address bar; repeatable; '*' answers any)")
    app.add_argument("--max-kernels", metavar="N", type=int, default=10,
                     help="most app pages open at once, each running a kernel of ~300 MB; one "
                          "more gets a 'server busy' page (default: 10; 0: no cap)")
    app.add_argument("--cull-idle", metavar="SECONDS", type=int, default=300,
                     help="shut down the kernel of a page that went away without closing "
                          "after this many seconds (default: 300; 0: never)")
    app.set_defaults(handler=_app)

    tutorials = commands.add_parser(
        "tutorials",
        help="copy the tutorial notebooks and exercises into a folder",
        description="Copy the tutorial notebooks and the exercises of the installed package into "
                    "DIR (created when missing); files already there are kept unless --overwrite.",
    )
    tutorials.add_argument("dir", metavar="DIR", type=Path, help="folder to copy into")
    tutorials.add_argument("--overwrite", action="store_true", help="replace existing files")
    tutorials.set_defaults(handler=_tutorials)
    return parser


# ---------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------


def _load_data(args: argparse.Namespace):
    from .data import TemporalDataset
    from .datasets import load
    from .params import dataset_params, parse_assignments

    if args.dataset is not None:
        csv_only = [flag for flag, value in (("--time", args.time), ("--id", args.id),
                    ("--features", args.features), ("--label", args.label)) if value]
        if csv_only:
            raise _InputError(f"{', '.join(csv_only)} can only be used with --csv")
        try:
            params = parse_assignments(args.dataset, dataset_params(args.dataset),
                                       [f"seed={args.data_seed}", *args.data_param])
            seed = params.pop("seed")
            return load(args.dataset, seed=seed, **params)
        except (ValueError, TypeError) as exc:
            raise _InputError(str(exc)) from None
    if args.data_param:
        raise _InputError("--data-param can only be used with --dataset")
    missing = [flag for flag, value in (("--time", args.time), ("--id", args.id)) if not value]
    if missing:
        raise _InputError(f"--csv needs {' and '.join(missing)}")
    try:
        return TemporalDataset.from_csv(
            args.csv, time=args.time, id=args.id, features=args.features, label=args.label
        )
    except ValueError as exc:
        raise _InputError(str(exc)) from None


def _estimator(args: argparse.Namespace):
    from . import algorithms
    from .params import estimator_params, parse_assignments

    cls = algorithms.get(args.algorithm)
    specs = estimator_params(cls)
    names = {spec.name for spec in specs}
    flags = {"n_clusters": args.n_clusters, "max_clusters": args.max_clusters, "pop_size": args.pop_size,
             "n_evaluations": args.evaluations, "knee": args.knee, "seed": args.seed}
    defaults = {"max_clusters": 8, "pop_size": 100, "n_evaluations": 1000, "seed": 0}
    params: dict[str, Any] = {"progress": False}
    for name, value in flags.items():
        if value is None or (name in defaults and value == defaults[name] and name not in names):
            continue
        if name not in names:
            raise _InputError(f"{cls._algorithm_name} has no parameter {name} "
                              f"(its parameters: {', '.join(sorted(names))})")
        params[name] = value
    try:
        params.update(parse_assignments(cls._algorithm_name, specs, args.param))
        estimator = cls(**params)
        estimator._check_params()
    except (ValueError, TypeError) as exc:
        raise _InputError(str(exc)) from None
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
    if args.scale != "none":
        dataset = dataset.scaled(args.scale)
        notes = [note for note in notes if not note.startswith("feature ranges differ")]
        print(f"features scaled with {args.scale!r} (statistics over all steps)")
    elif dataset.range_warning() is not None and not any(n.startswith("feature ranges") for n in notes):
        notes.append(dataset.range_warning())
    for note in notes:
        print(f"{PROG}: warning: {note}", file=sys.stderr)
    return dataset


def _run(args: argparse.Namespace) -> int:
    dataset = _prepared_data(args)
    estimator = _estimator(args)
    started = time.perf_counter()
    try:
        result = estimator.fit(dataset).result_
    except (ValueError, TypeError) as exc:  # data the algorithm refuses, with step/column named
        raise _InputError(str(exc)) from None
    elapsed = time.perf_counter() - started

    print(f"{result.algorithm} on {dataset!r}: {len(result)} steps in {elapsed:.1f} s")
    print(_format_summary(summary_frame(dataset, result)))
    try:
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            result.to_frame().to_csv(args.out, index=False)
            print(f"labels written to {args.out}")
        if args.save_result is not None:
            args.save_result.parent.mkdir(parents=True, exist_ok=True)
            print(f"result saved to {result.save(args.save_result)}")
    except OSError as exc:
        print(f"{PROG}: error: could not write output: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


# ---------------------------------------------------------------------------
# bench and entry point
# ---------------------------------------------------------------------------


def _experiments(args: argparse.Namespace) -> int:
    from .experiments import run_from_args

    try:
        return run_from_args(args)
    except ValueError as exc:
        raise _InputError(str(exc)) from None


def _app(args: argparse.Namespace) -> int:
    from .widgets.app import serve  # light: Voila runs in its own process

    try:
        return serve(port=args.port, open_browser=not args.no_browser, dataset=args.dataset,
                     notebook=args.notebook, app=args.app, ip=args.ip,
                     allowed_hosts=args.allow_host, max_kernels=args.max_kernels,
                     cull_idle=args.cull_idle)
    except ValueError as exc:
        raise _InputError(str(exc)) from None


def _tutorials(args: argparse.Namespace) -> int:
    from .widgets.app import copy_tutorials

    try:
        written = copy_tutorials(args.dir, overwrite=args.overwrite)
    except ValueError as exc:
        raise _InputError(str(exc)) from None
    except OSError as exc:
        print(f"{PROG}: error: could not write the tutorials: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"copied {len(written)} file(s) into {args.dir}"
          + ("" if written else " (every file was already there; --overwrite replaces them)"))
    if written:
        print(f"start with: jupyter lab {args.dir / '01_quickstart.ipynb'}")
    return EXIT_OK


def _bench(argv: list[str]) -> int:
    from . import bench  # written separately; imported only when asked for

    code: Any = bench.main(argv)
    return EXIT_OK if code is None else int(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ercot-nb`` console script.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit code: 0 on success, 2 for usage or input errors, 1 when the
        output cannot be written.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        return _bench(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or a usage error, already printed
        return EXIT_OK if exc.code in (None, 0) else EXIT_USAGE
    try:
        return args.handler(args)
    except _InputError as exc:
        message = " ".join(str(exc).splitlines())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
