"""BEC-Pro, the Bias Evaluation Corpus with Professions (Bartl, Nissim & Gatt 2020, Sec. 3).

:func:`generate` builds the English or German corpus from the shipped lists
(``resources/bec_pro_patterns.tsv``, ``bec_pro_persons_<lang>.tsv``,
``bec_pro_professions_<lang>.tsv``): 5 sentence patterns x 18 person words x
60 professions = 5,400 rows, in the published order (profession group male,
female, balanced; then pattern; then person; then profession). German uses the
profession form and article of the person's gender. Columns equal the published
``BEC-Pro_EN.tsv`` / ``BEC-Pro_DE.tsv`` (``Sentence, Sent_TM, Sent_AM, Sent_TAM,
Template, Person, Gender, Profession, Prof_Gender`` [+ ``Profession_EN``]) except
in rows where the published masking is wrong: the authors' person-word
replacement also hit the start of a profession (EN "This [MASK] is a lodging
[MASK]ager.", 5 rows; DE "[MASK] ist [MASK]nährungsberater.", 5 rows). Here the
person mask covers the person word only, and the profession mask one
``[MASK]`` per whitespace word (as published).

:func:`load_tsv` reads a user's BEC-Pro-format TSV and checks every row (the masked
columns must be the sentence with the person word / the profession masked);
errors name file, line and column. ``repair=True`` rebuilds wrong masked columns
from ``Sentence``, ``Person`` and ``Profession`` instead of failing.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from genderscope.errors import DataError, where

if TYPE_CHECKING:
    import pandas as pd

MASK = "[MASK]"
SUBJECT = "<person subject>"
PROFESSION = "<profession>"
ARTICLE = "<article>"
COLUMNS = ("Sentence", "Sent_TM", "Sent_AM", "Sent_TAM", "Template", "Person", "Gender",
           "Profession", "Prof_Gender")
COLUMNS_DE = (*COLUMNS, "Profession_EN")
LANGS = ("en", "de")
GROUPS = ("male", "female", "balanced")
ARTICLES_DE = {"male": "der", "female": "die"}
RESOURCES = Path(__file__).resolve().parent.parent / "resources"


@dataclass(frozen=True)
class BecProRow:
    """One BEC-Pro sentence with the spans of its person word and profession.

    ``person_span``/``profession_span`` are (start, end) character offsets in
    ``sentence``; ``subject`` is the person subject phrase (e.g. "My son"),
    ``profession_key`` the language-independent profession (``Profession_EN``
    where present), ``row`` the 0-based row number.
    """

    row: int
    sentence: str
    sent_tm: str
    sent_am: str
    sent_tam: str
    template: str
    person: str
    gender: str
    profession: str
    prof_gender: str
    profession_en: str | None
    person_span: tuple[int, int]
    profession_span: tuple[int, int]
    subject: str

    @property
    def profession_key(self) -> str:
        return self.profession_en or self.profession

    def tm_template(self) -> str:
        """FillQuery template for P(person | Sent_TM): person slot, profession visible."""
        s, e = self.person_span
        return self.sentence[:s] + "{target}" + self.sentence[e:]

    def tam_template(self) -> str:
        """FillQuery template for P(person | Sent_TAM): the profession hidden as ``[[..]]``."""
        (ps, pe), (fs, fe) = self.person_span, self.profession_span
        s = self.sentence
        if ps < fs:
            return s[:ps] + "{target}" + s[pe:fs] + "[[" + s[fs:fe] + "]]" + s[fe:]
        return s[:fs] + "[[" + s[fs:fe] + "]]" + s[fe:ps] + "{target}" + s[pe:]


def fill_template(template: str, subject: str, profession: str) -> str:
    return template.replace(SUBJECT, subject).replace(PROFESSION, profession)


def mask_words(text: str) -> str:
    """One ``[MASK]`` per whitespace-separated word (the published Sent_AM style)."""
    return " ".join([MASK] * len(text.split()))


def _masked(sentence: str, spans: Iterable[tuple[tuple[int, int], str]]) -> str:
    out, last = [], 0
    for (s, e), rep in sorted(spans):
        out += [sentence[last:s], rep]
        last = e
    return "".join(out) + sentence[last:]


def _spans(template: str, sentence: str, person: str, profession: str
           ) -> tuple[tuple[int, int], tuple[int, int], str] | str:
    """Person-word span, profession span and subject phrase, or an error message."""
    if template.count(SUBJECT) != 1 or template.count(PROFESSION) != 1:
        return f"template must hold {SUBJECT} and {PROFESSION} once each"
    if template.index(SUBJECT) > template.index(PROFESSION):
        return f"{SUBJECT} must come before {PROFESSION}"
    a, rest = template.split(SUBJECT)
    b, c = rest.split(PROFESSION)
    if not (sentence.startswith(a) and sentence.endswith(c)):
        return "sentence does not follow the template"
    middle = sentence[len(a):len(sentence) - len(c)]
    cut = middle.rfind(b + profession) if b else middle.rfind(profession)
    if cut < 0 or middle[cut + len(b):] != profession:
        return f"sentence does not hold profession {profession!r} in the template's place"
    subject = middle[:cut]
    if not subject.endswith(person) or (len(subject) > len(person)
                                        and subject[-len(person) - 1] != " "):
        return f"person subject {subject!r} does not end with the person word {person!r}"
    p_end = len(a) + len(subject)
    f_start = len(a) + cut + len(b)
    return (p_end - len(person), p_end), (f_start, f_start + len(profession)), subject


def _make_row(i: int, cells: dict[str, str], spans: tuple[tuple[int, int], tuple[int, int], str]
              ) -> BecProRow:
    return BecProRow(i, cells["Sentence"], cells["Sent_TM"], cells["Sent_AM"], cells["Sent_TAM"],
                     cells["Template"], cells["Person"], cells["Gender"], cells["Profession"],
                     cells["Prof_Gender"], cells.get("Profession_EN"), spans[0], spans[1],
                     spans[2])


def masked_columns(sentence: str, person_span: tuple[int, int],
                   profession_span: tuple[int, int]) -> tuple[str, str, str]:
    """(Sent_TM, Sent_AM, Sent_TAM) built from the sentence and the two spans."""
    prof = sentence[profession_span[0]:profession_span[1]]
    tm = _masked(sentence, [(person_span, MASK)])
    am = _masked(sentence, [(profession_span, mask_words(prof))])
    tam = _masked(sentence, [(person_span, MASK), (profession_span, mask_words(prof))])
    return tm, am, tam


# -- shipped lists ------------------------------------------------------
def _records(name: str) -> list[dict[str, str]]:
    """Rows of a shipped TSV (header line first; lines starting with ``#`` are comments),
    as strings: plain ``csv``, so generating the corpus needs no pandas."""
    with open(RESOURCES / name, encoding="utf-8", newline="") as fh:
        lines = [line for line in fh if not line.startswith("#") and line.strip()]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def professions(lang: str = "en") -> pd.DataFrame:
    """The 60 professions with group and female share (shipped list, published figures)."""
    import pandas as pd

    _check_lang(lang)
    df = pd.DataFrame(_records(f"bec_pro_professions_{lang}.tsv"))
    for col in [c for c in df.columns if c.startswith("female_share")]:
        df[col] = df[col].astype(float)
    return df


def persons(lang: str = "en") -> pd.DataFrame:
    """The 18 person words with gender, determiner and counterpart pair number."""
    import pandas as pd

    _check_lang(lang)
    df = pd.DataFrame(_records(f"bec_pro_persons_{lang}.tsv"))
    df["pair"] = df["pair"].astype(int)
    return df


def patterns(lang: str = "en") -> list[str]:
    _check_lang(lang)
    return [r["pattern"] for r in _records("bec_pro_patterns.tsv") if r["lang"] == lang]


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise DataError(f"unknown BEC-Pro language {lang!r}; use one of {', '.join(LANGS)}")


# -- generator ------------------------------------------------------
def generate(lang: str = "en") -> list[BecProRow]:
    """All 5,400 BEC-Pro rows of ``lang`` ("en" or "de"), in the published order.

    Plain Python over lists: each sentence is assembled from the pattern's pieces, so
    the person and profession spans are known without searching the sentence."""
    _check_lang(lang)
    profs = _records(f"bec_pro_professions_{lang}.tsv")
    people = _records(f"bec_pro_persons_{lang}.tsv")
    pats = patterns(lang)
    by_group = {g: [f for f in profs if f["group"] == g] for g in GROUPS}
    rows: list[BecProRow] = []
    for group in GROUPS:
        for pattern in pats:
            for p in people:
                person, gender = p["person"], p["gender"]
                subject = f"{p['determiner']} {person}".strip()
                template = pattern.replace(ARTICLE, ARTICLES_DE.get(gender, ""))
                if template.count(SUBJECT) != 1 or template.count(PROFESSION) != 1 or \
                        template.index(SUBJECT) > template.index(PROFESSION):
                    raise DataError(f"BEC-Pro pattern {pattern!r}: needs {SUBJECT} before "
                                    f"{PROFESSION}, once each")
                a, rest = template.split(SUBJECT)
                b, c = rest.split(PROFESSION)
                p_end = len(a) + len(subject)
                person_span = (p_end - len(person), p_end)
                f_start = p_end + len(b)
                head = a + subject[:len(subject) - len(person)]
                for f in by_group[group]:
                    if lang == "en":
                        prof, prof_en = f["profession"], None
                    else:
                        prof = f["masculine"] if gender == "male" else f["feminine"]
                        prof_en = f["profession_en"]
                    prof_mask = mask_words(prof)
                    sentence = head + person + b + prof + c
                    rows.append(BecProRow(
                        len(rows), sentence, head + MASK + b + prof + c,
                        head + person + b + prof_mask + c, head + MASK + b + prof_mask + c,
                        template, person, gender, prof, group, prof_en, person_span,
                        (f_start, f_start + len(prof)), subject))
    return rows


def to_frame(rows: Sequence[BecProRow]) -> pd.DataFrame:
    """The rows as a DataFrame with the published columns (index 0..n-1)."""
    import pandas as pd

    de = any(r.profession_en is not None for r in rows)
    cols = COLUMNS_DE if de else COLUMNS
    data = {c: [] for c in cols}
    for r in rows:
        vals = (r.sentence, r.sent_tm, r.sent_am, r.sent_tam, r.template, r.person, r.gender,
                r.profession, r.prof_gender, r.profession_en)
        for c, v in zip(cols, vals, strict=False):
            data[c].append(v)
    return pd.DataFrame(data)


# -- loader ------------------------------------------------------
def load_tsv(path: str | Path, *, repair: bool = False,
             person_words: dict[str, str] | None = None) -> list[BecProRow]:
    """Read and check a BEC-Pro-format TSV: a header, optionally a leading unnamed index
    column, the ``COLUMNS`` (``Profession_EN`` optional). ``repair``: rebuild wrong
    ``Sent_TM/Sent_AM/Sent_TAM`` cells from the sentence instead of raising (the published
    EN/DE files have 5 such rows each). ``person_words``: ``{person word: gender}``; every
    row's ``Person`` must be in it with the row's ``Gender``."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{p}: BEC-Pro file not found")
    with p.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        try:
            header = next(reader)
        except StopIteration:
            raise DataError(f"{where(p, 1)}: file is empty") from None
        has_index = bool(header) and header[0] == ""
        names = header[1:] if has_index else header
        missing = [c for c in COLUMNS if c not in names]
        if missing:
            raise DataError(f"{where(p, 1)}: missing column(s) {', '.join(missing)}; a BEC-Pro "
                            f"TSV has {', '.join(COLUMNS)} [, Profession_EN]")
        extra = [c for c in names if c not in COLUMNS_DE]
        if extra:
            raise DataError(f"{where(p, 1)}: unexpected column(s) {', '.join(extra)}; a BEC-Pro "
                            f"TSV has {', '.join(COLUMNS)} [, Profession_EN]")
        rows: list[BecProRow] = []
        for line_no, raw in enumerate(reader, start=2):
            if not any(cell.strip() for cell in raw):
                continue
            cells_raw = raw[1:] if has_index else raw
            if len(cells_raw) != len(names):
                raise DataError(f"{where(p, line_no)}: {len(cells_raw)} fields, expected "
                                f"{len(names)} (one per header column)")
            cells = dict(zip(names, cells_raw, strict=True))
            rows.append(_check_row(p, line_no, len(rows), cells, repair, person_words))
    if not rows:
        raise DataError(f"{p}: no rows")
    return rows


