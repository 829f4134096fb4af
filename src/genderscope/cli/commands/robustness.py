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

import typer
from rich.table import Table

from genderscope.cli.common import (
    JSON_OPTION,
    OUT_OPTION,
    STORE_OPTION,
    command_line,
    console,
    open_store,
)
from genderscope.results import Result, to_json

CLASSIFIER_OPTION = typer.Option(..., "--classifier", help="Classifier SPEC: FILE.joblib|.pkl, "
                                 "module:callable, file.py:callable[()] or hf:MODEL. The "
                                 "first three RUN CODE: a pickle runs code when loaded, and "
                                 "module:name / file.py:name import and execute that Python; "
                                 "give only files and modules you trust.")
DATA_OPTION = typer.Option(..., "--data", help="Texts: .txt (one per line) or .csv/.tsv.")
TEXT_COL_OPTION = typer.Option(None, "--text-column", help="Text column of a CSV/TSV.")
LABEL_COL_OPTION = typer.Option(None, "--label-column", help="Gold label column (optional).")
LIMIT_OPTION = typer.Option(None, "--limit", help="Use only N texts (the first N, or a seeded "
                            "sample with --sample-seed).")
PROGRESS_OPTION = typer.Option(True, "--progress/--no-progress", help="Show a progress bar.")
SAMPLE_SEED_OPTION = typer.Option(None, "--sample-seed", help="Sample --limit texts at random "
                                  "with this seed.")
RESAMPLES_OPTION = typer.Option(10_000, "--resamples", min=100, help="Bootstrap resamples of "
                                "the CIs.")


def _num(x: float | None) -> str:
    """A number, or ``n/a`` for NaN (None once a run went through the store)."""
    return "n/a" if x is None or x != x else f"{x:.3f}"


def _fmt(ci: dict) -> str:
    est = ci.get("estimate")
    if est is None or est != est:
        return "n/a"
    return f"{est:.3f} [{_num(ci.get('ci_low'))}, {_num(ci.get('ci_high'))}]"


def _print(result: Result, as_json: bool, table: Table) -> None:
    if as_json:
        console.print_json(to_json({"run_id": result.metadata["run_id"],
                                    "summary": result.summary}))
        return
    console.print(table)
    console.print(f"saved to {result.metadata['out']} (run {result.metadata['run_id']})")


def run_counterfactual(classifier: str = CLASSIFIER_OPTION, data: Path = DATA_OPTION,
                       text_column: str | None = TEXT_COL_OPTION,
                       label_column: str | None = LABEL_COL_OPTION,
                       limit: int | None = LIMIT_OPTION,
                       sample_seed: int | None = SAMPLE_SEED_OPTION,
                       names: bool = typer.Option(False, "--names/--no-names",
                                                  help="Also swap first names."),
                       pairs: Path | None = typer.Option(None, "--pairs",
                                                         help="Word-pair list for the swapper "
                                                              "[default: packaged EN list]."),
                       examples: int = typer.Option(10, "--examples",
                                                    help="Rows in the examples table."),
                       batch_size: int = typer.Option(64, "--batch-size"),
                       seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
                       resamples: int = RESAMPLES_OPTION,
                       store: Path | None = STORE_OPTION, out: Path | None = OUT_OPTION,
                       as_json: bool = JSON_OPTION,
                       progress: bool = PROGRESS_OPTION) -> None:
    """Counterfactual flip test: swap gendered words, compare the classifier's answers."""
    from genderscope.cli.common import run_measure as run

    open_store(store).close()  # a bad store is refused before the work
    result = run("counterfactual", classifier, batch_size=batch_size, store=store, out=out,
                 save=True, progress=progress, command=command_line(), data=data,
                 text_column=text_column, label_column=label_column, limit=limit,
                 sample_seed=sample_seed, names=names, pairs=pairs, examples=examples,
                 seed=seed, resamples=resamples)
    s = result.summary
    table = Table(title=f"Counterfactual flip test ({s['n_swapped']} of {s['n_texts']} texts "
                        f"had gendered words)")
    for col in ("group", "n", "flip rate", "mean |Δp|", "max |Δp|"):
        table.add_column(col)
    for g in ("all", "m2f", "f2m", "mixed"):
        row = s[g]
        table.add_row(g, str(row["n"]), _fmt(row["flip_rate"]), _fmt(row["mean_abs_delta"]),
                      _num(row["max_abs_delta"]))
    d = s["m2f_minus_f2m"]
    table.add_row("m2f - f2m", "", _fmt(d["flip_rate"]), _fmt(d["mean_abs_delta"]), "")
    _print(result, as_json, table)


