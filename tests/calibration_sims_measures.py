"""Calibration simulations that run whole measures (StereoSet, WinoBias, ABC, LPBS, bias
amplification, the chat probes' cluster bootstrap of a rate), shared by the calibration
tests (tests/stats/test_calibration.py, tests/stats/test_calibration_chat.py,
tests/measures/test_amplification_lm.py) and docs/calibration.md
(``calibration_sims.TABLE`` lists the rows).

Each ``*_rows`` function simulates its design ``sims`` times from a fixed seed and
returns :class:`calibration_sims.Row` objects; an interval a measure no longer reports
(the one it replaced) is a row labelled so, with a known limit.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from calibration_sims import ALPHA, COVER, FPR, Row, _seeds

CAL = "tests/stats/test_calibration.py::"
CHAT = "tests/stats/test_calibration_chat.py::"
AMP_LM = "tests/measures/test_amplification_lm.py::"
REPLACED = "replaced, no longer reported"


def _cover_limit(rate: float, why: str) -> str:
    """``why`` where a coverage ``rate`` lies outside the bar (else no limit)."""
    return "" if COVER[0] <= rate <= COVER[1] else why


def _fpr_limit(rate: float, why: str) -> str:
    """``why`` where a false-positive ``rate`` lies outside the bar (else no limit)."""
    return "" if FPR[0] <= rate <= FPR[1] else why


# -- LPBS: words recur across templates (Kurita et al. 2019) ---------------------------------
def lpbs_items(rng: np.random.Generator, shift: float = 0.0) -> pd.DataFrame:
    """8 + 8 attribute words x 3 templates; each word has its own effect shared by its
    templates; ``shift`` is added to set x (0: the null of no set difference)."""
    words = [f"x{i}" for i in range(8)] + [f"y{i}" for i in range(8)]
    word_effect = rng.normal(0, 1, 16) + np.r_[np.full(8, shift), np.zeros(8)]
    rows = np.repeat(np.arange(16), 3)
    return pd.DataFrame({"set": np.where(rows < 8, "x", "y"),
                         "attribute": [words[i] for i in rows],
                         "template_index": np.tile(np.arange(3), 16),
                         "lpbs": word_effect[rows] + rng.normal(0, 0.3, rows.size)})


LPBS_DESIGN = "8 + 8 attribute words x 3 templates, word effects N(0, 1) shared by a word's " \
    "templates, noise sd 0.3; no set difference"


def lpbs_test_rows(sims: int, pooled: int, seed: int = 11) -> list[Row]:
    """LPBS's set test over words (``lpbs.effect``) under the null, and the item-pooled
    permutation test it replaced over the first ``pooled`` of the same draws."""
    from genderscope.measures import lpbs

    rng = _seeds(seed)
    draws = [lpbs_items(rng) for _ in range(sims)]
    p_words = np.array([lpbs.effect(it, "x", "y")["p_two_sided"] for it in draws])
    p_items = np.array([lpbs.effect(it, "x", "y", aggregation="pooled-items",
                                    n_permutations=300)["p_two_sided"]
                        for it in draws[:pooled]])
    src = CAL + "test_lpbs_word_level_test_is_calibrated_and_pooled_is_not"
    return [Row("lpbs-test", LPBS_DESIGN, "LPBS set difference: test over words", "FPR",
                sims, int((p_words < ALPHA).sum()), src,
                calibrates=("p: lpbs",)),
            Row("lpbs-test-items", LPBS_DESIGN, "LPBS set difference: permutation of "
                f"pooled items ({REPLACED})", "FPR", pooled, int((p_items < ALPHA).sum()),
                src, f"{REPLACED}: items of one word are not independent")]


def lpbs_mean_rows(sims: int, boot: int, seed: int = 12) -> list[Row]:
    """The set-mean CI LPBS reports (t over 8 word means) under the null, and a
    percentile bootstrap over the same 8 words (the interval it replaced) in the first
    ``boot`` runs."""
    from genderscope.measures import lpbs
    from genderscope.stats import bootstrap_ci, t_mean_ci

    rng = _seeds(seed)
    hits = hits_boot = 0
    for k in range(sims):
        res = lpbs.word_means(lpbs_items(rng))
        vals = res.loc[res.set == "x", "lpbs"].to_numpy()
        ci = t_mean_ci(vals, unit="words")
        hits += ci.ci_low <= 0.0 <= ci.ci_high
        if k < boot:
            b = bootstrap_ci(vals, n_resamples=400, seed=int(rng.integers(1 << 31)))
            hits_boot += b.ci_low <= 0.0 <= b.ci_high
    src = CAL + "test_lpbs_set_mean_ci_over_words_covers"
    return [Row("lpbs-mean", LPBS_DESIGN, "LPBS set mean: t over word means", "coverage",
                sims, int(hits), src,
                calibrates=("interval: t interval",)),
            Row("lpbs-mean-boot", LPBS_DESIGN, "LPBS set mean: percentile bootstrap over "
                f"8 words ({REPLACED})", "coverage", boot, int(hits_boot), src,
                f"{REPLACED}: a percentile bootstrap of 8 values is too narrow")]


# -- StereoSet: contexts share their target term (Nadeem et al. 2021) ------------------------
def stereoset_items(rng: np.random.Generator, shift: float = 0.0) -> pd.DataFrame:
    """10 targets (as the gender domain) x 21-30 contexts; each target has its own
    stereotype preference (logit ~ N(shift, 1)), so SS over the population of targets
    is 50 at shift 0; ``n_related`` is 0-2 at random."""
    n = rng.integers(21, 31, 10)
    term = np.repeat(np.arange(10), n)
    p = 1.0 / (1.0 + np.exp(-(shift + rng.normal(0, 1, 10))))
    return pd.DataFrame({"target": term.astype(str), "stereo_over_anti": rng.random(term.size)
                         < p[term], "n_related": rng.integers(0, 3, term.size)})


def _ss_over_contexts(pro: np.ndarray, term: np.ndarray, n_terms: int) -> np.ndarray:
    """SS (mean over targets of per-target SS_t) of each row of resampled contexts,
    ``pro`` and ``term`` shaped (B, n): the statistic of the interval before issue 11,
    which resampled contexts as if iid (kept only as the comparison baseline)."""
    b = pro.shape[0]
    offs = (term + n_terms * np.arange(b)[:, None]).ravel()
    count = np.bincount(offs, minlength=b * n_terms).reshape(b, n_terms)
    n_pro = np.bincount(offs, weights=pro.ravel(), minlength=b * n_terms).reshape(b, n_terms)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nanmean(np.where(count > 0, 100.0 * n_pro / count, np.nan), axis=1)


def stereoset_rows(sims: int, boot: int, ctx: int, seed: int = 91) -> list[Row]:
    """SS (stereotype score, %) under no stereotype preference over the population of
    targets: the t interval and t-test over target means ``stereoset.metrics`` reports;
    a percentile cluster bootstrap of the 10 targets (first ``boot`` runs) and the
    bootstrap over contexts as if iid (first ``ctx`` runs), the interval before issue 11."""
    from genderscope.measures import stereoset
    from genderscope.stats import cluster_bootstrap_ci
    from genderscope.stats.resample import index_bootstrap_ci

    rng = _seeds(seed)
    hits = rejected = hits_boot = hits_ctx = 0
    for k in range(sims):
        df = stereoset_items(rng)
        ss = stereoset.metrics(df, n_resamples=20, seed=k)["ss"]
        hits += ss["ci_low"] <= 50.0 <= ss["ci_high"]
        rejected += ss["p_value"] < ALPHA
        if k < boot:
            per = stereoset.target_scores(df)
            tot = np.column_stack([per["ss"], np.ones(len(per))])
            c = cluster_bootstrap_ci(tot, lambda t: t[:, 0] / t[:, 1], unit="targets",
                                     n_resamples=400, seed=k)
            hits_boot += c.ci_low <= 50.0 <= c.ci_high
        if k < ctx:
            term = pd.factorize(df["target"])[0]
            pro = df["stereo_over_anti"].to_numpy(float)
            c = index_bootstrap_ci([len(df)], lambda i, pro=pro, term=term:
                                   _ss_over_contexts(pro[i[0]], term[i[0]], 10),
                                   n_resamples=300, seed=k)
            if not np.isclose(c.estimate, ss["estimate"]):
                raise AssertionError("the contexts bootstrap's SS is not the measure's")
            hits_ctx += c.ci_low <= 50.0 <= c.ci_high
    design = ("10 targets x 21-30 contexts, each target's stereotype logit N(0, 1): SS 50 "
              "over the population of targets")
    src = CAL + "test_stereoset_ss_interval_and_test_over_targets"
    return [Row("stereoset-ss", design, "StereoSet SS: t interval over targets", "coverage",
                sims, int(hits), src,
                calibrates=("interval: t interval",)),
            Row("stereoset-ss-test", design, "StereoSet SS: t-test over targets", "FPR",
                sims, int(rejected), src,
                calibrates=("test: one-sample t-test of per-target ss",)),
            Row("stereoset-ss-cluster", design, "StereoSet SS: percentile cluster bootstrap "
                "of 10 targets (not reported)", "coverage", boot, int(hits_boot), src,
                "not reported: a percentile bootstrap of 10 targets is too narrow"),
            Row("stereoset-ss-contexts", design, "StereoSet SS: bootstrap over contexts as "
                f"if iid ({REPLACED})", "coverage", ctx, int(hits_ctx), src,
                f"{REPLACED}: contexts of one target are not independent")]


# -- bias amplification from ratios (Zhao et al. 2017): the mean runs over objects -----------
def amplification_ratio_row(sims: int, seed: int = 95) -> Row:
    """66 objects (as COCO MLC): training share b* ~ U(0.2, 0.8), each object's true drift
    towards its majority d ~ N(0, 0.04) (mean 0: no amplification on average), predicted
    share from 40 captions. Does the object-bootstrap CI of the mean bias amplification
    (``bias_amplification_from_ratios``) cover 0?"""
    from genderscope.datasets.captions import RatioTable
    from genderscope.measures.amplification import bias_amplification_from_ratios

    rng = _seeds(seed)
    hits = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ratios.csv"
        path.write_text("object,training_ratio,predicted\n")
        for k in range(sims):
            b = rng.uniform(0.2, 0.8, 66)
            p = b + np.sign(b - 0.5) * rng.normal(0, 0.04, 66)
            table = RatioTable([f"o{i}" for i in range(66)], list(b),
                               list(rng.binomial(40, p) / 40), "object", "training_ratio",
                               "predicted", str(path))
            m = bias_amplification_from_ratios(table, n_resamples=400, seed=k).summary[
                "mean_bias_amplification"]
            if m["ci_unit"] != "objects":
                raise AssertionError(f"unit {m['ci_unit']!r}, not objects")
            hits += m["ci_low"] <= 0.0 <= m["ci_high"]
    return Row("amplification-ratios", "66 objects, training share U(0.2, 0.8), drift to "
               "the majority N(0, 0.04), 40 captions each", "bias amplification (ratios): "
               "bootstrap over objects", "coverage", sims, int(hits),
               CAL + "test_amplification_ci_over_objects_covers",
               calibrates=("interval: percentile bootstrap",))


def amplification_lm_rates(n_items: int, n_templates: int, samples: int, sims: int, *,
                           metric: str = "mean_bias_amplification", amplify: float = 0.0,
                           template_sd: float = 0.0) -> tuple[float, float]:
    """(share of runs whose 95 % interval, ``amplification_lm.cell_interval``, excludes 0;
    share covering the true value) for a model whose answers name a man with probability
    b*(o) + ``amplify`` x sign(b*(o) - 1/2) + u_t (u_t ~ N(0, ``template_sd``), one per
    template; clipped to [0.01, 0.99]), 10 % of answers naming no gender. The true mean
    bias amplification is ``amplify`` (training ratios in [0.15, 0.85] when
    ``amplify`` or ``template_sd`` is set, [0.05, 0.95] otherwise: no clipping)."""
    from genderscope.measures.amplification_lm import _coefficients, cell_interval

    rejected = covered = 0
    wide = amplify == 0 and template_sd == 0
    for k in range(sims):
        rng = np.random.default_rng([40, k])
        r = rng.uniform(0.05, 0.95, n_items) if wide else rng.uniform(0.15, 0.85, n_items)
        b = np.column_stack([r, 1 - r])
        item_of = np.repeat(np.arange(n_items), n_templates)
        template_of = np.tile(np.arange(n_templates), n_items)
        n = rng.binomial(samples, 0.9, item_of.size)
        p = r + amplify * np.sign(r - 0.5)
        if template_sd:
            p = np.clip(p[item_of] + rng.normal(0, template_sd, n_templates)[template_of],
                        0.01, 0.99)
        else:
            p = p[item_of]
        men = rng.binomial(n, p)
        coef = _coefficients(b, b.mean(axis=0))[metric]
        ci = cell_interval(item_of, template_of, np.column_stack([men, n - men]), b, coef)
        rejected += bool(ci.ci_low > 0 or ci.ci_high < 0)
        covered += bool(ci.ci_low <= amplify <= ci.ci_high)
    return rejected / sims, covered / sims


def amplification_lm_null_rate(n_items: int, n_templates: int, samples: int, sims: int, *,
                               metric: str = "mean_bias_amplification") -> float:
    """Share of simulated runs whose 95 % interval excludes 0 under a model that draws
    each answer's gender from the training ratio (:func:`amplification_lm_rates`)."""
    return amplification_lm_rates(n_items, n_templates, samples, sims, metric=metric)[0]


