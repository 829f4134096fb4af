"""Chat models behind an OpenAI-compatible endpoint (vLLM, llama.cpp, TGI servers, hosted
APIs): ``--model openai:NAME --base-url URL``.

Requests go through the official ``openai`` client (``pip install genderscope[chat]``)
to ``POST {base_url}/chat/completions``, at most ``concurrency`` at a time. The
client retries 408/409/429/5xx answers and timeouts ``max_retries`` times with
exponential backoff (honouring ``Retry-After``). Any other failure (a refusal, an
answer without a message text, a body that is not JSON) stops the run with one line;
the answers of the chunk in flight are not recorded (earlier chunks are, so a rerun
resumes).

The API key is read from the environment variable ``api_key_env`` (default
``OPENAI_API_KEY``) at each call: it is never stored, logged or written to a result.
Generations are cached like a local model's (:mod:`genderscope.models.generate`),
keyed by the messages as JSON, the decoding parameters and the repetition index, under
the fingerprint ``openai:NAME@BASE_URL``. A sampled request carries the item's seed
(servers that honour ``seed`` then answer reproducibly).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from genderscope.errors import GenderscopeError, ModelLoadError
from genderscope.models.generate import (
    Decoding,
    Prompt,
    as_messages,
    cached_generations,
    generation_key,
    item_seed,
)
from genderscope.store import Store

PREFIX = "openai:"


class EndpointError(GenderscopeError):
    """The endpoint refused a request or answered something that is not a chat answer."""


class OpenAIChat:
    """A chat model served by an OpenAI-compatible endpoint (see module doc)."""

    kind = "chat-endpoint"

    def __init__(self, name: str, base_url: str | None, *, store: Store | None = None,
                 api_key_env: str = "OPENAI_API_KEY", concurrency: int = 4,
                 timeout: float = 120.0, max_retries: int = 4) -> None:
        if name.startswith(PREFIX):
            name = name[len(PREFIX):]
        if not name:
            raise ModelLoadError("--model openai:NAME needs a model name after 'openai:'")
        if not base_url:
            base_url = os.environ.get("OPENAI_BASE_URL")
        if not base_url:
            raise ModelLoadError(f"--model openai:{name} needs --base-url URL (e.g. "
                                 "http://127.0.0.1:8000/v1) or $OPENAI_BASE_URL")
        if concurrency < 1:
            raise GenderscopeError(f"concurrency must be at least 1, got {concurrency}")
        try:
            import openai  # noqa: F401
        except ImportError:
            raise ModelLoadError("OpenAI-compatible endpoints need the openai client: "
                                 "pip install 'genderscope[chat]'") from None
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.store = store
        self.api_key_env = api_key_env
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.source = f"{PREFIX}{name}"
        self.fingerprint = f"{PREFIX}{name}@{self.base_url}"
        self.n_requests = 0

    @property
    def loaded(self) -> bool:
        return True

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "fingerprint": self.fingerprint,
                "base_url": self.base_url, "api_key_env": self.api_key_env,
                "concurrency": self.concurrency, "max_retries": self.max_retries}

    def _client(self) -> Any:
        import openai

        return openai.OpenAI(base_url=self.base_url, timeout=self.timeout,
                             max_retries=self.max_retries,
                             api_key=os.environ.get(self.api_key_env) or "none")

    def chat(self, prompts: Sequence[Prompt], decoding: Decoding | None = None, *,
             repetitions: Sequence[int] | None = None, batch_size: int = 8,
             progress: bool = False) -> list[str]:
        """The endpoint's answer to each prompt (cached; see module doc)."""
        dec = decoding or Decoding()
        reps = list(repetitions) if repetitions is not None else [0] * len(prompts)
        messages = [as_messages(p) for p in prompts]
        rendered = [json.dumps(m, ensure_ascii=False, sort_keys=True) for m in messages]
        keys = [generation_key(r, dec, k) for r, k in zip(rendered, reps, strict=True)]

        def compute(idx: list[int]) -> list[str]:
            client = self._client()

            def one(i: int) -> str:
                seed = None if dec.greedy else item_seed(dec, rendered[i], reps[i])
                return self._request(client, messages[i], dec, seed)

            with ThreadPoolExecutor(self.concurrency) as pool:
                return list(pool.map(one, idx))

        return cached_generations(self.store, self.fingerprint, keys, compute,
                                  progress=progress, label=f"asking {self.name}",
                                  chunk=max(4 * self.concurrency, batch_size))

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
        where = f"{self.base_url}/chat/completions"
        try:
            resp = client.chat.completions.create(**args)
        except openai.APIStatusError as exc:
            raise EndpointError(f"{where} answered HTTP {exc.status_code}"
                                f"{' after retries' if _retried(exc.status_code) else ''}: "
                                f"{_short(_error_text(exc))}") from None
        except openai.APITimeoutError:
            raise EndpointError(f"{where} did not answer within {self.timeout:g} s "
                                f"({self.max_retries} retries)") from None
        except openai.APIConnectionError as exc:
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
        return text


def _answer_text(resp: Any) -> str | None:
    """``choices[0].message.content`` of a response, or None when it has none."""
    try:
        text = resp.choices[0].message.content
    except (AttributeError, IndexError, TypeError, KeyError):
        return None
    return text if isinstance(text, str) else None


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
    line = " ".join(str(text).split())
    return line if len(line) <= n else line[:n - 1] + "…"
