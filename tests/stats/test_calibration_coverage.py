"""Every interval and test genderscope reports has a row on docs/calibration.md that is
still reported (issue 36's done-when: the page "lists every reported test and interval
with its measured figure").

What genderscope reports is read from its results, never typed here: the stored ``method``
of every interval (a dict with ``ci_low``; ``ci_method`` in compare's tables) and the
stored ``test`` of every p-value, in

- every identity case (``tests/identity/record.py``: every measure on small offline models,
  with the changes made on purpose; the way ``test_statistics_words.py`` reads them), and
- small seeded runs of what has no identity case or takes another path at other sizes:
  GAP, compare of two saved runs (its McNemar test of a pairing's binary outcome and
  its clustered path too), the report's model difference, the counterfactual flip
  rate over templates (downstream's interval: the same function), BEC-Pro's crossed test
  with 20 professions, the probe over 12 targets, DiscriminationTamkin's paired test over
  20 scenarios, BBQ's test of per-question values, bias amplification of a chat model,
  run-many's rank correlation tests, and the debiased-vector evaluation.

A statistic is named as each row's ``calibrates`` names it (``calibration_sims.Row``,
rendered on the page as "stored as"): ``interval: <method>`` (``interval: <measure>
<what>`` for an interval stored as ``<what>_ci_low`` without a method), ``test: <start of
the test>``, ``p: <measure>`` for a p-value stored without a ``test`` that names a test
(WEAT's ``test`` is its word-set test's name), or ``no-bias: <how>`` for the value
expected under no bias shown beside an absolute value (its ``no_bias``, from "over"). A
row whose statistic or status says "replaced" or "not reported" does not count. The page
is generated (``python scripts/calibration_table.py``), so a row added or renamed in the
simulations shows there after the page is regenerated; the declared rows are checked
from the source meanwhile.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from calibration_page import row_cells

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "calibration.md"

NO_TEST = ("none", "too few units to test")
"""Stored ``test`` values (the start) that say no test was run: no p-value to calibrate."""


RECORD = "<table row>"
"""The key :func:`_walk` gives a table's rows: a p-value there without a named test
restates a summary's (StereoSet's and CrowS-Pairs' tables by bias type) and is not read."""


def _plain(text: str) -> str:
    return " ".join(str(text).lower().replace("-", " ").split())


