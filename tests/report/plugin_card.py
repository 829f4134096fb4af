"""A measure as a third-party package would ship it (issue 35): one declaration and its
report card in one module, reached through the ``genderscope.measures`` entry-point
group. The declaration names the card by a string, ``card="plugin_card:CARD"``; nothing
in genderscope names either."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from genderscope.core.declaration import Plan, declaration
from genderscope.core.options import Option, Options
from genderscope.reporting.entry import Card, Headline, MethodCard, from_ci
from genderscope.results import Result

WORDS = ("nurse", "engineer", "teacher", "pilot", "baker")


def _plan(*, n: int = 3, progress: bool = False) -> Plan:
    words = list(WORDS[:n])

    def run(lm: Any) -> Result:
        he = lm.log_likelihood([f"he is a {w}" for w in words])
        she = lm.log_likelihood([f"she is a {w}" for w in words])
        diff = np.array([a.total - b.total for a, b in zip(he, she, strict=True)])
        return Result("plug-in-he-she", {"he_minus_she": {
            "estimate": float(diff.mean()), "ci_low": float(diff.min()),
            "ci_high": float(diff.max())}}, pd.DataFrame({"word": words, "diff": diff}))

    return Plan("plug-in-he-she", "lm", run, inputs=words)


def _headlines(result: Result) -> list[Headline]:
    return [from_ci("mean log P(he ...) − log P(she ...)", result.summary["he_minus_she"],
                    unit="nats")]


CARD = Card(
    name="plug-in-he-she", title="Plug-in he/she (a third-party card)", kinds=("causal",),
    plan=lambda ctx: ("plug-in-he-she", {"n": 2 if ctx.quick else 3}),
    headlines=_headlines, columns={"diff": "he − she (nats, plug-in)"},
    highlights=lambda r: r.items,
    card=MethodCard(definition="Mean log-likelihood difference of 'he/she is a WORD'.",
                    citation="A test plug-in (no paper)."))

PLUG_IN = declaration(
    "plug-in-he-she", _plan, needs="lm", doc="He/she log-likelihood difference.",
    card="plugin_card:CARD",
    options=Options((Option("n", 3, "How many words.", type="int", min=1, max=len(WORDS)),
                     Option("progress", False, "Progress bar.", type="bool", key=False))))

