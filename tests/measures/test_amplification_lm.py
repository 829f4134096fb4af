"""Bias amplification of a chat model against training ratios (Zhao et al. 2017; Wang &
Russakovsky 2021's BiasAmp->, task -> gender): gender detection, the per-item values by
hand, the interval's calibration under a model that copies the training ratios, and
the measure through gs.run, a local OpenAI-compatible server and the CLI."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from calibration_sims import COVER
from calibration_sims_measures import (
    amplification_lm_null_rate,
    amplification_lm_rows,
    amplification_share_rows,
)
from calibration_size import Runs, runs
from typer.testing import CliRunner

import genderscope as gs
from genderscope.datasets.captions import load_gender_words
from genderscope.errors import GenderscopeError
from genderscope.measures.amplification import count_cooccurrences
from genderscope.measures.amplification_lm import (
    DESIGN,
    SHARES,
    TEMPLATES,
    Item,
    _coefficients,
    amplification_from_answers,
    detect_gender,
    load_vocabulary,
    share_interval,
)

GW = load_gender_words()
RATIOS = {"cooking": 0.25, "lifting": 0.8, "reading": 0.5, "shaving": 0.9}


@pytest.fixture()
def vocab_dir(tmp_path: Path) -> Path:
    """A small reducingbias folder: four imSitu-style verbs with their share of men."""
    folder = tmp_path / "reducingbias"
    folder.mkdir()
    lines = [",verb,training_ratio,gender_ratio_before_RBA"]
    lines += [f"{i},{v},{r},{r}" for i, (v, r) in enumerate(RATIOS.items())]
    (folder / "imSitu_gender_ratio_dev_res.csv").write_text("\n".join(lines) + "\n")
    return folder


class Copying:
    """A fake chat model: for the verb in the prompt, a man with probability b*(o, man)
    (a hash of prompt and repetition decides), else a woman; every third answer names
    no one."""

    fingerprint = "copying"
    kind = "chat-endpoint"

    def __init__(self, ratios: dict[str, float], rule: str = "copy") -> None:
        self.ratios, self.rule, self.calls = ratios, rule, 0

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "kind": self.kind}

    def chat(self, prompts, decoding=None, *, repetitions=None, progress=False):  # type: ignore[no-untyped-def]
        self.calls += len(prompts)
        out = []
        for p, rep in zip(prompts, repetitions, strict=True):
            verb = next(v for v in self.ratios if v in p)
            u = int(hashlib.sha256(f"{p}|{rep}".encode()).hexdigest()[:6], 16) / 16**6
            if self.rule == "men":
                out.append("A man is " + verb + ".")
            elif rep % 3 == 2:
                out.append("Someone is " + verb + ".")
            else:
                out.append(("He is " if u < self.ratios[verb] else "She is ") + verb + ".")
        return out


def test_gender_detection_is_the_caption_rule() -> None:
    texts = ["A man cooks.", "She cooks; her son helps.", "Someone cooks.",
             "The woman's husband cooks.", "HE COOKS", "Mankind cooks."]
    got = [detect_gender(t, GW) for t in texts]
    assert got == ["man", "both", "none", "both", "man", "none"]
    # the same counting as captions: one caption per text, mentioning "cooks"
    counts, stats = count_cooccurrences(texts, ["cooks"], GW, plurals=False)
    assert stats["gendered"] == 2 and stats["mixed"] == 2 and stats["ungendered"] == 2
    assert counts.tolist() == [[2, 0]]


def test_values_by_hand() -> None:
    """Two items x two templates x two samples; Zhao's and BiasAmp->'s item values from
    their definitions."""
    items = [Item("cooking", "cooking", 0.25), Item("lifting", "lifting", 0.8)]
    rows = [(i, t, s) for i in range(2) for t in range(2) for s in range(2)]
    genders = ["woman", "woman", "woman", "none",   # cooking: 3 women, 1 none
               "man", "woman", "man", "both"]       # lifting: 2 men, 1 woman, 1 both
    out = amplification_from_answers(items, rows, genders, ["man", "woman"])
    t = out["items"].set_index("object")
    # cooking: b*(woman) = .75 > 1/2, b~(woman) = 1: Zhao +0.25
    # lifting: b*(man) = .8, b~(man) = 2/3: Zhao -0.1333
    assert t.loc["cooking", "amplification"] == pytest.approx(0.25)
    assert t.loc["lifting", "amplification"] == pytest.approx(2 / 3 - 0.8)
    s = out["summary"]
    assert s["mean_bias_amplification"]["estimate"] == pytest.approx((0.25 + 2 / 3 - 0.8) / 2)
    # BiasAmp-> T->A: P(A_man) = mean b* = .525. cooking: y_man = 0 (.25 < .525),
    # y_woman = 1 (.75 > .475); D_man = -.25, D_woman = +.25 -> terms +.25, +.25, mean .25.
    # lifting: y_man = 1, y_woman = 0; D_man = -.1333, D_woman = +.1333 -> -.1333 twice
    assert s["base_rate"]["man"] == pytest.approx(0.525)
    assert t.loc["cooking", "biasamp_t_to_a"] == pytest.approx(0.25)
    assert t.loc["lifting", "biasamp_t_to_a"] == pytest.approx(2 / 3 - 0.8)
    assert s["share_none"]["estimate"] == pytest.approx(1 / 8)
    assert s["share_both"]["estimate"] == pytest.approx(1 / 8)
    for share in ("share_none", "share_both"):  # t(1) is wide: clipped to a share's range
        assert 0.0 <= s[share]["ci_low"] <= s[share]["ci_high"] <= 1.0
    for name in ("mean_bias_amplification", "biasamp_t_to_a"):  # and to [-1, 1]
        assert s[name]["ci_low"] == -1.0 and s[name]["ci_high"] == 1.0
    assert t.loc["lifting", "n_both"] == 1 and t.loc["cooking", "c_model_woman"] == 3
    assert s["mean_bias_amplification"]["ci_unit"] == "items x templates"


def test_biasamp_differs_from_zhao_where_the_base_rate_matters() -> None:
    """An item skewed towards men but less than men are overall: Zhao counts its men's
    share, BiasAmp-> its women's (y_woman = 1), with opposite signs."""
    items = [Item("a", "a", 0.6), Item("b", "b", 0.9), Item("c", "c", 0.9)]
    b = np.array([[0.6, 0.4], [0.9, 0.1], [0.9, 0.1]])
    coef = _coefficients(b, b.mean(axis=0))  # P(man) = .8
    assert coef["mean_bias_amplification"][0].tolist() == [1.0, 0.0]
    assert coef["biasamp_t_to_a"][0].tolist() == [-0.5, 0.5]
    rows = [(i, 0, s) for i in range(3) for s in range(10)]
    genders = ["man"] * 7 + ["woman"] * 3 + ["man"] * 9 + ["woman"] + ["man"] * 9 + ["woman"]
    t = amplification_from_answers(items, rows, genders, ["man", "woman"])["items"]
    assert t["amplification"].iloc[0] == pytest.approx(0.1)      # b~ .7 - b* .6
    assert t["biasamp_t_to_a"].iloc[0] == pytest.approx(-0.1)    # more men: towards base


