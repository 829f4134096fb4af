"""Classifier robustness commands: ``genderscope attack`` and ``genderscope run counterfactual``.

Classifier SPEC (``--classifier``), see :func:`genderscope.models.classifier.load_classifier`:

- ``model.joblib`` / ``model.pkl``: a pickled scikit-learn estimator/pipeline with
  ``predict_proba`` (only load pickles you trust);
- ``package.module:name`` or ``path/to/file.py:name``: a callable
  ``texts -> probabilities`` or an object with ``predict_proba``;
  ``...:name()`` calls a zero-argument factory first;
- ``hf:MODEL``: a Hugging Face text-classification model id or folder.

Data (``--data``): ``.txt`` one text per line, or ``.csv``/``.tsv`` with a header
(text column ``--text-column``, default ``text``/``tweet``/``sentence``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from genderscope.cli.common import (
    JSON_OPTION,
    OUT_OPTION,
    PROGRESS_OPTION,
    STORE_OPTION,
    ci_text,
    command_line,
    console,
    fmt,
    open_store,
)
from genderscope.cli.declared import with_declared_options
from genderscope.results import Result, to_json
from genderscope.text_blocks import plural

CLASSIFIER_OPTION = typer.Option(..., "--classifier", help="Classifier SPEC: FILE.joblib|.pkl, "
                                 "module:callable, file.py:callable[()] or hf:MODEL. The "
                                 "first three RUN CODE: a pickle runs code when loaded, and "
                                 "module:name / file.py:name import and execute that Python; "
                                 "give only files and modules you trust.")


def _print(result: Result, as_json: bool, table: Table) -> None:
    if as_json:
        console.print_json(to_json({"run_id": result.metadata["run_id"],
                                    "summary": result.summary}))
        return
    console.print(table)
    console.print(f"saved to {result.metadata['out']} (run {result.metadata['run_id']})")


def counterfactual_tables(result: Result) -> list[Table]:
    """Flip rates and probability changes by swap direction."""
    s = result.summary
    table = Table(title=f"Counterfactual flip test ({s['n_swapped']} of "
                        f"{plural(s['n_texts'], 'text')} had gendered words)")
    for col in ("group", "n", "flip rate", "mean |Δp|", "max |Δp|"):
        table.add_column(col)
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
    table = Table(title=f"Gender-analogy attack on {plural(s['n_texts'], 'text')}")
    for col in ("direction", "attacked", "not attackable", "success rate",
                "words/success", "queries/attack", "s/attack"):
        table.add_column(col)
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


@with_declared_options("counterfactual")  # --data, --limit, ... as declared
def run_counterfactual(classifier: str = CLASSIFIER_OPTION,
                       batch_size: int = typer.Option(64, "--batch-size"),
                       store: Path | None = STORE_OPTION, out: Path | None = OUT_OPTION,
                       as_json: bool = JSON_OPTION,
                       progress: bool = PROGRESS_OPTION, **options: Any) -> None:
    """Counterfactual flip test: swap gendered words, compare the classifier's answers."""
    from genderscope.cli.common import run_measure as run

    open_store(store).close()  # a bad store is refused before the work
    result = run("counterfactual", classifier, batch_size=batch_size, store=store, out=out,
                 save=True, progress=progress, command=command_line(), **options)
    _print(result, as_json, counterfactual_tables(result)[0])


@with_declared_options("attack")  # --data, --vectors, --lm, ... as declared
def attack(classifier: str = CLASSIFIER_OPTION,
           batch_size: int = typer.Option(64, "--batch-size"),
           store: Path | None = STORE_OPTION, out: Path | None = OUT_OPTION,
           as_json: bool = JSON_OPTION, progress: bool = PROGRESS_OPTION,
           **options: Any) -> None:
    """Genetic gender-analogy attack (Alzantot et al. 2018) on a classifier."""
    from genderscope.cli.common import run_measure as run

    open_store(store).close()  # a bad store is refused before the work
    result = run("attack", classifier, batch_size=batch_size, store=store,
                 out=out, save=True, progress=progress, command=command_line(), **options)
    _print(result, as_json, attack_tables(result)[0])


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    run_app.command("counterfactual")(run_counterfactual)
    app.command("attack")(attack)