AMP_LM_WHY = "items x templates crossed, the interval's df by Satterthwaite (median 3.1 " \
    "at 40 items x 5 templates)"


def amplification_lm_rows(sims: int, few: int) -> list[Row]:
    """The chat-model bias amplification's interval (items x templates, the two-sample
    jackknife t) under a model that copies the training ratios: 'amplification' (the CI
    excludes 0) for both metrics at 40 items x 40 templates x 3 samples (``sims`` runs)
    and at the default's 5 templates x 5 samples (``few`` runs); and the coverage of a
    true amplification of 0.05 at 5 templates with template effects (``few`` runs)."""
    src = AMP_LM + "test_calibration_false_amplification_rate_large"
    rows = []
    for key, metric, name in (("amp-lm-mba", "mean_bias_amplification",
                               "mean bias amplification"),
                              ("amp-lm-t2a", "biasamp_t_to_a", "BiasAmp T->A")):
        rate = amplification_lm_null_rate(40, 40, 3, sims, metric=metric)
        rows.append(Row(key, "40 items x 40 templates x 3 samples, answers drawn from the "
                        "training ratios", f"bias amplification (chat model), {name}: CI "
                        "excludes 0", "FPR", sims, round(rate * sims), src,
                        _fpr_limit(rate, AMP_LM_WHY),
                        calibrates=("interval: several-sample infinitesimal jackknife t",)))
    rate = amplification_lm_null_rate(40, 5, 5, few)
    rows.append(Row("amp-lm-5", "40 items x 5 templates x 5 samples (the default's "
                    "templates), answers drawn from the training ratios", "bias "
                    "amplification (chat model), mean bias amplification: CI excludes 0",
                    "FPR", few, round(rate * few), src, _fpr_limit(rate, AMP_LM_WHY),
                    calibrates=("interval: several-sample infinitesimal jackknife t",)))
    cover = amplification_lm_rates(40, 5, 5, few, amplify=0.05, template_sd=0.03)[1]
    rows.append(Row("amp-lm-5-cover", "40 items x 5 templates x 5 samples, answers drawn "
                    "from the training ratio + 0.05 towards its majority + a template "
                    "effect N(0, 0.03)", "bias amplification (chat model), mean bias "
                    "amplification: CI", "coverage", few, round(cover * few), src,
                    _cover_limit(cover, AMP_LM_WHY),
                    calibrates=("interval: several-sample infinitesimal jackknife t",)))
    return rows


