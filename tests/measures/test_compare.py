"""Before/after comparison of two runs: arithmetic, tests, errors, CLI, real adapters."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.errors import GenderscopeError
from genderscope.measures.compare import compare_runs, load_result_dir, mcnemar_test
from genderscope.results import Result


def _bec(shift_male: float, shift_female: float, seed: int = 0) -> tuple[Result, Result]:
    rng = np.random.default_rng(seed)
    rows = []
    for g in ("male", "female", "balanced"):
        for i in range(30):
            for gender in ("male", "female"):
                rows.append({"sentence": f"s{g}{i}", "person": f"{gender}{i}",
                             "prof_group": g, "gender": gender,
                             "association": rng.normal()})
    a = pd.DataFrame(rows)
    b = a.copy()
    noise = rng.normal(scale=0.01, size=len(b))
    b["association"] = b["association"] + np.where(b.gender == "male", shift_male,
                                                   shift_female) + noise
    return Result("bec-pro", {}, a), Result("bec-pro", {}, b.sample(frac=1, random_state=1))


def test_bec_pro_change_per_group():
    before, after = _bec(-0.5, 0.0)
    res = compare_runs(before, after, n_resamples=2000)
    t = res.tables["change_by_group"]
    assert res.method == "bec-pro-compare" and res.summary["n_items"] == 180
    assert len(t) == 1 + 6  # all + 3 groups x 2 genders
    male = t[(t.gender == "male") & (t.prof_group == "female")].iloc[0]
    female = t[(t.gender == "female") & (t.prof_group == "female")].iloc[0]
    assert male["change"] == pytest.approx(-0.5, abs=0.01)
    assert male["change_ci_low"] < -0.5 < male["change_ci_high"]
    assert male["p_value"] < 1e-3  # bootstrap-t test: 10,000 resamples, p >= 1e-4
    assert abs(female["change"]) < 0.01 and female["p_value"] > 1e-4
    assert male["n"] == 30


def test_group_rows_carry_holm_and_bh_adjusted_p():
    before, after = _bec(-0.5, 0.0)
    t = compare_runs(before, after, n_resamples=500).tables["change_by_group"]
    groups = t[t.gender != "(all)"]
    from genderscope.stats import adjust_pvalues
    assert groups["p_adjusted"].to_numpy() == pytest.approx(adjust_pvalues(groups["p_value"]))
    assert set(groups.p_adjust_method) == {"holm"}
    assert set(groups.family) == {"compare per prof_group x gender"}
    assert np.isnan(t.iloc[0].get("p_adjusted", np.nan))  # (all) is a single test
    bh = compare_runs(before, after, n_resamples=500, p_adjust="bh").tables["change_by_group"]
    g = bh[bh.gender != "(all)"]
    assert g["p_adjusted"].to_numpy() == pytest.approx(adjust_pvalues(g["p_value"], "bh"))
    with pytest.raises(GenderscopeError, match="p_adjust"):
        compare_runs(before, after, p_adjust="bonferroni")


def test_bec_pro_change_resamples_professions():
    before, after = _bec(-0.5, 0.0)
    # 30 sentence pairs per group come from 3 professions sharing a large effect
    rng = np.random.default_rng(5)
    for r in (before, after):
        r.items["profession_key"] = r.items["sentence"].str[-1].map(lambda c: f"p{int(c) % 3}")
    shift = dict(zip(["p0", "p1", "p2"], rng.normal(0, 2.0, 3), strict=True))
    after.items["association"] += after.items["profession_key"].map(shift)
    res = compare_runs(before, after, n_resamples=1000)
    t = res.tables["change_by_group"]
    row = t[(t.prof_group == "male") & (t.gender == "female")].iloc[0]
    assert row["ci_unit"] == "professions" and row["n_units"] == 3
    plain = compare_runs(Result("bec-pro", {}, before.items.drop(columns="profession_key")),
                         Result("bec-pro", {}, after.items.drop(columns="profession_key")),
                         n_resamples=1000).tables["change_by_group"]
    prow = plain[(plain.prof_group == "male") & (plain.gender == "female")].iloc[0]
    assert prow["ci_unit"] == "items"
    assert (row.change_ci_high - row.change_ci_low) > 2 * (prow.change_ci_high
                                                           - prow.change_ci_low)


def test_crows_pairs_margin_and_mcnemar():
    pairs = pd.DataFrame({"pair_id": range(20), "bias_type": ["gender"] * 10 + ["race"] * 10,
                          "score_more": np.linspace(-10, -5, 20), "score_less": -7.0})
    pairs["stereotypical_preferred"] = pairs.score_more > pairs.score_less
    after = pairs.copy()
    after["score_more"] = after["score_more"] - 3.0
    after["stereotypical_preferred"] = after.score_more > after.score_less
    res = compare_runs(Result("crows-pairs", {}, pairs), Result("crows-pairs", {}, after),
                       n_resamples=500)
    t = res.tables["change_by_group"].set_index("bias_type")
    assert t.loc["gender", "change"] == pytest.approx(-3.0)
    n_flip = int((pairs.stereotypical_preferred & ~after.stereotypical_preferred).sum())
    assert t.loc["(all)", "stereotypical_preferred_true_to_false"] == n_flip > 0
    assert t.loc["(all)", "stereotypical_preferred_false_to_true"] == 0


def _pairs(b: int, c: int, same: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Paired outcomes with b pairs true -> false, c false -> true, ``same`` unchanged."""
    before = np.array([True] * b + [False] * c + [True] * same)
    return before, np.array([False] * b + [True] * c + [True] * same)


