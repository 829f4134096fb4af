"""Calibration of the before/after comparison of debiased word vectors (issue 36, row 2):
simulations shared by tests/stats/test_calibration_vector_debias.py and the calibration
table (``python scripts/calibration_table.py``; rows listed in tests/calibration_sims.py's
TABLE).

A world: word vectors of an association test, every word drawn from its set's population
(``offset + loading * e_0 + N(0, I)`` in :data:`DIM` dimensions, loadings X +0.8, Y -0.8,
A +0.5, B -0.5: the targets are gendered and the attributes associated), X[i] paired with
Y[i] (RIPA's word pairs). The two vector sets compared are the world plus independent
noise N(0, :data:`NOISE`^2 I) each: under no change ("null") the same vectors, after
debiasing ("shrink") with every word's e_0 loading halved. Plain numpy: no pytest.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from calibration_sims import ALPHA, COVER, FPR, Row

DIM = 20
NOISE = 0.5
LOADING = {"X": 0.8, "Y": -0.8, "A": 0.5, "B": -0.5}
METRICS = ("weat", "ripa", "rnd", "ect", "mac")
SRC = "tests/stats/test_calibration_vector_debias.py::"


def _test(n_target: int, n_attr: int) -> Any:
    from genderscope.datasets.seat import AssociationTest, WordSet

    sizes = {"X": n_target, "Y": n_target, "A": n_attr, "B": n_attr}
    return AssociationTest("sim", *(WordSet(r, tuple(f"{r.lower()}{i}" for i in range(n)))
                                    for r, n in sizes.items()))


LOGNORMAL_SCALE = float(np.sqrt((np.e - 1) * np.e))
"""The SD of a lognormal with sigma 1."""
NOISES = {
    "normal": ("N(0, {s}^2)", lambda rng, size: rng.normal(size=size)),
    "lognormal": ("centred lognormal (skewness 6.2, SD {s})",
                  lambda rng, size: (rng.lognormal(0.0, 1.0, size) - np.exp(0.5))
                  / LOGNORMAL_SCALE)}
"""Each word's noise, per coordinate (SD 1, scaled by :data:`NOISE`): its words, in words
(``{s}``: the SD), and a draw."""


CHANGES = {"null": "the same vectors",
           "shrink": "every word's gender loading halved after",
           "skew": "the same vectors, after each word also moved along the gender axis by a "
                   f"centred lognormal amount (SD {NOISE}, skewness 6.2)"}
"""What :func:`world`'s ``change`` does, in words."""


def world(rng: np.random.Generator, n_target: int = 8, n_attr: int = 8,
          change: str = "null", noise: str = "normal") -> tuple[Any, Any, Any]:
    """(before vectors, after vectors, test): module docstring; ``noise``: each word's
    noise in both vector sets, per coordinate (:data:`NOISES`); ``change="skew"``: after,
    each word also moves along the gender axis by its own centred lognormal amount (SD
    :data:`NOISE`, skewness 6.2)."""
    from genderscope.models.vectors import WordVectors

    test = _test(n_target, n_attr)
    load = np.concatenate([np.full(len(ws.examples), LOADING[r])
                           for r, ws in zip("XYAB", test.sets(), strict=True)])
    words = [w for ws in test.sets() for w in ws.examples]
    base = rng.normal(size=(len(words), DIM)) + rng.normal(size=DIM)
    before = base.copy()
    before[:, 0] += load
    after = base.copy()
    after[:, 0] += load * (0.5 if change == "shrink" else 1.0)
    draw = NOISES[noise][1]
    before += NOISE * draw(rng, before.shape)
    after += NOISE * draw(rng, after.shape)
    if change == "skew":  # each word's own change along the gender axis, skewed, mean 0
        after[:, 0] += NOISE * NOISES["lognormal"][1](rng, len(words))
    return (WordVectors(before.astype(np.float32), words, fingerprint="before"),
            WordVectors(after.astype(np.float32), words, fingerprint="after"), test)


