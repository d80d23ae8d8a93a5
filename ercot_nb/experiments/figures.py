"""Figures of a sweep: RI and alpha per time step, final populations (paper Figs. 6 and 8), Table IV."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from ..figures import TEMPLATE
from .spec import STATUS_OK, algorithm_order, column_title, display_dataset, format_seconds

def _step_means(table: pd.DataFrame, column: str) -> pd.DataFrame:
    done = table[table["status"] == STATUS_OK].astype({column: "float64"})
    return (done.groupby(["algorithm", "dataset", "t", "time"], sort=False)[column]
            .agg(["mean", "std", "count"]).reset_index())


def ri_per_step_figure(table: pd.DataFrame, dataset: str = "syn3", *, metric: str = "RI") -> go.Figure:
    """Mean RI (or NMI) over the runs at every time step, one line per algorithm (paper Fig. 6).

    Parameters
    ----------
    table : pandas.DataFrame
        The run table.
    dataset : str, default="syn3"
    metric : {"RI", "NMI"}, default="RI"

    Returns
    -------
    plotly.graph_objects.Figure
    """
    means = _step_means(table[table["dataset"] == dataset], metric)
    fig = go.Figure()
    for algorithm in algorithm_order(list(dict.fromkeys(means["algorithm"]))):
        line = means[means["algorithm"] == algorithm].sort_values("t")
        fig.add_trace(go.Scatter(
            x=line["time"].astype(str).tolist(), y=line["mean"].tolist(), mode="lines+markers", name=algorithm,
            customdata=np.column_stack([line["std"].fillna(0.0), line["count"]]).tolist(),
            hovertemplate=(f"{algorithm}<br>time %{{x}}<br>mean {metric} %{{y:.4f}}"
                           "<br>std %{customdata[0]:.4f}, runs %{customdata[1]}<extra></extra>"),
        ))
    fig.update_layout(
        template=TEMPLATE, width=760, height=440,
        title=f"Mean {metric} over the runs at each time step of {display_dataset(dataset)}",
        xaxis_title="time", yaxis_title=f"mean {metric}", legend_title="algorithm",
    )
    return fig


def alpha_per_step_figure(
    table: pd.DataFrame, datasets: Sequence[str] = ("syn3", "syn7"), *, algorithm: str = "ERCOT"
) -> go.Figure:
    """ERCOT's smoothness weight alpha at each time step: mean ± std over the runs.

    Parameters
    ----------
    table : pandas.DataFrame
        The run table.
    datasets : sequence of str, default=("syn3", "syn7")
        One line per data set.
    algorithm : str, default="ERCOT"

    Returns
    -------
    plotly.graph_objects.Figure
        The first step has no history, hence no alpha and no point.
    """
    means = _step_means(table[table["algorithm"] == algorithm], "alpha").dropna(subset=["mean"])
    fig = go.Figure()
    for dataset in datasets:
        line = means[means["dataset"] == dataset].sort_values("t")
        if line.empty:
            continue
        fig.add_trace(go.Scatter(
            x=line["time"].astype(str).tolist(), y=line["mean"].tolist(), mode="lines+markers",
            name=display_dataset(dataset),
            error_y=dict(type="data", array=line["std"].fillna(0.0).tolist(), visible=True),
            hovertemplate="time %{x}<br>mean alpha %{y:.3f}<extra>" + display_dataset(dataset) + "</extra>",
        ))
    fig.update_layout(
        template=TEMPLATE, width=760, height=440,
        title=f"{algorithm}'s smoothness weight alpha per time step (mean ± std over the runs)",
        xaxis_title="time", yaxis_title="alpha", yaxis_range=[0, 1], legend_title="data set",
    )
    return fig


def _normalised(values: np.ndarray) -> np.ndarray:
    """Min-max normalise to [0, 1]; non-finite values (no separation) map to 1, the worst."""
    finite = np.isfinite(values)
    if not finite.any():
        return np.ones_like(values)
    low, high = values[finite].min(), values[finite].max()
    span = high - low if high > low else 1.0
    return np.where(finite, (values - low) / span, 1.0)


def fronts_figure(
    fronts: pd.DataFrame,
    times: Sequence[Any] = (4, 5, 6, 7),
    *,
    accumulated: bool = True,
    title: str | None = None,
) -> go.Figure:
    """Final populations of several time steps in normalised objective space (paper Fig. 8).

    Parameters
    ----------
    fronts : pandas.DataFrame
        ``ClusteringResult.fronts_frame()`` of one run (see :func:`load_fronts`).
    times : sequence, default=(4, 5, 6, 7)
        Time labels shown, one panel each.
    accumulated : bool, default=True
        Plot the objectives the last selection used (ERCOT's accumulated
        fitness), in which the knee was chosen; ``False`` plots the raw
        objectives of the step.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Per panel, f_cp and f_sep min-max normalised over the population;
        colour = number of clusters C (the same colour in every panel);
        filled markers = first front, open = dominated, star = the knee.
    """
    suffix = "_accumulated" if accumulated else ""
    wanted = [str(t) for t in times]
    fig = make_subplots(rows=1, cols=len(wanted), subplot_titles=[f"time {t}" for t in wanted],
                        shared_yaxes=True, horizontal_spacing=0.03)
    shown_in_legend: set[int] = set()
    palette = qualitative.D3
    for column, time_label in enumerate(wanted, start=1):
        step = fronts[fronts["time"].astype(str) == time_label]
        if step.empty:
            continue
        x = _normalised(step[f"f_cp{suffix}"].to_numpy(dtype=float))
        y = _normalised(step[f"f_sep{suffix}"].to_numpy(dtype=float))
        n_clusters = step["n_clusters"].to_numpy()
        on_front = step["first_front"].astype(str).str.lower().eq("true").to_numpy()
        for k in np.unique(n_clusters):
            chosen = n_clusters == k
            fig.add_trace(go.Scatter(
                x=x[chosen], y=y[chosen], mode="markers", name=f"C = {k}", legendgroup=f"C{k}",
                showlegend=int(k) not in shown_in_legend, legendrank=int(k),
                marker=dict(color=palette[int(k) % len(palette)], size=np.where(on_front[chosen], 9, 6),
                            symbol=np.where(on_front[chosen], "circle", "circle-open"), line=dict(width=1)),
                hovertemplate=f"C = {k}<br>f_cp %{{x:.3f}}<br>f_sep %{{y:.3f}}<extra>time {time_label}</extra>",
            ), row=1, col=column)
            shown_in_legend.add(int(k))
        knee = step["knee"].astype(str).str.lower().eq("true").to_numpy()
        if knee.any():
            fig.add_trace(go.Scatter(
                x=x[knee], y=y[knee], mode="markers", name="knee (chosen)", legendgroup="knee",
                showlegend=column == 1, legendrank=1000,
                marker=dict(symbol="star", size=16, color="#D62728", line=dict(width=1, color="#222222")),
                hovertemplate=f"knee, C = {int(n_clusters[knee][0])}<extra>time {time_label}</extra>",
            ), row=1, col=column)
        fig.update_xaxes(title_text="f_cp (normalised)", range=[-0.05, 1.05], row=1, col=column)
    fig.update_yaxes(title_text="f_sep (normalised)", range=[-0.05, 1.05], row=1, col=1)
    kind = "accumulated" if accumulated else "raw"
    fig.update_layout(
        template=TEMPLATE, width=300 * len(wanted) + 120, height=400, legend_title="clusters",
        title=title or f"Final population in normalised objective space ({kind} objectives)",
    )
    return fig


def seconds_figure(seconds: pd.DataFrame) -> go.Figure:
    header = ["algorithm"] + [column_title(c) for c in seconds.columns]
    cells = [list(seconds.index)] + [[format_seconds(v) for v in seconds[c]] for c in seconds.columns]
    fig = go.Figure(go.Table(header=dict(values=header, align="left"), cells=dict(values=cells, align="left")))
    fig.update_layout(
        template=TEMPLATE, width=max(600, 110 * len(header)), height=110 + 32 * (len(seconds) + 1),
        margin=dict(t=50, b=10, l=20, r=20),
        title="Mean seconds per time step (this machine) and the paper's Table IV (Syn1)",
    )
    return fig
