"""The audit's bad inputs (tests/bad_inputs_audit.py): exit code 2 (the API: a
``GenderscopeError``), one ``error:`` line naming the problem, no traceback, nothing written
or changed (the store may gain a model's memo where a case says so); and what the fixes
must still accept."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from bad_input_case import ApiCase, Case  # noqa: E402
from bad_inputs import assert_refused_cleanly, make_workspace, run_case  # noqa: E402
from bad_inputs_audit import CASES, extend_workspace  # noqa: E402

from genderscope.errors import GenderscopeError  # noqa: E402


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = make_workspace(tmp_path / "ws")
    extend_workspace(root)
    return root


@pytest.mark.slow  # a fresh workspace and a command per case, as test_bad_inputs.py
@pytest.mark.parametrize("case", CASES, ids=[f"{c.item}-{c.what}" for c in CASES])
def test_bad_input_refused_cleanly(case: Case | ApiCase, workspace: Path,
                                   tiny_bert_dir: Path) -> None:
    outcome = run_case(case, workspace, tiny_bert_dir)
    assert_refused_cleanly(case, outcome)
    if isinstance(case, ApiCase):  # a GenderscopeError, never a bare Python error
        last = outcome.stderr.splitlines()[-1]
        assert not last.startswith(("error: TypeError", "error: ValueError")), last


def test_the_bounds_themselves_are_accepted(workspace: Path, tiny_bert_dir: Path) -> None:
    """2**32 - 1 is still a seed (through the declared options and the debias checks), and
    each new upper bound is itself accepted."""
    from genderscope.checks import SEED_MAX, whole_number
    from genderscope.lm_debias.finetune import FinetuneConfig

    assert SEED_MAX == 2**32 - 1
    assert whole_number(SEED_MAX, "subset_seed", 0) == SEED_MAX
    assert whole_number(10**6, "resamples", 1) == 10**6  # and the counts' bounds
    assert whole_number(10**7, "permutations") == 10**7
    FinetuneConfig(seed=SEED_MAX, epochs=1_000, max_length=2**20).validate()
    from genderscope.models.endpoint import _check_settings

    _check_settings(1000, 3600, 100, "OPENAI_API_KEY")
    ok = run_case(Case("A.1", "rnsb --seed 2**32 - 1", (
        "run", "rnsb", "--vectors", "vec.txt", "--test", "wt3.json", "--seed", str(SEED_MAX),
        "--no-progress"), ""), workspace, tiny_bert_dir)
    assert ok.code == 0, ok.stderr


def test_runs_export_by_a_prefix_still_works(workspace: Path, tiny_bert_dir: Path) -> None:
    from genderscope.store import Store

    with Store(workspace / "store.sqlite") as st:
        [run] = st.list_runs()
    for what in ("runs", "items"):  # (the toy run has no headline numbers to export)
        out = f"e-{what}.csv"
        done = run_case(Case("A.2", what, ("runs", "export", "--out", out, "--what", what,
                                           "--run", run["run_id"][:6]), ""),
                        workspace, tiny_bert_dir)
        assert done.code == 0, (what, done.stderr)
        assert run["run_id"] in (workspace / out).read_text()


def test_run_many_scores_a_metric_that_refused_every_query() -> None:
    """Rows as ``run_many`` makes them: a metric that refused every query has no score
    (NaN; it was a pandas TypeError), one that ran has its own."""
    from genderscope.sweep.many import COLUMNS, score_table

    base = {"model": "v", "query": "q"}
    refused = [{**base, "metric": "rnsb", "error": "needs at least 3"}]
    alone = score_table(pd.DataFrame(refused, columns=COLUMNS))
    assert list(alone.columns) == ["rnsb"] and pd.isna(alone.loc["v", "rnsb"])
    ran = {**base, "metric": "weat", "attribute": "", "value": -0.5, "error": ""}
    both = score_table(pd.DataFrame([ran, *refused], columns=COLUMNS))
    assert both.loc["v", "weat"] == 0.5 and pd.isna(both.loc["v", "rnsb"])


def test_an_empty_run_id_is_refused_by_the_store(tmp_path: Path) -> None:
    from genderscope.results import Result
    from genderscope.store import Store

    with Store(tmp_path / "s.sqlite") as st:
        st.record_run(Result("toy", {"x": 1.0}, pd.DataFrame({"a": [1]}),
                             {"model": {"fingerprint": "f"}}))
        for empty in ("", "  "):
            with pytest.raises(GenderscopeError, match="run id is empty"):
                st.load_run(empty)


@pytest.mark.parametrize("value", ["captions.txt", "no-such-folder"])
def test_a_data_variable_that_is_not_a_folder_is_refused(
        value: str, workspace: Path, tiny_bert_dir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``$GENDERSCOPE_DATA`` naming a file or a missing folder was ignored: the packaged
    set was scored instead of the user's copy."""
    monkeypatch.setenv("GENDERSCOPE_DATA", value)
    outcome = run_case(Case("A.9", "crows-pairs with $GENDERSCOPE_DATA not a folder", (
        "run", "crows-pairs", "--model", "{model}", "--limit", "2", "--no-progress"),
        ""), workspace, tiny_bert_dir)
    assert outcome.code == 2, outcome.stderr
    assert outcome.stderr.splitlines() == [
        f"error: $GENDERSCOPE_DATA is {value}, not a folder; set it to the folder that holds "
        "the data sets' <name>/ folders, or unset it"]
    assert outcome.changed == []
