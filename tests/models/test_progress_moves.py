"""The scoring bar moves once per forward batch, not once per chunk of 8 batches (issue
41, item 1): on a CPU a chunk is 512 inputs, so CrowS-Pairs sat at 0/524 for 40 minutes.
The bar counts distinct inputs; the batches themselves are those run without a bar."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import rich.progress

from genderscope.models.causal import CausalLM

TEXTS = [f"person {i} works as a {job}." for i, job in enumerate(
    ["nurse", "carpenter", "teacher", "pilot", "dancer", "farmer", "judge", "baker",
     "singer", "doctor"])]


@pytest.fixture()
def advances(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, float | None]]:
    """(completed, total) of the bar's task after every ``Progress.advance``."""
    seen: list[tuple[float, float | None]] = []
    original = rich.progress.Progress.advance

    def advance(self: rich.progress.Progress, task_id: rich.progress.TaskID,
                advance: float = 1) -> None:
        original(self, task_id, advance)
        task = self._tasks[task_id]
        seen.append((task.completed, task.total))

    monkeypatch.setattr(rich.progress.Progress, "advance", advance)
    return seen


def test_bar_advances_per_forward_batch(tiny_gpt2_dir: Path,
                                        advances: list[tuple[float, float | None]]) -> None:
    quiet = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", batch_size=2)
    expected = quiet.log_likelihood(TEXTS, progress=False)
    assert not advances  # no bar, no advance

    lm = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", batch_size=2)
    got = lm.log_likelihood(TEXTS, progress=True)
    assert lm.engine.n_forward == quiet.engine.n_forward == 5  # 10 inputs, 2 a batch
    assert len(advances) == 5  # one advance per batch, every one before the end
    assert [c for c, _ in advances] == [2, 4, 6, 8, 10]
    assert {t for _, t in advances} == {10}
    for a, b in zip(got, expected, strict=True):  # same batches: the same numbers
        np.testing.assert_array_equal(a.token_logprobs, b.token_logprobs)
