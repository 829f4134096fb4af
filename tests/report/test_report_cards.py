"""Report cards are named by their measures' declarations (issue 35): each built-in card
is a module of ``reporting/cards/``, its declaration points at it (``card="module:NAME"``)
and places it on the page (``report_order``), a plug-in declaration's own card is on the
page with no change to genderscope, the card modules never import the registry (no
import circle) nor torch, and no source module grows past 400 lines without saying why
at its top."""

from __future__ import annotations

import importlib.metadata
import pkgutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import genderscope
from genderscope.core import registry as declared
from genderscope.errors import GenderscopeError
from genderscope.reporting import registry
from genderscope.reporting.entry import Card, MethodCard

SRC = Path(genderscope.__file__).parent

PAGE = ["crows-pairs", "stereoset", "winobias", "dawinobias", "abc", "bec-pro", "lpbs",
        "probe", "perplexity", "downstream", "weat", "seat", "ripa", "rnd", "ect", "mac",
        "rnsb", "counterfactual", "attack", "bias-amplification", "discrimination-tamkin",
        "bbq", "direct", "diversity-med-qa", "jobs-lum", "hiring-an", "hiring-bloomberg",
        "inventories", "isear", "dreaddit", "relationship-levy", "business-vocabulary",
        "gest", "gest-creative"]
"""The report's sections in page order, as the hand-kept list had them before issue 35."""


def test_every_card_is_named_by_its_declaration_in_page_order() -> None:
    decls = declared.declarations()
    with_card = [d for d in decls.values() if d.card is not None]
    assert list(registry.measures()) == PAGE == [
        d.name for d in sorted(with_card, key=lambda d: d.report_order)]
    assert sorted(set(decls) - set(PAGE)) == ["gap", "genderbench"]  # no card (yet)
    for d in with_card:
        module, _, attr = d.card.partition(":")
        assert module.startswith("genderscope.reporting.cards.") and attr, d.name
        card = registry.measures()[d.name]
        assert card.name == d.name and card.headlines.__module__ == module, d.name
    assert not list((SRC / "measures").glob("*_card.py"))
    assert not (SRC / "measures" / "card_tools.py").exists()


def _card_modules() -> list[str]:
    from genderscope.reporting import cards

    return [f"genderscope.reporting.cards.{m.name}" for m in pkgutil.iter_modules(cards.__path__)]


