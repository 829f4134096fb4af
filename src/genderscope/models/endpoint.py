"""Chat models behind an OpenAI-compatible endpoint (vLLM, llama.cpp, TGI servers, hosted
APIs): ``--model openai:NAME --base-url URL``, through the official ``openai`` client.

docs/models.md states the behaviour: the decoding sent, the client settings (no part of the
endpoint's identity), the secrets (all told to :func:`genderscope.errors.add_secret`) and
the refusal of a redirect to another host. Only the default ``api_key_env``,
``$OPENAI_API_KEY``, may be unset (a local server that needs no key). Any failure the client
does not retry stops the run with one line; earlier chunks of answers are recorded, so a
rerun resumes. A null ``content`` is an empty answer.

Each attempt of a request, the reading of its answer included, ends after ``DEADLINE_FACTOR
x timeout`` seconds of wall clock (``timeout`` bounds each wait for bytes only), so one
request ends within ``(retries + 1) x 2 x timeout`` plus the client's backoff (at most 8 s a
retry, or a server's ``Retry-After`` up to 60 s). An answer longer than ``max_new_tokens``
allows (:func:`~genderscope.models.generate.max_answer_chars`) is cut there before it is
stored or evaluated.

Generations are cached as a local model's (:mod:`genderscope.models.generate`) under the
fingerprint ``openai:NAME@BASE_URL`` (BASE_URL without userinfo).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from genderscope.checks import whole_number
from genderscope.errors import GenderscopeError, ModelLoadError, add_secret, redact
from genderscope.models.endpoint_urls import (
    checked_url,
    origin,
    parse_headers,
    same_host,
)
from genderscope.models.generate import (
    Decoding,
    Prompt,
    as_messages,
    cached_generations,
    generation_key,
    item_seed,
    max_answer_chars,
)
from genderscope.store import Store

PREFIX = "openai:"
API_KEY_ENV = "OPENAI_API_KEY"
"""The variable the API key is read from unless ``api_key_env`` names another."""
CONCURRENCY, TIMEOUT, RETRIES = 4, 120.0, 4
"""The client settings' defaults: requests in flight, seconds per request, retries."""
DEADLINE_FACTOR = 2.0
"""One attempt of a request ends after this many times ``timeout`` seconds of wall
clock, the reading of its answer included."""
_DEADLINE = threading.local()
"""This thread's request: ``budget`` (seconds an attempt may take), ``at`` (the monotonic
time the current attempt must end by) and ``passed`` (it did not); its HTTP hooks read
and set them."""


class EndpointError(GenderscopeError):
    """The endpoint refused a request or answered something that is not a chat answer."""