def _walk(value: Any, key: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every dict in ``value`` with the key it sits under, and every record of a stored
    table (``columns`` + ``records``) or DataFrame, as a dict."""
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        yield from _walk(value.to_dict("records"), RECORD)
    elif isinstance(value, dict):
        cols, recs = value.get("columns"), value.get("records")
        if isinstance(cols, list) and isinstance(recs, list):
            for r in recs:
                yield from _walk(dict(zip(cols, r, strict=False)) if isinstance(r, list)
                                 else r, RECORD)
            return
        yield key, value
        for k, v in value.items():
            yield from _walk(v, str(k))
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _walk(v, key)


def statistics_in(result: Any, measure: str) -> set[str]:
    """The reported statistics of one result (summary, tables, a dict or a DataFrame), as
    a row's ``calibrates`` names them."""
    out: set[str] = set()
    for key, d in _walk(result):
        method = d.get("method") if "ci_low" in d else d.get("ci_method")
        if isinstance(method, str) and method:
            out.add(f"interval: {method.lower()}")
        if key != RECORD and "ci_method" not in d:  # <what>_ci_low without its method
            out |= {f"interval: {measure} {k.removesuffix('_ci_low')}" for k in d
                    if isinstance(k, str) and k.endswith("_ci_low")}
        if isinstance(d.get("no_bias"), str) and "no_bias_p95" in d:  # absolute values
            how = re.sub(r"^.* over (\d+ )?", "", d["no_bias"].lower())
            out.add(f"no-bias: {how}")
        if any(k.endswith("_mcnemar_p") for k in d):  # compare's binary outcomes
            out.add(f"p: {measure} mcnemar")
        p = next((d[k] for k in ("p_value", "p_two_sided") if k in d), None)
        if p is None:
            continue
        test = d.get("test")
        if isinstance(test, str) and " test" in f" {_plain(test)}":
            if not _plain(test).startswith(NO_TEST):
                out.add(f"test: {_plain(test)}")
        elif key != RECORD:  # SEAT's p_as_published: May et al.'s permutation, shown beside its own
            out.add(f"p: {measure}" + (" as published" if "published" in key else ""))
    return out


def _identity() -> dict[str, set[str]]:
    """Per identity case: its reported statistics."""
    sys.path.insert(0, str(REPO / "tests" / "identity"))
    try:
        identity = importlib.import_module("test_identity")
    finally:
        sys.path.remove(str(REPO / "tests" / "identity"))
    out: dict[str, set[str]] = {}
    for case_id in identity.CASE_IDS:
        record = identity._as_changed(case_id, identity.BASELINE["cases"][case_id])
        out[f"identity {case_id}"] = statistics_in(
            {"summary": record["summary"], "tables": record["tables"]}, record["measure"])
    return out


def _gap() -> tuple[Any, str]:
    from fake_lm import FakeCausal
    from shared_data import data_dir

    import genderscope as gs

    return gs.run("gap", FakeCausal(), limit=6, resamples=100, data=data_dir()).summary, "gap"


def _compare() -> tuple[Any, str]:
    """``compare_runs`` of two saved runs: items alone (bootstrap-t), CrowS-Pairs' pairing
    (its McNemar test of ``stereotypical_preferred``) and downstream's (clustered by
    context)."""
    import calibration_sims as cs
    import pandas as pd

    from genderscope.measures.compare import compare_runs
    from genderscope.results import Result

    rng = np.random.default_rng(1)
    plain = cs.compare_once(rng, 60, "t5", n_resamples=99)

    def crows() -> Result:
        m = rng.normal(0, 1, 40)
        return Result("crows-pairs", {}, pd.DataFrame({
            "pair_id": np.arange(40), "margin": m, "bias_type": "gender",
            "stereotypical_preferred": m > 0}))

    def downstream() -> Result:
        return Result("downstream", {}, pd.DataFrame({
            "item_id": np.arange(40), "correct": rng.random(40) < 0.5,
            "context_id": np.repeat(np.arange(10), 4)}))

    return [plain, *(compare_runs(make(), make(), n_resamples=99).tables
                     for make in (crows, downstream))], "compare"


def _report() -> tuple[Any, str]:
    """The report's model difference over 5 and 60 professions of 2-30 items (as
    ``calibration_sims.report_unequal_row`` builds it): its interval's method
    (:func:`~genderscope.reporting.compare.ci_method`, shown in the report) and its
    p-value, which names no test."""
    import pandas as pd

    from genderscope.reporting.compare import ci_method, paired_difference
    from genderscope.reporting.entry import Paired

    rng = np.random.default_rng(2)
    out = []
    for k in (5, 60):
        prof = np.repeat(np.arange(k), rng.integers(2, 31, k))
        index = pd.Index([f"i{i}" for i in range(prof.size)])
        clusters = pd.Series(prof.astype(str), index=index)
        a, b = (Paired(pd.DataFrame({"v": rng.normal(0, 1, prof.size)}, index=index),
                       lambda x: float(x[:, 0].mean()), "professions", clusters)
                for _ in range(2))
        got = paired_difference(a, b, n_resamples=20, n_permutations=20, seed=0)
        out.append({"ci_low": got[3], "ci_high": got[4], "p_value": got[5],
                    "method": ci_method(k)})
    return out, "report model difference"


def _flips() -> tuple[Any, str]:
    import calibration_sims as cs

    flips, template, _ = cs.template_flips(np.random.default_rng(3))
    return cs.flip_rates(flips, template), "counterfactual"


def _bec_pro() -> tuple[Any, str]:
    import calibration_sims as cs

    from genderscope.measures import bec_pro

    items = cs.bec_pro_person_items(np.random.default_rng(4))
    return bec_pro.summarize(items, n_resamples=99, seed=0), "bec-pro"


def _probe() -> tuple[Any, str]:
    from genderscope.measures import probe

    return probe.mean_ci(np.random.default_rng(5).normal(0, 1, 12), seed=0).as_dict(), "probe"


def _tamkin() -> tuple[Any, str]:
    import calibration_sims_probes as cp

    from genderscope.measures.genderbench import discrimination_tamkin as dt
    from genderscope.measures.genderbench.probe_run import summarise

    spec = dataclasses.replace(cp.tamkin_spec(), tests=dt.TESTS)
    frame = cp.tamkin_frame(np.random.default_rng(6), 20, 0.0)
    return summarise(spec, frame, n_resamples=99, seed=0), "discrimination-tamkin"


def _debias() -> tuple[Any, str]:
    import calibration_sims_debias as cd

    return cd.changes(np.random.default_rng(7), change="shrink"), "vector debias evaluation"


def _per_cluster() -> tuple[Any, str]:
    """BBQ's and HiringAn's tests take one male - female value per cluster (the identity
    cases have too few clusters to test): 12 questions."""
    import pandas as pd

    from genderscope.measures.genderbench.probe_run import clustered_test

    values = pd.Series(np.random.default_rng(8).normal(0, 1, 12),
                       index=pd.Index([f"q{i}" for i in range(12)], name="cluster"))
    return clustered_test(values, pd.Series(dtype=object), unit="questions"), "bbq"


def _amplification_lm() -> tuple[Any, str]:
    """Bias amplification of a chat model (no identity case): 6 items x 3 templates x 3
    samples, answers drawn at random."""
    from genderscope.measures.amplification_lm import Item, amplification_from_answers

    rng = np.random.default_rng(9)
    items = [Item(f"v{i}", f"v{i}", float(r)) for i, r in enumerate(rng.uniform(0.2, 0.8, 6))]
    rows = [(i, t, s) for i in range(6) for t in range(3) for s in range(3)]
    genders = list(rng.choice(["man", "woman", "none", "both"], len(rows)))
    out = amplification_from_answers(items, rows, genders, ["man", "woman"])
    return out["summary"], "amplification-lm"


def _rank_correlations(method: str) -> Callable[[], tuple[Any, str]]:
    """run-many's test of two metrics' rankings of 10 models (``--correlation``)."""

    def run() -> tuple[Any, str]:
        import pandas as pd

        from genderscope.stats.rankings import correlation_tests

        rng = np.random.default_rng(10)
        ranks = pd.DataFrame({"a": rng.permutation(10) + 1.0, "b": rng.permutation(10) + 1.0})
        # its table is the result itself (no summary restated): read as plain dicts
        return correlation_tests(ranks, method).to_dict("records"), f"run-many {method}"

    return run


RUNS: dict[str, Callable[[], tuple[Any, str]]] = {
    "gap (fake LM)": _gap, "compare of two saved runs": _compare,
    "report model difference": _report, "counterfactual flip rate over templates": _flips,
    "bec-pro, 20 professions x 9 person pairs": _bec_pro, "probe, 12 targets": _probe,
    "discrimination-tamkin, 20 scenarios": _tamkin, "debiased-vector evaluation": _debias,
    "bbq and hiring-an, 12 clusters": _per_cluster,
    "bias amplification of a chat model": _amplification_lm,
    "run-many spearman": _rank_correlations("spearman"),
    "run-many kendall": _rank_correlations("kendall")}
"""Seeded small runs of what the identity cases do not cover (module docstring)."""


def reported() -> dict[str, set[str]]:
    """Every reported statistic -> where it was found."""
    found: dict[str, set[str]] = {}
    sources = dict(_identity())
    for name, run in RUNS.items():
        result, measure = run()
        sources[name] = statistics_in(result, measure)
    for source, stats in sources.items():
        for s in stats:
            found.setdefault(s, set()).add(source)
    return found


def page_rows(text: str) -> list[tuple[set[str], bool, str]]:
    """Per simulated row of the page: the statistics it calibrates ("stored as"),
    whether it is still reported, and its statistic cell."""
    out = []
    for cells in row_cells(text):
        statistic, status = cells[0], cells[6]
        named = re.search(r"\(stored as ((?:`[^`]+`(?:; )?)+)\)$", statistic)
        stored = set(re.findall(r"`([^`]+)`", named.group(1))) if named else set()
        out.append((stored, not re.search("replaced|not reported", statistic + status),
                    statistic))
    return out


def names(row_entry: str, statistic: str) -> bool:
    """Whether a row's ``calibrates`` entry names a stored statistic: the same interval
    method or p, or the start of the stored test (or no-bias value)."""
    kind = row_entry.split(": ", 1)[0]
    if kind in ("test", "no-bias") and statistic.startswith(f"{kind}: "):
        return _plain(statistic).startswith(_plain(row_entry))
    return row_entry.lower() == statistic


def unlisted(found: dict[str, set[str]], rows: list[tuple[set[str], bool, str]]
             ) -> dict[str, set[str]]:
    """The reported statistics no reported row names, with where each was found."""
    return {s: where for s, where in sorted(found.items())
            if not any(ok and any(names(e, s) for e in stored) for stored, ok, _ in rows)}


@pytest.fixture(scope="module")
def found() -> dict[str, set[str]]:
    return reported()


def test_every_reported_interval_and_test_has_a_row(found: dict[str, set[str]]) -> None:
    """Each interval method and test genderscope reports is named by a reported row of
    docs/calibration.md."""
    assert len(found) >= 15, sorted(found)
    missing = unlisted(found, page_rows(PAGE.read_text(encoding="utf-8")))
    assert not missing, "reported but on no reported row of docs/calibration.md:\n" + \
        "\n".join(f"{s}  (in {', '.join(sorted(w)[:3])})" for s, w in missing.items())


def declared_rows() -> list[tuple[set[str], bool, str]]:
    """The ``calibrates`` of every ``Row(...)`` in ``tests/calibration_sims*.py``, read
    from the source (the literal tuple, or both branches of a conditional one), as
    :func:`page_rows` gives them: the page before it is regenerated, without simulating."""
    import ast

    out = []
    for path in sorted((REPO / "tests").glob("calibration_sims*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Row"):
                continue
            given = {k.arg: k.value for k in node.keywords}.get("calibrates")
            branches = [] if given is None else [given.body, given.orelse] \
                if isinstance(given, ast.IfExp) else [given]
            stored = {e for b in branches for e in ast.literal_eval(b)}
            out.append((stored, True, f"{path.name}:{node.lineno}"))
    return out


def test_every_reported_interval_and_test_has_a_declared_row(found: dict[str, set[str]]
                                                             ) -> None:
    """The same check against the simulations' ``Row`` declarations (what the next
    regeneration of the page will list): a row names what it calibrates only while its
    statistic is reported, so every declared name counts."""
    rows = declared_rows()
    assert len(rows) >= 40
    missing = unlisted(found, rows)
    assert not missing, "reported but named by no Row(calibrates=...):\n" + \
        "\n".join(f"{s}  (in {', '.join(sorted(w)[:3])})" for s, w in missing.items())
    stale = sorted({f"{e} ({where})" for stored, _, where in rows for e in stored
                    if not any(names(e, s) for s in found)})
    assert not stale, stale


def test_every_row_names_something_reported(found: dict[str, set[str]]) -> None:
    """A row's "stored as" names a statistic a result stores (no stale or misspelt
    name), so the check above cannot pass on a name nothing reports."""
    stale = sorted({f"{e} ({statistic[:60]})"
                    for stored, _, statistic in page_rows(PAGE.read_text(encoding="utf-8"))
                    for e in stored if not any(names(e, s) for s in found)})
    assert not stale, stale


def test_a_statistic_without_a_row_is_found() -> None:
    """The check fails for a new method: a result storing an interval method and a test
    no row names is listed, and a replaced row does not count."""
    result = {"x": {"ci_low": 0.0, "ci_high": 1.0, "method": "Brand-new Interval"},
              "y": {"p_value": 0.5, "test": "brand-new test over things"},
              "z": {"p_value": 0.5, "test": "none (too few units to test: 2 things)"},
              "w": {"p_value": 0.5, "test": "weat6"},
              "v": {"given_ci_low": 0.0, "given_ci_high": 1.0},
              "u": {"columns": ["p_value"], "records": [[0.5]]}}  # a table restating "w"
    got = statistics_in(result, "sim")
    assert got == {"interval: brand-new interval", "test: brand new test over things",
                   "p: sim", "interval: sim given"}
    rows = [({"interval: brand-new interval"}, False, "replaced"),
            ({"test: brand-new test", "p: sim"}, True, "new")]
    assert set(unlisted({s: {"sim"} for s in got}, rows)) == {"interval: brand-new interval",
                                                              "interval: sim given"}