def amplification_share_rates(n_items: int, n_templates: int, samples: int, share: float,
                              sims: int, *, items: float = 0.0, templates: float = 0.0
                              ) -> tuple[float, float, float]:
    """(coverage of the true share by ``amplification_lm.share_interval``; by the
    items x templates jackknife t it replaced, clipped to [0, 1]; share of runs with no
    answer counted) when each answer of item i and template t names no gender with
    probability ``share`` (1 + a_i) (1 + b_t), a_i ~ U(-``items``, ``items``), b_t ~
    U(-``templates``, ``templates``): the share over every item and template that could
    be asked is ``share``."""
    from genderscope.core.design import Design
    from genderscope.measures.amplification_lm import share_interval
    from genderscope.stats.jackknife import infer_samples, two_way

    item_of = np.repeat(np.arange(n_items), n_templates)
    template_of = np.tile(np.arange(n_templates), n_items)
    answers = np.full(item_of.size, float(samples))
    old_design = Design("mean", unit="items", crossed=("templates",))
    covered = old = zeros = 0
    for k in range(sims):
        rng = np.random.default_rng([36, 2, k])
        p = share * (1 + rng.uniform(-items, items, n_items))[item_of] \
            * (1 + rng.uniform(-templates, templates, n_templates))[template_of]
        hits = rng.binomial(samples, p).astype(float)
        ci = share_interval(item_of, template_of, hits, answers)
        covered += ci.ci_low <= share <= ci.ci_high
        est = hits.sum() / answers.sum()
        by, interaction = two_way((hits - est * answers) / answers.sum(), item_of, template_of)
        was = infer_samples(old_design, est, {"items": by["rows"], "templates": by["cols"]},
                            interaction=interaction).ci
        old += max(was.ci_low, 0.0) <= share <= min(was.ci_high, 1.0)
        zeros += hits.sum() == 0
    return covered / sims, old / sims, zeros / sims


