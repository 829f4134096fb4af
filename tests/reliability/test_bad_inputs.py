"""Every bad input of issues 16 and 24 (tests/bad_inputs.py, tests/bad_inputs_issue24.py):
exit code 2 (the API: GenderscopeError / TypeError / ValueError), one ``error:`` line that
names the problem, no traceback, and nothing written or changed in the workspace."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from bad_inputs import CASES, make_workspace, run_case  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("case", CASES, ids=[f"{c.item}-{c.what}" for c in CASES])
def test_bad_input_refused_cleanly(case, tiny_bert_dir: Path, tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    outcome = run_case(case, root, tiny_bert_dir)
    last = outcome.stderr.splitlines()[-1] if outcome.stderr else ""
    assert outcome.code == 2, outcome.stderr
    # "error: ..." from genderscope, or click's usage error for an option out of its range
    assert last.startswith(("error: ", "Error: Invalid value")), outcome.stderr
    assert case.expect in last, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert outcome.changed == []
    assert not (root / "MARKER").exists()  # no planted pickle ran
