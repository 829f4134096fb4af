"""What a report entry is: the contract between a measure's report card and the page.

A card module (``reporting/cards/<name>.py``) builds one :class:`Card` per entry from these
types (fields: docs/report.md, "Adding a measure to the report"); the runner runs its
plans through :func:`genderscope.engine.run`. No entry or registry is imported here, so
card modules import this freely.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from genderscope.core.kinds import MODEL
from genderscope.datasets.locations import find_benchmark
from genderscope.results import Result

CARD_KINDS: tuple[str, ...] = (*MODEL, "captions")
"""What a card's ``kinds`` may name: the adapter kinds (:data:`genderscope.core.kinds.MODEL`)
and ``captions``: a measure of caption corpora (bias amplification), fed by no model."""
LANGS = ("en", "da")


@dataclass(frozen=True)
class Context:
    """Settings shared by every measure of one report."""

    lang: str = "en"
    quick: bool = False
    full: bool = False
    """Every benchmark in full (the default on a GPU; ``--full``)."""
    seed: int = 0
    data_dir: Path | None = None
    progress: bool = False
    texts: Path | None = None
    """Texts for classifier measures (``.txt``/``.csv``), if any."""
    decoding: tuple[tuple[str, Any], ...] = ()
    """Decoding options the chat cards pass on over the report's own (48 new tokens,
    greedy), as ``(name, value)`` pairs: ``max_new_tokens``, ``temperature``, ``top_p``,
    ``sample_seed``, ``repeat_penalty``, ``extra_body`` (JSON text)."""

    def size(self, default: int | None, quick: int) -> int | None:
        """A card's subset size: ``None`` (every item) in full, ``quick`` with --quick,
        else ``default`` (the seeded CPU-sized subset)."""
        if self.full:
            return None
        return quick if self.quick else default

    @property
    def n_resamples(self) -> int:
        return 1_000 if self.quick else 10_000

    n_permutations = n_resamples

    def data(self, folder: str) -> Path:
        """The benchmark folder ``folder``: under ``data_dir`` (else ``$GENDERSCOPE_DATA``),
        else packaged or fetched (:func:`genderscope.datasets.locations.find_benchmark`)."""
        roots = [Path(self.data_dir)] if self.data_dir is not None else None
        return find_benchmark(folder, roots)


@dataclass
class Headline:
    """One headline number of a measure, with how to read it."""

    label: str
    estimate: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    null: float | None = 0.0
    """Value meaning 'no bias' (None: not a bias number, e.g. a language-modelling score)."""
    unit: str = ""
    positive: str = "leans male"
    """What an estimate above ``null`` means, in plain words."""
    negative: str = "leans female"
    thresholds: tuple[float, float, float] | None = None
    """|estimate - null| at which the effect reads small, moderate, large."""
    n: int | None = None
    note: str = ""
    primary: bool = True
    """Shown in the page's top table (secondary numbers only in the measure's section)."""
    p_adjusted: float | None = None
    """p-value adjusted for the other tests of its family (``p_adjust_method``), if any."""
    p_adjust_method: str | None = None
    """``holm`` (Holm 1979) or ``bh`` (Benjamini & Hochberg 1995)."""
    family: str | None = None
    """The family of tests the adjustment ran over (e.g. per profession group)."""
    ci_unit: str | None = None
    """What the CI resamples (professions, words, groups, pairs, ...)."""
    ci_method: str | None = None
    """How the CI was made (e.g. ``percentile bootstrap``, ``wilson``), if stated."""
    n_items: int | None = None
    """Items the number is computed from, after exclusions (None: as ``n``)."""
    items_unit: str | None = None
    """What ``n_items`` counts when it is not the scored items themselves (e.g. BEC-Pro's
    ``sentence pairs``); None: the scored items, some perhaps excluded."""
    n_units: int | None = None
    """How many ``ci_unit`` units the CI resamples (None: one per item)."""
    caveat: str | None = None
    """The interval's caveat (``CI.caveat``: its values outside its calibrated range)."""
    no_interval: str | None = None
    """Why there is no interval (e.g. too few scenarios to give one); None otherwise."""
    no_estimate: str | None = None
    """Why there is no estimate (e.g. too few items for a slope); None otherwise."""

    @property
    def has_ci(self) -> bool:
        return _finite(self.ci_low) and _finite(self.ci_high)

    @property
    def adjusted(self) -> bool:
        """Whether a multiplicity-adjusted p-value decides the reading."""
        return _finite(self.p_adjusted)

    def evidence(self) -> bool | None:
        """True: the adjusted p < .05 when the number belongs to a family of tests, else
        the 95 % CI excludes the null (or p < .05); False: not; None: no null or no
        uncertainty to judge by."""
        if self.null is None or not _finite(self.estimate):
            return None
        if self.adjusted:
            return self.p_adjusted < 0.05  # type: ignore[operator]
        if self.has_ci:
            return self._ci_excludes_null()
        if _finite(self.p_value):
            return self.p_value < 0.05  # type: ignore[operator]
        return None

    def strength(self) -> str:
        if self.thresholds is None or not _finite(self.estimate) or self.null is None:
            return ""
        d = abs(self.estimate - self.null)  # type: ignore[operator]
        small, moderate, large = self.thresholds
        if d >= large:
            return "large"
        if d >= moderate:
            return "moderate"
        if d >= small:
            return "small"
        return "negligible"

    def direction(self) -> str:
        if self.null is None or not _finite(self.estimate):
            return ""
        return self.positive if self.estimate > self.null else self.negative  # type: ignore

    def ci_unit_words(self) -> str:
        """'resampling professions' (bootstrap), 'over pairs' (e.g. a Wilson interval), or
        '' when the CI's unit is not known."""
        return unit_words(self.ci_unit, self.ci_method)

    def ci_text(self) -> str:
        """'[low, high]' with the resampling unit; '–' without a CI."""
        if not self.has_ci:
            return self.no_interval or "–"
        unit = self.ci_unit_words()
        return f"[{fmt(self.ci_low)}, {fmt(self.ci_high)}]" + (f", {unit}" if unit else "")

    def adjusted_p_words(self) -> str:
        """'Holm-adjusted p = 0.012' (for readings)."""
        method = _ADJUST_WORDS.get(str(self.p_adjust_method), self.p_adjust_method or "")
        pv = fmt_p(self.p_adjusted)
        return f"{method + '-' if method else ''}adjusted p {'' if pv.startswith('<') else '= '}" \
               f"{pv}"

    def p_text(self) -> str:
        """'0.004 (Holm 0.012)': the raw p and, in a family of tests, the adjusted one."""
        raw = fmt_p(self.p_value) if self.p_value is not None else "–"
        if not self.adjusted:
            return raw
        method = _ADJUST_WORDS.get(str(self.p_adjust_method), self.p_adjust_method or "adj.")
        return f"{raw} ({method} {fmt_p(self.p_adjusted)})"

    def _ci_excludes_null(self) -> bool:
        """The CI excludes the null, and is not a degenerate interval at the null
        (rounding noise)."""
        lo, hi = float(self.ci_low), float(self.ci_high)  # type: ignore[arg-type]
        return not (lo <= self.null <= hi) and \
            max(abs(lo - self.null), abs(hi - self.null)) >= 1e-9  # type: ignore[operator]

    def reading(self) -> str:
        """Plain-language reading: direction and strength, or no evidence of bias. In a
        family of tests the multiplicity-adjusted p decides, and the reading says so. Then
        the interval's caveat, when it has one."""
        text = self._reading()
        return f"{text} Caveat: {self.caveat}." if self.caveat else text

    def _reading(self) -> str:
        if not _finite(self.estimate):
            return f"Not estimable on these items ({self.no_estimate})." if \
                self.no_estimate else "Not estimable on these items."
        if self.null is None:
            return self.note or "Context number, not a bias score."
        ev = self.evidence()
        unit = self.ci_unit_words()
        ci = f"95% CI ({unit})" if unit else "95% CI"
        if ev is False:
            raw = (self._ci_excludes_null() if self.has_ci else
                   _finite(self.p_value) and self.p_value < 0.05)  # type: ignore[operator]
            if self.adjusted and raw:
                base = ("No evidence of bias after correcting for multiple tests "
                        f"({self.adjusted_p_words()}).")
                base += (f" The unadjusted {ci} excludes {fmt(self.null)}." if self.has_ci
                         else f" Unadjusted p = {fmt_p(self.p_value)}.")
            elif self.has_ci:
                base = f"No evidence of bias: the {ci} includes {fmt(self.null)}" + (
                    f" ({self.adjusted_p_words()})." if self.adjusted else ".")
            else:
                base = "No evidence of bias (" + (self.adjusted_p_words() if self.adjusted
                                                  else "p ≥ 0.05") + ")."
            return base + (f" Point estimate {self.direction()}." if self.direction() else "")
        strength = self.strength()
        s = f"{strength.capitalize()} bias: " if strength and strength != "negligible" else (
            "Bias, though negligible in size: " if strength == "negligible" else "Bias: ")
        if ev is None:  # no size graded without an interval or p to read it by
            s = (f"Direction only, {self.no_interval}: " if self.no_interval else
                 "Direction only (no uncertainty estimate): ")
        out = f"{s}{self.direction()}"
        if ev:
            pv = fmt_p(self.p_value)
            if self.adjusted:
                out += f" ({self.adjusted_p_words()})"
            elif self.has_ci:
                out += f" (95% CI excludes {fmt(self.null)}{'; ' + unit if unit else ''})"
            else:
                out += f" (p {pv})" if pv.startswith("<") else f" (p = {pv})"
        return out + "."

    def as_dict(self) -> dict[str, Any]:
        why = {k: getattr(self, k) for k in ("no_interval", "no_estimate") if getattr(self, k)}
        return {**{k: getattr(self, k) for k in _AS_DICT}, **why, "evidence": self.evidence(),
                "reading": self.reading()}