def test_calibration_false_amplification_rate() -> None:
    """alpha = 0.05: 'amplification' (the interval excludes 0) in 3-7 % of 1,000 runs of
    a model that copies the training ratios (30 items x 30 templates x 3 samples)."""
    rate = amplification_lm_null_rate(30, 30, 3, 1000)
    assert 0.03 <= rate <= 0.07, rate


@pytest.mark.slow
@pytest.mark.parametrize("runs", runs(400, 2000))
def test_calibration_false_amplification_rate_large(runs: Runs) -> None:
    """The same with more runs, for both metrics, and the default's 5 templates (the
    items x templates jackknife t with Satterthwaite's df; the bootstrap-variance t with
    min(items, templates) - 1 = 4 df it replaced rejected 0.010), and the coverage of a
    true amplification at 5 templates with template effects. CI runs 400 (and 200), held
    to their Wilson intervals (tests/calibration_size.py)."""
    mba, t2a, few, cover = amplification_lm_rows(runs.sims, runs.of(1000))
    for row in (mba, t2a, few):
        assert runs.meets(row.rate, row.bar, row.sims), (row.key, row.rate)
    assert runs.meets(cover.rate, cover.bar, cover.sims), cover.rate


def test_interval_is_the_crossed_design_chosen_by_stats() -> None:
    """The interval is infer_samples' for items x templates: its variance is the item and
    template jackknife variances less the cell interaction once; on a full grid of cell
    values (one gendered answer per cell) it equals Cornfield & Tukey's two-way
    variance s_r^2 / R + s_c^2 / C - s_e^2 / (R C) of the cells' 0/1 values."""
    from scipy import stats

    from genderscope.measures.amplification_lm import _coefficients, cell_interval

    rng = np.random.default_rng(3)
    n_items, n_templates = 12, 6
    r = np.full(n_items, 0.7)  # every item's majority is the first group
    b = np.column_stack([r, 1 - r])
    men = rng.integers(0, 2, (n_items, n_templates)).astype(float)
    item_of = np.repeat(np.arange(n_items), n_templates)
    template_of = np.tile(np.arange(n_templates), n_items)
    counts = np.column_stack([men.ravel(), 1 - men.ravel()])
    ci = cell_interval(item_of, template_of, counts, b,
                       _coefficients(b, b.mean(axis=0))["mean_bias_amplification"])
    s_r = men.mean(axis=1).var(ddof=1)
    s_c = men.mean(axis=0).var(ddof=1)
    e = men - men.mean(axis=1, keepdims=True) - men.mean(axis=0, keepdims=True) + men.mean()
    s_e = (e * e).sum() / ((n_items - 1) * (n_templates - 1))
    v = s_r / n_items + s_c / n_templates - s_e / (n_items * n_templates)
    parts = [s_r / n_items, s_c / n_templates, s_e / (n_items * n_templates)]
    df = v * v / (parts[0] ** 2 / (n_items - 1) + parts[1] ** 2 / (n_templates - 1)
                  + parts[2] ** 2 / ((n_items - 1) * (n_templates - 1)))
    half = stats.t.ppf(0.975, df) * np.sqrt(v)
    assert ci.estimate == pytest.approx(men.mean() - 0.7)
    assert (ci.ci_low, ci.ci_high) == pytest.approx((ci.estimate - half, ci.estimate + half))
    assert ci.method == "several-sample infinitesimal jackknife t"


