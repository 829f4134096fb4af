"""WEAT (Caliskan et al. 2017) on word vectors and SEAT (May et al. 2019) on sentence
embeddings (docs/measures/weat.md).

Caliskan et al., Science 356(6334), "Materials and Methods" (cosine similarities):
``s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b)``; ``S = sum_X s - sum_Y s``; effect
size ``d = (mean_X s - mean_Y s) / std_{X u Y} s`` (ddof = 1, unitless); one-sided
permutation p over equal-size re-partitions of X u Y (exact up to ``exact_limit``
partitions, else ``n_permutations`` seeded ones), from
:func:`genderscope.stats.difference_of_sums_test`.

SEAT (May et al. 2019, Sec. 2): the same on template sentences, with the source word as
the unit (:mod:`genderscope.measures.seat_words`): p-values re-partition whole words and
d's CI is the noncentral t interval over source words (:func:`effect_size_ci`); the
sentence-level p is kept as ``p_as_published``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np
import pandas as pd

from genderscope.casing import lookup_forms
from genderscope.core.design import Design
from genderscope.datasets.seat import AssociationTest, WordSet
from genderscope.errors import DataError
from genderscope.measures.seat_words import source_words
from genderscope.results import Result
from genderscope.stats import CI, difference_of_sums_test
from genderscope.stats.design import infer
from genderscope.stats.permutation import DEFAULT_EXACT_LIMIT, effect_size

ROLES = ("X", "Y", "A", "B")
"""targ1, targ2, attr1, attr2 in Caliskan's notation."""

DEFAULT_MAX_OOV = 0.2
"""Largest share of one set's words that may be out of vocabulary (as WEFE's default)."""

EFFECT_SIZES = ("caliskan", "wefe")
"""WEAT's d over the sample SD (Caliskan et al. 2017) or the population SD (WEFE 1.0.1)."""


class LookupVectors:
    """Word vectors seen through a word list's look-up rules: each entry is looked up
    in the forms :func:`genderscope.casing.lookup_forms` gives (``case``,
    ``accents``, a Python ``preprocessor``), and with ``normalize`` every row is scaled
    to unit L2 norm (WEFE's ``normalize=True``). Stands in for
    :class:`~genderscope.models.vectors.WordVectors` in WEAT and the embedding metrics
    (``key_for``, ``in``, ``vectors``, ``describe``); it has no ``index``, so the
    metrics take the per-word path."""

    index = None

    def __init__(self, base: Any, *, case: str = "fallback", accents: str = "none",
                 preprocessor: Callable[[str], str] | None = None,
                 normalize: bool = False) -> None:
        self.base, self.case, self.accents = base, case, accents
        self.preprocessor, self.normalize = preprocessor, normalize
        self.fingerprint = base.fingerprint

    def key_for(self, word: str, *, case_fallback: bool = True) -> str | None:
        """The first of the word's look-up forms in the vocabulary (``case_fallback``
        is ignored: ``case`` rules here)."""
        for form in lookup_forms(word, case=self.case, accents=self.accents,
                                 preprocessor=self.preprocessor):
            if form in self.base:
                return form
        return None

    def __contains__(self, word: object) -> bool:
        return word in self.base

    def vectors(self, words: Sequence[str]) -> np.ndarray:
        rows = self.base.vectors(words)
        if not self.normalize:
            return rows
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)

    def describe(self) -> dict[str, object]:
        return self.base.describe()


class _Encoder(Protocol):
    fingerprint: str

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray: ...

    def describe(self) -> dict[str, object]: ...


