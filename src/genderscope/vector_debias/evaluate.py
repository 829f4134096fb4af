"""Before/after evaluation of debiased word vectors.

- The WEAT-family metrics (WEAT, RIPA, RND, ECT, MAC) of each test on both vector
  sets, each recorded as a run in the store (so ``genderscope compare BEFORE AFTER``
  works on them), and their paired change (:func:`paired_change`): per set and over all
  items, the mean change (after - before) of the runs' per-word item values (WEAT: s(w)
  per target word; RIPA, RND: the per-attribute-word term; ECT: cos(v_X, a) - cos(v_Y, a);
  MAC: per target), the same estimate ``genderscope compare`` gives (changes within
  float32 precision are ties). The items are not independent: WEAT's and MAC's
  per-target values share the attribute words, RIPA's per-attribute values the word
  pairs, RND's and ECT's the target sets' centroids, and every word's vector carries its
  own noise. So each comparison declares its sampling design (:data:`DESIGNS`: a mean
  over its items crossed with the words they share; each word measured before and
  after) and :func:`genderscope.stats.jackknife.infer_samples` gives the interval and
  test over every word set (X, Y, A, B; RIPA: its word pairs, A, B): the several-sample
  infinitesimal jackknife t interval (each word weighted alike in both vector sets:
  :func:`derivatives`, less the noise their squares carry: :func:`noise_terms`) and the
  t test of no change, whose variance is that under no
  change (each word's own contribution: :func:`contributions`); "too few units to test"
  below 5 degrees of freedom. On two noisy copies of the same vectors (8 + 8 targets,
  8 + 8 attribute words) compare's bootstrap-t over the items "found" a change in
  0.09-0.35 of runs; this test in 0.032-0.053 (600 runs), and the interval covers the
  expected change after a simulated debiasing in 0.937-0.963 (RND: 0.978, slightly
  conservative; docs/calibration.md).
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

from genderscope.core.design import SCORE_TOLERANCE, Design, Tolerance
from genderscope.results import Result
from genderscope.stats.design import ties

METRICS = ("weat", "ripa", "rnd", "ect", "mac")
ANALOGY = ("man", "king", "woman")
ALL = "(all)"
NO_CHANGE = "none (no change beyond numerical precision)"


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


DESIGNS: dict[str, Design] = {
    "weat": Design("mean", unit="target words", crossed=("attribute words",)),
    "ripa": Design("mean", unit="attribute words", crossed=("word pairs",)),
    "rnd": Design("mean", unit="attribute words", crossed=("target words",)),
    "ect": Design("mean", unit="attribute words", crossed=("target words",)),
    "mac": Design("mean", unit="target words", crossed=("attribute words",)),
}
"""The sampling design of each metric's before/after change: a mean over its per-word
items (``unit``), which share the words of the ``crossed`` sets; every set is a sample of
words, each measured twice (before and after: a word's two vectors are its pair)."""

Sets = dict[str, np.ndarray]
"""One side's word sets: role (X, Y, A, B; RIPA's word pairs as P, x_i and y_i side by
side) -> one row per word (pair)."""


def word_sets(metric: str, vectors: Any, test: Any) -> Sets:
    """The rows each of ``metric``'s samples holds in ``vectors``, looked up as the metric
    looks them up (its default options)."""
    from genderscope.measures.embedding_metrics._sets import look_up
    from genderscope.measures.embedding_metrics.ripa import relation_vectors, word_pairs

    emb = dict(look_up(vectors, test).emb)
    if metric != "ripa":
        return emb
    pairs, _ = word_pairs(vectors, test, case_fallback=True)
    x = np.asarray(vectors.vectors([p for p, _ in pairs]), dtype=np.float64)
    y = np.asarray(vectors.vectors([q for _, q in pairs]), dtype=np.float64)
    relation_vectors(x, y)  # a pair of identical vectors: RIPA's error
    return {"P": np.hstack([x, y]), "A": emb["A"], "B": emb["B"]}


Weights = dict[str, np.ndarray]
"""Each word's weight in its set (every weight 1: the metric as computed)."""


def item_values(metric: str, sets: Sets, weights: Weights | None = None
                ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each group's per-word item values (the ``set`` column of the metric's items, in
    their order) and the items' weights, computed from ``sets`` as the metric computes
    them; ``weights``: every mean over a set's words weighted (the jackknife's
    derivatives). A set may carry leading batch axes, (..., words, dimensions): the
    values are then (..., words)."""
    from genderscope.measures.embedding_metrics._sets import unit_rows

    w = weights or {r: np.ones(v.shape[-2]) for r, v in sets.items()}

    def mean(m: np.ndarray, r: str) -> np.ndarray:  # over the last axis: set r's words
        return (m @ w[r]) / w[r].sum()

    def dots(u: np.ndarray, v: np.ndarray) -> np.ndarray:  # (..., n, d) x (..., k, d)
        return u @ np.swapaxes(v, -1, -2)

    if metric in ("weat", "mac"):
        t = {r: unit_rows(sets[r]) for r in ("X", "Y")}
        a = {r: unit_rows(sets[r]) for r in ("A", "B")}
        if metric == "weat":  # s(w) = mean cos with A - mean cos with B
            return {r: (mean(dots(t[r], a["A"]), "A") - mean(dots(t[r], a["B"]), "B"), w[r])
                    for r in ("X", "Y")}
        return {r: ((mean(1.0 - dots(t[r], a["A"]), "A")
                     + mean(1.0 - dots(t[r], a["B"]), "B")) / 2, w[r]) for r in ("X", "Y")}
    if metric == "ripa":  # relation vectors (x_i - y_i) / ||x_i - y_i||
        half = sets["P"].shape[-1] // 2
        b = sets["P"][..., :half] - sets["P"][..., half:]
        b = b / np.linalg.norm(b, axis=-1, keepdims=True)
        return {r: (mean(dots(sets[r], b), "P"), w[r]) for r in ("A", "B")}
    # the target sets' centroids, (..., 1, d)
    vx, vy = (mean(np.swapaxes(sets[r], -1, -2), r)[..., None, :] for r in ("X", "Y"))
    if metric == "rnd":  # ||a - v_X|| - ||a - v_Y||
        return {r: (np.linalg.norm(sets[r] - vx, axis=-1)
                    - np.linalg.norm(sets[r] - vy, axis=-1), w[r]) for r in ("A", "B")}
    means = unit_rows(np.concatenate([vx, vy], axis=-2))  # ECT: cos(v_X, a) - cos(v_Y, a)
    return {r: ((c := dots(unit_rows(sets[r]), means))[..., 0] - c[..., 1], w[r])
            for r in ("A", "B")}


def _pooled(items: dict[str, tuple[np.ndarray, np.ndarray]], group: str
            ) -> tuple[np.ndarray, np.ndarray]:
    if group != ALL:
        return items[group]
    return (np.concatenate([v for v, _ in items.values()], axis=-1),
            np.concatenate([w for _, w in items.values()]))


def _changes(metric: str, before: Sets, after: Sets, tied: dict[str, np.ndarray],
             weights: Weights | None = None) -> dict[str, np.ndarray]:
    """Weighted mean change per group and over all items ("(all)"), one per batch entry
    (a 0-d array without batch axes); ``tied`` items (per group, fixed at the estimate)
    count 0."""
    b, a = item_values(metric, before, weights), item_values(metric, after, weights)
    out: dict[str, np.ndarray] = {}
    for g in tied:
        (vb, wt), (va, _) = _pooled(b, g), _pooled(a, g)
        out[g] = np.where(tied[g], 0.0, va - vb) @ wt / wt.sum()
    return out


def contributions(metric: str, before: Sets, after: Sets, tied: dict[str, np.ndarray],
                  weights: Weights | None = None, *, centred: bool = True
                  ) -> dict[str, dict[str, np.ndarray]]:
    """group -> set -> each word's own share of the change, centred within its set:
    T_w = change(M with w before -> M with w after), M the midpoint (before + after) / 2
    of every word's two vectors. The change is sum_w T_w up to third-order terms in the
    words' differences (a central difference: exact for a statistic linear in each
    word), and the words are independent, so sum_k n_k / (n_k - 1) sum_w (T_w - mean_k
    T)^2 is its variance over every set (Student's, per set). ``weights``: the words'
    weights (:func:`noise_terms`); ``centred=False``: T_w as computed."""
    mid = {r: (before[r] + after[r]) / 2 for r in before}
    out: dict[str, dict[str, np.ndarray]] = {g: {} for g in tied}
    for role in before:
        n = len(before[role])
        idx = np.arange(n)
        mb = {r: np.repeat(mid[r][None], n, axis=0) for r in before}
        ma = {r: v.copy() for r, v in mb.items()}
        mb[role][idx, idx], ma[role][idx, idx] = before[role], after[role]
        for g, t in _changes(metric, mb, ma, tied, weights).items():
            out[g][role] = t - t.mean() if centred else t
    return out


def noise_terms(metric: str, before: Sets, after: Sets, tied: dict[str, np.ndarray]
                ) -> dict[str, dict[str, np.ndarray]]:
    """group -> set -> for each word t, what the noise of the other words adds to the
    square of t's derivative: with C_tu = d T_u / d w_t (how t's weight moves word u's
    contribution, :func:`contributions`), sum over the sets l of n_l / (n_l - 1) sum_(u in
    l, u != t) (C_tu - mean_l C_t)^2. A derivative's part from the other words' changes,
    sum_u C_tu, is a product of t's spread and their noise whose square this estimates
    (Goodman 1960's correction of a product's variance)."""
    out: dict[str, dict[str, np.ndarray]] = {g: {} for g in tied}
    for rt, rows_ in before.items():
        d = {g: np.zeros(len(rows_)) for g in tied}
        for i in range(len(rows_)):
            w = {r: np.ones(len(v)) for r, v in before.items()}
            w[rt][i] += STEP
            up = contributions(metric, before, after, tied, w, centred=False)
            w[rt][i] -= 2 * STEP
            down = contributions(metric, before, after, tied, w, centred=False)
            for g in tied:
                for ru in before:
                    c = (up[g][ru] - down[g][ru]) / (2 * STEP)
                    c = np.delete(c, i) if ru == rt else c
                    if c.size > 1:
                        d[g][i] += c.size / (c.size - 1) * float(np.sum((c - c.mean()) ** 2))
        for g in tied:
            out[g][rt] = d[g]
    return out


STEP = 1e-5
"""The step of the central differences that give the derivatives with respect to a
word's weight."""


