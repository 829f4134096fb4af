"""Every bad input of issue 16 (tests/bad_inputs.py): exit code 2, one ``error:`` line that
names the problem, no traceback, and nothing written or changed in the workspace."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from bad_inputs import CASES, make_workspace, run_case  # noqa: E402


@pytest.mark.parametrize("case", CASES, ids=[f"{c.item}-{c.what}" for c in CASES])
def test_bad_input_refused_cleanly(case, tiny_bert_dir: Path, tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    outcome = run_case(case, root, tiny_bert_dir)
    last = outcome.stderr.splitlines()[-1] if outcome.stderr else ""
    assert outcome.code == 2, outcome.stderr
    assert last.startswith("error: ") and case.expect in last, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert outcome.changed == []
    assert not (root / "MARKER").exists()  # no planted pickle ran