def changes(rng: np.random.Generator, *, n_target: int = 8, n_attr: int = 8,
            change: str = "null", old: bool = False, noise: str = "normal"
            ) -> dict[str, dict[str, dict]]:
    """metric -> group -> its row of :func:`genderscope.vector_debias.evaluate.
    paired_change` on one world; ``old``: also ``old_p``, ``old_low``, ``old_high``, the
    interval and test of the items alone (compare's, before issue 36 row 2)."""
    from genderscope.core.design import Design
    from genderscope.stats.design import infer
    from genderscope.vector_debias.evaluate import item_values, paired_change, word_sets

    before, after, test = world(rng, n_target, n_attr, change, noise)
    out: dict[str, dict[str, dict]] = {}
    for metric in METRICS:
        sb, sa = word_sets(metric, before, test), word_sets(metric, after, test)
        rows = {r["set"]: r for r in paired_change(metric, sb, sa,
                                                   interval=change != "null")}
        if old:
            vb, va = item_values(metric, sb), item_values(metric, sa)
            for g, r in rows.items():
                keys = list(vb) if g == "(all)" else [g]
                d = np.concatenate([va[k][0] - vb[k][0] for k in keys])
                res = infer(Design("mean", unit="items"), d, null=0.0, n_resamples=499,
                            seed=int(rng.integers(1 << 31)))
                r.update(old_p=res.p_value, old_low=res.ci.ci_low, old_high=res.ci.ci_high)
        out[metric] = rows
    return out


def truths(draws: int = 4000, seed: int = 3620, change: str = "shrink", **sizes: int
           ) -> dict[str, dict[str, float]]:
    """The expected change of each metric over all items under ``change`` at these set
    sizes: the mean estimate over ``draws`` worlds (Monte-Carlo error about SD / 63 at
    4,000)."""
    from genderscope.vector_debias.evaluate import item_values, word_sets

    rng = np.random.default_rng(seed)
    acc = dict.fromkeys(METRICS, 0.0)
    for _ in range(draws):
        before, after, test = world(rng, change=change, **sizes)
        for m in METRICS:
            vb = item_values(m, word_sets(m, before, test))
            va = item_values(m, word_sets(m, after, test))
            acc[m] += float(np.mean(np.concatenate([va[g][0] - vb[g][0] for g in vb]))) / draws
    return {m: {"(all)": v} for m, v in acc.items()}


FIRST = {"weat": "X", "ripa": "A", "rnd": "A", "ect": "A", "mac": "X"}
"""The group row each metric's table row reads (its first set; the other is alike)."""


def _design(n_target: int, n_attr: int, what: str, noise: str = "normal") -> str:
    return (f"{n_target} + {n_target} target words ({n_target} pairs), {n_attr} + {n_attr} "
            f"attribute words, {DIM} dimensions; before and after: {what}, each plus "
            f"independent {NOISES[noise][0].format(s=NOISE)} noise per word")


def null_rows(sims: int, seed: int = 3621, n_target: int = 8, n_attr: int = 8,
              old: bool = False, noise: str = "normal") -> list[Row]:
    """False-positive rate of each metric's change test, over all items and per set,
    when before and after are the same vectors with independent ``noise``."""
    rng = np.random.default_rng(seed + n_target + 100 * n_attr)
    hits: dict[str, int] = {}
    for _ in range(sims):
        for m, rows in changes(rng, n_target=n_target, n_attr=n_attr, old=old,
                               noise=noise).items():
            for g in ("(all)", FIRST[m]):
                key = f"{m}:{g}"
                hits[key] = hits.get(key, 0) + int(rows[g]["p_value"] < ALPHA)
                if old:
                    hits["old:" + key] = hits.get("old:" + key, 0) + int(
                        rows[g]["old_p"] < ALPHA)
    design = _design(n_target, n_attr, "the same vectors", noise)
    out = []
    for m in METRICS:
        for g in ("(all)", FIRST[m]):
            what = "over all items" if g == "(all)" else f"set {g}"
            out.append(Row(f"vector-debias-{m}-{'all' if g == '(all)' else g}-null-"
                           f"{n_target}-{n_attr}", design,
                           f"debias evaluation: {m.upper()} change {what}, t test of no change",
                           "FPR", sims, hits[f"{m}:{g}"], SRC + "test_debias_change_test_"
                           "is_sized",
                           calibrates=("test: t test of no change",)))
            if old:
                out.append(Row(f"old-{out[-1].key}", design, out[-1].statistic.replace(
                    "t test of no change", "bootstrap-t over the items"), "FPR", sims,
                    hits[f"old:{m}:{g}"], SRC))
    return out


