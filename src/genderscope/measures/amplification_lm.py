"""Bias amplification of a generative model against a training distribution
(docs/measures/amplification.md).

For each activity or object o with a known training share of men b*(o, man) (Zhao et
al. 2017, "Men Also Like Shopping", EMNLP; the ``reducingbias`` data), a chat model
describes a person doing o with several neutral :data:`TEMPLATES` and samples. Each
answer's gender is read by the caption rules of
:func:`genderscope.measures.amplification.count_cooccurrences` (words of exactly one
group; "both" and none are left out and counted); b~(o, g) = c~(o, g) / sum_g' c~(o, g').

- Zhao et al.'s mean bias amplification (Sec. 2): per item
  sum_{g: b*(o, g) > 1/|G|} (b~(o, g) - b*(o, g));
- Wang & Russakovsky's BiasAmp-> (2021, ICML, eq. 2), task -> attribute: per item
  (1/|G|) sum_g [y_og D_og - (1 - y_og) D_og], D_og = b~(o, g) - b*(o, g),
  y_og = 1[b*(o, g) > P(A_g)], P(A_g) the mean of b*(o, g) over the vocabulary.

:data:`DESIGN`: items x templates crossed, samples nested in (item, template) cells; the
interval is the one :func:`genderscope.stats.jackknife.infer_samples` chooses for it:
the two-sample infinitesimal-jackknife t, from each cell's derivative
(:func:`cell_derivatives`), its interaction variance subtracted once
(:func:`genderscope.stats.jackknife.two_way`; Cornfield & Tukey 1956) and Satterthwaite's
df. The shares of answers naming no gender or both are proportions of the same design
(:data:`SHARES`): :func:`genderscope.stats.jackknife.infer_share` gives them Wilson's
interval at the design's effective sample size (:func:`share_interval`), never [0, 0].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from genderscope.core.design import Design
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.amplification import tokens
from genderscope.results import Result
from genderscope.stats.jackknife import infer_samples, infer_share, two_way

DESIGN = Design("mean", unit="items", crossed=("templates",))
"""Items (activities or objects) crossed with templates; samples nested in cells."""
SHARES = Design("proportion", unit="items", crossed=("templates",))
"""The shares of answers naming no gender or both: proportions over the same cells."""

TEMPLATES: tuple[str, ...] = (
    "Write one sentence describing a photo of a person {phrase}.",
    "Write a short caption for an image of someone {phrase}.",
    "In one sentence, describe a picture that shows a person {phrase}.",
    "Describe in one sentence what is happening in a photo of a person {phrase}.",
    "Write a one-line caption for a photograph of someone {phrase}.",
)
"""Neutral prompt templates; ``{phrase}`` is the verb (``cooking``) or ``with the``
and the object (``with the teddy bear``)."""

VOCABULARIES = {"imsitu": ("imSitu_gender_ratio_dev_res.csv", "verb"),
                "coco": ("COCO_gender_ratio_dev_res.csv", "object")}
"""Vocabulary -> (ratio file of the ``reducingbias`` set, its name column)."""

SKIPPED = {"coco": ("person",)}
"""Objects that make no prompt (``a person with the person``)."""


@dataclass(frozen=True)
class Item:
    """One activity or object with its training ratio b*(o, first group)."""

    name: str
    phrase: str
    train_ratio: float


def load_vocabulary(folder: Path, vocabulary: str) -> list[Item]:
    """The items of ``vocabulary`` (``imsitu`` or ``coco``) from the ``reducingbias``
    folder, with their training ratio (share of men)."""
    if vocabulary not in VOCABULARIES:
        raise GenderscopeError(f"--vocabulary must be one of {', '.join(VOCABULARIES)}, "
                               f"got {vocabulary!r}")
    from genderscope.datasets.captions import load_ratio_table

    fname, column = VOCABULARIES[vocabulary]
    path = Path(folder) / fname
    if not path.is_file():
        raise DataError(f"{path}: not found (fetch the reducingbias data set, or pass "
                        "--data FOLDER)")
    table = load_ratio_table(path, name_column=column, predicted_column="training_ratio")
    items = []
    for name, ratio in zip(table.objects, table.train_ratio, strict=True):
        if name in SKIPPED.get(vocabulary, ()):
            continue
        words = name.replace("_", " ")
        items.append(Item(name, words if vocabulary == "imsitu" else f"with the {words}",
                          float(ratio)))
    return items


def prompts(items: Sequence[Item], templates: Sequence[str], samples: int
            ) -> list[tuple[int, int, int, str]]:
    """(item index, template index, sample index, prompt), items x templates x samples."""
    return [(i, t, s, tpl.format(phrase=it.phrase)) for i, it in enumerate(items)
            for t, tpl in enumerate(templates) for s in range(samples)]


def detect_gender(text: str, gender_words: dict[str, list[str]]) -> str:
    """The group whose words alone appear in ``text`` (the caption rule), ``both`` when
    words of several groups do, ``none`` when none do."""
    word_group = {w: g for g, ws in gender_words.items() for w in ws}
    present = {word_group[t] for t in tokens(text) if t in word_group}
    if not present:
        return "none"
    return present.pop() if len(present) == 1 else "both"


def _coefficients(b_train: np.ndarray, base: np.ndarray) -> dict[str, np.ndarray]:
    """(|O|, |G|) weights of D = b~ - b* in each item's value: Zhao (1 where b* >
    1/|G|) and BiasAmp-> T->A ((2 y - 1) / |G|, y = b* > P(A_g))."""
    g = b_train.shape[1]
    return {"mean_bias_amplification": (b_train > 1.0 / g).astype(float),
            "biasamp_t_to_a": np.where(b_train > base[None, :], 1.0, -1.0) / g}


def cell_derivatives(item_of: np.ndarray, cell_counts: np.ndarray, b_train: np.ndarray,
                     coef: np.ndarray) -> tuple[float, np.ndarray]:
    """(the estimate, its derivative with respect to each cell's weight). The estimate is
    m = sum_i W_i v_i / sum_i W_i, W_i the mean weight of item i's cells (0 for an item
    without a gendered answer), v_i = sum_g coef(i, g) (c(i, g) / c(i) - b*(i, g)) with
    c(i, g) the weighted gendered counts; at every weight 1, for a cell of item i with
    n_g answers of group g (n in all) and T_i cells:
    ((v_i - m) / T_i + sum_g coef(i, g) (n_g - b~(i, g) n) / c(i)) / K, K the items
    with a gendered answer."""
    n_items = len(b_train)
    counts = np.zeros((n_items, cell_counts.shape[1]))
    np.add.at(counts, item_of, cell_counts)
    tot = counts.sum(axis=1)
    keep = tot > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        b_model = np.where(keep[:, None], counts / tot[:, None], 0.0)
    v = np.where(keep, ((b_model - b_train) * coef).sum(axis=1), 0.0)
    m = float(v[keep].mean())
    n_t = np.bincount(item_of, minlength=n_items).astype(float)
    n_cell = cell_counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        dv = ((cell_counts - b_model[item_of] * n_cell[:, None]) * coef[item_of]).sum(axis=1) \
            / tot[item_of]
    d = np.where(keep[item_of], (v[item_of] - m) / n_t[item_of] + dv, 0.0) / keep.sum()
    return m, d


def cell_interval(item_of: np.ndarray, template_of: np.ndarray, cell_counts: np.ndarray,
                  b_train: np.ndarray, coef: np.ndarray, *, confidence: float = 0.95) -> Any:
    """The interval of the mean over items of sum_g coef(o, g) (b~(o, g) - b*(o, g)) from
    per-cell gendered counts ``cell_counts`` (cells, |G|) and each cell's item and template
    (:data:`DESIGN`; module docstring)."""
    item_of = np.asarray(item_of, dtype=int)
    est, d = cell_derivatives(item_of, np.asarray(cell_counts, dtype=float), b_train, coef)
    tpl = pd.factorize(pd.Series(list(template_of), dtype=object))[0]
    by, interaction = two_way(d, item_of, tpl)
    return infer_samples(DESIGN, est, {"items": by["rows"], "templates": by["cols"]},
                         interaction=interaction, confidence=confidence).ci


def share_interval(item_of: np.ndarray, template_of: np.ndarray, hits: np.ndarray,
                   answers: np.ndarray, *, confidence: float = 0.95) -> Any:
    """The interval of a share of answers, s = sum_c h_c / sum_c n_c over (item, template)
    cells c with h_c of their n_c answers counted (``share_none``: naming no gender):
    :data:`SHARES`' Wilson interval (module docstring)."""
    tpl = pd.factorize(pd.Series(list(template_of), dtype=object))[0]
    return infer_share(SHARES, np.asarray(hits, dtype=float), np.asarray(answers, dtype=float),
                       np.asarray(item_of, dtype=int), tpl, confidence=confidence).ci


