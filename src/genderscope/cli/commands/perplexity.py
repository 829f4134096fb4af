"""The terminal table of ``genderscope run perplexity``: perplexity of held-out text (the
language-modelling cost of a debiased model; :mod:`genderscope.measures.perplexity`); the
command is made from the declaration (:func:`genderscope.cli.common.measure_command`)."""

from __future__ import annotations

import math

from rich.table import Table

from genderscope.cli.common import ESTIMATE_COLUMNS, new_table
from genderscope.results import Result


def table(result: Result) -> list[Table]:
    """Perplexity with its percentile-bootstrap CI over sentences, and the NLL per token
    (nats) = log perplexity, whose CI is the log of that interval (a percentile interval
    respects a monotone map: Efron & Tibshirani 1993, ch. 13)."""
    s = result.summary
    what = "perplexity" if "perplexity" in s else "pseudo-perplexity"
    t = new_table(f"{what}: {s['n_sentences']} held-out sentences, {s['n_tokens']} tokens",
                  ESTIMATE_COLUMNS, labels=1)
    ci = s[what]
    lo, hi = ci.get("ci_low"), ci.get("ci_high")
    nll = s["nll_per_token"]
    if _positive(lo) and _positive(hi) and hi > lo:  # type: ignore[operator]
        t.add_row(what, f"{ci['estimate']:.2f} [{lo:.2f}, {hi:.2f}]")
        t.add_row("NLL per token (nats)",
                  f"{nll:.4f} [{math.log(lo):.4f}, {math.log(hi):.4f}]")  # type: ignore[arg-type]
        return [t]
    why = "no CI: " + (ci.get("no_interval") or ("under 2 sentences" if s["n_sentences"] < 2
                                                 else "no spread to resample"))
    t.add_row(what, f"{ci['estimate']:.2f} ({why})")
    t.add_row("NLL per token (nats)", f"{nll:.4f} ({why})")
    return [t]


def _positive(x: object) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0