def shrink_rows(sims: int, seed: int = 3622, n_target: int = 8, n_attr: int = 8,
                truth: dict[str, dict[str, float]] | None = None, change: str = "shrink"
                ) -> list[Row]:
    """Coverage of each metric's change interval over all items when debiasing halved every
    word's gender loading (``change="skew"``: :func:`world`'s skewed change instead);
    truth: :func:`truths`."""
    truth = truth if truth is not None else truths(n_target=n_target, n_attr=n_attr,
                                                   change=change)
    rng = np.random.default_rng(seed + n_target + 100 * n_attr)
    hits = dict.fromkeys(METRICS, 0)
    for _ in range(sims):
        for m, rows in changes(rng, n_target=n_target, n_attr=n_attr,
                               change=change).items():
            r = rows["(all)"]
            hits[m] += int(r["change_ci_low"] <= truth[m]["(all)"] <= r["change_ci_high"])
    design = _design(n_target, n_attr, CHANGES[change]) + (
        "; truth: the expected change at these sizes (mean of 4,000 worlds)")
    return [Row(f"vector-debias-{m}-all-{change}-{n_target}-{n_attr}", design,
                f"debias evaluation: {m.upper()} change over all items, jackknife t CI",
                "coverage", sims, hits[m], SRC + "test_debias_change_interval_covers",
                calibrates=("interval: several-sample infinitesimal jackknife t",))
            for m in METRICS]


RUNS = {"weat": {"n_permutations": 0, "exact_limit": 0},
        "ripa": {"n_permutations": 0, "n_resamples": 0},
        "rnd": {"n_permutations": 0, "n_resamples": 10, "exact_limit": 0},
        "ect": {"n_resamples": 0}, "mac": {"n_resamples": 0}}
"""Each metric's run as the simulated saved runs make it: its items and word rows only
(no permutations, the fewest resamples; the change compared does not read them)."""


def saved_run(metric: str, vectors: Any, test: Any, folder: Any) -> Any:
    """``metric`` run on ``vectors`` as the debiased-vector evaluation records it (its word
    rows: ``record_words``), saved to ``folder`` and read back as ``genderscope compare``
    reads a saved run."""
    import importlib

    from genderscope.measures.compare import load_result_dir
    from genderscope.measures.vector_change import record_words, word_sets
    from genderscope.vector_debias.evaluate import change_design

    module = "weat" if metric == "weat" else f"embedding_metrics.{metric}"
    fn = getattr(importlib.import_module(f"genderscope.measures.{module}"), metric)
    result = record_words(fn(vectors, test, **RUNS[metric]),
                          word_sets(metric, vectors, test), change_design(metric))
    result.save(folder)
    return load_result_dir(folder)