@dataclass(frozen=True)
class MethodCard:
    """What the report prints about a measure."""

    definition: str
    citation: str
    caveats: tuple[str, ...] = ()
    subset: str = ""
    """Default (and --quick) subset, in words."""
    url: str = ""


@dataclass
class Paired:
    """Item-level form of a measure's first headline, for comparing two models on the same
    items: ``frame`` (index: item key, numeric columns) and ``statistic`` (array of the
    frame's rows -> the headline estimate). The comparison's bootstrap resamples rows, or
    whole ``clusters`` (a label per row, same index: e.g. the profession of each BEC-Pro
    sentence pair) when rows share a unit that varies; ``unit`` names what is resampled."""

    frame: pd.DataFrame
    statistic: Callable[[np.ndarray], float]
    unit: str = "items"
    clusters: pd.Series | None = None
    smooth: bool = True
    """False for a median or quantile: no jackknife-t CI, the percentile bootstrap always."""
    standardize: Callable[[np.ndarray], np.ndarray] | None = None
    """Per-model affine map the statistic ignores (d: z-score), applied before a swap."""


@dataclass
class Card:
    """A report card: what the report shows of one measure (see the module docstring)."""

    name: str
    title: str
    kinds: tuple[str, ...]
    headlines: Callable[[Result], list[Headline]]
    card: MethodCard
    langs: tuple[str, ...] | None = None
    highlights: Callable[[Result], pd.DataFrame | None] = field(default=lambda r: None)
    plot: Callable[[Result], Any] | None = None
    paired: Callable[[Result], Paired | None] = field(default=lambda r: None)
    """Item-level headline for model comparisons (None: not comparable item by item)."""
    needs: Callable[[Context], str | None] = field(default=lambda ctx: None)
    """Reason the measure cannot run in this context (missing input), else None."""
    default: bool = True
    """Run when no --measure is given (False: only on request, e.g. slow ones)."""
    plan: Callable[[Context], tuple[str, dict[str, Any]]] | None = None
    """``ctx -> (measure, options)`` for :func:`genderscope.engine.run` (see above)."""
    plans: Callable[[Context], list[tuple[str, dict[str, Any]]]] | None = None
    """Several plans (WEAT 6, 7, 8: one per test), each run and stored on its own;
    ``combine(results, ctx)`` makes the entry's Result of their Results."""
    combine: Callable[[list[Result], Context], Result] | None = None
    columns: dict[str, str] = field(default_factory=dict)
    """Its item columns' names where they differ from ``reporting/columns.COLUMNS``'s."""

    def not_applicable(self, kind: str, ctx: Context) -> str | None:
        """Why the measure does not apply to a model of ``kind`` in ``ctx``, or None."""
        if kind not in self.kinds:
            return f"applies to {' / '.join(_KIND_WORDS.get(k, k) for k in self.kinds)}, " \
                   f"not to {_KIND_WORDS.get(kind, kind)}"
        if self.langs is not None and ctx.lang not in self.langs:
            return f"has no {ctx.lang!r} data (languages: {', '.join(self.langs)})"
        return self.needs(ctx)


