"""``genderscope debias hard|multiclass-hard|double-hard|hsr|ran``: a method's command has its
own options and no other method's, so ``debias hard --alpha 5`` is refused (one line, exit
code 2, nothing written) instead of running with ``--alpha`` ignored; ``--test`` with
``--no-evaluate`` is refused alike. The before/after table labels its change column as the
change of the mean per-word item value (not of the metric: ECT's Spearman correlation can
rise while its items' mean falls), with that mean before and after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_main import run_main

from genderscope.cli.commands.debias_vectors import METHODS, OWN_OPTIONS

FLAGS = {"components": "--components", "alpha": "--alpha", "n_words": "--n-words",
         "variant": "--variant", "frequency_components": "--frequency-components"}
VALUES = {"--components": "3", "--alpha": "5", "--n-words": "10", "--variant": "wefe",
          "--frequency-components": "2"}
FOREIGN = [(m, flag) for m in METHODS for name, flag in FLAGS.items()
           if name not in OWN_OPTIONS[m]]


def test_every_method_option_is_listed() -> None:
    assert {n for own in OWN_OPTIONS.values() for n in own} == set(FLAGS)
    assert set(OWN_OPTIONS) == set(METHODS)


@pytest.mark.parametrize(("method", "flag"), FOREIGN, ids=[f"{m} {f}" for m, f in FOREIGN])
def test_another_methods_option_is_refused(method: str, flag: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, err, _ = run_main("debias", method, "--vectors", "missing.txt", "--out", "X",
                            "--no-evaluate", flag, VALUES[flag])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"error: No such option: {flag}"), lines[0]
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("method", list(METHODS))
def test_help_lists_only_the_methods_own_options(method: str) -> None:
    code, _, out = run_main("debias", method, "--help")
    assert code == 0
    for name, flag in FLAGS.items():
        assert (flag in out) == (name in OWN_OPTIONS[method]), (method, flag)


def test_test_with_no_evaluate_is_refused(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, err, _ = run_main("debias", "hard", "--vectors", "missing.txt", "--out", "X",
                            "--no-evaluate", "--test", "weat6")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "--no-evaluate" in lines[0], err
    assert not any(tmp_path.iterdir())


def _world(root: Path) -> list[str]:
    rng = np.random.default_rng(3)
    words = ["he", "she", "man", "woman", "king", "queen", "boy", "girl", "nurse", "doctor",
             "engineer", "table", "teacher", "pilot"]
    rows = [f"{len(words)} 6"] + [f"{w} {' '.join(f'{x:.4f}' for x in rng.normal(size=6))}"
                                  for w in words]
    (root / "vec.txt").write_text("\n".join(rows) + "\n")
    sets = {"targ1": ["man", "boy", "king"], "targ2": ["woman", "girl", "queen"],
            "attr1": ["doctor", "engineer", "pilot"], "attr2": ["nurse", "table", "teacher"]}
    (root / "t.json").write_text(json.dumps({k: {"category": k, "examples": v}
                                             for k, v in sets.items()}))
    (root / "def.json").write_text(json.dumps([["he", "she"], ["man", "woman"],
                                               ["boy", "girl"]]))
    (root / "eq.json").write_text(json.dumps([["king", "queen"]]))
    (root / "gs.json").write_text(json.dumps(["he", "she", "king", "queen"]))
    return ["--vectors", str(root / "vec.txt"), "--test", str(root / "t.json"),
            "--definitional", str(root / "def.json"), "--equalize", str(root / "eq.json"),
            "--gender-specific", str(root / "gs.json"), "--store", str(root / "s.sqlite")]


def test_table_labels_the_change_as_the_item_means(tmp_path: Path) -> None:
    # a process of its own, 250 columns wide: in a shared test worker the table's width
    # once followed another test's terminal and wrapped the headers read below
    out = tmp_path / "o"
    done = subprocess.run([sys.executable, "-m", "genderscope", "debias", "hard",
                           *_world(tmp_path), "--out", str(out)], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "250"}, timeout=600)
    assert done.returncode == 0, done.stderr
    printed = done.stdout
    assert "paired change" not in printed  # the old label, read as the metric's change
    header = next(ln for ln in printed.splitlines() if "┃ metric" in ln)
    assert "item mean before -> after" in header and "item mean change" in header, header
    assert "not the metric" in printed
    record = json.loads((out / "debias.json").read_text())
    ect = next(m for m in record["metrics"] if m["metric"] == "ect")
    for row in (r for r in ect["paired"]["rows"] if r["set"] in ("A", "B")):
        line = next(ln for ln in printed.splitlines()
                    if ln.split("│")[1:4] and ln.split("│")[1].strip() == "ect"
                    and ln.split("│")[3].strip() == row["set"])
        assert f"{row['mean_before']:+.3f} -> {row['mean_after']:+.3f}" in line, line
        assert f"{row['change']:+.3f} [{row['change_ci_low']:+.3f}," in line, line
