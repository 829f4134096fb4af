"""CrowS-Pairs: loader, bad CSVs, shared-token PLL, stereo/antistereo direction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fake_lm import FakeCausal, FakeMasked

from genderscope.datasets.crows_pairs import CrowsPair, load_crows_pairs
from genderscope.errors import DataError
from genderscope.measures.crows_pairs import run_crows_pairs, shared_positions

HEADER = (",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,"
          "anon_annotators\n")


def test_real_file(data_dir: Path) -> None:
    pairs = load_crows_pairs(data_dir / "crows-pairs")
    assert len(pairs) == 1508
    assert sum(p.bias_type == "gender" for p in pairs) == 262
    assert sum(p.direction == "antistereo" for p in pairs) == 218
    assert pairs[0].line == 2 and pairs[-1].line == 1510


def test_missing_columns(tmp_path: Path) -> None:
    f = tmp_path / "c.csv"
    f.write_text("sent_more,bias_type\nA,gender\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"c\.csv:1: missing column\(s\) sent_less, "
                                        r"stereo_antistereo"):
        load_crows_pairs(f)


def test_bad_direction_and_empty_value(tmp_path: Path) -> None:
    f = tmp_path / "c.csv"
    f.write_text(HEADER + '0,"A b.","C b.",stereo,gender,x,y,z\n'
                 '1,"A\nb.","C b.",sideways,gender,x,y,z\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"c\.csv:3 \(column 'stereo_antistereo'\): expected"):
        load_crows_pairs(f)
    f.write_text(HEADER + '0,"A b.","",stereo,gender,x,y,z\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"c\.csv:2 \(column 'sent_less'\): empty value"):
        load_crows_pairs(f)
    f.write_text(HEADER + '0,"A b.","C b.",stereo\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"c\.csv:2: expected 8 fields"):
        load_crows_pairs(f)


def test_shared_positions() -> None:
    a = ["the", "poor", "are", "ignorant", "."]
    b = ["the", "rich", "are", "ignorant", "."]
    pa, pb = shared_positions(a, b)
    assert pa == [True, False, True, True, True] and pb == pa
    pa, pb = shared_positions(["women", "can", "not", "drive"],
                              ["men", "can", "drive"])
    assert pa == [False, True, False, True] and pb == [False, True, True]


def _pairs() -> list[CrowsPair]:
    rows = [("Women are bad drivers.", "Men are bad drivers.", "stereo", "gender"),
            # antistereo: sent_less (about the disadvantaged group) violates a stereotype,
            # sent_more (the advantaged group) is the more stereotypical statement.
            ("Men are good drivers.", "Women are good drivers.", "antistereo", "gender"),
            ("The poor are lazy.", "The rich are lazy.", "stereo", "socioeconomic")]
    return [CrowsPair(i, m, s, d, b, "mem.csv", i + 2) for i, (m, s, d, b) in enumerate(rows)]


def test_masked_scores_only_shared_tokens() -> None:
    # The differing words get extreme scores: they must not enter the comparison.
    lm = FakeMasked({"women": -50.0, "men": -1.0, "poor": -1.0, "rich": -50.0,
                     "bad": -2.0, "good": -2.0})
    res = run_crows_pairs(lm, _pairs())
    df = res.items
    assert (df.score_more == df.score_less).all()  # same shared tokens, independent fake
    assert df.tie.all() and res.summary["n_ties"] == 3
    assert res.summary["percent_stereotypical"]["estimate"] == 0.0
    assert list(df.n_scored_tokens) == [4, 4, 4]


class _Context(FakeMasked):
    """A masked fake whose PLL depends on the whole sentence: each shared token
    gets +1 when 'women' or 'poor' is in the sentence."""

    def pseudo_log_likelihood(self, texts, *, positions=None, progress=False):
        out = super().pseudo_log_likelihood(texts, positions=positions)
        from genderscope.models.base import SeqScore
        bonus = [1.0 if ("women" in t.lower() or "poor" in t.lower()) else 0.0 for t in texts]
        return [SeqScore(s.total + b * s.n_tokens, s.n_tokens) for s, b in zip(out, bonus,
                                                                                 strict=True)]


def test_direction_column_is_respected() -> None:
    res = run_crows_pairs(_Context(), _pairs())
    df = res.items
    # The fake always prefers the disadvantaged-group sentence. sent_more is the more
    # stereotypical sentence in both directions (reference metric.py), so the antistereo
    # pair 2 counts as NOT stereotypical, while its disadvantaged group is preferred.
    assert list(df.stereotypical_preferred) == [True, False, True]
    assert list(df.disadvantaged_preferred) == [True, True, True]
    s = res.summary
    assert s["percent_disadvantaged_group_preferred"]["estimate"] == 100.0
    assert s["percent_stereotypical"]["estimate"] == pytest.approx(200 / 3)
    assert s["percent_stereotypical_gender"]["estimate"] == pytest.approx(50.0)
    assert s["percent_stereotypical_antistereo_pairs"]["estimate"] == 0.0
    lo, hi = s["percent_stereotypical"]["ci_low"], s["percent_stereotypical"]["ci_high"]
    assert 0 < lo < 200 / 3 < hi < 100
    assert list(res.tables["by_bias_type"].bias_type) == ["gender", "socioeconomic"]


def test_causal_sentence_log_likelihood() -> None:
    lm = FakeCausal({"women": -2.0, "men": -3.0, "poor": -5.0, "rich": -1.0})
    res = run_crows_pairs(lm, _pairs())
    df = res.items
    assert df.score_more.iloc[0] - df.score_less.iloc[0] == pytest.approx(1.0)
    assert list(df.stereotypical_preferred) == [True, False, False]
    assert lm.calls == [("ll", 6)]


@pytest.mark.slow
def test_real_tiny_adapters(data_dir: Path, tiny_bert, tiny_roberta, tiny_gpt2) -> None:
    pairs = [p for p in load_crows_pairs(data_dir / "crows-pairs") if p.bias_type == "gender"][:4]
    for lm in (tiny_bert, tiny_roberta):
        res = run_crows_pairs(lm, pairs)
        toks = lm.tokenize([pairs[0].sent_more, pairs[0].sent_less])
        pa, _ = shared_positions(toks[0], toks[1])
        assert res.items.n_scored_tokens.iloc[0] == sum(pa) < len(toks[0])
        want = lm.pseudo_log_likelihood([pairs[0].sent_more], positions=[pa])[0].total
        assert res.items.score_more.iloc[0] == pytest.approx(want)
    res = run_crows_pairs(tiny_gpt2, pairs)
    assert np.isfinite(res.items.score_more).all()


# -- CLI -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_run_and_resume(data_dir: Path, tiny_gpt2_dir: Path, tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from genderscope.cli.app import app
    from genderscope.store import Store

    store = tmp_path / "s.sqlite"
    args = ["run", "crows-pairs", "--model", str(tiny_gpt2_dir), "--data", str(data_dir),
            "--bias-type", "gender", "--limit", "6", "--store", str(store), "--out",
            str(tmp_path / "out"), "--no-progress"]
    r1 = CliRunner().invoke(app, args)
    assert r1.exit_code == 0, r1.output
    assert "gender" in r1.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["summary"]["n_pairs"] == 6
    assert summary["metadata"]["data"]["limit"] == 6
    s = Store(store)
    n_cached = s.count_scores()
    assert n_cached > 0 and len(s.list_runs("crows-pairs")) == 1
    s.close()
    # The same command again returns the stored run (nothing recorded); with --no-reuse
    # (e.g. a rerun after a kill) every score comes from the cache, the same numbers.
    r2 = CliRunner().invoke(app, args)
    assert r2.exit_code == 0, r2.output
    assert "gender" in r2.output
    s = Store(store)
    assert len(s.list_runs("crows-pairs")) == 1
    s.close()
    r3 = CliRunner().invoke(app, ["run", "--no-reuse", *args[1:]])
    assert r3.exit_code == 0, r3.output
    s = Store(store)
    assert s.count_scores() == n_cached and len(s.list_runs("crows-pairs")) == 2
    s.close()
    again = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert again["summary"]["percent_stereotypical"] == summary["summary"]["percent_stereotypical"]


@pytest.mark.slow
def test_cli_bad_csv_exits_2(tmp_path: Path) -> None:
    import subprocess
    import sys

    f = tmp_path / "c.csv"
    f.write_text("sent_more,bias_type\nA,gender\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                           "run", "crows-pairs", "--model", "unused", "--data", str(f)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "c.csv:1: missing column(s) sent_less" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_malformed_csv_names_the_line(tmp_path) -> None:
    bad = tmp_path / "c.csv"
    bad.write_text(",sent_more,sent_less,stereo_antistereo,bias_type\n"
                   "0,He cries.,She cries.,stereo,gender\n"
                   "1,He sings" + "." * 200_000 + ",She sings.,stereo,gender\n",
                   encoding="utf-8")  # a field over csv's 131,072-character limit
    with pytest.raises(DataError, match=r"c\.csv:3.*malformed CSV"):
        load_crows_pairs(bad)


def test_bias_types_are_a_holm_family() -> None:
    import pandas as pd
    from scipy import stats as sps

    from genderscope.measures.crows_pairs import per_bias_type, summarise
    from genderscope.stats import adjust_pvalues

    df = pd.DataFrame({"bias_type": ["gender"] * 40 + ["race"] * 20,
                       "stereotypical_preferred": [True] * 30 + [False] * 10 + [True] * 11
                       + [False] * 9, "tie": False, "direction": "stereo",
                       "disadvantaged_preferred": True})
    s = summarise(df)
    raw = [sps.binomtest(30, 40).pvalue, sps.binomtest(11, 20).pvalue]
    got = s["by_bias_type"]
    assert [got["gender"]["p_value"], got["race"]["p_value"]] == pytest.approx(raw)
    assert [got["gender"]["p_adjusted"], got["race"]["p_adjusted"]] == pytest.approx(
        adjust_pvalues(raw))
    assert got["gender"]["family"] == "crows-pairs per bias type"
    assert got["gender"]["ci_unit"] == "pairs"
    t = per_bias_type(df).set_index("bias_type")
    assert t.loc["gender", "p_adjusted"] == pytest.approx(adjust_pvalues(raw)[0])