@pytest.mark.parametrize(("b", "c"), [(8, 2), (9, 2), (2, 9), (5, 0), (30, 14)])
def test_mcnemar_is_the_mid_p_test(b: int, c: int) -> None:
    """Fagerland et al.'s (2013) mid-p: twice the binomial tail below the smaller count
    plus its point probability, by hand from scipy.stats.binom; below the exact
    conditional p (at 9 vs 2: 0.039 against the exact 0.065, a different decision)."""
    from scipy.stats import binom, binomtest

    mc = mcnemar_test(*_pairs(b, c))
    n, m = b + c, min(b, c)
    by_hand = 2 * sum(binom.pmf(x, n, 0.5) for x in range(m)) + binom.pmf(m, n, 0.5)
    assert (mc["n_true_to_false"], mc["n_false_to_true"], mc["test"]) == (b, c,
                                                                         "mid-p McNemar")
    assert mc["p_value"] == pytest.approx(by_hand, rel=1e-12)
    assert mc["p_value"] < binomtest(b, n, 0.5).pvalue


def test_mcnemar_with_few_discordant_pairs() -> None:
    """At 4 or fewer discordant pairs no mid-p reaches below 0.05 (the smallest is 2^-n):
    no test; at 5 the smallest is 1/32; equal counts give 1 - P(X = b) / 2 (Fagerland et
    al.'s definition where the exact p is 1)."""
    for b, c in [(0, 0), (3, 1), (4, 0), (2, 2)]:
        mc = mcnemar_test(*_pairs(b, c))
        assert mc["test"] == "too few discordant pairs to test" and np.isnan(mc["p_value"])
    assert mcnemar_test(*_pairs(5, 0))["p_value"] == pytest.approx(1 / 32)
    assert mcnemar_test(*_pairs(6, 6))["p_value"] == pytest.approx(1 - 924 / 4096 / 2)


def test_compare_stores_the_mcnemar_test_name() -> None:
    """compare's per-group rows name the test, or say that a group has too few
    discordant pairs (p NaN, left out of the Holm family)."""
    before, after = _pairs(9, 2, same=9)
    gender = np.r_[np.zeros(20, dtype=bool), np.ones(2, dtype=bool)]
    before, after = np.r_[before, True, True], np.r_[after, False, False]

    def run(pref: np.ndarray) -> Result:
        return Result("crows-pairs", {}, pd.DataFrame({
            "pair_id": range(22), "margin": pref * 1.0 + np.arange(22) / 100,
            "bias_type": np.where(gender, "gender", "race"),
            "stereotypical_preferred": pref}))

    t = compare_runs(run(before), run(after), n_resamples=200).tables["change_by_group"]
    t = t.set_index("bias_type")
    assert t.loc["gender", "stereotypical_preferred_mcnemar_test"] == \
        "too few discordant pairs to test"
    assert np.isnan(t.loc["gender", "stereotypical_preferred_mcnemar_p"])
    assert t.loc["race", "stereotypical_preferred_mcnemar_test"] == "mid-p McNemar"
    assert t.loc["race", "stereotypical_preferred_mcnemar_p"] == pytest.approx(79 / 2048)
    assert t.loc["race", "stereotypical_preferred_mcnemar_p_adjusted"] == \
        pytest.approx(79 / 2048)
    assert t.loc["(all)", "stereotypical_preferred_mcnemar_p"] == pytest.approx(
        (2 * (1 + 13) + 78) / 2 ** 13)  # 11 vs 2


