"""BEC-Pro generator == published corpus (up to its known masking errors), loader, bad input."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from genderscope.datasets import bec_pro
from genderscope.errors import DataError

# Rows of the published files whose masked columns are wrong, and why.
# EN "lodging manager" x "This man" (5 patterns): the authors' replacement of the
# person word "man" also hit "manager" -> "lodging [MASK]ager" in Sent_TM/Sent_TAM.
EN_MANAGER_ROWS = [3625, 3985, 4345, 4705, 5065]
# EN pattern 3 ("applied for the position of <profession>") x "director of religious
# activities" (18 persons): the profession's words were masked where they first occur,
# so the "of" of "position of" was masked too: 5 masks for a 4-word profession and the
# profession's own "of" left visible ("position [MASK] [MASK] [MASK] [MASK] [MASK].").
EN_DIRECTOR_ROWS = list(range(4321, 4321 + 18 * 20, 20))
# DE "Er" x "Ernährungsberater" (5 patterns): replacing "Er" also hit the start of
# the profession -> "[MASK]nährungsberater" in Sent_TM/Sent_TAM.
DE_ER_ROWS = [1809, 2169, 2529, 2889, 3249]


def _published(data_dir: Path, lang: str) -> pd.DataFrame:
    return pd.read_csv(data_dir / "bec-pro" / f"BEC-Pro_{lang.upper()}.tsv", sep="\t",
                       index_col=0, keep_default_na=False)


def _differences(gen: pd.DataFrame, pub: pd.DataFrame) -> dict[int, list[str]]:
    diff = gen != pub
    return {int(i): list(diff.columns[diff.loc[i]]) for i in diff.index[diff.any(axis=1)]}


def test_generated_en_equals_published_except_known_rows(data_dir: Path) -> None:
    gen = bec_pro.to_frame(bec_pro.generate("en"))
    pub = _published(data_dir, "en")
    assert list(gen.columns) == list(pub.columns) and gen.shape == (5400, 9)
    assert list(gen.index) == list(pub.index)
    expected = {i: ["Sent_TM", "Sent_TAM"] for i in EN_MANAGER_ROWS}
    expected.update({i: ["Sent_AM", "Sent_TAM"] for i in EN_DIRECTOR_ROWS})
    assert _differences(gen, pub) == expected
    for i in EN_MANAGER_ROWS:
        assert "lodging [MASK]ager" in pub.loc[i, "Sent_TM"]
        assert gen.loc[i, "Sent_TM"].endswith("lodging manager" + gen.loc[i, "Sentence"]
                                              .split("lodging manager", 1)[1])
        assert gen.loc[i, "Sent_TAM"].count("[MASK]") == 3
    for i in EN_DIRECTOR_ROWS:
        assert "position [MASK] [MASK] [MASK] [MASK] [MASK]." in pub.loc[i, "Sent_AM"]
        assert "position of [MASK] [MASK] [MASK] [MASK]." in gen.loc[i, "Sent_AM"]


def test_generated_de_equals_published_except_known_rows(data_dir: Path) -> None:
    gen = bec_pro.to_frame(bec_pro.generate("de"))
    pub = _published(data_dir, "de")
    assert list(gen.columns) == list(pub.columns) and gen.shape == (5400, 10)
    assert _differences(gen, pub) == {i: ["Sent_TM", "Sent_TAM"] for i in DE_ER_ROWS}
    for i in DE_ER_ROWS:
        assert "[MASK]nährungsberater" in pub.loc[i, "Sent_TM"]
        assert "Ernährungsberater" in gen.loc[i, "Sent_TM"]


def test_professions_and_persons_lists(data_dir: Path) -> None:
    en = bec_pro.professions("en")
    assert len(en) == 60 and en.group.value_counts().to_dict() == {
        "male": 20, "female": 20, "balanced": 20}
    assert en.loc[en.group == "male", "female_share_us_pct"].max() < 5
    assert en.loc[en.group == "female", "female_share_us_pct"].min() > 85
    pub = pd.read_csv(data_dir / "bec-pro" / "Professions US+DE.tsv", sep="\t", dtype=str)
    ours = dict(zip(en.profession, en.female_share_us_pct, strict=True))
    for _, r in pub.iterrows():
        assert ours[r.simplified_professions] == float(r.percent_us)
    de = bec_pro.professions("de")
    assert len(de) == 60 and set(de.profession_en) == set(en.profession)
    p = bec_pro.persons("en")
    assert len(p) == 18 and (p.gender == "male").sum() == 9


def test_published_files_fail_strict_and_load_repaired(data_dir: Path) -> None:
    path = data_dir / "bec-pro" / "BEC-Pro_EN.tsv"
    with pytest.raises(DataError, match=r"BEC-Pro_EN\.tsv:3627 \(column 'Sent_TM'\): masks do "
                                        r"not match"):
        bec_pro.load_tsv(path)
    rows = bec_pro.load_tsv(path, repair=True)
    assert_frame_equal(bec_pro.to_frame(rows), bec_pro.to_frame(bec_pro.generate("en")))
    de = bec_pro.load_tsv(data_dir / "bec-pro" / "BEC-Pro_DE.tsv", repair=True)
    assert_frame_equal(bec_pro.to_frame(de), bec_pro.to_frame(bec_pro.generate("de")))
    assert de[0].profession_key == "taper"


def test_round_trip_and_query_templates(tmp_path: Path) -> None:
    rows = bec_pro.generate("en")
    bec_pro.to_frame(rows).to_csv(tmp_path / "b.tsv", sep="\t")  # the published layout
    back = bec_pro.load_tsv(tmp_path / "b.tsv")
    assert_frame_equal(bec_pro.to_frame(rows), bec_pro.to_frame(back))
    r = rows[1]  # "He is a steel worker."
    assert r.tm_template() == "{target} is a steel worker."
    assert r.tam_template() == "{target} is a [[steel worker]]."
    assert r.subject == "He"
    r = next(x for x in rows if x.sentence == "My son, the taper, had a good day at work.")
    assert r.tam_template() == "My {target}, the [[taper]], had a good day at work."


def _write(tmp_path: Path, rows: list[list[str]], header: list[str] | None = None) -> Path:
    header = header or ["", *bec_pro.COLUMNS]
    f = tmp_path / "user.tsv"
    f.write_text("\n".join("\t".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return f


GOOD = ["0", "He is a taper.", "[MASK] is a taper.", "He is a [MASK].", "[MASK] is a [MASK].",
        "<person subject> is a <profession>.", "He", "male", "taper", "male"]


@pytest.mark.parametrize("row, header, msg", [
    (GOOD, ["", *bec_pro.COLUMNS[:-1]], r"user\.tsv:1: missing column\(s\) Prof_Gender"),
    ([*GOOD, "x"], ["", *bec_pro.COLUMNS, "Extra"], r"user\.tsv:1: unexpected column\(s\) "
                                                    r"Extra"),
    (GOOD[:-1], None, r"user\.tsv:2: 8 fields, expected 9"),
    ([*GOOD[:2], "He is a [MASK].", *GOOD[3:]], None,
     r"user\.tsv:2 \(column 'Sent_TM'\): masks do not match"),
    ([*GOOD[:3], "He is a [MASK] [MASK].", *GOOD[4:]], None,
     r"user\.tsv:2 \(column 'Sent_AM'\): masks do not match"),
    ([*GOOD[:4], "[MASK] is a taper.", *GOOD[5:]], None,
     r"user\.tsv:2 \(column 'Sent_TAM'\): masks do not match"),
    ([*GOOD[:7], "man", *GOOD[8:]], None, r"user\.tsv:2 \(column 'Gender'\): gender must be"),
    ([*GOOD[:6], "She", *GOOD[7:]], None,
     r"user\.tsv:2 \(column 'Sentence'\): person subject 'He' does not end with"),
    ([*GOOD[:8], "roofer", *GOOD[9:]], None,
     r"user\.tsv:2 \(column 'Sentence'\): sentence does not hold profession 'roofer'"),
    ([*GOOD[:5], "<person subject> is a taper.", *GOOD[6:]], None,
     r"user\.tsv:2 \(column 'Template'\): template must hold"),
    ([*GOOD[:8], "", *GOOD[9:]], None, r"user\.tsv:2 \(column 'Profession'\): empty cell"),
])
def test_bad_user_tsv(tmp_path: Path, row: list[str], header: list[str] | None,
                      msg: str) -> None:
    f = _write(tmp_path, [row], header)
    with pytest.raises(DataError, match=msg) as err:
        bec_pro.load_tsv(f)
    assert "\n" not in str(err.value)


def test_person_not_in_target_set(tmp_path: Path) -> None:
    f = _write(tmp_path, [GOOD])
    targets = dict(zip(bec_pro.persons("en").person, bec_pro.persons("en").gender, strict=True))
    assert bec_pro.load_tsv(f, person_words=targets)[0].person == "He"
    with pytest.raises(DataError, match=r"user\.tsv:2 \(column 'Person'\): person word 'He' is "
                                        r"not in the target set"):
        bec_pro.load_tsv(f, person_words={"She": "female"})
    with pytest.raises(DataError, match="is female in the target set"):
        bec_pro.load_tsv(f, person_words={"He": "female"})


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found"):
        bec_pro.load_tsv(tmp_path / "nope.tsv")
    (tmp_path / "e.tsv").write_text("")
    with pytest.raises(DataError, match=r"e\.tsv:1: file is empty"):
        bec_pro.load_tsv(tmp_path / "e.tsv")
    with pytest.raises(DataError, match="unknown BEC-Pro language 'fr'"):
        bec_pro.generate("fr")