def derivatives(metric: str, before: Sets, after: Sets, tied: dict[str, np.ndarray]
                ) -> dict[str, dict[str, np.ndarray]]:
    """group -> set -> the change's derivative with respect to each word's weight, the
    word weighted alike in both vector sets (the infinitesimal jackknife's influence)."""
    out: dict[str, dict[str, np.ndarray]] = {g: {} for g in tied}
    for role, rows_ in before.items():
        d = {g: np.empty(len(rows_)) for g in tied}
        for i in range(len(rows_)):
            w = {r: np.ones(len(v)) for r, v in before.items()}
            w[role][i] += STEP
            up = _changes(metric, before, after, tied, w)
            w[role][i] -= 2 * STEP
            down = _changes(metric, before, after, tied, w)
            for g in tied:
                d[g][i] = (up[g] - down[g]) / (2 * STEP)
        for g in tied:
            out[g][role] = d[g]
    return out


def paired_change(metric: str, before: Sets, after: Sets, *,
                  tolerance: Tolerance = SCORE_TOLERANCE, p_adjust: str = "holm",
                  interval: bool = True) -> list[dict[str, Any]]:
    """The before/after change of ``metric``'s items, per group and over all (module
    docstring): rows with the mean item values, the mean change, its 95 % interval and
    test (:data:`DESIGNS`; the per-group p-values Holm-adjusted as one family): the
    jackknife t interval from the change's derivatives (:func:`derivatives`, less the
    noise their squares carry: :func:`noise_terms`) and the t test of no change from the
    words' own contributions (:func:`contributions`). ``interval=False``: the estimate and
    the test only (the interval's bounds NaN; a simulation of the test's size)."""
    from genderscope.stats import adjust_pvalues
    from genderscope.stats.jackknife import infer_samples

    design = DESIGNS[metric]
    vb, va = item_values(metric, before), item_values(metric, after)
    groups = (ALL, *vb)
    tied = {g: ties(_pooled(vb, g)[0], _pooled(va, g)[0], tolerance) for g in groups}
    est = {g: float(v) for g, v in _changes(metric, before, after, tied).items()}
    own = contributions(metric, before, after, tied)
    if interval:
        grads = derivatives(metric, before, after, tied)
        noise = noise_terms(metric, before, after, tied)
    else:  # the test's variance stands in; the bounds are dropped below
        grads, noise = own, {g: None for g in groups}
    rows: list[dict[str, Any]] = []
    for g in groups:
        xb, xa = _pooled(vb, g)[0], _pooled(va, g)[0]
        row: dict[str, Any] = {"set": g, "n": int(xb.size), "mean_before": float(xb.mean()),
                               "mean_after": float(xa.mean()), "change": est[g]}
        res = infer_samples(design, est[g], grads[g], null=0.0, null_influence=own[g],
                            corrections=noise[g])
        nan = float("nan")
        row.update({"change_ci_low": res.ci.ci_low if interval else nan,
                    "change_ci_high": res.ci.ci_high if interval else nan,
                    "ci_method": res.ci.method, "ci_unit": res.ci.ci_unit,
                    "n_units": int(res.ci.n_units or 0), "n_ties": int(tied[g].sum()),
                    "design": design.describe()})
        if tied[g].all():
            row.update(test=NO_CHANGE, p_value=float("nan"))
        else:
            row.update(test=res.test_name, p_value=res.p_value)
        rows.append(row)
    adjusted = adjust_pvalues([r["p_value"] for r in rows[1:]], p_adjust)
    for r, p in zip(rows[1:], adjusted, strict=True):
        r.update(p_adjusted=float(p), p_adjust_method=p_adjust, family="compare per set")
    return rows