def test_mcnemar_matches_the_papers_worked_example() -> None:
    """Fagerland, Lydersen & Laake (2013), Table 1 (Bentur et al.: airway
    hyper-responsiveness before/after stem cell transplantation, 21 children): 1 pair
    AHR -> no AHR, 7 no AHR -> AHR; the paper's exact conditional p 0.070, mid-p 0.039."""
    from scipy.stats import binomtest

    before, after = _pairs(1, 7, same=13)
    mc = mcnemar_test(before, after)
    assert binomtest(1, 8, 0.5).pvalue == pytest.approx(0.070, abs=5e-4)
    assert mc["p_value"] == pytest.approx(0.039, abs=5e-4)


def test_cli_change_table_shows_the_discordant_pairs_beside_the_mcnemar_test() -> None:
    """Two identical CrowS-Pairs runs: the change table's McNemar cell says there are too
    few discordant pairs and how many (0 and 0), not just a blank p."""
    from genderscope.cli.commands.compare import change_rows

    before, after = _pairs(9, 2, same=9)

    def run(pref: np.ndarray) -> Result:
        return Result("crows-pairs", {}, pd.DataFrame({
            "pair_id": range(20), "margin": pref * 1.0, "bias_type": "gender",
            "stereotypical_preferred": pref}))

    same = compare_runs(run(before), run(before), n_resamples=200).tables["change_by_group"]
    _, rows = change_rows(same, ["bias_type"])
    cell = rows[0]["stereotypical preferred mcnemar test"]
    assert cell == "too few discordant pairs to test (0 true→false, 0 false→true)"
    moved = compare_runs(run(before), run(after), n_resamples=200).tables["change_by_group"]
    _, rows = change_rows(moved, ["bias_type"])
    assert rows[0]["stereotypical preferred mcnemar test"] == \
        "mid-p McNemar (9 true→false, 2 false→true)"


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's (1927) score interval by its formula."""
    p = k / n
    mid, half = p + z * z / (2 * n), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)


def test_each_share_before_and_after_has_its_wilson_interval() -> None:
    """gs.compare's "stereotypical preferred" shares before and after each carry a 95 %
    Wilson interval over items, and ``genderscope compare`` prints it beside the share
    (they were bare numbers)."""
    from genderscope.cli.commands.compare import change_rows

    before, after = _pairs(9, 2, same=9)  # 18 of 20 before, 11 of 20 after

    def run(pref: np.ndarray) -> Result:
        return Result("crows-pairs", {}, pd.DataFrame({
            "pair_id": range(20), "margin": pref * 1.0, "bias_type": "gender",
            "stereotypical_preferred": pref}))

    t = compare_runs(run(before), run(after), n_resamples=200).tables["change_by_group"]
    row = t[t.bias_type == "(all)"].iloc[0]
    for when, k in (("before", 18), ("after", 11)):
        assert row[f"stereotypical_preferred_{when}"] == k / 20
        lo, hi = _wilson(k, 20)
        assert row[f"stereotypical_preferred_{when}_ci_low"] == pytest.approx(lo)
        assert row[f"stereotypical_preferred_{when}_ci_high"] == pytest.approx(hi)
    columns, rows = change_rows(t, ["bias_type"])
    assert "stereotypical preferred before [95% CI]" in columns
    lo, hi = _wilson(11, 20)
    assert rows[0]["stereotypical preferred after [95% CI]"] == \
        f"0.550 [{lo:.3f}, {hi:.3f}]"  # [0.342, 0.742]
    old = t.drop(columns=[c for c in t.columns if c.endswith(("_ci_low", "_ci_high"))
                          and c.startswith("stereotypical")])
    assert change_rows(old, ["bias_type"])[1][0][
        "stereotypical preferred before [95% CI]"] == "0.900 (no CI stored)"


