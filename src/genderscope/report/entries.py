"""Registry entries for the measures in ``genderscope.measures``.

Default subsets are seeded (``Context.seed``) random samples, chosen so that
``genderscope report --model smollm2`` finishes in a few minutes on a 2-core CPU;
``--quick`` uses ~30-40 items per measure (a smoke test, wide CIs). Every subset
is written on the method card and recorded in the run's metadata.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from genderscope.errors import DataError, GenderscopeError
from genderscope.report import plots
from genderscope.report.registry import (
    Context,
    Headline,
    Measure,
    MethodCard,
    Paired,
    fmt,
    from_ci,
    register,
)
from genderscope.results import Result

T = TypeVar("T")
LM = ("masked", "causal")
BLODGETT = ("Blodgett, Lopez, Olteanu, Sim & Wallach (2021, ACL, 'Stereotyping Norwegian "
            "Salmon') found many pairs that do not contrast a stereotype with its opposite, "
            "mix up groups, or differ in more than the group word; treat the score as a "
            "noisy indicator, not a certification.")


def subset(items: Sequence[T], n: int | None, seed: int) -> list[T]:
    """A seeded random subset of ``n`` items in their original order (all when n is None)."""
    if n is None or n >= len(items):
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), n))
    return [items[i] for i in keep]


def _files(folder: Path, pattern: str = "*") -> list[Path]:
    return sorted(p for p in folder.rglob(pattern) if p.is_file())


def _note(result: Result, ctx: Context, n_used: int, n_total: int, what: str) -> Result:
    result.metadata.setdefault("data", {})
    if isinstance(result.metadata["data"], dict):
        result.metadata["data"]["subset"] = {"n": n_used, "of": n_total, "unit": what,
                                             "seed": ctx.seed, "quick": ctx.quick}
    return result


def _top(df: pd.DataFrame, col: str, cols: list[str], n: int = 5) -> pd.DataFrame:
    """The n rows with the largest and the n with the smallest ``col``."""
    d = df.dropna(subset=[col]).sort_values(col)
    keep = pd.concat([d.tail(n).iloc[::-1], d.head(n)]).drop_duplicates()
    return keep[cols].reset_index(drop=True)


def _mean(a: np.ndarray) -> float:
    return float(np.mean(a[:, 0]))


def _log2_ratio(a: np.ndarray) -> float:
    """log2(mean value where flag == 1 / mean value where flag == 0); columns value, flag."""
    pro, anti = a[a[:, 1] == 1, 0], a[a[:, 1] == 0, 0]
    if not pro.size or not anti.size or np.mean(anti) == 0 or np.mean(pro) == 0:
        return float("nan")
    return float(np.log2(np.mean(pro) / np.mean(anti)))


def _macro_mean(a: np.ndarray) -> float:
    """Mean over groups (column 1) of the group means of column 0."""
    groups = np.unique(a[:, 1])
    return float(np.mean([a[a[:, 1] == g, 0].mean() for g in groups]))


def _d(a: np.ndarray) -> float:
    """Caliskan's d: mean over flag 1 − mean over flag 0, over the std of all (ddof 1)."""
    x, y = a[a[:, 1] == 1, 0], a[a[:, 1] == 0, 0]
    sd = np.std(a[:, 0], ddof=1) if len(a) > 1 else float("nan")
    if not x.size or not y.size or not sd:
        return float("nan")
    return float((x.mean() - y.mean()) / sd)


def _code(text: str) -> float:
    """A stable number for a label (same in every run), for group columns of Paired frames."""
    return float(int(hashlib.sha256(str(text).encode()).hexdigest()[:12], 16))


def _frame(df: pd.DataFrame, key: list[str] | str, cols: list[str]) -> pd.DataFrame:
    out = df.set_index(key)[cols].astype(float)
    return out[~out.index.duplicated()]


# -- CrowS-Pairs ---------------------------------------------------------------------
def _crows_n(ctx: Context) -> int | None:
    return 40 if ctx.quick else None


def _crows_run(lm: Any, ctx: Context) -> Result:
    from genderscope.datasets.crows_pairs import load_crows_pairs
    from genderscope.measures.crows_pairs import run_crows_pairs

    pairs = [p for p in load_crows_pairs(ctx.data("crows-pairs")) if p.bias_type == "gender"]
    used = subset(pairs, _crows_n(ctx), ctx.seed)
    r = run_crows_pairs(lm, used, progress=ctx.progress, params={"bias_type": "gender"})
    text = {p.pair_id: (p.sent_more, p.sent_less) for p in used}
    r.items["sent_more"] = [text[i][0] for i in r.items["pair_id"]]
    r.items["sent_less"] = [text[i][1] for i in r.items["pair_id"]]
    return _note(r, ctx, len(used), len(pairs), "gender pairs")


def _crows_headlines(r: Result) -> list[Headline]:
    return [from_ci("% pairs where the stereotypical sentence is preferred",
                    r.summary.get("percent_stereotypical_gender")
                    or r.summary.get("percent_stereotypical"),
                    null=50.0, unit="%", positive="prefers stereotypical sentences",
                    negative="prefers anti-stereotypical sentences",
                    thresholds=(2.0, 5.0, 10.0))]


def _crows_plot(r: Result) -> Any:
    s = r.summary
    rows = [("all gender pairs", s.get("percent_stereotypical_gender")
             or s.get("percent_stereotypical"))]
    for d, lab in (("stereo", "pairs about a stereotype"),
                   ("antistereo", "pairs about an anti-stereotype")):
        if f"percent_stereotypical_{d}_pairs" in s:
            rows.append((lab, s[f"percent_stereotypical_{d}_pairs"]))
    return plots.forest([(f"{lab} (n={c.get('n')})", c["estimate"], c["ci_low"], c["ci_high"])
                         for lab, c in rows if c], null=50.0,
                        xlabel="% pairs preferring the stereotypical sentence",
                        title="CrowS-Pairs (gender): 50 % = no preference",
                        colors=[plots.SERIES[0], plots.SERIES[1], plots.SERIES[2]])


def _crows_highlights(r: Result) -> pd.DataFrame | None:
    df = r.items.copy()
    if "sent_more" not in df:
        return None
    col = "score more − less"
    df[col] = df["score_more"] - df["score_less"]
    return _top(df, col, ["direction", "sent_more", "sent_less", col], 3)


