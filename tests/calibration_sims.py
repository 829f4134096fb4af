"""Calibration simulations shared by the calibration tests (tests/stats/test_calibration*.py)
and the calibration table (``python scripts/calibration_table.py`` -> docs/calibration.md).

Plain numpy: no pytest. Each ``*_row`` function simulates one design ``sims`` times from
``seed`` and returns a :class:`Row`: what was simulated, the statistic, how often the
95 % interval covered the truth (or the test rejected at alpha 0.05 under its null), the
bar, and the known limit where there is one. The tests run them with more simulations and
assert the bar; the table runs them with the counts it prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05
FPR = (0.03, 0.07)
COVER = (0.93, 0.97)


@dataclass(frozen=True)
class Row:
    """One line of the calibration table."""

    key: str
    """Short id (stable: the tests and the page name rows by it)."""
    design: str
    """The design simulated, in words."""
    statistic: str
    """The reported interval or test, and the measure that reports it."""
    kind: str
    """``coverage`` (of the 95 % CI) or ``FPR`` (false-positive rate at alpha 0.05)."""
    sims: int
    hits: int
    """Simulations whose CI covered the truth (coverage) or whose test rejected (FPR)."""
    source: str
    """The test that asserts it (file::function)."""
    limit: str = ""
    """A known limit: why this row may sit outside the bar (empty: none)."""

    @property
    def rate(self) -> float:
        return self.hits / self.sims

    @property
    def bar(self) -> tuple[float, float]:
        return COVER if self.kind == "coverage" else FPR

    @property
    def within(self) -> bool:
        return self.bar[0] <= self.rate <= self.bar[1]

    def wilson(self) -> tuple[float, float]:
        """95 % Wilson interval of the rate (its Monte-Carlo error)."""
        from genderscope.stats import proportion_ci

        ci = proportion_ci(self.hits, self.sims)
        return ci.ci_low, ci.ci_high


def _seeds(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# -- counterfactual flip rate: rare flips (issue 36, row 1) ---------------------------------
class _Swapper:
    """Texts ``t<i>``; the swap appends `` *``; even texts are m2f, odd f2m."""

    def swap(self, text: str) -> str:
        return text + " *"

    def direction(self, text: str) -> str:
        return "m2f" if int(text[1:]) % 2 == 0 else "f2m"


def _flip_classifier(flips: np.ndarray):  # noqa: ANN202
    """A classifier whose label flips on the swapped text ``t<i> *`` exactly where
    ``flips[i]`` (probabilities 0.9 / 0.1 before; 0.2 / 0.8 flipped, 0.7 / 0.3 not)."""
    from genderscope.models.classifier import Classifier

    def proba(texts: list[str]) -> np.ndarray:
        out = np.tile([0.9, 0.1], (len(texts), 1))
        for j, t in enumerate(texts):
            if t.endswith(" *"):
                out[j] = (0.2, 0.8) if flips[int(t[1:-2])] else (0.7, 0.3)
        return out

    return Classifier(proba, labels=["a", "b"])


def flip_rates(flips: np.ndarray, clusters: np.ndarray | None = None, *,
               seed: int = 0) -> dict:
    """``flip_test``'s summary for texts whose labels flip where ``flips`` says."""
    from genderscope.measures.counterfactual import flip_test

    texts = [f"t{i}" for i in range(flips.size)]
    kw = {} if clusters is None else {"clusters": list(clusters)}
    return flip_test(texts, _flip_classifier(flips), _Swapper(), n_resamples=100, seed=seed,
                     **kw).summary


def flip_rate_row(sims: int, seed: int = 361) -> Row:
    """Independent texts, n ~ U{50..200}, each flipping with p ~ U(0.01, 0.05): does the
    flip rate's CI (``summary["all"]["flip_rate"]``) cover p?"""
    rng = _seeds(seed)
    hits = 0
    for s in range(sims):
        n, p = int(rng.integers(50, 201)), float(rng.uniform(0.01, 0.05))
        ci = flip_rates(rng.random(n) < p, seed=s)["all"]["flip_rate"]
        hits += ci["ci_low"] <= p <= ci["ci_high"]
    return Row("flip-rate", "n = 50-200 independent texts, flip probability p = 0.01-0.05 "
               "(uniform)", "counterfactual flip rate: Wilson", "coverage", sims, hits,
               "tests/stats/test_calibration_design.py::test_flip_rate_ci_covers_rare_flips")


