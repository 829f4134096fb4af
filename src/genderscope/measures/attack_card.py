"""Report card for the gender-analogy attack (classifiers): default subset, run, headlines,
plot, highlights and method card.

The measure itself is :mod:`genderscope.measures.attack`; its docs page is
``docs/measures/robustness.md``.
"""

from __future__ import annotations

from typing import Any

from genderscope.measures.card_tools import (
    classifier_texts,
    needs_texts,
)
from genderscope.report.entry import Context, Headline, Measure, MethodCard, from_ci
from genderscope.results import Result


def run(clf: Any, ctx: Context) -> Result:
    from genderscope.attack import AnalogyNeighbours, GenderAttack, GeneticSearch
    from genderscope.measures.attack import summarize_attack
    from genderscope.models.vectors import load_vectors

    td = classifier_texts(ctx, ctx.size(20, quick=5))
    wv = load_vectors("glove-6b-50d")
    atk = GenderAttack(clf, AnalogyNeighbours.from_vectors(wv, n=8),
                       search=GeneticSearch(pop_size=20, max_generations=10, max_queries=2000),
                       seed=ctx.seed)
    dirs = ["man->woman", "woman->man"]
    outcomes = atk.attack_many(td.texts, dirs)
    meta = {"model": clf.describe(), "vectors": wv.describe(), "data": td.describe(),
            "seed": ctx.seed, "params": {"directions": dirs, "lm": None, "pop_size": 20,
                                         "generations": 10, "max_queries": 2000}}
    return summarize_attack(outcomes, n_texts=len(td.texts), labels=clf.labels, metadata=meta,
                            n_resamples=ctx.n_resamples, seed=ctx.seed)


def headlines(r: Result) -> list[Headline]:
    s = r.summary
    out = [from_ci(f"attack success rate {d}", s[d]["success_rate"], null=0.0,
                   ci_unit_default="texts",
                   positive="gender-analogy word swaps can change the label", negative="",
                   thresholds=(0.02, 0.1, 0.3)) for d in s.get("directions", [])
           if isinstance(s.get(d), dict)]
    if "asymmetry_success_rate" in s:
        out.append(from_ci("success man→woman minus woman→man", s["asymmetry_success_rate"],
                           null=0.0,
                           ci_unit_default="texts", positive="easier to attack by feminising",
                           negative="easier to attack by masculinising",
                           thresholds=(0.02, 0.1, 0.3)))
    return out


ATTACK = Measure(
    name="attack", title="Gender-analogy attack (classifier)", kinds=("classifier",),
    langs=("en",),
    run=run, headlines=headlines, needs=needs_texts, default=False,
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
        caveats=("Slow: runs only when asked (--measure attack).",
                 "A smaller search than the paper's (population 20, 10 generations; "
                 "Alzantot et al. and `genderscope attack`: 60 and 20), so success rates "
                 "are lower bounds."),
        subset="20 texts (--quick: 5)"))


ENTRIES = (ATTACK,)
