"""StereoSet intrasentence: loader, bad JSON, SS/LMS/ICAT arithmetic."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fake_lm import FakeCausal, FakeMasked

from genderscope.datasets.stereoset import StereoSetItem, load_stereoset
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.stereoset import (
    FAMILY,
    filled_context,
    metrics,
    run_stereoset,
    score_items,
    target_scores,
)
from genderscope.stats import adjust_pvalues


def test_real_flat_file(data_dir: Path) -> None:
    items = load_stereoset(data_dir / "stereoset")
    assert len(items) == 2106
    assert sum(it.bias_type == "gender" for it in items) == 255
    assert all("BLANK" in it.context for it in items)
    assert len(load_stereoset(data_dir / "stereoset", bias_types=("gender",))) == 255


def _flat(tmp_path: Path, entries: dict) -> Path:
    f = tmp_path / "s.json"
    f.write_text(json.dumps(entries), encoding="utf-8")
    return f


def _entry(i: int, sent: str, ctx: str = "The nurse is BLANK.") -> dict:
    return {"context": ctx, "sentence": sent, "bias_type": "gender", "label": 0,
            "id": f"id{i}", "target": "nurse"}


def test_bad_json_and_shapes(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text('{"stereotype": [\n  {"context": }\n]}', encoding="utf-8")
    with pytest.raises(DataError, match=r"s\.json:2: invalid JSON at column"):
        load_stereoset(f)
    with pytest.raises(DataError, match="unrecognised StereoSet format"):
        load_stereoset(_flat(tmp_path, {"stereotype": []}))
    with pytest.raises(DataError, match="not aligned"):
        load_stereoset(_flat(tmp_path, {"stereotype": [_entry(0, "a")], "anti-stereotype": [],
                                        "unrelated": []}))
    bad = _entry(0, "x")
    del bad["target"]
    with pytest.raises(DataError, match="item 0 of 'anti-stereotype' lacks key"):
        load_stereoset(_flat(tmp_path, {"stereotype": [_entry(0, "a")],
                                        "anti-stereotype": [bad], "unrelated": [_entry(0, "b")]}))
    with pytest.raises(DataError, match="differs in id or context"):
        load_stereoset(_flat(tmp_path, {"stereotype": [_entry(0, "a")],
                                        "anti-stereotype": [_entry(1, "b")],
                                        "unrelated": [_entry(0, "c")]}))


def test_canonical_format(tmp_path: Path) -> None:
    doc = {"version": "1.0", "data": {"intrasentence": [{
        "id": "x", "target": "nurse", "bias_type": "gender", "context": "The nurse is BLANK.",
        "sentences": [{"sentence": "The nurse is caring.", "gold_label": "stereotype"},
                      {"sentence": "The nurse is rude.", "gold_label": "anti-stereotype"},
                      {"sentence": "The nurse is banana.", "gold_label": "unrelated"}]}]}}
    [it] = load_stereoset(_flat(tmp_path, doc))
    assert (it.stereotype, it.anti_stereotype, it.unrelated) == (
        "The nurse is caring.", "The nurse is rude.", "The nurse is banana.")


def test_target_scores_and_metrics_by_hand() -> None:
    # term a: 2 items, pro = 1, 0; related = 2, 1 -> SS 50, LMS 75
    # term b: 1 item,  pro = 1;    related = 0    -> SS 100, LMS 0
    df = pd.DataFrame({"target": ["a", "a", "b"], "stereo_over_anti": [True, False, True],
                       "n_related": [2, 1, 0]})
    per = target_scores(df)
    assert list(per.target) == ["a", "b"] and list(per.n) == [2, 1]
    assert list(per.ss) == [50.0, 100.0] and list(per.lms) == [75.0, 0.0]
    m = metrics(df, n_resamples=50)
    assert m["ss"]["estimate"] == pytest.approx(75.0)
    assert m["lms"]["estimate"] == pytest.approx(37.5)
    assert m["icat"]["estimate"] == pytest.approx(37.5 * 25 / 50)
    assert m["n_items"] == 3 and m["n_targets"] == 2


def test_ss_and_lms_intervals_stay_within_0_and_100() -> None:
    """Near 100 with few targets a t interval's end passes 100 (and near 0 below 0):
    each end is clipped to the percentage's range; the estimate and p are the t's."""
    from scipy import stats

    # targets' SS: 100, 100, 100, 50 -> mean 87.5, t end above 100; LMS: 0, 0, 0, 50
    df = pd.DataFrame({"target": list("aabbccdd"),
                       "stereo_over_anti": [True, True, True, True, True, True, True, False],
                       "n_related": [0, 0, 0, 0, 0, 0, 2, 0]})
    per = target_scores(df)
    m = metrics(df, n_resamples=50)
    for name, clipped in (("ss", 1), ("lms", 0)):
        lo, hi = stats.ttest_1samp(per[name].to_numpy(float), 0.0).confidence_interval()
        assert lo < 0 or hi > 100  # the unclipped t interval leaves [0, 100]
        assert (m[name]["ci_low"], m[name]["ci_high"]) == pytest.approx(
            (max(lo, 0.0), min(hi, 100.0)))
        assert 0.0 <= m[name]["ci_low"] <= m[name]["estimate"] <= m[name]["ci_high"] <= 100
        assert (m[name]["ci_low"], m[name]["ci_high"])[clipped] in (0.0, 100.0)
    assert m["ss"]["p_value"] == pytest.approx(
        stats.ttest_1samp(per["ss"].to_numpy(float), 50.0).pvalue)


def _items() -> list[StereoSetItem]:
    fills = [("caring", "rude", "banana"), ("gentle", "strong", "purple"),
             ("bossy", "kind", "table")]
    ctx = ["The nurse is BLANK.", "The nurse is BLANK.", "The manager was BLANK today."]
    targets = ["nurse", "nurse", "manager"]
    return [StereoSetItem(f"i{k}", targets[k], "gender" if k < 2 else "profession", ctx[k],
                          *(ctx[k].replace("BLANK", w) for w in f), path="mem", index=k)
            for k, f in enumerate(fills)]


def test_masked_scores_filler_only() -> None:
    lm = FakeMasked({"caring": -1.0, "rude": -2.0, "banana": -3.0,
                     "gentle": -3.0, "strong": -1.0, "purple": -2.0,
                     "bossy": -1.0, "kind": -2.0, "table": -0.5, "nurse": -40.0})
    res = run_stereoset(lm, _items(), n_resamples=200)
    df = res.items
    # default (reference): mean probability of the filler's pieces only
    assert list(df.score_stereotype) == pytest.approx(np.exp([-1.0, -3.0, -1.0]))
    assert lm.calls == [("span:l2r-drop", 9)]
    assert "left out" in res.metadata["params"]["scoring"]
    assert list(df.stereo_over_anti) == [True, False, True]
    assert list(df.n_related) == [2, 1, 0]
    g = res.summary["by_bias_type"]["gender"]
    assert g["ss"]["estimate"] == pytest.approx(50.0) and g["lms"]["estimate"] == 75.0
    assert g["icat"]["estimate"] == pytest.approx(75.0)
    # overall: macro over targets nurse (SS 50, LMS 75) and manager (SS 100, LMS 0)
    o = res.summary["overall"]
    assert o["ss"]["estimate"] == pytest.approx(75.0) and o["lms"]["estimate"] == 37.5
    assert o["icat"]["ci_low"] <= o["icat"]["estimate"] <= o["icat"]["ci_high"]
    assert res.summary["gender"] == g
    pll = run_stereoset(lm, _items(), scoring="pll", n_resamples=50).items
    assert list(pll.score_stereotype) == [-1.0, -3.0, -1.0]  # nats per piece
    with pytest.raises(GenderscopeError, match="unknown StereoSet scoring"):
        run_stereoset(lm, _items(), scoring="mean", n_resamples=50)


def test_causal_mean_per_token() -> None:
    lm = FakeCausal({"caring": -1.0, "rude": -2.0, "banana": -3.0}, default=-1.0)
    res = run_stereoset(lm, _items()[:1], n_resamples=50)
    # "The nurse is caring." = 5 tokens of -1 -> mean -1; rude -> -6/5
    assert res.items.score_stereotype.iloc[0] == pytest.approx(-1.0)
    assert res.items.score_anti_stereotype.iloc[0] == pytest.approx(-1.2)


def test_filled_context_by_character_offsets() -> None:
    assert filled_context("The chess player was BLANK.", "The chess player was hispanic.") \
        == ("The chess player was hispanic.", [(21, 29)])
    # blank first: the filler only, not the next word
    assert filled_context("BLANK are good at math.", "Women are good at math.") == \
        ("Women are good at math.", [(0, 5)])
    # the data set lower-cases some sentences: the context's text is kept
    assert filled_context("The Crimean people I met were BLANK",
                          "The crimean people i met were very boring") == \
        ("The Crimean people I met were very boring", [(30, 41)])
    assert filled_context("x BLANK y BLANK", "x a y a") == ("x a y a", [(2, 3), (6, 7)])
    with pytest.raises(ValueError):
        filled_context("The nurse is BLANK.", "A doctor is kind.")


def test_sentence_off_its_context_is_a_data_error() -> None:
    [it] = _items()[:1]
    bad = StereoSetItem(it.item_id, it.target, it.bias_type, it.context, it.stereotype,
                        "Some other sentence.", it.unrelated, path="mem", index=7)
    with pytest.raises(DataError, match="item 7 .*anti_stereotype sentence does not match"):
        score_items(FakeMasked(), [bad])


def _by_hand(lm, text: str, filler: str, rule: str) -> list[float]:
    """Filler pieces' log P computed directly with the model (torch), and a check
    that the pieces read are exactly the filler's."""
    import torch

    tok, model = lm.tokenizer, lm.model
    start = text.index(filler)
    enc = tok(text, return_offsets_mapping=True)
    ids = enc["input_ids"]
    pieces = [j for j, (a, b) in enumerate(enc["offset_mapping"])
              if 0 < j < len(ids) - 1 and start <= a < start + len(filler)]
    assert tok.decode([ids[j] for j in pieces]).strip() == filler
    out = []
    for k, j in enumerate(pieces):
        later = pieces[k + 1:] if rule != "pll" else []
        inp = [tok.mask_token_id if p == j or p in later else t for p, t in enumerate(ids)]
        if rule == "l2r-drop":
            inp = [t for p, t in enumerate(inp) if p not in later]
        with torch.no_grad():
            logits = model(torch.tensor([inp])).logits[0, j]
        out.append(float(torch.log_softmax(logits.double(), -1)[ids[j]]))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("which", ["tiny_roberta", "tiny_xlmr"])
