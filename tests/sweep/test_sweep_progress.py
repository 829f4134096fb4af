"""The sweep's progress bar counts every job that ran, whether or not its reuse key was
known before it ran (a model the store has not seen has none), and none settled at
planning (skipped, not applicable, failed to load): it ends at n/n, never 0/1."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from genderscope.sweep.planning import JobStatus


class _Bar:
    """Records what the command tells its progress bar."""

    def __init__(self, *columns: Any, console: Any = None, **options: Any) -> None:
        self.console = console
        self.total: int | None = None
        self.completed = 0

    def add_task(self, description: str, total: int | None = None) -> int:
        self.total = total
        return 0

    def update(self, task: int, *, total: int) -> None:
        self.total = total

    def advance(self, task: int) -> None:
        self.completed += 1

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_the_bar_ends_at_the_number_of_jobs_that_ran(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.cli.commands import sweep as command
    from genderscope.sweep import driver, report

    bars: list[_Bar] = []

    def progress(*columns: Any, **options: Any) -> _Bar:
        bars.append(_Bar(*columns, **options))
        return bars[-1]

    def run_sweep(spec: Any, store: Any, *, command: str, on_status: Any, on_total: Any,
                  num_cpus: Any) -> Any:
        on_status(JobStatus("gone", "weat", "failed", reason="no such model"), "failed")
        on_status(JobStatus("seen", "weat", "skipped", keys=["run:1"]), "skipped")
        on_total(2)  # two jobs run: one keyed at planning, one not (a model not seen)
        unseen = JobStatus("glove", "weat", "pending", keys=[""])
        keyed = JobStatus("minilm", "seat", "pending", keys=["run:2"])
        on_status(unseen, "retried")  # its worker died once: not a job settled
        for st in (unseen, keyed):
            st.status = "done"
            on_status(st, "done")
        return SimpleNamespace(seconds=1.0, count=lambda status: 0, statuses={})

    monkeypatch.setattr(command, "Progress", progress)
    monkeypatch.setattr(driver, "run_sweep", run_sweep)
    monkeypatch.setattr(report, "write_report",
                        lambda *a: (tmp_path / "s.html", SimpleNamespace(sections=[])))
    spec = SimpleNamespace(store=tmp_path / "s.sqlite", models=[1, 2, 3, 4], measures=[1],
                           out=tmp_path / "s.html")
    command.run_and_report(spec, "genderscope sweep")
    assert (bars[0].completed, bars[0].total) == (2, 2)