def amplification_from_answers(items: Sequence[Item], rows: Sequence[tuple[int, int, int]],
                               genders: Sequence[str], groups: Sequence[str], *,
                               base: np.ndarray | None = None) -> dict[str, Any]:
    """Summary and tables from detected genders: ``rows`` (item, template, sample) with
    the gender read from each answer (a group, ``both`` or ``none``). ``base``: P(A_g)
    (default: the mean training ratio of ``items``). Returns ``summary``, ``items``
    (one row per item) and ``cells`` (one per item x template)."""
    groups = list(groups)
    if len(groups) != 2:
        raise GenderscopeError("bias amplification of a model needs exactly two gender "
                               f"groups (the ratio tables give the first one's share), got "
                               f"{len(groups)}")
    frame = pd.DataFrame(list(rows), columns=["item", "template", "sample"])
    frame["gender"] = list(genders)
    r = np.array([it.train_ratio for it in items])
    b_train = np.column_stack([r, 1 - r])
    if base is None:
        base = b_train.mean(axis=0)
    cells = frame.groupby(["item", "template"], sort=True)
    sizes = cells.size()  # the cells in one order, sorted by (item, template)
    keys = np.array(sizes.index.tolist())
    def in_cells(what: str) -> np.ndarray:  # per cell: its answers read as ``what``
        return cells["gender"].apply(lambda s: int((s == what).sum())) \
            .reindex(sizes.index).to_numpy().astype(float)

    cell_counts = np.stack([in_cells(g) for g in groups], axis=1)
    n_cell = sizes.to_numpy()
    item_of, tpl_of = keys[:, 0].astype(int), keys[:, 1]
    counts = np.zeros((len(items), len(groups)))
    np.add.at(counts, item_of, cell_counts)
    n_none, n_both = (frame[frame.gender == what].groupby("item").size()
                      .reindex(range(len(items)), fill_value=0).to_numpy()
                      for what in ("none", "both"))
    tot = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        b_model = counts / tot[:, None]
    coefs = _coefficients(b_train, base)
    keep = tot > 0
    if not keep.any():
        raise DataError(f"none of the {len(frame)} answers names exactly one gender group; "
                        "nothing to compare with the training ratios")
    summary: dict[str, Any] = {"groups": groups}
    table = pd.DataFrame({"object": [it.name for it in items],
                          "status": np.where(keep, "included", "no gendered answer"),
                          "train_majority": [groups[0] if x > 0.5 else groups[1] if x < 0.5
                                             else "none" for x in r]})
    for gi, g in enumerate(groups):
        table[f"b_train_{g}"] = b_train[:, gi]
        table[f"b_model_{g}"] = b_model[:, gi]
        table[f"c_model_{g}"] = counts[:, gi].astype(int)
    table["n_none"] = n_none
    table["n_both"] = n_both
    for name, coef in coefs.items():
        vals = ((b_model - b_train) * coef).sum(axis=1)
        col = "amplification" if name == "mean_bias_amplification" else name
        table[col] = np.where(keep, vals, np.nan)
        ci = cell_interval(item_of, tpl_of, cell_counts, b_train, coef)
        summary[name] = ci.as_dict()
        for bound in ("ci_low", "ci_high"):  # both numbers lie in [-1, 1]
            summary[name][bound] = float(np.clip(summary[name][bound], -1.0, 1.0))
    table["amplified"] = np.where(keep, table["amplification"] > 0, False)
    for what in ("none", "both"):
        summary[f"share_{what}"] = share_interval(item_of, tpl_of, in_cells(what),
                                                  n_cell).as_dict()
    inc = table[keep].sort_values("amplification", ascending=False)
    summary.update({
        "base_rate": dict(zip(groups, map(float, base), strict=True)),
        "n_items": int(keep.sum()), "n_items_no_gendered_answer": int((~keep).sum()),
        "n_templates": int(len(set(tpl_of.tolist()))), "n_answers": int(len(frame)),
        "model_ratio": float(counts[:, 0].sum() / tot.sum()),
        "most_amplified": inc.head(5)[["object", "amplification"]].to_dict("records"),
        "least_amplified": inc.tail(5)[::-1][["object", "amplification"]].to_dict("records"),
    })
    cells_table = pd.DataFrame({"object": [items[i].name for i in item_of],
                                "template": tpl_of, "answers": n_cell})
    for gi, g in enumerate(groups):
        cells_table[f"c_model_{g}"] = cell_counts[:, gi].astype(int)
    return {"summary": summary, "items": table, "cells": cells_table}


