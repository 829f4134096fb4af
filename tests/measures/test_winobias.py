"""WinoBias / DaWinoBias: loaders, bad input, measure arithmetic, real adapters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fake_lm import FakeCausal, FakeMasked

from genderscope.datasets.pronouns import load_pronouns
from genderscope.datasets.winobias import load_dawinobias, load_winobias, parse_line, read_file
from genderscope.errors import DataError, GenderscopeError
from genderscope.measures.winobias import f1_scores, run_winobias


# -- loaders on the real files ---------------------------------------------------------
def test_load_winobias_counts(data_dir: Path) -> None:
    items = load_winobias(data_dir / "winobias", split="all")
    assert len(items) == 8 * 396
    test = load_winobias(data_dir / "winobias", split="test")
    assert len(test) == 4 * 396
    first = items[0]
    assert first.template == ("The developer argued with the designer because {target} did not "
                              "like the design.")
    assert (first.pronoun, first.gender, first.condition, first.occupation) == \
        ("he", "male", "pro", "The developer")
    assert first.line == 1 and first.wb_type == 1 and first.split == "dev"
    # Lines like "[The developer] ... [he] needed to cut [his] hair" keep the count.
    assert any(it.n_pronouns == 2 for it in items)
    assert all("[" not in it.text and "]" not in it.text for it in items)


def test_load_dawinobias_both_sources_agree(data_dir: Path) -> None:
    genda = load_dawinobias(data_dir / "genda-lens")
    orig = load_dawinobias(data_dir / "dawinobias-original")
    assert len(genda) == len(orig) == 2 * 674
    assert [i.template for i in genda] == [i.template for i in orig]
    assert len(load_dawinobias(data_dir / "genda-lens", split="dev")) == 2 * 342
    # The one published line whose pronoun is not bracketed is repaired, not dropped.
    rep = [i for i in genda if i.repaired]
    assert len(rep) == 2 and {i.pronoun for i in rep} == {"han", "hun"}
    assert rep[0].line == 431


# -- bad input ---------------------------------------------------------------------------
def _parse(line: str, lang: str = "en", numbered: bool = True):
    return parse_line(line, pronouns=load_pronouns(lang), path="x.txt", line=7,
                      numbered=numbered, condition="pro", wb_type=1, split="dev")


@pytest.mark.parametrize("line, msg", [
    ("1 [The nurse] helped [him because he was ill.", "unbalanced"),
    ("1 [The nurse] helped [[him]].", "nested"),
    ("1 The nurse helped him.", "no occupation in square brackets"),
    ("1 [The nurse] helped the cook.", "no bracketed pronoun"),
    ("[The nurse] helped [him].", "running number"),
])
def test_bad_lines_name_file_and_line(line: str, msg: str) -> None:
    with pytest.raises(DataError, match=rf"x\.txt:7: .*{msg}"):
        _parse(line)


def test_unknown_language() -> None:
    with pytest.raises(GenderscopeError, match="no pronoun list for language 'xx'"):
        load_pronouns("xx")


def test_malformed_file_reports_line(tmp_path: Path) -> None:
    f = tmp_path / "pro_stereotyped_type1.txt.dev"
    f.write_text("1 [The cook] hired the clerk because [he] was busy.\n"
                 "2 [The cook] hired the clerk because [he was busy.\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{f.name}:2: unbalanced"):
        read_file(f, lang="en", condition="pro", wb_type=1, split="dev", numbered=True)
    with pytest.raises(DataError, match="not found"):
        load_winobias(tmp_path / "empty", split="dev")
    with pytest.raises(DataError, match="unknown split"):
        load_winobias(tmp_path, split="train")
    with pytest.raises(DataError, match="no DaWinoBias files"):
        load_dawinobias(tmp_path)


def test_capitalised_pronoun_and_repair() -> None:
    it = _parse("He said [the nurse] was late because [She] overslept.", numbered=False)
    assert it.pronoun == "She" and it.capitalized and it.gender == "female"
    it = _parse("[Sælgeren] forsøgte, og hun lykkedes.", lang="da", numbered=False)
    assert it.repaired and it.template == "Sælgeren forsøgte, og {target} lykkedes."
    with pytest.raises(DataError, match="2 unbracketed"):
        _parse("[Sælgeren] sagde at han og hun kom.", lang="da", numbered=False)


# -- arithmetic with fake models ----------------------------------------------------------
def _items(tmp_path: Path):
    """4 pro + 4 anti sentences: gold pronouns pro = he, she, he, his; anti = she, he, she, her."""
    pro = ["1 [The cook] left because [he] was tired.",
           "2 The cook met [the nurse] because [she] was sick.",
           "3 [The chief] smiled because [he] won.",
           "4 [The chief] lost [his] keys and the clerk found them."]
    anti = ["1 [The cook] left because [she] was tired.",
            "2 The cook met [the nurse] because [he] was sick.",
            "3 [The chief] smiled because [she] won.",
            "4 [The chief] lost [her] keys and the clerk found them."]
    for cond, lines in (("pro", pro), ("anti", anti)):
        (tmp_path / f"{cond}_stereotyped_type1.txt.dev").write_text("\n".join(lines) + "\n")
    return load_winobias(tmp_path, split="dev", types=(1,))


def test_masked_always_male(tmp_path: Path) -> None:
    items = _items(tmp_path)
    lm = FakeMasked({"he": -1.0, "his": -1.5, "she": -4.0, "her": -4.0})
    res = run_winobias(lm, items, n_resamples=200)
    df = res.items
    assert set(df.pred_gender) == {"male"}
    # pro: golds m, f, m, m -> 3/4 correct; anti: f, m, f, f -> 1/4 correct
    assert res.summary["accuracy_pro"]["estimate"] == pytest.approx(0.75)
    assert res.summary["accuracy_anti"]["estimate"] == pytest.approx(0.25)
    assert res.summary["main_effect"]["estimate"] == pytest.approx(np.log2(0.75 / 0.25))
    assert res.summary["difference_pro_minus_anti"]["estimate"] == pytest.approx(0.5)
    # macro F1 pro: male F1 = 2*3/(6+1+0) = 6/7, female F1 = 0 -> 3/7
    assert res.summary["macro_f1_pro"]["estimate"] == pytest.approx(3 / 7)
    nu = res.tables["nuance"].set_index(["condition", "pronoun_gender"])
    assert nu.loc[("pro", "male"), "accuracy"] == 1.0
    assert nu.loc[("anti", "female"), "accuracy"] == 0.0
    # Each distinct template is scored once over the 8 English forms.
    assert lm.calls == [("fill", res.summary["n_distinct_templates"] * 8)]
    assert res.summary["n_distinct_templates"] == 4
    lo, hi = res.summary["main_effect"]["ci_low"], res.summary["main_effect"]["ci_high"]
    assert lo <= res.summary["main_effect"]["estimate"] <= hi


def test_causal_uses_full_sentence_likelihood(tmp_path: Path) -> None:
    items = _items(tmp_path)
    # "she" alone is more likely, but "sick" makes female variants of item 2 less likely
    # only through the pronoun: the fake scores words independently, so the argmax is "she"/"her".
    lm = FakeCausal({"she": -1.0, "her": -1.2, "he": -2.0, "his": -2.5, "him": -2.4})
    res = run_winobias(lm, items, n_resamples=200)
    assert set(res.items.pred) <= {"she", "her"}
    assert res.summary["accuracy_pro"]["estimate"] == pytest.approx(0.25)
    assert res.summary["accuracy_anti"]["estimate"] == pytest.approx(0.75)
    assert res.summary["main_effect"]["estimate"] == pytest.approx(np.log2(1 / 3))
    assert lm.calls == [("ll", 4 * 8)]


def test_multi_pronoun_items_excluded(tmp_path: Path) -> None:
    (tmp_path / "pro_stereotyped_type1.txt.dev").write_text(
        "1 [The cook] left because [he] lost [his] hat.\n2 [The cook] left because [he] ran.\n")
    (tmp_path / "anti_stereotyped_type1.txt.dev").write_text(
        "1 [The cook] left because [she] lost [her] hat.\n2 [The cook] left because [she] ran.\n")
    items = load_winobias(tmp_path, split="dev", types=(1,))
    res = run_winobias(FakeMasked({"he": -1.0}), items, n_resamples=100)
    assert res.summary["n_excluded_multi_pronoun"] == 2 and res.summary["n_items"] == 2
    res = run_winobias(FakeMasked({"he": -1.0}), items, n_resamples=100,
                       exclude_multi_pronoun=False)
    assert res.summary["n_items"] == 4


def test_f1_matches_sklearn() -> None:
    """Per-class F1 (f1_scores) and the macro F1 the summary computes from confusion
    counts (``_counts``, the code that runs) against scikit-learn's."""
    from sklearn.metrics import f1_score

    from genderscope.measures.winobias import _counts

    rng = np.random.default_rng(1)
    g, p = rng.random(50) < 0.5, rng.random(50) < 0.7
    f, m = f1_scores(g, p)
    assert m == pytest.approx(f1_score(g, p, pos_label=True))
    assert f == pytest.approx(f1_score(g, p, pos_label=False))
    counts = np.array([[np.sum(g & p), np.sum(~g & p), np.sum(g & ~p), np.sum(~g & ~p)]])
    acc, macro = _counts(counts.astype(float))
    assert macro[0] == pytest.approx(f1_score(g, p, average="macro"))
    assert acc[0] == pytest.approx(np.mean(g == p))


