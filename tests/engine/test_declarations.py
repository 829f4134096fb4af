"""Every measure is declared once (issue 35): the conformance suite
(:func:`genderscope.testing.check_measure`) over every registry entry, and on a measure
declared outside genderscope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import genderscope as gs
from genderscope.api import measures
from genderscope.core import registry
from genderscope.core.declaration import Plan, declaration
from genderscope.core.options import Option, Options
from genderscope.errors import GenderscopeError
from genderscope.results import Result
from genderscope.testing import check_measure


@pytest.mark.parametrize("name", registry.names())
def test_every_registry_entry_passes_check_measure(name: str) -> None:
    assert check_measure(name) == ["declared", "strict-api", "cli"]


def _count_items(calls: list[int], *, help_text: str = "How many items.",
                 ignores_n: bool = False) -> Any:
    def plan(*, n: int = 3, seed: int = 0, progress: bool = False) -> Plan:
        items = list(range(3 if ignores_n else n))

        def run(_: Any) -> Result:
            calls.append(n)
            return Result("count", {"n": {"estimate": float(len(items)), "ci_low": 0.0,
                                          "ci_high": float(n)}}, pd.DataFrame({"i": items}))

        return Plan("count", "none", run, inputs=items,
                    key_options={"n": None} if ignores_n else {})

    return declaration("count-items", plan, needs="none", doc="Count items.",
                       options=Options((Option("n", 3, help_text, type="int", min=1),
                                        Option("seed", 0, "Unused seed.", type="int", min=0),
                                        Option("progress", False, "Progress bar.",
                                               type="bool", key=False))))


def test_a_measure_declared_outside_genderscope_runs_with_no_other_change(
        tmp_path: Path) -> None:
    """A plug-in declaration: registered, listed, checked, run through the engine and
    reused; a changed option is a new run."""
    calls: list[int] = []
    decl = _count_items(calls)
    assert check_measure(decl, example={"model": None, "options": {"n": 4}}) == \
        ["declared", "strict-api", "reuse"]
    registry.register(decl)
    try:
        assert "count-items" in measures()
        first = gs.run("count-items", n=4, store=tmp_path / "s.sqlite")
        again = gs.run("count-items", n=4, store=tmp_path / "s.sqlite")
        other = gs.run("count-items", n=5, store=tmp_path / "s.sqlite")
        assert again.metadata["reused"] is True and first.summary == again.summary
        assert other.summary["n"]["ci_high"] == 5.0
        with pytest.raises(GenderscopeError, match="^n must be at least 1"):  # its keyword
            gs.run("count-items", n=0, store=tmp_path / "s.sqlite")
    finally:
        registry.unregister("count-items")


def test_check_measure_finds_what_it_looks_for() -> None:
    """A declaration without help fails; one whose reuse key loses an option (its plan
    keys ``n`` as None, and its items do not depend on it) fails."""
    with pytest.raises(AssertionError, match="option n: no help text"):
        check_measure(_count_items([], help_text=""))
    with pytest.raises(AssertionError, match="--n 5 gives the same reuse key as 4"):
        check_measure(_count_items([], ignores_n=True),
                      example={"model": None, "options": {"n": 4}})


def _read_items(*, by_path: bool) -> Any:
    """A plug-in measure reading ``--data`` (a text file); its plan keys the lines, or,
    ``by_path``, the file's path too (as keys did before issue 35)."""
    def plan(*, data: Path | None = None, progress: bool = False) -> Plan:
        lines = Path(str(data)).read_text(encoding="utf-8").split()

        def run(_: Any) -> Result:
            return Result("read-items", {"n": {"estimate": float(len(lines)), "ci_low": 0.0,
                                               "ci_high": float(len(lines))}},
                          pd.DataFrame({"line": lines}))

        return Plan("read-items", "none", run,
                    inputs={"lines": lines, **({"path": str(data)} if by_path else {})})

    return declaration("read-items", plan, needs="none", doc="Read items.",
                       options=Options((Option("data", None, "The items file.", type="path",
                                               key=False),
                                        Option("progress", False, "Progress bar.",
                                               type="bool", key=False))))


def test_check_measure_finds_a_key_that_holds_where_the_data_lies(tmp_path: Path) -> None:
    (tmp_path / "items.txt").write_text("a b c\n", encoding="utf-8")
    example = {"model": None, "options": {"data": tmp_path / "items.txt"}}
    assert check_measure(_read_items(by_path=False), example=example) == \
        ["declared", "strict-api", "reuse"]
    with pytest.raises(AssertionError, match="--data copied to another folder gives another "
                                             "reuse key"):
        check_measure(_read_items(by_path=True), example=example)


