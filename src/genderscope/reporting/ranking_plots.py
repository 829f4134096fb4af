"""Figures of a many-model run (:mod:`genderscope.sweep.many`), as WEFE 1.0.1's
``plot_queries_results``, ``plot_ranking`` and ``plot_ranking_correlations`` draw
them (there with plotly), in matplotlib and with the 95 % CIs WEFE does not have:

- :func:`plot_results`: each model's value per query (and attribute set) of one
  metric, with its CI;
- :func:`plot_ranking`: each model's ranks, one stacked bar segment per metric, the
  models ordered by their rank sum (the least biased, by the rankings, on top);
- :func:`plot_ranking_correlations`: the metrics' rank correlations as a heat map.

Every segment and cell is also labelled in words or numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from genderscope.reporting.plots import SERIES

_RC = {"font.family": "DejaVu Sans", "font.size": 9, "axes.spines.top": False,
       "axes.spines.right": False, "figure.facecolor": "white", "svg.hashsalt": "genderscope"}


def _figure(width: float, height: float) -> tuple[Figure, Any]:
    import matplotlib.pyplot as plt

    with plt.rc_context(_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.add_subplot()
    return fig, ax


def plot_results(table: pd.DataFrame, metric: str) -> Figure:
    """One metric's values (with 95 % CIs) per query and attribute set, a marker per model
    (the long table of :func:`genderscope.sweep.many.run_many`)."""
    part = table[(table["metric"] == metric) & (table["error"].fillna("") == "")]
    cells = list(dict.fromkeys(
        q if not a else f"{q} [{a}]"
        for q, a in zip(part["query"], part["attribute"].fillna(""), strict=True)))
    models = list(dict.fromkeys(part["model"]))
    fig, ax = _figure(6.4, 0.5 + 0.35 * max(1, len(cells)) * max(1, len(models)) ** 0.5)
    step = 0.7 / max(1, len(models))
    for i, model in enumerate(models):
        rows = part[part["model"] == model]
        labels = [q if not a else f"{q} [{a}]" for q, a in
                  zip(rows["query"], rows["attribute"].fillna(""), strict=True)]
        y = np.array([cells.index(c) for c in labels]) + (i - (len(models) - 1) / 2) * step
        v = rows["value"].to_numpy(float)
        err = np.abs(np.vstack([v - rows["ci_low"].to_numpy(float),
                                rows["ci_high"].to_numpy(float) - v]))
        ax.errorbar(v, y, xerr=np.nan_to_num(err), fmt="o", ms=4, capsize=2,
                    color=SERIES[i % len(SERIES)], label=model)
    ax.set_yticks(range(len(cells)), [c if len(c) < 60 else c[:57] + "..." for c in cells])
    ax.invert_yaxis()
    ax.set_xlabel(f"{metric.upper()} (95 % CI)")
    ax.grid(True, axis="x", alpha=0.35)
    if models:
        ax.legend(loc="best", fontsize=8)
    return fig


def plot_ranking(rankings: pd.DataFrame) -> Figure:
    """Stacked ranks per model (rows of :func:`genderscope.stats.rankings.create_ranking`),
    one segment per metric, labelled with the rank; models with the smallest rank sum on
    top."""
    order = rankings.sum(axis=1).sort_values(kind="stable").index
    ranked = rankings.loc[order]
    fig, ax = _figure(6.4, 0.8 + 0.4 * len(ranked))
    left = np.zeros(len(ranked))
    y = np.arange(len(ranked))
    for i, metric in enumerate(ranked.columns):
        width = ranked[metric].fillna(0).to_numpy(float)
        ax.barh(y, width, left=left, color=SERIES[i % len(SERIES)], label=str(metric),
                edgecolor="white")
        for yy, lo, w in zip(y, left, width, strict=True):
            if w:
                ax.text(lo + w / 2, yy, f"{metric}\n{w:g}", ha="center", va="center",
                        fontsize=7, color="white")
        left += width
    ax.set_yticks(y, [str(m) for m in ranked.index])
    ax.invert_yaxis()
    ax.set_xlabel("sum of ranks (1 = lowest score of a metric)")
    return fig


def plot_ranking_correlations(correlations: pd.DataFrame, title: str = "") -> Figure:
    """Heat map of the metrics' rank correlations (-1 to 1), each cell labelled."""
    n = len(correlations)
    fig, ax = _figure(1.5 + 0.8 * n, 1.2 + 0.7 * n)
    m = correlations.to_numpy(float)
    im = ax.imshow(m, vmin=-1, vmax=1, cmap="PuOr")
    for i in range(n):
        for j in range(n):
            ax.text(j, i, "" if np.isnan(m[i, j]) else f"{m[i, j]:.2f}", ha="center",
                    va="center", fontsize=8, color="white" if abs(m[i, j]) > 0.6 else "black")
    ax.set_xticks(range(n), [str(c) for c in correlations.columns], rotation=45, ha="right")
    ax.set_yticks(range(n), [str(c) for c in correlations.index])
    fig.colorbar(im, ax=ax, shrink=0.8)
    if title:
        ax.set_title(title)
    return fig


def save(fig: Figure, path: str | Path, fmt: str | None = None) -> Path:
    """Write the figure as ``fmt`` (default: from the suffix: .png, .svg, .pdf)."""
    path = Path(path)
    fig.savefig(path, dpi=150, format=fmt or path.suffix.lstrip(".") or "png")
    return path
