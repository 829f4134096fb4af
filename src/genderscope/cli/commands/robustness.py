"""Classifier robustness: the terminal tables of ``genderscope run counterfactual`` and
``genderscope attack`` (their commands are made from the declarations; the classifier
SPECs: :func:`genderscope.models.classifier.load_classifier`).
"""

from __future__ import annotations

import typer
from rich.table import Table

from genderscope.cli.common import ci_text, fmt, new_table
from genderscope.results import Result
from genderscope.text_blocks import plural

MAX_HEADER = "max |Δp|*"
MAX_CAPTION = "* max |Δp| has no CI: it is an extreme, for which no interval is meaningful."
"""The largest change has no interval (the bootstrap of a maximum is not consistent:
Bickel & Freedman 1981); the header points to the caption that says so, short enough to
keep the table whole at 80 columns."""


def counterfactual_tables(result: Result) -> list[Table]:
    """Flip rates and mean probability changes by swap direction, each with its 95 % CI;
    the largest change is an extreme, for which no interval is meaningful (the caption
    says so)."""
    s = result.summary
    table = new_table(f"Counterfactual flip test ({s['n_swapped']} of "
                      f"{plural(s['n_texts'], 'text')} had gendered words)",
                      ("group", "n", "flip rate", "mean |Δp|", MAX_HEADER),
                      caption=MAX_CAPTION)
    for g in ("all", "m2f", "f2m", "mixed"):
        row = s[g]
        table.add_row(g, str(row["n"]), *(ci_text(row[k], missing="n/a") for k in
                                          ("flip_rate", "mean_abs_delta")),
                      fmt(row["max_abs_delta"], missing="n/a"))
    d = s["m2f_minus_f2m"]
    table.add_row("m2f - f2m", "", *(ci_text(d[k], missing="n/a") for k in
                                     ("flip_rate", "mean_abs_delta")), "")
    return [table]


def attack_tables(result: Result) -> list[Table]:
    """The attack's success by direction."""
    dirs = result.metadata["params"]["directions"]
    s = result.summary
    table = new_table(f"Gender-analogy attack on {plural(s['n_texts'], 'text')}",
                      ("direction", "attacked", "not attackable", "success rate",
                       "words/success", "queries/attack", "s/attack"))
    for d in dirs:
        r = s[d]
        table.add_row(d, str(r["n_attacked"]), str(r["n_not_attackable"]),
                      *(ci_text(r[k], missing="n/a") for k in (
                          "success_rate", "words_changed_per_success", "queries_per_attack",
                          "seconds_per_attack")))
    if "asymmetry_success_rate" in s:
        table.add_row("man->woman - woman->man", "", "",
                      ci_text(s["asymmetry_success_rate"], missing="n/a"), "", "", "")
    return [table]


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    """``genderscope attack`` (also ``run attack``); ``run counterfactual`` and ``run
    attack`` are made from their declarations (:func:`genderscope.cli.common.measure_command`)."""
    from genderscope.cli.common import measure_command

    app.command("attack")(measure_command("attack"))
