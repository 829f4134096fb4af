"""Before/after evaluation of debiased word vectors.

- The WEAT-family metrics (WEAT, RIPA, RND, ECT, MAC) of each test on both vector
  sets, each recorded as a run with its word rows and saved under ``out``, and their
  paired change: per set and over all items, the mean change (after - before) of the
  per-word item values (WEAT: s(w) per target word; RIPA, RND: the per-attribute-word
  term; ECT: cos(v_X, a) - cos(v_Y, a); MAC: per target), with the interval and test of
  the declared crossed design (:func:`genderscope.measures.vector_change.paired_change`).
  ``genderscope compare BEFORE AFTER`` of two such runs gives the same rows.
- The analogy "man : king :: woman : ?" by 3CosAdd (Mikolov et al. 2013) over unit
  vectors, the three query words excluded: its top answers before and after.
- Gonen & Goldberg's (2019, "Lipstick on a Pig", NAACL-W, Sec. 3 "Clustering") test:
  the ``n_biased`` most male- and most female-biased words by their *original*
  projection on the he - she direction (among the ``vocab_limit`` most frequent
  words, the word lists' own words excluded) are clustered into 2 by k-means on the
  *debiased* vectors; the accuracy of the clusters against the original bias label
  (0.5 = gender not recoverable). Debiasing that only hides the bias keeps it
  high (they found 92.5 % for hard-debiased GloVe, 99.9 % before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from genderscope.core.design import Design
from genderscope.measures import vector_change
from genderscope.measures.vector_change import (  # noqa: F401 (the evaluation's names)
    NO_CHANGE,
    WORDS_TABLE,
    Sets,
    item_values,
    record_words,
    word_sets,
)
from genderscope.results import Result
from genderscope.vector_debias.hard import _unit

METRICS = ("weat", "ripa", "rnd", "ect", "mac")
ANALOGY = ("man", "king", "woman")


def change_design(metric: str) -> Design:
    """The design of ``metric``'s before/after change: its declaration's
    ``pairing.design`` (the one place it is written)."""
    from genderscope.core.registry import get

    pairing = get(metric).pairing
    if pairing is None or pairing.design is None:
        raise ValueError(f"measure {metric!r} declares no design of its change")
    return pairing.design


def paired_change(metric: str, before: Sets, after: Sets, **options: Any
                  ) -> list[dict[str, Any]]:
    """:func:`genderscope.measures.vector_change.paired_change` of ``metric``'s word sets
    with the change's declared design (:func:`change_design`); ``options``: its
    keywords."""
    return vector_change.paired_change(metric, before, after, change_design(metric),
                                       **options)


def analogy(vectors: Any, a: str = "man", b: str = "king", c: str = "woman", *,
            top: int = 5, vocab_limit: int = 100_000) -> list[str]:
    """The ``top`` answers d of a : b :: c : d by 3CosAdd among the first ``vocab_limit``
    rows (GloVe rows are by frequency); [] when a query word is missing."""
    if not all(w in vectors for w in (a, b, c)):
        return []
    va, vb, vc = _unit(vectors.vectors([a, b, c]))
    rows = _unit(np.asarray(vectors.matrix[:vocab_limit], dtype=np.float32))
    score = rows @ (vb - va + vc).astype(np.float32)
    words = vectors.words[:vocab_limit]
    order = np.argsort(-score)
    return [words[i] for i in order if words[i] not in (a, b, c)][:top]


def cluster_test(before: Any, after: Any, exclude: set[str], *, n_biased: int = 500,
                 vocab_limit: int = 50_000, seed: int = 0) -> dict[str, Any]:
    """Gonen & Goldberg's k-means recovery of the original gender bias (module docstring),
    on the vectors before and after debiasing."""
    from sklearn.cluster import KMeans

    if "he" not in before or "she" not in before:
        return {"skipped": "'he' or 'she' is not in the vocabulary"}
    g = _unit((before.vectors(["he"]) - before.vectors(["she"]))[0])
    words = [w for w in before.words[:vocab_limit] if w not in exclude and w in after]
    proj = _unit(before.vectors(words)) @ g
    order = np.argsort(proj)
    n = min(n_biased, len(words) // 2)
    chosen = np.concatenate([order[-n:], order[:n]])  # male-biased, then female-biased
    labels = np.array([1] * n + [0] * n)
    chosen_words = [words[i] for i in chosen]
    out: dict[str, Any] = {"n_words": int(2 * n), "vocab_limit": vocab_limit, "seed": seed}
    for name, vecs in (("before", before), ("after", after)):
        km = KMeans(n_clusters=2, random_state=seed, n_init=10)
        pred = km.fit_predict(_unit(vecs.vectors(chosen_words)))
        acc = float(np.mean(pred == labels))
        out[f"accuracy_{name}"] = max(acc, 1 - acc)
    return out


def compare_metric(before: Result, after: Result, seed: int = 0, *,
                   sets: tuple[Sets, Sets] | None = None) -> dict[str, Any]:
    """Paired change per set (and over all items) as plain rows: :func:`paired_change`
    of the two runs' word ``sets`` (before, after; None: the rows the runs record).
    ``seed``: unused (nothing is drawn at random)."""
    from genderscope.measures.vector_change import sets_from_table

    if before.method != after.method:
        raise ValueError(f"compare_metric: runs of {before.method!r} and {after.method!r}")
    if sets is None:
        if not all(WORDS_TABLE in r.tables for r in (before, after)):
            raise ValueError("compare_metric: the runs record no word vectors; give sets "
                             "(word_sets)")
        sets = (sets_from_table(before.tables[WORDS_TABLE]),
                sets_from_table(after.tables[WORDS_TABLE]))
    return {"rows": paired_change(before.method, *sets)}


def evaluate(before_spec: Any, after_spec: Any, tests: list[Any], *, store: Any,
             out: Path, seed: int = 0, progress: bool = False) -> list[dict[str, Any]]:
    """Every metric of every test on both vector sets, with their paired changes; each run
    records its word rows (:func:`record_words`) in the store, and the runs are saved under
    ``out/<metric>/<test>/{before,after}`` once every one has run (a metric that fails
    leaves no folder behind)."""
    from genderscope.engine import run, using_store
    from genderscope.outputs import check_output_folder, result_files, save_result

    before_vecs, after_vecs = (_vectors(spec, store) for spec in (before_spec, after_spec))
    rows: list[dict[str, Any]] = []
    done: dict[Path, Result] = {}
    with using_store(store) as st:
        for test in tests:
            for metric in METRICS:
                runs = {}
                for side, vecs in (("before", before_vecs), ("after", after_vecs)):
                    runs[side] = done[out / metric / test.name / side] = _recorded(
                        run(metric, vecs, store=st, test=test, seed=seed, progress=progress,
                            record=False), metric, word_sets(metric, vecs, test), st)
                rows.append({"metric": metric, "test": test.name,
                             "run_before": runs["before"].metadata["run_id"],
                             "run_after": runs["after"].metadata["run_id"],
                             "before": _headline(runs["before"]),
                             "after": _headline(runs["after"]),
                             "paired": compare_metric(runs["before"], runs["after"], seed)})
    for folder, result in done.items():
        check_output_folder(folder, files=result_files(result))
    for folder, result in done.items():
        result.metadata["out"] = str(save_result(result, folder))
    return rows


def _recorded(result: Result, metric: str, sets: Sets, store: Any) -> Result:
    """``result`` with its word rows, recorded in ``store``: a stored run that holds them
    as it is; one stored before runs recorded them (the same numbers: the same reuse key)
    recorded again with them, so that compare of its run id reads them."""
    if result.metadata.get("reused") and WORDS_TABLE in result.tables:
        return result
    reused = bool(result.metadata.pop("reused", False))
    result.metadata.pop("run_id", None)
    record_words(result, sets, change_design(metric))
    result.metadata["run_id"] = store.record_run(result, dedupe=not reused)
    return result


def _vectors(spec: Any, store: Any) -> Any:
    """The word vectors of ``spec`` (an adapter as given; a name or path loaded)."""
    if hasattr(spec, "key_for"):
        return spec
    from genderscope.engine import load_model

    return load_model(str(spec), kind="vectors", store=store)


def _headline(r: Result) -> dict[str, Any]:
    s = r.summary
    if r.method == "weat":
        return {"all": s["effect_size"]}
    if "attributes" in s:
        return dict(s["attributes"])
    return {"all": s[r.method]}
