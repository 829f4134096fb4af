"""The one table of GenderBench 1.1.0's 14 probes (Pikuliak et al. 2025, arXiv:2505.12054,
Sec. 3 and App. A): what ``genderscope run PROBE`` declares (:mod:`genderscope.catalog.chat`)
and what the suite runs (:mod:`genderscope.measures.genderbench.suite`) both read it.

It imports nothing heavy: listing the measures imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Probe:
    """One GenderBench probe.

    ``name``: genderscope's; ``genderbench``: GenderBench's class; ``builder``:
    ``module:function`` of :mod:`genderscope.measures.genderbench` (function default
    ``build``); ``harness``: ``DefaultHarness``'s keyword arguments (genderscope's names);
    ``sizes``: the suite's (cpu, quick) item counts; ``unit``: what its answers share
    (its ``ProbeSpec.cluster_unit``, the clusters of its design); ``summary``: the
    declaration's one-paragraph description; ``defaults``: the options whose default
    differs from every probe's (``limit``) or that only it offers (``reorderings``);
    ``page``: its place among the probes on the report page and in the registry."""

    name: str
    genderbench: str
    builder: str
    harness: Mapping[str, Any]
    sizes: tuple[int, int]
    unit: str
    summary: str
    page: int
    defaults: Mapping[str, int | None] = field(default_factory=dict)

    def build(self) -> Callable[..., Any]:
        """The builder: keyword arguments -> its ``ProbeSpec``."""
        mod, _, fn = self.builder.partition(":")
        module = importlib.import_module(f"genderscope.measures.genderbench.{mod}")
        return getattr(module, fn or "build")


PROBES: tuple[Probe, ...] = (
    Probe("bbq", "BbqProbe", "bbq", {}, (60, 4), "questions",
          "GenderBench BBQ (gender identity): stereotypical answers to multiple-choice\n"
          "    questions.", 1, {"reorderings": 1}),
    Probe("business-vocabulary", "BusinessVocabularyProbe", "business_vocabulary",
          {"num_repetitions": 3}, (40, 4), "names",
          "GenderBench BusinessVocabulary: gendered words in letters written for women vs men.",
          11),
    Probe("direct", "DirectProbe", "direct", {}, (60, 4), "stereotypes",
          "GenderBench Direct: agreement with gender stereotypes stated outright.", 2),
    Probe("discrimination-tamkin", "DiscriminationTamkinProbe", "discrimination_tamkin",
          {"num_repetitions": 3}, (60, 4), "scenarios",
          "GenderBench DiscriminationTamkin: yes/no decisions for a woman, a man, a non-binary"
          "\n    person in the same scenario.", 0),
    Probe("diversity-med-qa", "DiversityMedQaProbe", "diversity_med_qa", {}, (30, 2),
          "questions",
          "GenderBench DiversityMedQA: medical questions answered for a man vs a woman.", 3,
          {"reorderings": 3}),
    Probe("dreaddit", "DreadditProbe", "dreaddit", {"num_repetitions": 2}, (30, 2), "posts",
          "GenderBench Dreaddit: stress read into the same post by the writer's gender.", 9),
    Probe("gest", "GestProbe", "gest:build_gest", {}, (30, 2), "sentences",
          "GenderBench Gest: who is more likely to say a GEST sentence (data set ``gest``; "
          "``data``: gest.csv).", 12, {"reorderings": 6}),
    Probe("gest-creative", "GestCreativeProbe", "gest:build_creative", {"num_repetitions": 4},
          (40, 4), "sentences",
          "GenderBench GestCreative: the gender of characters written for GEST mottos.", 13),
    Probe("hiring-an", "HiringAnProbe", "hiring_an", {"sample_k": 20_000}, (60, 4),
          "occupations",
          "GenderBench HiringAn: hiring-decision emails for candidates of each gender "
          "(``limit``:\n    GenderBench's ``sample_k``, default 10,000 of the ~5.4 million "
          "combinations).", 5, {"limit": 10_000}),
    Probe("hiring-bloomberg", "HiringBloombergProbe", "hiring_bloomberg", {}, (8, 1),
          "items (stratified by occupation)",
          "GenderBench HiringBloomberg: the gender of the candidate ranked first among eight "
          "CVs\n    (``reorderings``: GenderBench's ``num_reorders`` per role x race, default "
          "250).", 6, {"reorderings": 250}),
    Probe("inventories", "InventoriesProbe", "inventories", {"num_repetitions": 5}, (40, 4),
          "traits",
          "GenderBench Inventories: the gender of characters written for stereotyped traits.",
          7),
    Probe("isear", "IsearProbe", "isear", {}, (30, 2), "events",
          "GenderBench Isear: the emotion a man, a woman, a non-binary person would feel.", 8),
    Probe("jobs-lum", "JobsLumProbe", "jobs_lum", {"num_repetitions": 5}, (40, 4),
          "occupations",
          "GenderBench JobsLum: the gender of characters written for occupations.", 4),
    Probe("relationship-levy", "RelationshipLevyProbe", "relationship_levy",
          {"sample_k": 3_000}, (40, 4), "scenarios",
          "GenderBench RelationshipLevy: who is right in a couple's conflict (``limit``:\n"
          "    GenderBench's ``sample_k``, default 1,000).", 10, {"limit": 1_000}),
)
"""``DefaultHarness``'s probes, in its order (genderbench 1.1.0, ``harnesses/default.py``)."""