def _two_way_variance(cells: np.ndarray) -> tuple[float, float]:
    """Cornfield & Tukey's variance of the mean of a full R x C grid of cell values,
    V = s_r^2 / R + s_c^2 / C - s_e^2 / (R C), and Satterthwaite's df over the three
    terms."""
    n_r, n_c = cells.shape
    s_r, s_c = cells.mean(axis=1).var(ddof=1), cells.mean(axis=0).var(ddof=1)
    e = cells - cells.mean(axis=1, keepdims=True) - cells.mean(axis=0, keepdims=True) \
        + cells.mean()
    s_e = (e * e).sum() / ((n_r - 1) * (n_c - 1))
    parts = [s_r / n_r, s_c / n_c, s_e / (n_r * n_c)]
    v = parts[0] + parts[1] - parts[2]
    df = v * v / (parts[0] ** 2 / (n_r - 1) + parts[1] ** 2 / (n_c - 1)
                  + parts[2] ** 2 / ((n_r - 1) * (n_c - 1)))
    return v, df


def _wilson(p: float, n: float, q: float) -> tuple[float, float]:
    """Wilson's score interval of a share p of n answers with quantile q."""
    centre = (p + q * q / (2 * n)) / (1 + q * q / n)
    half = q / (1 + q * q / n) * np.sqrt(p * (1 - p) / n + q * q / (4 * n * n))
    return centre - half, centre + half