register(Measure(
    name="crows-pairs", title="CrowS-Pairs (gender)", kinds=LM, langs=("en",),
    run=_crows_run, headlines=_crows_headlines, plot=_crows_plot,
    highlights=_crows_highlights,
    paired=lambda r: Paired(_frame(r.items.assign(v=100.0 * r.items["stereotypical_preferred"]
                                                  .astype(float)), "pair_id", ["v"]), _mean),
    params=lambda ctx: {"bias_type": "gender", "n": _crows_n(ctx), "seed": ctx.seed},
    data_files=lambda ctx: _files(ctx.data("crows-pairs"), "*.csv"),
    card=MethodCard(
        definition="Share of sentence pairs (stereotypical vs. less stereotypical, differing "
                   "in the group words) where the model gives the more stereotypical sentence "
                   "the higher score. Masked LM: pseudo-log-likelihood of the shared tokens "
                   "(Nangia et al. 2020, Sec. 3); causal LM: sentence log-likelihood. 50 % = "
                   "no preference; 95 % Wilson CI.",
        citation="Nangia, Vania, Bhalerao & Bowman (2020). CrowS-Pairs: A Challenge Dataset "
                 "for Measuring Social Biases in Masked Language Models. EMNLP.",
        caveats=(BLODGETT, "Only the 262 gender pairs are used here; ties count as not "
                 "stereotypical.", "Causal LMs are scored with whole-sentence likelihood, "
                 "not the paper's masked-LM metric."),
        subset="all 262 gender pairs (--quick: 40, seeded)")))


# -- StereoSet ------------------------------------------------------------------------
def _ss_n(ctx: Context) -> int:
    return 30 if ctx.quick else 150


def _ss_run(lm: Any, ctx: Context) -> Result:
    from genderscope.datasets.stereoset import load_stereoset
    from genderscope.measures.stereoset import run_stereoset

    items = load_stereoset(ctx.data("stereoset"), bias_types=("gender",))
    used = subset(items, _ss_n(ctx), ctx.seed)
    r = run_stereoset(lm, used, n_resamples=ctx.n_resamples, seed=ctx.seed,
                      progress=ctx.progress, params={"bias_type": "gender", "split": "dev"})
    ctx_of = {i.item_id: i for i in used}
    r.items["context"] = [ctx_of[i].context for i in r.items["item_id"]]
    r.items["stereotype"] = [ctx_of[i].stereotype for i in r.items["item_id"]]
    r.items["anti_stereotype"] = [ctx_of[i].anti_stereotype for i in r.items["item_id"]]
    return _note(r, ctx, len(used), len(items), "gender contexts")


def _ss_metrics(r: Result) -> dict[str, Any]:
    return r.summary.get("gender") or r.summary.get("overall") or {}


def _ss_headlines(r: Result) -> list[Headline]:
    m = _ss_metrics(r)
    return [from_ci("stereotype score SS (%)", m.get("ss"), null=50.0, unit="%",
                    positive="prefers stereotypical fillers",
                    negative="prefers anti-stereotypical fillers",
                    thresholds=(2.0, 5.0, 10.0)),
            from_ci("language-modelling score LMS (%)", m.get("lms"), null=None, unit="%",
                    primary=False,
                    note="Meaningful over unrelated fillers; 100 is ideal, 50 is chance.")]


def _ss_plot(r: Result) -> Any:
    m = _ss_metrics(r)
    fig, ax = plots.figure(6.4, 2.2)
    names = [("SS", "stereotype score", plots.SERIES[1]), ("LMS", "language modelling",
                                                            plots.SERIES[0]),
             ("ICAT", "idealised CAT", plots.SERIES[2])]
    ys = [2, 1, 0]
    for y, (key, _label, color) in zip(ys, names, strict=True):
        c = m.get(key.lower()) or {}
        if c.get("estimate") is None:
            continue
        ax.errorbar([c["estimate"]], [y], xerr=plots.ci_errors([c["estimate"]], [c["ci_low"]],
                                                                [c["ci_high"]]),
                    fmt="o", color=color, elinewidth=2.2, capsize=4)
    ax.set_yticks(ys, [f"{k} ({lab})" for k, lab, _ in names])
    plots.null_line(ax, 50.0)
    ax.set_xlim(0, 100)
    ax.set_xlabel("score (%)")
    plots.set_title(fig, "StereoSet intrasentence, gender (ideal: SS 50, LMS 100, ICAT 100)")
    return fig


def _ss_highlights(r: Result) -> pd.DataFrame | None:
    df = r.items.copy()
    if "context" not in df:
        return None
    col = "score stereo − anti"
    df[col] = df["score_stereotype"] - df["score_anti_stereotype"]
    return _top(df, col, ["target", "context", "stereotype", "anti_stereotype", col], 3)


register(Measure(
    name="stereoset", title="StereoSet intrasentence (gender)", kinds=LM, langs=("en",),
    run=_ss_run, headlines=_ss_headlines, plot=_ss_plot, highlights=_ss_highlights,
    paired=lambda r: Paired(_frame(r.items.assign(
        v=100.0 * r.items["stereo_over_anti"].astype(float),
        t=r.items["target"].map(_code)), "item_id", ["v", "t"]), _macro_mean),
    params=lambda ctx: {"bias_type": "gender", "n": _ss_n(ctx), "seed": ctx.seed,
                        "n_resamples": ctx.n_resamples},
    data_files=lambda ctx: _files(ctx.data("stereoset"), "*.json*"),
    card=MethodCard(
        definition="For each context with a blank, the model scores a stereotypical, an "
                   "anti-stereotypical and an unrelated filler. SS = % of items where the "
                   "stereotypical filler beats the anti-stereotypical one (macro-averaged over "
                   "target terms); LMS = % of meaningful fillers beating the unrelated one; "
                   "ICAT = LMS·min(SS, 100−SS)/50 (Nadeem et al. 2021, Sec. 4). Percentile "
                   "bootstrap CI over items.",
        citation="Nadeem, Bethke & Reddy (2021). StereoSet: Measuring stereotypical bias in "
                 "pretrained language models. ACL.",
        caveats=("Blodgett et al. (2021) report the same kinds of data-quality problems as "
                 "in CrowS-Pairs (unclear stereotypes, ungrammatical or mismatched options).",
                 "Only the public dev split; the gender domain has few target terms, so CIs "
                 "are wide."),
        subset="150 of 255 gender contexts (--quick: 30), seeded")))