def _saved_compares(rng: np.random.Generator, sims: int, n_target: int, n_attr: int, *,
                    change: str = "null", noise: str = "normal", interval: bool = False
                    ) -> Any:
    """Per world of ``sims``, per metric: (metric, the change table of ``genderscope
    compare`` of two saved runs of it, before and after, indexed by set)."""
    import shutil
    import tempfile
    from pathlib import Path

    from genderscope.measures.compare import compare_runs

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(sims):
            before, after, test = world(rng, n_target, n_attr, change, noise)
            for m in METRICS:
                runs = [saved_run(m, v, test, Path(tmp) / f"{i}-{m}-{side}")
                        for side, v in (("before", before), ("after", after))]
                for side in ("before", "after"):
                    shutil.rmtree(Path(tmp) / f"{i}-{m}-{side}")
                yield m, compare_runs(*runs, interval=interval).tables[
                    "change_by_group"].set_index("set")


COMPARE_SRC = SRC + "test_compare_of_saved_runs_is_sized"


def compare_null_rows(sims: int, seed: int = 3623, n_target: int = 8, n_attr: int = 8,
                      noise: str = "normal") -> list[Row]:
    """False-positive rate of ``genderscope compare`` of two saved runs of each metric
    (``compare_runs`` of the folders, as the command reads them; its test only, the
    interval's bounds not computed), over all items and per set, when before and after
    are the same vectors with independent ``noise`` (:data:`NOISES`)."""
    rng = np.random.default_rng(seed + n_target + 100 * n_attr
                                + 1000 * list(NOISES).index(noise))
    hits: dict[str, int] = {}
    for m, rows in _saved_compares(rng, sims, n_target, n_attr, noise=noise):
        for g in ("(all)", FIRST[m]):
            hits[f"{m}:{g}"] = hits.get(f"{m}:{g}", 0) + int(rows.loc[g, "p_value"] < ALPHA)
    design = _design(n_target, n_attr, "the same vectors", noise) + \
        "; two saved runs compared"

    reference, command = NULL_20000_BY_NOISE[noise]

    def limit(key: str, rate: float) -> str:
        if rate >= FPR[0] or key not in reference or (n_target, n_attr) != (8, 8):
            return ""
        p = reference[key]
        return (f"Monte-Carlo error of these {sims} worlds, not the test: compare's test is "
                "the evaluation's t test of no change (the same code), which rejected "
                f"{p:.3f} of 20,000 other no-change worlds here ({command}; "
                f"every row {min(reference.values()):.3f}-{max(reference.values()):.3f}); "
                f"{rate:.3f} is "
                f"{(p - rate) / np.sqrt(p * (1 - p) / sims):.1f} standard errors below it")

    suffix = "" if noise == "normal" else f"-{noise}"
    source = COMPARE_SRC + ("" if noise == "normal" else "_under_skewed_words")
    return [Row(f"compare-vector-debias-{m}-{'all' if g == '(all)' else g}-null-{n_target}-"
                f"{n_attr}{suffix}", design, f"compare of saved {m.upper()} runs: change "
                f"{'over all items' if g == '(all)' else 'set ' + g}, t test of no change "
                "(crossed design)", "FPR", sims, hits[f"{m}:{g}"], source,
                limit(f"{m}:{g}", hits[f"{m}:{g}"] / sims),
                calibrates=("test: t test of no change",))
            for m in METRICS for g in ("(all)", FIRST[m])]


def compare_skew_rows(sims: int, seed: int = 3625, draws: int = 2000) -> list[Row]:
    """Coverage of the interval of ``genderscope compare`` of two saved runs of each
    metric (the crossed jackknife t CI of the change over all items) when each word's
    change is skewed: after, every word also moves along the gender axis by its own
    centred lognormal amount (:func:`world`'s ``change="skew"``, 8 + 8 target and 8 + 8
    attribute words); the truth, the expected change, from ``draws`` other worlds
    (:func:`truths`)."""
    truth = truths(draws, seed + 1, change="skew")
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(METRICS, 0)
    for m, rows in _saved_compares(rng, sims, 8, 8, change="skew", interval=True):
        r = rows.loc["(all)"]
        hits[m] += int(r["change_ci_low"] <= truth[m]["(all)"] <= r["change_ci_high"])
    design = _design(8, 8, CHANGES["skew"]) + (
        f"; two saved runs compared; truth: the expected change (mean of {draws:,} worlds)")
    return [Row(f"compare-vector-debias-{m}-all-skew-8-8", design,
                f"compare of saved {m.upper()} runs: change over all items, jackknife t CI "
                "(crossed design)", "coverage", sims, hits[m],
                SRC + "test_compare_of_saved_runs_covers_skewed_changes",
                _skew_limit(m, hits[m], sims),
                calibrates=("interval: several-sample infinitesimal jackknife t",))
            for m in METRICS]


