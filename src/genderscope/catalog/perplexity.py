"""Plan of ``perplexity`` (held-out text; see :mod:`genderscope.measures.perplexity` and
:mod:`genderscope.core.declaration` for what a plan is)."""

from __future__ import annotations

from typing import Annotated, Any

from genderscope.catalog._common import Plan, _measure, _subset_note, subset
from genderscope.core.declaration import (
    Opt,
    Pairing,
    Progress,
    Resamples,
    Seed,
    SubsetSeed,
    declare,
)
from genderscope.errors import GenderscopeError

GAP_HELD_OUT = 4000
"""GAP's validation split starts at passage 4,000 of ``--corpus gap`` (development 2,000,
test 2,000, validation 454): the default held-out text, which `debias inlp` /
`sentence-debias` never read with ``--limit`` <= 4000."""


# held-out negative log-likelihood per token (log perplexity), per sentence
@declare("perplexity", needs="lm", version=2,  # its runs name their model now: a stored
         # version 1 run has none (runs list, runs export --model, runs diff)
         pairing=Pairing(("sentence_id",), "nll_per_token"),
         statistics=("Interval: percentile bootstrap over sentences of the token-weighted "
                     "perplexity (each sentence's log-likelihood and token count resampled "
                     "together). Test: none."),
         docs="debiasing.md", family="language modelling",
         table="genderscope.cli.commands.perplexity:table",
         card="genderscope.reporting.cards.perplexity:PERPLEXITY", report_order=90)
def perplexity(
    *,
    corpus: Annotated[str, Opt("gap or a .txt/.tsv/.csv/.jsonl file of held-out text.")] = "gap",
    from_document: Annotated[
        int | None,
        Opt(
            "Use documents from this index on [default: 4000 for gap (its validation split), else "
            "0].",
            min=0,
        ),
    ] = None,
    limit: Annotated[int | None, Opt("Seeded subset of N sentences.", min=1)] = 200,
    subset_seed: SubsetSeed = 0,
    language: Annotated[
        str, Opt("Language of the sentence splitter (NLTK Punkt's name for it).")
    ] = "english",
    min_words: Annotated[int, Opt("Keep sentences of at least this many words.", min=1)] = 6,
    seed: Seed = 0,
    resamples: Resamples = 10_000,
    progress: Progress = False,
) -> Plan:
    """Perplexity of held-out sentences: the language-modelling cost of a debiased model.

    A seeded subset of ``limit`` sentences (``min_words`` words or more) of ``corpus`` from
    document ``from_document`` on (GAP: its validation split)."""
    from genderscope.datasets.corpus import BUILTIN, load_corpus, split_sentences

    start = from_document if from_document is not None else (GAP_HELD_OUT if corpus == "gap" else 0)
    if start < 0:
        raise GenderscopeError(f"--from-document must be >= 0, got {start}")
    docs = load_corpus(corpus)
    texts = docs.texts[start:]
    if not texts:
        raise GenderscopeError(
            f"corpus {corpus} has {len(docs.texts)} documents; none from --from-document {start} on"
        )
    sents = [s for s in split_sentences(texts, language=language) if len(s.split()) >= min_words]
    if not sents:
        raise GenderscopeError(f"corpus {corpus}: no sentence of {min_words}+ words")
    total = len(sents)
    sents = subset(sents, limit, subset_seed)
    run = _measure("genderscope.measures.perplexity:run_perplexity")
    params = {
        "corpus": docs.describe(),
        "from_document": start,
        "min_words": min_words,
        "language": language,
    }
    return Plan(
        "perplexity",
        "lm",
        lambda lm: run(
            lm, sents, n_resamples=resamples, seed=seed, progress=progress, params=params
        ),
        _subset_note(limit, subset_seed, len(sents), total, "held-out sentences"),
        inputs=(sents, _keyed(params, builtin=corpus in BUILTIN)),
        key_options={} if corpus in BUILTIN else {"corpus": None},  # a file: by its content
    )


def _keyed(params: dict[str, Any], *, builtin: bool) -> dict[str, Any]:
    """``params`` as the reuse key sees them: the corpus by its SHA-256 and size, not by
    where its files lie (a file corpus's name is its path, so it is left out too)."""
    corpus = {k: v for k, v in params["corpus"].items()
              if k != "files" and (builtin or k != "source")}
    return {**params, "corpus": corpus}
