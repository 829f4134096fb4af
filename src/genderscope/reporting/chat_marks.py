"""The chat section's GenderBench marks (Pikuliak, Hrckova, Oresko & Simko 2025,
arXiv:2505.12054, Sec. 3): one table and one grid for every model the report ran a
GenderBench probe on. The marks are the probes' own (``mark`` of genderscope's 95 % CI
over clusters, ``mark_point`` of the estimate, GenderBench's where a ``run genderbench``
result holds it: :data:`genderscope.measures.genderbench.MARKS_LEGEND`); this module
lays them out."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from genderscope.reporting import plots

if TYPE_CHECKING:
    from genderscope.reporting.runner import ReportData

COLOURS = {"A": "#1a9850", "B": "#a6d96a", "C": "#fdae61", "D": "#d73027"}
"""Fill of each mark in the grid (green to red; the letter is written in every cell, so
the grid reads without colour too)."""
NO_MARK = "#c8ccd2"
NUMBERS = ["estimate", "ci_low", "ci_high"]


def marks_frame(data: ReportData) -> pd.DataFrame:
    """One row per (model, probe, metric) GenderBench marks
    (:func:`genderscope.measures.genderbench.marks.marks_table` of each model's probe
    results): ``model``, ``probe``, ``metric``, ``estimate``, ``ci_low``, ``ci_high``,
    ``mark`` (of the 95 % CI, as GenderBench marks), ``mark_point`` (of the estimate) and
    ``mark_genderbench`` (GenderBench's own interval's, where the run holds it, else
    ''); empty when no probe ran."""
    from genderscope.measures.genderbench.marks import marks_table as probe_marks

    rows = []
    for sec in data.sections:
        summary = sec.result.summary if sec.status == "ok" and sec.result is not None \
            else None
        if not isinstance(summary, dict) or not isinstance(summary.get("marks"), dict):
            continue
        for r in probe_marks({sec.measure.name: summary}):
            rows.append({"model": sec.subject.label, "probe": r["probe"],
                         "metric": r["metric"], **{k: r[k] for k in NUMBERS},
                         **{k: r.get(k) or "" for k in ("mark", "mark_point",
                                                        "mark_genderbench")}})
    frame = pd.DataFrame(rows, columns=["model", "probe", "metric", *NUMBERS, "mark",
                                        "mark_point", "mark_genderbench"])
    frame[NUMBERS] = frame[NUMBERS].apply(pd.to_numeric, errors="coerce")  # None: NaN
    return frame


def _layout(frame: pd.DataFrame) -> tuple[list[str], list[tuple[str, str]],
                                          dict[tuple[str, str, str], Any]]:
    """The models and the (probe, metric) keys in the order they first come, and the
    first row of each (model, probe, metric)."""
    models = list(dict.fromkeys(frame["model"]))
    keys = list(dict.fromkeys(zip(frame["probe"], frame["metric"], strict=True)))
    rows = frame.drop_duplicates(["model", "probe", "metric"]).itertuples(index=False)
    return models, keys, {(r.model, r.probe, r.metric): r for r in rows}


def marks_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The page's table: a row per probe metric, per model one column with ``estimate
    [low, high]``, one with ``mark (point mark)`` and, for ``run genderbench`` results,
    one with GenderBench's own mark."""
    from genderscope.reporting.entry import fmt

    models, keys, cells = _layout(frame)
    own = frame["mark_genderbench"].astype(bool).any()  # `run genderbench` results
    columns = ["estimate [95% CI]", "mark (point)", "GenderBench mark"][:3 if own else 2]
    out = []
    for probe, metric in keys:
        row: dict[str, Any] = {"probe": probe, "metric": metric}
        for model in models:
            head = f"{model}: " if len(models) > 1 else ""
            r = cells.get((model, probe, metric))
            if r is None:
                shown = ["-", "-", "-"]
            else:
                shown = ["n/a" if math.isnan(r.estimate) else
                         f"{fmt(r.estimate)} [{fmt(r.ci_low)}, {fmt(r.ci_high)}]",
                         f"{r.mark or '-'} ({r.mark_point or '-'})", r.mark_genderbench or "-"]
            row.update({head + c: v for c, v in zip(columns, shown, strict=False)})
        out.append(row)
    return pd.DataFrame(out)


def marks_grid(frame: pd.DataFrame) -> Any:
    """A grid a reader takes in at a glance: a row per probe metric, a column per model,
    each cell filled with its mark's colour (A green to D red, grey: no mark) and
    labelled with the mark of the CI and, when it differs, the point's."""
    from matplotlib.patches import Rectangle

    models, keys, cells = _layout(frame)
    fig, ax = plots.figure(width=max(4.2, 2.6 + 1.3 * len(models)),
                           height=max(1.6, 0.32 * len(keys) + 0.9))
    ax.grid(False)
    for y, (probe, metric) in enumerate(keys):
        for x, model in enumerate(models):
            r = cells.get((model, probe, metric))
            mark, point = (r.mark, r.mark_point) if r is not None else ("", "")
            ax.add_patch(Rectangle((x, y), 0.96, 0.9, facecolor=COLOURS.get(mark, NO_MARK),
                                   edgecolor="none"))
            label = mark or "-"
            if point and point != mark:
                label += f" ({point})"
            ax.text(x + 0.48, y + 0.45, label, ha="center", va="center", color="#111111",
                    fontsize=9, fontweight="bold")
    ax.set_xlim(0, len(models))
    ax.set_ylim(len(keys), 0)
    ax.set_xticks([x + 0.48 for x in range(len(models))], models)
    ax.xaxis.tick_top()
    ax.set_yticks([y + 0.45 for y in range(len(keys))], [f"{p} · {m}" for p, m in keys])
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    return fig