SKEW_2000 = {"weat": 1913, "ripa": 1915, "rnd": 1930, "ect": 1949, "mac": 1914}
"""Of 2,000 worlds with the skewed change (8 + 8 target and attribute words), how many
each metric's interval of the change over all items covered, as :data:`SKEW_2000_COMMAND`
printed it at commit e88e668 (510 s; truth: the mean of 4,000 other worlds): the debias
evaluation's interval, the code compare of saved runs runs."""
SKEW_2000_COMMAND = 'shrink_rows(2000, seed=1, change="skew") of tests/calibration_sims_debias.py'
SKEW_OWN_2000 = {"weat": 0.969, "ripa": 0.950, "rnd": 0.965, "ect": 0.966, "mac": 0.963}
"""The coverage of the page's skewed-change rows over their own first 2,000 worlds (the
page's 600 and 1,400 more, same seed), as ``compare_skew_rows(2000)``'s simulation printed
it at commit ad04d7f (0.38 s of CPU per world): the page's rows since (2,000 worlds)."""


def _skew_limit(metric: str, hits: int, sims: int) -> str:
    """The known limit of a skewed-change row: the interval too wide (conservative) in
    :data:`SKEW_2000` (with :data:`SKEW_OWN_2000` beside it), or, within the bar there, a
    figure above the bar by Monte-Carlo error; empty when neither."""
    from genderscope.stats import proportion_ci

    ref = proportion_ci(SKEW_2000[metric], 2000)
    rate = hits / sims
    own = "" if sims >= 2000 else (f"; {SKEW_OWN_2000[metric]:.3f} of this row's first "
                                   "2,000 worlds (compare_skew_rows(2000))")
    if ref.estimate > COVER[1]:
        return (f"at the bar's upper edge (conservative), not too narrow: under skewed "
                f"per-word changes {metric.upper()}'s interval covered {ref.estimate:.3f} "
                f"[{ref.ci_low:.3f}, {ref.ci_high:.3f}] of 2,000 other worlds "
                f"({SKEW_2000_COMMAND}, the same code){own}, "
                f"{(ref.estimate + SKEW_OWN_2000[metric]) / 2:.3f} over both")
    if rate <= COVER[1]:
        return ""
    p = ref.estimate
    return (f"Monte-Carlo error of these {sims} worlds, not the interval: it covered "
            f"{p:.3f} [{ref.ci_low:.3f}, {ref.ci_high:.3f}] of 2,000 other such worlds "
            f"({SKEW_2000_COMMAND}, the same code){own}; {rate:.3f} is "
            f"{(rate - p) / np.sqrt(p * (1 - p) / sims):.1f} standard errors above it")


NULL_20000 = {"weat:(all)": 0.0428, "weat:X": 0.0421, "ripa:(all)": 0.0519,
              "ripa:A": 0.0493, "rnd:(all)": 0.0414, "rnd:A": 0.0419, "ect:(all)": 0.0436,
              "ect:A": 0.0440, "mac:(all)": 0.0406, "mac:X": 0.0430}
