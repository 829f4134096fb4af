"""The repository a new user reads (issue 41, items 2, 8 and 11): a LICENSE that says
what pyproject.toml says, a CONTRIBUTING.md that leads to the guide, and user-facing
text that speaks of the user's machine, not the project's: no "this machine", no
issue numbers, no lock files around commands."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
USER_DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
"""The README and the guides (docs/results/ holds records of runs, commands as run)."""
EVERY_DOC = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
"""Every page a user reads: the guides, docs/measures/ and docs/results/ (what a page
names, an issue number or "this machine", means nothing outside the project's tracker
and its machines, wherever the page sits)."""
LOCKED = [*USER_DOCS, *sorted((REPO / "docs" / "measures").glob("*.md")),
          *sorted((REPO / "examples").glob("*.py"))]


def _prose(path: Path) -> list[tuple[int, str]]:
    """Numbered lines outside fenced code blocks, less quoted program output
    (``error: ...`` in the tables of docs/reliability.md)."""
    out, fenced = [], False
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append((k, re.sub(r"error: [^|]*", "", line)))
    return out


def _hits(paths: list[Path], pattern: str) -> list[str]:
    found = re.compile(pattern, re.I)
    return [f"{p.relative_to(REPO)}:{k}: {line.strip()[:100]}" for p in paths
            for k, line in _prose(p) if found.search(line)]


def test_license_is_the_mit_licence_pyproject_names() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == {"text": "MIT"}
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the genderscope authors" in text
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


def test_contributing_leads_to_the_guide_and_its_sections() -> None:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    guide = (REPO / "docs" / "contributing.md").read_text(encoding="utf-8")
    for link in re.findall(r"\]\(([^)#]+)(?:#([^)]+))?\)", text):
        assert (REPO / link[0]).exists(), link
        if link[1]:
            headings = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
                        for h in re.findall(r"^#+ (.+)$", guide, re.M)}
            assert link[1] in headings, link
    assert "docs/contributing.md#recording-a-benchmark" in text
    for needed in ("--record", "benchmarks/speed_table.py", "benchrecord.py", "--check"):
        assert needed in guide, needed


THIS_MACHINE = r"\bthis (?:[\w-]+ ){0,3}machines?\b"
"""'this machine', also with words between ('this shared 2-core machine')."""
ISSUE = r"\bissues?[\s#-]*\d+"
"""An issue number: 'issue 22', 'issues 11', 'issue #4', 'the issue-11 rerun', 'issue4'."""


def test_user_docs_do_not_say_this_machine() -> None:
    assert len(EVERY_DOC) > len(USER_DOCS) + 20  # docs/measures/ and docs/results/ too
    assert not _hits(EVERY_DOC, THIS_MACHINE)


def test_user_docs_cite_no_issue_numbers() -> None:
    assert not _hits(EVERY_DOC, ISSUE)
    assert not [p.name for p in EVERY_DOC if re.search(ISSUE, p.name, re.I)]
    broken = [f"{p.relative_to(REPO)}:{k}" for p in EVERY_DOC  # "issue\n22"
              for (k, a), (_, b) in zip(_prose(p), _prose(p)[1:], strict=False)
              if re.search(r"\bissues?$", a.rstrip(), re.I) and re.match(r"\s*#?\d", b)]
    assert not broken


@pytest.mark.parametrize(("text", "pattern"), [
    ("on this shared 2-core machine", THIS_MACHINE), ("for this machine's data", THIS_MACHINE),
    ("## Since issue 22 (2026-11-24)", ISSUE), ("the issue-11 rerun", ISSUE),
    ("(issue4_english_smollm2.md)", ISSUE)])
def test_the_patterns_find_what_the_audit_found(text: str, pattern: str) -> None:
    assert re.search(pattern, text, re.I)


def test_no_user_text_wraps_commands_in_a_lock() -> None:
    assert not _hits(LOCKED, r"\bflock\b|\block ?file\b|gs-heavy\.lock")


def test_every_code_block_closes_on_a_bare_fence() -> None:
    """A closing fence with text after it ("``` Options are ...") is no fence in Markdown:
    the rest of the page renders as code."""
    bad = []
    for p in [*USER_DOCS, *sorted((REPO / "docs" / "measures").glob("*.md"))]:
        fenced = False
        for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                if fenced and line.strip() != "```":
                    bad.append(f"{p.relative_to(REPO)}:{k}")
                fenced = not fenced
    assert not bad


def _expand_braces(path: str) -> list[str]:
    """``tests/x/test_{a,b}.py`` -> both paths (bash brace expansion, one level)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if m is None:
        return [path]
    return [p for alt in m.group(1).split(",")
            for p in _expand_braces(path[:m.start()] + alt + path[m.end():])]


def test_every_test_file_the_install_check_runs_exists() -> None:
    """scripts/check_install_beside_torch.sh part D (and docs/install.md's copy) name test
    files: a moved file would make pytest stop with 'file or directory not found'."""
    named = [p for f in (REPO / "scripts" / "check_install_beside_torch.sh",
                         REPO / "docs" / "install.md")
             for m in re.findall(r"(?:REPO|\"\$repo\")/(tests/[\w/{},]+\.py)",
                                 f.read_text(encoding="utf-8"))
             for p in _expand_braces(m)]
    assert len(named) > 10
    assert [p for p in named if not (REPO / p).is_file()] == []


def test_ci_runs_the_readme_s_test_command_and_fails_when_it_fails(tmp_path: Path) -> None:
    """.ci/run calls the README's test command as written, and a failure inside it stops
    the script with a non-zero exit (``set -e`` alone ignores a failure inside ``&&``)."""
    import subprocess

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if line.startswith("python -m pytest"))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    line = next(x for x in ci.splitlines() if x.startswith(command))
    # the same line with each test run replaced by `false` must stop a `set -e` script
    script = tmp_path / "ci.sh"
    script.write_text("set -euo pipefail\n" + line.replace(command, "false && true")
                      + "\necho still-running\n", encoding="utf-8")
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    assert done.returncode != 0 and "still-running" not in done.stdout