def test_a_generated_run_command_is_gs_run(tmp_path: Path, tiny_gpt2_dir: Path) -> None:
    """``genderscope run probe`` (made from the declaration alone) gives gs.run's run."""
    import json

    from typer.testing import CliRunner

    from genderscope.cli.app import app

    store = tmp_path / "s.sqlite"
    res = CliRunner().invoke(app, ["run", "probe", "--model", str(tiny_gpt2_dir), "--targets",
                                   "nurse", "--targets", "engineer", "--store", str(store),
                                   "--out", str(tmp_path / "out"), "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    shown = json.loads(res.output)
    api = gs.run("probe", model=str(tiny_gpt2_dir), targets=["nurse", "engineer"],
                 store=store)
    assert api.metadata["reused"] is True and shown["run_id"] == api.metadata["run_id"]
    assert list(api.items["target"]) == ["nurse", "engineer"]


def test_every_docs_page_s_options_table_is_current() -> None:
    """docs/measures/*.md's options tables, "Interval and test" and "In the report" blocks
    are rendered from the declarations (the last from the report card each names)."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, str(repo / "scripts" / "options_tables.py"),
                          "--check"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    from genderscope.core.registry import declarations

    for name, d in declarations().items():  # every measure has a page with its table
        page = (repo / "docs" / "measures" / d.docs_page).read_text(encoding="utf-8")
        assert f"`genderscope run {name}`" in page.split("<!-- options:start -->")[1]
        block = page.split("<!-- statistics:start -->")[1].split("<!-- statistics:end -->")[0]
        assert f"`genderscope run {name}`" in block
        if d.card is not None:  # its report card, as the report prints it
            from genderscope.reporting.registry import card_of

            card = page.split("<!-- card:start -->")[1].split("<!-- card:end -->")[0]
            assert f"`genderscope run {name}`" in card
            assert " ".join(card_of(d).card.citation.split()) in card


def test_a_plan_called_directly_checks_its_declared_options() -> None:
    """``declaration.plan(...)`` refuses what ``gs.run`` refuses (the core checks the
    declared options once, so no plan repeats a declared bound): a plug-in's plan that
    checks nothing itself, and every int option with a minimum of every registry entry,
    one below it."""
    calls: list[int] = []
    decl = _count_items(calls)
    with pytest.raises(GenderscopeError, match="--n must be at least 1, got 0"):
        decl.plan(n=0)
    with pytest.raises(GenderscopeError, match="unknown option"):
        decl.plan(no_such_option=1)
    with pytest.raises(TypeError, match="n must be a whole number"):
        decl.plan(n="3")
    assert decl.plan(n=2).inputs == [0, 1] and calls == []
    for d in registry.declarations().values():
        for o in d.options:
            if o.type == "int" and o.min is not None:
                with pytest.raises(GenderscopeError, match=f"{o.flag} must be at least"):
                    d.plan(**{o.name: int(o.min) - 1})


def test_declared_choices_are_the_measures_own() -> None:
    """The plans no longer check these choices themselves: the declared ones must be
    exactly what the adapters and measures accept."""
    import typing

    from genderscope.core.declaration import SpanMasking, Strategy
    from genderscope.measures.embedding_metrics.rnd import DISTANCES
    from genderscope.models import base

    assert Strategy.__metadata__[0].choices == base.STRATEGIES
    assert SpanMasking.__metadata__[0].choices == typing.get_args(base.SpanMasking)
    assert registry.get("rnd").options["distance"].choices == DISTANCES


def test_a_raised_version_changes_the_reuse_key() -> None:
    """A measure whose stored numbers changed on purpose raises its declared version, and
    its reuse key changes with it (a store made before is never served for it); version
    1 adds nothing to the key, so measures never raised keep theirs."""
    from genderscope.engine.keys import run_key

    args = ("weat", {"test": "weat6"}, {"fingerprint": "x"}, [1, 2, 3])
    assert run_key(*args) == run_key(*args, version=1)
    assert run_key(*args, version=2) != run_key(*args)
    assert registry.get("weat").version == 3 and registry.get("crows-pairs").version == 1


def test_an_unknown_measure_name_suggests_the_near_one() -> None:
    """``gs.run`` and the report name the measure a typo was near, and only then."""
    from genderscope.core.registry import get
    from genderscope.reporting.registry import select

    with pytest.raises(GenderscopeError, match=r"'weatt'; did you mean 'weat'\? choose"):
        get("weatt")
    with pytest.raises(GenderscopeError, match=r"did you mean 'crows-pairs'\?"):
        select(["crows-pair"])
    for typed in ("CrowS-Pairs", "WEAT"):  # the papers' spelling: case aside, the same
        with pytest.raises(GenderscopeError, match=rf"did you mean '{typed.lower()}'"):
            get(typed)
        with pytest.raises(GenderscopeError, match=rf"did you mean '{typed.lower()}'"):
            select([typed])
    with pytest.raises(GenderscopeError) as far:
        get("nothing-like-it")
    assert "did you mean" not in str(far.value)