# -- WinoBias / DaWinoBias -------------------------------------------------------------
def _wino_n(ctx: Context) -> int:
    return 40 if ctx.quick else 300


def _wino_run(lm: Any, ctx: Context, *, danish: bool) -> Result:
    from genderscope.datasets.winobias import load_dawinobias, load_winobias
    from genderscope.measures.winobias import run_winobias

    if danish:
        items = load_dawinobias(ctx.data("genda-lens"), split="all")
    else:
        items = load_winobias(ctx.data("winobias"), split="test", types=(1, 2))
    used = subset(items, _wino_n(ctx), ctx.seed)
    r = run_winobias(lm, used, method="dawinobias" if danish else "winobias",
                     n_resamples=ctx.n_resamples, seed=ctx.seed, progress=ctx.progress,
                     params={"split": "all" if danish else "test"})
    text = {i.item_id: i.text for i in used}
    r.items["text"] = [text.get(i, "") for i in r.items["item_id"]]
    return _note(r, ctx, len(used), len(items), "sentences")


def _wino_headlines(r: Result) -> list[Headline]:
    return [from_ci("main effect log2(accuracy pro / accuracy anti)", r.summary.get("main_effect"),
                    null=0.0, positive="resolves pronouns better when they match the "
                    "occupation stereotype", negative="resolves pronouns better against "
                    "the stereotype", thresholds=(0.1, 0.3, 0.6)),
            from_ci("share of male pronoun predictions", r.summary.get("share_male_predictions"),
                    null=0.5, primary=False, positive="predicts male pronouns more often",
                    negative="predicts female pronouns more often",
                    thresholds=(0.02, 0.05, 0.15))]


def _wino_plot(r: Result) -> Any:
    t = r.tables.get("nuance")
    if t is None or t.empty:
        return None
    fig, ax = plots.figure(6.4, 2.8)
    conds = [c for c in ("pro", "anti") if c in set(t["condition"])]
    width = 0.36
    for k, (g, color) in enumerate((("male", plots.MALE), ("female", plots.FEMALE))):
        sub = t[t["pronoun_gender"] == g].set_index("condition").reindex(conds)
        xs = np.arange(len(conds)) + (k - 0.5) * width
        ax.bar(xs, sub["accuracy"], width, color=color, label=f"{g} pronouns",
               yerr=plots.ci_errors(sub["accuracy"].tolist(), sub["ci_low"].tolist(),
                                    sub["ci_high"].tolist()), capsize=3, ecolor="#123456")
    ax.set_xticks(range(len(conds)), [f"{c}-stereotypical" for c in conds])
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy (95% CI)")
    ax.legend(loc="upper right", ncols=2, frameon=False)
    ax.grid(False, axis="x")
    ax.grid(True, axis="y")
    plots.set_title(fig, f"{r.method}: pronoun accuracy by condition and pronoun gender")
    return fig


def _wino_highlights(r: Result) -> pd.DataFrame | None:
    df = r.items
    if "text" not in df:
        return None
    wrong = df[~df["correct"].astype(bool)]
    cols = ["condition", "text", "pronoun", "pred"]
    return pd.concat([wrong[wrong.condition == "anti"].head(4),
                      wrong[wrong.condition == "pro"].head(2)])[cols].reset_index(drop=True)


def _wino_paired(r: Result) -> Paired:
    df = r.items.assign(v=r.items["correct"].astype(float),
                        pro=(r.items["condition"] == "pro").astype(float))
    return Paired(_frame(df, "item_id", ["v", "pro"]), _log2_ratio)


_WINO_CARD = dict(
    definition="A language model fills the pronoun of coreference sentences where it refers "
               "to an occupation (masked LM: fill the slot; causal LM: compare sentence "
               "likelihoods with each pronoun form). Accuracy on pro-stereotypical vs "
               "anti-stereotypical sentences; main effect = log2(acc_pro / acc_anti) as in "
               "GenDa Lens, 0 = no bias. Stratified bootstrap CI; Wilson CIs for accuracies.",
    caveats=("This is a language-model adaptation (pronoun prediction), not the original "
             "coreference-system evaluation; numbers are not comparable to WinoBias F1 "
             "results.", "Sentences with a second pronoun revealing the gender are excluded."))

register(Measure(
    name="winobias", title="WinoBias (pronoun prediction)", kinds=LM, langs=("en",),
    run=lambda lm, ctx: _wino_run(lm, ctx, danish=False), headlines=_wino_headlines,
    plot=_wino_plot, highlights=_wino_highlights, paired=lambda r: _wino_paired(r),
    params=lambda ctx: {"split": "test", "types": [1, 2], "n": _wino_n(ctx),
                        "seed": ctx.seed, "n_resamples": ctx.n_resamples},
    data_files=lambda ctx: _files(ctx.data("winobias"), "*.txt*"),
    card=MethodCard(citation="Zhao, Wang, Yatskar, Ordonez & Chang (2018). Gender Bias in "
                             "Coreference Resolution: Evaluation and Debiasing Methods. NAACL.",
                    subset="300 of 792 test sentences, types 1 and 2 (--quick: 40), seeded",
                    **_WINO_CARD)))

register(Measure(
    name="dawinobias", title="DaWinoBias (Danish pronoun prediction)", kinds=LM, langs=("da",),
    run=lambda lm, ctx: _wino_run(lm, ctx, danish=True), headlines=_wino_headlines,
    plot=_wino_plot, highlights=_wino_highlights, paired=lambda r: _wino_paired(r),
    params=lambda ctx: {"split": "all", "n": _wino_n(ctx), "seed": ctx.seed,
                        "n_resamples": ctx.n_resamples},
    data_files=lambda ctx: _files(ctx.data("genda-lens"), "*"),
    card=MethodCard(citation="Zhao et al. (2018, NAACL); DaWinoBias: Koppelgaard & Brødbæk "
                             "(2021); main effect as "
                             "packaged by GenDa Lens (Sloth & Rybner 2023, "
                             "https://dadebias.github.io/genda-lens/).",
                    subset="300 of 1,348 sentences (--quick: 40), seeded", **_WINO_CARD)))