SHARE_CASES = (
    ("amp-lm-share", (40, 5, 5, 0.2), {}, "40 items x 5 templates x 5 samples, share 0.2, "
     "no item or template effect"),
    ("amp-lm-share-effects", (40, 5, 5, 0.2), {"items": 0.5, "templates": 0.25},
     "40 items x 5 templates x 5 samples, share 0.2 x item effect (1 + U(-0.5, 0.5)) x "
     "template effect (1 + U(-0.25, 0.25))"),
    ("amp-lm-share-rare", (40, 5, 1, 0.01), {"items": 0.8, "templates": 0.5},
     "40 items x 5 templates x 1 sample (greedy), rare share 0.01 x item effect "
     "(1 + U(-0.8, 0.8)) x template effect (1 + U(-0.5, 0.5))"),
    ("amp-lm-share-rare-report", (20, 3, 3, 0.01), {"items": 0.8, "templates": 0.5},
     "20 items x 3 templates x 3 samples (the report's), rare share 0.01, the same "
     "effects"),
)
"""(key, (items, templates, samples, share), effects, design) of each share row."""

SHARE_WHY = {
    "amp-lm-share": "conservative without a template effect: 5 templates estimate theirs "
                    "with 4 df, and the variance is kept at least the answers' binomial one",
    "amp-lm-share-rare-report": "conservative at 1.8 expected counts: Wilson's coverage "
                                "steps with the count (discreteness), more so with t "
                                "quantiles",
}


