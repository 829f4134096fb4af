"""Plan of ``perplexity`` (held-out text; see :mod:`genderscope.measures.perplexity` and
:mod:`genderscope.plans` for what a plan is)."""

from __future__ import annotations

from genderscope.errors import GenderscopeError
from genderscope.plans_base import Plan, _check_min, _measure, _subset_note, subset

GAP_HELD_OUT = 4000
"""GAP's validation split starts at passage 4,000 of ``--corpus gap`` (development 2,000,
test 2,000, validation 454): the default held-out text, which `debias inlp` /
`sentence-debias` never read with ``--limit`` <= 4000."""


def perplexity(*, corpus: str = "gap", from_document: int | None = None,
               limit: int | None = 200, subset_seed: int = 0, language: str = "english",
               min_words: int = 6, seed: int = 0, resamples: int = 10_000,
               progress: bool = False) -> Plan:
    """Perplexity of held-out sentences: a seeded subset of ``limit`` sentences (``min_words``
    words or more) of ``corpus`` from document ``from_document`` on (GAP: its validation
    split)."""
    from genderscope.datasets.corpus import load_corpus, split_sentences

    _check_min("--limit", limit, 1)
    _check_min("--resamples", resamples, 100)
    start = from_document if from_document is not None else (
        GAP_HELD_OUT if corpus == "gap" else 0)
    if start < 0:
        raise GenderscopeError(f"--from-document must be >= 0, got {start}")
    docs = load_corpus(corpus)
    texts = docs.texts[start:]
    if not texts:
        raise GenderscopeError(f"corpus {corpus} has {len(docs.texts)} documents; none from "
                               f"--from-document {start} on")
    sents = [s for s in split_sentences(texts, language=language)
             if len(s.split()) >= min_words]
    if not sents:
        raise GenderscopeError(f"corpus {corpus}: no sentence of {min_words}+ words")
    total = len(sents)
    sents = subset(sents, limit, subset_seed)
    run = _measure("genderscope.measures.perplexity:run_perplexity")
    params = {"corpus": docs.describe(), "from_document": start, "min_words": min_words,
              "language": language}
    return Plan("perplexity", "lm", lambda lm: run(
        lm, sents, n_resamples=resamples, seed=seed, progress=progress, params=params),
        _subset_note(limit, subset_seed, len(sents), total, "held-out sentences"),
        inputs=(sents, params))


PERPLEXITY_PLANS = {"perplexity": perplexity}