class _OtherHost(Exception):  # noqa: N818 - a signal, raised inside the HTTP client
    """A redirect to another host (the hook raises it before the request is sent)."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


class OpenAIChat:
    """A chat model served by an OpenAI-compatible endpoint (see module doc)."""

    kind = "chat-endpoint"

    def __init__(self, name: str, base_url: str | None, *, store: Store | None = None,
                 api_key_env: str | None = None, concurrency: int = CONCURRENCY,
                 timeout: float = TIMEOUT, max_retries: int = RETRIES,
                 headers: Mapping[str, str] | Sequence[str] | None = None) -> None:
        if name.startswith(PREFIX):
            name = name[len(PREFIX):]
        if not name:
            raise ModelLoadError("--model openai:NAME needs a model name after 'openai:'")
        if not base_url:
            base_url = os.environ.get("OPENAI_BASE_URL")
        if not base_url:
            raise ModelLoadError(f"--model openai:{name} needs --base-url URL (e.g. "
                                 "http://127.0.0.1:8000/v1) or $OPENAI_BASE_URL")
        _check_settings(concurrency, timeout, max_retries,
                        API_KEY_ENV if api_key_env is None else api_key_env)
        if api_key_env is not None:  # named by the user: it must hold the key
            _check_key_set(api_key_env)
        self.headers = parse_headers(headers)
        try:
            import openai  # noqa: F401
        except ImportError:
            raise ModelLoadError("OpenAI-compatible endpoints need the openai client: "
                                 "pip install 'genderscope[chat]'") from None
        self.name = name
        self.api_key_env = API_KEY_ENV if api_key_env is None else api_key_env
        add_secret(os.environ.get(self.api_key_env))
        self._url = base_url.rstrip("/")  # what the client asks, credentials and all
        self.base_url = checked_url(self._url)  # what is kept and shown: no userinfo
        self.store = store
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.deadline = DEADLINE_FACTOR * self.timeout
        self.max_retries = int(max_retries)
        self.source = f"{PREFIX}{name}"
        self.fingerprint = f"{PREFIX}{name}@{self.base_url}"
        self.n_requests = 0

    @property
    def loaded(self) -> bool:
        return True

    def describe(self) -> dict[str, Any]:
        """What it is and how it asks (the client settings, header names only, are not
        part of its identity: :data:`genderscope.models.memo.NOT_IDENTITY`)."""
        out = {"kind": self.kind, "source": self.source, "fingerprint": self.fingerprint,
               "base_url": self.base_url, "api_key_env": self.api_key_env,
               "concurrency": self.concurrency, "max_retries": self.max_retries}
        if self.timeout != TIMEOUT:
            out["timeout"] = self.timeout
        if self.headers:
            out["headers"] = sorted(self.headers)
        return out

    def _client(self) -> Any:
        import openai

        key = os.environ.get(self.api_key_env)
        add_secret(key)
        try:
            http = openai.DefaultHttpxClient(
                event_hooks={"request": [_start_attempt],
                             "response": [self._refuse_other_host, _bound_reading]})
            return openai.OpenAI(base_url=self._url, timeout=self.timeout,
                                 max_retries=self.max_retries, api_key=key or "none",
                                 http_client=http, default_headers=self.headers or None)
        except Exception as exc:  # noqa: BLE001 - the client's URL checks, as one line
            raise EndpointError(f"--base-url {self.base_url}: the OpenAI client refuses it "
                                f"({type(exc).__name__}: {_short(str(exc))})") from None

    def _refuse_other_host(self, response: Any) -> None:
        """HTTP client hook: a redirect to another host stops the request before the
        other host is asked (see module doc)."""
        if not getattr(response, "has_redirect_location", False):
            return
        target = str(response.request.url.join(response.headers["Location"]))
        if not same_host(self.base_url, target):
            raise _OtherHost(target)

    def chat(self, prompts: Sequence[Prompt], decoding: Decoding | None = None, *,
             repetitions: Sequence[int] | None = None, batch_size: int = 8,
             progress: bool = False) -> list[str]:
        """The endpoint's answer to each prompt (cached; see module doc)."""
        dec = decoding or Decoding()
        reps = list(repetitions) if repetitions is not None else [0] * len(prompts)
        messages = [as_messages(p) for p in prompts]
        rendered = [json.dumps(m, ensure_ascii=False, sort_keys=True) for m in messages]
        keys = [generation_key(r, dec, k) for r, k in zip(rendered, reps, strict=True)]

        held: dict[str, Any] = {}  # one client and pool for all chunks (docs/performance.md)

        def compute(idx: list[int]) -> list[str]:
            if not held:
                held["client"] = self._client()
                held["pool"] = ThreadPoolExecutor(self.concurrency)

            def one(i: int) -> str:
                seed = None if dec.greedy else item_seed(dec, rendered[i], reps[i])
                return self._request(held["client"], messages[i], dec, seed)

            return list(held["pool"].map(one, idx))

        try:
            return cached_generations(self.store, self.fingerprint, keys, compute,
                                      progress=progress, label=f"asking {self.name}",
                                      chunk=max(4 * self.concurrency, batch_size),
                                      max_chars=max_answer_chars(dec))
        finally:
            if held:
                held["pool"].shutdown(wait=True, cancel_futures=True)
                held["client"].close()

    def _request(self, client: Any, messages: list[dict[str, str]], dec: Decoding,
                 seed: int | None) -> str:
        import openai

        args: dict[str, Any] = {"model": self.name, "messages": messages,
                                "max_tokens": int(dec.max_new_tokens),
                                "temperature": float(dec.temperature)}
        if not dec.greedy:
            args.update(top_p=float(dec.top_p), seed=seed)
        if dec.stop:
            args["stop"] = list(dec.stop)
        body: dict[str, Any] = {}
        if dec.repeat_penalty is not None:  # llama.cpp's name, and vLLM's
            body.update(repeat_penalty=dec.repeat_penalty, repetition_penalty=dec.repeat_penalty)
        body.update(dec.extra_body or {})
        if body:
            args["extra_body"] = body
        where = f"{self.base_url}/chat/completions"
        _DEADLINE.budget, _DEADLINE.passed = self.deadline, False
        try:
            resp = client.chat.completions.create(**args)
        except _OtherHost as exc:
            raise self._redirected(exc) from None
        except openai.APIStatusError as exc:
            raise EndpointError(f"{where} answered HTTP {exc.status_code}"
                                f"{' after retries' if _retried(exc.status_code) else ''}: "
                                f"{_short(_error_text(exc))}{self._key_hint(exc.status_code)}"
                                ) from None
        except openai.APITimeoutError:
            if _DEADLINE.passed:
                raise EndpointError(f"{where} did not finish answering within {self.deadline:g}"
                                    f" s ({DEADLINE_FACTOR:g} x --timeout, the bound of one "
                                    "attempt)") from None
            raise EndpointError(f"{where} did not answer within {self.timeout:g} s "
                                f"({self.max_retries} retries)") from None
        except openai.APIConnectionError as exc:
            if isinstance(exc.__cause__, _OtherHost):  # clients that wrap any exception
                raise self._redirected(exc.__cause__) from None
            raise EndpointError(f"{where} cannot be reached: {_short(str(exc))}") from None
        except (ValueError, json.JSONDecodeError) as exc:
            raise EndpointError(f"{where} answered something that is not JSON: "
                                f"{_short(str(exc))}") from None
        self.n_requests += 1
        text = _answer_text(resp)
        if text is None:
            raise EndpointError(f"{where} answered without a chat message text "
                                f"({_short(repr(resp))}); is it an OpenAI-compatible "
                                "chat endpoint?")
        return redact(text)  # an answer that echoes the key is not stored with it

    def _key_hint(self, status: int) -> str:
        """For a 401 or 403: where the API key was read from, and how to name another."""
        if status not in (401, 403):
            return ""
        state = "set" if os.environ.get(self.api_key_env) else "not set"
        return (f" (the API key is read from ${self.api_key_env}, which is {state}; "
                "--api-key-env NAME reads another variable)")

    def _redirected(self, exc: _OtherHost) -> EndpointError:
        scheme, host, port = origin(exc.target)
        return EndpointError(
            f"{self.base_url}/chat/completions redirected to another host "
            f"({scheme}://{host}:{port}); refused: its answers would be recorded under "
            f"this endpoint. Give that host's URL as --base-url if you trust it")


