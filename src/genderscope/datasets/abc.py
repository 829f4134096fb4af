"""ABC, the Anti-reflexive Bias Challenge (González et al. 2020, EMNLP), loader.

Format (``coref_lm.<lang>``, GenDa Lens ``abc_{fem,male}_sents.txt``): groups of
three sentences separated by a line ``---``::

    revisoren glemmer sit kreditkort på bordet.      <- reflexive possessive
    revisoren glemmer hans kreditkort på bordet.     <- male anti-reflexive
    revisoren glemmer hendes kreditkort på bordet.   <- female anti-reflexive
    ---

Lines of four or more dashes (``--------------``, between occupations in the
Swedish file) are block separators and are skipped. A group that does not have
exactly three sentences raises :class:`~genderscope.errors.DataError` with
``file:line``.

Each sentence's role is checked against the language's possessive list
(``resources/abc_pronouns/<lang>.tsv``). Some published groups break the
pattern (e.g. in ``coref_lm.ru`` the third sentence sometimes repeats the
reflexive); they are kept with ``valid=False`` (``strict=True`` raises instead).

Occupation and its stereotype:

- GenDa Lens files: the occupation is the sentence's first word; the stereotype
  is the file (``abc_fem_sents.txt`` = stereotypically female occupations);
- original ABC files: sentences come in 60 consecutive occupation blocks in the
  order of ``Ocupation_stats-1.1.tsv``; the block's English occupation and
  ``Perc-<Lang>`` (% women in that country) give the stereotype: ``female`` when
  > 50 %, ``male`` when < 50 %, ``None`` when the statistic is missing.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from genderscope.datasets.pronouns import AbcPronouns, load_abc_pronouns
from genderscope.errors import DataError, where
from genderscope.files import read_text

ROLES = ("reflexive", "male", "female")
LANGS = ("da", "sv", "ru", "zh")
GENDA_FILES = {"female": "abc_fem_sents.txt", "male": "abc_male_sents.txt"}
STATS_FILE = "Ocupation_stats-1.1.tsv"
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class AbcGroup:
    """One reflexive / male / female anti-reflexive triple."""

    group_id: str
    lang: str
    reflexive: str
    male: str
    female: str
    occupation: str
    stereotype: str | None  # "female" | "male" | None
    valid: bool
    problem: str
    path: str
    line: int  # line of the group's first sentence
    NOT_CONTENT: ClassVar[tuple[str, ...]] = ("path",)  # where from: not keyed (engine/keys.py)

    def sentences(self) -> tuple[str, str, str]:
        return self.reflexive, self.male, self.female


def _roles_in(sentence: str, prons: AbcPronouns) -> set[str]:
    s = sentence.lower()
    if prons.substring:
        return {r for f, r in prons.role.items() if f in s}
    return {prons.role[w] for w in _WORD.findall(s) if w in prons.role}


def read_groups(path: str | Path, *, lang: str, strict: bool = False
                ) -> list[tuple[int, list[str], bool, str]]:
    """Groups of ``path`` as ``(first_line, [3 sentences], valid, problem)``."""
    p = Path(path)
    lines = read_text(p, "ABC file").splitlines()
    prons = load_abc_pronouns(lang)
    groups: list[tuple[int, list[str], bool, str]] = []
    cur: list[str] = []
    start = 0

    def close(end_line: int) -> None:
        nonlocal cur
        if not cur:
            return
        if len(cur) != 3:
            raise DataError(f"{where(p, start)}: ABC group has {len(cur)} sentences, expected 3 "
                            "(reflexive, male, female) before line "
                            f"{end_line} (groups end at a '---' line or the end of the file)")
        problems = []
        for sent, role in zip(cur, ROLES, strict=True):
            found = _roles_in(sent, prons)
            if role not in found:
                problems.append(f"sentence {ROLES.index(role) + 1} lacks a {role} possessive")
        problem = "; ".join(problems)
        if problem and strict:
            raise DataError(f"{where(p, start)}: {problem}")
        groups.append((start, cur, not problem, problem))
        cur = []

    for no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if re.fullmatch(r"-{3,}", line):
            close(no)
            continue
        if not line:
            continue
        if not cur:
            start = no
        cur.append(line)
    close(len(lines) + 1)
    if not groups:
        raise DataError(f"{p}: no ABC groups")
    return groups


def load_genda_abc(folder: str | Path, *, strict: bool = False) -> list[AbcGroup]:
    """Danish ABC from GenDa Lens (``abc_fem_sents.txt`` + ``abc_male_sents.txt``)."""
    d = Path(folder)
    out: list[AbcGroup] = []
    for stereo, name in GENDA_FILES.items():
        for k, (line, s, valid, problem) in enumerate(read_groups(d / name, lang="da",
                                                                    strict=strict)):
            occ = s[0].split()[0].lower() if s[0].split() else ""
            out.append(AbcGroup(f"da-{stereo}-{k}", "da", *s, occupation=occ, stereotype=stereo,
                                valid=valid, problem=problem, path=str(d / name), line=line))
    return out


def read_occupation_stats(path: str | Path) -> list[dict[str, str]]:
    """Rows of ``Ocupation_stats-1.1.tsv`` (occupation, Perc-Da, Perc-Sv, ...)."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"ABC occupation statistics not found: {p}")
    with p.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        need = {"Ocupation (english)", "Perc-Da", "Perc-Sv", "Perc-Ru", "Perc-Zh"}
        missing = need - set(reader.fieldnames or [])
        if missing:
            raise DataError(f"{where(p, 1)}: missing columns {sorted(missing)}")
        return [dict(r) for r in reader]


