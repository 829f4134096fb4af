"""The Python API is as strict and as helpful as the command line: an unknown keyword names
the one meant (a close name, or the keyword of a command-line flag), a list where the
command line repeats a flag is refused saying how, a comparison has its figure, a packaged
name resolves in ``gs.report`` as in ``gs.load_model``, and messages name keywords, not
flags."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import genderscope as gs
from genderscope.errors import ArgumentError, GenderscopeError
from genderscope.results import Result


def _refusal(call, error: type[Exception] = GenderscopeError) -> str:
    with pytest.raises(error) as err:
        call()
    message = str(err.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(("call", "error", "said"), [
    (lambda: gs.run("weat", vectors="glove-6b-50d", test="weat6"), GenderscopeError,
     "weat: unknown option(s) vectors (the command line's --vectors is model=... here)"),
    (lambda: gs.run("direct", "openai:x", base_url="http://127.0.0.1:9/v1", header=["A:b"]),
     GenderscopeError, "unknown option(s) header (the command line's --header is headers="),
    (lambda: gs.run("crows-pairs", "smollm2", biastype="gender"), GenderscopeError,
     "unknown option(s) biastype (did you mean bias_type="),
    (lambda: gs.run("crows-pairs", "smollm2", subset_seeds=1), GenderscopeError,
     "(did you mean subset_seed=?)"),
    (lambda: gs.compare("a", "b", n_resamples=200), ArgumentError,
     "gs.compare: unknown keyword(s) n_resamples (the command line's --n-resamples is "
     "resamples=... here)"),
    (lambda: gs.report(model="smollm2"), ArgumentError,
     "gs.report: unknown keyword(s) model (the command line's --model is models=... here)"),
    (lambda: gs.report(["smollm2"], measure=["weat"]), ArgumentError,
     "unknown keyword(s) measure (the command line's --measure is measures=... here)"),
    (lambda: gs.load_model(vectors="glove-6b-50d"), ArgumentError,
     "gs.load_model: unknown keyword(s) vectors (the command line's --vectors is model="),
])
def test_an_unknown_keyword_names_the_one_meant(call, error, said: str) -> None:
    """Before any model loads or any store opens: one line naming the keyword meant."""
    assert said in _refusal(call, error)


def test_a_measure_option_the_run_takes_is_not_unknown() -> None:
    """attack has a ``vectors`` option of its own: it is never mapped to ``model``."""
    message = _refusal(lambda: gs.run("attack", "x.py:f", vectors="glove-6b-50d", limit=0))
    assert message == "limit must be at least 1, got 0"


@pytest.mark.parametrize("test", [["weat6", "weat7"], ("weat6",), "weat*"])
def test_several_tests_are_refused_saying_how(test) -> None:
    """The command line repeats --test (or takes a pattern) and runs one test each; gs.run
    returns one result, so a list or a pattern is one line saying how to run each, not a
    'no test named' lookup of its repr."""
    message = _refusal(lambda: gs.run("weat", model="glove-6b-50d", test=test))
    assert "one test per run" in message and "gs.run('weat', model=..., test=t)" in message
    if not isinstance(test, str):
        assert f"for t in {list(test)}" in message


def test_api_messages_name_keywords_and_the_cli_s_name_flags(tmp_path: Path) -> None:
    """One check, two wordings: the caller's names (``limit``; ``--limit``)."""
    from genderscope.cli.app import app

    assert _refusal(lambda: gs.run("crows-pairs", "smollm2", limit=0)) == \
        "limit must be at least 1, got 0"
    assert _refusal(lambda: gs.run("crows-pairs", "smollm2", subset_seed=-1)) == \
        "subset_seed must be at least 0, got -1"
    from genderscope.store import Store

    store = tmp_path / "s.sqlite"
    Store(store).close()
    said = _refusal(lambda: gs.run("crows-pairs", "smollm2", store=store, out=store))
    assert said.startswith(f"out {store} is or holds the input")
    res = CliRunner().invoke(app, ["run", "crows-pairs", "--model", "smollm2", "--limit", "0"])
    assert res.exit_code != 0
    assert "--limit must be at least 1, got 0" in f"{res.exception} {res.output}"


def _comparison() -> Result:
    rng = np.random.default_rng(0)
    rows = [{"sentence": f"s{g}{i}", "person": f"{sex}{i}", "prof_group": g, "gender": sex,
             "association": rng.normal()}
            for g in ("female", "male") for i in range(20) for sex in ("male", "female")]
    before = pd.DataFrame(rows)
    after = before.assign(association=before["association"] - 0.3)
    return gs.compare(Result("bec-pro", {}, before), Result("bec-pro", {}, after),
                      resamples=200, record=False)


def test_a_comparison_plots_the_figure_compare_writes(tmp_path: Path) -> None:
    """gs.plot of a comparison is the change per group ``genderscope compare`` writes as
    change.png (the same function draws both)."""
    from genderscope.measures.compare import change_figure

    res = _comparison()
    fig = gs.plot(res, tmp_path / "change.png")
    same = change_figure(res)
    assert (tmp_path / "change.png").stat().st_size > 0
    (ax,), (ref,) = fig.axes, same.axes
    assert ax.get_title() == ref.get_title() == "bec-pro-compare"
    assert [t.get_text() for t in ax.get_yticklabels()] == \
        [t.get_text() for t in ref.get_yticklabels()]
    assert len(ax.get_yticklabels()) == len(res.tables["change_by_group"])


def test_report_resolves_packaged_names_as_load_model_does(tmp_path: Path) -> None:
    """``gs.report("glove-6b-50d")`` reports word vectors (as ``gs.load_model`` loads
    them), not a language model looked up on the Hub; stopped once its subjects are
    known."""
    from genderscope.reporting.build import packaged_models

    assert packaged_models(["smollm2", "glove-6b-50d", "all-minilm-l6-v2"], ["v.txt"], []) \
        == (["smollm2"], ["v.txt", "glove-6b-50d"], ["all-minilm-l6-v2"])

    class Reached(Exception):
        pass

    def stop(check) -> None:
        raise Reached

    with pytest.raises(Reached):
        gs.report("glove-6b-50d", out=tmp_path / "r.html", measures=["weat"], on_data=stop,
                  store=tmp_path / "s.sqlite")
