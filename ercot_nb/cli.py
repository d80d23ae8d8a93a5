"""Command line interface: ``ercot-nb run ...``, ``bench ...`` and ``experiments ...``.

``run`` clusters a built-in scenario or a long-format CSV file (one row per
(time, id)) step by step, prints a per-step summary and optionally writes
the tidy labels table and the full result.  ``bench`` hands its arguments to
:func:`ercot_nb.bench.main`.  ``experiments`` runs the paper's comparison and
writes its report (:mod:`ercot_nb.experiments`).  ``app`` serves the Explorer
notebook app with Voila, on 127.0.0.1 by default (:mod:`ercot_nb.widgets.serve.launcher`);
``tutorials`` copies the tutorial notebooks and exercises into a folder (the
student copy: no solutions); ``teacher`` writes the solved exercises or an
nbgrader course from a source tree (:mod:`ercot_nb.exercises.teacher`).

Input problems (a missing file or column, a non-numeric feature, an invalid
parameter, a parameter given twice, an output path that would replace an
input or an existing file, see :mod:`ercot_nb._files`) print one
``ercot-nb: error: ...`` line on stderr and return exit code 2, like
argparse's own usage errors.

Building the parser imports nothing heavy (NumPy only: no pandas, SciPy,
plotly, numba or Dask), so ``--help`` and usage errors answer at once.  The
algorithm's flags (``--pop-size 20``, ``--knee chord``, ``--seed 3``, one per
parameter) are generated from its specs (:func:`ercot_nb.algorithms.estimator_params`)
once ``--algorithm`` is known, with the spec's words, allowed values and
default: a flag not given leaves the estimator's own default.
``ercot-nb run --algorithm NAME --help`` lists them.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._cli_run import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, PROG
from ._cli_run import InputError as _InputError
from ._cli_run import _estimator, _run  # noqa: F401 (the run command; tests build its estimator)

__all__ = ["main", "build_parser"]

DEFAULT_ALGORITHM = "ercot"
# Spellings kept beside a parameter's generated flag --NAME (older flags of the command).
_FLAG_ALIASES = {"n_evaluations": ("--evaluations",)}
# Parameters without a flag: the command prints its own per-step summary instead of a bar.
_NO_FLAG = ("progress",)


def _metavar(spec) -> str:
    if spec.kind == "choice":
        return "{" + ",".join(str(c) for c in spec.choices) + "}"
    return {"int": "N", "seed": "N", "float": "X", "bool": "BOOL", "subset": "A,B"}.get(spec.kind, "TEXT")


def _add_parameter_flags(run: argparse.ArgumentParser, algorithm: str) -> None:
    """One flag per parameter of ``algorithm``, generated from its specs (value parsed later)."""
    from .algorithms import estimator_params, get

    cls = get(algorithm)
    group = run.add_argument_group(
        f"parameters of {cls._algorithm_name}",
        "generated from its specs; a flag not given keeps the default shown (each parameter once: "
        "a flag or --param)")
    for spec in estimator_params(cls):
        if spec.name in _NO_FLAG:
            continue
        flags = ["--" + spec.name.replace("_", "-"), *_FLAG_ALIASES.get(spec.name, ())]
        words = f"{spec.help} Allowed: {spec.allowed()}; default: {spec.default!r}."
        group.add_argument(*flags, dest=f"param_{spec.name}", metavar=_metavar(spec),
                           help=words.replace("%", "%%"))


def _requested_algorithm(argv: Sequence[str]) -> str | None:
    """The registered algorithm that ``run``'s ``--algorithm`` names, if it names one."""
    from . import algorithms

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--algorithm")
    known, _ = pre.parse_known_args(list(argv))
    if known.algorithm is None:
        return None
    try:
        return algorithms.resolve(known.algorithm)
    except ValueError:
        return None  # the parser's own choices report it


