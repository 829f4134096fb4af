"""Report cards live beside their measures: each built-in entry comes from a
``measures/<name>_card.py`` module next to ``measures/<name>.py``, the card modules
never import the registry (no import circle) nor torch, and no source module grows
past 400 lines without saying why at its top."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import genderscope
from genderscope.errors import GenderscopeError
from genderscope.reporting import registry
from genderscope.reporting.entry import Card, MethodCard

SRC = Path(genderscope.__file__).parent


FAMILIES = {"wefe_metrics_card": "embedding_metrics", "chat_probes_card": "genderbench"}
"""Cards of a family of measures: beside the family's package."""


def test_every_entry_comes_from_a_card_beside_its_measure() -> None:
    entries = registry.measures()
    assert list(entries)[:3] == ["crows-pairs", "stereoset", "winobias"]  # page order
    for name in registry.BUILTIN_CARDS:
        assert name.endswith("_card")
        base = SRC / "measures" / FAMILIES.get(name, name[:-len("_card")])
        assert base.with_suffix(".py").is_file() or (base / "__init__.py").is_file(), name
    for m in entries.values():
        module = m.headlines.__module__
        assert module.startswith("genderscope.measures.") and module.endswith("_card"), m.name
    assert not (SRC / "report" / "entries.py").exists()


def test_card_modules_import_neither_the_registry_nor_torch() -> None:
    code = ("import importlib, sys\n"
            "from genderscope.reporting.registry import BUILTIN_CARDS\n"
            "del sys.modules['genderscope.reporting.registry']\n"
            "for n in BUILTIN_CARDS:\n"
            "    importlib.import_module('genderscope.measures.' + n)\n"
            "print('registry' if 'genderscope.reporting.registry' in sys.modules else '-',\n"
            "      'torch' if 'torch' in sys.modules else '-')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["-", "-"]


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

    from genderscope.measures.weat_card import d_rows as _d
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

    from genderscope.measures.abc_card import headlines
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
