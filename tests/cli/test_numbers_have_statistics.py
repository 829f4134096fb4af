"""Every number a terminal table prints carries its CI or p-value, or says plainly why it
has none: probe's means over targets, BEC-Pro's male − female headline and its missing
effect sizes, the counterfactual extreme, perplexity's NLL and compare's shares."""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
from rich.console import Console

from genderscope.results import Result


def _text(tables: list[Any]) -> str:
    buf = io.StringIO()
    con = Console(file=buf, width=200, force_terminal=False)
    for t in tables:
        con.print(t)
    return buf.getvalue()


def _ci(est: float, lo: float | None, hi: float | None, n: int) -> dict[str, Any]:
    return {"estimate": est, "ci_low": lo, "ci_high": hi, "n": n, "method": "t interval",
            "ci_unit": "targets"}


def _probe(n: int) -> Result:
    cols = ("fill_bias", "prior_bias", "corrected_bias", "target_fill_bias")
    items = pd.DataFrame({"target": [f"t{i}" for i in range(n)],
                          **{c: [0.1 * (i + 1) for i in range(n)] for c in cols}})
    if n > 1:
        summary = {c: _ci(-0.5738, -2.9943, 1.8466, n) for c in cols}
    else:  # one target: the interval the measure stores is the point itself
        summary = {c: _ci(0.1, 0.1, 0.1, 1) for c in cols}
    return Result("probe", {**summary, "n_targets": n}, items,
                  {"params": {"template": "GGG is a XXX.", "male": "he", "female": "she"},
                   "model": {"kind": "causal"}})


def test_probe_prints_each_mean_with_its_ci() -> None:
    from genderscope.cli.commands.probe import probe_tables

    out = _text(probe_tables(_probe(3), "m"))
    assert "mean [95% CI]" in out
    assert out.count("-0.574 [-2.994, +1.847]") == 4
    out = _text(probe_tables(_probe(1), "m"))
    assert out.count("+0.100 (no CI: one target)") == 4
    assert "[+0.100, +0.100]" not in out