def build_parser(algorithm: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``ercot-nb`` command.

    Parameters
    ----------
    algorithm : str, optional
        Add to ``run`` one flag per parameter of this registered algorithm,
        generated from its specs (this imports it). Without it the parser
        stays light (NumPy only) and ``run`` takes no parameter flag.

    Returns
    -------
    argparse.ArgumentParser
    """
    from . import algorithms  # a registry of names: imports no algorithm
    from .datasets import available  # the catalogue: imports no generator

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
    source.add_argument("--data-seed", type=int, default=None, metavar="N",
                        help="seed of the built-in dataset's generator (default: the dataset's own, "
                             "see ercot_nb.datasets.dataset_params)")
    source.add_argument("--time", metavar="COL", help="CSV column holding the time step")
    source.add_argument("--id", metavar="COL", help="CSV column holding the sample id")
    source.add_argument("--time-format", metavar="FORMAT",
                        help="strptime format of the CSV time labels, e.g. %%d/%%m/%%Y (needed when "
                             "dates such as 1/2/2020 could be read day first or month first)")
    source.add_argument("--features", metavar="COL", nargs="+",
                        help="CSV feature columns (default: every other numeric column)")
    source.add_argument("--label", metavar="COL",
                        help="CSV column of ground-truth labels (adds RI/NMI to the summary)")
    source.add_argument("--scale", metavar="METHOD", default=None,
                        help="rescale every feature before clustering (statistics over all steps): "
                             "standardize (mean 0, sd 1) or minmax ([0, 1]); default: none, with a "
                             "warning when feature ranges differ by 100 times or more")
    source.add_argument("--data-param", metavar="NAME=VALUE", action="append", default=[],
                        help="a built-in dataset's parameter, e.g. n_steps=5 (repeatable; "
                             "see ercot_nb.datasets.dataset_params)")

    algo = run.add_argument_group("algorithm")
    algo.add_argument("--algorithm", type=str.lower, choices=[n.lower() for n in algorithms.available()],
                      default=DEFAULT_ALGORITHM,
                      help="ercot (with temporal smoothness), staticec (each step alone) or a "
                           f"baseline: {', '.join(algorithms.available())}; default: ercot. Each "
                           "parameter of the algorithm is a flag --NAME VALUE (e.g. --pop-size 20, "
                           "--knee chord, --seed 3; --evaluations for --n-evaluations) whose default "
                           "is the algorithm's: ercot-nb run --algorithm NAME --help lists them")
    algo.add_argument("--param", metavar="NAME=VALUE", action="append", default=[],
                      help="any parameter of the algorithm, e.g. crossover_rate=0.8 or seed=none "
                           "(repeatable, each name once and not also set by its own flag; see "
                           "ercot_nb.algorithms.estimator_params)")
    if algorithm is not None:
        _add_parameter_flags(run, algorithm)

    out = run.add_argument_group(
        "output", "Outputs never replace the input (--csv) or each other; an existing file is replaced "
                  "only with --overwrite; the folder must exist. Each file is written to a temporary "
                  "file and renamed, so an interrupted write leaves the old file whole.")
    out.add_argument("--out", metavar="PATH", type=Path,
                     help="write the per-step labels (t, time, id, label, aligned_label) as CSV")
    out.add_argument("--save-result", metavar="PATH", type=Path,
                     help="save the full result (fronts, weights, ...) as .npz (added to another suffix)")
    out.add_argument("--movie", metavar="PATH", type=Path,
                     help="write the run's steps as an animated GIF or an MP4 (by the suffix: .gif, .mp4)")
    out.add_argument("--movie-view", metavar="VIEW", default="partition+front",
                     help="what each frame of --movie shows: partition+front (default), or one view: "
                          "partition, pareto, alpha, n_clusters, sizes, scores, ...")
    out.add_argument("--fps", metavar="N", type=float, default=2.0,
                     help="steps per second of --movie (default: 2)")
    out.add_argument("--overwrite", action="store_true",
                     help="replace existing output files (never the input)")
    run.set_defaults(handler=_run)

    # Listed for --help; its arguments go to ercot_nb.bench untouched (see main).
    commands.add_parser("bench", help="run benchmark experiments (ercot-nb bench --help)",
                        add_help=False)

    warmup = commands.add_parser(
        "warmup", help="compile every numba kernel into the cache once (after installing)",
        description="Compile and cache the numba kernels of every fit, the Explorer and the page, "
                    "so that the first fit does not wait for the compiler (python -m ercot_nb.warmup).")
    warmup.set_defaults(handler=_warmup)

    from .experiments.cli import add_arguments as add_experiments_arguments # light: no Dask

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
    app.add_argument("--max-kernels", metavar="N", type=int, default=None,
                     help="most app pages open at once, each running a kernel of ~190 MiB (~300 "
                          "MiB with --fit-workers 0); more "
                          "wait in a queue, told their place (default: as many as 80%% of the memory "
                          "free at start holds, planning 300 MiB a page, 450 with --fit-workers 0; "
                          "0: no cap)")
    app.add_argument("--max-starting", metavar="N", type=int, default=2,
                     help="most pages starting their kernel and notebook at once; more wait in a "
                          "queue, told their place (default: 2; 0: no limit)")
    app.add_argument("--fit-workers", metavar="N", type=int, default=None,
                     help="worker processes that run every page's fits, so that no page's kernel "
                          "loads numba (about 110 MiB less resident each); at most N fits run at once, more "
                          "wait, told so (default: this machine's cores; 0: each kernel fits by itself)")
    app.add_argument("--cull-idle", metavar="SECONDS", type=int, default=300,
                     help="shut down the kernel of a page that went away without closing "
                          "after this many seconds (default: 300; 0: never)")
    app.set_defaults(handler=_app)

    tutorials = commands.add_parser(
        "tutorials",
        help="copy the tutorial notebooks and exercises into a folder",
        description="Copy the tutorial notebooks and the exercises of the installed package into "
                    "DIR (created when missing; its parent must exist); files already there are kept "
                    "unless --overwrite.",
    )
    tutorials.add_argument("dir", metavar="DIR", type=Path, help="folder to copy into")
    tutorials.add_argument("--overwrite", action="store_true", help="replace existing files")
    tutorials.set_defaults(handler=_tutorials)

    teacher = commands.add_parser(
        "teacher",
        help="write the exercises' solutions or an nbgrader course (needs a clone or the sdist)",
        description="solutions: the exercise notebooks with their answers, the solution modules and "
                    "the teacher notes. nbgrader: a course folder (nbgrader_config.py, "
                    "source/<exercise>/) for nbgrader generate_assignment and autograde. Both read "
                    "the solutions from a clone of ercot-nb or its unpacked sdist; the installed "
                    "wheel (the student package) has none.",
    )
    teacher.add_argument("what", choices=("solutions", "nbgrader"), help="what to write")
    teacher.add_argument("dir", metavar="DIR", type=Path, help="folder to write into")
    teacher.add_argument("--source", metavar="ROOT", type=Path, default=None,
                         help="root of a clone or unpacked sdist holding notebooks/exercises/solutions/ "
                              "(default: the tree this package runs from)")
    teacher.add_argument("--overwrite", action="store_true", help="replace existing files")
    teacher.add_argument("--variants", action="store_true",
                         help="nbgrader: give each student data and held-out cases of their own, seeded "
                              "from their student id by the course secret (ERCOT_NB_VARIANT; see the "
                              "teacher's guide)")
    teacher.set_defaults(handler=_teacher)
    return parser


# ---------------------------------------------------------------------------
# bench and entry point
# ---------------------------------------------------------------------------


def _experiments(args: argparse.Namespace) -> int:
    from .experiments import run_from_args

    from ._files import WriteLimitError, write_error

    try:
        return run_from_args(args)
    except WriteLimitError as exc:  # a full disk: the output, not the input, is the problem
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except ValueError as exc:
        raise _InputError(str(exc)) from None
    except OSError as exc:
        limit = write_error(getattr(exc, "filename", None) or args.out, exc)
        print(f"{PROG}: error: {limit or f'could not write the report in {args.out}: {exc}'}", file=sys.stderr)
        return EXIT_FAILURE


def _app(args: argparse.Namespace) -> int:
    from .widgets.serve.launcher import serve # light: Voila runs in its own process

    try:
        return serve(port=args.port, open_browser=not args.no_browser, dataset=args.dataset,
                     notebook=args.notebook, app=args.app, ip=args.ip,
                     allowed_hosts=args.allow_host, max_kernels=args.max_kernels,
                     cull_idle=args.cull_idle, max_starting=args.max_starting,
                     fit_workers=args.fit_workers)
    except ValueError as exc:
        raise _InputError(str(exc)) from None


def _tutorials(args: argparse.Namespace) -> int:
    from .widgets.serve.shipped import copy_tutorials

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


def _teacher(args: argparse.Namespace) -> int:
    from .exercises import teacher

    try:
        if args.what == "solutions":
            if args.variants:
                raise _InputError("--variants is an option of teacher nbgrader, not of teacher solutions")
            written = teacher.write_solutions(args.dir, source=args.source, overwrite=args.overwrite)
        else:
            written = teacher.write_nbgrader_course(args.dir, source=args.source, overwrite=args.overwrite,
                                                    variants=args.variants)
    except ValueError as exc:
        raise _InputError(str(exc)) from None
    except OSError as exc:
        print(f"{PROG}: error: could not write the {args.what}: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"wrote {len(written)} file(s) into {args.dir}")
    if args.what == "nbgrader":
        first = teacher.list_exercises()[0]
        print(f"next: cd {args.dir} && nbgrader generate_assignment {first} (then autograde {first})")
    return EXIT_OK


def _bench(argv: list[str]) -> int:
    from . import bench # written separately; imported only when asked for

    code: Any = bench.main(argv)
    return EXIT_OK if code is None else int(code)


def _warmup(args: argparse.Namespace) -> int:
    from .warmup import warm_up

    warm_up(verbose=True)
    return EXIT_OK


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
        if argv[:1] == ["run"]:
            algorithm = _requested_algorithm(argv[1:])
            if any(arg in ("-h", "--help") for arg in argv[1:]):
                if algorithm is None:
                    parser.parse_args(argv)  # the light help, which points to --algorithm NAME --help
            else:
                parser.parse_known_args(argv)  # usage errors answer before any algorithm is imported
            parser = build_parser(algorithm or _registered(DEFAULT_ALGORITHM))
            args, extra = parser.parse_known_args(argv)
            if extra:
                raise _InputError(f"unrecognized arguments: {' '.join(extra)} (the flags of "
                                  f"{algorithm or DEFAULT_ALGORITHM} are listed by ercot-nb run "
                                  f"--algorithm {algorithm or DEFAULT_ALGORITHM} --help)")
        else:
            args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or a usage error, already printed
        return EXIT_OK if exc.code in (None, 0) else EXIT_USAGE
    except _InputError as exc:
        print(f"{PROG}: error: {' '.join(str(exc).splitlines())}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args)
    except _InputError as exc:
        message = " ".join(str(exc).splitlines())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return EXIT_USAGE


def _registered(name: str) -> str:
    """The registry's spelling of ``name`` (``ercot`` -> ``ERCOT``)."""
    from . import algorithms

    return algorithms.resolve(name)


if __name__ == "__main__":
    sys.exit(main())
