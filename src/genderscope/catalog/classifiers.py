"""The counterfactual flip test of a classifier."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from genderscope.catalog._common import Plan, _one_step
from genderscope.core.declaration import Opt, Progress, Resamples, Seed, declare
from genderscope.core.design import Design
from genderscope.results import Result


# version 3: with templates, the mean |delta| and delta intervals are clipped to their range;
# 4: texts (templates) that all give the same value have no interval (no_interval: no
# spread), not [x, x], and a clustered flip rate of 0 or 1 counts each template once
@declare("counterfactual", needs="classifier", docs="robustness.md", version=4,
         family="classifiers", design=Design("proportion", unit="texts"),
         statistics=("That is the flip rate's; with templates, texts are clustered by "
                     "template (the design-effect Wilson interval) and the mean score "
                     "changes take the cluster t interval (CR1) over templates, its ends "
                     "clipped to the range of |delta| [0, 1] and delta [-1, 1], else a "
                     "percentile bootstrap over texts; the m2f - f2m differences a two-group "
                     "percentile bootstrap over texts (with templates, a percentile cluster "
                     "bootstrap over templates); the largest |delta| none."),
         table="genderscope.cli.commands.robustness:counterfactual_tables",
         card="genderscope.reporting.cards.counterfactual:COUNTERFACTUAL", report_order=140)
def counterfactual(
    *,
    data: Annotated[Path, Opt("Texts: .txt (one per line) or .csv/.tsv.", key=False)],
    text_column: Annotated[str | None, Opt("Text column of a CSV/TSV.")] = None,
    label_column: Annotated[str | None, Opt("Gold label column (optional).")] = None,
    limit: Annotated[
        int | None,
        Opt("Use only N texts (the first N, or a seeded sample with --sample-seed).", min=1),
    ] = None,
    sample_seed: Annotated[
        int | None, Opt("Sample --limit texts at random with this seed.", min=0)
    ] = None,
    names: Annotated[bool, Opt("Also swap first names.")] = False,
    pairs: Annotated[
        Path | None, Opt("Word-pair list for the swapper [default: packaged EN list].")
    ] = None,
    examples: Annotated[int, Opt("Rows in the examples table.", min=0)] = 10,
    seed: Seed = 0,
    resamples: Resamples = 10_000,
    progress: Progress = False,
) -> Plan:
    """Counterfactual flip test (Garg et al. 2019): swap gendered words, compare the
    classifier's answers. ``seed`` and ``resamples``: the bootstrap CIs. Reused by the
    texts' content (and gold labels), the swapper (word pairs' content, tagger) and the
    classifier's identity."""
    from genderscope.datasets.texts import load_texts
    from genderscope.measures.counterfactual import flip_test
    from genderscope.results import file_sha256
    from genderscope.swap import GenderSwapper

    td = load_texts(
        data,
        text_column=text_column,
        label_column=label_column,
        limit=limit,
        sample_seed=sample_seed,
    )
    swapper = GenderSwapper(pairs, names=names)
    swap_id = {k: v for k, v in swapper.describe().items() if k != "pairs"}
    swap_id["pairs_sha256"] = file_sha256(pairs) if pairs is not None else None

    def run(clf: Any) -> Result:
        result = _one_step("flip test", progress, lambda: flip_test(
            td.texts, clf, swapper, gold=td.labels, n_examples=examples,
            n_resamples=resamples, seed=seed))
        result.metadata["data"] = td.describe()
        result.metadata["params"].update(
            {
                "classifier": getattr(clf, "name", None),
                "names": names,
                "pairs": str(pairs) if pairs else None,
                "limit": limit,
                "sample_seed": sample_seed,
            }
        )
        return result

    return Plan(
        "counterfactual",
        "classifier",
        run,
        inputs={"texts": td.texts, "labels": td.labels, "swapper": swap_id},
        key_options={
            "pairs": None,  # its content is in the inputs
            **({"sample_seed": None} if limit is None else {}),
        },
    )