def test_bpe_and_sentencepiece_score_the_filler_pieces(which: str, request) -> None:
    """Byte-level BPE (RoBERTa, leading-space pieces) and SentencePiece (XLM-R)."""
    lm = request.getfixturevalue(which)
    cases = [("The chess player was BLANK.", ("hispanic", "asian", "table")),
             ("BLANK are good at math.", ("Women", "Men", "Tables"))]
    items = [StereoSetItem(f"i{k}", "t", "gender", ctx,
                           *(ctx.replace("BLANK", f) for f in fills), path="mem", index=k)
             for k, (ctx, fills) in enumerate(cases)]
    for scoring, rule in (("reference", "l2r-drop"), ("l2r", "l2r"), ("pll", "pll")):
        got = score_items(lm, items, scoring=scoring)
        for k, (ctx, fills) in enumerate(cases):
            for c, f in enumerate(fills):
                text = ctx.replace("BLANK", f)
                lp = np.array(_by_hand(lm, text, f, rule))
                span = (text.index(f), text.index(f) + len(f))
                np.testing.assert_allclose(lm.span_logprobs([text], [[span]], rule=rule)[0],
                                           lp, rtol=0, atol=3e-6)
                want = lp.mean() if scoring == "pll" else np.exp(lp).mean()
                assert got[k, c] == pytest.approx(want, rel=1e-5), (scoring, f)


