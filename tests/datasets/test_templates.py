"""Template / word-set format: loaders, built-in LPBS tests, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genderscope.datasets.templates import (
    TargetSets,
    Template,
    builtin_tests,
    check_template,
    load_templates,
    load_tests,
    load_word_list,
    resolve_test,
)
from genderscope.errors import DataError

HE_SHE = TargetSets(("he",), ("she",))


def test_builtin_tests_use_weat_stimuli_from_seat(data_dir: Path) -> None:
    tests = builtin_tests()
    assert {"career-family", "math-arts", "science-arts", "pleasant-unpleasant"} <= set(tests)

    def seat(name: str, key: str) -> tuple[str, ...]:
        d = json.loads((data_dir / "seat" / "tests" / f"{name}.jsonl").read_text())
        return tuple(d[key]["examples"])

    cf = tests["career-family"]
    assert (cf.x.words, cf.y.words) == (seat("weat6", "attr1"), seat("weat6", "attr2"))
    ma = tests["math-arts"]
    assert (ma.x.words, ma.y.words) == (seat("weat7", "targ1"), seat("weat7", "targ2"))
    sa = tests["science-arts"]
    assert (sa.x.words, sa.y.words) == (seat("weat8", "targ1"), seat("weat8", "targ2"))
    pu = tests["pleasant-unpleasant"]
    assert (pu.x.words, pu.y.words) == (seat("weat1", "attr1"), seat("weat1", "attr2"))


def test_builtin_templates_are_kuritas(data_dir: Path) -> None:
    cf = builtin_tests()["career-family"]
    texts = [t.text for t in cf.templates]
    assert texts == ["GGG likes XXX.", "GGG like XXX.", "GGG is interested in XXX."]
    assert cf.templates[0].targets == HE_SHE
    assert cf.templates[1].targets == TargetSets(("boys", "men"), ("girls", "women"))
    extracted = (data_dir / "kurita" / "TEMPLATES_extracted.tsv").read_text().splitlines()
    listed = {line.split("\t")[1] for line in extracted if "\t" in line and not
              line.startswith("#")}
    assert set(texts) <= listed


def test_template_fill_and_parts() -> None:
    t = Template("the XXX said GGG was late", HE_SHE)
    assert t.fill("he", "nurse") == "the nurse said he was late"
    a, b, c, gender_first = t.parts()
    assert (a, b, c, gender_first) == ("the ", " said ", " was late", False)


@pytest.mark.parametrize("text, msg", [
    ("he likes XXX.", "no GGG"),
    ("GGG likes it.", "no XXX"),
    ("GGG and GGG like XXX.", "2 GGG slots"),
    ("", "non-empty"),
])
def test_check_template_errors(text: str, msg: str) -> None:
    with pytest.raises(DataError, match=msg):
        check_template(text, "here")


def test_load_templates_txt_names_line(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_text("# comment\nGGG likes XXX.\n\nGGG hates it.\n")
    with pytest.raises(DataError, match=r"t\.txt:4.*no XXX"):
        load_templates(f, HE_SHE)
    f.write_text("GGG likes XXX.\nGGG is good at XXX.  # trailing comment\n")
    ts = load_templates(f, HE_SHE)
    assert [t.text for t in ts] == ["GGG likes XXX.", "GGG is good at XXX."]


def test_load_templates_yaml_with_targets(tmp_path: Path) -> None:
    f = tmp_path / "t.yaml"
    f.write_text("targets: {male: [he, him], female: [she, her]}\n"
                 "templates:\n  - GGG likes XXX.\n"
                 "  - {text: 'GGG like XXX.', targets: {male: [men], female: [women]}}\n")
    ts = load_templates(f)
    assert ts[0].targets == TargetSets(("he", "him"), ("she", "her"))
    assert ts[1].targets == TargetSets(("men",), ("women",))


def test_load_templates_without_targets_fails(tmp_path: Path) -> None:
    f = tmp_path / "t.json"
    f.write_text(json.dumps(["GGG likes XXX."]))
    with pytest.raises(DataError, match="no gender targets"):
        load_templates(f)


def test_test_file_with_word_files(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "fam.txt").write_text("home\nfamily\n")
    seat6 = data_dir / "seat" / "tests" / "weat6.jsonl"
    f = tmp_path / "tests.yaml"
    f.write_text(f"targets: {{male: [he], female: [she]}}\ntests:\n  mine:\n"
                 f"    templates: ['GGG likes XXX.']\n    attributes:\n"
                 f"      career: {{file: {seat6}, key: attr1}}\n"
                 f"      family: {{file: fam.txt}}\n")
    t = load_tests(f)["mine"]
    assert t.x.words[:2] == ("executive", "management") and len(t.x.words) == 8
    assert t.y.words == ("home", "family")
    assert resolve_test(f"{f}:mine").y.words == ("home", "family")
    assert resolve_test(str(f)).name == "mine"


def test_kurita_trait_lists_load(data_dir: Path) -> None:
    pos = load_word_list(data_dir / "kurita" / "positive_traits.txt")
    neg = load_word_list(data_dir / "kurita" / "negative_traits.txt")
    assert len(pos) > 100 and len(neg) > 100 and "Brilliant" in pos


@pytest.mark.parametrize("body, msg", [
    ("tests:\n  t:\n    templates: ['GGG likes XXX.']\n    attributes: {a: [x], b: []}\n",
     r"tests\.t\.attributes\.b: word set is empty"),
    ("tests:\n  t:\n    templates: ['GGG likes XXX.']\n    attributes: {a: [x]}\n",
     "exactly two attribute sets"),
    ("tests:\n  t:\n    templates: ['GGG likes it.']\n    attributes: {a: [x], b: [y]}\n",
     r"tests\.t\.templates\[0\]: template 'GGG likes it\.' has no XXX"),
    ("tests:\n  t:\n    templates: []\n    attributes: {a: [x], b: [y]}\n",
     "non-empty 'templates'"),
    ("targets: {male: [he]}\ntests: {}\n", "targets lack 'female'"),
    ("targets: {male: [he, she], female: [she]}\ntests: {}\n", "words in both target sets"),
    ("format: other/2\ntests: {}\n", "unknown format"),
    ("tests: [\n", "cannot parse"),
])
def test_bad_test_files(tmp_path: Path, body: str, msg: str) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("targets: {male: [he], female: [she]}\n" + body
                 if not body.startswith(("targets", "format", "tests: [")) else body)
    with pytest.raises(DataError, match=msg) as err:
        load_tests(f)
    assert "bad.yaml" in str(err.value) and "\n" not in str(err.value)


def test_resolve_unknown_test() -> None:
    with pytest.raises(DataError, match="unknown LPBS test 'nope'.*career-family"):
        resolve_test("nope")


def test_resolve_with_templates_override(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_text("GGG works in XXX.\n")
    t = resolve_test("career-family", f)
    assert [x.text for x in t.templates] == ["GGG works in XXX."]
    assert t.templates[0].targets == HE_SHE and t.x.name == "career"
    assert str(f) in t.files
