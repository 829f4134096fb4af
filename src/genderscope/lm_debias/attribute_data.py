"""Sentences that carry the gender attribute, for estimating a gender subspace.

Word pairs: bias-bench's ``bias_attribute_words.json`` (57 [male, female] pairs, Meade
et al. 2022), from the benchmark data folder (``bias-bench-words``). Text: a corpus of
passages (default: GAP's Wikipedia passages, Webster et al. 2018), split into sentences
with Punkt.

Two sets are built, following bias-bench's data loaders:

- INLP (:func:`inlp_sentences`): passages in a seeded random order; a sentence (lowercased,
  split on spaces, at least 5 tokens) is *male* when it holds a male word and no female
  word, *female* the other way round, *neutral* when it holds neither. Gendered sentences
  are clipped after a random token at or after the attribute word (bias-bench: the last
  attribute word found), neutral ones after a random token from the 4th on; at most
  ``n_per_class`` of each; a gendered sentence is used once.
- SentenceDebias (:func:`counterfactual_pairs`): every lowercased sentence that holds a
  word of a pair gives one (male, female) pair of sentences in which that word is
  replaced by its counterpart (Liang et al. 2020, sec. 3.1; one pair per word pair
  found).

Random draws use ``numpy.random.default_rng(seed)`` (bias-bench: Python's ``random``),
so the sentences are not bias-bench's own draws; the rules are.

``rule="bias-bench"`` follows bias-bench's loaders (``dataset/inlp.py``,
``dataset/sentence_debias.py`` at 291426a) where the default departs from them: INLP
draws with Python's ``random`` seeded as bias-bench (``random.seed(seed)``; the passages
shuffled with ``random.shuffle``, clips with ``random.randint``) and clips after the
*first occurrence* of the last attribute word found (``tokens.index(token)``);
SentenceDebias lower-cases each passage *before* splitting it into sentences (Punkt
sees lower-case text). Same corpus and seed: the same sentences as bias-bench.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genderscope.errors import DataError
from genderscope.files import read_json

WORDS_FOLDER = "bias-bench-words"
WORDS_FILE = "bias_attribute_words.json"
RULES = ("genderscope", "bias-bench")


def load_word_pairs(path: str | Path | None = None) -> tuple[list[tuple[str, str]], str]:
    """(male, female) word pairs and the file they came from (default: bias-bench's)."""
    if path is None:
        from genderscope.datasets.locations import find_benchmark

        path = find_benchmark(WORDS_FOLDER) / WORDS_FILE
    path = Path(path)
    data = read_json(path, "word-pair file")
    pairs = data.get("gender") if isinstance(data, dict) else data
    if not isinstance(pairs, list) or not pairs or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(w, str) and w for w in p)
            for p in pairs):
        raise DataError(f"{path}: expected {{\"gender\": [[male, female], ...]}} with at "
                        "least one pair")
    return [(m.lower(), f.lower()) for m, f in pairs], str(path)


@dataclass
class InlpSentences:
    """Clipped sentences of each class (bias-bench's INLP training data)."""

    male: list[str]
    female: list[str]
    neutral: list[str]

    def counts(self) -> dict[str, int]:
        return {"male": len(self.male), "female": len(self.female),
                "neutral": len(self.neutral)}


def _sentences(passages: list[str], language: str) -> list[list[str]]:
    from genderscope.datasets.corpus import split_sentences

    return [split_sentences([p], language=language) for p in passages]


def inlp_sentences(passages: list[str], pairs: list[tuple[str, str]], *,
                   n_per_class: int = 10_000, seed: int = 0,
                   language: str = "english", rule: str = "genderscope") -> InlpSentences:
    """The male, female and neutral INLP sentences of ``passages`` (see module doc)."""
    male_set = {m for m, _ in pairs}
    female_set = {f for _, f in pairs}
    bias_bench = rule == "bias-bench"
    if bias_bench:
        py = random.Random(seed)  # bias-bench: random.seed(seed); random.shuffle(lines)
        shuffled = list(passages)
        py.shuffle(shuffled)

        def draw(lo: int, hi: int) -> int:  # an integer in [lo, hi]
            return py.randint(lo, hi)
    else:
        rng = np.random.default_rng(seed)
        shuffled = [passages[i] for i in rng.permutation(len(passages))]

        def draw(lo: int, hi: int) -> int:
            return int(rng.integers(lo, hi + 1))
    out = InlpSentences([], [], [])
    seen: set[str] = set()
    split = _sentences(shuffled, language)
    for sents in split:
        for sentence in sents:
            tokens = [t.lower() for t in sentence.split(" ")]
            if len(tokens) < 5:
                continue
            idx, is_m, is_f = -1, False, False
            for j, tok in enumerate(tokens):
                at = tokens.index(tok) if bias_bench else j  # bias-bench: first occurrence
                if tok in male_set:
                    is_m, idx = True, at
                if tok in female_set:
                    is_f, idx = True, at
                if is_m and is_f:
                    break
            if not is_m and not is_f:
                if len(out.neutral) < n_per_class:
                    cut = draw(4, len(tokens))
                    out.neutral.append(" ".join(tokens[:cut]))
                continue
            if is_m and is_f:
                continue
            target = out.male if is_m else out.female
            if len(target) < n_per_class and sentence not in seen:
                seen.add(sentence)
                cut = draw(idx, len(tokens))
                target.append(" ".join(tokens[:cut + 1]))
        if len(out.male) == len(out.female) == len(out.neutral) == n_per_class:
            break
    return out


def counterfactual_pairs(passages: list[str], pairs: list[tuple[str, str]], *,
                         language: str = "english", limit: int | None = None,
                         rule: str = "genderscope") -> list[tuple[str, str]]:
    """(male, female) sentence pairs for SentenceDebias (see module doc), in corpus
    order; at most ``limit``."""
    out: list[tuple[str, str]] = []
    if rule == "bias-bench":  # lower-cased before Punkt splits it
        passages = [p.lower() for p in passages]
    for sents in _sentences(passages, language):
        for sentence in sents:
            words = sentence.lower().strip().split(" ")
            text = " ".join(words)
            for male, female in pairs:
                if male in words:
                    out.append((text, " ".join(female if w == male else w for w in words)))
                if female in words:
                    out.append((" ".join(male if w == female else w for w in words), text))
            if limit is not None and len(out) >= limit:
                return out[:limit]
    return out