def test_runs_show_of_a_comparison_prints_its_change_table(tmp_path: Path) -> None:
    """``genderscope runs show`` of a stored comparison prints the change table compare
    printed, McNemar cell included (it had printed only the summary's scalars: n_items,
    value, ...). The output folder's path is long, as a deep checkout's is: the line that
    names the run keeps its id whole, before the folder (it had wrapped the id onto the
    next line)."""
    from genderscope.cli.app import app

    before, _ = _pairs(9, 2, same=9)
    run = Result("crows-pairs", {}, pd.DataFrame({
        "pair_id": range(20), "margin": before * 1.0, "bias_type": "gender",
        "stereotypical_preferred": before}))
    run.save(tmp_path / "a")
    run.save(tmp_path / "b")
    store, out = str(tmp_path / "s.sqlite"), tmp_path / ("d" * 90) / "cmp"
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                 "--store", store, "--out", str(out),
                                 "--no-plot", "--n-resamples", "200"], terminal_width=200)
    assert r.exit_code == 0, r.output
    saved = re.search(r"^run (\S+) saved to (.+)", r.output, re.MULTILINE | re.DOTALL)
    assert saved and "".join(saved.group(2).split()) == str(out), r.output
    run_id = saved.group(1)
    shown = CliRunner().invoke(app, ["runs", "show", run_id, "--store", store],
                               terminal_width=200)
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())
    assert "too few discordant pairs to test (0 true→false, 0 false→true)" in text
    assert "change [95% CI]" in text


def test_errors():
    before, after = _bec(0.1, 0.1)
    with pytest.raises(GenderscopeError, match="different measures"):
        compare_runs(before, Result("crows-pairs", {}, after.items))
    shifted = after.items.assign(sentence=after.items.sentence + "x")
    with pytest.raises(GenderscopeError, match="share no items"):
        compare_runs(before, Result("bec-pro", {}, shifted))
    with pytest.raises(GenderscopeError, match="lack column"):
        compare_runs(before, Result("bec-pro", {}, after.items.drop(columns="association")))
    dup = pd.concat([before.items, before.items.iloc[:1]])
    with pytest.raises(GenderscopeError, match="not unique"):
        compare_runs(Result("bec-pro", {}, dup), after)
    with pytest.raises(GenderscopeError, match="--key"):
        compare_runs(Result("lpbs", {}, before.items), Result("lpbs", {}, after.items))


def test_explicit_columns_for_any_measure():
    a = pd.DataFrame({"id": [1, 2, 3, 4], "score": [1.0, 2.0, 3.0, 4.0], "g": list("aabb")})
    b = a.assign(score=a.score * 2)
    res = compare_runs(Result("custom", {}, a), Result("custom", {}, b), key=["id"],
                       value="score", groups=["g"], n_resamples=200)
    t = res.tables["change_by_group"].set_index("g")
    assert t.loc["a", "change"] == pytest.approx(1.5) and t.loc["b", "change"] == 3.5


@pytest.mark.slow
def test_cli_compare_store_and_folders(tmp_path):
    from genderscope.cli.app import app
    from genderscope.store import Store

    before, after = _bec(-0.3, 0.0)
    st = Store(tmp_path / "s.sqlite")
    ida, idb = st.record_run(before), st.record_run(after)
    st.close()
    out = tmp_path / "cmp"
    r = CliRunner().invoke(app, ["compare", ida, idb, "--store", str(tmp_path / "s.sqlite"),
                                 "--out", str(out), "--n-resamples", "500"])
    assert r.exit_code == 0, r.output
    assert (out / "change_by_group.csv").exists() and (out / "change.png").exists()
    saved = load_result_dir(out)
    assert saved.method == "bec-pro-compare"
    before.save(tmp_path / "a")
    after.save(tmp_path / "b")
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                 "--out", str(tmp_path / "cmp2"), "--json", "--no-plot",
                                 "--n-resamples", "200"])
    assert r.exit_code == 0, r.output
    assert '"n_items": 180' in r.output


