"""Report card for the gender-analogy attack (classifiers): :mod:`genderscope.measures.attack`."""

from __future__ import annotations

from typing import Any

from genderscope.reporting.cards.card_tools import needs_texts
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, from_ci
from genderscope.results import Result


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope attack --data TEXTS --vectors glove-6b-50d --lm none --candidates 8
    --pop-size 20 --generations 10 --max-queries 2000 --limit N --sample-seed SEED --seed
    SEED --resamples R``: a smaller search than the command's default, no LM filter."""
    n = ctx.size(20, quick=5)
    return "attack", {"data": ctx.texts, "vectors": "glove-6b-50d", "lm": "none",
                      "candidates": 8, "pop_size": 20, "generations": 10,
                      "max_queries": 2000, "limit": n,
                      "sample_seed": ctx.seed if n is not None else None,
                      "seed": ctx.seed, "resamples": ctx.n_resamples}


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


ATTACK = Card(
    name="attack", title="Gender-analogy attack (classifier)", kinds=("classifier",),
    langs=("en",),
    plan=plan, headlines=headlines, needs=needs_texts, default=False,
    highlights=lambda r: r.tables.get("examples"),
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
