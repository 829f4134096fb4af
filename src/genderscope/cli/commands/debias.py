"""``genderscope debias cds``: counterfactual data substitution + fine-tuning
(docs/measures/cds.md: the corpus, the swap modes, the training unit, Bartl et al. 2020's
defaults and resumable checkpoints), and ``debias balance`` of a caption corpus.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from genderscope.checks import SEED_MAX
from genderscope.cli.common import (
    DEVICE_OPTION,
    ci_text,
    console,
    new_table,
    what_value_table,
)
from genderscope.errors import GenderscopeError

debias_app = typer.Typer(help="Reduce bias: counterfactual data substitution and fine-tuning; "
                         "balancing a caption corpus by gender per object.",
                         no_args_is_help=True, rich_markup_mode=None)


@debias_app.command("cds")
def cds_command(
    model: str = typer.Option(..., "--model", "-m", help="HF id, local folder, .gguf file, or "
                              "smollm2 / gemma3-270m."),
    corpus: str = typer.Option(..., "--corpus", help="FILE (.txt/.tsv/.csv/.jsonl) or "
                               "gap / gap-flipped-bartl."),
    out: Path = typer.Option(..., "--out", help="Folder for the fine-tuned model."),
    mode: str = typer.Option("cds", "--mode", help="cds (each document swapped with "
                             "probability --prob, Maudslay et al. 2019), cda, all (every "
                             "document swapped) or none (as is). Bartl et al. 2020 trained on "
                             "the fully flipped GAP: --corpus gap-flipped-bartl --mode none, "
                             "or --corpus gap --mode all with this swapper; not --mode cds."),
    unit: str = typer.Option("sentence", "--unit", help="sentence (Punkt-split, as Bartl et "
                             "al.) or passage (whole documents, truncated to --max-length)."),
    language: str | None = typer.Option(None, "--language", help="Punkt model for --unit "
                                        "sentence (english, danish, german, ...) [default: "
                                        "english]; --unit sentence only."),
    prob: float | None = typer.Option(None, "--prob", help="CDS swap probability per "
                                      "document [default: 0.5]; --mode cds only."),
    names: bool | None = typer.Option(None, "--names/--no-names", help="Swap first names "
                                      "too [default: names]; not with --mode none."),
    pairs: list[Path] = typer.Option([], "--pairs", help="Extra word-pair TSV "
                                     "(male<TAB>female[<TAB>direction]); repeatable; not "
                                     "with --mode none."),
    limit: int | None = typer.Option(None, "--limit", help="Use the first N documents "
                                         "[default: every document]."),
    epochs: int = typer.Option(3, "--epochs", help="Epochs (Bartl et al.: 3)."),
    lr: float = typer.Option(2e-5, "--lr", help="Learning rate (Bartl et al.: 2e-5)."),
    batch_size: int = typer.Option(1, "--batch-size", help="Batch size (Bartl et al.: 1)."),
    seed: int = typer.Option(42, "--seed", help="Seed for CDS draws, names and training "
                             "(Bartl et al.: 42)."),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Stop after N steps [default: "
                                             "when the epochs end]."),
    max_length: int = typer.Option(256, "--max-length", min=8,
                                   help="Truncate each training unit (sentence or "
                                        "passage) to N tokens."),
    save_every: int = typer.Option(200, "--save-every", min=1,
                                   help="Checkpoint every N steps."),
    kind: str = typer.Option("auto", "--kind", help="auto, masked or causal."),
    device: str | None = DEVICE_OPTION,
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --out."),
    progress: bool = typer.Option(True, "--progress/--no-progress",
                                  help="Show a progress bar."),
) -> None:
    """Swap gender in a corpus and fine-tune a model on it.

    Bartl et al. (2020) setup: --corpus gap-flipped-bartl --mode none (their fully
    flipped GAP; or --corpus gap --mode all with this swapper), --unit sentence, and
    the default 3 epochs, lr 2e-5, batch 1, seed 42. The default --mode cds (each
    document swapped with probability 0.5) is Maudslay et al.'s (2019) CDS instead.
    """
    from genderscope.api import debias

    manifest = debias(model, corpus, out, mode=mode, unit=unit, language=language, prob=prob,
                      names=names, pairs=pairs, limit=limit, epochs=epochs, lr=lr,
                      batch_size=batch_size, seed=seed, max_steps=max_steps,
                      max_length=max_length, save_every=save_every, kind=kind,
                      device=device, overwrite=overwrite, progress=progress)
    console.print(what_value_table(f"debias cds -> {out}", {k: manifest.get(k) for k in (
        "objective", "seed", "steps", "loss_first_10pct", "loss_last_10pct", "seconds")}))


@debias_app.command("balance")
def balance_command(
    corpus: Path = typer.Option(..., "--corpus", help="Captions or texts: .txt (one per "
                                "line), .jsonl or .csv/.tsv (a caption or text column)."),
    out: Path = typer.Option(..., "--out", help="The balanced corpus: .txt, .jsonl, .csv or "
                             ".tsv (reweight: not .txt; a weight column is added)."),
    objects: Path | None = typer.Option(None, "--objects", help="Objects/activities, one per "
                                        "line [default: nouns found by spaCy, if installed]."),
    gender_words: Path | None = typer.Option(None, "--gender-words", help="JSON {group: "
                                             "[words]} [default: man/woman lists]."),
    method: str = typer.Option("resample", "--method", help="resample (seeded "
                               "undersampling to exact balance) or reweight (a weight per "
                               "caption, iterative proportional fitting)."),
    seed: int = typer.Option(0, "--seed", min=0, max=SEED_MAX,
                             help="Seed of the resampling and the bootstrap."),
    plurals: bool = typer.Option(True, "--plurals/--no-plurals", help="Count regular "
                                 "plurals of objects."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --out "
                                   "(never an input)."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON."),
) -> None:
    """Balance a caption corpus by gender per object, with its bias before and after.

    The data-side remedy of Zhao et al. (2017) and Wang et al. (2019): each object ends
    up co-occurring equally often with each gender group (resample: exactly; reweight:
    by weights). The bias printed is the mean over objects of the larger group's excess
    share, max_g b(o, g) - 1/|G| (0 = balanced), with a 95 % bootstrap CI over objects.
    """
    from genderscope.datasets import captions as cap
    from genderscope.measures import amplification as amp
    from genderscope.measures import amplification_balance as bal
    from genderscope.outputs import check_output_file
    from genderscope.results import to_json

    suffixes = (".jsonl", ".csv", ".tsv") if method == "reweight" else \
        (".txt", ".jsonl", ".csv", ".tsv")
    if method not in bal.METHODS:
        raise GenderscopeError(f"--method must be one of {', '.join(bal.METHODS)}, got "
                               f"{method!r}")
    dest = check_output_file(out, "--out", overwrite=overwrite, suffixes=suffixes,
                             inputs=[p for p in (corpus, objects, gender_words) if p])
    gw = cap.load_gender_words(gender_words)
    texts, records = cap.load_caption_records(corpus)
    if method == "reweight" and any("weight" in r for r in records or []):
        raise GenderscopeError(f"--corpus {corpus}: it already has a 'weight' column; "
                               "rename it before reweighting")
    objs = cap.load_objects(objects) if objects is not None else \
        amp.objects_from_tagger(texts, gw)
    done = bal.balance(texts, objs, gw, method=method, seed=seed, plurals=plurals)
    _write_corpus(dest, done["captions"], done["weights"],
                  None if records is None else [records[i] for i in done["kept"]])
    if as_json:
        console.print_json(to_json({k: done[k] for k in ("method", "seed", "before", "after",
                                                          "report")} | {"out": str(dest)}))
        return
    table = new_table(f"debias balance ({method}) -> {dest}",
                      ("corpus", "objects", "mean skew [95% CI]"))
    for when in ("before", "after"):
        m = done[when]["mean_skew"]
        table.add_row(when, str(done[when]["n_objects"]),
                      ci_text(m, 4))
    console.print(table)
    console.print(", ".join(f"{k}: {v}" for k, v in done["report"].items()))


def _write_corpus(dest: Path, texts: list[str], weights: list[float] | None,
                  records: list[dict[str, Any]] | None = None) -> None:
    """The corpus in ``dest``'s format, written all or nothing: one caption a line, or
    each caption's input record with every field it had (a ``caption`` field for a
    ``.txt`` input) and a ``weight`` field for ``reweight``."""
    import json

    from genderscope.outputs import write_file, write_text

    suffix = dest.suffix.lower()
    if suffix == ".txt":
        if any("\n" in t for t in texts):
            raise GenderscopeError(f"--out {dest}: a caption holds a line break; write "
                                   ".jsonl or .csv instead")
        write_text(dest, "".join(t + "\n" for t in texts))
        return
    rows = records if records is not None else [{"caption": t} for t in texts]
    if weights is not None:
        rows = [r | {"weight": w} for r, w in zip(rows, weights, strict=True)]
    if suffix == ".jsonl":
        write_text(dest, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    else:
        import pandas as pd

        frame = pd.DataFrame(rows)
        write_file(dest, lambda p: frame.to_csv(p, index=False,
                                                sep="\t" if suffix == ".tsv" else ","))


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    app.add_typer(debias_app, name="debias")