def _start_attempt(request: Any) -> None:
    """HTTP client hook: the attempt now sent must end by its deadline."""
    _DEADLINE.at = time.monotonic() + getattr(_DEADLINE, "budget", float("inf"))


def _bound_reading(response: Any) -> None:
    """HTTP client hook: the answer's body is read only until the attempt's deadline (a
    server that trickles bytes never times out a read); past it, the request stops (a
    server that trickles is not asked again)."""
    import importlib

    import openai

    deadline = getattr(_DEADLINE, "at", float("inf"))
    inner = response.stream
    http = importlib.import_module(type(response).__module__.split(".")[0])  # httpx(2)

    class Bounded(http.SyncByteStream):  # type: ignore[name-defined,misc]
        def __iter__(self) -> Any:
            for chunk in inner:
                if time.monotonic() >= deadline:
                    _DEADLINE.passed = True
                    raise openai.APITimeoutError(request=response.request)  # not retried
                yield chunk

        def close(self) -> None:
            inner.close()

    if isinstance(inner, http.SyncByteStream):
        response.stream = Bounded()


def _answer_text(resp: Any) -> str | None:
    """``choices[0].message.content`` of a response ("" when the content is null: an
    empty answer, as GenderBench reads it), or None when it has no message."""
    try:
        message = resp.choices[0].message
    except (AttributeError, IndexError, TypeError, KeyError):
        return None
    if message is None:
        return None
    text = getattr(message, "content", None)
    if text is None:
        return ""
    return text if isinstance(text, str) else None


MAX_CONCURRENCY = 1000
"""The most requests in flight: ``openai.DefaultHttpxClient`` opens at most 1,000 connections
(``openai._constants.DEFAULT_CONNECTION_LIMITS``); a larger --concurrency only started more
threads (one per prompt, thousands) to wait for them."""
MAX_RETRIES = 100
MAX_TIMEOUT = 3600
"""Bounds of --retries and --timeout (seconds per attempt): a request to a server that
refuses or never answers ends within (retries + 1) x 2 x timeout and the client's backoff
(at most 8 s a retry); --retries 10**20 retried for ever."""


def _check_settings(concurrency: Any, timeout: Any, max_retries: Any,
                    api_key_env: Any) -> None:
    """The client settings, each checked in one line (the counts by
    :func:`genderscope.checks.whole_number`)."""
    # a thread each, waiting on the client's connections: at most MAX_CONCURRENCY
    whole_number(concurrency, "concurrency", 1, MAX_CONCURRENCY, label="--concurrency",
                 why="the OpenAI client's connection limit")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
            not 0 < timeout < float("inf"):
        raise GenderscopeError(f"--timeout must be a number of seconds > 0, got {timeout!r}")
    if timeout > MAX_TIMEOUT:
        raise GenderscopeError(f"--timeout must be at most {MAX_TIMEOUT} seconds, got "
                               f"{timeout}")
    whole_number(max_retries, "retries", 0, MAX_RETRIES, label="--retries")
    if not isinstance(api_key_env, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*",
                                                            api_key_env):
        raise GenderscopeError(f"--api-key-env must name an environment variable (e.g. "
                               f"OPENAI_API_KEY), got {api_key_env!r}")


def _check_key_set(api_key_env: str) -> None:
    """An ``api_key_env`` the user named must hold a key: unset or empty, it is refused in
    one line before any request (only the default, :data:`API_KEY_ENV`, may be unset: a
    local server needs no key)."""
    if not os.environ.get(api_key_env, "").strip():
        raise GenderscopeError(f"--api-key-env {api_key_env}: the variable is not set (or "
                               "is empty); set it to the endpoint's API key, or leave "
                               f"--api-key-env out for a server that needs none")


def _error_text(exc: Any) -> str:
    """The server's own error message when its body has one, else the client's text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = inner.get("message") if isinstance(inner, dict) else None
        if msg:
            return str(msg)
    return str(getattr(exc, "message", exc))


def _retried(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def _short(text: str, n: int = 160) -> str:
    line = " ".join(redact(str(text)).split())
    return line if len(line) <= n else line[:n - 1] + "…"
