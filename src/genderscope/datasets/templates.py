"""Templates and word sets as data: the genderscope template format.

A **template** is a sentence with two named slots: ``GGG`` (the gender target,
filled with a word of a target set such as he/she) and ``XXX`` (the attribute,
filled with a word of an attribute set such as career/family words). Each slot
occurs exactly once, e.g. ``"GGG is interested in XXX."`` (Kurita et al. 2019).

A **test file** (YAML or JSON; JSON is valid YAML) holds one or more tests::

    format: genderscope-templates/1          # optional
    targets:                                 # default gender target sets
      male: [he]
      female: [she]
    tests:
      career-family:
        description: "Career vs family words"
        templates:
          - "GGG likes XXX."                 # a plain string uses the default targets
          - text: "GGG like XXX."            # or a mapping with its own targets
            targets: {male: [boys, men], female: [girls, women]}
        attributes:                          # exactly two attribute sets, X then Y
          career: [executive, management, salary]
          family: {file: family.txt}         # or words from a file (path relative to
                                             # this file): .txt one word per line,
                                             # a YAML/JSON list, or a SEAT test file
                                             # with ``key: attr1`` (targ1/targ2/attr1/attr2)

A file holding a single test may put ``templates``/``attributes``/``targets``
at the top level (add ``name:``). A **templates file** (``--templates``) is a
``.txt`` file with one template per line (``#`` starts a comment), or a YAML/JSON
list of templates, or a mapping with ``templates:`` (and optional ``targets:``).
A **word-set file** is a mapping ``name: [words]``, a list, or a ``.txt`` file.

Every mistake raises :class:`~genderscope.errors.DataError` naming the file and
the place (line for text files, key path for YAML/JSON).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

from genderscope.errors import DataError, where
from genderscope.files import read_text

GENDER_SLOT = "GGG"
ATTRIBUTE_SLOT = "XXX"
FORMAT = "genderscope-templates/1"
BUILTIN_TESTS = "lpbs_tests.yaml"


@dataclass(frozen=True)
class TargetSets:
    """The two gender target sets that fill ``GGG`` (e.g. he / she)."""

    male: tuple[str, ...]
    female: tuple[str, ...]

    def as_dict(self) -> dict[str, list[str]]:
        return {"male": list(self.male), "female": list(self.female)}


@dataclass(frozen=True)
class Template:
    """A sentence with one ``GGG`` and one ``XXX`` slot, and its gender targets."""

    text: str
    targets: TargetSets

    def fill(self, gender: str, attribute: str) -> str:
        """The sentence with both slots filled."""
        return self.text.replace(GENDER_SLOT, gender).replace(ATTRIBUTE_SLOT, attribute)

    def parts(self) -> tuple[str, str, str, bool]:
        """(text before the first slot, between, after, gender slot comes first)."""
        g, x = self.text.index(GENDER_SLOT), self.text.index(ATTRIBUTE_SLOT)
        first, second = (GENDER_SLOT, ATTRIBUTE_SLOT) if g < x else (ATTRIBUTE_SLOT, GENDER_SLOT)
        a, rest = self.text.split(first, 1)
        b, c = rest.split(second, 1)
        return a, b, c, g < x


@dataclass(frozen=True)
class AttributeSet:
    """A named list of attribute words (one LPBS set, X or Y)."""

    name: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class LpbsTest:
    """Templates x two attribute sets, compared on prior-corrected gender-fill bias."""

    name: str
    templates: tuple[Template, ...]
    x: AttributeSet
    y: AttributeSet
    description: str = ""
    source: str = ""
    files: tuple[str, ...] = field(default=())
    NOT_CONTENT: ClassVar[tuple[str, ...]] = ("files",)  # where from: not keyed (engine/keys.py)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "source": self.source,
                "templates": [{"text": t.text, "targets": t.targets.as_dict()}
                              for t in self.templates],
                "attributes": {self.x.name: list(self.x.words), self.y.name: list(self.y.words)}}


# -- validation helpers ------------------------------------------------------
def check_template(text: object, loc: str) -> str:
    """Return ``text`` if it is a string with exactly one GGG and one XXX slot."""
    if not isinstance(text, str) or not text.strip():
        raise DataError(f"{loc}: template must be a non-empty string, got {text!r}")
    for slot, role in ((GENDER_SLOT, "gender"), (ATTRIBUTE_SLOT, "attribute")):
        n = text.count(slot)
        if n == 0:
            raise DataError(f"{loc}: template {text!r} has no {slot} ({role}) slot")
        if n > 1:
            raise DataError(f"{loc}: template {text!r} has {n} {slot} slots; exactly one allowed")
    return text


def _words(value: object, loc: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [w.strip() for w in value.split(",")]
    if not isinstance(value, Sequence) or isinstance(value, (bytes, bytearray)):
        raise DataError(f"{loc}: expected a list of words, got {type(value).__name__}")
    out: list[str] = []
    for i, w in enumerate(value):
        if not isinstance(w, (str, int, float)) or not str(w).strip():
            raise DataError(f"{loc}[{i}]: empty or non-text word {w!r}")
        out.append(str(w).strip())
    if not out:
        raise DataError(f"{loc}: word set is empty")
    return tuple(out)


def _targets(value: object, loc: str) -> TargetSets:
    if not isinstance(value, Mapping):
        raise DataError(f"{loc}: targets must be a mapping with keys 'male' and 'female'")
    missing = [k for k in ("male", "female") if k not in value]
    if missing:
        raise DataError(f"{loc}: targets lack {', '.join(repr(m) for m in missing)}")
    male = _words(value["male"], f"{loc}.male")
    female = _words(value["female"], f"{loc}.female")
    both = set(male) & set(female)
    if both:
        raise DataError(f"{loc}: words in both target sets: {sorted(both)}")
    return TargetSets(male, female)


def _read_structured(path: Path) -> Any:
    """YAML/JSON file contents (JSON is parsed by the YAML parser too)."""
    text = read_text(path, "template file")
    try:
        if path.suffix.lower() in (".json", ".jsonl"):
            return json.loads(text)
        return yaml.safe_load(text)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        line = line + 1 if line is not None else getattr(exc, "lineno", None)
        msg = str(exc).splitlines()[0]
        raise DataError(f"{where(path, line)}: cannot parse: {msg}") from None


def _read_lines(path: Path) -> list[tuple[int, str]]:
    out = []
    for i, raw in enumerate(read_text(path, "template file").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            out.append((i, line))
    return out


# -- word sets ------------------------------------------------------
def load_word_list(path: str | Path, key: str | None = None) -> tuple[str, ...]:
    """One word list: ``.txt`` (one per line), a YAML/JSON list, a mapping (``key``
    picks the entry) or a SEAT test file (``key`` = targ1/targ2/attr1/attr2)."""
    p = Path(path)
    if p.suffix.lower() == ".txt":
        words = tuple(w for _, w in _read_lines(p))
        if not words:
            raise DataError(f"{p}: word list is empty")
        return words
    data = _read_structured(p)
    if isinstance(data, Mapping):
        if key is None:
            raise DataError(f"{p}: holds several word sets {sorted(data)}; say which with 'key'")
        if key not in data:
            raise DataError(f"{p}: no word set {key!r} (has {sorted(data)})")
        data = data[key]
        if isinstance(data, Mapping) and "examples" in data:  # SEAT format
            data = data["examples"]
    return _words(data, f"{p}: {key}" if key else str(p))


# -- templates and tests ------------------------------------------------------
def _template(entry: object, default: TargetSets | None, loc: str) -> Template:
    if isinstance(entry, str):
        text, targets = entry, None
    elif isinstance(entry, Mapping):
        if "text" not in entry:
            raise DataError(f"{loc}: template entry lacks 'text'")
        text, targets = entry["text"], entry.get("targets")
    else:
        raise DataError(f"{loc}: template must be a string or a mapping, got {entry!r}")
    check_template(text, loc)
    if targets is not None:
        sets = _targets(targets, f"{loc}.targets")
    elif default is not None:
        sets = default
    else:
        raise DataError(f"{loc}: no gender targets for template {text!r} (give 'targets')")
    return Template(str(text), sets)


def load_templates(path: str | Path, default_targets: TargetSets | None = None
                   ) -> tuple[Template, ...]:
    """Templates from a ``.txt`` file (one per line) or a YAML/JSON list/mapping."""
    p = Path(path)
    default = default_targets
    if p.suffix.lower() == ".txt":
        entries = [(where(p, i), line) for i, line in _read_lines(p)]
    else:
        data = _read_structured(p)
        if isinstance(data, Mapping):
            if "targets" in data:
                default = _targets(data["targets"], f"{p}: targets")
            if "templates" not in data:
                raise DataError(f"{p}: no 'templates' list")
            data = data["templates"]
        if not isinstance(data, list):
            raise DataError(f"{p}: expected a list of templates")
        entries = [(f"{p}: templates[{i}]", e) for i, e in enumerate(data)]
    if not entries:
        raise DataError(f"{p}: no templates")
    return tuple(_template(e, default, loc) for loc, e in entries)


def _attribute_set(name: str, value: object, base: Path, loc: str) -> AttributeSet:
    if isinstance(value, Mapping):
        if "file" not in value:
            raise DataError(f"{loc}: attribute set mapping needs 'file' (and optional 'key')")
        fp = Path(str(value["file"]))
        fp = fp if fp.is_absolute() else base / fp
        return AttributeSet(name, load_word_list(fp, value.get("key")))
    return AttributeSet(name, _words(value, loc))


def _test(name: str, spec: object, default: TargetSets | None, path: Path,
          loc: str) -> LpbsTest:
    if not isinstance(spec, Mapping):
        raise DataError(f"{loc}: test must be a mapping")
    if "targets" in spec:
        default = _targets(spec["targets"], f"{loc}.targets")
    tmpl = spec.get("templates")
    if not isinstance(tmpl, list) or not tmpl:
        raise DataError(f"{loc}: test needs a non-empty 'templates' list")
    templates = tuple(_template(e, default, f"{loc}.templates[{i}]") for i, e in enumerate(tmpl))
    attrs = spec.get("attributes")
    if not isinstance(attrs, Mapping) or len(attrs) != 2:
        raise DataError(f"{loc}: test needs exactly two attribute sets under 'attributes'")
    (nx, vx), (ny, vy) = attrs.items()
    x = _attribute_set(str(nx), vx, path.parent, f"{loc}.attributes.{nx}")
    y = _attribute_set(str(ny), vy, path.parent, f"{loc}.attributes.{ny}")
    both = set(x.words) & set(y.words)
    if both:
        raise DataError(f"{loc}.attributes: words in both attribute sets: {sorted(both)}")
    return LpbsTest(name, templates, x, y, str(spec.get("description", "")),
                    str(spec.get("source", "")), (str(path),))


def load_tests(path: str | Path) -> dict[str, LpbsTest]:
    """All tests of a test file (see the module docstring for the format)."""
    p = Path(path)
    data = _read_structured(p)
    if not isinstance(data, Mapping):
        raise DataError(f"{p}: expected a mapping with 'tests' (or one test's keys)")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise DataError(f"{p}: unknown format {fmt!r} (expected {FORMAT!r})")
    default = _targets(data["targets"], f"{p}: targets") if "targets" in data else None
    if "tests" in data:
        tests = data["tests"]
        if not isinstance(tests, Mapping) or not tests:
            raise DataError(f"{p}: tests: expected a non-empty mapping of test names")
        return {str(n): _test(str(n), s, default, p, f"{p}: tests.{n}") for n, s in tests.items()}
    name = str(data.get("name", p.stem))
    return {name: _test(name, data, default, p, str(p))}


RESOURCES = Path(__file__).resolve().parent.parent / "resources"


def builtin_tests() -> dict[str, LpbsTest]:
    """The tests shipped with genderscope (career-family, math-arts, science-arts, ...)."""
    return load_tests(RESOURCES / BUILTIN_TESTS)


def resolve_test(test: str, templates: str | Path | None = None) -> LpbsTest:
    """A built-in test by name or the single test of a file (``file.yaml`` or
    ``file.yaml:name``); ``templates`` replaces the test's templates (targets
    default to the test's first template's targets)."""
    tests = builtin_tests()
    if test in tests:
        chosen = tests[test]
    else:
        path, _, name = test.partition(":") if ":" in test and not Path(test).exists() \
            else (test, "", "")
        if not Path(path).exists():
            raise DataError(f"unknown LPBS test {test!r}: not a built-in test "
                            f"({', '.join(sorted(tests))}) and no such file")
        found = load_tests(path)
        if name:
            if name not in found:
                raise DataError(f"{path}: no test {name!r} (has {', '.join(sorted(found))})")
            chosen = found[name]
        elif len(found) == 1:
            chosen = next(iter(found.values()))
        else:
            raise DataError(f"{path}: holds tests {', '.join(sorted(found))}; "
                            f"pick one with {path}:NAME")
    if templates is not None:
        new = load_templates(templates, chosen.templates[0].targets)
        chosen = LpbsTest(chosen.name, new, chosen.x, chosen.y, chosen.description,
                          chosen.source, (*chosen.files, str(templates)))
    return chosen
