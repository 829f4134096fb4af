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


def test_picture_page_and_sample_are_one_run() -> None:
    """docs/report.png (and its dark twin) are the screenshots the record made of the
    same run's page, and every headline estimate on that page is in the terminal sample
    (issue 41, item 2: the picture contradicted the sample beside it)."""
    import hashlib

    mod = _script()
    rec = json.loads(mod.RECORD.read_text(encoding="utf-8"))
    assert set(rec["screenshots"]) == set(mod.SHOTS)
    for scheme, path in mod.SHOTS.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == rec["screenshots"][scheme], \
            f"{path} is not the recorded run's screenshot: rerun " \
            "python benchmarks/readme_sample.py --record"
    assert len(rec["page_numbers"]) >= 10
    missing = [n for n in rec["page_numbers"] if n not in rec["stdout"]]
    assert not missing, f"page numbers not in the terminal sample: {missing}"


def test_page_numbers_reads_the_headline_table() -> None:
    mod = _script()
    page = ('<table id="headline"><tbody><tr><td class="num">53.8 %</td>'
            '<td class="num">[47.8, 59.8] <span class="muted">/ p 0.2</span></td></tr>'
            '</tbody></table><td class="num">9.99</td>')
    assert mod.page_numbers(page) == ["53.8"]