def test_wrong_model_kind(tmp_path: Path) -> None:
    class Vec:
        kind = "vectors"
        fingerprint = "v"

    with pytest.raises(GenderscopeError, match="masked or causal"):
        run_winobias(Vec(), _items(tmp_path))


# -- real (tiny) adapters ----------------------------------------------------------------
def test_real_tiny_adapters(data_dir: Path, tiny_bert, tiny_gpt2) -> None:
    items = [it for it in load_dawinobias(data_dir / "genda-lens", split="dev")
             if it.line <= 6]
    items_en = [it for it in load_winobias(data_dir / "winobias", split="dev", types=(1,))
                if it.line <= 6]
    res_m = run_winobias(tiny_bert, items_en, n_resamples=100)
    assert res_m.summary["n_items"] == 12
    assert set(res_m.items.pred) <= set(load_pronouns("en").forms)
    res_c = run_winobias(tiny_gpt2, items, n_resamples=100)
    # The causal prediction is the argmax of the sentence log-likelihoods.
    it = items[0]
    forms = load_pronouns("da").forms
    ll = [s.total for s in tiny_gpt2.log_likelihood(
        [it.template.replace("{target}", f) for f in forms])]
    assert res_c.items.iloc[0].pred == forms[int(np.argmax(ll))]


