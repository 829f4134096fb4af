"""The report on a language model and on its debiased folder (issue 29 item 2): SEAT (on
the LM's hidden states, projection applied) and perplexity appear with their numbers,
CIs, Holm and plots, and the two models get tested differences for both."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def gpt2_and_sdb(tmp_path_factory: pytest.TempPathFactory, data_dir: Path
                 ) -> tuple[Path, Path]:
    """A tiny GPT-2 (512 positions: GAP's longest held-out sentence fits its tiny BPE) and
    its SentenceDebias folder (GAP text and bias-bench's words from the test data)."""
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.testing import build_gpt2

    root = tmp_path_factory.mktemp("report-lm-debias")
    base = build_gpt2(root / "gpt2", n_positions=512)
    out = root / "sentence-debias"
    with pytest.MonkeyPatch.context() as mp:  # module scope: before the autouse fixture
        mp.setenv("GENDERSCOPE_DATA", str(data_dir.resolve()))
        debias_lm("sentence-debias", base, out, limit=60, max_pairs=40)
    return base, out


def test_seat_and_perplexity_are_default_lm_measures() -> None:
    from genderscope.reporting.registry import Context, select

    for kind in ("causal", "masked"):
        names = [m.name for m in select(None) if not m.not_applicable(kind, Context())]
        assert {"seat", "perplexity", "crows-pairs", "stereoset", "bec-pro"} <= set(names)


@pytest.mark.slow
def test_report_of_an_lm_and_its_debiased_folder(gpt2_and_sdb, data_dir: Path, tmp_path: Path
                                                 ) -> None:
    from genderscope.reporting import html as page
    from genderscope.reporting.compare import differences
    from genderscope.reporting.registry import Context
    from genderscope.reporting.runner import lm_subject, run_report
    from genderscope.store import Store

    base, sdb = gpt2_and_sdb
    store = Store(tmp_path / "s.sqlite")
    subjects = [lm_subject(str(base), store), lm_subject(str(sdb), store)]
    assert subjects[1].kind == "causal" and "|debias:sentence-debias:" in subjects[1].identity
    assert subjects[0].identity != subjects[1].identity
    data = run_report(subjects, Context(lang="en", quick=True, data_dir=data_dir), store,
                      names=["seat", "perplexity"])
    assert [(s.measure.name, s.status) for s in data.sections] == [
        ("seat", "ok"), ("perplexity", "ok")] * 2, [s.reason for s in data.sections]
    by = {(s.subject.label, s.measure.name): s for s in data.sections}
    for label in (str(base), str(sdb)):
        seat = by[label, "seat"]
        assert [h.label.split(":")[0] for h in seat.headlines] == [
            "sent-weat6", "sent-weat7", "sent-weat8"]
        for h in seat.headlines:  # d with a CI over source words, Holm over the three
            assert math.isfinite(h.estimate) and h.has_ci and h.ci_unit == "source words"
            assert h.p_adjust_method == "holm" and math.isfinite(h.p_adjusted)
        assert seat.result.metadata["model"]["kind"] == "lm-encoder"
        ppl = by[label, "perplexity"].headlines[0]
        assert ppl.null is None and ppl.has_ci and ppl.ci_low <= ppl.estimate <= ppl.ci_high
        for name in ("seat", "perplexity"):  # the paired form gives the headline back
            sec = by[label, name]
            pr = sec.measure.paired(sec.result)
            assert pr.statistic(pr.frame.to_numpy(float)) == pytest.approx(
                sec.headlines[0].estimate, rel=1e-9)
    assert "debias:sentence-debias" in by[str(sdb), "seat"].result.metadata["model"][
        "fingerprint"]
    # the projection changes the hidden states: SEAT's association scores move
    before = by[str(base), "seat"].result.items["association"].to_numpy()
    after = by[str(sdb), "seat"].result.items["association"].to_numpy()
    assert abs(before - after).max() > 1e-3
    diffs = {d.measure: d for d in differences(data, n_resamples=200)}
    assert set(diffs) == {"seat", "perplexity"}
    assert diffs["seat"].ci_unit == "source words" and diffs["perplexity"].ci_unit == \
        "sentences"
    for d in diffs.values():
        assert math.isfinite(d.ci_low) and math.isfinite(d.p_adjusted)
    text = page.write(data, tmp_path / "r.html").read_text()
    assert text.count('<section class="measure status-ok"') == 4
    assert text.count("<svg") >= 4 and "LM hidden states" in text
    store.close()


@pytest.mark.slow
def test_report_command_on_a_debiased_folder(gpt2_and_sdb, tmp_path: Path, capsys,
                                             monkeypatch) -> None:
    """``genderscope report --model DIR`` of a debias folder (it failed with 'no weights
    file' before): SEAT's three tests and perplexity are in the terminal and the page."""
    from genderscope.cli.app import main

    _, sdb = gpt2_and_sdb
    out = tmp_path / "r.html"
    monkeypatch.setattr(sys, "argv", [
        "genderscope", "report", "--model", str(sdb), "--quick", "--measure", "seat",
        "--measure", "perplexity", "--store", str(tmp_path / "s.sqlite"), "--out", str(out)])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    for test in ("sent-weat6", "sent-weat7", "sent-weat8"):
        assert re.search(test + r".*\(d\)", captured.out), captured.out
    assert "perplexity of held-out text" in captured.out
    html = out.read_text()
    assert "SEAT (sentence encoder or LM hidden states)" in html and "Holm" in html