_ADJUST_WORDS = {"holm": "Holm", "bh": "Benjamini-Hochberg"}
_AS_DICT = ("label", "estimate", "ci_low", "ci_high", "p_value", "null", "unit", "n",
            "p_adjusted", "p_adjust_method", "family", "ci_unit", "ci_method", "n_items",
            "items_unit", "n_units")
"""The fields of :meth:`Headline.as_dict`, in its order (then its evidence and reading)."""

_KIND_WORDS = {"masked": "masked LMs", "causal": "causal LMs", "vectors": "word vectors",
               "encoder": "sentence encoders", "classifier": "classifiers",
               "captions": "caption corpora"}


# -- small formatting helpers shared by the cards and the page -------------------------
def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def fmt(x: Any, nd: int | None = None) -> str:
    """A number for people: 3 significant digits by default; '–' when missing."""
    if not _finite(x):
        return "–"
    v = float(x)
    if nd is not None:
        return f"{v:.{nd}f}"
    if abs(v) < 1e-12:
        return "0"
    if v == int(v) and abs(v) < 1e6:
        return str(int(v))
    mag = abs(v)
    if mag >= 100:
        return f"{v:.1f}"
    if mag >= 1:
        return f"{v:.2f}"
    if mag >= 0.01:
        return f"{v:.3f}"
    return f"{v:.2g}"


