"""A start token is a causal LM's (the token a text is scored after): given other than
``auto`` with a masked model it meant nothing and was accepted silently. ``genderscope run``,
``gs.run`` and the report refuse it in one line where the model's kind is first known
(:func:`genderscope.models.loading.load_lm`,
:func:`genderscope.reporting.inputs.check_start_token`), before any scoring; so do a sweep
file's check (``settings: start_token``, every model masked) and ``gs.run`` given a
masked model already loaded."""

from __future__ import annotations

import re
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


def _sweep_file(tmp_path: Path, models: str, start_token: str) -> Path:
    f = tmp_path / "sweep.yaml"
    f.write_text(f"models: {models}\nmeasures: [crows-pairs]\n"
                 f"settings: {{start_token: '{start_token}', out: s.html}}\n", encoding="utf-8")
    return f


def test_a_sweep_file_of_masked_models_refuses_a_start_token(
        tiny_bert_dir: Path, tiny_gpt2_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Its models masked (by kind: or by their config), settings: start_token is refused
    at the file's check, naming the file and the entry; beside a causal model (the file's
    or a --model's) it is that model's."""
    from genderscope.sweep.spec import ModelSpec, load_file

    for models in (f"['{tiny_bert_dir}']", f"[{{model: '{tiny_bert_dir}', kind: masked}}]"):
        f = _sweep_file(tmp_path, models, "none")
        with pytest.raises(GenderscopeError) as exc:
            load_file(f).check()
        assert str(exc.value) == (f"sweep file {f}: settings: start_token 'none' applies to "
                                  f"causal models only; {tiny_bert_dir} is masked")
    f = _sweep_file(tmp_path, f"['{tiny_bert_dir}', {{model: '{tiny_bert_dir}', kind: "
                              "masked, label: b2}]", "[CLS]")
    with pytest.raises(GenderscopeError, match=f"; {tiny_bert_dir}, b2 are masked$"):
        load_file(f).check()
    monkeypatch.setattr("sys.argv", ["genderscope", "sweep", str(f), "--no-progress"])
    from genderscope.cli.app import main

    with pytest.raises(SystemExit) as code:
        main()
    err = capsys.readouterr().err.strip()
    assert code.value.code == 2 and err.startswith(f"error: sweep file {f}: settings: "
                                                   "start_token"), err
    assert not (tmp_path / "s.html").exists()
    spec = load_file(_sweep_file(tmp_path, f"['{tiny_bert_dir}', '{tiny_gpt2_dir}']", "none"))
    spec.check()  # the causal model takes it
    spec = load_file(_sweep_file(tmp_path, f"['{tiny_bert_dir}']", "none"))
    spec.models.append(ModelSpec(str(tiny_gpt2_dir)))  # as `--model GPT2` adds it
    spec.check()
    load_file(_sweep_file(tmp_path, f"['{tiny_bert_dir}']", "auto")).check()


def test_gs_run_refuses_it_for_a_loaded_masked_model(tiny_bert_dir: Path,
                                                     tmp_path: Path) -> None:
    """An adapter load_model returned keeps its own kind: a start token given beside a
    masked one was ignored; it is refused before any work, as for a model by name."""
    import genderscope as gs

    store = tmp_path / "s.sqlite"
    bert = gs.load_model(str(tiny_bert_dir), store=store)
    for token in ("none", "[CLS]"):
        with pytest.raises(GenderscopeError) as exc:
            gs.run("crows-pairs", bert, limit=2, start_token=token, store=store)
        assert str(exc.value) == MASKED.format(bert.source)
    from genderscope.store import Store

    with Store(store) as st:
        assert st.list_runs() == []
    assert gs.run("crows-pairs", bert, limit=2, store=store).summary  # auto: as before


def test_gs_run_with_a_loaded_causal_model_refuses_another_start_token(
        tiny_gpt2_dir: Path, tmp_path: Path) -> None:
    """A loaded causal model's start token was fixed when it loaded: asking gs.run for
    another was ignored (and the run keyed under the token asked for); now refused, while
    the same token, or auto, runs."""
    import genderscope as gs

    store = tmp_path / "s.sqlite"
    lm = gs.load_model(str(tiny_gpt2_dir), kind="causal", store=store)
    own = lm.describe()["start_token"]
    with pytest.raises(GenderscopeError, match=rf"start_token 'none': .* was loaded with "
                       rf"'{re.escape(own)}'; load it with start_token='none'"):
        gs.run("crows-pairs", lm, limit=2, start_token="none", store=store)
    for token in ("auto", own):
        assert gs.run("crows-pairs", lm, limit=2, start_token=token, store=store).summary
