"""Provenance that reproduces: a run records its call with every option, defaults
included, as a line a user can paste; pasting it gives the same run."""

from __future__ import annotations

from pathlib import Path

from fake_lm import FakeCausal

import genderscope
import genderscope as gs


def test_a_run_s_recorded_call_reruns_to_the_same_numbers(tmp_path: Path,
                                                           data_dir: Path) -> None:
    lm = FakeCausal({"he": -1.0})
    store = tmp_path / "s.sqlite"
    first = gs.run("crows-pairs", model=lm, limit=12, data=data_dir, store=store)
    call = first.metadata["command"]
    assert call.startswith("genderscope.run('crows-pairs', ")
    for name in ("bias_type='gender'", "limit=12", "subset_seed=0"):  # defaults written out
        assert name in call
    assert "PosixPath" not in call  # paths as strings
    pasted = call.replace("'crows-pairs', ", "'crows-pairs', model=lm, store=store, ", 1)
    again = eval(pasted, {"genderscope": genderscope, "lm": lm, "store": store})
    assert again.metadata["reused"] is True and again.summary == first.summary