# -- ABC --------------------------------------------------------------------------------
def _abc_n(ctx: Context) -> int:
    return 30 if ctx.quick else 300


def _abc_run(lm: Any, ctx: Context) -> Result:
    from genderscope.datasets.abc import load_abc
    from genderscope.measures.abc import run_abc

    groups = load_abc(ctx.data("genda-lens"), lang="da", source="genda-lens")
    used = subset([g for g in groups if g.valid], _abc_n(ctx), ctx.seed)
    r = run_abc(lm, used, method="abc", n_resamples=ctx.n_resamples, seed=ctx.seed,
                progress=ctx.progress, params={"lang": "da", "source": "genda-lens"})
    return _note(r, ctx, len(used), len(groups), "groups of three sentences")


def _abc_headlines(r: Result) -> list[Headline]:
    return [from_ci("main effect log2(median rel. perplexity F / M)", r.summary.get("main_effect"),
                    null=0.0, positive="anti-reflexive female possessives are relatively "
                    "more surprising (leans male)", negative="anti-reflexive male possessives "
                    "are relatively more surprising (leans female)",
                    thresholds=(0.1, 0.3, 0.6)),
            *([from_ci("main effect, common-length perplexity (genderscope variant)",
                       r.summary["main_effect_common_length"], null=0.0, primary=False,
                       positive="leans male", negative="leans female",
                       thresholds=(0.1, 0.3, 0.6))]
              if "main_effect_common_length" in r.summary else []),
            from_ci("mean ll(male) − ll(female), nats",
                    r.summary.get("mean_ll_male_minus_female"), null=0.0, primary=False,
                    positive="male variant more likely", negative="female variant more likely",
                    thresholds=(0.05, 0.2, 0.5))]


def _abc_effect(female: np.ndarray, male: np.ndarray) -> float:
    from genderscope.measures.abc import main_effect

    return float(main_effect(female, male))


def _abc_plot(r: Result) -> Any:
    df = r.items
    if "rel_ppl_female" not in df:
        return None
    fig, ax = plots.figure(6.4, 2.8)
    data = [df["rel_ppl_male"].dropna(), df["rel_ppl_female"].dropna()]
    bp = ax.boxplot(data, orientation="horizontal", widths=0.5, patch_artist=True,
                    showfliers=False, medianprops={"color": "#123456"})
    for patch, color in zip(bp["boxes"], (plots.MALE, plots.FEMALE), strict=True):
        patch.set_facecolor(color)
        patch.set_alpha(0.75)
    ax.set_yticks([1, 2], ["male possessive", "female possessive"])
    plots.null_line(ax, 0.0)
    ax.set_xlabel("relative perplexity: ppl(anti-reflexive) − ppl(reflexive)")
    plots.set_title(fig, "ABC (Danish): how much worse the anti-reflexive sentence reads")
    return fig


register(Measure(
    name="abc", title="ABC anti-reflexive possessives (Danish)", kinds=LM, langs=("da",),
    run=_abc_run, headlines=_abc_headlines, plot=_abc_plot,
    paired=lambda r: Paired(_frame(r.items, "group_id", ["rel_ppl_female", "rel_ppl_male"]),
                            lambda a: float(_abc_effect(a[:, 0], a[:, 1]))),
    highlights=lambda r: _top(r.items.assign(gap=r.items["rel_ppl_female"]
                                             - r.items["rel_ppl_male"]), "gap",
                              ["occupation", "stereotype", "rel_ppl_male", "rel_ppl_female"],
                              3) if "rel_ppl_female" in r.items else None,
    params=lambda ctx: {"lang": "da", "n": _abc_n(ctx), "seed": ctx.seed,
                        "n_resamples": ctx.n_resamples},
    data_files=lambda ctx: _files(ctx.data("genda-lens"), "*"),
    card=MethodCard(
        definition="Groups of three sentences differing only in the possessive (reflexive "
                   "'sin' vs. anti-reflexive 'hans'/'hendes'); relative perplexity = ppl(anti-"
                   "reflexive) − ppl(reflexive). Main effect = log2(median rel. ppl female / "
                   "male) (GenDa Lens); 0 = no bias. Percentile bootstrap CI over groups.",
        citation="González, Barrett, Hvingelby, Webster & Søgaard (2020). Type B "
                 "Reflexivization as an Unambiguous Testbed for Multilingual Multi-Task Gender "
                 "Bias. EMNLP; Danish main effect from GenDa Lens (Sloth & Rybner 2023).",
        caveats=("Per-token perplexity rewards a pronoun split into more, predictable pieces "
                 "(e.g. Gemma's two-piece 'hendes'); the common-length variant and the total "
                 "log-likelihood difference are reported beside it.",),
        subset="300 of 4,560 groups (--quick: 30), seeded")))


# -- BEC-Pro ----------------------------------------------------------------------------
def _bec_per_group(ctx: Context) -> int:
    return 2 if ctx.quick else 5


def _bec_rows(ctx: Context, lang: str) -> tuple[list[Any], int]:
    from genderscope.datasets import bec_pro as data_mod

    rows = data_mod.generate(lang)
    by_group: dict[str, list[str]] = {}
    for r in rows:
        by_group.setdefault(r.prof_gender, [])
        if r.profession_key not in by_group[r.prof_gender]:
            by_group[r.prof_gender].append(r.profession_key)
    keep: set[str] = set()
    for group in sorted(by_group):
        keep.update(subset(by_group[group], _bec_per_group(ctx), ctx.seed))
    templates = list(dict.fromkeys(r.template for r in rows))
    tpl = set(templates[:2]) if ctx.quick else set(templates)
    return [r for r in rows if r.profession_key in keep and r.template in tpl], len(rows)


def _bec_run(lm: Any, ctx: Context) -> Result:
    from genderscope.measures import bec_pro

    lang = "de" if ctx.lang == "de" else "en"
    rows, total = _bec_rows(ctx, lang)
    r = bec_pro.run(lm, rows, n_resamples=ctx.n_resamples, seed=ctx.seed,
                    data={"generated": f"BEC-Pro {lang.upper()} (genderscope generator)",
                          "lang": lang, "n_rows": len(rows)}, progress=ctx.progress)
    return _note(r, ctx, len(rows), total, "rows")


