"""Calibration rows for reported statistics that had none on docs/calibration.md (found by
``tests/stats/test_calibration_coverage.py``): SEAT's p over source words and the
sentence-level p it keeps as ``p_as_published``, CrowS-Pairs' exact binomial test,
compare's mid-p McNemar test of a binary outcome, run-many's rank correlation tests,
the attack's paired percentile bootstrap of the asymmetry, and the counterfactual's
two-group percentile bootstrap of m2f - f2m.

Plain numpy: no pytest. Each function simulates one design ``sims`` times from ``seed``
through the function the measure calls and returns :class:`calibration_sims.Row` values;
``tests/stats/test_calibration_reported.py`` asserts them.
"""

from __future__ import annotations

import numpy as np
from calibration_sims import ALPHA, COVER, FPR, Row, _seeds, skewed

SRC = "tests/stats/test_calibration_reported.py::"


def seat_scores(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[str],
                                                    list[str]]:
    """SEAT-like association scores under no association: 8 + 8 source words x 8
    templates; a skewed word effect (centred gamma, skewness 0.8), a template effect
    shared by X and Y (N(0, 0.5): crossed), sentence noise N(0, 0.3)."""
    tmpl = rng.normal(0, 0.5, 8)
    sx = (skewed(rng, 8)[:, None] + tmpl + rng.normal(0, 0.3, (8, 8))).ravel()
    sy = (skewed(rng, 8)[:, None] + tmpl + rng.normal(0, 0.3, (8, 8))).ravel()
    words = [f"w{i}" for i in np.repeat(np.arange(8), 8)]
    return sx, sy, words, [f"v{w}" for w in words]


def seat_null_rows(sims: int, published: int, seed: int = 2236) -> list[Row]:
    """SEAT's two-sided p (:func:`genderscope.measures.weat.word_level_test`: whole source
    words permuted) and, over the first ``published`` runs, May et al.'s sentence-level
    permutation (``p_as_published``: :func:`genderscope.stats.permutation.
    difference_of_sums_test` over sentences), under no association."""
    from genderscope.measures.weat import word_level_test
    from genderscope.stats.permutation import difference_of_sums_test

    rng = _seeds(seed)
    words = sentences = 0
    for k in range(sims):
        sx, sy, wx, wy = seat_scores(rng)
        words += word_level_test(sx, sy, wx, wy, n_permutations=200, seed=k,
                                 exact_limit=0)[1] < ALPHA
        if k < published:
            sentences += difference_of_sums_test(sx, sy, n_permutations=200, seed=k,
                                                 exact_limit=0).p_two_sided < ALPHA
    design = ("8 + 8 source words x 8 templates, skewed word effects, template effects "
              "shared by X and Y, no association")
    src = SRC + "test_seat_p_over_source_words_holds_its_size"
    return [Row("seat-test", design, "SEAT permutation test over source words, two-sided",
                "FPR", sims, int(words), src, calibrates=("p: seat",)),
            Row("seat-p-as-published", design, "SEAT p_as_published: May et al.'s "
                "permutation over sentences (shown beside the p above, not the p)", "FPR",
                published, int(sentences), src,
                "as published: the sentences of one source word share its effect, so "
                "permuting them as independent rejects far too often; the output labels "
                "it and gives the p over source words as the p",
                calibrates=("p: seat as published",))]


def crows_pairs_row(sims: int, seed: int = 2237) -> Row:
    """CrowS-Pairs' per-bias-type p (``crows_pairs._pct``: the exact binomial test of the
    share preferring the stereotype against 50 %) over n ~ U{20..262} pairs, each
    preferring the stereotype with probability 0.5."""
    import pandas as pd

    from genderscope.measures.crows_pairs import _pct

    rng = _seeds(seed)
    rejected = 0
    for _ in range(sims):
        pref = rng.random(int(rng.integers(20, 263))) < 0.5
        rejected += _pct(pd.DataFrame({"stereotypical_preferred": pref}))["p_value"] < ALPHA
    rate = rejected / sims
    return Row("crows-pairs-binomial", "n = 20-262 independent pairs (uniform), each "
               "preferring the stereotype with probability 0.5", "CrowS-Pairs per bias "
               "type: exact binomial test against 50 %", "FPR", sims, int(rejected),
               SRC + "test_crows_pairs_binomial_test_holds_its_size",
               "" if FPR[0] <= rate <= FPR[1] else "an exact test of a count: its size is "
               "at most 0.05 and below it where the count's discreteness leaves no p at "
               "exactly 0.05 (conservative, never anti-conservative)",
               calibrates=("p: crows-pairs",))


def attack_row(sims: int, seed: int = 2238, resamples: int = 1000) -> Row:
    """The attack's asymmetry (success rate man->woman - woman->man over the same texts:
    :func:`genderscope.measures.attack.paired_rate_difference`, paired percentile
    bootstrap) over n ~ U{20..100} texts, each with its own susceptibility q ~ Beta(2, 2):
    success man->woman ~ Bernoulli(q), woman->man ~ Bernoulli(0.9 q); truth 0.05."""
    from genderscope.measures.attack import paired_rate_difference

    rng = _seeds(seed)
    hits = 0
    for s in range(sims):
        n = int(rng.integers(20, 101))
        q = rng.beta(2.0, 2.0, n)
        a, b = rng.random(n) < q, rng.random(n) < 0.9 * q
        ci = paired_rate_difference(a, np.ones(n), b, np.ones(n), n_resamples=resamples,
                                    seed=s)
        hits += ci["ci_low"] <= 0.05 <= ci["ci_high"]
    rate = hits / sims
    return Row("attack-asymmetry", "n = 20-100 texts attacked both ways, susceptibility "
               "Beta(2, 2) per text, woman->man 0.9 times as likely to succeed (truth "
               "0.05)", "attack asymmetry CI: paired percentile bootstrap over texts",
               "coverage", sims, int(hits), SRC + "test_attack_asymmetry_ci_covers",
               "" if COVER[0] <= rate <= COVER[1] else "a percentile bootstrap of a "
               "difference of shares over 20-100 texts: slightly narrow",
               calibrates=("interval: paired percentile bootstrap",))


