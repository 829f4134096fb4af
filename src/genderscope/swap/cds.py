"""Counterfactual data substitution (CDS) and augmentation (CDA) of a corpus.

- CDA (Lu et al. 2018, "Gender Bias in Neural NLP", sec. 3): keep every
  document and append its gender-swapped copy (the corpus doubles).
- CDS (Maudslay et al. 2019, "It's All in the Name", sec. 3.1): replace each
  document by its swapped copy with probability ``prob`` (0.5 in the paper),
  independently per document; the corpus keeps its size and never holds both
  versions of a document. Seeded, so the same seed gives the same corpus.
- ``all`` swaps every document (what Bartl et al. 2020 fine-tuned on: the
  fully flipped GAP corpus).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from genderscope.errors import GenderscopeError
from genderscope.swap.swapper import GenderSwapper

MODES = ("cds", "cda", "all")


@dataclass
class SubstitutedCorpus:
    """Texts after substitution, which source document each came from, and counts."""

    texts: list[str]
    source_index: list[int]
    swapped: list[bool]
    n_swaps: int
    params: dict[str, object] = field(default_factory=dict)

    @property
    def n_swapped_docs(self) -> int:
        return int(sum(self.swapped))


def substitute(docs: Sequence[str], *, mode: str = "cds", prob: float = 0.5, seed: int = 42,
               swapper: GenderSwapper | None = None) -> SubstitutedCorpus:
    """Apply CDS (``mode="cds"``), CDA (``"cda"``) or swap-all (``"all"``) to ``docs``."""
    if mode not in MODES:
        raise GenderscopeError(f"unknown substitution mode {mode!r}; use one of "
                               f"{', '.join(MODES)}")
    if not 0.0 <= prob <= 1.0:
        raise GenderscopeError(f"substitution probability must be in [0, 1], got {prob}")
    if not docs:
        raise GenderscopeError("the corpus is empty: nothing to substitute")
    sw = swapper if swapper is not None else GenderSwapper(seed=seed)
    rng = np.random.default_rng(seed)
    draws = rng.random(len(docs))
    texts: list[str] = []
    index: list[int] = []
    flags: list[bool] = []
    n_swaps = 0
    for i, doc in enumerate(docs):
        if mode == "cda":  # the document, then (below) its swapped copy
            texts.append(doc)
            index.append(i)
            flags.append(False)
        if mode != "cds" or draws[i] < prob:
            res = sw.swap(doc)
            texts.append(res.text)
            flags.append(True)
            n_swaps += res.n_swaps
        else:
            texts.append(doc)
            flags.append(False)
        index.append(i)
    params = {"mode": mode, "prob": prob if mode == "cds" else None, "seed": seed,
              "swapper": sw.describe()}
    return SubstitutedCorpus(texts, index, flags, n_swaps, params)


def cds(docs: Sequence[str], *, prob: float = 0.5, seed: int = 42,
        swapper: GenderSwapper | None = None) -> list[str]:
    """Counterfactual data substitution: each document swapped with probability ``prob``."""
    return substitute(docs, mode="cds", prob=prob, seed=seed, swapper=swapper).texts


def cda(docs: Sequence[str], *, seed: int = 42,
        swapper: GenderSwapper | None = None) -> list[str]:
    """Counterfactual data augmentation: every document followed by its swapped copy."""
    return substitute(docs, mode="cda", seed=seed, swapper=swapper).texts