def association_scores(targets: np.ndarray, attr_a: np.ndarray,
                       attr_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """s(w, A, B) for each row of ``targets`` plus the two mean cosines."""
    t, a, b = (_unit(m) for m in (targets, attr_a, attr_b))
    mean_a = (t @ a.T).mean(axis=1)
    mean_b = (t @ b.T).mean(axis=1)
    return mean_a - mean_b, mean_a, mean_b


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise DataError("a word or sentence has an all-zero vector; cosine is undefined")
    return m / norms


_STATISTICS = {"ci": "noncentral t over source words", "test_unit": "source words",
               "similarity": "cosine", "effect_size_std": "sample (ddof=1)"}
"""The statistics WEAT and SEAT record in ``metadata["params"]``."""
WEAT_DESIGN = Design("effect-size", unit="words")
"""WEAT's d: a standardised X - Y difference over independent target words."""
SEAT_DESIGN = Design("effect-size", unit="sentences", clusters="source words")
"""SEAT's d: over sentences that share their source word (the unit of independence)."""


def effect_size_ci(sx: np.ndarray, sy: np.ndarray, words_x: Sequence[str] | None = None,
                   words_y: Sequence[str] | None = None, *, confidence: float = 0.95,
                   unit: str = "words") -> CI:
    """CI of Caliskan's d (an addition to the paper), chosen by
    :func:`genderscope.stats.design.infer` from :data:`WEAT_DESIGN` (one score per word) or
    :data:`SEAT_DESIGN` (scores grouped by source word): the noncentral-t interval of
    :mod:`genderscope.stats.standardized` (Hedges & Olkin 1985, Ch. 5)."""
    v = np.concatenate([np.asarray(sx, dtype=float), np.asarray(sy, dtype=float)])
    groups = ["X"] * len(sx) + ["Y"] * len(sy)
    if words_x is None or words_y is None:
        design, clusters = replace(WEAT_DESIGN, unit=unit), None
    else:
        design = replace(SEAT_DESIGN, clusters=unit)
        clusters = [f"X:{w}" for w in words_x] + [f"Y:{w}" for w in words_y]
    ci = infer(design, v, clusters, groups=groups, estimate=effect_size(sx, sy),
               confidence=confidence).ci
    return ci


def word_level_test(sx: np.ndarray, sy: np.ndarray, words_x: Sequence[str],
                    words_y: Sequence[str], *, n_permutations: int, seed: int,
                    exact_limit: int) -> tuple[float, float, int, bool]:
    """Permutation test with whole source words as the unit: (p one-sided, p two-sided,
    number of partitions, exact). The statistic is S over the per-word mean scores;
    with every word in the same number of templates it ranks partitions as Caliskan's
    sentence-level S does."""
    mx = pd.Series(sx).groupby(pd.factorize(pd.Series(list(words_x)))[0]).mean().to_numpy()
    my = pd.Series(sy).groupby(pd.factorize(pd.Series(list(words_y)))[0]).mean().to_numpy()
    r = difference_of_sums_test(mx, my, n_permutations=n_permutations, seed=seed,
                                exact_limit=exact_limit)
    return r.p_one_sided, r.p_two_sided, r.n_permutations, r.exact


def _check_roles(name: str, roles: Sequence[str], sets: Sequence[WordSet],
                 kept: dict[str, list[str]], missing: dict[str, list[str]],
                 max_oov: float) -> None:
    """Each role's set keeps a word and loses at most ``max_oov`` of them, else a
    one-line :class:`DataError` naming the set and its lost words."""
    for role, ws in zip(roles, sets, strict=True):
        total = len(ws.examples)
        lost = len(missing[role])
        if not kept[role]:
            raise DataError(f"{name}: every word of set {role} ({ws.category}) is out of "
                            f"vocabulary: {', '.join(missing[role][:10])}")
        if lost / total > max_oov:
            raise DataError(f"{name}: {lost} of {total} words of set {role} "
                            f"({ws.category}) are out of vocabulary (> {max_oov:.0%} allowed; "
                            f"raise --max-oov to accept): {', '.join(missing[role][:10])}")


def _check_sets(test: AssociationTest, kept: dict[str, list[str]],
                missing: dict[str, list[str]], max_oov: float) -> None:
    _check_roles(test.name, ROLES, test.sets(), kept, missing, max_oov)
    if len(kept["X"]) + len(kept["Y"]) < 3:
        raise DataError(f"{test.name}: X and Y together need at least 3 scored targets")


def _run(test: AssociationTest, emb: dict[str, np.ndarray], kept: dict[str, list[str]],
         keys: dict[str, list[str]], missing: dict[str, list[str]], *, method: str,
         model: dict[str, object], n_permutations: int, seed: int, exact_limit: int,
         n_resamples: int, params: dict[str, Any], effect_size: str = "caliskan") -> Result:
    targets = np.vstack([emb["X"], emb["Y"]])
    s, mean_a, mean_b = association_scores(targets, emb["A"], emb["B"])
    nx = len(kept["X"])
    sx, sy = s[:nx], s[nx:]
    labels = (source_words([kept[r] for r in ROLES])[:2] if method == "seat"
              else [kept["X"], kept["Y"]])
    perm = difference_of_sums_test(sx, sy, n_permutations=n_permutations, seed=seed,
                                   exact_limit=exact_limit)
    p1, p2, n_perm, exact = word_level_test(sx, sy, labels[0], labels[1],
                                            n_permutations=n_permutations, seed=seed,
                                            exact_limit=exact_limit)
    if method == "weat":
        ci = effect_size_ci(sx, sy, unit="words")
    else:
        ci = effect_size_ci(sx, sy, labels[0], labels[1], unit="source words")
    if effect_size == "wefe":  # population SD: d times sqrt(n / (n - 1)); the interval
        # is of the same population d (genderscope.stats.standardized), so it stays
        ci = replace(ci, estimate=ci.estimate * float(np.sqrt(s.size / (s.size - 1))))
    items = pd.DataFrame({
        "set": ["X"] * nx + ["Y"] * len(kept["Y"]),
        "category": [test.targ1.category] * nx + [test.targ2.category] * len(kept["Y"]),
        "text": kept["X"] + kept["Y"], "source_word": labels[0] + labels[1],
        "key": keys["X"] + keys["Y"],
        "association": s, "mean_cos_a": mean_a, "mean_cos_b": mean_b,
    })
    oov = pd.DataFrame([{"set": r, "text": w} for r in ROLES for w in missing[r]],
                       columns=["set", "text"])
    sizes = {r: len(kept[r]) for r in ROLES}
    summary = {
        "test": test.name,
        "categories": {r: ws.category for r, ws in zip(ROLES, test.sets(), strict=True)},
        "effect_size": ci.as_dict(),
        "statistic": perm.statistic,
        "p_value": p2,
        "p_two_sided": p2,
        "p_one_sided": p1,
        "test_unit": "words" if method == "weat" else "source words",
        "n_units": {"X": len(set(labels[0])), "Y": len(set(labels[1]))},
        "n_permutations": n_perm,
        "exact": exact,
        "sizes": sizes,
        "n_oov": {r: len(missing[r]) for r in ROLES},
    }
    if method == "seat":
        summary["p_as_published"] = {
            "p_one_sided": perm.p_one_sided, "p_two_sided": perm.p_two_sided,
            "unit": "sentences", "n_permutations": perm.n_permutations,
            "note": "May et al.'s permutation over sentences: it treats the sentences of one "
                    "word as independent, so it is anti-conservative (issue 22: 0.48 "
                    "false positives two-sided)"}
    meta = {"model": model, "params": params, "data": test.data_meta(), "seed": seed}
    return Result(method, summary, items, meta, tables={"oov": oov})


def weat(vectors: Any, test: AssociationTest, *, n_permutations: int = 10_000, seed: int = 0,
         exact_limit: int = DEFAULT_EXACT_LIMIT, max_oov: float = DEFAULT_MAX_OOV,
         case_fallback: bool = True, phrases: str = "skip",
         n_resamples: int = 10_000, effect_size: str = "caliskan") -> Result:
    """WEAT of ``test`` on :class:`~genderscope.models.vectors.WordVectors`, words looked up
    as :func:`genderscope.measures.embedding_metrics._sets.look_up` does (out-of-vocabulary
    words dropped and listed, lowercase tried when ``case_fallback``). ``phrases="mean"``
    embeds an absent multi-word entry as the mean of its words' vectors (May et al. 2019's
    bag of words). ``effect_size="wefe"`` divides by the population SD (ddof 0, as WEFE
    1.0.1; larger by sqrt(n / (n - 1)), the same interval)."""
    if effect_size not in EFFECT_SIZES:
        raise DataError(f"effect_size must be one of {', '.join(EFFECT_SIZES)}, "
                        f"got {effect_size!r}")
    if phrases not in ("skip", "mean"):
        raise DataError(f"phrases must be 'skip' or 'mean', got {phrases!r}")
    kept: dict[str, list[str]] = {}
    keys: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    for role, ws in zip(ROLES, test.sets(), strict=True):
        kept[role], keys[role], missing[role] = [], [], []
        seen: set[str] = set()
        for w in ws.examples:
            k = vectors.key_for(w, case_fallback=case_fallback)
            if k is None and phrases == "mean" and len(w.split()) > 1:
                parts = [vectors.key_for(p, case_fallback=case_fallback) for p in w.split()]
                k = " ".join(parts) if all(p is not None for p in parts) else None
            if k is None:
                missing[role].append(w)
            elif k not in seen:  # two spellings of one vocabulary entry count once
                seen.add(k)
                kept[role].append(w)
                keys[role].append(k)
    _check_sets(test, kept, missing, max_oov)
    emb = {r: np.vstack([_lookup(vectors, k) for k in keys[r]]) for r in ROLES}
    params = {"n_permutations": n_permutations, "exact_limit": exact_limit,
              "max_oov": max_oov, "case_fallback": case_fallback, "phrases": phrases,
              **_STATISTICS}
    if effect_size == "wefe":
        params["effect_size_std"] = "population (ddof=0), as WEFE"
    return _run(test, emb, kept, keys, missing, method="weat", model=vectors.describe(),
                n_permutations=n_permutations, seed=seed, exact_limit=exact_limit,
                n_resamples=n_resamples, params=params, effect_size=effect_size)


def _lookup(vectors: Any, key: str) -> np.ndarray:
    """One vector; a space-joined key of a phrase is the mean of its words' vectors."""
    if key in vectors:
        return vectors.vectors([key])[0]
    return vectors.vectors(key.split(" ")).mean(axis=0)


def seat(encoder: _Encoder, test: AssociationTest, *, n_permutations: int = 10_000,
         seed: int = 0, exact_limit: int = DEFAULT_EXACT_LIMIT, n_resamples: int = 10_000,
         progress: bool = False) -> Result:
    """SEAT of ``test`` on a sentence encoder (anything with ``encode(texts)``), or on a
    masked / causal LM adapter through its encoder view (bias-bench's mean-pooled last
    hidden states, :mod:`genderscope.models.lm_encoder`). Every sentence is encoded once; an
    example repeated inside one set counts once, as in WEAT."""
    from genderscope.models.lm_encoder import as_sentence_encoder

    encoder = as_sentence_encoder(encoder)
    kept = {r: list(dict.fromkeys(ws.examples)) for r, ws in zip(ROLES, test.sets(),
                                                                    strict=True)}
    unique = list(dict.fromkeys(t for r in ROLES for t in kept[r]))
    mat = np.asarray(encoder.encode(unique, progress=progress), dtype=np.float64)
    if mat.shape[0] != len(unique):
        raise DataError(f"encoder returned {mat.shape[0]} embeddings for {len(unique)} texts")
    row = {t: i for i, t in enumerate(unique)}
    emb = {r: mat[[row[t] for t in kept[r]]] for r in ROLES}
    missing: dict[str, list[str]] = {r: [] for r in ROLES}
    params = {"n_permutations": n_permutations, "exact_limit": exact_limit, **_STATISTICS}
    return _run(test, emb, kept, kept, missing, method="seat", model=encoder.describe(),
                n_permutations=n_permutations, seed=seed, exact_limit=exact_limit,
                n_resamples=n_resamples, params=params)