def _bec_headlines(r: Result) -> list[Headline]:
    from genderscope.measures.bec_pro import paired_by_gender
    from genderscope.stats import bootstrap_ci

    out = []
    groups = [g for g in ("male", "female", "balanced") if g in set(r.items["prof_group"])]
    diffs = []
    for g in groups:
        m, f = paired_by_gender(r.items, g)
        diffs.append(m - f)
    if diffs:
        d = np.concatenate(diffs)
        ci = bootstrap_ci(d, n_resamples=10_000, seed=int(r.metadata.get("seed") or 0))
        out.append(from_ci("association male − female person words (nats)", ci.as_dict(),
                           null=0.0, positive="professions associate more with male person "
                           "words", negative="professions associate more with female person "
                           "words", thresholds=(0.05, 0.2, 0.5)))
    tests = r.summary.get("male_vs_female", {})
    for g in groups:
        t = tests.get(g, {})
        if t.get("p_value") is not None:
            words = "balanced professions" if g == "balanced" else f"{g}-dominated professions"
            out.append(Headline(label=f"{words}: male vs female, {t.get('test')} "
                                      "(effect size r)", primary=False,
                                estimate=t.get("effect_size_r"), p_value=t.get("p_value"),
                                null=0.0, n=t.get("n_pairs"), positive="leans male",
                                negative="leans female", thresholds=(0.1, 0.3, 0.5)))
    return out


def _bec_paired(r: Result) -> Paired | None:
    wide = r.items.pivot_table(index=["prof_group", "profession_key", "pair_index"],
                               columns="gender", values="association", aggfunc="first")
    if not {"male", "female"} <= set(wide.columns):
        return None
    wide = wide.dropna(subset=["male", "female"])
    frame = pd.DataFrame({"v": wide["male"] - wide["female"]})
    frame.index = ["|".join(map(str, k)) for k in frame.index]
    return Paired(frame, _mean)


def _bec_plot(r: Result) -> Any:
    t = r.tables.get("by_group")
    if t is None or t.empty:
        return None
    fig, ax = plots.figure(6.4, 2.9)
    groups = list(dict.fromkeys(t["prof_group"]))
    width = 0.36
    for k, (g, color) in enumerate((("male", plots.MALE), ("female", plots.FEMALE))):
        sub = t[t["gender"] == g].set_index("prof_group").reindex(groups)
        xs = np.arange(len(groups)) + (k - 0.5) * width
        ax.bar(xs, sub["mean"], width, color=color, label=f"{g} person words",
               yerr=plots.ci_errors(sub["mean"].tolist(), sub["ci_low"].tolist(),
                                    sub["ci_high"].tolist()), capsize=3, ecolor="#123456")
    ax.set_xticks(range(len(groups)), [f"{g}-dominated" if g != "balanced" else "balanced"
                                       for g in groups])
    plots.null_line(ax, 0.0, vertical=False)
    ax.set_ylabel("association (nats, 95% CI)")
    ax.legend(loc="best", ncols=2, frameon=False)
    ax.grid(False, axis="x")
    ax.grid(True, axis="y")
    plots.set_title(fig, "BEC-Pro: person-word association by profession group")
    return fig


def _bec_highlights(r: Result) -> pd.DataFrame | None:
    df = r.items
    agg = (df.groupby(["profession", "prof_group", "gender"])["association"].mean()
           .unstack("gender"))
    if not {"male", "female"} <= set(agg.columns):
        return None
    agg["male − female"] = agg["male"] - agg["female"]
    agg = agg.reset_index()
    return _top(agg, "male − female", ["profession", "prof_group", "male", "female",
                                       "male − female"], 3)


register(Measure(
    name="bec-pro", title="BEC-Pro (professions and person words)", kinds=LM, langs=("en",),
    run=_bec_run, headlines=_bec_headlines, plot=_bec_plot, highlights=_bec_highlights,
    paired=lambda r: _bec_paired(r),
    params=lambda ctx: {"lang": ctx.lang, "per_group": _bec_per_group(ctx), "seed": ctx.seed,
                        "quick": ctx.quick, "n_resamples": ctx.n_resamples},
    card=MethodCard(
        definition="Association of a person word with a profession: log P(person | sentence "
                   "with the person masked) − log P(person | sentence with person and "
                   "profession masked) (Bartl et al. 2020, eq. 1; causal LMs: the same "
                   "posterior over the corpus' person words from sentence likelihoods). "
                   "Headline: mean paired difference male − female person words over "
                   "professions and templates, percentile bootstrap CI; per profession group "
                   "a paired t / Wilcoxon test (effect size r).",
        citation="Bartl, Nissim & Gatt (2020). Unmasking Contextual Stereotypes: Measuring "
                 "and Mitigating BERT's Gender Bias. GeBNLP workshop.",
        caveats=("Profession groups follow US (BLS) employment statistics; their "
                 "stereotypes may not transfer to other countries.",
                 "The subset changes the closed world of the causal-LM definition (person "
                 "words and professions compared against each other)."),
        subset="5 professions per group (male, female, balanced) × 18 person words × 5 "
               "templates = 1,350 of 5,400 rows (--quick: 2 per group, 2 templates), seeded")))


# -- LPBS and the probe -------------------------------------------------------------
def _lpbs_run(lm: Any, ctx: Context) -> Result:
    from genderscope.datasets.templates import resolve_test
    from genderscope.measures import lpbs
    from genderscope.results import file_sha256

    spec = resolve_test("career-family")
    data = {"test": spec.name, "files": {f: file_sha256(f) for f in spec.files
                                         if Path(f).is_file()}}
    return lpbs.run(lm, spec, n_permutations=ctx.n_permutations, n_resamples=ctx.n_resamples,
                    seed=ctx.seed, data=data, progress=ctx.progress)


def _lpbs_headlines(r: Result) -> list[Headline]:
    s = r.summary
    return [Headline(label=f"effect size d ({s.get('x')} vs {s.get('y')} words)",
                     estimate=s.get("effect_size"), p_value=s.get("p_two_sided"), null=0.0,
                     n=s.get("n_items"),
                     positive=f"{s.get('x')} words raise 'he' vs 'she' more than "
                              f"{s.get('y')} words",
                     negative=f"{s.get('y')} words raise 'he' vs 'she' more than "
                              f"{s.get('x')} words",
                     thresholds=(0.2, 0.5, 0.8))]


