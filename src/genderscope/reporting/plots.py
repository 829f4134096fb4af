"""Plot helpers for the report: one matplotlib style, colour-blind-safe colours, and
figures rendered as inline SVG that follow the page's light or dark colours.

Text, axes and grid are drawn in a sentinel colour that :func:`to_svg` replaces by
``currentColor``, so one SVG reads on a white and a dark page. Data colours are the
Okabe-Ito palette (Okabe & Ito 2008), safe for the common colour-vision deficiencies;
gender is blue (male) and vermillion (female) and always labelled in words too.
"""

from __future__ import annotations

import io
import itertools
import re
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402

INK = "#123456"
"""Sentinel colour of text and axes, replaced by ``currentColor`` in the SVG."""
GRID = "#654321"
"""Sentinel colour of grid and reference lines (drawn semi-transparent)."""

OKABE_ITO = {"orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73", "yellow": "#F0E442",
             "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7", "grey": "#999999"}
MALE = OKABE_ITO["blue"]
FEMALE = OKABE_ITO["vermillion"]
SERIES = [OKABE_ITO[k] for k in ("blue", "orange", "green", "purple", "sky", "vermillion",
                                 "yellow", "grey")]

_FIGURE_IDS = itertools.count(1)

_RC = {
    "font.family": "DejaVu Sans", "font.size": 9.5, "axes.titlesize": 10.5,
    "axes.edgecolor": INK, "axes.labelcolor": INK, "text.color": INK,
    "xtick.color": INK, "ytick.color": INK, "axes.facecolor": "none",
    "figure.facecolor": "none", "savefig.facecolor": "none", "savefig.transparent": True,
    "axes.spines.top": False, "axes.spines.right": False, "grid.color": GRID,
    "grid.alpha": 0.35, "legend.frameon": False, "svg.fonttype": "none",
    "svg.hashsalt": "genderscope",
}


def figure(width: float = 6.4, height: float = 3.2) -> tuple[Figure, Any]:
    """A new figure with one axis in the report style."""
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
        ax.grid(True, axis="x" if width > height * 1.6 else "y")
        ax.set_axisbelow(True)
    return fig, ax


def null_line(ax: Any, value: float, *, vertical: bool = True, label: str | None = None) -> None:
    """Reference line at the value meaning 'no bias'."""
    kw = {"color": GRID, "linestyle": "--", "linewidth": 1.1, "alpha": 0.9, "zorder": 1}
    (ax.axvline if vertical else ax.axhline)(value, **kw)
    if label:
        if vertical:
            ax.annotate(label, (value, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(3, -2), textcoords="offset points", va="top", fontsize=8)
        else:
            ax.annotate(label, (1.0, value), xycoords=("axes fraction", "data"),
                        xytext=(-2, 3), textcoords="offset points", ha="right", fontsize=8)


def set_title(fig: Figure, text: str) -> None:
    """A left-aligned figure title that is never clipped by long tick labels."""
    with plt.rc_context(_RC):
        fig.suptitle(text, x=0.01, ha="left", fontsize=10.5, color=INK)


def _texts(fig: Figure) -> list[Text]:
    """The texts ``fig`` draws: visible and non-empty, tick labels only where their tick
    lies within the axis' view (matplotlib keeps the others but does not draw them)."""
    hidden: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            pad = (hi - lo) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - pad <= tick.get_loc() <= hi + pad:
                    hidden.update((id(tick.label1), id(tick.label2)))
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
            and id(t) not in hidden]


def _overflow(t: Text, renderer: Any, box: Any) -> float:
    """How many times too long ``t`` is for the room the figure leaves it along its
    reading direction around its centre (<= 1: it fits)."""
    e = t.get_window_extent(renderer)
    vertical = abs(((t.get_rotation() or 0) + 90) % 180 - 90) > 45
    lo, hi, a, b = ((box.y0, box.y1, e.y0, e.y1) if vertical else (box.x0, box.x1, e.x0, e.x1))
    if a >= lo and b <= hi:
        return 1.0
    size = b - a
    if t.get_horizontalalignment() == "left" and not vertical:
        room = hi - a
    elif t.get_horizontalalignment() == "right" and not vertical:
        room = b - lo
    else:
        centre = (a + b) / 2
        room = 2 * min(centre - lo, hi - centre)
    return size / max(room, 1.0)


def lay_out(fig: Figure, margin: float = 0.96) -> Figure:
    """Wrap every text that reaches outside the figure onto more lines (at spaces), then
    let the constrained layout place it again: no label is clipped at the page's size."""
    with plt.rc_context(_RC):
        for _ in range(4):
            renderer = fig.canvas.get_renderer()
            fig.draw_without_rendering()
            changed = False
            for t in _texts(fig):
                text = t.get_text()
                ratio = _overflow(t, renderer, fig.bbox)
                if ratio <= 1.0 or " " not in text:
                    continue
                lines = text.split("\n")
                chars = max(8, int(max(len(x) for x in lines) * margin / ratio))
                wrapped = "\n".join(textwrap.fill(x, chars, break_long_words=False,
                                                   break_on_hyphens=False) for x in lines)
                if wrapped != text:
                    t.set_text(wrapped)
                    changed = True
            if not changed:
                break
    return fig


