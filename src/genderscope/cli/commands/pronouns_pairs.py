"""The terminal tables of the pronoun, grammaticality and sentence-pair measures:
``genderscope run winobias | dawinobias | abc | crows-pairs | stereoset``, whose commands
:func:`genderscope.cli.common.measure_command` makes from their declarations (each
declaration names its table here, ``table="genderscope.cli.commands.pronouns_pairs:..."``).
"""

from __future__ import annotations

from rich.table import Table

from genderscope.cli.common import ESTIMATE_COLUMNS, ci_text, fmt, new_table, p_text
from genderscope.results import Result
from genderscope.text_blocks import plural


def wino_tables(result: Result) -> list[Table]:
    s = result.summary
    t = new_table(f"{result.method}: pronoun prediction, {plural(s['n_items'], 'sentence')} "
                  f"({s['n_excluded_multi_pronoun']} multi-pronoun excluded)",
                  ESTIMATE_COLUMNS, labels=1)
    for key, label in (("main_effect", "main effect log2(acc pro / acc anti)"),
                       ("main_effect_macro_f1", "log2(macro-F1 pro / anti)"),
                       ("accuracy_pro", "accuracy pro"), ("accuracy_anti", "accuracy anti"),
                       ("macro_f1_pro", "macro-F1 pro"), ("macro_f1_anti", "macro-F1 anti"),
                       ("difference_pro_minus_anti", "accuracy pro - anti"),
                       ("share_male_predictions", "share of male predictions")):
        t.add_row(label, ci_text(s.get(key)))
    n = new_table("Nuance: by pronoun gender",
                  ("condition", "pronoun", "n", "accuracy [95% CI]", "F1"))
    for _, r in result.tables["nuance"].iterrows():
        n.add_row(r.condition, r.pronoun_gender, str(int(r.n)),
                  f"{fmt(r.accuracy)} [{fmt(r.ci_low)}, {fmt(r.ci_high)}]", fmt(r.f1))
    return [t, n]


def abc_tables(result: Result) -> list[Table]:
    s = result.summary
    t = new_table(f"ABC: {s['n_groups']} groups ({s['n_invalid_skipped']} malformed skipped)",
                  ESTIMATE_COLUMNS, labels=1)
    t.add_row("main effect log2(median rel. ppl F / M)", ci_text(s["main_effect"]))
    t.add_row("  same, common token count (length-robust)", ci_text(s["main_effect_common_length"]))
    for st in ("female", "male"):
        if f"main_effect_{st}_occupations" in s:
            t.add_row(f"  {st}-stereotyped occupations",
                      ci_text(s[f"main_effect_{st}_occupations"]))
    t.add_row("mean ll(male) - ll(female), nats", ci_text(s["mean_ll_male_minus_female"]))
    t.add_row("reflexive preferred (total ll)", ci_text(s["reflexive_preferred_ll"]))
    t.add_row("reflexive preferred (perplexity)", ci_text(s["reflexive_preferred_ppl"]))
    n = new_table("Nuance: occupation stereotype x pronoun",
                  ("occupations", "pronoun", "n", "median rel. ppl (IQR)", "median Δll",
                   "reflexive preferred"))
    for _, r in result.tables["nuance"].iterrows():
        n.add_row(str(r.stereotype), r.pronoun, str(int(r.n)),
                  f"{fmt(r.median_rel_ppl)} ({fmt(r.q1)}, {fmt(r.q3)})",
                  fmt(r.median_delta_ll), fmt(r.reflexive_preferred_share))
    return [t, n]


def crows_tables(result: Result) -> list[Table]:
    s = result.summary
    t = new_table(f"CrowS-Pairs: % pairs where the stereotypical sentence is preferred "
                  f"({plural(s['n_pairs'], 'pair')}, {plural(s['n_ties'], 'tie')})",
                  ("bias type", "n", "% stereotypical [95% CI]", "p", "p Holm"), labels=1,
                  caption="p: exact binomial test of the share vs 50 %; p Holm: adjusted over "
                          "the bias types of this run")
    overall = s["percent_stereotypical"]
    t.add_row("[bold]all[/bold]", str(s["n_pairs"]), ci_text(overall, 1),
              p_text(overall.get("p_value")), "")
    # from the summary, not the by_bias_type table: printing a stored run then needs
    # neither pandas nor pyarrow (the table is the same numbers)
    by_type = sorted((s.get("by_bias_type") or {}).items(), key=lambda kv: -kv[1]["n"])
    for bias_type, d in by_type:  # largest first, as the table
        name = f"[bold]{bias_type}[/bold]" if bias_type == "gender" else bias_type
        t.add_row(name, str(int(d["n"])), ci_text(d, 1), p_text(d.get("p_value")),
                  p_text(d.get("p_adjusted")))
    return [t]


def stereoset_tables(result: Result) -> list[Table]:
    s = result.summary
    t = new_table("StereoSet intrasentence (ideal: LMS 100, SS 50, ICAT 100)",
                  ("domain", "n", "targets", "LMS [95% CI]", "SS [95% CI]", "ICAT [95% CI]",
                   "p (Holm)"), labels=1,
                  caption="95% CIs over target terms; p: t-test of SS vs 50 over targets, "
                          "Holm over the bias types")
    rows = [("all", s["overall"])] + sorted(s["by_bias_type"].items())
    for name, m in rows:
        label = f"[bold]{name}[/bold]" if name in ("all", "gender") else name
        ss = m["ss"]
        p = "–" if ss.get("p_value") is None else fmt(ss["p_value"], 3) + (
            f" ({fmt(ss['p_adjusted'], 3)})" if ss.get("p_adjusted") is not None else "")
        t.add_row(label, str(m["n_items"]), str(m.get("n_targets", "")), ci_text(m["lms"], 1),
                  ci_text(ss, 1), ci_text(m["icat"], 1), p)
    return [t]