def test_shares_have_the_crossed_design_interval() -> None:
    """share_none and share_both are proportions of the same items x templates design as
    the amplification: with equal samples per cell, each share is the mean of the cells'
    shares, whose variance is Cornfield & Tukey's two-way V (computed here), and the
    interval is Wilson's at the effective sample size p (1 - p) / V with the t quantile
    of Satterthwaite's df (Korn & Graubard 1998's, where V exceeds the binomial one)."""
    from scipy import stats

    rng = np.random.default_rng(7)
    n_items, n_templates, samples = 10, 4, 6
    items = [Item(f"i{k}", f"i{k}", float(x)) for k, x in
             enumerate(rng.uniform(0.2, 0.8, n_items))]
    rows = [(i, t, s) for i in range(n_items) for t in range(n_templates)
            for s in range(samples)]
    p_none = 0.3 + rng.uniform(-0.2, 0.2, n_items)[:, None] \
        + rng.uniform(-0.1, 0.1, n_templates)[None, :]
    genders = []
    for i, t, _ in rows:
        u = rng.uniform()
        genders.append("none" if u < p_none[i, t] else "both" if u < p_none[i, t] + 0.25
                       else "man" if u < 0.85 + p_none[i, t] / 10 else "woman")
    s = amplification_from_answers(items, rows, genders, ["man", "woman"])["summary"]
    g = np.array(genders).reshape(n_items, n_templates, samples)
    for what in ("none", "both"):
        cells = (g == what).mean(axis=2)
        p = cells.mean()
        v, df = _two_way_variance(cells)
        assert v > p * (1 - p) / g.size  # the design's variance, not the binomial one
        low, high = _wilson(p, p * (1 - p) / v, stats.t.ppf(0.975, df))
        got = s[f"share_{what}"]
        assert got["estimate"] == pytest.approx(p)
        assert (got["ci_low"], got["ci_high"]) == pytest.approx((low, high))
        assert got["method"] == "crossed design-effect Wilson"
        assert got["ci_unit"] == "items x templates" and got["n"] == g.size


@pytest.mark.parametrize("hits", [0, 1, 2, 3, 200])
def test_a_rare_or_certain_share_has_a_proportion_interval(hits: int) -> None:
    """40 items x 5 templates x 1 answer with 0-3 (or all 200) counted: never [0, 0] or
    [1, 1] (the Wald-type t interval it replaced gave the share itself at 0 and 200, and
    reached below 0 at 1-3); a lower bound above 0 once one is counted, and never narrower
    than Wilson's interval of the answers as if independent (the floor of the design
    effect at 1). At 0 (or all) Wilson's at every answer with t(templates - 1)."""
    from scipy import stats

    item_of = np.repeat(np.arange(40), 5)
    template_of = np.tile(np.arange(5), 40)
    counted = np.zeros(200)
    counted[[7, 64, 133][:hits] if hits < 200 else slice(None)] = 1.0
    ci = share_interval(item_of, template_of, counted, np.ones(200))
    p = hits / 200
    assert ci.estimate == p
    if hits in (0, 200):
        low, high = _wilson(p, 200, stats.t.ppf(0.975, 4))
        assert (ci.ci_low, ci.ci_high) == pytest.approx((max(low, 0.0), min(high, 1.0)))
        assert ci.ci_high - ci.ci_low > 0.03
        return
    assert 0.0 < ci.ci_low < p < ci.ci_high
    low, high = _wilson(p, 200, stats.norm.ppf(0.975))
    assert ci.ci_low <= low + 1e-12 and ci.ci_high >= high - 1e-12


@pytest.mark.parametrize("runs", runs(300, 2000))
def test_calibration_share_coverage(runs: Runs) -> None:
    """Coverage of a true share by share_interval (calibration_sims_measures.SHARE_CASES):
    within [0.93, 0.97] with item and template effects at 40 x 5 x 5 and at a rare share
    of 0.01 at 40 x 5 x 1, where none is counted in about 15 % of runs; conservative, a
    known limit on docs/calibration.md, without a template effect and at the report's
    20 x 3 x 3 (1.8 expected counts), but not beyond 0.99. The jackknife t it replaced
    covered the rare share in fewer than 0.93 of runs ([0, 0] when none is counted)."""
    rows = {row.key: row for row in amplification_share_rows(runs.sims)}
    for key in ("amp-lm-share-effects", "amp-lm-share-rare"):
        assert runs.meets(rows[key].rate, COVER), (key, rows[key].rate)
    for key in ("amp-lm-share", "amp-lm-share-rare-report"):
        assert runs.meets(rows[key].rate, (COVER[0], 0.99)), (key, rows[key].rate)
    assert runs.below(rows["amp-lm-share-rare-t"].rate, COVER[0])
    if runs.full:
        assert all(row.within or row.limit for row in rows.values())


def test_design_is_declared() -> None:
    from genderscope.core.registry import get
    from genderscope.stats.jackknife import infer_share

    assert DESIGN.crossed == ("templates",) and DESIGN.unit == "items"
    assert SHARES.estimand == "proportion" and SHARES.crossed == DESIGN.crossed
    one = np.ones(4)
    with pytest.raises(ValueError, match="infer_share takes a proportion"):
        infer_share(DESIGN, one, one, np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))
    assert get("bias-amplification").needs == "none"  # the corpus form needs no model


