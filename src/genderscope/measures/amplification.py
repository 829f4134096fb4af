"""Mean bias amplification (Zhao et al. 2017, "Men Also Like Shopping", EMNLP, Sec. 2;
docs/measures/amplification.md).

Eq. 1: ``b(o, g) = c(o, g) / sum_{g' in G} c(o, g')``, b* on the training data, b~ on
the model's output; mean bias amplification (unitless, in [-1, 1], > 0 exaggerates)::

    (1 / |O|) * sum_{g in G} sum_{o in O : b*(o, g) > 1/|G|} ( b~(o, g) - b*(o, g) )

A caption counts once for (o, g) when it mentions o and words of exactly one group g
(others skipped and counted); O holds the objects seen with a gender in both corpora.
CI: percentile bootstrap over objects (``ci_unit``: "objects", or the ratio table's
name); the share of amplified objects has a Wilson interval. No p-values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from genderscope.datasets.captions import RatioTable
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.amplification_directional import add_directional
from genderscope.results import Result
from genderscope.stats import bootstrap_ci, proportion_ci

_WORD = re.compile(r"[a-z0-9]+")
RATIO_UNITS = {"verb": "verbs", "activity": "activities"}
"""``ci_unit`` by a ratio table's name column (any other: ``"objects"``)."""


def tokens(text: str) -> list[str]:
    """Lower-case alphanumeric word tokens (``man's`` -> ``man``, ``s``)."""
    return _WORD.findall(text.lower())


def _plural(word: str) -> str:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def object_forms(label: str, *, plurals: bool = True) -> set[tuple[str, ...]]:
    """Token sequences that count as a mention of ``label`` (``teddy_bear`` ->
    ("teddy", "bear") and, with ``plurals``, ("teddy", "bears"))."""
    toks = tuple(tokens(label.replace("_", " ")))
    if not toks:
        return set()
    forms = {toks}
    if plurals:
        forms.add(toks[:-1] + (_plural(toks[-1]),))
    return forms


def bias_scores(counts: np.ndarray) -> np.ndarray:
    """Eq. 1: b(o, g) = c(o, g) / sum_g' c(o, g') row-wise; NaN rows where the sum is 0."""
    c = np.asarray(counts, dtype=np.float64)
    tot = c.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, c / np.where(tot > 0, tot, 1), np.nan)


def per_object_amplification(b_train: np.ndarray, b_out: np.ndarray) -> np.ndarray:
    """sum over g with b*(o, g) > 1/|G| of (b~(o, g) - b*(o, g)), one value per object."""
    bt = np.asarray(b_train, dtype=np.float64)
    bo = np.asarray(b_out, dtype=np.float64)
    if bt.shape != bo.shape or bt.ndim != 2:
        raise ValueError(f"bias score shapes differ or are not 2-D: {bt.shape} vs {bo.shape}")
    skewed = bt > 1.0 / bt.shape[1]
    return np.where(skewed, bo - bt, 0.0).sum(axis=1)


def mean_bias_amplification(b_train: np.ndarray, b_out: np.ndarray) -> float:
    """(1/|O|) sum_g sum_{o: b*(o,g) > 1/|G|} (b~(o,g) - b*(o,g)) (Zhao et al. 2017)."""
    return float(per_object_amplification(b_train, b_out).mean())


def count_cooccurrences(captions: Sequence[str], objects: Sequence[str],
                        gender_words: dict[str, list[str]], *,
                        plurals: bool = True) -> tuple[np.ndarray, dict[str, int]]:
    """c(o, g): captions mentioning object o and words of group g only, as an (|O|, |G|)
    matrix, with corpus statistics (captions, gendered, mixed = several groups, ungendered).
    """
    word_group = {w: gi for gi, g in enumerate(gender_words) for w in gender_words[g]}
    find = object_finder(objects, plurals=plurals)
    counts = np.zeros((len(objects), len(gender_words)), dtype=np.int64)
    stats = {"captions": len(captions), "gendered": 0, "mixed": 0, "ungendered": 0}
    for cap in captions:
        toks = tokens(cap)
        present = {word_group[t] for t in toks if t in word_group}
        if not present:
            stats["ungendered"] += 1
            continue
        if len(present) > 1:
            stats["mixed"] += 1
            continue
        stats["gendered"] += 1
        g = present.pop()
        for oi in find(toks):
            counts[oi, g] += 1
    return counts, stats


