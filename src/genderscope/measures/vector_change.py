"""The before/after change of an embedding metric's per-word items between two sets of word
vectors, with the interval and test of its crossed design: the one code path of the
debiased-vector evaluation (``genderscope debias hard|hsr|ran|... --test``,
:mod:`genderscope.vector_debias.evaluate`) and of ``genderscope compare`` of two runs of
WEAT, RIPA, RND, ECT or MAC that record their word vectors
(:func:`genderscope.measures.compare.compare_runs`).

The items are not independent: WEAT's and MAC's per-target values share the attribute words,
RIPA's per-attribute values the word pairs, RND's and ECT's the target sets' centroids, and
every word's vector carries its own noise. Each metric's declaration names the design of its
change (``pairing.design``, :class:`genderscope.core.declaration.Pairing`: a mean over its
items crossed with the words they share, each word measured before and after).
:func:`genderscope.stats.change_interval.infer_change` gives the interval and test over
every word set (X, Y, A, B; RIPA: its word pairs, A, B): the t test of no change with the
variance under no change V_0, from each word's own contribution (:func:`contributions`; "too
few units to test" below 5 df), and the several-sample jackknife t interval with variance
max(V_0, V_c), V_c from the derivatives (:func:`derivatives`) less the noise their squares
carry (:func:`noise_terms`). Figures: docs/calibration.md, "Debiased word vectors: before
and after".

A run records the rows its change needs as a further table, :data:`WORDS_TABLE`
(:func:`words_table`, :func:`sets_from_table`), so that two saved runs are compared with the
evaluation's design (:func:`record_words`, :func:`record_plain_run`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from genderscope.core.declaration import Pairing
from genderscope.core.design import SCORE_TOLERANCE, Design, Tolerance
from genderscope.errors import GenderscopeError
from genderscope.stats.design import ties

ALL = "(all)"
NO_CHANGE = "none (no change beyond numerical precision)"
WORDS_TABLE = "word_vectors"
"""The further table of a run that records its word vectors (:func:`words_table`)."""

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
    if metric not in ("ripa", "rnd", "ect"):
        raise GenderscopeError(f"no per-word change for measure {metric!r}: WEAT, RIPA, "
                               "RND, ECT and MAC have one")
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
            up, down = _perturbed(lambda w: contributions(metric, before, after, tied, w,
                                                          centred=False), before, rt, i)
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


def _perturbed(f: Any, sets: Sets, role: str, i: int) -> tuple[Any, Any]:
    """``f(weights)`` with word ``i`` of set ``role`` weighted 1 + STEP, then 1 - STEP
    (every other word 1): the two ends of a central difference."""
    w = {r: np.ones(len(v)) for r, v in sets.items()}
    w[role][i] += STEP
    up = f(w)
    w[role][i] -= 2 * STEP
    return up, f(w)


def derivatives(metric: str, before: Sets, after: Sets, tied: dict[str, np.ndarray]
                ) -> dict[str, dict[str, np.ndarray]]:
    """group -> set -> the change's derivative with respect to each word's weight, the
    word weighted alike in both vector sets (the infinitesimal jackknife's influence)."""
    out: dict[str, dict[str, np.ndarray]] = {g: {} for g in tied}
    for role, rows_ in before.items():
        d = {g: np.empty(len(rows_)) for g in tied}
        for i in range(len(rows_)):
            up, down = _perturbed(lambda w: _changes(metric, before, after, tied, w),
                                  before, role, i)
            for g in tied:
                d[g][i] = (up[g] - down[g]) / (2 * STEP)
        for g in tied:
            out[g][role] = d[g]
    return out


def paired_change(metric: str, before: Sets, after: Sets, design: Design, *,
                  tolerance: Tolerance = SCORE_TOLERANCE, p_adjust: str = "holm",
                  interval: bool = True) -> list[dict[str, Any]]:
    """The before/after change of ``metric``'s items, per group and over all (module
    docstring): rows with the mean item values, the mean change, its 95 % interval and test
    (``design``: the crossed mean of ``metric``'s ``pairing.design``; the per-group p-values
    Holm-adjusted as one family). ``interval=False``: the estimate and the test only (the
    interval's bounds NaN; a simulation of the test's size)."""
    from genderscope.stats import adjust_pvalues
    from genderscope.stats.change_interval import infer_change

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
        res = infer_change(design, est[g], grads[g], own[g], noise[g])
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


def words_table(sets: Sets, words: dict[str, list[str]] | None = None) -> Any:
    """``sets`` as a table: one row per word, its ``set`` (role; RIPA's word pairs as
    ``P1`` and ``P2``, the pairs' first and second words), ``text`` (``words``, else its
    index) and its vector, columns ``v0, v1, ...`` (float32, as the vectors are held)."""
    import pandas as pd

    names: list[str] = []
    texts: list[str] = []
    blocks: list[np.ndarray] = []
    for role, rows in sets.items():
        half = rows.shape[-1] // 2  # RIPA's pairs, x_i and y_i side by side: two sets
        pieces = {"P1": rows[:, :half], "P2": rows[:, half:]} if role == "P" else {role: rows}
        for name, m in pieces.items():
            names += [name] * len(m)
            texts += (words or {}).get(name) or [str(i) for i in range(len(m))]
            blocks.append(np.asarray(m, dtype=np.float32))
    matrix = np.vstack(blocks)
    frame = pd.DataFrame(matrix, columns=[f"v{j}" for j in range(matrix.shape[1])])
    frame.insert(0, "text", texts)
    frame.insert(0, "set", names)
    return frame


def sets_from_table(table: Any) -> Sets:
    """The :data:`Sets` a :func:`words_table` holds (float64, the rows in their order)."""
    cols = [c for c in table.columns if str(c).startswith("v") and str(c)[1:].isdigit()]
    rows = table[cols].to_numpy(dtype=np.float32).astype(np.float64)
    roles = table["set"].astype(str).to_numpy()
    out: Sets = {role: rows[roles == role] for role in dict.fromkeys(roles)}
    if "P1" in out:
        out["P"] = np.hstack([out.pop("P1"), out.pop("P2")])
    return out


def record_words(result: Any, sets: Sets, design: Design) -> Any:
    """``result`` with the rows of its word sets recorded (:data:`WORDS_TABLE`) and the
    ``design`` of its change named (``metadata["change_design"]``: the measure's declared
    ``pairing.design``)."""
    result.tables = {**result.tables, WORDS_TABLE: words_table(sets)}
    names = getattr(result, "table_names", None)  # a LazyResult names its tables
    if names is not None and WORDS_TABLE not in names:
        names.append(WORDS_TABLE)
    result.metadata["change_design"] = design.describe()
    return result


def record_plain_run(result: Any, metric: str, vectors: Any, test: Any,
                     pairing: Pairing | None) -> Any:
    """A run of ``genderscope run weat|ripa|rnd|ect|mac`` (``vectors`` with the run's
    look-up rules) with its word rows recorded (:func:`record_words`), so that ``genderscope
    compare`` of two such runs takes the crossed design. ``pairing``: the measure's declared
    one (no ``design``: the run as it is). Recorded only where :func:`item_values` of
    :func:`word_sets` gives back each item's value (to 1e-9) in the items' order; otherwise
    (a query of n sets, WEAT's ``phrases="mean"``, RIPA without case fallback) the run is
    returned as it is, and compare treats the items as independent."""
    from genderscope.datasets.seat import AssociationTest

    if pairing is None or pairing.design is None or not isinstance(test, AssociationTest):
        return result
    try:
        sets = word_sets(metric, vectors, test)
        values = item_values(metric, sets)
    except (GenderscopeError, KeyError, ValueError):
        return result
    items = result.items
    col = pairing.value
    if col not in items or "set" not in items:
        return result
    for role, (v, _) in values.items():
        got = items.loc[items["set"].astype(str) == role, col].to_numpy(dtype=np.float64)
        if got.shape != v.shape or not np.allclose(got, v, rtol=1e-9, atol=1e-12):
            return result
    if set(items["set"].astype(str)) != set(values):
        return result
    return record_words(result, sets, pairing.design)
