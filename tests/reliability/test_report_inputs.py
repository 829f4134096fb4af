"""``genderscope report`` never writes over what it reads (issue 37, data loss): the
results store, a vector file, a model or data given to it, ``--overwrite`` or not. Its
classifier SPECs, texts and start token are checked before any model loads or anything is
written (:mod:`genderscope.reporting.inputs`); what only a run shows is a failed section."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from genderscope.cli.app import main
from genderscope.store import Store


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("target", ["store", "vectors", "store-env", "texts"])
def test_report_out_never_replaces_an_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str],
                                            target: str) -> None:
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "store.sqlite"
    Store(store).close()
    vec = tmp_path / "vec.txt"
    vec.write_text("he 0.1 0.2\nshe 0.2 0.1\n", encoding="utf-8")
    texts = tmp_path / "texts.txt"
    texts.write_text("a text\n", encoding="utf-8")
    args = ["report", "--vectors", str(vec), "--quick", "--no-progress", "--overwrite"]
    if target == "store-env":
        monkeypatch.setenv("GENDERSCOPE_STORE", str(store))
        args += ["--out", str(store)]
    elif target == "texts":
        clf = tmp_path / "clf.joblib"  # only its name is checked before --out is refused
        clf.write_bytes(b"not read")
        args += ["--texts", str(texts), "--classifier", str(clf), "--out", str(texts),
                 "--store", str(store)]
    else:
        args += ["--out", str({"store": store, "vectors": vec}[target]), "--store",
                 str(store)]
    before = {p: _digest(p) for p in (store, vec, texts)}
    monkeypatch.setattr("sys.argv", ["genderscope", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "is or holds the input" in err, err
    assert len(err.splitlines()) == 1, err
    assert {p: _digest(p) for p in before} == before


def test_report_out_beside_its_inputs_is_fine(tmp_path: Path) -> None:
    """The check refuses inputs only: a new page name in the same folder passes it."""
    from genderscope.reporting.html import check_writable

    vec = tmp_path / "vec.txt"
    vec.write_text("he 0.1\n", encoding="utf-8")
    check_writable(tmp_path / "r.html", overwrite=True, inputs=[vec])
    with pytest.raises(Exception, match="is or holds the input"):
        check_writable(vec, overwrite=True, inputs=[vec])


def _report(args: list[str], monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str, str]:
    """``genderscope report ARGS``: exit code, stdout (spaces joined), stderr."""
    monkeypatch.setattr("sys.argv", ["genderscope", "report", "--no-progress", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    got = capsys.readouterr()
    return exc.value.code, " ".join(got.out.split()), got.err.strip()


@pytest.mark.parametrize(("spec", "texts", "expect"), [
    ("missing.joblib", "texts.txt", "--classifier missing.joblib: no such file"),
    ("texts.txt", "texts.txt", "--classifier texts.txt: a file, not a classifier SPEC"),
    ("sub", "texts.txt", "--classifier sub: a folder, not a classifier SPEC"),
    ("gone.py:predict", "texts.txt", "--classifier gone.py:predict: no such file gone.py"),
    ("clf.py:", "texts.txt", "'' is not a name"),
    ("no_such_module_gs.sub:f", "texts.txt", "no module named 'no_such_module_gs'"),
    ("clf.py:predict", "nocol.csv", "--texts: nocol.csv:1: no text column"),
    ("clf.py:predict", "blank.txt", "--texts: blank.txt: no texts"),
    ("clf.py:predict", "latin1.txt", "--texts: "),
])
def test_a_bad_classifier_or_texts_is_refused_before_any_work(
        spec: str, texts: str, expect: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """One line, exit 2, no store and no page: the report used to start, load nothing it
    could use, record a failed section and exit 1. No code of the SPEC runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clf.py").write_text("open('RAN', 'w').close()\n"
                                     "def predict(texts):\n    return [[0.5, 0.5]] * len(texts)\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "texts.txt").write_text("he is a doctor\n", encoding="utf-8")
    (tmp_path / "nocol.csv").write_text("id,words\n1,he is a doctor\n", encoding="utf-8")
    (tmp_path / "blank.txt").write_text("\n  \n", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9 na\xefve\n".encode("latin-1"))
    code, _, err = _report(["--classifier", spec, "--texts", texts, "--out", "r.html",
                         "--store", "s.sqlite"], monkeypatch, capsys)
    assert code == 2 and len(err.splitlines()) == 1 and expect in err, err
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "s.sqlite").exists()
    assert not (tmp_path / "RAN").exists()  # the SPEC's module was not imported


def test_gs_report_refuses_a_bad_classifier_before_work(tmp_path: Path) -> None:
    import genderscope as gs
    from genderscope.errors import GenderscopeError

    texts = tmp_path / "t.txt"
    texts.write_text("he is a doctor\n", encoding="utf-8")
    with pytest.raises(GenderscopeError, match="--classifier .*no such file"):
        gs.report(classifiers=[str(tmp_path / "nope.pkl")], texts=texts,
                  out=tmp_path / "r.html", store=tmp_path / "s.sqlite")
    with pytest.raises(GenderscopeError, match="--texts: .*no texts"):
        texts.write_text("\n", encoding="utf-8")
        gs.report(classifiers=["hf:some-model"], texts=texts, out=tmp_path / "r.html",
                  store=tmp_path / "s.sqlite")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]


def test_a_classifier_that_fails_only_when_loaded_is_a_failed_section(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A SPEC of the right form whose file is no pickle passes the checks; its failure
    shows only when it loads: the page is written with a failed section, exit 1."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clf.pkl").write_bytes(b"not a pickle")
    (tmp_path / "texts.txt").write_text("he is a doctor\nshe is a nurse\n", encoding="utf-8")
    code, out, err = _report(["--classifier", "clf.pkl", "--texts", "texts.txt", "--measure",
                         "counterfactual", "--quick", "--out", "r.html", "--store",
                         "s.sqlite"], monkeypatch, capsys)
    assert code == 1, err
    assert "counterfactual failed: cannot unpickle classifier clf.pkl" in out, out
    assert "1 measure failed" in out and (tmp_path / "r.html").is_file()