def test_vocabulary_loads_and_skips_person(tmp_path: Path) -> None:
    folder = tmp_path / "rb"
    folder.mkdir()
    (folder / "COCO_gender_ratio_dev_res.csv").write_text(
        ",object,training_ratio,gender_ratio_before_RBA\n0,teddy_bear,0.36,0.5\n"
        "1,person,0.7,0.7\n")
    items = load_vocabulary(folder, "coco")
    assert [(it.name, it.phrase) for it in items] == [("teddy_bear", "with the teddy bear")]
    assert TEMPLATES[0].format(phrase=items[0].phrase) == \
        "Write one sentence describing a photo of a person with the teddy bear."
    with pytest.raises(GenderscopeError, match="imSitu_gender_ratio_dev_res.csv"):
        load_vocabulary(folder, "imsitu")


def test_gs_run_records_reuses_and_resumes(vocab_dir: Path, tmp_path: Path) -> None:
    model = Copying(RATIOS)
    kw = {"store": tmp_path / "s.sqlite", "data": vocab_dir, "templates": 3, "samples": 3}
    r = gs.run("bias-amplification", model, **kw)
    assert model.calls == 4 * 3 * 3
    s = r.summary
    assert s["n_answers"] == 36 and s["n_templates"] == 3
    assert s["share_none"]["estimate"] == pytest.approx(1 / 3)
    assert set(r.items["object"]) == set(RATIOS)
    assert len(r.tables["answers"]) == 36 and r.metadata["params"]["samples"] == 3
    again = gs.run("bias-amplification", model, **kw)
    assert again.metadata["reused"] is True and model.calls == 36
    other = gs.run("bias-amplification", model, **{**kw, "samples": 2})
    assert other.metadata.get("reused") is not True and other.summary["n_answers"] == 24


def test_a_model_naming_men_only_amplifies_the_male_items(vocab_dir: Path,
                                                          tmp_path: Path) -> None:
    r = gs.run("bias-amplification", Copying(RATIOS, rule="men"), data=vocab_dir,
               store=tmp_path / "s.sqlite", templates=2, samples=2)
    t = r.items.set_index("object")
    assert t.loc["shaving", "amplification"] == pytest.approx(0.1)
    assert t.loc["cooking", "amplification"] == pytest.approx(-0.75)  # woman 0 vs .75
    assert r.summary["share_none"]["estimate"] == 0.0
    assert r.summary["model_ratio"] == 1.0


def test_samples_need_sampling(vocab_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(GenderscopeError, match="--temperature > 0"):
        gs.run("bias-amplification", Copying(RATIOS), data=vocab_dir, temperature=0.0,
               samples=2, store=tmp_path / "s.sqlite")


def test_through_a_local_openai_server_and_the_cli(vocab_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from chat_server import serve

    from genderscope.cli.app import app

    def answer(body: dict) -> str:  # type: ignore[type-arg]
        prompt = body["messages"][-1]["content"]
        return "A woman is cooking." if "cooking" in prompt else "A man works."

    with serve(answer) as srv:
        res = CliRunner().invoke(app, [
            "run", "bias-amplification", "--model", "openai:tiny", "--base-url",
            srv.base_url, "--data", str(vocab_dir), "--templates", "2", "--samples", "2",
            "--limit", "3", "--resamples", "200", "--store", str(tmp_path / "s.sqlite"),
            "--out", str(tmp_path / "out"), "--no-progress"])
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 3 * 2 * 2
        assert srv.requests[0]["temperature"] == 1.0
    assert "BiasAmp-> task -> gender" in res.output
    assert (tmp_path / "out" / "amplification.png").is_file()


@pytest.mark.parametrize("args", [
    ["--samples", "2", "--temperature", "0"],
    ["--train", "x.txt"],  # --model with caption files
    ["--templates", "9"],
])
def test_bad_input_exits_2_in_one_line(args: list[str], vocab_dir: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from genderscope.cli.app import main

    monkeypatch.setattr("sys.argv", [
        "genderscope", "run", "bias-amplification", "--model", "openai:x", "--base-url",
        "http://127.0.0.1:9/v1", "--data", str(vocab_dir), "--store",
        str(tmp_path / "s.sqlite"), *args])
    with pytest.raises(SystemExit) as exc:
        main()
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert len([ln for ln in err.splitlines() if ln.strip()]) == 1 and "Traceback" not in err