def counterfactual_difference_row(sims: int, seed: int = 2239, resamples: int = 1000
                                  ) -> Row:
    """The counterfactual's m2f - f2m difference of mean prediction changes
    (:func:`genderscope.measures.counterfactual.diff_ci`, two-group percentile bootstrap)
    over n_m2f, n_f2m ~ U{20..100} independent texts whose changes are skewed (0.1 x a
    centred gamma, skewness 0.8) around 0.05 (m2f) and 0 (f2m); truth 0.05."""
    from genderscope.measures.counterfactual import diff_ci

    rng = _seeds(seed)
    hits = 0
    for s in range(sims):
        na, nb = (int(x) for x in rng.integers(20, 101, 2))
        a = 0.05 + 0.1 * skewed(rng, na)
        b = 0.1 * skewed(rng, nb)
        ci = diff_ci(a, b, n_resamples=resamples, seed=s)
        hits += ci["ci_low"] <= 0.05 <= ci["ci_high"]
    rate = hits / sims
    return Row("counterfactual-m2f-f2m", "n = 20-100 m2f and 20-100 f2m texts "
               "(independent), skewed changes, true difference 0.05", "counterfactual "
               "m2f - f2m mean change CI: two-group percentile bootstrap", "coverage", sims,
               int(hits), SRC + "test_counterfactual_difference_ci_covers",
               "" if COVER[0] <= rate <= COVER[1] else "a percentile bootstrap of a "
               "difference of means over 20-100 texts a group: slightly narrow",
               calibrates=("interval: two-group percentile bootstrap",))


def mcnemar_row(sims: int, seed: int = 2240) -> Row:
    """``compare``'s McNemar test of a binary outcome before/after
    (:func:`genderscope.measures.compare.mcnemar_test`: the mid-p binomial test of the
    discordant pairs, Fagerland et al. 2013) over n ~ U{20..262} pairs, each preferring
    the stereotype before with probability 0.5 and keeping its answer after with
    probability 0.8, so that true -> false and false -> true are equally likely (no
    change). The exact conditional test it replaced rejected 0.024 here (2,000 runs)."""
    from genderscope.measures.compare import mcnemar_test

    rng = _seeds(seed)
    rejected = 0
    for _ in range(sims):
        n = int(rng.integers(20, 263))
        before = rng.random(n) < 0.5
        after = np.where(rng.random(n) < 0.8, before, rng.random(n) < 0.5)
        rejected += mcnemar_test(before, after)["p_value"] < ALPHA
    rate = rejected / sims
    return Row("compare-mcnemar", "n = 20-262 pairs (uniform), a binary outcome (e.g. "
               "CrowS-Pairs' stereotype preferred) 0.5 before, kept with probability 0.8, "
               "no change", "compare: mid-p McNemar test of a binary outcome", "FPR", sims,
               int(rejected), SRC + "test_compare_mcnemar_test_holds_its_size",
               "" if FPR[0] <= rate <= FPR[1] else "a test of a discrete count: its size "
               "moves with the number of discordant pairs",
               calibrates=("p: compare mcnemar",))


def rank_correlation_rows(sims: int, seed: int = 2241) -> list[Row]:
    """``run-many``'s test of the rank correlation between two metrics' rankings of the
    same models (:func:`genderscope.stats.rankings.correlation_tests`: exact permutation p
    up to 8 models, else scipy's) over n models ranked independently (no correlation):
    Spearman's rho at n ~ U{4..30}; Kendall's tau at n ~ U{9..30}, because its exact
    enumeration takes 2-16 s a test at 7-8 models (measured), too slow to simulate."""
    import pandas as pd

    from genderscope.stats.rankings import correlation_tests

    rows = []
    for method, low in (("spearman", 4), ("kendall", 9)):
        rng = _seeds(seed)
        rejected = 0
        for _ in range(sims):
            n = int(rng.integers(low, 31))
            ranks = pd.DataFrame({"a": rng.permutation(n) + 1.0, "b": rng.permutation(n) + 1.0})
            rejected += correlation_tests(ranks, method)["p_value"].iloc[0] < ALPHA
        rate = rejected / sims
        rows.append(Row(f"rank-correlation-{method}", f"n = {low}-30 models (uniform), two "
                        "metrics ranking them independently", f"run-many: {method} rank "
                        "correlation test", "FPR", sims, int(rejected),
                        SRC + "test_rank_correlation_tests_hold_their_size",
                        "" if FPR[0] <= rate <= FPR[1] else "exact permutation p of a "
                        "statistic with few distinct values at 4-8 models: conservative",
                        calibrates=("p: run-many spearman",) if method == "spearman"
                        else ("p: run-many kendall",)))
    return rows
