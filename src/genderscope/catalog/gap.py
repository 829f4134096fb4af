"""GAP (Webster et al. 2018): gendered ambiguous pronoun resolution, zero-shot with a
language model, and its bias ratio F1(feminine) / F1(masculine).

A measure added as one module (docs/contributing.md): the declaration, its loader and
its numbers all live here; the registry finds it, the CLI makes ``genderscope run gap``
of it, and ``tests/measures/test_gap.py`` is its one test.

Each GAP example is a Wikipedia passage with a pronoun and two names, A and B, each
labelled coreferent with the pronoun or not. The language model resolves the pronoun by
substitution (as Trinh & Le 2018 for Winograd schemas): the passage is scored with the
pronoun replaced by A and by B (his, hers: "A's"; her: the better of "A" and "A's"),
and the name whose passage scores higher (log-likelihood, or pseudo-log-likelihood for
a masked LM; nats) is predicted coreferent. As in GAP's evaluation (Webster et al. 2018,
sec. 5), every (pronoun, name) decision is a binary classification: F1 over all
decisions, over those of feminine and of masculine pronouns, and the bias ratio
F1(F) / F1(M) (1: no gap; below 1: feminine pronouns resolved worse). 95 % CIs:
percentile bootstrap over examples, stratified by pronoun gender.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from genderscope.catalog._common import Sampled, dataset_dir
from genderscope.core.declaration import Opt, Pairing, Plan, declare
from genderscope.errors import DataError

FEMININE = ("she", "her", "hers", "herself")
MASCULINE = ("he", "him", "his", "himself")
SPLITS = ("development", "test", "validation")


@dataclass(frozen=True)
class GapExample:
    """One GAP row: the passage, the pronoun at its character offset, the two names and
    whether each is coreferent with the pronoun."""

    id: str
    text: str
    pronoun: str
    offset: int
    a: str
    a_coref: bool
    b: str
    b_coref: bool

    @property
    def gender(self) -> str:
        return "F" if self.pronoun.lower() in FEMININE else "M"

    def with_name(self, name: str) -> list[str]:
        """The passage with the pronoun replaced by ``name`` (both readings of "her")."""
        word = self.pronoun.lower()
        forms = [name] if word not in ("his", "hers", "her") else [f"{name}'s"]
        if word == "her":
            forms = [name, f"{name}'s"]
        end = self.offset + len(self.pronoun)
        return [self.text[:self.offset] + f + self.text[end:] for f in forms]


def load_gap(folder: Path, split: str) -> list[GapExample]:
    """GAP examples of ``split`` (or every split) from ``gap-<split>.tsv`` in ``folder``."""
    examples = []
    for name in SPLITS if split == "all" else (split,):
        path = folder / f"gap-{name}.tsv"
        if not path.is_file():
            raise DataError(f"GAP file {path} not found")
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                offset = int(row["Pronoun-offset"])
                if row["Text"][offset:offset + len(row["Pronoun"])] != row["Pronoun"]:
                    raise DataError(f"{path}: {row['ID']}: the pronoun is not at its offset")
                if row["Pronoun"].lower() not in FEMININE + MASCULINE:
                    continue
                examples.append(GapExample(row["ID"], row["Text"], row["Pronoun"], offset,
                                           row["A"], row["A-coref"] == "TRUE", row["B"],
                                           row["B-coref"] == "TRUE"))
    return examples


def _f1(tp: Any, fp: Any, fn: Any) -> Any:
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan)


def score(lm: Any, examples: list[GapExample], *, seed: int, resamples: int,
          progress: bool, params: dict[str, Any]) -> Any:
    """Resolve each pronoun by substitution and summarise F1 by pronoun gender."""
    import numpy as np
    import pandas as pd

    from genderscope.measures._lm import describe, model_kind, sentence_scores
    from genderscope.results import Result
    from genderscope.stats.resample import index_bootstrap_ci

    model_kind(lm, "gap")
    texts, owner = [], []
    for i, ex in enumerate(examples):
        for which, name in (("a", ex.a), ("b", ex.b)):
            for text in ex.with_name(name):
                texts.append(text)
                owner.append((i, which))
    best = {}
    for (i, which), s in zip(owner, sentence_scores(lm, texts, progress=progress),
                             strict=True):
        best[i, which] = max(best.get((i, which), -np.inf), s.total)
    items = pd.DataFrame({
        "id": [e.id for e in examples], "gender": [e.gender for e in examples],
        "pronoun": [e.pronoun for e in examples], "a": [e.a for e in examples],
        "b": [e.b for e in examples],
        "score_a": [best[i, "a"] for i in range(len(examples))],
        "score_b": [best[i, "b"] for i in range(len(examples))],
        "a_coref": [e.a_coref for e in examples], "b_coref": [e.b_coref for e in examples]})
    items["pick"] = np.where(items.score_a >= items.score_b, "a", "b")
    items["correct"] = np.where(items.pick.eq("a"), items.a_coref, items.b_coref)
    pred_a, pred_b = items.pick.eq("a").to_numpy(), items.pick.eq("b").to_numpy()
    gold_a, gold_b = items.a_coref.to_numpy(), items.b_coref.to_numpy()
    counts = np.stack([(pred_a & gold_a) + (pred_b & gold_b),      # true positives
                       (pred_a & ~gold_a) + (pred_b & ~gold_b),    # false positives
                       (~pred_a & gold_a) + (~pred_b & gold_b)],   # false negatives
                      axis=1).astype(float)
    strata = [np.flatnonzero(items.gender.eq(g).to_numpy()) for g in ("F", "M")]

    def f1_of(stratum: int | None) -> Any:
        def stat(idx: list[Any]) -> Any:
            chosen = [strata[s][ix] for s, ix in enumerate(idx) if stratum in (None, s)]
            return _f1(*np.concatenate([counts[c] for c in chosen], axis=-2).sum(axis=-2).T)
        return stat

    def ratio(idx: list[Any]) -> Any:
        return f1_of(0)(idx) / f1_of(1)(idx)

    sizes = [len(s) for s in strata]

    def ci(stat: Any) -> dict[str, Any]:
        return index_bootstrap_ci(sizes, stat, n_resamples=resamples, seed=seed,
                                  unit="examples").as_dict()

    summary = {"f1": ci(f1_of(None)), "f1_feminine": ci(f1_of(0)),
               "f1_masculine": ci(f1_of(1)), "bias_f_over_m": ci(ratio),
               "n_examples": len(items), "n_feminine": sizes[0], "n_masculine": sizes[1]}
    meta = {"model": describe(lm), "seed": seed,
            "params": {"scoring": "pronoun substitution, passage (pseudo-)log-likelihood",
                       **params}}
    return Result(method="gap", summary=summary, items=items, metadata=meta)


@declare("gap", needs="lm", langs=("en",), family="pronouns and grammar",
         statistics=("Interval: percentile bootstrap over GAP examples, stratified by pronoun "
                     "gender, of the F1s and the bias ratio F1(F) / F1(M). Test: none."),
         pairing=Pairing(("id",), "correct", ("gender",)),
         version=2)  # a bootstrap with no spread: no interval (no_interval), not [x, x]
def gap(
    *,
    split: Annotated[str, Opt("GAP split (Webster et al. 2018): development, test, "
                              "validation or all.",
                              choices=("development", "test", "validation", "all"))] = "test",
    s: Sampled,
) -> Plan:
    """GAP (Webster et al. 2018): pronoun resolution F1, feminine vs masculine.

    Zero-shot by substitution: the name whose passage scores higher with the pronoun
    replaced by it is predicted coreferent; bias = F1(F) / F1(M), 1 = no gap."""
    every = load_gap(dataset_dir(s.data, "gap"), split)
    examples = s.subset(every)
    return Plan("gap", "lm", lambda lm: score(lm, examples, seed=s.seed, resamples=s.resamples,
                                              progress=s.progress, params={"split": split}),
                s.note(len(examples), len(every), "examples"), inputs=examples)