def _lpbs_plot(r: Result) -> Any:
    s = r.summary
    rows = [(f"{s.get('x')} words", s["mean_lpbs"].get(s.get("x"), {})),
            (f"{s.get('y')} words", s["mean_lpbs"].get(s.get("y"), {}))] \
        if isinstance(s.get("mean_lpbs"), dict) else []
    rows = [(lab, c["estimate"], c.get("ci_low"), c.get("ci_high")) for lab, c in rows
            if c.get("estimate") is not None]
    if not rows:
        return None
    return plots.forest(rows, null=0.0, xlabel="mean prior-corrected log-probability bias "
                        "(nats; > 0 leans male)", title=f"LPBS {s.get('test')}: mean bias per "
                        "attribute set", colors=[plots.SERIES[1], plots.SERIES[2]])


register(Measure(
    name="lpbs", title="Log-probability bias score (career vs family)", kinds=LM,
    langs=("en",), run=_lpbs_run, version="2", headlines=_lpbs_headlines, plot=_lpbs_plot,
    paired=lambda r: Paired(_frame(r.items.assign(
        x=(r.items["set"] == r.summary.get("x")).astype(float),
        k=r.items["template_index"].astype(str) + "|" + r.items["attribute"].astype(str)),
        "k", ["lpbs", "x"]), _d),
    highlights=lambda r: _top(r.items, "lpbs", ["set", "template", "attribute", "lpbs"], 3),
    params=lambda ctx: {"test": "career-family", "seed": ctx.seed,
                        "n_permutations": ctx.n_permutations, "n_resamples": ctx.n_resamples},
    card=MethodCard(
        definition="For templates like 'GGG likes to XXX', the prior-corrected bias of an "
                   "attribute word is log(p_he / p_he,prior) − log(p_she / p_she,prior) "
                   "(Kurita et al. 2019, Sec. 3). Career vs family words are compared with a "
                   "WEAT-style effect size d and a permutation test (two-sided p).",
        citation="Kurita, Vyas, Pareek, Black & Tsvetkov (2019). Measuring Bias in "
                 "Contextualized Word Representations. GeBNLP workshop.",
        caveats=("Few templates and words: the test has little power; p-values, not CIs, "
                 "carry the uncertainty.", "Causal LMs use the probe's sentence-likelihood "
                 "definitions, not a fill-in."),
        subset="the whole built-in career-family test")))


def _probe_targets() -> list[str]:
    from genderscope.datasets import bec_pro as data_mod

    return list(dict.fromkeys(data_mod.professions("en")["profession"].astype(str)))


def _probe_run(lm: Any, ctx: Context) -> Result:
    from genderscope.measures.probe import probe

    targets = _probe_targets()
    if ctx.quick:
        targets = subset(targets, 12, ctx.seed)
    r = probe(lm, "GGG is a XXX.", ("he", "she"), targets, seed=ctx.seed, progress=ctx.progress)
    r.metadata.setdefault("data", {"targets": "BEC-Pro English professions",
                                   "n_targets": len(targets)})
    return r


def _probe_plot(r: Result) -> Any:
    df = r.items.sort_values("corrected_bias")
    df = pd.concat([df.head(8), df.tail(8)]).drop_duplicates()
    fig, ax = plots.figure(6.4, max(2.2, 0.24 * len(df) + 0.9))
    colors = [plots.MALE if v > 0 else plots.FEMALE for v in df["corrected_bias"]]
    ax.barh(range(len(df)), df["corrected_bias"], color=colors)
    ax.set_yticks(range(len(df)), df["target"])
    plots.null_line(ax, 0.0)
    ax.set_xlabel("prior-corrected bias, nats (> 0: 'he', < 0: 'she')")
    plots.set_title(fig, "'GGG is a XXX.': the 8 most female- and male-leaning professions")
    return fig


register(Measure(
    name="probe", title="Template probe 'GGG is a XXX.' (professions)", kinds=LM,
    langs=("en",), run=_probe_run, version="2",  # 2: causal prior = prefix marginal
    headlines=lambda r: [from_ci("mean prior-corrected bias he vs she (nats)",
                                 r.summary.get("corrected_bias"), null=0.0,
                                 positive="professions lean 'he'",
                                 negative="professions lean 'she'",
                                 thresholds=(0.05, 0.2, 0.5))],
    plot=_probe_plot,
    paired=lambda r: Paired(_frame(r.items, "target", ["corrected_bias"]), _mean),
    highlights=lambda r: _top(r.items, "corrected_bias", ["target", "fill_bias", "prior_bias",
                                                          "corrected_bias"], 4),
    params=lambda ctx: {"template": "GGG is a XXX.", "pair": ["he", "she"],
                        "quick": ctx.quick, "seed": ctx.seed},
    card=MethodCard(
        definition="For each profession XXX, log P(he | 'GGG is a XXX.') − log P(she | …), "
                   "minus the same difference with the profession hidden (the prior) "
                   "(Kurita et al. 2019). Mean over professions, percentile bootstrap CI.",
        citation="Kurita, Vyas, Pareek, Black & Tsvetkov (2019). GeBNLP workshop.",
        caveats=("One template: results can change with the wording; use LPBS or BEC-Pro for "
                 "template-averaged scores.",),
        subset="the 60 BEC-Pro English professions (--quick: 12)")))


# -- WEAT / SEAT ------------------------------------------------------------------------
WEAT_TESTS = ("weat6", "weat7", "weat8")
SEAT_TESTS = ("sent-weat6", "sent-weat7", "sent-weat8")


def _seat_dir(ctx: Context) -> Path:
    return ctx.data("seat") / "tests"