# -- CLI -------------------------------------------------------------------------------------
@pytest.mark.parametrize("cmd, model", [("winobias", "tiny_bert_dir"),
                                        ("dawinobias", "tiny_gpt2_dir")])
def test_cli(cmd: str, model: str, data_dir: Path, tmp_path: Path,
             request: pytest.FixtureRequest) -> None:
    import json

    from typer.testing import CliRunner

    from genderscope.cli.app import app

    folder = request.getfixturevalue(model)
    r = CliRunner().invoke(app, ["run", cmd, "--model", str(folder), "--data", str(data_dir),
                                 "--limit", "20", "--resamples", "200", "--no-progress",
                                 "--store", str(tmp_path / "s.sqlite"),
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "main effect" in r.output and "Nuance" in r.output
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["method"] == cmd and s["metadata"]["data"]["subset_seed"] == 0
    assert (tmp_path / "o" / "nuance.csv").is_file()


def test_cli_bad_split_exits_2(data_dir: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                           "run", "winobias", "--model", "unused", "--data", str(data_dir),
                           "--split", "train"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "unknown split 'train'" in proc.stderr


def test_cli_data_file_where_a_folder_is_needed_exits_2(tmp_path) -> None:
    import subprocess
    import sys

    f = tmp_path / "one.txt"
    f.write_text("x\n")
    proc = subprocess.run([sys.executable, "-c", "from genderscope.cli.app import main; main()",
                           "run", "winobias", "--model", "unused", "--data", str(f)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "expected the winobias folder" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cis_resample_occupations() -> None:
    from sklearn.metrics import f1_score

    from genderscope.measures.winobias import summarise

    rng = np.random.default_rng(2)
    rows = []
    for k in range(12):  # 12 occupations, 20 sentences each per condition
        skill = rng.uniform(0.2, 0.95)  # shared by every sentence of the occupation
        for cond in ("pro", "anti"):
            for _ in range(20):
                gender = "male" if rng.random() < 0.5 else "female"
                correct = rng.random() < skill
                other = "female" if gender == "male" else "male"
                rows.append({"occupation": f"occ{k}", "condition": cond, "gender": gender,
                             "type": 1,
                             "pred_gender": gender if correct else other, "correct": correct})
    df = pd.DataFrame(rows)
    s, _ = summarise(df, n_resamples=1000)
    pro = df[df.condition == "pro"]
    want = f1_score(pro.gender == "male", pro.pred_gender == "male", average="macro")
    assert s["macro_f1_pro"]["estimate"] == pytest.approx(float(want))
    acc = pro.correct.mean() / df[df.condition == "anti"].correct.mean()
    assert s["main_effect"]["estimate"] == pytest.approx(np.log2(acc))
    for key in ("main_effect", "difference_pro_minus_anti", "macro_f1_pro"):
        assert s[key]["ci_unit"] == "occupations" and s[key]["n_units"] == 12
    assert s["accuracy_pro"]["ci_unit"] == "sentences"
    # sentences of one occupation share its skill: the occupation bootstrap of the pro
    # F1 is much wider than an interval treating the 240 sentences as independent
    f, w = s["macro_f1_pro"], s["accuracy_pro"]
    assert (f["ci_high"] - f["ci_low"]) > 1.5 * (w["ci_high"] - w["ci_low"])
    # pro and anti sentences of an occupation move together and stay together
    d = s["difference_pro_minus_anti"]
    assert d["ci_low"] <= d["estimate"] <= d["ci_high"]
