"""Plain runs of WEAT, RIPA, RND, ECT and MAC (``genderscope run NAME`` on two vector
files) record their word rows, so ``genderscope compare`` of two of them (store ids or
``--out`` folders) takes the crossed design of the debiased-vector evaluation and gives
its rows: the same change, interval and p."""

from __future__ import annotations

from contextlib import closing
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from calibration_sims_debias import world

from genderscope.engine import run
from genderscope.measures.compare import compare_runs, load_result_dir
from genderscope.measures.vector_change import WORDS_TABLE
from genderscope.store import Store
from genderscope.vector_debias.evaluate import METRICS, change_design, evaluate

COLS = ("change", "change_ci_low", "change_ci_high", "p_value")


def test_compare_of_two_plain_runs_is_the_evaluations_change(tmp_path: Path) -> None:
    before, after, test = world(np.random.default_rng(21), n_target=6, n_attr=6)
    with closing(Store(tmp_path / "eval.sqlite")) as st:
        want = {r["metric"]: r["paired"]["rows"]
                for r in evaluate(before, after, [test], store=st, out=tmp_path / "eval")}
    db = tmp_path / "plain.sqlite"
    for m in METRICS:
        runs = [run(m, vecs, store=db, test=test, out=tmp_path / m / side)
                for side, vecs in (("before", before), ("after", after))]
        with closing(Store(db)) as st:
            stored = [st.load_run(r.metadata["run_id"]) for r in runs]
        saved = [load_result_dir(tmp_path / m / side) for side in ("before", "after")]
        for how, pair in (("store", stored), ("folder", saved)):
            res = compare_runs(*pair)
            assert res.summary.get("design") == change_design(m).describe(), (m, how)
            assert "design_note" not in res.summary, (m, how)
            got = res.tables["change_by_group"].to_dict("records")
            assert [g["set"] for g in got] == [w["set"] for w in want[m]], (m, how)
            for g, w in zip(got, want[m], strict=True):
                assert g["test"] == w["test"], (m, how)
                for col in COLS:
                    assert g[col] == pytest.approx(w[col], rel=1e-9, abs=1e-12), (m, how, col)


def test_a_plain_run_records_only_the_words_it_used(tmp_path: Path) -> None:
    """The word rows are those of the words the metric looked up (an out-of-vocabulary
    word left out), one row per word, and a rerun that reuses the stored run holds them."""
    before, _, test = world(np.random.default_rng(22), n_target=6, n_attr=6)
    test = replace(test, targ1=replace(test.targ1, examples=[*test.targ1.examples, "zq-oov"]))
    db = tmp_path / "s.sqlite"
    first = run("weat", before, store=db, test=test)
    table = first.tables[WORDS_TABLE]
    assert first.summary["n_oov"]["X"] == 1
    assert table["set"].value_counts().to_dict() == first.summary["sizes"]
    assert table.shape[1] == 2 + before.matrix.shape[1]
    again = run("weat", before, store=db, test=test)
    assert again.metadata.get("reused")
    assert again.tables[WORDS_TABLE].equals(table)
    assert again.metadata["change_design"] == change_design("weat").describe()


def test_a_run_whose_rows_do_not_give_its_items_records_none(tmp_path: Path) -> None:
    """WEAT with ``phrases="mean"`` averages a two-word entry the word rows cannot hold:
    the run records no rows, and compare says it treats the items as independent."""
    before, after, test = world(np.random.default_rng(23), n_target=6, n_attr=6)
    test = replace(test, targ1=replace(test.targ1, examples=[*test.targ1.examples, "x0 y1"]))
    runs = [run("weat", v, store=tmp_path / "s.sqlite", test=test, phrases="mean")
            for v in (before, after)]
    assert all(len(r.items) == 13 and WORDS_TABLE not in r.tables for r in runs)
    assert "independent" in compare_runs(*runs).summary["design_note"]
