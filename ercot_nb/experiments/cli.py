"""``ercot-nb experiments``: its options, and the sweep plus report it runs."""
from __future__ import annotations

import argparse
import ast
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import algorithms as registry # a light registry of names: nothing is imported from it here
from ..algorithms import name_key

# What the parser needs, kept here so that building it (``ercot-nb --help``)
# imports neither Dask, SciPy nor pandas; tests check they equal
# ``statistics.TESTS`` and ``spec.DEFAULT_KNOWN_K``.
TEST_CHOICES: tuple[str, ...] = ("rank-sum", "signed-rank")
DEFAULT_KNOWN_K_NAMES: tuple[str, ...] = ("k-meansCOT",)

def _parameter(text: str) -> tuple[str, str, Any]:
    """Parse ``ALGORITHM:NAME=VALUE``; VALUE is a Python literal or else a string."""
    match = re.fullmatch(r"([^:=]+):([A-Za-z_]\w*)=(.*)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected ALGORITHM:NAME=VALUE, got {text!r}")
    algorithm, name, raw = match.groups()
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return algorithm, name, value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``ercot-nb experiments`` options to ``parser``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    """
    parser.add_argument("--runs", type=int, default=30, metavar="N",
                        help="runs per algorithm and data set, seeds 0..N-1 (default: 30)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="report folder, created if missing (its parent must exist): report.md, "
                             "figures.html, runs.csv; run files in DIR/runs")
    parser.add_argument("--algorithms", nargs="+", metavar="NAME",
                        help="registered algorithms (default: all)")
    parser.add_argument("--datasets", nargs="+", metavar="NAME", type=str.lower,
                        help="built-in data sets (default: syn1 ... syn8)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on this dask.distributed scheduler (default: local worker processes)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="local worker processes (default: one per CPU)")
    parser.add_argument("--param", action="append", type=_parameter, default=[],
                        metavar="ALGORITHM:NAME=VALUE",
                        help="estimator parameter, repeatable, e.g. ERCOT:pop_size=20")
    parser.add_argument("--known-k", nargs="*", metavar="NAME",
                        help="algorithms given the true number of clusters on data sets that have one "
                             f"(default: {' '.join(DEFAULT_KNOWN_K_NAMES)})")
    parser.add_argument("--test", choices=TEST_CHOICES, default="rank-sum",
                        help="Wilcoxon test of the marks: rank-sum (unpaired, default) or signed-rank "
                             "(paired by run)")
    parser.add_argument("--significance", type=float, default=0.05, metavar="P",
                        help="significance level of the marks (default: 0.05)")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild the report from the run files in DIR/runs without running")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace report.md, figures.html or runs.csv in DIR even when no earlier "
                             "report listed them in DIR/.ercot-nb-manifest.json")


def _command_text(args: argparse.Namespace, algorithms: Sequence[str], datasets: Sequence[str]) -> str:
    parts = ["ercot-nb experiments", f"--runs {args.runs}", f"--out {args.out}",
             "--algorithms " + " ".join(algorithms), "--datasets " + " ".join(datasets)]
    parts += [f"--param {a}:{n}={v!r}" for a, n, v in args.param]
    if args.known_k is not None:
        parts.append("--known-k " + " ".join(args.known_k))
    if args.test != "rank-sum":
        parts.append(f"--test {args.test}")
    return " ".join(parts)


def run_from_args(args: argparse.Namespace) -> int:
    """Run the sweep and write the report, as ``ercot-nb experiments`` does.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed by a parser set up with :func:`add_arguments`.

    Returns
    -------
    int
        Exit code 0.

    Raises
    ------
    ValueError
        For unknown names, invalid parameters or conflicting run files.
    """
    from .report import build_report, check_report_folder
    from .runner import run_experiments
    from .spec import DEFAULT_KNOWN_K, KNOWN_K, STATUS_OK, SYNTHETIC_DATASETS, algorithm_order, registered_name
    from .statistics import summary_table
    from .store import load_runs

    if args.runs < 1:
        raise ValueError(f"--runs must be at least 1, got {args.runs}")
    out: Path = args.out
    runs_dir = out / "runs"
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder; give a folder for the report")
    blocking = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if not out.exists() and blocking is not None:
        raise ValueError(f"--out {out}: {blocking} is a file, not a folder; choose another path")
    if not out.exists() and not out.parent.is_dir():
        raise ValueError(f"--out {out}: the folder {out.parent} does not exist; create it first "
                         "(only the report folder itself is created)")
    if runs_dir.exists() and not runs_dir.is_dir():
        raise ValueError(f"{runs_dir} is a file; the sweep keeps its run files in that folder")
    if (not args.report_only and not getattr(args, "overwrite", False) and runs_dir.is_dir()
            and any(runs_dir.iterdir()) and not (runs_dir / "settings.json").exists()
            and not any(runs_dir.glob("*.done.json"))):
        # A sweep's run folder always holds settings.json and completion records.
        raise ValueError(f"{runs_dir} holds files that no sweep wrote (no settings.json, no completion "
                         "records); choose another --out or pass --overwrite to keep run files there")
    # Before any run: a file the sweep would replace without having written it is refused now.
    check_report_folder(out, overwrite=getattr(args, "overwrite", False),
                        overwrite_hint="--overwrite")
    names = [registered_name(n) for n in (args.algorithms or registry.available())]
    datasets = list(args.datasets or SYNTHETIC_DATASETS)
    params: dict[str, dict[str, Any]] = {}
    for algorithm, name, value in args.param:
        given = params.setdefault(registered_name(algorithm), {})
        if name in given:
            raise ValueError(f"--param {registered_name(algorithm)}:{name} is given twice; give it once")
        given[name] = value
    if args.known_k is None:
        wanted = [n for n in DEFAULT_KNOWN_K if any(name_key(n) == name_key(a) for a in names)]
    else:
        wanted = [registered_name(n) for n in args.known_k]
    for name in names:
        if any(name_key(name) == name_key(w) for w in wanted):
            params.setdefault(name, {}).setdefault("n_clusters", KNOWN_K)

    started = time.perf_counter()
    if args.report_only:
        table = load_runs(runs_dir, algorithms=names, datasets=datasets)
        table = table[table["run"] < args.runs].reset_index(drop=True)
        wall = None
    else:
        out.mkdir(exist_ok=True)
        table = run_experiments(
            names, datasets, args.runs, params=params, out_dir=runs_dir,
            scheduler_address=args.scheduler, n_workers=args.workers, progress=not args.no_progress,
        )
        wall = time.perf_counter() - started
    if table.empty:
        raise ValueError(f"no runs found in {runs_dir}")
    paths = build_report(table, args.out, runs_dir=runs_dir, test=args.test, significance=args.significance,
                         command=_command_text(args, names, datasets), wall_seconds=wall,
                         overwrite=getattr(args, "overwrite", False))
    summary = summary_table(table, test=args.test, significance=args.significance)
    for metric in ("mRI", "mNMI"):
        wide = summary.assign(cell=[
            f"{m:.4f}{mark}" if status == STATUS_OK else status
            for m, mark, status in zip(summary[f"{metric}_mean"], summary[f"{metric}_mark"], summary["status"])
        ]).pivot(index="dataset", columns="algorithm", values="cell")
        print(f"\n{metric} (mean over runs; mark vs ERCOT)")
        print(wide.reindex(index=datasets, columns=algorithm_order(names)).to_string())
    if wall is not None:
        print(f"\nwall time {wall:.1f} s for {table.drop_duplicates(['algorithm', 'dataset', 'run']).shape[0]} runs")
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0