def template_flips(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """Texts from K ~ U{10..40} templates of 2-8 texts each; template k flips with
    p_k ~ Beta (mean p ~ U(0.01, 0.05), intra-template correlation rho ~ U(0.02, 0.2));
    returns (flips, template of each text, p): the truth is the templates' mean p."""
    k = int(rng.integers(10, 41))
    sizes = rng.integers(2, 9, k)
    p, rho = float(rng.uniform(0.01, 0.05)), float(rng.uniform(0.02, 0.2))
    pk = rng.beta(p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho, k)
    template = np.repeat(np.arange(k), sizes)
    return rng.random(template.size) < pk[template], template, p


def flip_rate_templates_row(sims: int, seed: int = 362) -> Row:
    """Texts sharing templates (:func:`template_flips`): does the clustered flip rate's
    CI (``flip_test(..., clusters=templates)``) cover the templates' mean p?"""
    rng = _seeds(seed)
    hits = 0
    for s in range(sims):
        flips, template, p = template_flips(rng)
        ci = flip_rates(flips, template, seed=s)["all"]["flip_rate"]
        hits += ci["ci_low"] <= p <= ci["ci_high"]
    return Row("flip-rate-templates", "10-40 templates x 2-8 texts, template flip "
               "probabilities Beta(mean 0.01-0.05, intra-template correlation 0.02-0.2)",
               "counterfactual flip rate with clusters: design-effect Wilson, t(K-1)",
               "coverage", sims, hits, "tests/stats/test_calibration_design.py::"
               "test_flip_rate_ci_with_templates_covers")


# -- RIPA: few word pairs (issue 36, row 3) ------------------------------------------------
RIPA_DIM = 10
RIPA_SHIFT = 1.0
"""Pairs differ by RIPA_SHIFT along axis 0 plus N(0, 2) noise per coordinate."""


def _ripa_kappa() -> float:
    """E[b_0] for b = (x - y) / ||x - y||, x - y ~ N(RIPA_SHIFT e_0, 2 I): the mean relation
    vector is kappa e_0 (by symmetry), so RIPA's truth for attribute words a is kappa *
    mean(a_0). Monte Carlo with 4 million draws (error about 1e-4)."""
    rng = np.random.default_rng(20361)
    total = 0.0
    for _ in range(4):
        u = rng.normal(0.0, np.sqrt(2.0), (1_000_000, RIPA_DIM))
        u[:, 0] += RIPA_SHIFT
        total += float(np.mean(u[:, 0] / np.linalg.norm(u, axis=1)))
    return total / 4


_KAPPA: list[float] = []


def ripa_kappa() -> float:
    if not _KAPPA:
        _KAPPA.append(_ripa_kappa())
    return _KAPPA[0]


def ripa_world(rng: np.random.Generator, n_pairs: int, n_attr: int = 8):  # noqa: ANN201
    """(vectors, test, attribute vectors of A): pairs x_i = c_i + shift e_0 / 2 + e,
    y_i = c_i - shift e_0 / 2 + e'; attribute words a ~ N(0.5, 1) per coordinate (not
    centred on the pairs)."""
    from genderscope.datasets.seat import AssociationTest, WordSet
    from genderscope.models.vectors import WordVectors

    e0 = np.zeros(RIPA_DIM)
    e0[0] = RIPA_SHIFT / 2
    c = rng.normal(size=(n_pairs, RIPA_DIM))
    x = c + e0 + rng.normal(size=(n_pairs, RIPA_DIM))
    y = c - e0 + rng.normal(size=(n_pairs, RIPA_DIM))
    a = rng.normal(size=(n_attr, RIPA_DIM)) + 0.5
    b = rng.normal(size=(n_attr, RIPA_DIM)) + 0.5
    names = {"X": [f"x{i}" for i in range(n_pairs)], "Y": [f"y{i}" for i in range(n_pairs)],
             "A": [f"a{i}" for i in range(n_attr)], "B": [f"b{i}" for i in range(n_attr)]}
    mat = np.vstack([x, y, a, b]).astype(np.float32)
    words = [w for ws in names.values() for w in ws]
    test = AssociationTest("sim", *(WordSet(r, tuple(ws)) for r, ws in names.items()))
    return (WordVectors(mat, words, fingerprint="sim"), test,
            mat[2 * n_pairs:2 * n_pairs + n_attr].astype(float))


def ripa_row(n_pairs: int, sims: int, seed: int = 363) -> Row:
    """RIPA(A) on ``n_pairs`` word pairs, attribute words held fixed: does its CI cover
    kappa * mean(a_0), the value over the population of pairs for these attributes?"""
    from genderscope.measures.embedding_metrics import ripa

    rng = _seeds(seed + n_pairs)
    kappa = ripa_kappa()
    hits = 0
    for s in range(sims):
        vecs, test, attrs = ripa_world(rng, n_pairs)
        ci = ripa(vecs, test, n_permutations=0, seed=s, n_resamples=200).summary[
            "attributes"]["A"]
        hits += ci["ci_low"] <= kappa * float(attrs[:, 0].mean()) <= ci["ci_high"]
    return Row(f"ripa-{n_pairs}", f"{n_pairs} word pairs (random relation vectors, mean "
               "along one axis), 8 attribute words held fixed", "RIPA CI: t over word pairs",
               "coverage", sims, hits,
               "tests/stats/test_calibration_design.py::test_ripa_ci_over_pairs_covers")


def ripa_population_row(sims: int, seed: int = 364, n_pairs: int = 20) -> Row:
    """As :func:`ripa_row`, but the truth is the value over the population of attribute
    words too (kappa * 0.5): the interval holds the attribute words fixed (a known limit,
    issue 36 row 3's second half)."""
    from genderscope.measures.embedding_metrics import ripa

    rng = _seeds(seed)
    truth = ripa_kappa() * 0.5
    hits = 0
    for s in range(sims):
        vecs, test, _ = ripa_world(rng, n_pairs)
        ci = ripa(vecs, test, n_permutations=0, seed=s, n_resamples=200).summary[
            "attributes"]["A"]
        hits += ci["ci_low"] <= truth <= ci["ci_high"]
    return Row("ripa-population", f"{n_pairs} word pairs, 8 attribute words drawn anew "
               "(truth: the value over attribute words too)", "RIPA CI: t over word pairs",
               "coverage", sims, hits, "scripts/calibration_table.py (table only)",
               limit="the interval is over word pairs for the attribute words given; it "
               "does not count their sampling (crossed design, issue 36 row 3)")


ROWS: dict[str, Callable[[int], Row]] = {
    "flip-rate": flip_rate_row,
    "flip-rate-templates": flip_rate_templates_row,
    "ripa-8": lambda sims: ripa_row(8, sims),
    "ripa-20": lambda sims: ripa_row(20, sims),
    "ripa-population": ripa_population_row,
}
"""Every row of the table by key: ``ROWS[key](sims) -> Row``."""