def compare_metric(before: Result, after: Result, seed: int = 0, *,
                   sets: tuple[Sets, Sets] | None = None) -> dict[str, Any]:
    """Paired change per set (and over all items) as plain rows: :func:`paired_change`
    of the two runs' word ``sets`` (before, after; :func:`word_sets`). ``seed``: unused
    (nothing is drawn at random; kept for callers)."""
    if sets is None:
        raise ValueError("compare_metric: the word sets of both vector sets are required "
                         "(word_sets)")
    if before.method != after.method:
        raise ValueError(f"compare_metric: runs of {before.method!r} and {after.method!r}")
    return {"rows": paired_change(before.method, *sets)}


def evaluate(before_spec: Any, after_spec: Any, tests: list[Any], *, store: Any,
             out: Path, seed: int = 0, progress: bool = False) -> list[dict[str, Any]]:
    """Every metric of every test on both vector sets, with their paired changes; the runs
    are saved under ``out/<metric>/<test>/{before,after}`` once every one has run (a metric
    that fails leaves no folder behind)."""
    from genderscope.engine import run
    from genderscope.outputs import check_output_folder, result_files, save_result

    before_vecs, after_vecs = (_vectors(spec, store) for spec in (before_spec, after_spec))
    rows: list[dict[str, Any]] = []
    done: dict[Path, Result] = {}
    for test in tests:
        for metric in METRICS:
            runs = {}
            for side, spec in (("before", before_vecs), ("after", after_vecs)):
                runs[side] = done[out / metric / test.name / side] = run(
                    metric, spec, store=store, test=test, seed=seed, progress=progress)
            sets = (word_sets(metric, before_vecs, test), word_sets(metric, after_vecs, test))
            rows.append({"metric": metric, "test": test.name,
                         "run_before": runs["before"].metadata["run_id"],
                         "run_after": runs["after"].metadata["run_id"],
                         "before": _headline(runs["before"]),
                         "after": _headline(runs["after"]),
                         "paired": compare_metric(runs["before"], runs["after"], seed,
                                                  sets=sets)})
    for folder, result in done.items():
        check_output_folder(folder, files=result_files(result))
    for folder, result in done.items():
        result.metadata["out"] = str(save_result(result, folder))
    return rows


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
