"""Training-corpus loader for `debias cds`: files, built-in GAP, bad input."""

from __future__ import annotations

import pytest

from genderscope.datasets.corpus import load_corpus
from genderscope.errors import DataError


def test_builtin_gap(data_dir, monkeypatch):
    monkeypatch.setenv("GENDERSCOPE_DATA", str(data_dir))
    c = load_corpus("gap")
    assert len(c.texts) == 4454 and c.texts[0].startswith("Zoe Telford")
    assert len(c.files) == 3 and len(c.sha256) == 64
    flipped = load_corpus("gap-flipped-bartl", limit=10)
    assert len(flipped.texts) == 10 and flipped.describe()["n_documents"] == 10


def test_file_formats(tmp_path):
    (tmp_path / "a.txt").write_text("one\n\ntwo\n", encoding="utf-8")
    (tmp_path / "b.tsv").write_text("id\tText\n1\tHe ran.\n2\tShe sat.\n", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text('{"text": "x"}\n\n{"text": "y"}\n', encoding="utf-8")
    assert load_corpus(tmp_path / "a.txt").texts == ["one", "two"]
    assert load_corpus(tmp_path / "b.tsv").texts == ["He ran.", "She sat."]
    assert load_corpus(tmp_path / "c.jsonl").texts == ["x", "y"]


def test_bad_corpora(tmp_path):
    with pytest.raises(DataError, match="not found"):
        load_corpus(tmp_path / "none.txt")
    with pytest.raises(DataError, match="folder"):
        load_corpus(tmp_path)
    (tmp_path / "e.txt").write_text("  \n", encoding="utf-8")
    with pytest.raises(DataError, match="empty"):
        load_corpus(tmp_path / "e.txt")
    (tmp_path / "n.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DataError, match="no 'text' column"):
        load_corpus(tmp_path / "n.csv")
    (tmp_path / "j.jsonl").write_text('{"text": 1}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"j.jsonl:1"):
        load_corpus(tmp_path / "j.jsonl")
    (tmp_path / "k.jsonl").write_text("{oops\n", encoding="utf-8")
    with pytest.raises(DataError, match="invalid JSON"):
        load_corpus(tmp_path / "k.jsonl")


def test_builtin_corpus_found_like_every_benchmark(tmp_path, monkeypatch):
    """Built-in corpora are located by datasets.locations: $GENDERSCOPE_DATA's copy
    first, else the copy packaged with genderscope (no shared/ folder is consulted)."""
    root = tmp_path / "mine" / "gap-flipped-bartl"
    root.mkdir(parents=True)
    (root / "gap_flipped.tsv").write_text("ID\tText\n1\tShe sat.\n2\tHe ran.\n")
    work = tmp_path / "up" / "work"
    (work.parent / "shared" / "data" / "gap").mkdir(parents=True)  # ignored
    monkeypatch.chdir(work.parent)
    monkeypatch.setenv("GENDERSCOPE_DATA", str(tmp_path / "mine"))
    assert load_corpus("gap-flipped-bartl").texts == ["She sat.", "He ran."]
    packaged = load_corpus("gap")  # not in $GENDERSCOPE_DATA: the packaged GAP
    assert len(packaged.texts) == 4454
    monkeypatch.delenv("GENDERSCOPE_DATA")
    assert len(load_corpus("gap-flipped-bartl").texts) == 4454