def attack(classifier: str = CLASSIFIER_OPTION, data: Path = DATA_OPTION,
           vectors: str = typer.Option("glove-6b-50d", "--vectors",
                                       help="Word vectors: packaged name or file."),
           lm: str = typer.Option("smollm2", "--lm", help="Causal LM for the fluency filter "
                                  "(HF id, folder, .gguf, smollm2) or 'none'."),
           lm_threshold: float = typer.Option(0.25, "--lm-threshold",
                                              help="Keep a substitution when P(altered window)"
                                                   " >= threshold x P(original window)."),
           lm_window: int = typer.Option(3, "--lm-window",
                                         help="Context words on each side of the word."),
           candidates: int = typer.Option(8, "--candidates",
                                          help="Analogy candidates per word (top-n cosine)."),
           min_similarity: float = typer.Option(0.0, "--min-similarity",
                                                help="Drop candidates below this cosine."),
           directions: str = typer.Option("man->woman,woman->man", "--directions"),
           pop_size: int = typer.Option(60, "--pop-size", min=2,
                                        help="Population of the genetic search (Alzantot "
                                             "et al. 2018 and TextAttack: 60)."),
           generations: int = typer.Option(20, "--generations", min=1,
                                           help="Generations at most (paper: 20)."),
           max_queries: int = typer.Option(2000, "--max-queries", min=1,
                                           help="Distinct texts one attack may have "
                                                "classified, the original included (a cap "
                                                "of genderscope's; the paper has none)."),
           target: str | None = typer.Option(None, "--target",
                                             help="Targeted attack: label to reach."),
           text_column: str | None = TEXT_COL_OPTION,
           limit: int | None = LIMIT_OPTION, sample_seed: int | None = SAMPLE_SEED_OPTION,
           examples: int = typer.Option(10, "--examples"),
           batch_size: int = typer.Option(64, "--batch-size"),
           seed: int = typer.Option(0, "--seed", help="Seed of the genetic search and "
                                    "of the bootstrap CIs."),
           resamples: int = RESAMPLES_OPTION,
           store: Path | None = STORE_OPTION, out: Path | None = OUT_OPTION,
           as_json: bool = JSON_OPTION, progress: bool = PROGRESS_OPTION) -> None:
    """Genetic gender-analogy attack (Alzantot et al. 2018) on a classifier."""
    from genderscope.cli.common import run_measure as run

    open_store(store).close()  # a bad store is refused before the work
    result = run("attack", classifier, batch_size=batch_size, store=store,
                 out=out, save=True, progress=progress, command=command_line(), data=data,
                 vectors=vectors, lm=lm, lm_threshold=lm_threshold, lm_window=lm_window,
                 candidates=candidates, min_similarity=min_similarity,
                 directions=directions, pop_size=pop_size, generations=generations,
                 max_queries=max_queries, target=target, text_column=text_column,
                 limit=limit, sample_seed=sample_seed, examples=examples, seed=seed,
                 resamples=resamples)
    dirs = result.metadata["params"]["directions"]
    s = result.summary
    table = Table(title=f"Gender-analogy attack on {s['n_texts']} texts")
    for col in ("direction", "attacked", "not attackable", "success rate",
                "words/success", "queries/attack", "s/attack"):
        table.add_column(col)
    for d in dirs:
        r = s[d]
        table.add_row(d, str(r["n_attacked"]), str(r["n_not_attackable"]),
                      _fmt(r["success_rate"]), _fmt(r["words_changed_per_success"]),
                      _fmt(r["queries_per_attack"]), _fmt(r["seconds_per_attack"]))
    if "asymmetry_success_rate" in s:
        table.add_row("man->woman - woman->man", "", "", _fmt(s["asymmetry_success_rate"]),
                      "", "", "")
    _print(result, as_json, table)


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    run_app.command("counterfactual")(run_counterfactual)
    app.command("attack")(attack)