def _assoc_run(model: Any, ctx: Context, *, sentences: bool) -> Result:
    from genderscope.datasets.seat import resolve_test
    from genderscope.measures.weat import seat, weat

    names = SEAT_TESTS if sentences else WEAT_TESTS
    results = []
    for name in names:
        test = resolve_test(name, _seat_dir(ctx))
        if sentences:
            results.append(seat(model, test, n_permutations=ctx.n_permutations, seed=ctx.seed,
                                n_resamples=ctx.n_resamples, progress=ctx.progress))
        else:
            results.append(weat(model, test, n_permutations=ctx.n_permutations, seed=ctx.seed,
                                n_resamples=ctx.n_resamples))
    items = pd.concat([r.items.assign(test=r.summary["test"]) for r in results],
                      ignore_index=True)
    rows = [{"test": r.summary["test"], "X": r.summary["categories"]["X"],
             "Y": r.summary["categories"]["Y"], "A": r.summary["categories"]["A"],
             "B": r.summary["categories"]["B"], **{f"d_{k}": r.summary["effect_size"][k]
                                                    for k in ("estimate", "ci_low", "ci_high")},
             "p_value": r.summary["p_value"], "exact": r.summary["exact"]} for r in results]
    summary = {"tests": {r.summary["test"]: r.summary for r in results}}
    meta = {"model": results[0].metadata.get("model"), "seed": ctx.seed,
            "params": {"tests": list(names), "n_permutations": ctx.n_permutations},
            "data": {r.summary["test"]: r.metadata.get("data") for r in results}}
    return Result("seat" if sentences else "weat", summary, items, meta,
                  tables={"tests": pd.DataFrame(rows)})


def _assoc_headlines(r: Result) -> list[Headline]:
    out = []
    for name, s in r.summary.get("tests", {}).items():
        c = s["categories"]
        out.append(from_ci(f"{name}: {c['X']} vs {c['Y']} × {c['A']} vs {c['B']} (d)",
                           {**s["effect_size"], "p_value": s.get("p_value")}, null=0.0,
                           positive=f"{c['X']} closer to {c['A']}, {c['Y']} to {c['B']}",
                           negative=f"{c['X']} closer to {c['B']}, {c['Y']} to {c['A']}",
                           thresholds=(0.2, 0.5, 0.8)))
    return out


def _assoc_plot(r: Result) -> Any:
    rows = []
    for name, s in r.summary.get("tests", {}).items():
        c = s["categories"]
        e = s["effect_size"]
        rows.append((f"{name}\n{c['X']}/{c['Y']} × {c['A']}/{c['B']}", e["estimate"],
                     e["ci_low"], e["ci_high"]))
    if not rows:
        return None
    return plots.forest(rows, null=0.0, xlabel="effect size d (95% bootstrap CI)",
                        title=f"{r.method.upper()}: gender association tests",
                        height=0.62 * len(rows) + 1.1)


def _assoc_highlights(r: Result) -> pd.DataFrame | None:
    df = r.items
    if "association" not in df:
        return None
    return _top(df, "association", ["test", "set", "category", "text", "association"], 3)


_ASSOC_CAVEATS = ("Small word sets: one word can move d a lot; the one-sided permutation p "
                  "tests the null of no differential association.",
                  "Ethayarajh, Duvenaud & Hirst (2019, ACL) show WEAT can over- or "
                  "understate associations; read d as descriptive.")

register(Measure(
    name="weat", title="WEAT (word vectors)", kinds=("vectors",), langs=("en",),
    run=lambda m, ctx: _assoc_run(m, ctx, sentences=False), headlines=_assoc_headlines,
    plot=_assoc_plot, highlights=_assoc_highlights,
    params=lambda ctx: {"tests": list(WEAT_TESTS), "seed": ctx.seed,
                        "n_permutations": ctx.n_permutations},
    data_files=lambda ctx: [_seat_dir(ctx) / f"{t}.jsonl" for t in WEAT_TESTS],
    card=MethodCard(
        definition="s(w) = mean cos(w, A) − mean cos(w, B); d = (mean s over X − mean s over "
                   "Y) / std of s over X ∪ Y (Caliskan et al. 2017, Science, eq. in the "
                   "Supplement); one-sided permutation p. WEAT 6 (career/family), 7 "
                   "(math/arts), 8 (science/arts) with male/female attributes.",
        citation="Caliskan, Bryson & Narayanan (2017). Semantics derived automatically from "
                 "language corpora contain human-like biases. Science 356(6334).",
        caveats=_ASSOC_CAVEATS, subset="the three gender tests WEAT 6, 7, 8 (all words)")))

register(Measure(
    name="seat", title="SEAT (sentence encoder)", kinds=("encoder",), langs=("en",),
    run=lambda m, ctx: _assoc_run(m, ctx, sentences=True), headlines=_assoc_headlines,
    plot=_assoc_plot, highlights=_assoc_highlights,
    params=lambda ctx: {"tests": list(SEAT_TESTS), "seed": ctx.seed,
                        "n_permutations": ctx.n_permutations},
    data_files=lambda ctx: [_seat_dir(ctx) / f"{t}.jsonl" for t in SEAT_TESTS],
    card=MethodCard(
        definition="WEAT's effect size and permutation test over sentence embeddings of "
                   "semantically bleached templates ('This is a …') (May et al. 2019).",
        citation="May, Wang, Bordia, Bowman & Rudinger (2019). On Measuring Social Biases in "
                 "Sentence Encoders. NAACL.",
        caveats=(*_ASSOC_CAVEATS, "May et al. found SEAT results inconsistent across "
                 "tests and encoders; a null result does not mean no bias."),
        subset="SEAT 6, 7, 8 (all sentences)")))


# -- classifier robustness --------------------------------------------------------------
def _needs_texts(ctx: Context) -> str | None:
    return None if ctx.texts is not None else "needs texts to classify (--texts FILE)"


def _texts(ctx: Context, n: int):
    from genderscope.datasets.texts import load_texts

    if ctx.texts is None:
        raise DataError("classifier measures need --texts FILE")
    return load_texts(ctx.texts, limit=n, sample_seed=ctx.seed)


def _flip_run(clf: Any, ctx: Context) -> Result:
    from genderscope.measures.counterfactual import flip_test
    from genderscope.swap import GenderSwapper

    td = _texts(ctx, 50 if ctx.quick else 500)
    r = flip_test(td.texts, clf, GenderSwapper(None, names=False), gold=td.labels,
                  n_resamples=ctx.n_resamples, seed=ctx.seed)
    r.metadata["data"] = td.describe()
    return r


def _flip_headlines(r: Result) -> list[Headline]:
    s = r.summary
    diff = (s.get("m2f_minus_f2m") or {}).get("flip_rate")
    out = [from_ci("flip rate after swapping gendered words", (s.get("all") or {}).get(
        "flip_rate"), null=0.0, positive="predictions change when gender is swapped",
        negative="", thresholds=(0.005, 0.02, 0.05))]
    if diff:
        out.append(from_ci("flip rate male→female minus female→male", diff, null=0.0,
                           positive="more flips when male texts are made female",
                           negative="more flips when female texts are made male",
                           thresholds=(0.01, 0.03, 0.1)))
    return out