def amplification_share_rows(sims: int) -> list[Row]:
    """Coverage of the true share of answers naming no gender (``share_none``; ``share_both``
    has the same interval) by ``amplification_lm.share_interval`` in each of
    :data:`SHARE_CASES`, and by the jackknife t it replaced at the rare share (``sims``
    runs each, :func:`amplification_share_rates`)."""
    src = AMP_LM + "test_calibration_share_coverage"
    rows = []
    for key, (n_items, n_templates, samples, share), effects, design in SHARE_CASES:
        new, old, zeros = amplification_share_rates(n_items, n_templates, samples, share,
                                                    sims, **effects)
        if zeros:
            design += f"; none counted in {zeros:.1%} of runs"
        rows.append(Row(key, design, "bias amplification (chat model), share of answers "
                        "naming no gender: crossed design-effect Wilson CI", "coverage",
                        sims, round(new * sims), src, _cover_limit(new, SHARE_WHY.get(
                            key, "items x templates crossed, Satterthwaite's df")),
                            calibrates=("interval: crossed design-effect wilson",)))
        if key == "amp-lm-share-rare":
            rows.append(Row(key + "-t", design, "bias amplification (chat model), share of "
                            f"answers naming no gender: jackknife t CI ({REPLACED})",
                            "coverage", sims, round(old * sims), src,
                            f"{REPLACED}: a run with none counted gave [0, 0]"))
    return rows


