"""The README's sample output is rendered from a recorded run of the main job
(benchmarks/readme_sample.py), never typed by hand (issue 26)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("readme_sample",
                                                  REPO / "benchmarks" / "readme_sample.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_readme_sample_equals_the_rendering_of_the_record() -> None:
    mod = _script()
    rec = json.loads(mod.RECORD.read_text(encoding="utf-8"))
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert mod.block(text, rec) == text, "run: python benchmarks/readme_sample.py"
    assert rec["command"] == " ".join(mod.COMMAND)
    assert "genderscope report --model smollm2 --vectors glove-6b-50d --encoder " \
           "all-minilm-l6-v2 --out report.html" in text


def test_sample_is_the_printed_output_at_80_columns() -> None:
    """What the record holds is what the command printed: 80 columns at most, no broken
    word in its number blocks, and the page written where --out says."""
    mod = _script()
    rec = json.loads(mod.RECORD.read_text(encoding="utf-8"))
    lines = rec["stdout"].splitlines()
    assert max(len(x.rstrip()) for x in lines) <= 80
    assert lines[-1] == "report written to report.html"
    assert not any("┃" in x for x in lines)  # below 120 columns: blocks, not a table
    rendered = mod.render({**rec, "stdout": "x\n"})
    assert rendered.startswith(f"`{rec['command']}` as run on")