def test_reference_scoring_differs_from_pll_on_multi_piece_fillers(tiny_roberta) -> None:
    text = "The chess player was hispanic."
    ref, l2r, pll = (tiny_roberta.span_logprobs([text], [[(21, 29)]], rule=r)[0]
                     for r in ("l2r-drop", "l2r", "pll"))
    assert len(ref) == len(l2r) == len(pll) > 1
    assert ref[-1] == pytest.approx(l2r[-1])  # the last piece sees the same input
    # a random model is nearly uniform: the inputs differ, so do the values (> 1e-6 nats)
    assert np.abs(ref[:-1] - l2r[:-1]).max() > 1e-6 and np.abs(l2r - pll).max() > 1e-6


def test_real_tiny_adapters(data_dir: Path, tiny_roberta, tiny_gpt2) -> None:
    items = load_stereoset(data_dir / "stereoset", bias_types=("gender",))[:5]
    for lm in (tiny_roberta, tiny_gpt2):
        res = run_stereoset(lm, items, n_resamples=50)
        assert np.isfinite(res.items[["score_stereotype", "score_unrelated"]].to_numpy()).all()
        assert 0 <= res.summary["overall"]["lms"]["estimate"] <= 100


def test_cli(data_dir: Path, tiny_bert_dir: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    r = CliRunner().invoke(app, ["run", "stereoset", "--model", str(tiny_bert_dir),
                                 "--data", str(data_dir), "--bias-type", "gender",
                                 "--limit", "6", "--resamples", "200", "--no-progress",
                                 "--store", str(tmp_path / "s.sqlite"),
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "ICAT" in r.output and (tmp_path / "o" / "by_bias_type.csv").is_file()
    assert "over target terms" in r.output and "p (Holm)" in r.output
    bad = CliRunner().invoke(app, ["run", "stereoset", "--model", str(tiny_bert_dir),
                                   "--data", str(data_dir), "--scoring", "mean",
                                   "--out", str(tmp_path / "bad")])
    assert isinstance(bad.exception, GenderscopeError)  # main() prints it, exit 2
    assert "--scoring mean: choose one of" in str(bad.exception)
    assert not (tmp_path / "bad").exists()


@pytest.mark.slow
def test_smollm2_prefers_meaningful_fillers(data_dir: Path, smollm2) -> None:
    """A real LM should rank meaningful fillers above unrelated ones far above chance (50)."""
    items = load_stereoset(data_dir / "stereoset", bias_types=("gender",))[:40]
    res = run_stereoset(smollm2, items, n_resamples=500)
    assert res.summary["overall"]["lms"]["ci_low"] > 55


def _many_items() -> list[StereoSetItem]:
    """Gender: 5 targets x 4 contexts, stereotype preferred in 3 of 4 for every target
    but one; race: 4 targets x 4 contexts, preferred in 1, 2, 3, 1 of 4."""
    out = []
    for bt, n_t in (("gender", 5), ("race", 4)):
        for t in range(n_t):
            for j in range(4):
                win = (j < (3 if t else 2)) if bt == "gender" else j < 1 + t % 3
                s, a = ("good", "bad") if win else ("bad", "good")
                ctx = f"The {bt}{t} person number {j} is BLANK."
                out.append(StereoSetItem(f"{bt}{t}-{j}", f"{bt}{t}", bt, ctx,
                                         ctx.replace("BLANK", s), ctx.replace("BLANK", a),
                                         ctx.replace("BLANK", "zzz"), path="mem",
                                         index=len(out)))
    return out


def test_intervals_and_tests_are_over_targets() -> None:
    from scipy import stats

    lm = FakeMasked({"good": -1.0, "bad": -2.0, "zzz": -5.0})
    res = run_stereoset(lm, _many_items(), n_resamples=300)
    by = res.summary["by_bias_type"]
    ss_t = np.array([50.0, 75.0, 75.0, 75.0, 75.0])
    g = by["gender"]["ss"]
    assert g["estimate"] == pytest.approx(ss_t.mean())
    # Student-t interval over the 5 target means, not a bootstrap over 20 contexts
    lo, hi = stats.ttest_1samp(ss_t, 50.0).confidence_interval()
    assert (g["ci_low"], g["ci_high"]) == pytest.approx((lo, hi))
    assert g["n"] == 5 and g["n_items"] == 20
    for scope in (by["gender"], by["race"], res.summary["overall"]):
        assert {scope[k]["ci_unit"] for k in ("ss", "lms", "icat")} == {"targets"}
    assert by["gender"]["icat"]["method"] == "cluster percentile bootstrap"
    assert by["gender"]["icat"]["n_units"] == 5
    # SS vs 50 per bias type: t-test over targets, one Holm family over bias types
    assert g["p_value"] == pytest.approx(stats.ttest_1samp(ss_t, 50.0).pvalue)
    raw = [by[bt]["ss"]["p_value"] for bt in ("gender", "race")]
    assert by["race"]["ss"]["estimate"] == 43.75
    adj = adjust_pvalues(raw, "holm")
    for bt, a in zip(("gender", "race"), adj, strict=True):
        assert by[bt]["ss"]["p_adjusted"] == pytest.approx(a)
        assert by[bt]["ss"]["family"] == FAMILY
    t = res.tables["by_bias_type"].set_index("bias_type")
    assert t.loc["gender", "p_adjusted"] == pytest.approx(adj[0])
    assert set(t["ci_unit"]) == {"targets"}


def test_card_reads_adjusted_p_and_compares_over_targets() -> None:
    from genderscope.reporting.cards.stereoset import STEREOSET

    lm = FakeMasked({"good": -1.0, "bad": -2.0, "zzz": -5.0})
    res = run_stereoset(lm, _many_items(), n_resamples=300)
    h = STEREOSET.headlines(res)[0]
    assert h.ci_unit == "targets" and h.family == FAMILY
    assert h.p_adjusted == pytest.approx(res.summary["gender"]["ss"]["p_adjusted"])
    assert "adjusted p" in h.reading()
    pa = STEREOSET.paired(res)
    assert pa.unit == "targets" and pa.clusters.nunique() == 9
    # the paired statistic is the macro mean over targets (the SS estimate)
    assert pa.statistic(pa.frame.to_numpy(float)) == pytest.approx(
        res.summary["overall"]["ss"]["estimate"])
    # a target drawn twice by the cluster bootstrap counts twice
    x = pa.frame.to_numpy(float)
    first = np.flatnonzero(pa.clusters.to_numpy() == "gender0")
    doubled = np.concatenate([np.arange(len(x)), first])
    ss_t = np.r_[50.0, 50.0, np.full(4, 75.0), 25.0, 50.0, 75.0, 25.0]
    assert pa.statistic(x[doubled]) == pytest.approx(ss_t.mean())


def test_bias_bench_scoring_matches_an_independent_reimplementation(tiny_gpt2, tiny_gpt2_dir
                                                                    ) -> None:
    """``--scoring bias-bench`` against a plain transformers re-implementation of
    bias-bench's ``_likelihood_score_generative`` (softmax probabilities, the first token
    after the start token alone, later tokens without it, 2 ** mean log2 p), to 1e-5."""
    import torch
    from transformers import AutoTokenizer, GPT2LMHeadModel

    items = _items()
    res = run_stereoset(tiny_gpt2, items, scoring="bias-bench", n_resamples=100)
    tok = AutoTokenizer.from_pretrained(tiny_gpt2_dir)
    model = GPT2LMHeadModel.from_pretrained(tiny_gpt2_dir).eval()
    with torch.no_grad():
        initial = torch.softmax(model(torch.tensor([[tiny_gpt2.start_token_id]])).logits[0],
                                dim=-1)
    cols = ["score_stereotype", "score_anti_stereotype", "score_unrelated"]
    for it, row in zip(items, res.items[cols].to_numpy(), strict=True):
        for sentence, mine in zip(it.sentences(), row, strict=True):
            tokens = tok.encode(sentence)
            with torch.no_grad():
                out = torch.softmax(model(torch.tensor([tokens])).logits, dim=-1)
            probs = [initial[0, tokens[0]].item()] + [out[0, i - 1, tokens[i]].item()
                                                       for i in range(1, len(tokens))]
            ref = 2.0 ** (np.sum(np.log2(probs)) / len(probs))
            assert np.exp(mine) == pytest.approx(ref, rel=1e-5, abs=1e-12)
    assert res.metadata["params"]["scoring"].startswith("bias-bench")
    default = run_stereoset(tiny_gpt2, items, n_resamples=100).items[cols].to_numpy()
    assert np.abs(default - res.items[cols].to_numpy()).max() > 1e-4  # the rules differ
    with pytest.raises(GenderscopeError, match="causal"):
        score_items(FakeMasked(), items, scoring="bias-bench")


def test_ss_test_of_targets_without_spread_gives_its_limit_and_no_warning() -> None:
    """Targets whose SS are all equal: the t-test's limit (0 away from 50, 1 at 50),
    with no 'precision loss' warning from scipy (issue 26: fixed at its cause)."""
    import warnings

    from scipy import stats

    from genderscope.measures.stereoset import _ss_p_value

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _ss_p_value(np.full(4, 100.0), stats) == 0.0
        assert _ss_p_value(np.full(3, 50.0), stats) == 1.0
        assert np.isnan(_ss_p_value(np.array([60.0]), stats))
        p = _ss_p_value(np.array([40.0, 60.0, 70.0]), stats)
    assert p == pytest.approx(stats.ttest_1samp([40.0, 60.0, 70.0], 50.0).pvalue)


def test_runs_stored_before_the_clip_are_not_served() -> None:
    """SS's and LMS's intervals changed (clipped to [0, 100]), so StereoSet's declared
    version was raised and its reuse key moved: a store holding a run made before (LMS
    94.17 [87.25, 101.08] on SmolLM2's 40 gender items) reruns it rather than serving it."""
    from genderscope.engine.keys import _version, run_key

    args = ("stereoset", {"bias_type": "gender"}, {"fingerprint": "x"}, [1, 2, 3])
    assert _version("stereoset") >= 2
    assert run_key(*args, version=_version("stereoset")) != run_key(*args)
