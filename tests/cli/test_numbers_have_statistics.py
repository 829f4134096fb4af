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
    assert "the mean's CI is over targets (t interval)" in " ".join(out.split())
    out = _text(probe_tables(_probe(1), "m"))
    assert out.count("+0.100 (no CI: one target)") == 4
    assert "[+0.100, +0.100]" not in out


def _bec_pro(r: float | None, diff: dict[str, Any]) -> Result:
    group = {"estimate": 0.5, "ci_low": -0.25, "ci_high": 1.25, "n": 4}
    test = {"n_professions": 2, "n_pairs": 36, "test": "too few units to test",
            "p_value": r, "p_adjusted": r, "effect_size_r": r}
    return Result("bec-pro", {"association_by_group": {"male": {"male": group}},
                              "male_vs_female": {"male": test}, "male_minus_female": diff},
                  pd.DataFrame(), {"data": {"n_rows": 40}, "params": {"model_kind": "causal"}})


def test_bec_pro_prints_its_headline_and_why_an_effect_size_is_missing() -> None:
    from genderscope.cli.commands.association import bec_pro_tables

    diff = {"estimate": 0.3501, "ci_low": -0.4993, "ci_high": 1.1995,
            "ci_unit": "professions x person words", "n_units": 12}
    # NaN as a fresh run holds it, None as a stored run reads it back
    for missing in (float("nan"), None):
        out = _text(bec_pro_tables(_bec_pro(missing, diff)))
        assert "male − female person words (nats): 0.350 [-0.499, 1.200], 95% CI " \
               "resampling professions x person words" in out
        assert "n/a (too few units to test)" in out
        assert "nan" not in out and "None" not in out
    out = _text(bec_pro_tables(_bec_pro(None, {**diff, "ci_low": None, "ci_high": None,
                                               "n_units": 2})))
    assert "0.350 (no CI: too few units, 2 professions x person words)" in out


def test_counterfactual_max_says_why_it_has_no_ci() -> None:
    from genderscope.cli.commands.robustness import counterfactual_tables

    ci = {"estimate": 0.1, "ci_low": 0.05, "ci_high": 0.2}
    row = {"n": 5, "flip_rate": ci, "mean_abs_delta": ci, "max_abs_delta": 0.4}
    s = {"n_swapped": 5, "n_texts": 6, "all": row, "m2f": row, "f2m": row, "mixed": row,
         "m2f_minus_f2m": {"flip_rate": ci, "mean_abs_delta": ci}}
    out = _text(counterfactual_tables(Result("counterfactual", s, pd.DataFrame(), {})))
    assert "max |Δp|*" in out
    assert "* max |Δp| has no CI: it is an extreme" in " ".join(out.split())
    assert out.count("0.100 [0.050, 0.200]") == 10


def _perplexity(n: int, lo: float, hi: float) -> Result:
    return Result("perplexity", {"perplexity": {"estimate": 20.0, "ci_low": lo, "ci_high": hi},
                                 "nll_per_token": 2.9957, "n_sentences": n, "n_tokens": 9 * n},
                  pd.DataFrame(), {})


def test_perplexity_nll_per_token_has_the_log_of_the_perplexity_ci() -> None:
    import math

    from genderscope.cli.commands.perplexity import table

    out = _text(table(_perplexity(50, 18.0, 22.5)))
    assert "20.00 [18.00, 22.50]" in out
    assert f"2.9957 [{math.log(18.0):.4f}, {math.log(22.5):.4f}]" in out  # [2.8904, 3.1135]
    out = _text(table(_perplexity(1, 20.0, 20.0)))  # one sentence: the point, no interval
    assert "20.00 (no CI: under 2 sentences)" in out
    assert "2.9957 (no CI: under 2 sentences)" in out


def test_a_stored_reason_for_no_interval_is_the_one_printed() -> None:
    from genderscope.cli.commands.perplexity import table
    from genderscope.cli.commands.probe import probe_tables

    nan, why = float("nan"), "no spread: all 3 targets give the same value"
    r = _probe(3)
    r.summary["prior_bias"] = {**_ci(0.35, nan, nan, 3), "no_interval": why}
    assert f"+0.350 (no CI: {why})" in _text(probe_tables(r, "m"))
    p = _perplexity(4, nan, nan)
    p.summary["perplexity"]["no_interval"] = why
    assert f"2.9957 (no CI: {why})" in _text(table(p))