def object_finder(objects: Sequence[str], *,
                  plurals: bool = True) -> Callable[[list[str]], set[int]]:
    """tokens -> the indices of the objects whose forms (:func:`object_forms`) occur in
    them as token n-grams."""
    forms: dict[tuple[str, ...], list[int]] = {}
    for oi, name in enumerate(objects):
        for f in object_forms(name, plurals=plurals):
            forms.setdefault(f, []).append(oi)
    max_n = max((len(f) for f in forms), default=1)

    def find(toks: list[str]) -> set[int]:
        hit: set[int] = set()
        for n in range(1, max_n + 1):
            for i in range(len(toks) - n + 1):
                hit.update(forms.get(tuple(toks[i:i + n]), ()))
        return hit
    return find


def objects_from_tagger(captions: Sequence[str], gender_words: dict[str, list[str]], *,
                        pos: Sequence[str] = ("NOUN",), min_count: int = 1) -> list[str]:
    """Nouns (and/or verbs with ``pos=("NOUN", "VERB")``) found by spaCy's
    ``en_core_web_sm`` tagger, as lemmas; gender words excluded. Optional: without
    spaCy and that model a :class:`GenderscopeError` says to pass ``--objects``."""
    try:
        import spacy

        nlp = spacy.load("en_core_web_sm", disable=["parser", "ner"])
    except Exception:  # noqa: BLE001 - missing package or model
        raise GenderscopeError(
            "no --objects file given and no POS tagger available; pass --objects FILE, "
            "or install spaCy and its model: pip install spacy && python -m spacy "
            "download en_core_web_sm") from None
    gw = {w for ws in gender_words.values() for w in ws}
    seen: dict[str, int] = {}
    for doc in nlp.pipe(captions, batch_size=256):
        for tok in doc:
            lemma = tok.lemma_.lower()
            if tok.pos_ in pos and lemma.isalpha() and lemma not in gw:
                seen[lemma] = seen.get(lemma, 0) + 1
    return sorted(w for w, c in seen.items() if c >= min_count)


def _result(names: Sequence[str], groups: Sequence[str], b_train: np.ndarray,
            b_out: np.ndarray, extra: dict[str, Any], meta: dict[str, Any], *,
            seed: int, n_resamples: int, what: str, unit: str = "objects") -> Result:
    """Assemble the per-object table and summary from b* and b~ (NaN rows excluded)."""
    valid_train = ~np.isnan(b_train).any(axis=1)
    valid_out = ~np.isnan(b_out).any(axis=1)
    status = np.where(~valid_train, "unseen in training",
                      np.where(~valid_out, f"unseen in {what}", "included"))
    keep = valid_train & valid_out
    if not valid_train.any():
        raise DataError(f"none of the {len(names)} objects co-occurs with a gender group in "
                        f"the training data")
    if not keep.any():
        raise DataError(f"none of the {int(valid_train.sum())} objects seen in training "
                        f"co-occurs with a gender group in the {what}")
    amp = np.full(len(names), np.nan)
    amp[keep] = per_object_amplification(b_train[keep], b_out[keep])
    g_count = len(groups)
    majority = [groups[int(np.argmax(r))] if ok and r.max() > 1 / g_count else "none"
                for r, ok in zip(b_train, valid_train, strict=True)]
    items = pd.DataFrame({"object": list(names), "status": status,
                          "train_majority": majority})
    for gi, g in enumerate(groups):
        items[f"b_train_{g}"] = b_train[:, gi]
        items[f"b_{what.split()[0]}_{g}"] = b_out[:, gi]
    for k, v in extra.items():
        items[k] = v
    items["amplification"] = amp
    items["amplified"] = np.where(keep, amp > 0, False)
    inc = items[keep].sort_values("amplification", ascending=False)
    mean = float(amp[keep].mean())
    ci = bootstrap_ci(amp[keep], n_resamples=n_resamples, seed=seed, unit=unit)
    n_amp = int((amp[keep] > 0).sum())
    summary = {
        "mean_bias_amplification": {**ci.as_dict(), "estimate": mean},
        "groups": list(groups),
        "n_objects": int(keep.sum()),
        "n_unseen_training": int((~valid_train).sum()),
        f"n_unseen_{what.split()[0]}": int((valid_train & ~valid_out).sum()),
        "share_amplified": proportion_ci(n_amp, int(keep.sum())).as_dict() | {"ci_unit": unit},
        "most_amplified": inc.head(5)[["object", "amplification"]].to_dict("records"),
        "least_amplified": inc.tail(5)[::-1][["object", "amplification"]].to_dict("records"),
    }
    meta.setdefault("params", {})["n_bootstrap"] = n_resamples
    meta["seed"] = seed
    return Result("bias-amplification", summary, items, meta)


