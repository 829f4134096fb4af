"""What ``genderscope.run(measure, ...)`` and ``genderscope run MEASURE`` do for each measure.

A *plan* function checks a measure's options and loads its data (before any model is
loaded, so a mistake fails fast and writes nothing) and returns a :class:`Plan`: the
model kind it needs, the folder name of its results and ``run(adapter) -> Result``.
:func:`genderscope.api.run` loads the model, runs the plan, saves and records the
result; the CLI commands only parse options and print tables.

Option names are the CLI's, in snake case (``--subset-seed`` -> ``subset_seed``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from genderscope.errors import GenderscopeError
from genderscope.plans_base import (  # noqa: F401 - re-exported: genderscope.plans.Plan
    MODEL_KINDS,
    Plan,
    _association_test,
    _check_choice,
    _check_min,
    _check_strategy,
    _measure,
    _subset_note,
    dataset_dir,
    subset,
)
from genderscope.results import Result

T = TypeVar("T")


# -- pronouns, grammaticality, sentence pairs ----------------------------------------------
def winobias(*, split: str = "test", types: Sequence[int] | str = (1, 2),
             include_multi_pronoun: bool = False, data: Path | None = None,
             limit: int | None = None, subset_seed: int = 0, seed: int = 0,
             resamples: int = 10_000, progress: bool = False) -> Plan:
    """WinoBias (English): pronoun prediction on pro- vs anti-stereotypical sentences."""
    from genderscope.datasets.winobias import load_winobias
    run_winobias = _measure("genderscope.measures.winobias:run_winobias")

    if isinstance(types, str):
        try:
            types = tuple(int(t) for t in types.split(","))
        except ValueError:
            raise GenderscopeError(f"--types must be like 1 or 1,2, got {types!r}") from None
    wb_types = tuple(int(t) for t in types)
    _check_min("--limit", limit, 1)
    _check_min("--resamples", resamples, 100)
    every = load_winobias(dataset_dir(data, "winobias"), split=split, types=wb_types)
    items = subset(every, limit, subset_seed)
    params = {"split": split, "types": list(wb_types)}
    return Plan("winobias", "lm", lambda lm: run_winobias(
        lm, items, method="winobias", exclude_multi_pronoun=not include_multi_pronoun,
        n_resamples=resamples, seed=seed, progress=progress, params=params),
        _subset_note(limit, subset_seed, len(items), len(every), "sentences"), inputs=items,
        key_options={"types": list(wb_types)})


def dawinobias(*, split: str = "all", data: Path | None = None, limit: int | None = None,
               subset_seed: int = 0, seed: int = 0, resamples: int = 10_000,
               progress: bool = False) -> Plan:
    """DaWinoBias (Danish, GenDa Lens): pronoun prediction, pro vs anti."""
    from genderscope.datasets.winobias import load_dawinobias
    run_winobias = _measure("genderscope.measures.winobias:run_winobias")

    _check_min("--limit", limit, 1)
    _check_min("--resamples", resamples, 100)
    every = load_dawinobias(dataset_dir(data, "genda-lens"), split=split)
    items = subset(every, limit, subset_seed)
    return Plan("dawinobias", "lm", lambda lm: run_winobias(
        lm, items, method="dawinobias", n_resamples=resamples, seed=seed, progress=progress,
        params={"split": split}),
        _subset_note(limit, subset_seed, len(items), len(every), "sentences"), inputs=items)


def abc(*, lang: str = "da", source: str = "auto", include_invalid: bool = False,
        valid_only: bool = False, data: Path | None = None, limit: int | None = None,
        subset_seed: int = 0, seed: int = 0, resamples: int = 10_000,
        progress: bool = False) -> Plan:
    """ABC anti-reflexive possessives: relative perplexity, female vs male.

    ``limit`` draws a seeded subset of the groups, from all of them (the malformed
    ones are then skipped: fewer than ``limit`` may be scored) or, with
    ``valid_only``, from the well-formed groups only (``limit`` groups scored: the
    report card's subset)."""
    from genderscope.datasets.abc import LANGS, load_abc
    run_abc = _measure("genderscope.measures.abc:run_abc")

    _check_choice("--lang", lang, LANGS)
    _check_min("--limit", limit, 1)
    _check_min("--resamples", resamples, 100)
    if valid_only and include_invalid:
        raise GenderscopeError("--valid-only and --include-invalid exclude each other")
    if source == "auto":
        source = "genda-lens" if lang == "da" else "abc"
    folder = "genda-lens" if source == "genda-lens" else "abc"
    every = load_abc(dataset_dir(data, folder), lang=lang, source=source)
    pool = [g for g in every if g.valid] if valid_only else every
    groups = subset(pool, limit, subset_seed)
    unit = "well-formed groups of three sentences" if valid_only else \
        "groups of three sentences"
    return Plan(f"abc-{lang}", "lm", lambda lm: run_abc(
        lm, groups, method="abc", n_resamples=resamples, seed=seed, progress=progress,
        include_invalid=include_invalid, params={"lang": lang, "source": source}),
        _subset_note(limit, subset_seed, len(groups), len(pool), unit), inputs=groups)


def crows_pairs(*, bias_type: str | None = None, data: Path | None = None,
                limit: int | None = None, subset_seed: int = 0,
                progress: bool = False) -> Plan:
    """CrowS-Pairs: % of pairs where the stereotypical sentence is preferred."""
    from genderscope.datasets.crows_pairs import load_crows_pairs
    run_crows_pairs = _measure("genderscope.measures.crows_pairs:run_crows_pairs")

    _check_min("--limit", limit, 1)
    pairs = load_crows_pairs(dataset_dir(data, "crows-pairs", file_ok=True))
    if bias_type:
        _check_choice("--bias-type", bias_type, sorted({p.bias_type for p in pairs}))
        pairs = [p for p in pairs if p.bias_type == bias_type]
    every = len(pairs)
    pairs = subset(pairs, limit, subset_seed)
    unit = f"{bias_type} pairs" if bias_type else "pairs"
    return Plan("crows-pairs", "lm", lambda lm: run_crows_pairs(
        lm, pairs, progress=progress, params={"bias_type": bias_type}),
        _subset_note(limit, subset_seed, len(pairs), every, unit), inputs=pairs)


def stereoset(*, bias_type: str | None = None, split: str = "dev", scoring: str = "reference",
              data: Path | None = None, limit: int | None = None, subset_seed: int = 0,
              seed: int = 0, resamples: int = 10_000, progress: bool = False) -> Plan:
    """StereoSet intrasentence: LMS, SS and ICAT (Nadeem et al. 2021)."""
    from genderscope.datasets.stereoset import load_stereoset
    from genderscope.measures.stereoset import SCORINGS, run_stereoset

    if split != "dev":
        raise GenderscopeError(f"--split {split}: only the dev split of StereoSet is "
                               "public (its test labels were never released)")
    if scoring not in SCORINGS:
        raise GenderscopeError(f"--scoring {scoring}: choose one of {', '.join(SCORINGS)}")
    domains = ("gender", "profession", "race", "religion")
    if bias_type is not None and bias_type not in domains:
        raise GenderscopeError(f"--bias-type {bias_type}: choose one of {', '.join(domains)}")
    _check_min("--limit", limit, 1)
    _check_min("--resamples", resamples, 100)
    items = load_stereoset(dataset_dir(data, "stereoset", file_ok=True),
                           bias_types=(bias_type,) if bias_type else None)
    every = len(items)
    items = subset(items, limit, subset_seed)
    unit = f"{bias_type} contexts" if bias_type else "contexts"
    return Plan("stereoset", "lm", lambda lm: run_stereoset(
        lm, items, scoring=scoring, n_resamples=resamples, seed=seed, progress=progress,
        params={"bias_type": bias_type, "split": split}),
        _subset_note(limit, subset_seed, len(items), every, unit), inputs=items)


# -- templates and association -----------------------------------------------------------
def bec_pro(*, lang: str = "en", data: Path | None = None, repair: bool = False,
            span_masking: str = "piece", strategy: str = "l2r", limit: int | None = None,
            professions: int | None = None, templates: int | None = None,
            subset_seed: int = 0, seed: int = 0, resamples: int = 10_000,
            progress: bool = False) -> Plan:
    """BEC-Pro association of person words and professions (Bartl et al. 2020, eq. 1).
    ``professions``: a seeded subset (``subset_seed``) of N professions per profession
    group; ``templates``: the first N sentence patterns (the report's subsets)."""
    from genderscope.datasets import bec_pro as data_mod
    from genderscope.results import file_sha256

    _check_choice("--span-masking", span_masking, ("piece", "word"))
    _check_strategy(strategy)
    _check_choice("--lang", lang, data_mod.LANGS)
    _check_min("--limit", limit, 1)
    _check_min("--professions", professions, 1)
    _check_min("--templates", templates, 1)
    _check_min("--resamples", resamples, 100)
    if data is not None:
        data = Path(data)
        rows = data_mod.load_tsv(data, repair=repair)
        data_meta: dict[str, Any] = {"file": str(data), "file_sha256": file_sha256(data),
                                     "repair": repair}
    else:
        rows = data_mod.generate(lang)
        data_meta = {"generated": f"BEC-Pro {lang.upper()} (genderscope generator)",
                     "lang": lang}
    note: dict[str, Any] = {}
    if professions is not None or templates is not None:
        total = len(rows)
        rows = _professions_subset(rows, professions, templates, subset_seed)
        note = {"professions": professions, "templates": templates, "subset_seed":
                subset_seed, "subset": {"n": len(rows), "of": total, "unit": "rows",
                                        "seed": subset_seed}}
    if limit is not None:  # the first rows of each person gender in turn: the data is
        rows = _first_of_each(rows, limit, lambda r: r.gender)  # ordered by gender
    data_meta["n_rows"] = len(rows)
    run = _measure("genderscope.measures.bec_pro:run")
    return Plan("bec-pro", "lm", lambda lm: run(
        lm, rows, strategy=strategy, span_masking=span_masking, n_resamples=resamples,
        seed=seed, data=data_meta, progress=progress), note, inputs=(rows, data_meta))


def _professions_subset(rows: Sequence[Any], per_group: int | None, templates: int | None,
                        seed: int) -> list[Any]:
    """BEC-Pro rows of ``per_group`` professions of each profession group (a seeded
    subset of each group's professions, groups in sorted order) and of the first
    ``templates`` sentence patterns (None: all)."""
    by_group: dict[str, list[str]] = {}
    for r in rows:
        keys = by_group.setdefault(r.prof_gender, [])
        if r.profession_key not in keys:
            keys.append(r.profession_key)
    keep: set[str] = set()
    for group in sorted(by_group):
        keep.update(subset(by_group[group], per_group, seed))
    patterns = list(dict.fromkeys(r.template for r in rows))
    kept = set(patterns[:templates] if templates is not None else patterns)
    return [r for r in rows if r.profession_key in keep and r.template in kept]


def _first_of_each(rows: Sequence[T], limit: int, group: Callable[[T], Any]) -> list[T]:
    """``limit`` rows taken from each group in turn (its first rows), in their original
    order: a limit never keeps one group only (BEC-Pro: --limit 10 on rows ordered by
    person gender kept only male rows, and the gender comparison had no number)."""
    groups: dict[Any, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(group(r), []).append(i)
    queues = [list(reversed(g)) for g in groups.values()]
    keep: set[int] = set()
    while len(keep) < min(limit, len(rows)):
        for q in queues:
            if q and len(keep) < limit:
                keep.add(q.pop())
    return [r for i, r in enumerate(rows) if i in keep]


def lpbs(*, test: str = "career-family", templates: Path | None = None,
         span_masking: str = "piece", strategy: str = "l2r", permutations: int = 10_000,
         seed: int = 0, resamples: int = 10_000, progress: bool = False) -> Plan:
    """Kurita et al. (2019) log-probability bias score test with a WEAT-style effect size."""
    from genderscope.datasets.templates import resolve_test
    from genderscope.results import file_sha256

    run = _measure("genderscope.measures.lpbs:run")

    _check_choice("--span-masking", span_masking, ("piece", "word"))
    _check_strategy(strategy)
    _check_min("--permutations", permutations, 10_000)
    _check_min("--resamples", resamples, 100)
    spec = resolve_test(test, Path(templates) if templates is not None else None)
    data_meta: dict[str, Any] = {"test": spec.name, "files": {
        f: file_sha256(f) for f in spec.files if Path(f).is_file()}}
    return Plan(f"lpbs/{spec.name}", "lm", lambda lm: run(
        lm, spec, strategy=strategy, span_masking=span_masking, n_permutations=permutations,
        n_resamples=resamples, seed=seed, data=data_meta, progress=progress),
        inputs=(spec, data_meta))


def probe(*, targets: Sequence[str], template: str = "GGG is a XXX.",
          pair: Sequence[str] | str = ("he", "she"), strategy: str = "l2r",
          progress: bool = False) -> Plan:
    """Gender-fill, prior-corrected and target-fill bias (Kurita et al. 2019)."""
    from genderscope.measures.probe import check_template

    _check_strategy(strategy)
    from genderscope.measures.probe import probe as run_probe

    check_template(template)
    words = [w.strip() for w in pair.split(",")] if isinstance(pair, str) else list(pair)
    if len(words) != 2:
        raise GenderscopeError(f"--pair needs two comma-separated words, got {pair!r}")
    if isinstance(targets, str):
        targets = [targets]
    if not targets:
        raise GenderscopeError("probe needs at least one target word")
    return Plan("probe", "lm", lambda lm: run_probe(
        lm, template, (words[0], words[1]), list(targets), strategy=strategy,
        progress=progress), inputs=(template, words, list(targets)))


# -- embeddings ------------------------------------------------------------------------
def weat(*, test: Any, tests_dir: Path | None = None, permutations: int = 10_000,
         exact_limit: int = 200_000, seed: int = 0, max_oov: float = 0.2,
         phrases: str = "skip", case_fallback: bool = True, progress: bool = False) -> Plan:
    """WEAT (Caliskan et al. 2017) of one test (name, JSON file or AssociationTest) on
    static word vectors."""
    run_weat = _measure("genderscope.measures.weat:weat")

    _check_min("--permutations", permutations, 10_000)
    _check_choice("--phrases", phrases, ("skip", "mean"))
    spec = _association_test(test, tests_dir)

    def run(vecs: Any) -> Result:
        from genderscope.progress import progress_bar

        with progress_bar(f"weat {spec.name}", 1, enabled=progress) as advance:
            result = run_weat(vecs, spec, n_permutations=permutations, seed=seed,
                              exact_limit=exact_limit, max_oov=max_oov,
                              case_fallback=case_fallback, phrases=phrases)
            advance(1)
        return result

    return Plan("weat", "vectors", run, inputs=spec,
                key_options={"test": None})  # its content is in the inputs


def seat(*, test: Any, tests_dir: Path | None = None, permutations: int = 10_000,
         exact_limit: int = 200_000, seed: int = 0, progress: bool = False) -> Plan:
    """SEAT (May et al. 2019) of one test on a sentence encoder."""
    run_seat = _measure("genderscope.measures.weat:seat")

    _check_min("--permutations", permutations, 10_000)
    spec = _association_test(test, tests_dir)
    return Plan("seat", "encoder", lambda enc: run_seat(
        enc, spec, n_permutations=permutations, seed=seed, exact_limit=exact_limit,
        progress=progress), inputs=spec,
        key_options={"test": None})  # its content is in the inputs


# -- classifiers -------------------------------------------------------------------------
def counterfactual(*, data: Path, text_column: str | None = None,
                   label_column: str | None = None, limit: int | None = None,
                   sample_seed: int | None = None, names: bool = False,
                   pairs: Path | None = None, examples: int = 10, seed: int = 0,
                   resamples: int = 10_000, progress: bool = False) -> Plan:
    """Counterfactual flip test (Garg et al. 2019): swap gendered words, compare the
    classifier's answers. ``seed`` and ``resamples``: the bootstrap CIs. Reused by the
    texts' content (and gold labels), the swapper (word pairs' content, tagger) and the
    classifier's identity."""
    from genderscope.datasets.texts import load_texts
    from genderscope.measures.counterfactual import flip_test
    from genderscope.results import file_sha256
    from genderscope.swap import GenderSwapper

    _check_min("--limit", limit, 1)
    _check_min("--resamples", resamples, 100)
    td = load_texts(data, text_column=text_column, label_column=label_column, limit=limit,
                    sample_seed=sample_seed)
    swapper = GenderSwapper(pairs, names=names)
    swap_id = {k: v for k, v in swapper.describe().items() if k != "pairs"}
    swap_id["pairs_sha256"] = file_sha256(pairs) if pairs is not None else None

    def run(clf: Any) -> Result:
        from genderscope.progress import progress_bar

        with progress_bar("flip test", 1, enabled=progress) as advance:
            result = flip_test(td.texts, clf, swapper, gold=td.labels, n_examples=examples,
                               n_resamples=resamples, seed=seed)
            advance(1)
        result.metadata["data"] = td.describe()
        result.metadata["params"].update({"classifier": getattr(clf, "name", None),
                                          "names": names,
                                          "pairs": str(pairs) if pairs else None,
                                          "limit": limit, "sample_seed": sample_seed})
        return result

    return Plan("counterfactual", "classifier", run,
                inputs={"texts": td.texts, "labels": td.labels, "swapper": swap_id},
                key_options={"pairs": None,  # its content is in the inputs
                             **({"sample_seed": None} if limit is None else {})})


from genderscope.plans_chat import CHAT_PLANS  # noqa: E402
from genderscope.plans_embeddings import ect, mac, ripa, rnd, rnsb  # noqa: E402
from genderscope.plans_perplexity import PERPLEXITY_PLANS  # noqa: E402
from genderscope.plans_texts import attack, bias_amplification  # noqa: E402

PLANS: dict[str, Callable[..., Plan]] = {
    "winobias": winobias, "dawinobias": dawinobias, "abc": abc, "crows-pairs": crows_pairs,
    "stereoset": stereoset, "bec-pro": bec_pro, "lpbs": lpbs, "probe": probe,
    "weat": weat, "seat": seat, "counterfactual": counterfactual, "attack": attack,
    "bias-amplification": bias_amplification,
    "ripa": ripa, "rnd": rnd, "ect": ect, "mac": mac, "rnsb": rnsb,
    **CHAT_PLANS,
    **PERPLEXITY_PLANS,
}
"""Measure name -> plan function (``genderscope.run`` and ``genderscope run NAME``)."""
