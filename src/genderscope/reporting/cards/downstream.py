"""Report card for the downstream probe, the task cost of a debiased LM beside perplexity
(bias-bench checks GLUE, Meade et al. 2022 sec. 7): :mod:`genderscope.measures.downstream`.
Run on request (``--measure downstream``), e.g. for a model and its debiased folder.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from genderscope.core.kinds import LM
from genderscope.reporting.cards.card_tools import item_frame
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, Paired, from_ci
from genderscope.results import Result


def plan(ctx: Context) -> tuple[str, dict[str, Any]]:
    """``genderscope run downstream --limit N --subset-seed SEED --seed SEED``: 300
    contexts, 90 with --quick, every one in full."""
    return "downstream", {"limit": ctx.size(300, quick=90), "subset_seed": ctx.seed,
                          "seed": ctx.seed}


def headlines(r: Result) -> list[Headline]:
    return [from_ci("held-out accuracy of the coherence probe (%; higher: more task "
                    "information kept)", r.summary.get("accuracy"), null=None,
                    ci_unit_default="contexts",
                    note=f"Majority class: {r.summary.get('majority_share', float('nan')):.1f} "
                         "%. A task cost, not a bias score: compare a model with its "
                         "debiased version (same split).")]


def _accuracy(a: np.ndarray) -> float:
    return float(100 * a[:, 0].mean())


def paired(r: Result) -> Paired | None:
    """Each held-out sentence's 0/1 correctness, the three of a context resampled together."""
    df = r.items
    if not {"item_id", "correct", "context_id"} <= set(df.columns):
        return None
    frame = item_frame(df, "item_id", ["correct"])
    clusters = df.drop_duplicates("item_id").set_index("item_id")["context_id"]
    return Paired(frame, _accuracy, unit="contexts", clusters=clusters.loc[frame.index])


def highlights(r: Result) -> pd.DataFrame | None:
    df = r.items
    if "correct" not in df:
        return None
    wrong = df[df.correct == 0]
    return wrong[["sentence", "kind", "predicted"]].head(3) if len(wrong) else None


DOWNSTREAM = Card(
    name="downstream", title="Downstream probe: coherence on frozen features (task cost)",
    kinds=LM, langs=("en",), plan=plan, headlines=headlines, paired=paired,
    highlights=highlights, default=False,
    card=MethodCard(
        definition="Held-out accuracy of a logistic regression (standardised features, C = 1) "
                   "telling StereoSet's unrelated intrasentence sentences (label 1) from the "
                   "stereotype and anti-stereotype ones (0), on the model's frozen sentence "
                   "vectors (mean of the last hidden state, L2-normalised; a debias "
                   "projection applies). Contexts split 70/30 by a seeded permutation that "
                   "does not depend on the model; 95% CI: design-effect Wilson over "
                   "contexts. Two models are compared sentence by sentence.",
        citation="Nadeem, Bethke & Reddy (2021). StereoSet. ACL; Meade, Poole-Dayan & "
                 "Reddy (2022). An Empirical Survey of the Effectiveness of Debiasing "
                 "Techniques for Pre-trained Language Models. ACL (sec. 7, GLUE).",
        caveats=("A linear probe on frozen features, not bias-bench's GLUE fine-tuning.",
                 "Self-Debias changes output distributions, not hidden states: its probe "
                 "equals its base model's by construction.",
                 "The sentences are StereoSet's (they mention social groups); a drop may "
                 "partly reflect the removed gender information."),
        subset="300 StereoSet contexts, 900 sentences (seeded; 90 contexts with --quick; "
               "all with --full)"))
