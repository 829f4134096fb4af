"""Every bad input of issues 16, 24 and 37 (tests/bad_inputs.py, tests/bad_inputs_issue24.py,
tests/bad_inputs_issue37.py): exit code 2 (the API: GenderscopeError / TypeError /
ValueError; issue 37's API cases: a GenderscopeError), one ``error:`` line that names the
problem, no traceback, and nothing written or changed in the workspace."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from bad_input_case import ApiCase  # noqa: E402
from bad_inputs import CASES, assert_refused_cleanly, make_workspace, run_case  # noqa: E402

pytestmark = pytest.mark.slow


def _gs_errors() -> set[str]:
    """Names of GenderscopeError and every subclass of it."""
    from genderscope.errors import GenderscopeError

    found, todo = set(), [GenderscopeError]
    while todo:
        cls = todo.pop()
        found.add(cls.__name__)
        todo += cls.__subclasses__()
    return found


ALL = CASES
CASES = [c for c in ALL if c.item != "37.1"]  # inputs as outputs: test_inputs_never_outputs.py


@pytest.mark.parametrize("case", CASES, ids=[f"{c.item}-{c.what}" for c in CASES])
def test_bad_input_refused_cleanly(case, tiny_bert_dir: Path, tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    outcome = run_case(case, root, tiny_bert_dir)
    assert_refused_cleanly(case, outcome)
    assert not (root / "MARKER").exists()  # no planted pickle ran
    if isinstance(case, ApiCase) and case.item.startswith("37"):  # the API's one error type
        last = outcome.stderr.splitlines()[-1]
        assert last.split(":")[1].strip() in _gs_errors(), outcome.stderr