def close_all() -> None:
    """Close every open pyplot figure (after a plot failed half-way)."""
    plt.close("all")


def to_svg(fig: Figure, *, title: str) -> str:
    """Inline SVG (no XML prolog), sentinel colours -> ``currentColor``, with an
    accessible ``<title>``; closes the figure. Over-wide labels are wrapped first
    (:func:`lay_out`) and the canvas is fitted to what is drawn, so nothing is clipped."""
    lay_out(fig)
    with plt.rc_context(_RC):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None},
                    bbox_inches="tight", pad_inches=0.04)
    plt.close(fig)
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    prefix = f"g{next(_FIGURE_IDS)}-"  # ids must be unique across the page's inline SVGs
    svg = re.sub(r'(\bid="|url\(#|href="#)', lambda m: m.group(1) + prefix, svg)
    for sentinel in (INK, GRID):
        svg = re.sub(sentinel, "currentColor", svg, flags=re.IGNORECASE)
    svg = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"',
                 r'<svg \1role="img" class="plot"', svg, count=1)
    esc = (title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    return svg.replace(">", f"><title>{esc}</title>", 1)


def ci_errors(est: Sequence[float], low: Sequence[float], high: Sequence[float]
              ) -> list[list[float]]:
    """Asymmetric error-bar lengths for matplotlib (NaN-safe)."""
    lo = [max(e - v, 0.0) if v == v and e == e else 0.0 for e, v in zip(est, low, strict=True)]
    hi = [max(v - e, 0.0) if v == v and e == e else 0.0 for e, v in zip(est, high, strict=True)]
    return [lo, hi]


def gender_bars(ax: Any, t: pd.DataFrame, *, gender: str, by: str, order: Sequence[str],
                value: str, noun: str, labels: Sequence[str], legend: str = "best") -> None:
    """Male and female bars side by side for each ``order`` category of column ``by`` (rows
    of ``t`` told apart by column ``gender``), ``value`` with its ``ci_low``/``ci_high``."""
    width = 0.36
    for k, (g, color) in enumerate((("male", MALE), ("female", FEMALE))):
        sub = t[t[gender] == g].set_index(by).reindex(order)
        xs = np.arange(len(order)) + (k - 0.5) * width
        ax.bar(xs, sub[value], width, color=color, label=f"{g} {noun}",
               yerr=ci_errors(sub[value].tolist(), sub["ci_low"].tolist(),
                              sub["ci_high"].tolist()), capsize=3, ecolor=INK)
    ax.set_xticks(range(len(order)), labels)
    ax.legend(loc=legend, ncols=2, frameon=False)
    ax.grid(False, axis="x")
    ax.grid(True, axis="y")


def forest(rows: Sequence[tuple[str, float, float | None, float | None]], *, null: float | None,
           xlabel: str, title: str, colors: Sequence[str] | None = None,
           height: float | None = None) -> Figure:
    """Horizontal estimate +- CI plot, one row per (label, estimate, low, high); a
    missing value (None: a stored run reads NaN back as None) is drawn as NaN."""
    nan = float("nan")
    rows = [(label, nan if est is None else est, lo, hi) for label, est, lo, hi in rows]
    n = len(rows)
    fig, ax = figure(6.4, height or max(1.6, 0.42 * n + 1.0))
    ys = list(range(n))[::-1]
    for i, (_label, est, lo, hi) in enumerate(rows):
        c = (colors[i] if colors else SERIES[0])
        lo_ = est if lo is None or lo != lo else lo
        hi_ = est if hi is None or hi != hi else hi
        ax.errorbar([est], [ys[i]], xerr=ci_errors([est], [lo_], [hi_]), fmt="o", color=c,
                    ecolor=c, elinewidth=2.2, capsize=4, markersize=6, zorder=3)
    ax.set_yticks(ys, [r[0] for r in rows])
    if null is not None:
        null_line(ax, null)
    ax.set_xlabel(xlabel)
    set_title(fig, title)
    ax.grid(True, axis="x")
    ax.grid(False, axis="y")
    return fig


def ci_label(cis: Iterable[Any], name: str = "CI", default: str | None = None) -> str:
    """'95% CI resampling professions' for axis labels, from the CI dicts (or unit
    strings) a plot draws ('over pairs' for a non-bootstrap CI such as Wilson's); a dict
    without ``ci_unit`` takes ``default``; '95% CI' when no unit is known."""
    from genderscope.reporting.entry import unit_words

    words = sorted({unit_words(c.get("ci_unit") or default, c.get("method"))
                    if isinstance(c, dict) else unit_words(c or default) for c in cis} - {""})
    return f"95% {name} {'; '.join(words)}" if words else f"95% {name}"
