"""Bidi and control characters in a user's names (issue 37, item 3): a vector file, a
model folder or a WEAT test named with U+202E (right-to-left override) or another
control character never reaches report.html or the terminal raw; it is shown as its code
point ("⟨U+202E⟩")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from rich.table import Table
from rich.text import Text

from genderscope.cli.app import main
from genderscope.text_blocks import visible

RLO = "\u202e"
HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _vectors(path: Path, data_dir: Path) -> Path:
    """Random vectors for every word of the report's quick WEAT tests."""
    from genderscope.datasets.seat import resolve_test
    from genderscope.reporting.cards.weat import WEAT_TESTS

    vocab = sorted({w.lower() for t in WEAT_TESTS
                    for ws in resolve_test(t, data_dir / "seat" / "tests").sets()
                    for w in ws.examples})
    rng = np.random.default_rng(0)
    path.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=8)) + "\n"
                            for w in vocab), encoding="utf-8")
    return path


def _main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.argv", ["genderscope", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_visible_shows_hidden_characters_as_code_points() -> None:
    assert visible(f"evil{RLO}txt.vec") == "evil⟨U+202E⟩txt.vec"
    assert visible("a\u200eb\u2066c\x1bd\x85e\x7f") == \
        "a⟨U+200E⟩b⟨U+2066⟩c⟨U+001B⟩d⟨U+0085⟩e⟨U+007F⟩"
    assert visible("two\tcolumns\nand lines, déjà vu, 日本") == \
        "two\tcolumns\nand lines, déjà vu, 日本"


@pytest.mark.parametrize("hidden", [RLO, "\u2067", "\x1b"])
def test_report_with_a_vector_file_named_with_bidi_characters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        data_dir: Path, hidden: str) -> None:
    monkeypatch.chdir(tmp_path)
    vec = _vectors(tmp_path / f"evil{hidden}txt.vec", data_dir)
    page = tmp_path / "r.html"
    code, out, err = _main(monkeypatch, capsys, "report", "--vectors", str(vec), "--quick",
                           "--no-progress", "--out", str(page), "--store",
                           str(tmp_path / "s.sqlite"))
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert "weat6" in text
    assert HIDDEN.search(text) is None
    shown = f"evil⟨U+{ord(hidden):04X}⟩txt.vec"
    assert f"<title>genderscope report: {tmp_path}/{shown}</title>" in text
    assert HIDDEN.search(out) is None and HIDDEN.search(err) is None, (out, err)
    assert shown in out.replace("\n", "") and "weat6" in out


def test_run_weat_with_test_names_and_vector_file_with_bidi_characters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        data_dir: Path) -> None:
    """``run weat``'s table: the vector file's name, and the test and set names of a user's
    test file, are shown with their code points, in a wide and in a narrow terminal."""
    monkeypatch.chdir(tmp_path)
    vec = _vectors(tmp_path / f"v{RLO}ec.txt", data_dir)
    words = sorted(line.split()[0] for line in vec.read_text(encoding="utf-8").splitlines())
    test = tmp_path / f"mine{RLO}lacigol.json"
    test.write_text(json.dumps({key: {"category": f"{key}{RLO}set", "examples":
                                      words[4 * i:4 * i + 4]}
                                for i, key in enumerate(("targ1", "targ2", "attr1", "attr2"))}),
               encoding="utf-8")
    for columns in ("200", "60"):
        monkeypatch.setenv("COLUMNS", columns)
        code, out, err = _main(monkeypatch, capsys, "run", "weat", "--vectors", str(vec),
                               "--test", str(test), "--out", str(tmp_path / f"o{columns}"),
                               "--store", str(tmp_path / "s.sqlite"), "--no-progress")
        assert code == 0, err
        assert HIDDEN.search(out) is None and HIDDEN.search(err) is None, (out, err)
        assert "mine⟨U+202E⟩lacigol" in out.replace("\n", "").replace(" ", ""), out


def test_error_line_naming_a_file_with_bidi_characters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _main(monkeypatch, capsys, "report", "--model", f"no{RLO}such-model",
                           "--quick", "--no-progress", "--out", str(tmp_path / "r.html"))
    assert code == 2
    assert HIDDEN.search(err) is None and "no⟨U+202E⟩such-model" in err, err


def test_the_cli_console_shows_code_points_in_tables_text_and_blocks() -> None:
    """Every way a CLI table reaches the terminal: str cells, rich Text cells (styles
    kept), plain printed strings, and the one-block-per-row layout of a narrow terminal."""
    import io

    from genderscope.cli.fit import FittingConsole

    for width in (200, 30):
        buf = io.StringIO()
        console = FittingConsole(file=buf, width=width, force_terminal=True)
        table = Table("model", "value")
        table.add_row(f"a{RLO}b", Text(f"c{RLO}d", style="bold"))
        table.add_row(f"folder/model\u2066name{RLO}x", "0.5")
        console.print(table)
        console.print(f"saved to e{RLO}f")
        console.print_json(json.dumps({"model": f"g{RLO}h"}), ensure_ascii=False)
        printed = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())  # the console's own colours
        assert HIDDEN.search(printed) is None, printed
        for shown in ("a⟨U+202E⟩b", "c⟨U+202E⟩d", "e⟨U+202E⟩f", "g⟨U+202E⟩h"):
            assert shown in printed.replace("\n", "").replace(" ", ""), printed
