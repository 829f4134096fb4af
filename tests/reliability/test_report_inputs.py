"""``genderscope report`` never writes over what it reads (issue 37, data loss): the
results store, a vector file, a model or data given to it, ``--overwrite`` or not."""

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
        args += ["--texts", str(texts), "--classifier", "no.joblib", "--out", str(texts),
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
