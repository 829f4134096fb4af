"""``genderscope debias inlp|sentence-debias|self-debias``: estimate (or set up) the
debiasing of a language model and write its folder (:mod:`genderscope.models.debias_folder`).

INLP and SentenceDebias read sentences with attribute words from a corpus (default GAP,
:mod:`genderscope.lm_debias.attribute_data`), encode them with the model (mean-pooled last
hidden states, :func:`genderscope.models.projection.sentence_features`) and estimate the
projection (:mod:`genderscope.lm_debias.subspace`). Self-Debias estimates nothing: its folder
records the base model, the prefixes, λ and ε.

``features="bias-bench"`` builds the sentences and features as bias-bench does (Meade et
al. 2022; ``dataset/``, ``debias/inlp/context_nullspace_projection.py``,
``debias/sentence_debias.py`` at 291426a) where genderscope's default departs from it: no
start token for a causal LM (the tokenizer's own special tokens only), INLP features not
cut at ``max_length`` (bias-bench: the tokenizer's ``model_max_length``), SentenceDebias's
pairs in batches of ``batch_size`` with the partial last batch left out, and the
sentence rules of :mod:`genderscope.lm_debias.attribute_data` (Python's ``random``, the
clip index, lower-casing before sentence splitting).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genderscope.core.kinds import LM_LOAD
from genderscope.errors import DataError, GenderscopeError
from genderscope.models.debias_folder import TECHNIQUES, WHAT, prepare, write


def _load(model: str | Path, kind: str, device: str | None, start_token: str) -> Any:
    from genderscope.models.debias_folder import is_debias_folder
    from genderscope.models.loading import load_lm

    if is_debias_folder(model):
        raise GenderscopeError(f"{model} is already a debiased model; pass its base model")
    return load_lm(model, kind, device=device, start_token=start_token)


def _base(adapter: Any, model: str | Path) -> dict[str, Any]:
    from genderscope.models.projection import hidden_size

    p = Path(str(model)).expanduser()
    return {"spec": str(p.resolve()) if p.exists() else str(model), "kind": adapter.kind,
            "fingerprint": adapter.fingerprint.split("|")[0],
            "hidden_size": hidden_size(adapter.model),
            "start_token": adapter.describe().get("start_token")}


def debias_lm(technique: str, model: str | Path, out: str | Path, *, corpus: str = "gap",
              words: str | Path | None = None, limit: int | None = None,
              n_per_class: int = 10_000, max_pairs: int | None = None,
              n_classifiers: int = 80, prefixes: Sequence[str] = (),
              decay_constant: float = 50.0, epsilon: float = 0.01, seed: int = 0,
              language: str = "english", batch_size: int = 32, max_length: int = 128,
              kind: str = "auto", device: str | None = None, start_token: str = "auto",
              features: str = "genderscope", overwrite: bool = False,
              progress: bool = False) -> dict[str, Any]:
    """Write ``out`` for ``technique`` on ``model``; returns the manifest."""
    from genderscope.lm_debias.attribute_data import RULES
    from genderscope.results import environment

    if technique not in TECHNIQUES:
        raise GenderscopeError(f"unknown debias technique {technique!r}; choose one of "
                               f"{', '.join(TECHNIQUES)}")
    if features not in RULES:
        raise GenderscopeError(f"--features {features}: choose one of {', '.join(RULES)}")
    out = Path(out)
    if technique == "self-debias" and not (math.isfinite(decay_constant) and decay_constant >= 0
                                           and 0 < epsilon <= 1):  # before --overwrite clears
        raise GenderscopeError(f"--decay-constant must be a finite number >= 0 and --epsilon "
                               f"in (0, 1], got {decay_constant} and {epsilon}")
    from genderscope.checks import whole_number
    from genderscope.outputs import check_not_unsafe, command_inputs

    whole_number(seed, "seed", 0)  # numpy's own error for -1 would be a traceback
    if kind not in LM_LOAD:  # before the corpus or the word lists are read (or fetched)
        raise GenderscopeError(f"--kind must be auto, masked or causal, got {kind!r}")
    if technique != "self-debias":  # at most 10,000 classifiers: each removes a direction,
        for name, value, least, most in (  # and a model has fewer dimensions; 2**20 tokens
                ("n_classifiers", n_classifiers, 1, 10_000), ("n_per_class", n_per_class, 2, None),
                ("batch_size", batch_size, 1, None), ("max_length", max_length, 4, 2**20),
                *([("max_pairs", max_pairs, 1, None)] if max_pairs is not None else [])):
            whole_number(value, name, least, most,
                         label="--per-class" if name == "n_per_class" else None)
    check_not_unsafe(out, "--out", command_inputs(  # never an input, --overwrite or not
        models=[model], paths=[corpus, words], uses_store=False))
    prepare(out, technique, overwrite)
    t0 = time.perf_counter()
    manifest: dict[str, Any] = {"what": WHAT, "technique": technique}
    if technique == "self-debias":
        from genderscope.models.self_debias import GENDER_PREFIX, apply_self_debias

        adapter = _load(model, kind, device, start_token)
        params = {"prefixes": list(prefixes) or [GENDER_PREFIX],
                  "decay_constant": float(decay_constant), "epsilon": float(epsilon)}
        apply_self_debias(adapter, params["prefixes"], decay_constant, epsilon)  # checks
        manifest.update(base_model=_base(adapter, model), params=params, data={})
        tensors = None
    else:
        manifest_part, tensors = _estimate(technique, model, corpus=corpus, words=words,
                                           limit=limit, n_per_class=n_per_class,
                                           max_pairs=max_pairs, n_classifiers=n_classifiers,
                                           seed=seed, language=language,
                                           batch_size=batch_size, max_length=max_length,
                                           kind=kind, device=device, start_token=start_token,
                                           features=features, progress=progress)
        manifest.update(manifest_part)
    manifest.update(seconds=time.perf_counter() - t0, environment=environment(),
                    created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    write(out, manifest, tensors)
    from genderscope.models.debias_folder import read_manifest

    return read_manifest(out) or manifest


def _estimate(technique: str, model: str | Path, *, corpus: str, words: str | Path | None,
              limit: int | None, n_per_class: int, max_pairs: int | None,
              n_classifiers: int, seed: int, language: str, batch_size: int,
              max_length: int, kind: str, device: str | None, start_token: str,
              features: str, progress: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    import numpy as np

    from genderscope.datasets.corpus import load_corpus
    from genderscope.lm_debias.attribute_data import (
        counterfactual_pairs,
        inlp_sentences,
        load_word_pairs,
    )
    from genderscope.lm_debias.subspace import inlp, sentence_debias
    from genderscope.models.projection import sentence_features
    from genderscope.progress import progress_bar

    docs = load_corpus(corpus, limit=limit)
    pairs, words_file = load_word_pairs(words)
    data: dict[str, Any] = {"corpus": docs.describe(), "word_pairs": words_file,
                            "n_word_pairs": len(pairs), "language": language}
    where = f"corpus {corpus} ({len(docs.texts)} documents)"
    if technique == "inlp":
        sents = inlp_sentences(docs.texts, pairs, n_per_class=n_per_class, seed=seed,
                               language=language, rule=features)
        if min(len(sents.male), len(sents.female)) < 2:
            raise DataError(f"{where} has too few sentences with attribute words "
                            f"({sents.counts()}) from {words_file}")
        groups = [sents.male, sents.female, sents.neutral]
        data["sentences"] = sents.counts()
    else:
        cf = counterfactual_pairs(docs.texts, pairs, language=language, limit=max_pairs,
                                  rule=features)
        if not cf:
            raise DataError(f"{where} has no sentence with an attribute word from "
                            f"{words_file}")
        if features == "bias-bench":  # whole batches only, as compute_gender_subspace
            whole = len(cf) // batch_size * batch_size
            if not whole:
                raise DataError(f"{where} gave {len(cf)} counterfactual pairs, fewer than one "
                                f"batch of {batch_size}; bias-bench's batching uses none")
            data["pairs_left_out"] = len(cf) - whole
            cf = cf[:whole]
        groups = [[m for m, _ in cf], [f for _, f in cf]]
        data["counterfactual_pairs"] = len(cf)
    adapter = _load(model, kind, device, start_token)
    texts = [t for g in groups for t in g]
    with progress_bar(f"encoding {len(texts)} sentences", len(texts),
                      enabled=progress) as advance:
        # bias-bench cuts SentenceDebias's inputs at max_length (128), INLP's nowhere
        cut: int | None = None if features == "bias-bench" and technique == "inlp" \
            else max_length
        feats = sentence_features(adapter, texts, batch_size=batch_size, max_length=cut,
                                  progress=advance, rule=features)
    cuts = np.cumsum([len(g) for g in groups])[:-1]
    parts = np.split(feats, cuts)
    if technique == "inlp":
        sub = inlp(*parts, n_classifiers=n_classifiers, seed=seed)
        params: dict[str, Any] = {"n_classifiers": n_classifiers, "classifier": (
            "LinearSVC(fit_intercept=False, dual=False, random_state=seed)"),
            "n_per_class": n_per_class}
    else:
        sub = sentence_debias(*parts)
        params = {"components": 1, "max_pairs": max_pairs}
    params.update(seed=seed, pooling="mean of last hidden states", max_length=max_length)
    if features != "genderscope":
        params["features"] = features
    return ({"base_model": _base(adapter, model), "params": params, "data": data,
             "estimate": sub.info},
            {"projection": sub.projection, "directions": sub.directions})
