"""Before/after evaluation of debiased word vectors.

- The WEAT-family metrics (WEAT, RIPA, RND, ECT, MAC) of each test on both vector
  sets, each recorded as a run in the store (so ``genderscope compare BEFORE AFTER``
  works on them) and compared item by item with :func:`genderscope.measures.compare.
  compare_runs`: the mean paired change of the items (WEAT: s(w) per target word; RIPA,
  RND, ECT: the per-attribute-word term; MAC: per target) with compare's bootstrap-t
  95 % interval and test (changes within float32 precision are ties). The items share
  the other set's words (WEAT's and MAC's targets share the attribute words), which the
  interval holds fixed: it does not count their sampling (crossed; not counted yet).
- The analogy "man : king :: woman : ?" by 3CosAdd (Mikolov et al. 2013) over unit
  vectors, the three query words excluded: its top answers before and after.
- Gonen & Goldberg's (2019, "Lipstick on a Pig", NAACL-W, Sec. 3 "Clustering") test:
  the ``n_biased`` most male- and most female-biased words by their *original*
  projection on the he - she direction (among the ``vocab_limit`` most frequent
  words, the word lists' own words excluded) are clustered into 2 by k-means on the
  *debiased* vectors; the accuracy of the clusters against the original bias label
  (0.5 = gender no longer recoverable). Debiasing that only hides the bias keeps it
  high (they found 92.5 % for hard-debiased GloVe, 99.9 % before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from genderscope.results import Result

METRICS = ("weat", "ripa", "rnd", "ect", "mac")
ANALOGY = ("man", "king", "woman")


def _unit(m: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(m, axis=-1, keepdims=True)
    return np.divide(m, n, out=np.zeros_like(m), where=n > 0)


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


def compare_metric(before: Result, after: Result, seed: int = 0) -> dict[str, Any]:
    """Paired change per attribute/target set (and over all items) as plain rows."""
    from genderscope.measures.compare import compare_runs

    value = "association" if before.method == "weat" else "value"
    res = compare_runs(before, after, key=("set", "text"), value=value, groups=("set",),
                       seed=seed)
    return {"rows": res.tables["change_by_group"].to_dict(orient="records")}


def evaluate(before_spec: Any, after_spec: Any, tests: list[Any], *, store: Any,
             out: Path, seed: int = 0, progress: bool = False) -> list[dict[str, Any]]:
    """Every metric of every test on both vector sets, with their paired changes; the runs
    are saved under ``out/<metric>/<test>/{before,after}`` once every one has run (a metric
    that fails leaves no folder behind)."""
    from genderscope.engine import run
    from genderscope.outputs import check_output_folder, result_files, save_result

    rows: list[dict[str, Any]] = []
    done: dict[Path, Result] = {}
    for test in tests:
        for metric in METRICS:
            runs = {}
            for side, spec in (("before", before_spec), ("after", after_spec)):
                runs[side] = done[out / metric / test.name / side] = run(
                    metric, spec, store=store, test=test, seed=seed, progress=progress)
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


def _headline(r: Result) -> dict[str, Any]:
    s = r.summary
    if r.method == "weat":
        return {"all": s["effect_size"]}
    if "attributes" in s:
        return dict(s["attributes"])
    return {"all": s[r.method]}
