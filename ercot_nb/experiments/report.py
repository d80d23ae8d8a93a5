"""The sweep's report: ``report.md`` (the paper's tables beside ours), ``figures.html`` and ``runs.csv``."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._files import atomic_write, atomic_write_text, check_outputs, read_manifest, write_manifest
from ..algorithms import name_key
from ..figures import save_html
from ..paper import PAPER_ALGORITHMS, paper_value
from .figures import alpha_per_step_figure, fronts_figure, ri_per_step_figure, seconds_figure
from .spec import STATUS_OK, algorithm_order, column_title, display_dataset, format_seconds
from .statistics import per_run_scores, seconds_table, smallest_p_value, summary_table
from .store import load_fronts

def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _score_cell(row: pd.Series | None, metric: str, best: bool) -> str:
    """'0.9545 ± 3.20E-03 >' for our runs, then the paper's number below it."""
    if row is None:
        ours = "not run"
    elif row["status"] != STATUS_OK:
        ours = row["status"]
    else:
        mean = f"{row[f'{metric}_mean']:.4f}"
        std = row[f"{metric}_std"]
        ours = (f"**{mean}**" if best else mean) + (f" ± {std:.2E}" if np.isfinite(std) else "")
        ours += f" {row[f'{metric}_mark']}".rstrip()
    return ours


def _paper_cell(metric: str, dataset: str, algorithm: str) -> str:
    paper = paper_value(metric, dataset, algorithm)
    if paper is None:
        return ""
    mean, std, mark = paper
    return "paper n/a" if not np.isfinite(mean) else f"paper {mean:.4f} ± {std:.2E} {mark}".rstrip()


def _metric_section(summary: pd.DataFrame, metric: str, algorithms: Sequence[str]) -> str:
    datasets = list(dict.fromkeys(summary["dataset"]))
    rows = []
    for dataset in datasets:
        block = summary[summary["dataset"] == dataset].set_index("algorithm")
        means = block[f"{metric}_mean"].dropna()
        best = means.idxmax() if len(means) else None
        cells = [display_dataset(dataset)]
        for algorithm in algorithms:
            row = block.loc[algorithm] if algorithm in block.index else None
            cell = _score_cell(row, metric, best == algorithm and len(means) > 1)
            paper = _paper_cell(metric, dataset, algorithm)
            cells.append(f"{cell}<br>{paper}" if paper else cell)
        rows.append(cells)
    return _markdown_table(["data set", *algorithms], rows)


def _difference_section(summary: pd.DataFrame, algorithms: Sequence[str]) -> str:
    rows = []
    for dataset in dict.fromkeys(summary["dataset"]):
        block = summary[summary["dataset"] == dataset].set_index("algorithm")
        cells = [display_dataset(dataset)]
        for algorithm in algorithms:
            parts = []
            for metric in ("mRI", "mNMI"):
                ours = block.loc[algorithm, f"{metric}_mean"] if algorithm in block.index else np.nan
                paper = paper_value(metric, dataset, algorithm)
                if np.isfinite(ours) and paper is not None and np.isfinite(paper[0]):
                    parts.append(f"{ours - paper[0]:+.4f}")
                else:
                    parts.append("–")
            cells.append(" / ".join(parts))
        rows.append(cells)
    return _markdown_table(["data set", *algorithms], rows)


def _clusters_section(summary: pd.DataFrame, algorithms: Sequence[str]) -> str:
    rows = []
    for dataset in dict.fromkeys(summary["dataset"]):
        block = summary[summary["dataset"] == dataset].set_index("algorithm")
        rows.append([display_dataset(dataset)] + [
            f"{block.loc[a, 'mean_clusters']:.2f}" if a in block.index and np.isfinite(block.loc[a, "mean_clusters"])
            else "–" for a in algorithms
        ])
    return _markdown_table(["data set", *algorithms], rows)


def _problems_section(table: pd.DataFrame) -> str:
    problems = table[table["status"] != STATUS_OK]
    if problems.empty:
        return "Every run produced a partition."
    grouped = problems.groupby(["algorithm", "dataset", "status", "error"], sort=False)["run"].count()
    rows = [[a, display_dataset(d), s, str(n), e.replace("|", "\\|")] for (a, d, s, e), n in grouped.items()]
    return _markdown_table(["algorithm", "data set", "status", "runs", "message"], rows)


