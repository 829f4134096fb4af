"""A start token is a causal LM's (the token a text is scored after): given other than
``auto`` with a masked model it meant nothing and was accepted silently. ``genderscope run``,
``gs.run`` and the report refuse it in one line where the model's kind is first known
(:func:`genderscope.models.loading.load_lm`,
:func:`genderscope.reporting.inputs.check_start_token`), before any scoring."""

from __future__ import annotations

from pathlib import Path

import pytest

from genderscope.errors import GenderscopeError

MASKED = "--start-token applies to causal models only; {} is masked"


def test_load_lm_refuses_a_start_token_for_a_masked_model(tiny_bert_dir: Path) -> None:
    from genderscope.models.loading import load_lm

    for token in ("none", "[CLS]"):
        with pytest.raises(GenderscopeError, match="applies to causal models only"):
            load_lm(tiny_bert_dir, start_token=token)
    with pytest.raises(GenderscopeError, match="applies to causal models only"):
        load_lm(tiny_bert_dir, "masked", start_token="none")
    assert load_lm(tiny_bert_dir).kind == "masked"  # the default, auto, is fine


def test_gs_run_and_the_cli_refuse_it_before_any_work(
        tiny_bert_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import genderscope as gs
    from genderscope.cli.app import main

    store = tmp_path / "s.sqlite"
    with pytest.raises(GenderscopeError) as exc:
        gs.run("crows-pairs", str(tiny_bert_dir), limit=2, start_token="none", store=store)
    assert str(exc.value) == MASKED.format(tiny_bert_dir)
    monkeypatch.setattr("sys.argv", ["genderscope", "run", "crows-pairs", "--model",
                                     str(tiny_bert_dir), "--limit", "2", "--start-token",
                                     "none", "--store", str(store)])
    with pytest.raises(SystemExit) as code:
        main()
    err = capsys.readouterr().err.strip()
    assert code.value.code == 2 and err == f"error: {MASKED.format(tiny_bert_dir)}", err
    from genderscope.store import Store

    with Store(store) as st:
        assert st.list_runs() == []


def test_the_report_refuses_it_unless_a_causal_model_takes_it(
        tiny_bert_dir: Path, tiny_gpt2_dir: Path, tmp_path: Path) -> None:
    """With masked models only, refused (gs.report too, nothing written); beside a causal
    model it is that model's, and the masked model loads without it."""
    import genderscope as gs
    from genderscope.reporting import runner
    from genderscope.reporting.inputs import check_start_token

    with pytest.raises(GenderscopeError) as exc:
        gs.report([str(tiny_bert_dir)], out=tmp_path / "r.html", start_token="none",
                  store=tmp_path / "s.sqlite")
    assert str(exc.value) == MASKED.format(tiny_bert_dir)
    assert not (tmp_path / "r.html").exists()
    bert = runner.lm_subject(str(tiny_bert_dir), None, start_token="none")
    gpt2 = runner.lm_subject(str(tiny_gpt2_dir), None, start_token="none")
    with pytest.raises(GenderscopeError, match="causal models only; .* are masked"):
        check_start_token([bert, bert], "none")
    check_start_token([bert, gpt2], "none")
    check_start_token([bert], "auto")
    assert bert.adapter().kind == "masked"  # loaded with no start token of its own
    assert bert.model_options["start_token"] == "none"  # its reuse keys as before
