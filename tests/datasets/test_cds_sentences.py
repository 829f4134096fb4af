"""CDS fine-tuning units: sentences (Punkt, as Bartl et al. 2020) by default, passages
as an option; the help says which corpus mode matches the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.datasets.corpus import load_corpus, split_sentences
from genderscope.errors import DataError, GenderscopeError

PASSAGES = ["Dr. Smith met his sister in St. Louis. He was 5.5 years older than her.",
            "The king spoke. His people listened!"]


def test_punkt_splits_sentences_not_abbreviations() -> None:
    assert split_sentences(PASSAGES) == [
        "Dr. Smith met his sister in St. Louis.", "He was 5.5 years older than her.",
        "The king spoke.", "His people listened!"]
    with pytest.raises(DataError, match="no sentence splitter for language 'klingon'"):
        split_sentences(PASSAGES, language="klingon")


def test_gap_passage_splits_into_its_sentences(data_dir: Path) -> None:
    first = load_corpus("gap-flipped-bartl", limit=1).texts
    sents = split_sentences(first)
    assert len(sents) > 1 and " ".join(sents).split() == first[0].split()


def _train(tmp_path: Path, model: Path, *extra: str) -> tuple[list[str], dict]:
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(PASSAGES) + "\n", encoding="utf-8")
    out = tmp_path / ("out" + "".join(extra).replace("-", ""))
    res = CliRunner().invoke(app, ["debias", "cds", "--model", str(model), "--corpus",
                                   str(corpus), "--out", str(out), "--mode", "none",
                                   "--epochs", "1", "--max-steps", "1", *extra])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x)["text"] for x in
             (out / "training_corpus.jsonl").read_text().splitlines()]
    return lines, json.loads((out / "manifest.json").read_text())["data"]


@pytest.mark.slow
def test_debias_trains_on_sentences_by_default(tiny_bert_dir: Path, tmp_path: Path) -> None:
    lines, data = _train(tmp_path, tiny_bert_dir)
    assert lines == split_sentences(PASSAGES) and len(lines) == 4
    assert data["unit"] == "sentence" and data["sentences"]["n_sentences"] == 4
    lines, data = _train(tmp_path, tiny_bert_dir, "--unit", "passage")
    assert lines == PASSAGES and data["unit"] == "passage"


def test_bad_unit_refused_before_anything_is_written(tiny_bert_dir: Path,
                                                     tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["debias", "cds", "--model", str(tiny_bert_dir), "--corpus",
                                   "gap", "--out", str(tmp_path / "o"), "--unit", "words"])
    assert isinstance(res.exception, GenderscopeError) and "--unit" in str(res.exception)
    assert not (tmp_path / "o").exists()


def test_help_names_the_papers_setup() -> None:
    res = CliRunner().invoke(app, ["debias", "cds", "--help"], terminal_width=200)
    text = " ".join(res.output.split())
    assert "Bartl et al. (2020) setup: --corpus gap-flipped-bartl --mode none" in text
    assert "Maudslay et al.'s (2019) CDS instead" in text and "--unit" in text