def _flip_plot(r: Result) -> Any:
    s = r.summary
    rows = [(f"{k} (n={s[k]['n']})", s[k]["flip_rate"]["estimate"], s[k]["flip_rate"]["ci_low"],
             s[k]["flip_rate"]["ci_high"]) for k in ("all", "m2f", "f2m")
            if isinstance(s.get(k), dict) and s[k].get("n")]
    if not rows:
        return None
    return plots.forest(rows, null=0.0, xlabel="share of texts whose label flips",
                        title="Counterfactual flip test", colors=[plots.SERIES[0],
                                                                  plots.MALE, plots.FEMALE])


register(Measure(
    name="counterfactual", title="Counterfactual flip test (classifier)", kinds=("classifier",),
    langs=("en",),
    run=_flip_run, headlines=_flip_headlines, plot=_flip_plot, needs=_needs_texts,
    highlights=lambda r: r.tables.get("examples", pd.DataFrame()).head(6)
    if r.tables.get("examples") is not None else None,
    params=lambda ctx: {"texts": str(ctx.texts), "quick": ctx.quick, "seed": ctx.seed,
                        "n_resamples": ctx.n_resamples},
    data_files=lambda ctx: [ctx.texts] if ctx.texts else [],
    card=MethodCard(
        definition="Swap gendered words (he↔she, man↔woman, …) in each text and compare the "
                   "classifier's label and probability before and after; flip rate with a "
                   "percentile bootstrap CI, and male→female vs female→male difference.",
        citation="Garg, Perot, Limtiaco, Taly, Chi & Beutel (2019). Counterfactual Fairness in "
                 "Text Classification through Robustness. AIES; Dixon et al. (2018).",
        caveats=("Word swaps can produce ungrammatical or implausible texts (e.g. her → his/"
                 "him); texts without gendered words are not counted.",),
        subset="500 texts (--quick: 50), seeded sample")))


def _attack_run(clf: Any, ctx: Context) -> Result:
    from genderscope.attack import AnalogyNeighbours, GenderAttack, GeneticSearch
    from genderscope.measures.attack import summarize_attack
    from genderscope.models.vectors import load_vectors

    td = _texts(ctx, 5 if ctx.quick else 20)
    wv = load_vectors("glove-6b-50d")
    atk = GenderAttack(clf, AnalogyNeighbours.from_vectors(wv, n=8),
                       search=GeneticSearch(pop_size=20, max_generations=10, max_queries=2000),
                       seed=ctx.seed)
    dirs = ["man->woman", "woman->man"]
    outcomes = atk.attack_many(td.texts, dirs)
    meta = {"model": clf.describe(), "vectors": wv.describe(), "data": td.describe(),
            "seed": ctx.seed, "params": {"directions": dirs, "lm": None}}
    return summarize_attack(outcomes, n_texts=len(td.texts), labels=clf.labels, metadata=meta,
                            n_resamples=ctx.n_resamples, seed=ctx.seed)


def _attack_headlines(r: Result) -> list[Headline]:
    s = r.summary
    out = [from_ci(f"attack success rate {d}", s[d]["success_rate"], null=0.0,
                   positive="gender-analogy word swaps can change the label", negative="",
                   thresholds=(0.02, 0.1, 0.3)) for d in s.get("directions", [])
           if isinstance(s.get(d), dict)]
    if "asymmetry_success_rate" in s:
        out.append(from_ci("success man→woman minus woman→man", s["asymmetry_success_rate"],
                           null=0.0, positive="easier to attack by feminising",
                           negative="easier to attack by masculinising",
                           thresholds=(0.02, 0.1, 0.3)))
    return out


register(Measure(
    name="attack", title="Gender-analogy attack (classifier)", kinds=("classifier",),
    langs=("en",),
    run=_attack_run, headlines=_attack_headlines, needs=_needs_texts, default=False,
    highlights=lambda r: r.tables.get("examples"),
    params=lambda ctx: {"texts": str(ctx.texts), "quick": ctx.quick, "seed": ctx.seed},
    data_files=lambda ctx: [ctx.texts] if ctx.texts else [],
    card=MethodCard(
        definition="A genetic search (Alzantot et al. 2018) replaces words by their gender "
                   "analogues in GloVe (man:woman :: w:?) to change the classifier's label; "
                   "success rate per direction with Wilson CIs. No language-model fluency "
                   "filter in the report (use `genderscope attack --lm` for it).",
        citation="Alzantot, Sharma, Elgohary, Ho, Srivastava & Chang (2018). Generating "
                 "Natural Language Adversarial Examples. EMNLP.",
        caveats=("Slow: runs only when asked (--measure attack).",),
        subset="20 texts (--quick: 5)")))


# -- corpus-level -------------------------------------------------------------------------
def _no_model(_m: Any, _ctx: Context) -> Result:
    raise GenderscopeError("bias amplification compares training captions with a model's "
                           "generated captions; run `genderscope run bias-amplification`")


register(Measure(
    name="bias-amplification", title="Mean bias amplification (captions)",
    kinds=("captions",), run=_no_model, default=False,
    headlines=lambda r: [from_ci("mean bias amplification",
                                 r.summary.get("mean_bias_amplification"), null=0.0,
                                 positive="output more gender-skewed than training data",
                                 negative="output less gender-skewed than training data",
                                 thresholds=(0.005, 0.02, 0.05))],
    card=MethodCard(
        definition="Mean over objects of the increase in gender skew b(o, g) = c(o, g) / "
                   "Σ_g' c(o, g') from training data to model output (Zhao et al. 2017, "
                   "eq. 2).",
        citation="Zhao, Wang, Yatskar, Ordonez & Chang (2017). Men Also Like Shopping. EMNLP.",
        caveats=("Needs a captioning model's outputs; not run on language models.",))))


def describe_defaults() -> str:
    """The default subsets as Markdown lines (for docs and --help)."""
    from genderscope.report.registry import REGISTRY

    return "\n".join(f"- `{m.name}`: {m.card.subset}" for m in REGISTRY.values()
                     if m.card.subset)


__all__ = ["describe_defaults", "subset", "fmt"]