def test_card_modules_import_neither_the_registry_nor_torch() -> None:
    names = _card_modules()
    assert len(names) == 17  # 16 card modules and card_tools
    code = ("import importlib, sys\n"
            f"for n in {names!r}:\n"
            "    importlib.import_module(n)\n"
            "print('registry' if 'genderscope.reporting.registry' in sys.modules else '-',\n"
            "      'torch' if 'torch' in sys.modules else '-')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["-", "-"]


class _EntryPoint:
    """A ``genderscope.measures`` entry point of an installed plug-in package."""

    def __init__(self, module: str) -> None:
        self.module = module

    def load(self) -> object:
        return importlib.import_module(self.module)


@pytest.fixture()
def plug_in_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as a fresh process finds it with ``plugin_card`` installed."""
    real = importlib.metadata.entry_points

    def entry_points(**kw: object) -> object:
        if kw.get("group") == declared.GROUP:
            return [_EntryPoint("plugin_card")]
        return real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(declared, "_REGISTRY", {})
    monkeypatch.setattr(declared, "_loaded", False)


def test_a_plug_in_declaration_s_own_card_is_on_the_page(plug_in_installed, data_dir: Path,
                                                         store) -> None:
    """A measure declared in another package (an entry point) whose declaration names a
    card of its own module: the report lists it after the built-in cards, runs it
    through the engine and shows its section, headline and column names."""
    from test_report import HashCausal, subject

    from genderscope.reporting import html as page
    from genderscope.reporting.data_check import check_data
    from genderscope.reporting.entry import Context
    from genderscope.reporting.runner import run_report

    assert list(registry.measures()) == [*PAGE, "plug-in-he-she"]
    ctx = Context(quick=True, data_dir=data_dir)
    assert check_data([subject(HashCausal())], ctx, ["plug-in-he-she"]).runs == 1
    data = run_report([subject(HashCausal())], ctx, store,
                      names=["crows-pairs", "plug-in-he-she"])
    sec = {s.measure.name: s for s in data.sections}["plug-in-he-she"]
    assert sec.status == "ok", sec.reason
    assert sec.result.summary["he_minus_she"]["estimate"] == pytest.approx(
        sec.headlines[0].estimate) and len(sec.result.items) == 2  # the card's quick plan
    html = page.render(data)
    assert "Plug-in he/she (a third-party card)" in html
    assert "he − she (nats, plug-in)" in html  # the card's own column name


def test_a_card_pointer_naming_nothing_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import plugin_card

    from genderscope.core.declaration import Declaration
    from genderscope.testing import check_measure

    for pointer, words in (("plugin_card:NOPE", "not found"),
                           ("plugin_card:WORDS", "holds no card named"),
                           ("no_such_module_xyz:CARD", "not found"),
                           ("plugin_card", "is not 'module:NAME'")):
        bad = Declaration(**{**plugin_card.PLUG_IN.__dict__, "card": pointer})
        with pytest.raises(GenderscopeError, match=words) as err:
            registry.card_of(bad)
        assert "\n" not in str(err.value)
        with pytest.raises(AssertionError, match=r"\[declared\] card: .*" + words):
            check_measure(bad)
    assert check_measure(plugin_card.PLUG_IN) == ["declared", "strict-api"]


def test_register_refuses_a_clash_and_replaces_on_request(monkeypatch) -> None:
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.measures()))
    mine = Card(name="probe", title="mine", kinds=("causal",), plan=lambda c: ("probe", {}),
                   headlines=lambda r: [], card=MethodCard(definition="d", citation="c"))
    with pytest.raises(GenderscopeError, match="'probe' is already registered"):
        registry.register(mine)
    assert registry.register(mine, replace=True) is registry.measures()["probe"]


def test_register_refuses_an_entry_without_a_plan(monkeypatch) -> None:
    """A card never runs its measure itself: an entry for a model kind names a plan."""
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.measures()))
    bare = Card(name="bare", title="bare", kinds=("causal",), headlines=lambda r: [],
                   card=MethodCard(definition="d", citation="c"))
    with pytest.raises(GenderscopeError, match="'bare' applies to causal but names no plan"):
        registry.register(bare)


def test_no_module_over_400_lines_without_a_reason() -> None:
    long = []
    for path in sorted(SRC.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        head = "\n".join(lines[:30]).lower()
        if len(lines) > 400 and "over 400 lines because" not in head:
            long.append(f"{path.relative_to(SRC)} ({len(lines)} lines)")
    assert long == [], "add 'Over 400 lines because ...' to the module docstring, or split"


def test_lpbs_paired_form_is_the_word_level_headline(data_dir: Path, store) -> None:
    """With a model whose he/she preference depends on the attribute word, the LPBS
    card's item-level form (for model comparisons) reproduces the headline d, which is
    computed over attribute-word means, not over (template, word) items."""
    import hashlib
    import re

    from fake_lm import FakeMasked, words
    from test_report import subject

    from genderscope.reporting.cards.weat import d_rows as _d
    from genderscope.reporting.entry import Context
    from genderscope.reporting.runner import run_report

    def h(*parts: str) -> float:
        return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:8], 16) / 2**32 - .5

    class Interacting(FakeMasked):
        fingerprint = "interacting-masked"

        def fill_logprobs(self, queries, **kw):
            out = []
            for q in queries:
                visible = words(re.sub(r"\[\[.*?\]\]", " ", q.template))
                out.append(-3.0 + sum(h(q.candidate, w) for w in visible))
            return np.array(out)

    data = run_report([subject(Interacting())], Context(quick=True, data_dir=data_dir),
                      store, names=["lpbs"])
    sec = data.sections[0]
    assert sec.status == "ok", sec.reason
    pr = sec.measure.paired(sec.result)
    assert pr.unit == "attribute words" and len(pr.frame) == sum(
        sec.result.summary["n_words"].values())
    d = sec.headlines[0].estimate
    assert np.isfinite(d) and pr.statistic(pr.frame.to_numpy(float)) == pytest.approx(d)
    items = sec.result.items
    item_level = _d(np.c_[items["lpbs"], items["set"] == sec.result.summary["x"]])
    assert item_level != pytest.approx(d)  # the old, item-pooled form differs


def test_abc_card_shows_the_always_defined_log_ratio() -> None:
    """When the ABC main effect is NaN (a median <= 0), the page still has a number:
    the median log perplexity ratio, with its CI unit."""
    import pandas as pd

    from genderscope.reporting.cards.abc import headlines
    from genderscope.results import Result

    nan = float("nan")
    summary = {"main_effect": {"estimate": nan, "ci_low": nan, "ci_high": nan},
               "log_ppl_ratio": {"estimate": 0.3, "ci_low": 0.1, "ci_high": 0.5,
                                 "ci_unit": "groups", "method": "percentile bootstrap"},
               "mean_ll_male_minus_female": {"estimate": 0.1, "ci_low": -0.1,
                                             "ci_high": 0.3}}
    hs = headlines(Result("abc", summary, pd.DataFrame(), {}))
    assert hs[1].reading() == "Not estimable on these items."
    ratio = hs[0]  # issue 22: the always-defined ratio leads
    assert ratio.primary and ratio.label.startswith("median log(ppl female / ppl male")
    assert ratio.evidence() is True and "resampling groups" in ratio.reading()
