"""The model form of ``bias-amplification`` (declared in :mod:`genderscope.catalog.texts`):
its options, declared once here, and its plan (a chat model or endpoint described a
person doing each activity / with each object of Zhao et al.'s vocabularies; see
:mod:`genderscope.measures.amplification_lm`).

Every option here is keyed through the plan's inputs (the prompts, the decoding, the
gender words, the training ratios and the interval's settings), not as a declared
option, so the keys of the corpus form's runs are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from genderscope.catalog._common import Plan, _subset_note, dataset_dir, subset
from genderscope.core.declaration import Opt, Shared

INTERVAL = 4
"""The model form's intervals, keyed through the plan's inputs (so that the corpus form's
keys stay): 4, the items x templates jackknife t for the amplification and the crossed
design-effect Wilson interval for the shares (stored runs of 3 gave the shares the
jackknife t, [0, 0] at a share of 0; of 2, a bootstrap; of 1, everything the two-way
bootstrap-variance t with min(items, templates) - 1 df: all differ)."""


@dataclass(frozen=True)
class ModelForm(Shared):
    """The options of the model form, declared once (the last of the measure's options)."""

    data: Annotated[Path | None, Opt("With --model: the reducingbias folder [default: the "
                                     "fetched set].", key=False)] = None
    vocabulary: Annotated[str, Opt("With --model: the items and their training ratios: imsitu "
                                   "(212 verbs) or coco (65 objects) of Zhao et al. 2017.",
                                   choices=("imsitu", "coco"), key=False)] = "imsitu"
    templates: Annotated[int, Opt("With --model: prompt templates per item (the first N of "
                                  "5).", min=1, max=5, key=False)] = 5
    samples: Annotated[int, Opt("With --model: sampled answers per prompt.", min=1, max=100,
                                key=False)] = 5
    limit: Annotated[int | None, Opt("With --model: a seeded random subset of N items (see "
                                     "--subset-seed) [default: every item].", min=1,
                                     key=False)] = None
    subset_seed: Annotated[int, Opt("With --model: seed of the --limit subset.", min=0,
                                    key=False)] = 0
    max_new_tokens: Annotated[int, Opt("With --model: most tokens per answer.", min=1,
                                       key=False)] = 40
    temperature: Annotated[float, Opt("With --model: sampling temperature (> 0 when "
                                      "--samples > 1).", min=0, key=False)] = 1.0
    top_p: Annotated[float, Opt("With --model: nucleus sampling share (1: off).", min=0, max=1,
                                key=False)] = 1.0
    sample_seed: Annotated[int, Opt("With --model: seed of the sampling.", min=0,
                                    key=False)] = 0
    resamples: Annotated[int, Opt("With --model: unused (the model form's intervals, over "
                                  "items x templates, resample nothing); kept so that "
                                  "earlier commands still run.",
                                  min=100, key=False)] = 2_000


Directional = Annotated[bool, Opt("With --train/--generated: also Wang & Russakovsky's "
                                  "BiasAmp-> in both directions.", key=False)]


def model_plan(o: ModelForm, *, gender_words: Path | None, seed: int, progress: bool,
               plot: Path | None = None) -> Plan:
    """The plan of ``bias-amplification --model MODEL`` (before any model loads)."""
    from genderscope.datasets.captions import load_gender_words
    from genderscope.errors import GenderscopeError
    from genderscope.measures import amplification_lm as lm
    from genderscope.models.generate import Decoding

    if o.samples > 1 and o.temperature == 0:
        raise GenderscopeError(f"--samples {o.samples} needs --temperature > 0 (greedy "
                               "decoding gives one answer per prompt)")
    folder = dataset_dir(o.data, "reducingbias")
    every = lm.load_vocabulary(folder, o.vocabulary)
    items = subset(every, o.limit, o.subset_seed)
    gw = load_gender_words(gender_words)
    decoding = Decoding(max_new_tokens=o.max_new_tokens, temperature=o.temperature,
                        top_p=o.top_p, seed=o.sample_seed)
    chosen = list(lm.TEMPLATES[:o.templates])
    base = [sum(it.train_ratio for it in every) / len(every)]
    base.append(1 - base[0])

    def run(model: Any) -> Any:
        import numpy as np

        return lm.score(model, items, chosen, o.samples, decoding, gw, base=np.array(base),
                        seed=seed, progress=progress,
                        params={"vocabulary": o.vocabulary, "reducingbias": str(folder)})

    inputs = {"form": "model", "items": [(it.name, it.phrase, it.train_ratio) for it in items],
              "templates": chosen, "samples": o.samples, "decoding": decoding.as_dict(),
              "gender_words": gw, "base_rate": base, "interval": INTERVAL}
    from genderscope.measures.amplification import plot_amplification

    return Plan("bias-amplification", "lm", run,
                _subset_note(o.limit, o.subset_seed, len(items), len(every),
                             o.vocabulary + " items"),
                figure=plot_amplification, figure_path=Path(plot) if plot else None,
                figure_name="amplification.png", inputs=inputs,
                key_options={"plot": None, "gender_words": None})