def _representative_run(table: pd.DataFrame, algorithm: str, dataset: str, runs_dir: Path) -> int | None:
    """The run (with kept fronts) whose mRI is closest to the median mRI."""
    scores = per_run_scores(table)
    scores = scores[(scores["algorithm"] == algorithm) & (scores["dataset"] == dataset)]
    scores = scores[[load_fronts(runs_dir, algorithm, dataset, int(r)) is not None for r in scores["run"]]]
    if scores.empty:
        return None
    distance = (scores["mRI"] - scores["mRI"].median()).abs()
    return int(scores.loc[distance.sort_values(kind="stable").index[0], "run"])


REPORT_FILES = {"report": "report.md", "figures": "figures.html", "runs": "runs.csv"}


def check_report_folder(report_dir: str | os.PathLike[str], *, overwrite: bool = False,
                        overwrite_hint: str = "overwrite=True") -> dict[str, Path]:
    """The report's file paths in ``report_dir``, checked before any work is done.

    Raises
    ------
    ValueError
        If ``report_dir`` is a file, or one of :data:`REPORT_FILES` exists
        there and is not listed in the folder's manifest (without ``overwrite``).
    """
    report_dir = Path(report_dir)
    if report_dir.exists() and not report_dir.is_dir():
        raise ValueError(f"{report_dir} is a file, not a folder; give a folder for the report")
    paths = {kind: report_dir / name for kind, name in REPORT_FILES.items()}
    return check_outputs(paths, overwrite=overwrite, owned=read_manifest(report_dir), create_parents=True,
                         overwrite_hint=overwrite_hint)