def group_totals(captions: Sequence[str], gender_words: dict[str, list[str]]) -> np.ndarray:
    """Captions with words of exactly one gender group, per group (the n(g) of
    :func:`directional_from_counts`)."""
    groups = list(gender_words)
    word_group = {w: gi for gi, g in enumerate(groups) for w in gender_words[g]}
    n = np.zeros(len(groups), dtype=np.int64)
    for cap in captions:
        present = {word_group[t] for t in tokens(cap) if t in word_group}
        if len(present) == 1:
            n[present.pop()] += 1
    return n


def bias_amplification(train: Sequence[str], generated: Sequence[str], objects: Sequence[str],
                       gender_words: dict[str, list[str]], *, plurals: bool = True,
                       seed: int = 0, n_resamples: int = 10_000,
                       data: dict[str, Any] | None = None,
                       directional: bool = False) -> Result:
    """Mean bias amplification from a training and a generated caption corpus;
    ``directional``: also BiasAmp-> in both directions (:func:`add_directional`)."""
    if not train:
        raise DataError("the training corpus is empty")
    if not generated:
        raise DataError("the generated corpus is empty")
    if not objects:
        raise DataError("the object list is empty")
    gw = {w for ws in gender_words.values() for w in ws}
    clash = [o for o in objects if o.lower() in gw]
    objs = [o for o in objects if o.lower() not in gw]
    groups = list(gender_words)
    c_train, s_train = count_cooccurrences(train, objs, gender_words, plurals=plurals)
    c_gen, s_gen = count_cooccurrences(generated, objs, gender_words, plurals=plurals)
    for label, st in (("training", s_train), ("generated", s_gen)):
        if st["gendered"] == 0:
            raise DataError(f"no caption of the {label} corpus ({st['captions']} captions) "
                            f"mentions exactly one gender group")
    extra: dict[str, Any] = {}
    for gi, g in enumerate(groups):
        extra[f"c_train_{g}"] = c_train[:, gi]
        extra[f"c_generated_{g}"] = c_gen[:, gi]
    meta = {"model": {"kind": "corpus"},
            "params": {"counting_unit": "caption", "plurals": plurals,
                       "gender_words": gender_words, "objects_dropped_as_gender_words": clash},
            "data": data or {},
            "corpus_stats": {"training": s_train, "generated": s_gen}}
    result = _result(objs, groups, bias_scores(c_train), bias_scores(c_gen), extra, meta,
                     seed=seed, n_resamples=n_resamples, what="generated")
    if directional:
        result.metadata["params"]["directional"] = True
        add_directional(result, c_train, c_gen, group_totals(train, gender_words),
                        group_totals(generated, gender_words), seed=seed,
                        n_resamples=n_resamples)
    return result


