"""``ercot-nb bench speed|threads|apps|quality|precision``: parse the arguments and print one report."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from .._files import OutputError, atomic_write, check_outputs
from .apps import applications_report
from .precision import PRECISION_DATASETS, precision_runs, precision_summary
from ..experiments import KNOWN_K
from ..evolution import FINAL_PARTITIONS
from .quality import DEFAULT_ALGORITHMS, format_quality, quality_runs, quality_summary
from .segments import CHECK_CASES, VIDEO_CASES, format_segments, segment_runs, segment_summary
from .speed import speed_report

DESCRIPTION = "Benchmarks: speed of the kernels and the algorithm, and quality on Syn1-Syn8."


def _write_table(path, table) -> bool:
    """Write the runs' table; a path another writer took meanwhile, or a full disk, is one line."""
    try:
        atomic_write(path, lambda file: table.to_csv(file, index=False))
    except OutputError as exc:
        print(f"ercot-nb bench: error: {exc}", file=sys.stderr)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["class"]:  # its own options, and the rest go to `ercot-nb app`
        from .classroom import main as class_main

        return class_main(argv[1:])
    if argv[:1] == ["kernel"]:  # its own options
        from .kernel_memory import main as kernel_main

        return kernel_main(argv[1:])
    parser = argparse.ArgumentParser(prog="ercot-nb bench", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("speed", help="seconds per step, numba vs NumPy twin, compile and first-fit time, "
                       "explorer page data of 10,000 steps")
    sub.add_parser("class", help="a class opening the app at once: N Chromium pages against a local "
                   "ercot-nb app (ercot-nb bench class --help)")
    sub.add_parser("kernel", help="memory (resident, own) and CPU of one app kernel after import, Explorer() "
                   "and a first run (ercot-nb bench kernel --help)")
    threads = sub.add_parser("threads", help="seconds per step at 1/4/8/16 numba threads, measured and expected "
                             "(run on a many-core machine with NUMBA_NUM_THREADS set)")
    threads.add_argument("--samples", type=int, default=19_200)
    apps = sub.add_parser("apps", help="seconds per step and peak memory on bird_flocks and the videos")
    apps.add_argument("--datasets", nargs="*", default=None,
                      help="names (default: bird_flocks, video_mo, video_rc at 1/4, 1/2, full size)")
    precision = sub.add_parser("precision", help="ERCOT's mRI with precision float32 against float64, over seeds")
    precision.add_argument("--runs", type=int, default=10)
    precision.add_argument("--datasets", nargs="*", default=list(PRECISION_DATASETS))
    quality = sub.add_parser("quality", help="ERCOT and staticEC (or others) on Syn1-Syn8 vs oracle and paper")
    quality.add_argument("--runs", type=int, default=10)
    quality.add_argument("--algorithms", nargs="+", default=list(DEFAULT_ALGORITHMS),
                         help="registered algorithms (default: ERCOT staticEC)")
    quality.add_argument("--datasets", nargs="*", default=None)
    quality.add_argument("--knee", nargs="*", default=["ideal"], help="knee rules to compare")
    quality.add_argument("--no-known-k", action="store_true", help="skip the k=4 setting on Syn1-6")
    quality.add_argument("--workers", type=int, default=None)
    quality.add_argument("--out", type=Path, default=None,
                         help="write the per-run table (CSV); its folder must exist")
    quality.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    quality.add_argument("--runs-dir", type=Path, default=None,
                         help="keep the run files here and resume from them (default: a temporary folder)")
    quality.add_argument("--segments", action="store_true",
                         help="instead: ERCOT's final_partition options on the video scenes, Syn1-8 "
                              "and bird_flocks over --data-seeds, beside the oracle, k-means and a Gaussian "
                              "mixture with the true k")
    quality.add_argument("--data-seeds", type=int, nargs="+", default=[0, 1, 2],
                         help="data seeds of --segments (default: 0 1 2)")
    quality.add_argument("--final-partitions", nargs="+", choices=FINAL_PARTITIONS, default=list(FINAL_PARTITIONS),
                         help="with --segments: ERCOT's final_partition values to run (default: all)")
    quality.add_argument("--position", action="store_true",
                         help="with --segments: the video scenes with position=True (r, g, b, row, col)")
    args = parser.parse_args(argv)

    if args.what == "speed":
        report = speed_report()
        print(report.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        return 0

    if args.what == "threads":
        from .threads import main as threads_main

        return threads_main([str(args.samples)])

    if args.what == "apps":
        cases = [(name, {}) for name in args.datasets] if args.datasets else None
        report = applications_report(cases)
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(report.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        return 0

    if args.what == "precision":
        summary = precision_summary(precision_runs(args.runs, args.datasets))
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        return 0

    if args.out:
        try:  # before the runs: the rule of ercot_nb._files
            # the checked path: a file that was free stays new (of two writers, one wins)
            args.out = check_outputs({"--out": args.out}, overwrite=args.overwrite,
                                     overwrite_hint="--overwrite")["--out"]
        except OutputError as exc:
            parser.error(str(exc))
    if args.segments:
        started = time.perf_counter()
        known = {**VIDEO_CASES, **CHECK_CASES}
        unknown = [name for name in args.datasets or () if name not in known]
        if unknown:
            parser.error(f"--segments runs on {', '.join(known)}; not {', '.join(unknown)}")
        cases = {name: known[name] for name in args.datasets} if args.datasets else known
        if args.position:
            cases = {name: {**extra, "position": True} if name in VIDEO_CASES else extra
                     for name, extra in cases.items()}
            print("video features: r, g, b, row, col (position=True)")
        def report(row):  # each run on stderr as it finishes: a long sweep shows where it is
            print(f"{row['dataset']} data seed {row['data_seed']} {row['method']} seed {row['seed']}: "
                  f"mRI {row['mRI']:.4f}, {row['clusters']:.1f} clusters, {row['seconds_per_step']:.3f} s/step",
                  file=sys.stderr, flush=True)

        table = segment_runs(args.runs, args.data_seeds, cases, progress=report,
                             final_partitions=args.final_partitions)
        written = not args.out or _write_table(args.out, table)  # the table is printed either way
        print(format_segments(segment_summary(table)))
        print(f"\nwall time {time.perf_counter() - started:.1f} s, {len(table)} rows")
        return 0 if written else 1

    settings = {}
    for rule in args.knee:
        suffix = "" if args.knee == ["ideal"] else f",knee={rule}"
        extra = {} if rule == "ideal" else {"knee": rule}
        settings[f"Cmax=8{suffix}"] = dict(extra)
        if not args.no_known_k:
            settings[f"k=4{suffix}"] = {"n_clusters": KNOWN_K, **extra}
    started = time.perf_counter()
    table = quality_runs(args.runs, settings, args.datasets, args.algorithms, workers=args.workers,
                         runs_dir=args.runs_dir)
    written = not args.out or _write_table(args.out, table)  # the table is printed either way
    print(format_quality(quality_summary(table), table))
    print(f"\nwall time {time.perf_counter() - started:.1f} s, {len(table)} runs")
    return 0 if written else 1
