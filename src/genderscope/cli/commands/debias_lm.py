"""``genderscope debias inlp | sentence-debias | self-debias | dropout``: bias-bench's
debiasing techniques for language models (Meade et al. 2022).

INLP, SentenceDebias and Self-Debias write ``--out`` (safetensors + ``manifest.json``)
applied at scoring time; Dropout fine-tunes (as ``debias cds``). Any measure then runs on
the debiased model with ``--model OUT``. See :mod:`genderscope.lm_debias`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from genderscope.cli.common import (
    DEVICE_OPTION,
    PROGRESS_OPTION,
    console,
    what_value_table,
)

MODEL = typer.Option(..., "--model", "-m", help="HF id, local folder, .gguf file, or smollm2 / "
                     "gemma3-270m (the base model).")
OUT = typer.Option(..., "--out", help="Folder for the debiased model (manifest.json + "
                   "projection.safetensors).")
CORPUS = typer.Option("gap", "--corpus", help="Text with attribute words: gap (GAP's "
                      "Wikipedia passages) or a .txt/.tsv/.csv/.jsonl file.")
WORDS = typer.Option(None, "--words", help="[male, female] word pairs as JSON (default: "
                     "bias-bench's bias_attribute_words.json).")
LIMIT = typer.Option(None, "--limit", help="Use the first N documents of the corpus "
                     "[default: every document].")
SEED = typer.Option(0, "--seed", help="Seed for sentence order, clipping and classifiers.")
KIND = typer.Option("auto", "--kind", help="auto, masked or causal.")
START = typer.Option("auto", "--start-token", help="Causal LMs: start-of-text token "
                     "(auto, none or a token).")
BATCH = typer.Option(32, "--batch-size", help="Sentences per forward pass when encoding.")
MAXLEN = typer.Option(128, "--max-length", help="Truncate sentences to N tokens "
                      "(bias-bench: 128).")
FEATURES = typer.Option("genderscope", "--features", help="genderscope, or bias-bench: "
                        "sentences and features as bias-bench builds them (no start token, "
                        "INLP not truncated, its clip index, random draws and batching).")
OVERWRITE = typer.Option(False, "--overwrite", help="Replace an --out this technique wrote.")


def _show(technique: str, out: Path, manifest: dict[str, Any]) -> None:
    rows: dict[str, Any] = {"base model": manifest["base_model"]["spec"]}
    data = manifest.get("data") or {}
    for key in ("sentences", "counterfactual_pairs", "pairs_left_out"):
        if key in data:  # {"male": 100, ...} as "100 male, ..."
            v = data[key]
            rows[key.replace("_", " ")] = ", ".join(f"{n} {k}" for k, n in v.items()) \
                if isinstance(v, dict) else v
    est = manifest.get("estimate") or {}
    if "dev_accuracy" in est:
        acc = est["dev_accuracy"]
        rows["dev accuracy first/last classifier"] = f"{acc[0]:.3f} / {acc[-1]:.3f} " \
            f"(majority share {est['dev_majority_share']:.3f})"
        rows["dimensions removed"] = est["rank_removed"]
    if "explained_variance_ratio" in est:
        rows["variance explained by the direction"] = f"{est['explained_variance_ratio']:.3f}"
    params = manifest.get("params") or {}
    for key in ("prefixes", "decay_constant", "epsilon"):
        if key in params:
            rows[key] = str(params[key])  # as given, not to 3 decimals
    rows["seconds"] = f"{manifest.get('seconds', 0.0):.1f}"
    console.print(what_value_table(f"debias {technique} -> {out}", rows))
    console.print(f"Task cost before/after (paired): genderscope report --model "
                  f"{manifest['base_model']['spec']} --model {out} --measure perplexity "
                  "--measure downstream", soft_wrap=True)


def _run(technique: str, model: str, out: Path, **options: Any) -> None:
    from genderscope.lm_debias.estimate import debias_lm

    _show(technique, out, debias_lm(technique, model, out, **options))


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    from genderscope.cli.commands.debias import debias_app

    @debias_app.command("inlp")
    def inlp_command(model: str = MODEL, out: Path = OUT, corpus: str = CORPUS,
                     words: Path | None = WORDS, limit: int | None = LIMIT,
                     n_classifiers: int = typer.Option(80, "--n-classifiers",
                                                       help="INLP iterations (bias-bench: 80)."),
                     per_class: int = typer.Option(10_000, "--per-class", help="At most N "
                                                   "male, female and neutral sentences."),
                     seed: int = SEED, batch_size: int = BATCH, max_length: int = MAXLEN,
                     kind: str = KIND, start_token: str = START, features: str = FEATURES,
                     device: str | None = DEVICE_OPTION, overwrite: bool = OVERWRITE,
                     progress: bool = PROGRESS_OPTION) -> None:
        """INLP (Ravfogel et al. 2020): nullspace projection of the last hidden states.

        Linear classifiers learn to tell male, female and neutral sentences of the corpus
        apart; the hidden states are projected onto the intersection of their nullspaces."""
        _run("inlp", model, out, corpus=corpus, words=words, limit=limit,
             n_classifiers=n_classifiers, n_per_class=per_class, seed=seed,
             batch_size=batch_size, max_length=max_length, kind=kind,
             start_token=start_token, features=features, device=device, overwrite=overwrite,
             progress=progress)

    @debias_app.command("sentence-debias")
    def sentence_debias_command(model: str = MODEL, out: Path = OUT, corpus: str = CORPUS,
                                words: Path | None = WORDS, limit: int | None = LIMIT,
                                max_pairs: int | None = typer.Option(
                                    None, "--max-pairs", help="Use at most N counterfactual "
                                    "sentence pairs [default: every pair]."),
                                seed: int = SEED, batch_size: int = BATCH,
                                max_length: int = MAXLEN, kind: str = KIND,
                                start_token: str = START, features: str = FEATURES,
                                device: str | None = DEVICE_OPTION,
                                overwrite: bool = OVERWRITE,
                                progress: bool = PROGRESS_OPTION) -> None:
        """SentenceDebias (Liang et al. 2020): remove a gender direction from hidden states.

        The direction is the first principal component of counterfactual sentence pairs'
        representations (attribute words swapped)."""
        _run("sentence-debias", model, out, corpus=corpus, words=words, limit=limit,
             max_pairs=max_pairs, seed=seed, batch_size=batch_size, max_length=max_length,
             kind=kind, start_token=start_token, features=features, device=device,
             overwrite=overwrite, progress=progress)

    @debias_app.command("self-debias")
    def self_debias_command(model: str = MODEL, out: Path = OUT,
                            prefix: list[str] = typer.Option(
                                [], "--prefix", help="Debiasing prefix (repeatable; default: "
                                "bias-bench's gender prefix)."),
                            decay_constant: float = typer.Option(
                                50.0, "--decay-constant", help="λ of Schick et al. (2021)."),
                            epsilon: float = typer.Option(
                                0.01, "--epsilon", help="Smallest factor a probability is "
                                "multiplied by."),
                            kind: str = KIND, start_token: str = START,
                            device: str | None = DEVICE_OPTION, overwrite: bool = OVERWRITE,
                            progress: bool = PROGRESS_OPTION) -> None:
        """Self-Debias (Schick et al. 2021): adjust a causal or masked LM's distributions.

        At scoring and generation time, tokens that a debiasing prefix makes more likely
        are pushed down (next tokens of a causal LM, masked tokens of a masked LM)."""
        _run("self-debias", model, out, prefixes=prefix, decay_constant=decay_constant,
             epsilon=epsilon, kind=kind, start_token=start_token, device=device,
             overwrite=overwrite, progress=progress)

    @debias_app.command("dropout")
    def dropout_command(model: str = MODEL,
                        corpus: str = typer.Option(..., "--corpus", help="FILE (.txt/.tsv/"
                                                   ".csv/.jsonl) or gap."),
                        out: Path = typer.Option(..., "--out", help="Folder for the "
                                                 "fine-tuned model."),
                        unit: str = typer.Option("sentence", "--unit",
                                                 help="sentence or passage."),
                        limit: int | None = LIMIT,
                        epochs: int = typer.Option(1, "--epochs", help="Epochs."),
                        lr: float = typer.Option(2e-5, "--lr", help="Learning rate."),
                        batch_size: int = typer.Option(1, "--batch-size", help="Batch size."),
                        seed: int = typer.Option(42, "--seed", help="Training seed."),
                        max_steps: int | None = typer.Option(None, "--max-steps",
                                                             help="Stop after N steps "
                                                             "[default: when the epochs "
                                                             "end]."),
                        max_length: int = typer.Option(256, "--max-length", min=8,
                                                       help="Truncate units to N tokens."),
                        save_every: int = typer.Option(200, "--save-every", min=1,
                                                       help="Checkpoint every N steps."),
                        kind: str = KIND, device: str | None = DEVICE_OPTION,
                        overwrite: bool = typer.Option(False, "--overwrite",
                                                       help="Replace an existing --out."),
                        progress: bool = PROGRESS_OPTION) -> None:
        """Dropout (Webster et al. 2020): continued pre-training with increased dropout.

        Same training loop, resumable checkpoints and folder as `debias cds`; the corpus is
        used as is."""
        from genderscope.lm_debias.dropout_training import dropout_debias

        manifest = dropout_debias(model, corpus, out, unit=unit, limit=limit, epochs=epochs,
                                  lr=lr, batch_size=batch_size, seed=seed,
                                  max_steps=max_steps, max_length=max_length,
                                  save_every=save_every, kind=kind, device=device,
                                  overwrite=overwrite, progress=progress)
        console.print(what_value_table(f"debias dropout -> {out}", {k: manifest.get(k) for k in (
            "steps", "loss_first_10pct", "loss_last_10pct", "seconds")}))