def bias_amplification_from_ratios(table: RatioTable, *, groups: tuple[str, str] = ("man", "woman"),
                                   seed: int = 0, n_resamples: int = 10_000) -> Result:
    """Mean bias amplification from per-object ratios of the first group (b*(o, g1) =
    training ratio, b~(o, g1) = predicted ratio, b(o, g2) = 1 - b(o, g1))."""
    rt = np.asarray(table.train_ratio, dtype=np.float64)
    rp = np.asarray(table.predicted_ratio, dtype=np.float64)
    b_train = np.column_stack([rt, 1 - rt])
    b_pred = np.column_stack([rp, 1 - rp])
    from genderscope.results import file_sha256

    meta = {"model": {"kind": "ratio table", "predicted_column": table.predicted_column},
            "params": {"train_column": table.train_column,
                       "predicted_column": table.predicted_column,
                       "ratio_of": groups[0]},
            "data": {"ratios": table.path, "file_sha256": file_sha256(table.path)}}
    unit = RATIO_UNITS.get(table.name_column, "objects")
    return _result(table.objects, groups, b_train, b_pred, {}, meta, seed=seed,
                   n_resamples=n_resamples, what="predicted", unit=unit)


# Okabe-Ito colour-blind-safe palette
BLUE, ORANGE, GREY = "#0072B2", "#E69F00", "#999999"


def plot_amplification(result: Result, path: str | Path, *, top: int = 10,
                       title: str | None = None) -> Path:
    """Save :func:`amplification_figure` (PNG or SVG by ``path`` suffix) and return its
    path."""
    import matplotlib.pyplot as plt

    fig = amplification_figure(result, top=top, title=title)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=150)
    plt.close(fig)
    return out


def amplification_figure(result: Result, *, top: int = 10, title: str | None = None) -> Any:
    """A two-panel matplotlib figure: the training bias b*(o, g1) (x) against the
    output's (or model's) bias b~(o, g1) (y) per object, the diagonal meaning no
    amplification (after Zhao et al. 2017, Fig. 2), plus the objects that amplify most
    and least."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = result.items[result.items["status"] == "included"]
    g1 = result.summary["groups"][0]
    train_col = f"b_train_{g1}"
    out_col = next(c for c in items.columns if c.startswith("b_") and c.endswith(f"_{g1}")
                   and c != train_col)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.8))
    amp = items["amplification"].to_numpy()
    colours = np.where(amp > 0, ORANGE, BLUE)
    ax1.scatter(items[train_col], items[out_col], c=colours, s=18, alpha=0.85,
                edgecolors="none")
    ax1.plot([0, 1], [0, 1], color=GREY, lw=1, ls="--", label="no amplification")
    ax1.axvline(0.5, color=GREY, lw=0.6)
    ax1.axhline(0.5, color=GREY, lw=0.6)
    ax1.set_xlim(0, 1)
    ax1.set_ylim(0, 1)
    ax1.set_xlabel(f"training bias b*(o, {g1})")
    ax1.set_ylabel(f"output bias b~(o, {g1})")
    ax1.scatter([], [], c=ORANGE, s=18, label="amplified")
    ax1.scatter([], [], c=BLUE, s=18, label="not amplified")
    ax1.legend(loc="upper left", fontsize=8, frameon=False)
    ranked = items.sort_values("amplification")
    sel = ranked if len(ranked) <= 2 * top else \
        ranked.iloc[np.r_[0:top, len(ranked) - top:len(ranked)]]
    vals = sel["amplification"].to_numpy()
    ax2.barh(range(len(sel)), vals, color=np.where(vals > 0, ORANGE, BLUE))
    ax2.set_yticks(range(len(sel)), [str(o).replace("_", " ") for o in sel["object"]],
                   fontsize=7)
    ax2.axvline(0, color="black", lw=0.8)
    ax2.set_xlabel("amplification of the training-majority gender")
    mean = result.summary["mean_bias_amplification"]
    lo, hi = mean.get("ci_low"), mean.get("ci_high")
    ci = (f"[{lo:+.4f}, {hi:+.4f}]" if lo is not None and hi is not None
          and np.isfinite([lo, hi]).all() else f"({mean.get('no_interval', 'no interval')})")
    ax2.set_title(f"mean {mean['estimate']:+.4f} {ci}, n = {len(items)}", fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