@pytest.mark.slow
@pytest.mark.parametrize("width", [80, 150])
def test_cli_compare_table_whole_at_any_width(tmp_path, width):
    """`genderscope compare` at COLUMNS=80 and 150: no cell cut ("…") or broken across
    lines, every line within the width, every group's numbers printed whole."""
    from genderscope.cli.commands.compare import _fmt

    before, after = _bec(-0.3, 0.0)
    before.save(tmp_path / "a")
    after.save(tmp_path / "b")
    r = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                        "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                        str(tmp_path / "cmp"), "--store", str(tmp_path / "s.sqlite"),
                        "--no-plot", "--n-resamples", "200"], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "COLUMNS": str(width)})
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= width
    tokens = set(re.split(r"[\s│┃┏┓┗┛━─┡┩└┘┬┴┼╇╈┳┻\[\],]+", out))
    t = pd.read_csv(tmp_path / "cmp" / "change_by_group.csv")
    assert len(t) == 7
    expected = {"before", "after", "(holm)", "bootstrap-t", "test", "mean"}
    for _, row in t.iterrows():
        expected |= {str(row.prof_group), str(row.gender), str(row.n)}
        expected |= {_fmt(float(row[c])) for c in ("mean_before", "mean_after", "change",
                                                    "change_ci_low", "change_ci_high",
                                                    "p_value", "effect_size_r")}
        if not np.isnan(row.p_adjusted):
            expected.add(_fmt(float(row.p_adjusted)))
    missing = sorted(w for w in expected if w not in tokens)
    assert not missing, f"cut or broken at {width} columns: {missing[:8]}\n{out}"
    assert ("┃" in out) is (width >= 150)  # one table when it fits, one block per group not


@pytest.mark.slow
def test_cli_compare_bad_input_exit_2(tmp_path):
    before, _ = _bec(0.0, 0.0)
    before.save(tmp_path / "a")
    Result("crows-pairs", {}, pd.DataFrame({"pair_id": [1]})).save(tmp_path / "b")
    r = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                        "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "different measures" in r.stderr
    r = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                        "compare", "nosuchrun", str(tmp_path / "b"), "--store",
                        str(tmp_path / "s.sqlite")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "no run" in r.stderr


