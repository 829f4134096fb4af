"""Readable output (issue 41, item 6): ``genderscope runs show RUN`` prints the rounded
tables ``genderscope run`` printed (``--json``: the whole record), CrowS-Pairs' table
shows the p-values the report shows, and counts are pluralised right."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from fake_lm import FakeMasked
from typer.testing import CliRunner

from genderscope.cli.app import app
from genderscope.cli.commands.pronouns_pairs import crows_tables
from genderscope.cli.common import console
from genderscope.datasets.crows_pairs import CrowsPair
from genderscope.measures.crows_pairs import run_crows_pairs
from genderscope.results import Result
from genderscope.store import Store
from genderscope.text_blocks import plural


class _PrefersWomen(FakeMasked):
    """Every shared token scores higher in a sentence about women or the poor."""

    def pseudo_log_likelihood(self, texts, *, positions=None, progress=False):
        from genderscope.models.base import SeqScore

        out = super().pseudo_log_likelihood(texts, positions=positions)
        bonus = [1.0 if ("women" in t.lower() or "poor" in t.lower()) else 0.0 for t in texts]
        return [SeqScore(s.total + b * s.n_tokens, s.n_tokens)
                for s, b in zip(out, bonus, strict=True)]


def _crows() -> Result:
    rows = [("Women are bad drivers.", "Men are bad drivers.", "stereo", "gender"),
            ("Men are good drivers.", "Women are good drivers.", "antistereo", "gender"),
            ("Women can't park.", "Men can't park.", "stereo", "gender"),
            ("The poor are lazy.", "The rich are lazy.", "stereo", "socioeconomic")]
    pairs = [CrowsPair(i, m, s, d, b, "mem.csv", i + 2)
             for i, (m, s, d, b) in enumerate(rows)]
    return run_crows_pairs(_PrefersWomen(), pairs)


def _show(*args: str):
    r = CliRunner().invoke(app, ["runs", "show", *args])
    assert r.exit_code == 0, r.output
    return r.output


def test_runs_show_prints_the_table_run_prints(tmp_path: Path) -> None:
    res = _crows()
    store = Store(tmp_path / "s.sqlite")
    run_id = store.record_run(res)
    store.close()
    with console.capture() as printed:  # what `genderscope run crows-pairs` prints
        for t in crows_tables(res):
            console.print(t)
    shown = _show(run_id, "--store", str(tmp_path / "s.sqlite"))
    assert printed.get().strip() and printed.get() in shown
    assert "percent_stereotypical" not in shown  # no flattened keys ...
    assert "66.66666" not in shown  # ... and no unrounded numbers
    assert f"runs show {run_id} --json" in shown
    raw = json.loads(_show(run_id, "--store", str(tmp_path / "s.sqlite"), "--json"))
    assert raw["summary"]["percent_stereotypical"] == pytest.approx(
        res.summary["percent_stereotypical"])


def test_runs_show_falls_back_to_every_summary_number(tmp_path: Path) -> None:
    # a summary the measure's own table cannot read: every number, rounded, with its CI
    res = Result("crows-pairs", {"score": {"estimate": 55.123456, "ci_low": 54.0,
                                           "ci_high": 56.0, "p_value": 0.01234}},
                 pd.DataFrame({"item": ["a"]}), {"model": {"fingerprint": "x"}})
    store = Store(tmp_path / "s.sqlite")
    run_id = store.record_run(res)
    store.close()
    shown = _show(run_id, "--store", str(tmp_path / "s.sqlite"))
    assert "55.123 [54.000, 56.000]" in shown and "0.0123" in shown
    assert "55.123456" not in shown and "1 item;" in shown


def test_crows_pairs_table_shows_p_and_holm_p() -> None:
    res = _crows()
    with console.capture() as printed:
        for t in crows_tables(res):
            console.print(t)
    text = printed.get()
    gender = res.summary["by_bias_type"]["gender"]
    assert "p Holm" in text
    assert f"{gender['p_value']:.2g}" in text and f"{gender['p_adjusted']:.2g}" in text
    assert f"{res.summary['percent_stereotypical']['p_value']:.2g}" in text


def test_counts_are_pluralised(tmp_path: Path) -> None:
    assert (plural(1, "measure"), plural(0, "measure"), plural(2, "run")) == (
        "1 measure", "0 measures", "2 runs")
    assert plural(3, "analysis", "analyses") == "3 analyses"
    store = Store(tmp_path / "s.sqlite")
    store.record_run(_crows())
    store.close()
    r = CliRunner().invoke(app, ["runs", "list", "--store", str(tmp_path / "s.sqlite")])
    assert r.exit_code == 0 and "1 run in" in r.output and "1 runs" not in r.output
    with console.capture() as printed:
        for t in crows_tables(_crows()):
            console.print(t)
    assert "4 pairs" in printed.get() and "1 ties" not in printed.get()