def _stereotype(value: str | None) -> str | None:
    try:
        v = float(str(value).replace(",", "."))
    except ValueError:
        return None
    return "female" if v > 50 else "male" if v < 50 else None


def load_abc_original(folder: str | Path, *, lang: str, strict: bool = False) -> list[AbcGroup]:
    """ABC ``data/COREF_LM/coref_lm.<lang>`` with occupations from the statistics file."""
    if lang not in LANGS:
        raise DataError(f"unknown ABC language {lang!r} (available: {', '.join(LANGS)})")
    d = Path(folder)
    path = d / "data" / "COREF_LM" / f"coref_lm.{lang}"
    groups = read_groups(path, lang=lang, strict=strict)
    stats = read_occupation_stats(d / STATS_FILE)
    per = len(groups) // len(stats) if stats else 0
    column = f"Perc-{lang.capitalize()}"
    out = []
    for k, (line, s, valid, problem) in enumerate(groups):
        block = k // per if per and len(groups) == per * len(stats) else None
        if block is None:  # uneven blocks: fall back to the first word (whitespace languages)
            occ, stereo = (s[0].split()[0].lower() if lang != "zh" else ""), None
        else:
            occ, stereo = stats[block]["Ocupation (english)"], _stereotype(stats[block][column])
        out.append(AbcGroup(f"{lang}-{k}", lang, *s, occupation=occ, stereotype=stereo,
                            valid=valid, problem=problem, path=str(path), line=line))
    return out


def load_abc(folder: str | Path, *, lang: str = "da", source: str = "auto",
             strict: bool = False) -> list[AbcGroup]:
    """ABC groups from a GenDa Lens folder (Danish) or the original ABC folder (``source``:
    ``"genda-lens"``, ``"abc"`` or ``"auto"``, by the files found)."""
    d = Path(folder)
    if source == "auto":
        source = "genda-lens" if (d / GENDA_FILES["female"]).is_file() else "abc"
    if source == "genda-lens":
        if lang != "da":
            raise DataError(f"GenDa Lens ABC data is Danish only; got --lang {lang!r}")
        return load_genda_abc(d, strict=strict)
    if source == "abc":
        return load_abc_original(d, lang=lang, strict=strict)
    raise DataError(f"unknown ABC source {source!r} (genda-lens, abc, auto)")
