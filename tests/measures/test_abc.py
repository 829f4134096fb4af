"""ABC (anti-reflexive possessives): loader, bad input, measure arithmetic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fake_lm import FakeCausal, FakeMasked

from genderscope.datasets.abc import LANGS, load_abc, read_groups
from genderscope.datasets.pronouns import load_abc_pronouns
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.abc import _weighted_main_effect, run_abc


def test_genda_lens_files(data_dir: Path) -> None:
    groups = load_abc(data_dir / "genda-lens")
    assert len(groups) == 2 * 2280
    assert all(g.valid for g in groups)
    assert {g.stereotype for g in groups} == {"female", "male"}
    g = groups[0]
    assert g.sentences() == ("bibliotekaren mistede sin tegnebog ved huset.",
                             "bibliotekaren mistede hans tegnebog ved huset.",
                             "bibliotekaren mistede hendes tegnebog ved huset.")
    assert g.occupation == "bibliotekaren" and g.line == 1
    assert groups[1].line == 5


@pytest.mark.parametrize("lang", LANGS)
def test_original_abc_languages(data_dir: Path, lang: str) -> None:
    groups = load_abc(data_dir / "abc", lang=lang)
    assert len(groups) == 4560
    # 60 occupation blocks in the order of the statistics file
    assert groups[0].occupation == "technician" and groups[-1].occupation == "secretary"
    assert {g.stereotype for g in groups} <= {"female", "male", None}
    invalid = sum(not g.valid for g in groups)
    assert invalid < 0.1 * len(groups)  # a few published groups break the pattern (ru, zh)


def test_swedish_block_separators_are_skipped(data_dir: Path) -> None:
    groups = load_abc(data_dir / "abc", lang="sv")
    assert all(len(g.sentences()) == 3 for g in groups)
    assert not any(s.startswith("--") for g in groups for s in g.sentences())


def test_group_not_three_sentences(tmp_path: Path) -> None:
    f = tmp_path / "bad.da"
    f.write_text("a mistede sin pen.\na mistede hans pen.\na mistede hendes pen.\n---\n"
                 "b mistede sin pen.\nb mistede hans pen.\n---\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.da:5: ABC group has 2 sentences"):
        read_groups(f, lang="da")


def test_role_mismatch_flagged_or_strict(tmp_path: Path) -> None:
    f = tmp_path / "x.da"
    f.write_text("a mistede sin pen.\na mistede sin pen.\na mistede hendes pen.\n---\n")
    [(line, sents, valid, problem)] = read_groups(f, lang="da")
    assert not valid and "sentence 2 lacks a male possessive" in problem
    with pytest.raises(DataError, match=r"x\.da:1: sentence 2 lacks"):
        read_groups(f, lang="da", strict=True)


def test_unknown_language(tmp_path: Path, data_dir: Path) -> None:
    with pytest.raises(GenderscopeError, match="no ABC pronoun list for language 'fr'"):
        load_abc_pronouns("fr")
    with pytest.raises(DataError, match="unknown ABC language 'fr'"):
        load_abc(data_dir / "abc", lang="fr")
    with pytest.raises(DataError, match="Danish only"):
        load_abc(data_dir / "genda-lens", lang="sv")
    with pytest.raises(DataError, match="not found"):
        load_abc(tmp_path, lang="da")


def _write_genda(folder: Path) -> Path:
    fem = ("x mistede sin pen.\nx mistede hans pen.\nx mistede hendes pen.\n---\n"
           "x tog sin hat.\nx tog hans hat.\nx tog hendes hat.\n---\n")
    male = "y mistede sin pen.\ny mistede hans pen.\ny mistede hendes pen.\n---\n"
    (folder / "abc_fem_sents.txt").write_text(fem, encoding="utf-8")
    (folder / "abc_male_sents.txt").write_text(male, encoding="utf-8")
    return folder


def test_arithmetic_causal(tmp_path: Path) -> None:
    groups = load_abc(_write_genda(tmp_path))
    # every word -1 except the possessives: sentence LL = -4 + lp(pronoun) (5 words)
    lm = FakeCausal({"sin": -1.0, "hans": -2.0, "hendes": -3.0}, default=-1.0)
    res = run_abc(lm, groups, n_resamples=200)
    df = res.items
    assert list(df.ll_reflexive) == [-5.0, -5.0, -5.0]
    assert list(df.ll_female) == [-7.0, -7.0, -7.0]
    ppl_ref, ppl_m, ppl_f = np.exp(5 / 5), np.exp(6 / 5), np.exp(7 / 5)
    assert df.rel_ppl_male.iloc[0] == pytest.approx(ppl_m - ppl_ref)
    assert df.rel_ppl_female.iloc[0] == pytest.approx(ppl_f - ppl_ref)
    want = np.log2((ppl_f - ppl_ref) / (ppl_m - ppl_ref))
    assert res.summary["main_effect"]["estimate"] == pytest.approx(want)
    assert res.summary["reflexive_preferred_ll"]["estimate"] == 1.0
    assert res.summary["mean_ll_male_minus_female"]["estimate"] == pytest.approx(1.0)
    nu = res.tables["nuance"].set_index(["stereotype", "pronoun"])
    assert nu.loc[("female", "male"), "n"] == 2 and nu.loc[("male", "female"), "n"] == 1
    assert lm.calls == [("ll", 9)]


def test_arithmetic_masked_and_length_effect(tmp_path: Path) -> None:
    groups = load_abc(_write_genda(tmp_path))
    lm = FakeMasked({"sin": -1.0, "hans": -2.0, "hendes": -2.0})
    res = run_abc(lm, groups, n_resamples=100)
    assert lm.calls == [("pll", 9)]
    assert res.summary["main_effect"]["estimate"] == pytest.approx(0.0)
    assert res.summary["mean_ll_male_minus_female"]["estimate"] == pytest.approx(0.0)


def main_effect(rel_female: np.ndarray, rel_male: np.ndarray) -> float:
    return float(_weighted_main_effect(rel_female, rel_male)(np.ones((1, rel_female.size)))[0])


def test_main_effect_undefined_when_median_not_positive() -> None:
    assert np.isnan(main_effect(np.array([-1.0, -2.0]), np.array([1.0, 2.0])))
    # two negative medians: the ratio is positive but meaningless -> NaN
    assert np.isnan(main_effect(np.array([-80.0, -90.0]), np.array([-0.1, -0.2])))
    assert main_effect(np.array([4.0, 4.0]), np.array([1.0, 1.0])) == pytest.approx(2.0)


def test_paired_log_ppl_ratio_defined_when_main_effect_is_not(tmp_path: Path) -> None:
    groups = load_abc(_write_genda(tmp_path))
    # both anti-reflexives score better than the reflexive: rel. perplexities < 0
    lm = FakeCausal({"sin": -3.0, "hans": -1.0, "hendes": -2.0}, default=-1.0)
    res = run_abc(lm, groups, n_resamples=200)
    assert np.isnan(res.summary["main_effect"]["estimate"])  # kept undefined
    r = res.summary["log_ppl_ratio"]
    # log(ppl_f / ppl_m) = (ll_m - ll_f) / 5 = (-5 - -6) / 5
    assert r["estimate"] == pytest.approx(0.2)
    # every group gives the same 0.2: no spread, so no interval (not [0.2, 0.2])
    assert np.isnan(r["ci_low"]) and r["no_interval"].startswith("no spread over")
    assert r["ci_unit"] == "occupations × frames"
    assert res.summary["main_effect"]["ci_unit"] == "occupations × frames"
    assert res.summary["reflexive_preferred_ll"]["ci_unit"] == "occupations × frames"
    # issue 22 row 6: the headline leads with the defined ratio; the main effect says why
    from genderscope.reporting.cards.abc import ABC, headlines

    why = res.summary["main_effect"]["undefined"]
    assert "median relative perplexity female" in why and "<= 0" in why
    hs = headlines(res)
    assert hs[0].label.startswith("median log(ppl female / ppl male")
    assert hs[0].estimate == pytest.approx(0.2)
    assert why in hs[1].label
    paired = ABC.paired(res)
    assert paired.statistic(paired.frame.to_numpy(float)) == pytest.approx(0.2)


def test_invalid_groups_skipped(tmp_path: Path) -> None:
    f = tmp_path / "data" / "COREF_LM"
    f.mkdir(parents=True)
    (f / "coref_lm.da").write_text("a tog sin pen.\na tog hans pen.\na tog hendes pen.\n---\n"
                                   "a tog sin pen.\na tog sin pen.\na tog hendes pen.\n---\n")
    (tmp_path / "Ocupation_stats-1.1.tsv").write_text(
        "Ocupation (english)\tPerc-Da\tPerc-Sv\tPerc-Ru\tPerc-Zh\nnurse\t90\t90\t90\t\n")
    groups = load_abc(tmp_path, lang="da")
    assert [g.stereotype for g in groups] == ["female", "female"]
    res = run_abc(FakeCausal(), groups, n_resamples=50)
    assert res.summary["n_groups"] == 1 and res.summary["n_invalid_skipped"] == 1


def test_stats_file_missing_columns(tmp_path: Path) -> None:
    f = tmp_path / "data" / "COREF_LM"
    f.mkdir(parents=True)
    (f / "coref_lm.da").write_text("a tog sin pen.\na tog hans pen.\na tog hendes pen.\n---\n")
    (tmp_path / "Ocupation_stats-1.1.tsv").write_text("Ocupation (english)\tPerc-Da\nnurse\t9\n")
    with pytest.raises(DataError, match=r"Ocupation_stats-1\.1\.tsv:1: missing columns"):
        load_abc(tmp_path, lang="da")


@pytest.mark.slow
def test_real_tiny_adapters(data_dir: Path, tiny_bert, tiny_gpt2) -> None:
    groups = load_abc(data_dir / "genda-lens")[:3]
    for lm in (tiny_bert, tiny_gpt2):
        res = run_abc(lm, groups, n_resamples=50)
        assert res.summary["n_groups"] == 3
        assert np.isfinite(res.items[["ll_reflexive", "ll_male", "ll_female"]].to_numpy()).all()
    # masked totals are PLLs of the sentences
    pll = tiny_bert.pseudo_log_likelihood([groups[0].male])[0]
    res = run_abc(tiny_bert, groups, n_resamples=50)
    assert res.items.ll_male.iloc[0] == pytest.approx(pll.total)


# -- CLI -------------------------------------------------------------------------------------
def test_cli(data_dir: Path, tiny_gpt2_dir: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    r = CliRunner().invoke(app, ["run", "abc", "--model", str(tiny_gpt2_dir), "--lang", "sv",
                                 "--data", str(data_dir), "--limit", "8", "--resamples", "200",
                                 "--no-progress", "--store", str(tmp_path / "s.sqlite"),
                                 "--out", str(tmp_path / "o"), "--json"])
    assert r.exit_code == 0, r.output
    assert '"n_groups": 8' in r.output


def test_cli_unknown_language_exits_2(data_dir: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                           "run", "abc", "--model", "unused", "--data", str(data_dir),
                           "--lang", "fr"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--lang must be one of da, sv, ru, zh" in proc.stderr


def test_common_length_variant_removes_token_count_effect(tmp_path: Path) -> None:
    """A pronoun split into more, predictable pieces lowers per-token perplexity; the
    common-length variant divides every variant's ll by the reflexive's token count."""
    groups = load_abc(_write_genda(tmp_path))

    class Split(FakeCausal):
        def log_likelihood(self, texts, *, progress=False):
            from genderscope.models.base import SeqScore
            out = super().log_likelihood(texts)
            # "hendes" is two tokens: one more token of log-prob -0.1
            return [SeqScore(s.total - 0.1, s.n_tokens + 1) if "hendes" in t else s
                    for s, t in zip(out, texts, strict=True)]

    lm = Split({"sin": -1.0, "hans": -2.0, "hendes": -2.0}, default=-1.0)
    res = run_abc(lm, groups, n_resamples=100)
    r = res.items.iloc[0]
    assert r.ll_female < r.ll_male  # less likely in total ...
    assert r.ppl_female < r.ppl_male  # ... but lower per-token perplexity
    assert r.ppl_common_female == pytest.approx(np.exp(6.1 / 5))
    assert res.summary["main_effect_common_length"]["estimate"] > 0 > \
        res.summary["main_effect"]["estimate"]
