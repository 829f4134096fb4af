"""Pronoun resolution, grammaticality and sentence pairs: WinoBias, DaWinoBias, ABC,
CrowS-Pairs and StereoSet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from genderscope.catalog._common import Plan, Sampled, _measure, _subset_note, dataset_dir, subset
from genderscope.core.declaration import Data, Limit, Opt, Pairing, Progress, SubsetSeed, declare
from genderscope.core.options import Option
from genderscope.errors import GenderscopeError

_WINO: dict[str, Any] = {
    "family": "pronouns and grammar",
    "table": "genderscope.cli.commands.pronouns_pairs:wino_tables",
    "statistics": ("Interval: percentile cluster bootstrap over occupations of the main effect,"
                   " the pro - anti difference and the macro F1s; Wilson's interval over "
                   "sentences of the accuracies. Test: none."),
    "version": 2}  # 2: an interval over occupations that all agree: no_interval, not [x, x]
"""What WinoBias and DaWinoBias declare alike."""


def _wino_plan(method: str, every: Sequence[Any], s: Sampled,
               key_options: dict[str, Any] | None = None, **run_options: Any) -> Plan:
    """The plan of WinoBias and DaWinoBias: a seeded subset of ``every`` sentence, scored
    by :func:`genderscope.measures.winobias.run_winobias` with ``run_options``."""
    run_winobias = _measure("genderscope.measures.winobias:run_winobias")
    items = s.subset(every)
    run = {"n_resamples": s.resamples, "seed": s.seed, "progress": s.progress, **run_options}
    return Plan(method, "lm", lambda lm: run_winobias(lm, items, method=method, **run),
                s.note(len(items), len(every), "sentences"),
                inputs=items, key_options=key_options or {})


@declare("winobias", needs="lm", langs=("en",), **_WINO,
         card="genderscope.reporting.cards.winobias:WINOBIAS", report_order=30)
def winobias(
    *,
    split: Annotated[str, Opt("dev, test or all.")] = "test",
    types: Annotated[Sequence[int] | str, Opt("WinoBias types, e.g. 1 or 1,2.")] = (1, 2),
    include_multi_pronoun: Annotated[
        bool, Opt("Keep sentences with a second coreferent pronoun (it reveals the gender).")
    ] = False,
    s: Sampled,
) -> Plan:
    """WinoBias (English): pronoun prediction on pro- vs anti-stereotypical sentences."""
    from genderscope.datasets.winobias import load_winobias

    if isinstance(types, str):
        try:
            types = tuple(int(t) for t in types.split(","))
        except ValueError:
            raise GenderscopeError(f"--types must be like 1 or 1,2, got {types!r}") from None
    wb_types = tuple(int(t) for t in types)
    every = load_winobias(dataset_dir(s.data, "winobias"), split=split, types=wb_types)
    return _wino_plan("winobias", every, s, {"types": list(wb_types)},
                      exclude_multi_pronoun=not include_multi_pronoun,
                      params={"split": split, "types": list(wb_types)})


@declare("dawinobias", needs="lm", langs=("da",), docs="winobias.md", **_WINO,
         card="genderscope.reporting.cards.winobias:DAWINOBIAS", report_order=40)
def dawinobias(
    *,
    split: Annotated[
        str, Opt("dev, test or all (GenDa Lens uses all 674 sentences per condition).")
    ] = "all",
    s: Sampled,
) -> Plan:
    """DaWinoBias (Danish, GenDa Lens): pronoun prediction, pro vs anti."""
    from genderscope.datasets.winobias import load_dawinobias

    every = load_dawinobias(dataset_dir(s.data, "genda-lens"), split=split)
    return _wino_plan("dawinobias", every, s, params={"split": split})


@declare("abc", needs="lm", langs=("da", "sv", "ru", "zh"), sentence_scored=True,
         version=2,  # a crossed interval with no spread: no_interval, not [x, x]
         statistics=("Interval: the two-way cluster bootstrap-variance t interval over "
                     "occupations x sentence frames (crossed; Cameron, Gelbach & Miller 2011: "
                     "V = V_occupations + V_frames - V_groups, t(min(R, C) - 1); "
                     "stats.crossed.crossed_ci) of the medians, means and shares. Test: none."),
         family="pronouns and grammar", table="genderscope.cli.commands.pronouns_pairs:abc_tables",
         card="genderscope.reporting.cards.abc:ABC", report_order=50)
def abc(
    *,
    lang: Annotated[str, Opt("da, sv, ru or zh.", choices=("da", "sv", "ru", "zh"))] = "da",
    source: Annotated[
        str,
        Opt(
            "genda-lens (Danish, split by occupation stereotype), abc (original ABC files) or auto "
            "(genda-lens for da, abc otherwise)."
        ),
    ] = "auto",
    include_invalid: Annotated[
        bool, Opt("Also score groups whose sentences break the pattern.")
    ] = False,
    valid_only: Annotated[
        bool,
        Opt(
            "Draw the --limit subset from the well-formed groups only, "
            "so --limit N scores N groups (the report's subset); "
            "default: from all groups, malformed ones skipped."
        ),
    ] = False,
    s: Sampled,
) -> Plan:
    """ABC anti-reflexive possessives: relative perplexity, female vs male.

    ``limit`` draws a seeded subset of the groups, from all of them (the malformed
    ones are then skipped: fewer than ``limit`` may be scored) or, with
    ``valid_only``, from the well-formed groups only (``limit`` groups scored: the
    report card's subset)."""
    from genderscope.datasets.abc import load_abc

    run_abc = _measure("genderscope.measures.abc:run_abc")

    if valid_only and include_invalid:
        raise GenderscopeError("--valid-only and --include-invalid exclude each other")
    if source == "auto":
        source = "genda-lens" if lang == "da" else "abc"
    folder = "genda-lens" if source == "genda-lens" else "abc"
    every = load_abc(dataset_dir(s.data, folder), lang=lang, source=source)
    pool = [g for g in every if g.valid] if valid_only else every
    groups = s.subset(pool)
    unit = "well-formed groups of three sentences" if valid_only else "groups of three sentences"
    return Plan(
        f"abc-{lang}",
        "lm",
        lambda lm: run_abc(
            lm,
            groups,
            method="abc",
            n_resamples=s.resamples,
            seed=s.seed,
            progress=s.progress,
            include_invalid=include_invalid,
            params={"lang": lang, "source": source},
        ),
        s.note(len(groups), len(pool), unit),
        inputs=groups,
    )


# log-likelihood margin of the more- over the less-stereotypical sentence, and whether
# the stereotypical sentence is preferred (binary)
@declare(
    "crows-pairs",
    statistics=("Interval: Wilson's score interval of the proportion of independent sentence "
                "pairs whose stereotypical sentence scores higher. Test: two-sided exact binomial"
                " test of that proportion against 50 % over pairs (per bias type Holm-adjusted)."),
    needs="lm",
    langs=("en",),
    family="sentence pairs",
    sentence_scored=True,
    pairing=Pairing(("pair_id",), "margin", ("bias_type",), ("stereotypical_preferred",)),
    table="genderscope.cli.commands.pronouns_pairs:crows_tables",
    card="genderscope.reporting.cards.crows_pairs:CROWS_PAIRS",
    report_order=10,
)
def crows_pairs(
    *,
    bias_type: Annotated[str, Opt(
        "The bias type scored (gender: 262 of the 1,508 pairs; race-color, religion, ...), "
        "or 'all' for every type (Nangia et al.'s headline number).")] = "gender",
    scoring: Annotated[
        str,
        Opt(
            "genderscope: Nangia et al.'s PLL over the shared pieces (masked LMs), summed "
            "log-likelihood with the start token (causal LMs). bias-bench: Meade et al. "
            "2022's code (mean log-probability of the modified pieces; causal: 2^(mean "
            "log2 p), the start token for the first token only).",
            choices=("genderscope", "bias-bench"),
            key=False,
        ),
    ] = "genderscope",
    data: Data = None,
    limit: Limit = None,
    subset_seed: SubsetSeed = 0,
    progress: Progress = False,
) -> Plan:
    """CrowS-Pairs: % of pairs where the stereotypical sentence is preferred."""
    from genderscope.datasets.crows_pairs import load_crows_pairs

    run_crows_pairs = _measure("genderscope.measures.crows_pairs:run_crows_pairs")

    pairs = load_crows_pairs(dataset_dir(data, "crows-pairs", file_ok=True))
    kind = None if bias_type == "all" else bias_type  # None: every type, as keyed before
    if kind:
        Option("bias_type", choices=("all", *sorted({p.bias_type for p in pairs}))).check(kind)
        pairs = [p for p in pairs if p.bias_type == kind]
    every = len(pairs)
    pairs = subset(pairs, limit, subset_seed)
    unit = f"{kind} pairs" if kind else "pairs"
    return Plan(
        "crows-pairs",
        "lm",
        lambda lm: run_crows_pairs(lm, pairs, scoring=scoring, progress=progress,
                                   params={"bias_type": kind}),
        _subset_note(limit, subset_seed, len(pairs), every, unit),
        # a non-default scoring is keyed with the items; the default keeps its old key
        inputs=pairs if scoring == "genderscope" else {"pairs": pairs, "scoring": scoring},
        key_options={"bias_type": kind},
    )


@declare("stereoset", needs="lm", langs=("en",), sentence_scored=True,
         statistics=("Interval: Student's t interval over target terms of the mean per-target SS "
                     "and LMS; percentile cluster bootstrap over targets of ICAT. Test: "
                     "one-sample t test of SS_t - 50 over targets (per bias type Holm-adjusted)."),
         family="sentence pairs", table="genderscope.cli.commands.pronouns_pairs:stereoset_tables",
         card="genderscope.reporting.cards.stereoset:STEREOSET", report_order=20,
         version=3)  # 2: SS/LMS t intervals clipped to [0, 100]; 3: no_interval, not [x, x]
def stereoset(
    *,
    bias_type: Annotated[
        str, Opt("The domain scored (gender, profession, race, religion), or 'all' for every "
                 "domain.")
    ] = "gender",
    split: Annotated[
        str,
        Opt("Only the dev split is available in the flattened copy; pass --data for another file."),
    ] = "dev",
    scoring: Annotated[
        str,
        Opt(
            "Masked LMs: 'reference' (the paper's code: mean probability of the filler's pieces, "
            "left to right, later pieces left out), 'l2r' (same, later pieces masked) or 'pll' "
            "(mean pseudo-log-likelihood of the filler's pieces). Causal LMs: 'bias-bench' "
            "reproduces bias-bench's rule (start token for the first token only); any other value "
            "keeps the start token for every token."
        ),
    ] = "reference",
    s: Sampled,
) -> Plan:
    """StereoSet intrasentence: LMS, SS and ICAT (Nadeem et al. 2021)."""
    from genderscope.datasets.stereoset import load_stereoset
    from genderscope.measures.stereoset import SCORINGS, run_stereoset

    if split != "dev":
        raise GenderscopeError(
            f"--split {split}: only the dev split of StereoSet is "
            "public (its test labels were never released)"
        )
    if scoring not in SCORINGS:
        raise GenderscopeError(f"--scoring {scoring}: choose one of {', '.join(SCORINGS)}")
    domains = ("gender", "profession", "race", "religion")
    if bias_type not in (*domains, "all"):
        raise GenderscopeError(f"--bias-type {bias_type}: choose one of "
                               f"{', '.join(domains)}, all")
    kind = None if bias_type == "all" else bias_type  # None: every domain, as keyed before
    items = load_stereoset(
        dataset_dir(s.data, "stereoset", file_ok=True), bias_types=(kind,) if kind else None
    )
    every = len(items)
    items = s.subset(items)
    unit = f"{kind} contexts" if kind else "contexts"
    return Plan(
        "stereoset",
        "lm",
        lambda lm: run_stereoset(
            lm,
            items,
            scoring=scoring,
            n_resamples=s.resamples,
            seed=s.seed,
            progress=s.progress,
            params={"bias_type": kind, "split": split},
        ),
        s.note(len(items), every, unit),
        inputs=items,
        key_options={"bias_type": kind},
    )