def fmt_p(p: Any) -> str:
    if not _finite(p):
        return "–"
    p = float(p)
    return "< 0.001" if p < 0.001 else f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def from_ci(label: str, d: dict[str, Any] | None, *, ci_unit_default: str | None = None,
            **kw: Any) -> Headline:
    """A Headline from a summary ``CI.as_dict()`` entry, with its multiplicity fields
    (``p_adjusted``, ``p_adjust_method``, ``family``) and ``ci_unit`` when present;
    ``ci_unit_default`` is what the card knows the measure resamples when the summary
    does not say."""
    d = d or {}
    fields = {k: d.get(k) for k in ("p_value", "n", "caveat", "no_interval", "no_estimate",
                                    *MULTIPLICITY_KEYS)}
    fields["ci_unit"] = fields["ci_unit"] or ci_unit_default
    fields["ci_method"] = d.get("method")
    # a CI dict counts items in ``n`` (and its clusters in ``n_units``), or its units in
    # ``n`` and the items in ``n_items`` (StereoSet's target means)
    fields["n_items"] = d.get("n_items", d.get("n"))
    fields["n_units"] = d.get("n_units") or (d.get("n") if "n_items" in d else None)
    fields.update(kw)
    return Headline(label=label, estimate=d.get("estimate"), ci_low=d.get("ci_low"),
                    ci_high=d.get("ci_high"), **fields)


MULTIPLICITY_KEYS = ("p_adjusted", "p_adjust_method", "family", "ci_unit")
"""Keys of a summary test or CI entry that a Headline carries over."""


def unit_words(unit: Any, method: Any = None) -> str:
    """'resampling UNIT' for a bootstrap CI (or one whose method is not stated), 'over
    UNIT' for others (Wilson); '' without a unit."""
    if not unit or str(unit) in ("nan", "None"):
        return ""
    if method is None or str(method) in ("nan", "None") or "bootstrap" in str(method):
        return f"resampling {unit}"
    return f"over {unit}"