def build_report(
    table: pd.DataFrame,
    report_dir: str | os.PathLike[str],
    *,
    runs_dir: str | os.PathLike[str] | None = None,
    reference: str = "ERCOT",
    test: str = "rank-sum",
    significance: float = 0.05,
    fronts_of: tuple[str, str] = ("ERCOT", "syn7"),
    fronts_times: Sequence[Any] = (4, 5, 6, 7),
    command: str | None = None,
    wall_seconds: float | None = None,
    overwrite: bool = False,
) -> dict[str, Path]:
    """Write ``report.md``, ``figures.html`` and ``runs.csv`` for a sweep.

    The folder's manifest (``.ercot-nb-manifest.json``) lists the files a
    report wrote there: a new report replaces those, and refuses any other
    existing file of the same name unless ``overwrite`` (see
    :mod:`ercot_nb._files`).

    Parameters
    ----------
    table : pandas.DataFrame
        The run table of :func:`run_experiments`.
    report_dir : path
        Output folder (created if needed).
    runs_dir : path, optional
        Folder of the run files; needed for the final-population figure.
    reference : str, default="ERCOT"
        Algorithm the Wilcoxon marks compare against.
    test : {"rank-sum", "signed-rank"}, default="rank-sum"
    significance : float, default=0.05
    fronts_of : (algorithm, data set), default=("ERCOT", "syn7")
        Whose final populations the objective-space figure shows (one
        representative run: mRI closest to the median).
    fronts_times : sequence, default=(4, 5, 6, 7)
        Time labels of its panels.
    command : str, optional
        The command that made the sweep, quoted in the report.
    wall_seconds : float, optional
        Wall time of the sweep, quoted in the report.
    overwrite : bool, default=False
        Replace ``report.md``, ``figures.html`` or ``runs.csv`` even when no
        earlier report of this package wrote them.

    Returns
    -------
    dict
        ``{"report": path, "figures": path, "runs": path}``.

    Raises
    ------
    ValueError
        If ``report_dir`` is a file, or one of the three files exists and was
        not written by an earlier report (without ``overwrite``).
    """
    report_dir = Path(report_dir)
    report_paths = check_report_folder(report_dir, overwrite=overwrite)
    report_dir.mkdir(parents=True, exist_ok=True)
    write_manifest(report_dir, report_paths.values())  # first: an interrupted report stays replaceable
    runs_path = report_paths["runs"]
    atomic_write(runs_path, lambda file: table.to_csv(file, index=False))

    summary = summary_table(table, reference=reference, test=test, significance=significance)
    present = list(dict.fromkeys(table["algorithm"]))
    columns = algorithm_order(present + [p for p in PAPER_ALGORITHMS
                                          if not any(name_key(p) == name_key(a) for a in present)])
    n_runs = table["run"].nunique()
    datasets = list(dict.fromkeys(table["dataset"]))

    figures, figure_notes = [], []
    if "syn3" in datasets:
        figures.append(ri_per_step_figure(table, "syn3"))
        figure_notes.append("mean RI over the runs at each time step of Syn3, one line per algorithm "
                            "(paper Fig. 6)")
    alpha_sets = [d for d in ("syn3", "syn7") if d in datasets]
    if alpha_sets and reference in present:
        figures.append(alpha_per_step_figure(table, alpha_sets, algorithm=reference))
        figure_notes.append(f"{reference}'s smoothness weight alpha per time step on "
                            f"{' and '.join(map(display_dataset, alpha_sets))}, mean ± std over the runs")
    fronts_run = None
    if runs_dir is not None and fronts_of[1] in datasets and fronts_of[0] in present:
        fronts_run = _representative_run(table, *fronts_of, Path(runs_dir))
    if fronts_run is not None:
        fronts = load_fronts(Path(runs_dir), *fronts_of, fronts_run)
        figures.append(fronts_figure(fronts, fronts_times, title=(
            f"{fronts_of[0]}'s final populations at times {', '.join(map(str, fronts_times))} of "
            f"{display_dataset(fronts_of[1])} (run {fronts_run}), normalised accumulated objectives")))
        figure_notes.append(f"{fronts_of[0]}'s final populations at times "
                            f"{', '.join(map(str, fronts_times))} of {display_dataset(fronts_of[1])} in "
                            f"normalised objective space, coloured by number of clusters C (run {fronts_run}, "
                            "the run whose mRI is closest to the median; paper Fig. 8)")
    seconds = seconds_table(summary)
    figures.append(seconds_figure(seconds))
    figure_notes.append("Table IV (seconds per time step) as a figure")
    # checked above: replaced when allowed, created only if still free otherwise (rule 6)
    figures_path = save_html(figures, report_paths["figures"], title="ercot-nb: the paper's experiments",
                             overwrite=not getattr(report_paths["figures"], "must_be_new", False))

    test_text = ("two-sided Mann-Whitney rank-sum test of the per-run values" if test == "rank-sum"
                 else "two-sided Wilcoxon signed-rank test, runs paired by index (zero_method='zsplit')")
    lines = [
        "# The paper's experiments, reproduced",
        "",
        f"{n_runs} run(s) per algorithm and data set: algorithm seed = run index, every data set generated "
        "once (data seed 0). Each cell gives our mean ± std over the runs, then the paper's number "
        "(Tables II and III of Zhao, Yan & Shi, IEEE TCYB 2021).",
        "",
        f"Marks compare each algorithm with {reference}: {test_text} at {significance}. "
        f"'>' {reference} is significantly better, '≈' no significant difference, no mark: the competitor "
        f"is significantly better. Bold: our best mean on the row. 'n/a': the algorithm refused the data "
        "set; 'not run': not in this sweep.",
    ]
    smallest_p = smallest_p_value(n_runs, test)
    if smallest_p >= significance:
        lines += ["", f"**With {n_runs} run(s) per algorithm no difference can be significant**: the smallest "
                      f"p-value the {test} test can give is {smallest_p:.3g} >= {significance}, so every mark "
                      "is '≈'."]
    if command:
        lines += ["", f"Command: `{command}`"]
    if wall_seconds is not None:
        lines += ["", f"Wall time of this sweep: {wall_seconds:.0f} s ({wall_seconds / 60:.1f} min)."]
    lines += [
        "", "## Table II: mRI", "", _metric_section(summary, "mRI", columns),
        "", "## Table III: mNMI", "", _metric_section(summary, "mNMI", columns),
        "", "## Our mean minus the paper's (mRI / mNMI)", "", _difference_section(summary, columns),
        "", "## Table IV: mean seconds per time step", "",
        "Measured on this machine, one worker process per core and one numba thread per run; the "
        "'paper' columns give the paper's times for comparison.", "",
        _markdown_table(["algorithm", *[column_title(c) for c in seconds.columns]],
                        [[name, *[format_seconds(v) for v in seconds.loc[name]]] for name in seconds.index]),
        "", "## Mean number of clusters per time step", "", _clusters_section(summary, columns),
        "", "## Figures", "",
        "[`figures.html`](figures.html) is one self-contained page (plotly.js embedded, works offline) with:",
        "",
        *[f"{i}. {note}" for i, note in enumerate(figure_notes, start=1)],
        "", "## Runs without a partition", "", _problems_section(table),
        "", "## Files", "",
        "- `runs.csv`: one row per time step of every run (algorithm, dataset, run, t, time, n_samples, "
        "RI, NMI, n_clusters, alpha, seconds, status, error).",
        "- `figures.html`: the figures above.",
        "- `runs/`: one CSV file per run (and the final populations of the runs the objective-space "
        "figure draws from), written as each run finished; rerunning the command resumes from them. "
        "Delete it after changing an algorithm, since runs are matched by their parameters only.",
        "",
    ]
    report_path = atomic_write_text(report_paths["report"], "\n".join(lines))
    return {"report": report_path, "figures": figures_path, "runs": runs_path}
