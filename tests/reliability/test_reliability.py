"""Issue 16, items 6-8 beyond the bad-input table: outputs all or nothing, no silent
replacing, BOM in vector files, classifier SPECs that run code say so."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.errors import GenderscopeError
from genderscope.outputs import check_output_file, save_with_figures
from genderscope.results import Result
from genderscope.store import Store

sys.path.insert(0, str(Path(__file__).parents[1]))
from reliability_table import CASES  # noqa: E402  (every case on docs/reliability.md)


def _result() -> Result:
    return Result("toy", {"x": 1.0}, pd.DataFrame({"a": [1, 2]}), {"model": {"fingerprint": "f"}})


def test_failing_figure_leaves_nothing(tmp_path: Path) -> None:
    def draw(path: Path) -> None:
        raise RuntimeError("cannot draw")

    with pytest.raises(RuntimeError):
        save_with_figures(_result(), tmp_path / "out", {tmp_path / "out" / "f.png": draw})
    assert not (tmp_path / "out").exists()


def test_figures_land_next_to_results(tmp_path: Path) -> None:
    def draw(path: Path) -> None:  # two files from one base name, like plot_change
        path.with_suffix(".png").write_bytes(b"png")
        path.with_suffix(".svg").write_bytes(b"svg")

    save_with_figures(_result(), tmp_path / "out", {tmp_path / "out" / "change": draw})
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".genderscope-output", "change.png", "change.svg", "items.csv", "summary.json"]


def test_cli_plot_failure_writes_and_records_nothing(tmp_path: Path, monkeypatch) -> None:
    from genderscope.measures import amplification

    def broken(result, path, **_):
        raise GenderscopeError("figure failed")

    monkeypatch.setattr(amplification, "plot_amplification", broken)
    (tmp_path / "c.txt").write_text("a man is cooking\na woman is cooking\n")
    (tmp_path / "o.txt").write_text("cooking\n")
    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(app, ["run", "bias-amplification", "--train", str(tmp_path / "c.txt"),
                                 "--generated", str(tmp_path / "c.txt"), "--objects",
                                 str(tmp_path / "o.txt"), "--out", str(tmp_path / "out"),
                                 "--store", str(store)])
    assert r.exit_code != 0 and "figure failed" in str(r.exception)
    assert not (tmp_path / "out").exists()
    if store.exists():
        s = Store(store)
        assert s.list_runs() == []
        s.close()


def test_export_replaces_only_with_overwrite(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    s = Store(store)
    s.record_run(_result())
    s.close()
    out = tmp_path / "e.csv"
    out.write_text("mine\n")
    args = ["runs", "export", "--out", str(out), "--store", str(store)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code != 0 and "--overwrite" in str(r.exception)
    assert out.read_text() == "mine\n"
    r = CliRunner().invoke(app, [*args, "--overwrite"])
    assert r.exit_code == 0, r.output
    assert "run_id" in out.read_text()


def test_report_out_checked_for_overwrite(tmp_path: Path) -> None:
    from genderscope.reporting.html import check_writable

    page = tmp_path / "r.html"
    page.write_text("mine")
    with pytest.raises(GenderscopeError, match="--overwrite"):
        check_writable(page)
    check_writable(page, overwrite=True)
    assert page.read_text() == "mine"
    with pytest.raises(GenderscopeError, match="already exists"):
        check_output_file(page, "--out", overwrite=False)


def test_bom_in_vector_file_is_not_part_of_the_first_word(tmp_path: Path) -> None:
    from genderscope.models.vectors import load_vectors

    rows = "he 0.1 0.2\nshe 0.3 0.4\n"
    (tmp_path / "g.txt").write_bytes(b"\xef\xbb\xbf" + rows.encode())
    (tmp_path / "w.txt").write_bytes(b"\xef\xbb\xbf2 2\n" + rows.encode())
    for name in ("g.txt", "w.txt"):
        vec = load_vectors(tmp_path / name)
        assert "he" in vec and "\ufeffhe" not in vec
        np.testing.assert_allclose(vec.vectors(["he"])[0], [0.1, 0.2], rtol=1e-6)


@pytest.mark.parametrize("command", [["run", "counterfactual"], ["attack"], ["report"]])
def test_classifier_specs_that_run_code_say_so(command: list[str]) -> None:
    r = CliRunner().invoke(app, [*command, "--help"], terminal_width=200)
    text = " ".join(r.output.split())
    assert ".pkl" in text and "run code" in text.lower()


def test_reliability_doc_lists_every_case() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "reliability.md").read_text()
    for case in CASES:
        assert f"| {case.what} |" in doc, f"rerun tests/reliability_table.py ({case.what})"


# -- issue 24, item 4: inputs longer than the model's context -----------------------------
@pytest.mark.parametrize("fixture", ["tiny_gpt2", "tiny_roberta", "tiny_bert"])
def test_input_longer_than_the_model_is_refused_by_name(fixture: str, request) -> None:
    adapter = request.getfixturevalue(fixture)
    long_text = "the doctor said that " + "she " * 700 + "was right"
    score = (adapter.log_likelihood if hasattr(adapter, "log_likelihood")
             else adapter.pseudo_log_likelihood)
    with pytest.raises(GenderscopeError, match=r"longer than the model's limit of \d+ "
                                               r"positions: 'the doctor said"):
        score([long_text])
    assert np.isfinite(score(["the doctor said she was right"])[0].total)


def test_crows_pairs_with_a_tokenizer_that_yields_nothing_is_refused() -> None:
    from fake_lm import FakeCausal

    from genderscope.measures.crows_pairs import score_pairs

    class Empty(FakeCausal):
        def lp(self, word: str) -> float:
            return 0.0

        def log_likelihood(self, texts, *, progress=False):
            from genderscope.models.base import SeqScore

            return [SeqScore(0.0, 0, (), ()) for _ in texts]

    with pytest.raises(GenderscopeError, match="scored no token"):
        score_pairs(Empty(), [("He is a doctor.", "She is a doctor.")])
    a, b, n = score_pairs(FakeCausal(), [("He is a doctor.", "She is a doctor.")])
    assert n[0] > 0