def _check_row(p: Path, line: int, i: int, cells: dict[str, str], repair: bool,
               person_words: dict[str, str] | None) -> BecProRow:
    for col in ("Sentence", "Template", "Person", "Gender", "Profession", "Prof_Gender"):
        if not cells[col].strip():
            raise DataError(f"{where(p, line, col)}: empty cell")
    if cells["Gender"] not in ("male", "female"):
        raise DataError(f"{where(p, line, 'Gender')}: gender must be 'male' or 'female', "
                        f"got {cells['Gender']!r}")
    if person_words is not None:
        g = person_words.get(cells["Person"])
        if g is None:
            raise DataError(f"{where(p, line, 'Person')}: person word {cells['Person']!r} is not "
                            f"in the target set")
        if g != cells["Gender"]:
            raise DataError(f"{where(p, line, 'Person')}: person word {cells['Person']!r} is "
                            f"{g} in the target set but the row says {cells['Gender']}")
    spans = _spans(cells["Template"], cells["Sentence"], cells["Person"], cells["Profession"])
    if isinstance(spans, str):
        col = "Template" if spans.startswith(("template", SUBJECT)) else "Sentence"
        raise DataError(f"{where(p, line, col)}: {spans}")
    expected = masked_columns(cells["Sentence"], spans[0], spans[1])
    for col, want in zip(("Sent_TM", "Sent_AM", "Sent_TAM"), expected, strict=True):
        if cells[col] != want:
            if not repair:
                raise DataError(f"{where(p, line, col)}: masks do not match the sentence: got "
                                f"{cells[col]!r}, expected {want!r} (use repair to rebuild)")
            cells[col] = want
    return _make_row(i, cells, spans)