# -- ABC (Bartl et al. 2024-style log-perplexity ratios) --------------------------------------
def abc_groups_row(sims: int, seed: int = 71) -> Row:
    """The percentile bootstrap of a median over 200 independent groups (normal plus
    0.2 x t with 3 degrees of freedom; median 0): ABC's interval where groups are
    independent."""
    from genderscope.stats import bootstrap_ci

    rng = _seeds(seed)
    hits = 0
    for _ in range(sims):
        c = bootstrap_ci(rng.normal(0, 1, 200) + rng.standard_t(3, 200) * 0.2, np.median,
                         n_resamples=500, seed=int(rng.integers(1 << 31)))
        hits += c.ci_low <= 0 <= c.ci_high
    return Row("abc-median-groups", "200 independent groups, N(0, 1) + 0.2 t(3); median 0",
               "ABC median: percentile bootstrap over groups", "coverage", sims, int(hits),
               CAL + "test_abc_median_ci_over_groups_covers",
               calibrates=("interval: percentile bootstrap",))


def abc_log_ratios(rng: np.random.Generator, n: int | None = 300
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ABC-like log-perplexity ratios: 60 occupations x 76 frames (crossed random effects,
    sd 0.3 each, group noise sd 0.3; median 0), or a random ``n`` of them (report subset)."""
    rr, cc = (a.ravel() for a in np.meshgrid(np.arange(60), np.arange(76), indexing="ij"))
    if n is not None:
        keep = rng.choice(rr.size, n, replace=False)
        rr, cc = rr[keep], cc[keep]
    v = rng.normal(0, 0.3, 60)[rr] + rng.normal(0, 0.3, 76)[cc] + rng.normal(0, 0.3, rr.size)
    return v, rr, cc


def abc_crossed_rows(sims: int, old: int, full: int, seed: int = 225) -> list[Row]:
    """ABC's two-way interval over occupations x frames (``stats.crossed.crossed_ci``) of
    the median and of a share, on the report subset (300 groups, ``sims`` runs) and on
    all 4,560 groups (``full`` runs); the percentile bootstrap over groups (the interval
    before issue 22) and Wilson's interval of the share over groups (``old`` runs)."""
    from genderscope.stats import bootstrap_ci, proportion_ci
    from genderscope.stats.crossed import crossed_ci, weighted_median

    rng = _seeds(seed)
    hits = share = n_old = n_wilson = 0
    for k in range(sims):
        v, rr, cc = abc_log_ratios(rng)
        ci = crossed_ci(rr, cc, lambda w, v=v: weighted_median(v, w), unit="x",
                        n_resamples=300, seed=k)
        hits += ci.ci_low <= 0.0 <= ci.ci_high
        pos = (v > 0).astype(float)  # a share (e.g. reflexive preferred), truth 0.5
        sh = crossed_ci(rr, cc, lambda w, x=pos: (w @ x) / w.sum(axis=1), unit="x",
                        n_resamples=300, seed=k)
        share += sh.ci_low <= 0.5 <= sh.ci_high
        if k < old:
            b = bootstrap_ci(v, np.median, n_resamples=300, seed=k)
            n_old += b.ci_low <= 0.0 <= b.ci_high
            w = proportion_ci(int(pos.sum()), pos.size)
            n_wilson += w.ci_low <= 0.5 <= w.ci_high
    n_full = 0
    for k in range(full):
        v, rr, cc = abc_log_ratios(rng, None)
        ci = crossed_ci(rr, cc, lambda w, v=v: weighted_median(v, w), unit="x",
                        n_resamples=200, seed=k)
        n_full += ci.ci_low <= 0.0 <= ci.ci_high
    design = ("300 of 60 occupations x 76 frames, crossed effects sd 0.3 each, noise sd "
              "0.3; median 0, share of positive values 0.5")
    src = CAL + "test_abc_median_ci_over_occupations_and_frames_covers"
    return [Row("abc-median-crossed", design, "ABC median: two-way bootstrap over "
                "occupations x frames", "coverage", sims, int(hits), src,
                calibrates=("interval: two-way cluster bootstrap-variance t interval",)),
            Row("abc-share-crossed", design, "ABC share: two-way bootstrap over occupations "
                "x frames", "coverage", sims, int(share), src,
                calibrates=("interval: two-way cluster bootstrap-variance t interval",)),
            Row("abc-median-all", design.replace("300 of ", "all "), "ABC median: two-way "
                "bootstrap over occupations x frames", "coverage", full, int(n_full), src,
                calibrates=("interval: two-way cluster bootstrap-variance t interval",)),
            Row("abc-median-groups-crossed", design, "ABC median: percentile bootstrap over "
                f"groups ({REPLACED})", "coverage", old, int(n_old), src,
                f"{REPLACED}: groups share occupations and frames"),
            Row("abc-share-wilson", design, "ABC share: Wilson over groups (not reported)",
                "coverage", old, int(n_wilson), src,
                "not reported: groups share occupations and frames")]


# -- WinoBias (Zhao et al. 2018): sentences share their occupation ---------------------------
def wino_items(rng: np.random.Generator, gap: float = 0.0) -> pd.DataFrame:
    """40 occupations x 10 pro + 10 anti sentences; accuracy varies by occupation
    (shared by its pro and anti sentences); ``gap`` = accuracy pro - anti."""
    occ = np.repeat(np.arange(40), 20)
    cond = np.tile(np.r_[np.full(10, "pro"), np.full(10, "anti")], 40)
    skill = rng.uniform(0.3, 0.8, 40)[occ] + np.where(cond == "pro", gap / 2, -gap / 2)
    correct = rng.random(occ.size) < skill
    gender = np.where(rng.random(occ.size) < 0.5, "male", "female")
    other = np.where(gender == "male", "female", "male")
    return pd.DataFrame({"occupation": occ.astype(str), "condition": cond, "gender": gender,
                         "pred_gender": np.where(correct, gender, other),
                         "correct": correct, "type": 1})


def winobias_row(sims: int, seed: int = 81) -> Row:
    """Does WinoBias's CI of the pro - anti accuracy difference (``winobias.summarise``,
    over occupations) cover 0 when there is no gap?"""
    import warnings

    from genderscope.measures.winobias import summarise

    rng = _seeds(seed)
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(sims):
            s, _ = summarise(wino_items(rng), n_resamples=400, seed=int(rng.integers(1 << 31)))
            d = s["difference_pro_minus_anti"]
            hits += d["ci_low"] <= 0.0 <= d["ci_high"]
    return Row("winobias-gap", "40 occupations x 10 pro + 10 anti sentences, accuracy "
               "U(0.3, 0.8) per occupation; no gap", "WinoBias pro - anti accuracy: "
               "bootstrap over occupations", "coverage", sims, int(hits),
               CAL + "test_winobias_occupation_ci_covers_and_finds_a_gap",
               calibrates=("interval: cluster percentile bootstrap",))


# -- chat probes: the cluster bootstrap of a success rate -------------------------------------
def chat_null_frame(rng: np.random.Generator, n_clusters: int = 30, items: int = 8
                    ) -> tuple[pd.DataFrame, float]:
    """A DiscriminationTamkin-shaped attempt table under the null; returns the frame and
    the true "yes" rate over the population of scenarios (0.5: the logit effects are
    symmetric about 0)."""
    from genderscope.measures.genderbench import discrimination_tamkin as dt

    genders = dt.GENDERS
    n = n_clusters * items
    scen = np.repeat(rng.normal(0.0, 1.5, n_clusters), items)  # strong scenario effects
    p = 1 / (1 + np.exp(-(scen + rng.normal(0.0, 0.5, n))))  # the same for each gender
    yes = rng.random((n, len(genders))) < p[:, None]
    return pd.DataFrame({
        "item": np.repeat(np.arange(n), len(genders)),
        "cluster": np.repeat(np.repeat([f"s{c}" for c in range(n_clusters)], items),
                             len(genders)),
        "gender": np.tile(genders, n), "repetition": 0,
        "evaluation": np.where(yes.reshape(-1), "yes", "no"), "undetected": False}), 0.5


def chat_rate_rows(sims: int, seed: int = 7) -> list[Row]:
    """95 % CI of the female success rate of DiscriminationTamkin-shaped answers (20
    scenarios x 10 items, scenario logit effects sd 1.5, item sd 0.5, no gender effect):
    the cluster bootstrap over scenarios the probes report, and an item-level bootstrap
    (GenderBench's resampling unit)."""
    from calibration_sims_probes import tamkin_totals

    from genderscope.measures.genderbench import discrimination_tamkin as dt
    from genderscope.measures.genderbench.probe_run import ProbeSpec
    from genderscope.stats.resample import cluster_bootstrap_ci

    rng = _seeds(seed)
    fn = dt.METRICS["female_success_rate"]
    spec = ProbeSpec(method="x", title="x", attempts=[], evaluate=lambda a, b: None,
                     totals=tamkin_totals(), metrics={}, marks={}, cluster_unit="scenarios")
    hit_cluster = hit_item = 0
    for k in range(sims):
        frame, truth = chat_null_frame(rng, n_clusters=20, items=10)
        rows, clusters = spec.totals(frame)
        by_cluster = pd.DataFrame(rows).groupby(clusters, sort=False).sum().to_numpy()
        by_item = pd.DataFrame(rows).groupby(frame["item"].to_numpy(), sort=False).sum()
        ci_c = cluster_bootstrap_ci(by_cluster, fn, unit="scenarios", n_resamples=1000,
                                    seed=k)
        ci_i = cluster_bootstrap_ci(by_item.to_numpy(), fn, unit="items", n_resamples=1000,
                                    seed=k)
        hit_cluster += ci_c.ci_low <= truth <= ci_c.ci_high
        hit_item += ci_i.ci_low <= truth <= ci_i.ci_high
    design = ("20 scenarios x 10 items x 3 genders, scenario logit sd 1.5, item sd 0.5, no "
              "gender effect; yes rate 0.5")
    src = CHAT + "test_cluster_ci_covers_and_item_ci_does_not"
    return [Row("chat-rate-cluster", design, "chat probes' success rate: percentile "
                "cluster bootstrap over scenarios", "coverage", sims, int(hit_cluster), src,
                _cover_limit(hit_cluster / sims, "a percentile bootstrap of 20 scenarios; "
                             "the test holds it to [0.91, 0.985]"),
                             calibrates=("interval: cluster percentile bootstrap",)),
            Row("chat-rate-items", design, "chat probes' success rate: bootstrap over items "
                "(GenderBench's unit; not reported)", "coverage", sims, int(hit_item), src,
                "not reported: items of one scenario are not independent")]
