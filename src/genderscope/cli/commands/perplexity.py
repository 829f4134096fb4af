"""``genderscope run perplexity``: perplexity of held-out text (the language-modelling cost
of a debiased model; :mod:`genderscope.measures.perplexity`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from genderscope.cli.common import (
    DEVICE_OPTION,
    DTYPE_OPTION,
    JSON_OPTION,
    OUT_OPTION,
    STORE_OPTION,
)
from genderscope.results import Result


def _table(result: Result) -> list[Table]:
    s = result.summary
    what = "perplexity" if "perplexity" in s else "pseudo-perplexity"
    t = Table(title=f"{what}: {s['n_sentences']} held-out sentences, {s['n_tokens']} tokens")
    t.add_column("measure")
    t.add_column("estimate [95% CI]", justify="right")
    ci = s[what]
    t.add_row(what, f"{ci['estimate']:.2f} [{ci['ci_low']:.2f}, {ci['ci_high']:.2f}]")
    t.add_row("NLL per token (nats)", f"{s['nll_per_token']:.4f}")
    return [t]


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    from genderscope.cli.commands.pronouns_pairs import (
        KIND_OPTION,
        MODEL_OPTION,
        PROGRESS_OPTION,
        START_OPTION,
        SUBSET_SEED_OPTION,
        _execute,
        _finish,
    )
    from genderscope.cli.declared import with_declared_options

    @run_app.command("perplexity")
    @with_declared_options("perplexity")  # --language, --min-words, --seed, ... as declared
    def perplexity_cmd(
        model: str = MODEL_OPTION,
        corpus: str = typer.Option("gap", "--corpus", help="gap or a .txt/.tsv/.csv/.jsonl "
                                   "file of held-out text."),
        from_document: int | None = typer.Option(None, "--from-document", help="Use "
                                                 "documents from this index on [default: "
                                                 "4000 for gap (its validation split), "
                                                 "else 0]."),
        limit: int = typer.Option(200, "--limit", min=1, help="Seeded subset of N "
                                  "sentences."),
        subset_seed: int = SUBSET_SEED_OPTION, kind: str = KIND_OPTION,
        start_token: str = START_OPTION, device: str | None = DEVICE_OPTION,
        dtype: str = DTYPE_OPTION, out: Path | None = OUT_OPTION,
        store_path: Path | None = STORE_OPTION, as_json: bool = JSON_OPTION,
        progress: bool = PROGRESS_OPTION, **options: Any,
    ) -> None:
        """Perplexity of held-out sentences, with a bootstrap CI (language-modelling cost)."""
        result, run_id, base = _execute(
            "perplexity", model, kind, start_token, device, dtype, store_path, out, progress,
            corpus=corpus, from_document=from_document, limit=limit, subset_seed=subset_seed,
            **options)
        _finish(result, run_id, base, as_json, _table)
