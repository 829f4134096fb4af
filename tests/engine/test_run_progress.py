"""gs.run draws progress only when asked (``progress=True``): the process switch is off
for the call otherwise (genderscope.progress.honours_progress_argument)."""

from __future__ import annotations

import pytest

import genderscope as gs
from genderscope import engine, progress


class _Stop(Exception):
    """Raised by the spy once it has seen the switch."""


def test_run_turns_progress_off_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def spy(measure: str, options: dict) -> None:
        seen.append(progress.enabled())
        raise _Stop

    monkeypatch.setattr(engine, "plan_of", spy)
    assert progress.enabled()  # the process switch: on, as in a fresh interpreter
    for asked in (False, True):
        with pytest.raises(_Stop):
            gs.run("gap", progress=asked)
    with pytest.raises(_Stop):
        gs.run("gap")  # the default: off
    assert seen == [False, True, False]
    assert progress.enabled()  # restored after the call