@pytest.mark.slow
def test_crows_pairs_before_after_fine_tuning(tiny_gpt2_dir, data_dir, tmp_path):
    """Real adapters: CrowS-Pairs gender on a tiny GPT-2, before vs after CDS fine-tuning."""
    from genderscope.datasets.crows_pairs import load_crows_pairs
    from genderscope.lm_debias.finetune import FinetuneConfig, fine_tune
    from genderscope.measures.crows_pairs import run_crows_pairs
    from genderscope.models.causal import CausalLM
    from genderscope.swap import GenderSwapper

    pairs = [p for p in load_crows_pairs(data_dir / "crows-pairs" /
                                         "crows_pairs_anonymized.csv")
             if p.bias_type == "gender"][:12]
    sw = GenderSwapper(tagger="heuristic")
    corpus = [sw(p.sent_more) for p in pairs]
    fine_tune(str(tiny_gpt2_dir), corpus, tmp_path / "ft",
              config=FinetuneConfig(lr=3e-3, epochs=1))
    before = run_crows_pairs(CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu"), pairs)
    after = run_crows_pairs(CausalLM.from_pretrained(tmp_path / "ft", device="cpu"), pairs)
    res = compare_runs(before, after, n_resamples=500)
    row = res.tables["change_by_group"].iloc[0]
    assert row["n"] == 12 and row["change"] != 0


@pytest.mark.slow
def test_cli_compare_before_after_models(tiny_gpt2_dir, data_dir, tmp_path, monkeypatch):
    """`compare --before M --after M2 --measure crows-pairs` runs the measure on both."""
    from genderscope.cli.app import app
    from genderscope.lm_debias.finetune import FinetuneConfig, fine_tune

    monkeypatch.setenv("GENDERSCOPE_DATA", str(data_dir))
    tuned = tmp_path / "ft"
    fine_tune(str(tiny_gpt2_dir), ["She is a doctor.", "He is a nurse."], tuned,
              config=FinetuneConfig(lr=3e-3, epochs=1))
    out = tmp_path / "cmp"
    r = CliRunner().invoke(app, ["compare", "--before", str(tiny_gpt2_dir), "--after",
                                 str(tuned), "--measure", "crows-pairs",
                                 "--run-arg=--bias-type", "--run-arg=gender",
                                 "--run-arg=--limit", "--run-arg=10", "--out", str(out),
                                 "--n-resamples", "200", "--no-plot", "--store",
                                 str(tmp_path / "s.sqlite")])
    assert r.exit_code == 0, r.output
    assert (out / "before" / "items.csv").exists() and (out / "after" / "items.csv").exists()
    res = load_result_dir(out)
    assert res.method == "crows-pairs-compare" and res.summary["n_items"] == 10
    bad = CliRunner().invoke(app, ["compare", "--before", str(tiny_gpt2_dir)])
    assert isinstance(bad.exception, GenderscopeError)


def test_true_false_items_compare_as_one_and_zero():
    """GAP's ``correct`` is True/False: compare subtracts them as 1/0 (a TypeError before)."""
    a = pd.DataFrame({"id": range(40), "gender": ["f", "m"] * 20,
                      "correct": [True] * 30 + [False] * 10})
    b = a.assign(correct=[True] * 10 + [False] * 30)
    t = compare_runs(Result("gap", {}, a), Result("gap", {}, b),
                     n_resamples=500).tables["change_by_group"].set_index("gender")
    assert t.loc["(all)", "change"] == pytest.approx(-0.5)
    assert t.loc["(all)", "p_value"] < 0.01


def _skewed_runs() -> tuple[Result, Result]:
    """20 items in group 'skewed' whose changes are centred lognormal quantiles (G1 about
    2.2) and 20 in group 'normal' whose changes are normal quantiles."""
    from scipy import stats

    q = stats.norm.ppf((np.arange(20) + 0.5) / 20)
    change = {"skewed": np.exp(q) - np.exp(q).mean(), "normal": q}
    a = pd.DataFrame({"id": range(40), "g": ["skewed"] * 20 + ["normal"] * 20,
                      "score": np.linspace(0.0, 1.0, 40)})
    b = a.assign(score=a.score + np.r_[change["skewed"], change["normal"]])
    return Result("custom", {}, a), Result("custom", {}, b)


def test_change_rows_carry_the_interval_caveat(tmp_path):
    """A row whose item changes are strongly skewed keeps its interval's caveat
    (stats/diagnostics.mean_caveat) in the table, the summary and the CLI's lines; a row
    of normal changes has none."""
    from genderscope.cli.app import app
    from genderscope.cli.commands.compare import change_caveats
    from genderscope.stats.diagnostics import mean_caveat

    before, after = _skewed_runs()
    res = compare_runs(before, after, key=["id"], value="score", groups=["g"],
                       n_resamples=199)
    t = res.tables["change_by_group"].set_index("g")
    d = (after.items.score - before.items.score).to_numpy()
    text = mean_caveat(d[:20], "items")
    assert text is not None and "20 items" in text
    assert t.loc["skewed", "caveat"] == text and pd.isna(t.loc["normal", "caveat"])
    rows = {r["g"]: r for r in res.summary["by_group"]}
    assert rows["skewed"]["caveat"] == text and "caveat" not in rows["normal"]
    whole = mean_caveat(d, "items")  # the (all) row: 40 items, skewed too
    assert whole is not None and t.loc["(all)", "caveat"] == whole
    assert change_caveats(res.summary) == [f"caveat: (all): {whole}",
                                           f"caveat: skewed: {text}"]
    normal = [Result("custom", {}, r.items[r.items.g == "normal"]) for r in (before, after)]
    plain = compare_runs(*normal, key=["id"], value="score", n_resamples=199)
    assert "caveat" not in plain.tables["change_by_group"] and not change_caveats(plain.summary)
    before.save(tmp_path / "a")
    after.save(tmp_path / "b")
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                 "--key", "id", "--value", "score", "--group-by", "g",
                                 "--out", str(tmp_path / "cmp"), "--no-plot",
                                 "--store", str(tmp_path / "s.sqlite"),
                                 "--n-resamples", "199"], env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    assert f"caveat: skewed: {text}" in r.output and "caveat: normal" not in r.output