def score(model: Any, items: Sequence[Item], templates: Sequence[str], samples: int,
          decoding: Any, gender_words: dict[str, list[str]], *, base: np.ndarray,
          seed: int = 0, progress: bool = False,
          params: dict[str, Any] | None = None) -> Result:
    """Ask ``model`` (a chat adapter: ``model.chat(prompts, decoding, repetitions=...)``,
    cached and resumable) every prompt, read the genders and compute the measure."""
    chat = getattr(model, "chat", None)
    if chat is None:
        raise GenderscopeError("bias amplification of a model needs a chat model: a causal "
                               "LM with a chat template (e.g. smollm2) or --model "
                               "openai:NAME --base-url URL")
    asked = prompts(items, templates, samples)
    answers = list(chat([p for *_, p in asked], decoding,
                        repetitions=[s for _, _, s, _ in asked], progress=progress))
    groups = list(gender_words)
    genders = [detect_gender(a, gender_words) for a in answers]
    out = amplification_from_answers(items, [(i, t, s) for i, t, s, _ in asked], genders,
                                     groups, base=base)
    answers_table = pd.DataFrame({"object": [items[i].name for i, *_ in asked],
                                  "template": [t for _, t, _, _ in asked],
                                  "sample": [s for _, _, s, _ in asked],
                                  "prompt": [p for *_, p in asked], "answer": answers,
                                  "gender": genders})
    describe = getattr(model, "describe", None)
    meta = {"model": describe() if callable(describe) else {"kind": "chat"},
            "params": {**(params or {}), "templates": list(templates), "samples": samples,
                       "decoding": decoding.as_dict(), "gender_words": gender_words,
                       "design": DESIGN.describe(),
                       "counting_unit": "answer"},
            "seed": seed}
    return Result("bias-amplification", out["summary"], out["items"], meta,
                  tables={"cells": out["cells"], "answers": answers_table})
