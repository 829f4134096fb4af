"""BEC-Pro and LPBS on the real adapters (tiny random BERT / GPT-2, SmolLM2 in slow
tests), checked against a naive transformers reference, and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.datasets import bec_pro as data
from genderscope.datasets.templates import TargetSets, Template, builtin_tests
from genderscope.errors import GenderscopeError
from genderscope.measures import bec_pro, lpbs
from genderscope.store import Store


@pytest.fixture(scope="module")
def sample_rows() -> list[data.BecProRow]:
    rows = data.generate("en")
    keep = {"taper", "phlebotomist", "director of religious activities", "firefighter"}
    return [r for r in rows if r.profession in keep]


def _naive_first_mask_logprob(model, tok, text: str, word: str) -> float:
    enc = tok(text, return_tensors="pt")
    with torch.inference_mode():
        logits = model(**enc).logits[0]
    pos = (enc["input_ids"][0] == tok.mask_token_id).nonzero()[0, 0]
    (wid,) = tok(word, add_special_tokens=False)["input_ids"]
    return float(torch.log_softmax(logits[pos].double(), -1)[wid])


@pytest.mark.slow
def test_masked_matches_naive_reference(tiny_bert, tiny_bert_dir: Path, sample_rows) -> None:
    """span_masking="word" = the published Sent_TM/Sent_TAM strings, single-piece persons."""
    tok = AutoTokenizer.from_pretrained(tiny_bert_dir)
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert_dir).eval()
    items = bec_pro.score_rows(tiny_bert, sample_rows, span_masking="word")
    checked = 0
    for k, r in enumerate(sample_rows):
        if len(tok.tokenize(r.person)) != 1 or r.row % 7:
            continue
        tm = _naive_first_mask_logprob(model, tok, r.sent_tm, r.person)
        tam = _naive_first_mask_logprob(model, tok, r.sent_tam, r.person)
        assert items.loc[k, "logp_tm"] == pytest.approx(tm, abs=1e-4)
        assert items.loc[k, "association"] == pytest.approx(tm - tam, abs=1e-4)
        checked += 1
    assert checked >= 20


def test_piece_masking_uses_one_mask_per_wordpiece(tiny_bert, tiny_bert_dir: Path,
                                                   sample_rows) -> None:
    tok = AutoTokenizer.from_pretrained(tiny_bert_dir)
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert_dir).eval()
    r = next(x for x in sample_rows if x.profession == "phlebotomist" and x.person == "He")
    n_pieces = len(tok.tokenize("phlebotomist"))
    assert n_pieces > 1  # so "piece" and "word" masking differ
    piece = bec_pro.score_rows(tiny_bert, [r], span_masking="piece")
    word = bec_pro.score_rows(tiny_bert, [r], span_masking="word")
    text = r.sentence.replace("He", "[MASK]", 1).replace(
        "phlebotomist", " ".join(["[MASK]"] * n_pieces))
    ref = _naive_first_mask_logprob(model, tok, text, "he")
    assert piece.loc[0, "logp_tam"] == pytest.approx(ref, abs=1e-4)
    assert word.loc[0, "logp_tam"] != pytest.approx(ref, abs=1e-4)
    assert piece.loc[0, "logp_tm"] == pytest.approx(word.loc[0, "logp_tm"])


@pytest.mark.slow
def test_causal_tiny_gpt2_definition(tiny_gpt2, sample_rows) -> None:
    rows = [r for r in sample_rows if r.template == sample_rows[0].template]
    items = bec_pro.score_rows(tiny_gpt2, rows)
    subjects = list(dict.fromkeys(r.subject for r in rows))
    profs = list(dict.fromkeys(r.profession for r in rows))
    r = rows[5]
    texts = {(q, f): data.fill_template(r.template, q, f) for q in subjects for f in profs}
    ll = dict(zip(texts, [s.total for s in tiny_gpt2.log_likelihood(list(texts.values()))],
                  strict=True))
    p = {k: np.exp(v) for k, v in ll.items()}
    tm = np.log(p[(r.subject, r.profession)] / sum(p[(q, r.profession)] for q in subjects))
    tam = np.log(sum(p[(r.subject, f)] for f in profs) / sum(p.values()))
    assert items.loc[5, "association"] == pytest.approx(tm - tam, abs=1e-6)


def test_lpbs_on_tiny_models(tiny_bert, tiny_gpt2) -> None:
    test = builtin_tests()["career-family"]
    for adapter in (tiny_bert, tiny_gpt2):
        res = lpbs.run(adapter, test, n_permutations=300, n_resamples=200)
        assert len(res.items) == 3 * 16 and np.isfinite(res.items.lpbs).all()
        assert np.isfinite(res.summary["effect_size"])


@pytest.mark.slow
def test_cli_bec_pro_saves_records_and_resumes(tiny_bert_dir: Path, tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    out = tmp_path / "out"
    args = ["run", "bec-pro", "--model", str(tiny_bert_dir), "--limit", "60", "--out",
            str(out), "--store", str(store_path), "--no-progress", "--resamples", "200"]
    runner = CliRunner()
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "BEC-Pro association" in first.output
    assert "Male vs female person words" in first.output
    for name in ("items.csv", "summary.json", "by_group.csv", "gender_tests.csv",
                 "association.png", "association.svg"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method"] == "bec-pro" and summary["metadata"]["data"]["n_rows"] == 60
    store = Store(store_path)
    n_cached = store.count_scores()
    assert n_cached == 120 and len(store.list_runs("bec-pro")) == 1
    store.close()
    second = runner.invoke(app, [*args, "--json"])  # the same run: reused, not recorded
    assert second.exit_code == 0, second.output
    third = runner.invoke(app, ["run", "--no-reuse", *args[1:], "--json"])  # recomputed
    assert third.exit_code == 0, third.output
    store = Store(store_path)
    assert store.count_scores() == n_cached  # everything came from the cache
    assert len(store.list_runs("bec-pro")) == 2
    store.close()
    assert json.loads(second.output)["summary"] == json.loads(third.output)["summary"]


@pytest.mark.slow
def test_cli_lpbs(tiny_gpt2_dir: Path, tmp_path: Path) -> None:
    tpl = tmp_path / "t.txt"
    tpl.write_text("GGG likes XXX.\nGGG thinks about XXX.\n")
    res = CliRunner().invoke(app, ["run", "lpbs", "--model", str(tiny_gpt2_dir), "--test",
                                   "math-arts", "--templates", str(tpl), "--out",
                                   str(tmp_path / "o"), "--no-progress", "--permutations",
                                   "10000", "--resamples", "200"])
    assert res.exit_code == 0, res.output
    assert "LPBS math-arts" in res.output and "word means" in res.output
    saved = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert saved["summary"]["n_templates"] == 2 and saved["summary"]["n_items"] == 32
    # fewer than 10,000 random permutations is refused (Kurita et al. / Caliskan et al.)
    few = CliRunner().invoke(app, ["run", "lpbs", "--model", str(tiny_gpt2_dir), "--out",
                                   str(tmp_path / "o2"), "--permutations", "200"])
    assert "--permutations must be at least 10000" in str(few.exception)  # exit 2 in main()


def _main(*args: str) -> subprocess.CompletedProcess:
    code = "from genderscope.cli.app import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120)


def test_cli_bad_input_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("\t" + "\t".join(data.COLUMNS) + "\n0\tHe is a taper.\t[MASK] is a taper."
                   "\tHe is a [MASK].\t[MASK] is a taper.\t<person subject> is a <profession>."
                   "\tHe\tmale\ttaper\tmale\n")
    res = _main("run", "bec-pro", "--model", "unused", "--data", str(bad))
    assert res.returncode == 2
    assert "bad.tsv:2 (column 'Sent_TAM'): masks do not match" in res.stderr
    assert "Traceback" not in res.stderr
    tpl = tmp_path / "t.txt"
    tpl.write_text("GGG likes cake.\n")
    res = _main("run", "lpbs", "--model", "unused", "--templates", str(tpl))
    assert res.returncode == 2 and "t.txt:1: template 'GGG likes cake.' has no XXX" in res.stderr


@pytest.mark.parametrize("args, msg", [
    (["lpbs", "--test", "nope"], "unknown LPBS test 'nope'"),
    (["bec-pro", "--span-masking", "char"], "--span-masking must be one of piece, word"),
    (["bec-pro", "--lang", "fr"], "--lang must be one of en, de"),
])
def test_cli_bad_options(args: list[str], msg: str) -> None:
    res = CliRunner().invoke(app, ["run", *args, "--model", "unused"])
    assert isinstance(res.exception, GenderscopeError) and msg in str(res.exception)


@pytest.mark.slow
def test_smollm2_bec_pro_and_lpbs(smollm2) -> None:
    profs = {"taper", "plumber", "carpenter", "electrician", "roofer", "receptionist",
             "secretary", "hairdresser", "dietitian", "paralegal"}
    rows = [r for r in data.generate("en") if r.template == "<person subject> is a <profession>."
            and r.profession in profs]
    res = bec_pro.run(smollm2, rows, n_resamples=1000)
    items = res.items
    assert len(items) == 180 and np.isfinite(items.association).all()
    # P(person | Sent_TM) is a distribution over the 18 person subjects of each context
    for prof in ("plumber", "receptionist"):
        tm = items[items.profession == prof]
        assert np.exp(tm.logp_tm).sum() == pytest.approx(1.0, abs=1e-9)
    assert (items.logp_tam < 0).all() and res.summary["male_vs_female"]["male"]["n_pairs"] == 45
    # meaning: a real LM fills "GGG is pregnant." with she rather than he (bias < 0),
    # and the prior correction keeps that sign
    t = Template("GGG is XXX.", TargetSets(("he",), ("she",)))
    scores = lpbs.item_scores(smollm2, [t], ["pregnant", "a mother"])
    assert (scores.bias < 0).all() and (scores.lpbs < 0).all()
    out = lpbs.run(smollm2, builtin_tests()["career-family"], n_permutations=1000,
                   n_resamples=500)
    assert np.isfinite(out.summary["effect_size"]) and len(out.items) == 48
