"""``genderscope debias dropout``: continued pre-training with increased dropout (Webster et
al. 2020; bias-bench's Dropout) on a corpus as is, with the training loop, checkpoints
(resumable, safetensors + JSON) and output folder of ``debias cds``
(:mod:`genderscope.lm_debias.finetune`, ``FinetuneConfig.dropout_debias``; dropout values in
:mod:`genderscope.lm_debias.dropout`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genderscope.errors import GenderscopeError


def dropout_debias(model: str | Path, corpus: str | Path, out: str | Path, *,
                   unit: str = "sentence", language: str = "english",
                   limit: int | None = None, epochs: int = 1, lr: float = 2e-5,
                   batch_size: int = 1, seed: int = 42, max_steps: int | None = None,
                   max_length: int = 256, save_every: int = 200, kind: str = "auto",
                   device: str | None = None, overwrite: bool = False,
                   progress: bool = False) -> dict[str, Any]:
    """Fine-tune ``model`` on ``corpus`` with increased dropout; returns the manifest."""
    from genderscope.datasets.corpus import UNITS, load_corpus, split_sentences
    from genderscope.lm_debias.finetune import FinetuneConfig, check_out_dir, fine_tune
    from genderscope.models.debias_folder import read_manifest, technique_of
    from genderscope.progress import progress_bar

    out = Path(out)
    if unit not in UNITS:
        raise GenderscopeError(f"--unit must be {' or '.join(UNITS)}, got {unit!r}")
    made = read_manifest(out) if out.is_dir() else None
    if made is not None and technique_of(made) != "dropout":
        raise GenderscopeError(f"output folder {out} holds a model made by `debias "
                               f"{technique_of(made)}`; refusing to put dropout output "
                               "there: choose another --out")
    cfg = FinetuneConfig(epochs=epochs, lr=lr, batch_size=batch_size, seed=seed,
                         max_steps=max_steps, max_length=max_length, save_every=save_every,
                         dropout_debias=True)
    cfg.validate()
    inputs = [model, corpus]
    check_out_dir(out, overwrite, inputs)
    docs = load_corpus(str(corpus), limit=limit)
    texts = docs.texts
    data: dict[str, Any] = {"corpus": docs.describe(), "unit": unit}
    if unit == "sentence":
        texts = split_sentences(texts, language=language)
        data["sentences"] = {"splitter": "punkt", "language": language,
                             "n_sentences": len(texts)}
    total = -(-len(texts) // batch_size) * epochs
    total = total if max_steps is None else min(total, max_steps)
    with progress_bar(f"dropout training on {len(texts)} {unit}s", total,
                      enabled=progress) as advance:
        return fine_tune(str(model), texts, out, config=cfg, kind=kind, device=device,
                         overwrite=overwrite, data=data, inputs=inputs,
                         progress=lambda step, n, loss: advance(1))
