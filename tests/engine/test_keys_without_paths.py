"""Reuse keys depend on the data's content, never on where it lies (issue 35): the same
files copied to another folder give the same key, so a stored run made from ``/a/x`` is
reused for ``/b/x`` and two users' stores agree (``engine/keys.py``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genderscope.engine import run_key

TEMPLATES = "\n".join(["GGG likes XXX.", "GGG is good at XXX."]) + "\n"
LPBS_TEST = """format: genderscope-templates/1
targets:
  male: [he]
  female: [she]
tests:
  moved:
    templates:
      - text: "GGG likes XXX."
    attributes:
      math: [math, algebra, geometry, calculus]
      arts: [poetry, art, dance, literature]
"""


class Fingerprinted:
    """A model known by its fingerprint only: what a key needs, no weights."""

    def describe(self) -> dict[str, Any]:
        return {"fingerprint": "fingerprinted-model", "kind": "causal"}


def _copies(data_dir: Path, tmp_path: Path, folder: str) -> tuple[Path, Path]:
    """``folder`` of the test data at two places (different depths and names above it)."""
    a, b = tmp_path / "a", tmp_path / "elsewhere" / "b"
    for root in (a, b):
        shutil.copytree(data_dir / folder, root / folder)
    return a, b


@pytest.mark.parametrize(("measure", "folder", "options"), [
    ("crows-pairs", "crows-pairs", {}),
    ("winobias", "winobias", {}),
    ("stereoset", "stereoset", {}),
    ("downstream", "stereoset", {}),
    ("dawinobias", "genda-lens", {}),
    ("abc", "genda-lens", {"lang": "da"}),
])
def test_moved_data_keeps_the_key(measure: str, folder: str, options: dict[str, Any],
                                  data_dir: Path, tmp_path: Path) -> None:
    a, b = _copies(data_dir, tmp_path, folder)
    key_a = run_key(measure, Fingerprinted(), data=a, limit=6, **options)
    assert key_a is not None
    assert run_key(measure, Fingerprinted(), data=b, limit=6, **options) == key_a
    assert run_key(measure, Fingerprinted(), data=b / folder, limit=6, **options) == key_a
    assert run_key(measure, Fingerprinted(), data=a, limit=7, **options) != key_a


def test_a_perplexity_corpus_file_is_keyed_by_its_content(tmp_path: Path) -> None:
    text = "\n".join(f"Sentence number {i} is long enough to be kept here." for i in range(9))
    files = [tmp_path / "a" / "held_out.txt", tmp_path / "b" / "c" / "held_out.txt"]
    for f in files:
        f.parent.mkdir(parents=True)
        f.write_text(text + "\n", encoding="utf-8")
    keys = [run_key("perplexity", Fingerprinted(), corpus=str(f), limit=5) for f in files]
    assert keys[0] is not None and keys[0] == keys[1]
    files[1].write_text(text.replace("number 3", "number three") + "\n", encoding="utf-8")
    assert run_key("perplexity", Fingerprinted(), corpus=str(files[1]), limit=5) != keys[0]


def test_an_lpbs_test_file_and_templates_are_keyed_by_their_content(tmp_path: Path) -> None:
    keys = []
    for where in (tmp_path / "a", tmp_path / "b" / "c"):
        where.mkdir(parents=True)
        (where / "test.yaml").write_text(LPBS_TEST, encoding="utf-8")
        (where / "templates.txt").write_text(TEMPLATES, encoding="utf-8")
        keys.append((run_key("lpbs", Fingerprinted(), test=str(where / "test.yaml")),
                     run_key("lpbs", Fingerprinted(), test=str(where / "test.yaml"),
                             templates=where / "templates.txt"),
                     run_key("lpbs", Fingerprinted(), test="career-family",
                             templates=where / "templates.txt")))
    assert None not in keys[0] and len(set(keys[0])) == 3
    assert keys[0] == keys[1]
    (tmp_path / "b" / "c" / "templates.txt").write_text(TEMPLATES.replace("good", "bad"),
                                                        encoding="utf-8")
    assert run_key("lpbs", Fingerprinted(), test="career-family",
                   templates=tmp_path / "b" / "c" / "templates.txt") != keys[0][2]


def test_a_run_is_reused_for_the_same_data_in_another_folder(
        data_dir: Path, tmp_path: Path, tiny_gpt2_dir: Path) -> None:
    """``genderscope run crows-pairs --data A`` then ``--data B`` (a copy): the stored run."""
    from genderscope.cli.app import app

    a, b = _copies(data_dir, tmp_path, "crows-pairs")
    runs = []
    for data in (a, b / "crows-pairs"):
        res = CliRunner().invoke(app, [
            "run", "crows-pairs", "--model", str(tiny_gpt2_dir), "--data", str(data),
            "--limit", "4", "--no-progress", "--store", str(tmp_path / "s.sqlite"), "--json"])
        assert res.exit_code == 0, res.output
        runs.append(json.loads(res.stdout))
    assert not runs[0]["reused"] and runs[1]["reused"]
    assert runs[1]["run_id"] == runs[0]["run_id"]
    assert runs[1]["summary"] == runs[0]["summary"]
