"""The debiased-vector evaluation's runs record their word rows, so ``genderscope compare``
of two of them (store ids or saved folders) takes the evaluation's own path: the crossed
design of :mod:`genderscope.measures.vector_change`, the same rows."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from calibration_sims_debias import world

from genderscope.core.declaration import Declaration, Pairing
from genderscope.measures.compare import compare_runs, load_result_dir
from genderscope.measures.vector_change import WORDS_TABLE, sets_from_table, word_sets
from genderscope.store import Store
from genderscope.vector_debias.evaluate import METRICS, change_design, evaluate

COLS = ("change", "change_ci_low", "change_ci_high", "p_value")


def _same(got: list[dict], want: list[dict], what: str) -> None:
    assert [g["set"] for g in got] == [w["set"] for w in want], what
    for g, w in zip(got, want, strict=True):
        assert g["test"] == w["test"], what
        for col in COLS:
            assert g[col] == pytest.approx(w[col], rel=1e-9, abs=1e-12), (what, col)


def test_compare_of_the_evaluations_runs_is_its_own_change(tmp_path: Path) -> None:
    before, after, test = world(np.random.default_rng(11), n_target=6, n_attr=6)
    db = tmp_path / "s.sqlite"
    with closing(Store(db)) as st:
        rows = evaluate(before, after, [test], store=st, out=tmp_path / "eval")
    assert [r["metric"] for r in rows] == list(METRICS)
    with closing(Store(db)) as st:
        for r in rows:
            m, want = r["metric"], r["paired"]["rows"]
            stored = [st.load_run(r[f"run_{side}"]) for side in ("before", "after")]
            saved = [load_result_dir(tmp_path / "eval" / m / test.name / side)
                     for side in ("before", "after")]
            for how, runs in (("store", stored), ("folder", saved)):
                res = compare_runs(*runs)
                assert res.summary["design"] == change_design(m).describe(), (m, how)
                _same(res.tables["change_by_group"].to_dict("records"), want, f"{m} {how}")
            for side, vecs in zip(saved, (before, after), strict=True):  # the rows recorded
                got = sets_from_table(side.tables[WORDS_TABLE])
                for role, rows_ in word_sets(m, vecs, test).items():
                    assert np.array_equal(got[role], rows_), (m, role)


def test_a_run_stored_before_is_recorded_again_with_its_word_rows(tmp_path: Path) -> None:
    """A WEAT run stored without word rows (as `genderscope run weat` stored it before its
    runs recorded them) is reused by the evaluation with the same numbers and recorded
    again with its word rows: compare of the evaluation's run ids reads them; a second
    evaluation reuses that copy."""
    from genderscope.engine import run

    before, after, test = world(np.random.default_rng(12), n_target=6, n_attr=6)
    db = tmp_path / "s.sqlite"
    plain = run("weat", before, store=db, test=test, record=False)
    del plain.tables[WORDS_TABLE]
    with closing(Store(db)) as st:
        plain.metadata["run_id"] = st.record_run(plain)
    with closing(Store(db)) as st:
        first = evaluate(before, after, [test], store=st, out=tmp_path / "a")
    with closing(Store(db)) as st:
        again = evaluate(before, after, [test], store=st, out=tmp_path / "b")
        weat_first, weat_again = first[0], again[0]
        assert weat_first["run_before"] != plain.metadata["run_id"]
        assert weat_again["run_before"] == weat_first["run_before"]
        runs = [st.load_run(weat_first[f"run_{side}"]) for side in ("before", "after")]
        assert runs[0].summary == plain.summary
        _same(compare_runs(*runs).tables["change_by_group"].to_dict("records"),
              weat_first["paired"]["rows"], "weat")


@pytest.fixture
def redeclared() -> Iterator[Callable[[str, Pairing], None]]:
    """``redeclare(name, pairing)``: the registry's declaration of ``name`` replaced by
    one with that pairing, for the test; the original restored after it."""
    from genderscope.core.registry import get, register

    saved: dict[str, Declaration] = {}

    def redeclare(name: str, pairing: Pairing) -> None:
        saved.setdefault(name, get(name))
        register(dataclasses.replace(get(name), pairing=pairing), replace=True)

    yield redeclare
    for declaration in saved.values():
        register(declaration, replace=True)


def test_the_change_design_is_read_from_the_declaration(
        tmp_path: Path, redeclared: Callable[[str, Pairing], None]) -> None:
    """A measure's change design is written once, in its declaration (``pairing.design``):
    with MAC's declared as another crossed design (a third crossed factor named), a plain
    run records that design, the debiased-vector evaluation reports it, and compare of two
    runs (store or folders) takes it, with the same rows as before; with its value column
    declared as one its items lack, a plain run records no word rows."""
    from genderscope.core.registry import get
    from genderscope.engine import run

    before, after, test = world(np.random.default_rng(14), n_target=6, n_attr=6)
    declared = get("mac").pairing
    want = compare_runs(*[run("mac", v, store=tmp_path / "a.sqlite", test=test)
                          for v in (before, after)]).tables["change_by_group"]
    other = dataclasses.replace(declared.design, crossed=("attribute words", "senses"))
    redeclared("mac", dataclasses.replace(declared, design=other))
    runs = [run("mac", v, store=tmp_path / "b.sqlite", test=test, out=tmp_path / side)
            for side, v in (("before", before), ("after", after))]
    assert all(r.metadata["change_design"] == other.describe() for r in runs)
    for pair in (runs, [load_result_dir(tmp_path / side) for side in ("before", "after")]):
        res = compare_runs(*pair)
        assert res.summary["design"] == other.describe()
        got = res.tables["change_by_group"]
        assert set(got["design"]) == {other.describe()}
        _same(got.to_dict("records"), want.to_dict("records"), "mac")
    with closing(Store(tmp_path / "c.sqlite")) as st:
        rows = evaluate(before, after, [test], store=st, out=tmp_path / "eval")
    assert {r["design"] for r in rows[METRICS.index("mac")]["paired"]["rows"]} == \
        {other.describe()}
    redeclared("mac", dataclasses.replace(declared, value="no_such_column"))
    plain = run("mac", before, store=tmp_path / "d.sqlite", test=test)
    assert WORDS_TABLE not in plain.tables and "change_design" not in plain.metadata


def test_runs_without_word_rows_say_the_design_is_not_used(tmp_path: Path) -> None:
    """Two WEAT runs without word rows (stored before plain runs recorded them):
    compared item by item, and the summary says the declared crossed design was not used
    and why."""
    from genderscope.engine import run

    before, after, test = world(np.random.default_rng(13), n_target=6, n_attr=6)
    runs = [run("weat", v, store=tmp_path / "s.sqlite", test=test) for v in (before, after)]
    for r in runs:
        del r.tables[WORDS_TABLE]
    res = compare_runs(*runs)
    assert "design" not in res.summary
    assert change_design("weat").describe() in res.summary["design_note"]
    assert res.tables["change_by_group"]["ci_unit"].iloc[0] == "items"