"""The false-positive rate of each row's test of no change over 20,000 worlds
(8 + 8 target and attribute words), as :data:`NULL_20000_COMMAND` printed it at commit
911b1e5 (the test is unchanged since): the rate the 600-world rows estimate."""
NULL_20000_COMMAND = "null_rows(20000, seed=1) of tests/calibration_sims_debias.py"
NULL_20000_LOGNORMAL = {"weat:(all)": 0.0408, "weat:X": 0.0374, "ripa:(all)": 0.0473,
                        "ripa:A": 0.0459, "rnd:(all)": 0.0372, "rnd:A": 0.0384,
                        "ect:(all)": 0.0384, "ect:A": 0.0406, "mac:(all)": 0.0379,
                        "mac:X": 0.0374}
"""As :data:`NULL_20000`, each word's noise centred lognormal per coordinate (``noise=
"lognormal"``), as ``null_rows(20000, seed=1, noise="lognormal")`` printed it at commit
e88e668 (232 s)."""
NULL_20000_BY_NOISE = {
    "normal": (NULL_20000, NULL_20000_COMMAND),
    "lognormal": (NULL_20000_LOGNORMAL, NULL_20000_COMMAND.replace(
        "seed=1", 'seed=1, noise="lognormal"'))}


PLAIN = {"weat": {}, "ripa": {"resamples": 100}, "rnd": {"resamples": 100},
         "ect": {"resamples": 100}, "mac": {"resamples": 100}}
"""The options of the simulated plain runs: the fewest bootstrap resamples (the change
compared reads none)."""
PLAIN_SRC = ("tests/stats/test_calibration_plain_compare.py::"
             "test_compare_of_plain_runs_is_sized")


def plain_compare_rows(sims: int, seed: int = 3624) -> list[Row]:
    """False-positive rate of ``genderscope compare`` of two PLAIN runs of each metric
    (``genderscope.run``, the path of ``genderscope run NAME --out``, which records the
    word rows; ``compare_runs`` of the two folders as the command reads them, its test
    only), over all items, when before and after are two noisy copies of the same
    vectors (:func:`world` at 8 + 8 target and 8 + 8 attribute words). Each compare is
    checked to take the metric's declared crossed design (its ``pairing.design``)."""
    import tempfile
    from pathlib import Path

    from genderscope.engine import run
    from genderscope.measures.compare import compare_runs, load_result_dir
    from genderscope.vector_debias.evaluate import change_design

    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(METRICS, 0)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(sims):
            before, after, test = world(rng)
            for m in METRICS:
                folders = [Path(tmp) / f"{i}-{m}-{side}" for side in ("before", "after")]
                for vecs, folder in zip((before, after), folders, strict=True):
                    run(m, vecs, store=Path(tmp) / "s.sqlite", test=test, out=folder,
                        reuse=False, record=False, **PLAIN[m])
                res = compare_runs(*map(load_result_dir, folders), interval=False)
                if res.summary.get("design") != change_design(m).describe():
                    raise AssertionError(f"compare of plain {m} runs: design "
                                         f"{res.summary.get('design')!r}")
                rows = res.tables["change_by_group"].set_index("set")
                hits[m] += int(rows.loc["(all)", "p_value"] < ALPHA)
    design = _design(8, 8, "the same vectors") + "; two plain runs saved and compared"
    return [Row(f"compare-plain-{m}-all-null-8-8", design,
                f"compare of two plain {m.upper()} runs (genderscope run): change over all "
                "items, t test of no change (crossed design)", "FPR", sims, hits[m],
                PLAIN_SRC,
                calibrates=("test: t test of no change",)) for m in METRICS]


def within(rows: list[Row]) -> list[str]:
    """The keys of rows outside their bar."""
    return [r.key for r in rows if not (r.bar[0] <= r.rate <= r.bar[1])]


__all__ = ["COVER", "FPR", "changes", "compare_null_rows", "compare_skew_rows", "null_rows",
           "plain_compare_rows", "saved_run", "shrink_rows", "truths", "within", "world"]
