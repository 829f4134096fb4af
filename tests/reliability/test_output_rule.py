"""Issue 24, item 1: the one output rule. Nothing a user owns is deleted or overwritten:
each case here lost data before the rule (genderscope/outputs.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from cli_main import run_main

import genderscope as gs
from genderscope import outputs
from genderscope.errors import GenderscopeError
from genderscope.results import Result


def _cli(*args: str) -> tuple[int, str]:
    """The real entry point in-process: (exit code, stderr + stdout)."""
    code, err, out = run_main(*args)
    return code, err + out


def _mine(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "thesis.txt").write_text("years of work")
    return folder


def _cds(model: str, out: str, corpus: str, *extra: str) -> tuple[int, str]:
    return _cli("debias", "cds", "--model", model, "--corpus", corpus, "--out", out,
                "--max-steps", "1", "--no-progress", *extra)


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    p = tmp_path / "corpus.txt"
    p.write_text("He is a doctor.\nShe is a nurse.\n")
    return p


def test_debias_overwrite_with_a_missing_model_keeps_the_folder(tmp_path, corpus,
                                                                 monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = _mine(tmp_path / "res")
    code, out = _cds("./missing", "res", str(corpus), "--overwrite")
    assert code == 2 and (res / "thesis.txt").read_text() == "years of work", out


def test_debias_out_dot_never_empties_the_current_folder(tmp_path, corpus,
                                                         monkeypatch) -> None:
    monkeypatch.chdir(_mine(tmp_path / "work"))
    code, out = _cds("./missing", ".", str(corpus), "--overwrite")
    assert code == 2 and "current folder" in out
    assert (tmp_path / "work" / "thesis.txt").is_file()
    with pytest.raises(GenderscopeError, match="current folder"):
        gs.debias("./missing", str(corpus), ".", overwrite=True)
    assert (tmp_path / "work" / "thesis.txt").is_file()


def test_debias_out_is_the_model_or_holds_the_corpus(tmp_path, tiny_bert_dir,
                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    model = tmp_path / "m"
    shutil.copytree(tiny_bert_dir, model)
    before = sorted(p.name for p in model.iterdir())
    code, out = _cds("m", "m", str(tmp_path / "m" / "config.json"), "--overwrite")
    assert code == 2 and sorted(p.name for p in model.iterdir()) == before, out
    ft = _mine(tmp_path / "ft")
    (ft / "corpus.txt").write_text("He is a doctor.\n")
    code, out = _cds(str(model), "ft", "ft/corpus.txt", "--overwrite")
    assert code == 2 and "input" in out and (ft / "corpus.txt").is_file(), out


def test_debias_overwrite_replaces_only_a_folder_it_wrote(tmp_path, tiny_bert_dir,
                                                          corpus) -> None:
    ft = tmp_path / "ft"
    code, out = _cds(str(tiny_bert_dir), str(ft), str(corpus))
    assert code == 0 and (ft / outputs.MARKER).is_file() and (ft / "manifest.json").is_file(), out
    first = (ft / "manifest.json").read_text()
    code, out = _cds(str(tiny_bert_dir), str(ft), str(corpus), "--overwrite")
    assert code == 0 and (ft / "manifest.json").read_text() != first, out
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_report_tmp_link_is_not_followed(tmp_path: Path, monkeypatch) -> None:
    from genderscope.reporting import html

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "r.html.tmp"
    link.symlink_to(victim)
    monkeypatch.setattr(html, "render", lambda data, extra="": "<p>page</p>")
    html.write(None, tmp_path / "r.html")  # type: ignore[arg-type]
    assert victim.read_text() == "precious" and link.is_symlink()
    assert (tmp_path / "r.html").read_text() == "<p>page</p>"


def test_report_refuses_a_device_or_special_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out = _cli("report", "--vectors", "x.txt", "--out", str(fifo), "--overwrite")
    assert code == 2 and "special file" in out, out
    assert fifo.exists() and not fifo.is_file()


def test_run_out_does_not_replace_a_users_summary(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "summary.json").write_text('{"mine": true}')
    (tmp_path / "c.txt").write_text("a man is cooking\na woman is cooking\n")
    (tmp_path / "o.txt").write_text("cooking\n")
    code, out = _cli("run", "bias-amplification", "--train", str(tmp_path / "c.txt"),
                     "--generated", str(tmp_path / "c.txt"), "--objects",
                     str(tmp_path / "o.txt"), "--out", str(mine))
    assert code == 2 and "did not write" in out, out
    assert (mine / "summary.json").read_text() == '{"mine": true}'
    # a folder genderscope wrote is rewritten by the next run
    code, out = _cli("run", "bias-amplification", "--train", str(tmp_path / "c.txt"),
                     "--generated", str(tmp_path / "c.txt"), "--objects",
                     str(tmp_path / "o.txt"), "--out", str(tmp_path / "ours"))
    code2, out2 = _cli("run", "bias-amplification", "--train", str(tmp_path / "c.txt"),
                       "--generated", str(tmp_path / "c.txt"), "--objects",
                       str(tmp_path / "o.txt"), "--out", str(tmp_path / "ours"), "--seed", "1")
    assert code == code2 == 0, out + out2


def test_runs_export_does_not_follow_a_dangling_link(tmp_path: Path) -> None:
    from genderscope.store import Store

    st = Store(tmp_path / "s.sqlite")
    st.record_run(Result("toy", {"x": 1.0}, pd.DataFrame({"a": [1]}),
                         {"model": {"fingerprint": "f"}}))
    st.close()
    (tmp_path / "link.csv").symlink_to(tmp_path / "outside" / "escaped.csv")
    (tmp_path / "outside").mkdir()
    code, out = _cli("runs", "export", "--out", str(tmp_path / "link.csv"), "--store",
                     str(tmp_path / "s.sqlite"), "--overwrite")
    assert code == 2 and "symbolic link" in out, out
    assert not (tmp_path / "outside" / "escaped.csv").exists()


def test_result_save_onto_a_file_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("mine")
    with pytest.raises(GenderscopeError, match="is a file"):
        Result("toy", {}, pd.DataFrame({"a": [1]})).save(f)
    assert f.read_text() == "mine"


def test_report_out_of_the_wrong_type_is_a_type_error() -> None:
    """A GenderscopeError naming the function and the argument (issue 37), and still a
    TypeError."""
    with pytest.raises(GenderscopeError, match="gs.report: out must be a path") as info:
        gs.report(vectors=["v.txt"], out=123)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)
