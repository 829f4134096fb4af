"""Bounded everything (issue 37, item 5): ``--max-new-tokens`` above a local model's context
is one line; an endpoint answer is cut to what ``--max-new-tokens`` allows before it is
stored or evaluated (a rerun over a 64 MB stored answer does not crash); one endpoint
request ends within its wall-clock bound when the server never answers or trickles its
answer; any Ray start failure is one line."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_main import run_main

from genderscope.errors import GenderscopeError
from genderscope.models.generate import CHARS_PER_TOKEN, NAMESPACE, Decoding, generation_key

pytest.importorskip("openai")

from chat_server import serve  # noqa: E402

from genderscope.models.endpoint import OpenAIChat  # noqa: E402
from genderscope.store import Store  # noqa: E402


def _main(*args: str) -> tuple[int, str]:
    code, err, _ = run_main(*args)
    return code, err.strip()


# -- --max-new-tokens and the local model's context --------------------------------------------
def test_max_new_tokens_above_the_context_is_one_line(tmp_path: Path) -> None:
    from genderscope.models.testing import build_chat_llama

    model = build_chat_llama(tmp_path / "chat")  # max_position_embeddings 2048
    t0 = time.monotonic()
    code, err = _main("run", "discrimination-tamkin", "--model", str(model), "--limit", "1",
                      "--max-new-tokens", "100000", "--no-progress", "--store",
                      str(tmp_path / "s.sqlite"))
    assert code == 2, err
    last = err.splitlines()[-1]
    assert last.startswith("error: ") and "--max-new-tokens 100000" in last and \
        "2048" in last, err
    assert "Traceback" not in err and sum(x.startswith("error") for x in err.splitlines()) == 1
    assert time.monotonic() - t0 < 120  # refused before generating, not after 600 s


def test_max_new_tokens_up_to_the_context_is_accepted() -> None:
    from genderscope.models.generate import check_new_tokens

    check_new_tokens(Decoding(max_new_tokens=2048), 2048, "m")
    check_new_tokens(Decoding(max_new_tokens=2**20), None, "m")  # context unknown: the cap
    with pytest.raises(GenderscopeError, match="at most 1,048,576"):  # (every model)
        Decoding(max_new_tokens=2**20 + 1)
    with pytest.raises(GenderscopeError, match="at most 2048"):
        check_new_tokens(Decoding(max_new_tokens=2049), 2048, "m")


# -- endpoint answers: capped before they are stored ------------------------------------------
def test_oversized_endpoint_answer_is_cut_to_the_cap(tmp_path: Path) -> None:
    big = "yes " * 2_000_000  # 8 MB from a server that ignores max_tokens
    dec = Decoding(max_new_tokens=10)
    with serve(lambda body: big) as server:
        st = Store(tmp_path / "s.sqlite")
        chat = OpenAIChat("openai:tiny", server.base_url, store=st)
        [answer] = chat.chat(["Is it?"], dec)
        stored = st.get_texts(chat.fingerprint, NAMESPACE, [
            generation_key(json.dumps([{"role": "user", "content": "Is it?"}],
                                      ensure_ascii=False, sort_keys=True), dec, 0)])
        st.close()
    assert len(answer) == 10 * CHARS_PER_TOKEN and big.startswith(answer)
    [record] = stored.values()
    assert len(json.loads(record)["text"]) == 10 * CHARS_PER_TOKEN  # never stored whole


def test_rerun_over_a_stored_64_mb_answer_does_not_crash(tmp_path: Path) -> None:
    """A store written before the cap holds a 64 MB answer: a rerun reads it cut to the cap
    and the probe evaluates it (detected or not), asking the server nothing."""
    import genderscope as gs

    with serve(lambda body: "yes") as server:
        store = tmp_path / "s.sqlite"
        kw = dict(model="openai:tiny", base_url=server.base_url, store=str(store), limit=2,
                  max_new_tokens=20, resamples=200)
        first = gs.run("jobs-lum", **kw)
        n_asked = len(server.requests)
        st = Store(store)
        fp = f"openai:tiny@{server.base_url}"
        keys = list(st.get_texts(fp, NAMESPACE, [
            generation_key(json.dumps([{"role": "user", "content": p}], ensure_ascii=False,
                                      sort_keys=True), Decoding(max_new_tokens=20), r)
            for p, r in zip(first.items["prompt"], first.items["repetition"], strict=True)]))
        assert keys
        huge = "she " * (16 * 2**20)  # 64 MB
        st.put_texts(fp, NAMESPACE, {k: json.dumps({"text": huge}) for k in keys})
        st.close()
        again = gs.run("jobs-lum", reuse=False, **kw)
        assert len(server.requests) == n_asked  # every answer came from the store
    assert again.items["answer"].str.len().max() <= 20 * CHARS_PER_TOKEN


# -- endpoint requests: a total wall-clock bound -----------------------------------------------
class _Stall(ThreadingHTTPServer):
    daemon_threads = True
    mode = "silent"


class _StallHandler(BaseHTTPRequestHandler):
    server: _Stall

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.server.mode == "silent":  # accepts, never answers
            time.sleep(30)
            return
        self.send_response(200)  # trickles: a byte every 0.1 s, never done
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        with contextlib.suppress(OSError):
            for _ in range(300):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)


@contextlib.contextmanager
def _stalling(mode: str) -> Iterator[str]:
    server = _Stall(("127.0.0.1", 0), _StallHandler)
    server.mode = mode
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("mode", ["silent", "trickle"])
def test_one_request_ends_within_its_bound(mode: str) -> None:
    """A trickling server never timed out a read (a request lasted as long as it kept
    sending); now an attempt ends after 2 x --timeout and the request stops. A silent one
    ends after (retries + 1) x --timeout and the backoff."""
    with _stalling(mode) as url:
        chat = OpenAIChat("openai:tiny", url, timeout=0.5, max_retries=4)
        t0 = time.monotonic()
        with pytest.raises(GenderscopeError) as exc:
            chat.chat(["Is it?"], Decoding(max_new_tokens=5))
        took = time.monotonic() - t0
    msg = str(exc.value)
    assert "\n" not in msg and url.split("//")[1] in msg
    if mode == "trickle":
        assert "did not finish answering within 1 s" in msg, msg
        assert took < 1.0 + 2.0, took  # one attempt's bound (no retry), slack
    else:
        assert "did not answer within 0.5 s" in msg, msg
        assert took < 5 * 0.5 + 7.5 + 3.0, took  # 5 attempts, the backoff, slack


def test_an_unreachable_port_is_still_one_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    chat = OpenAIChat("openai:tiny", f"http://127.0.0.1:{port}/v1", timeout=0.5,
                      max_retries=0)
    with pytest.raises(GenderscopeError, match="cannot be reached"):
        chat.chat(["Is it?"], Decoding(max_new_tokens=5))


# -- Ray start failures ------------------------------------------------------------------------
class _FakeRay:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc
        self.shut = False

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs: Any) -> None:
        raise self.exc

    def shutdown(self) -> None:
        self.shut = True


@pytest.mark.parametrize("exc", [Exception("The current node timed out during startup"),
                                 TimeoutError(), OSError(28, "No space left on device"),
                                 KeyError("node_ip")])
def test_any_ray_start_failure_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                           exc: Exception) -> None:
    from genderscope.sweep import driver

    fake = _FakeRay(exc)
    monkeypatch.setattr(driver, "_ray", lambda: fake)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # no token to set for a fake Ray
    with pytest.raises(GenderscopeError) as info:
        driver.start_ray(None, 1)
    msg = str(info.value)
    assert msg.startswith("cannot start a local Ray instance: ") and "\n" not in msg
    assert (str(exc).strip() or type(exc).__name__).splitlines()[0] in msg
    assert fake.shut


def test_ray_start_failure_through_the_cli(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.sweep import driver

    monkeypatch.setattr(driver, "_ray", lambda: _FakeRay(
        Exception("The current node timed out during startup")))
    monkeypatch.setattr(driver, "local_gpus", lambda: 0, raising=False)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v.txt").write_text("he 0.1 0.2\nshe 0.2 0.1\n")
    code, err = _main("sweep", "--vectors", "v.txt", "--measure", "weat", "--no-progress",
                      "--out", "s.html", "--store", str(tmp_path / "s.sqlite"))
    assert code == 2, err
    assert err.splitlines()[-1] == ("error: cannot start a local Ray instance: Exception: "
                                    "The current node timed out during startup"), err
    assert "Traceback" not in err
