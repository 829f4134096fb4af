"""Plan of ``downstream`` (a coherence probe on frozen sentence features: the task cost of
a debiased LM; see :mod:`genderscope.measures.downstream`)."""

from __future__ import annotations

from typing import Annotated

from genderscope.catalog._common import (
    Plan,
    _measure,
    _subset_note,
    dataset_dir,
    subset,
)
from genderscope.core.declaration import Data, Opt, Pairing, Progress, SubsetSeed, declare
from genderscope.errors import GenderscopeError


# held-out sentences, correct (1) or not (0), paired by sentence; contexts share a unit
@declare("downstream", needs="lm", langs=("en",), docs="debiasing.md",
         statistics=("Interval: the design-effect Wilson interval of the held-out "
                     "accuracy over test sentences clustered by context "
                     "(stats.resample.cluster_proportion_ci). Test: none."),
         family="language modelling",
         card="genderscope.reporting.cards.downstream:DOWNSTREAM", report_order=100,
         pairing=Pairing(("item_id",), "correct", cluster="context_id",
                         cluster_unit="contexts"))
def downstream(
    *,
    limit: Annotated[int | None, Opt("Seeded subset of N StereoSet contexts (3 sentences "
                                     "each).", min=2)] = 300,
    test_share: Annotated[float, Opt("Share of the contexts held out for testing, in (0, "
                                     "1).", min=0, max=1)] = 0.3,  # 0 and 1: the plan's
    data: Data = None,
    subset_seed: SubsetSeed = 0,
    seed: Annotated[int, Opt("Seed of the train/test split of the contexts.", min=0)] = 0,
    progress: Progress = False,
) -> Plan:
    """Downstream probe: held-out accuracy of a logistic regression telling StereoSet's
    unrelated sentences from related ones, on the LM's frozen sentence features.

    Compare a model with its debiased version (``genderscope compare`` or the report):
    the same split, paired by sentence."""
    from genderscope.datasets.stereoset import load_stereoset

    if not 0 < test_share < 1:
        raise GenderscopeError(f"--test-share must be in (0, 1), got {test_share}")
    every = load_stereoset(dataset_dir(data, "stereoset", file_ok=True))
    items = subset(every, limit, subset_seed)
    run = _measure("genderscope.measures.downstream:run_downstream")
    return Plan(
        "downstream",
        "lm",
        lambda lm: run(lm, items, test_share=test_share, seed=seed, progress=progress),
        _subset_note(limit, subset_seed, len(items), len(every), "contexts"),
        inputs=items,
    )
