"""OpenAI-compatible endpoints against a local server: answers, caching, concurrency,
retries on 429/500/timeouts, one-line errors on refusals and garbage, the API key never
stored."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openai")

from chat_server import serve  # noqa: E402

from genderscope.errors import GenderscopeError  # noqa: E402
from genderscope.models.endpoint import OpenAIChat  # noqa: E402
from genderscope.models.generate import NAMESPACE, Decoding  # noqa: E402
from genderscope.store import Store  # noqa: E402

PROMPTS = ["Is she a nurse?", "Is he a nurse?", "Answer yes or no.", "hello"]


def _chat(url: str, tmp_path: Path, **kw: object) -> OpenAIChat:
    return OpenAIChat("tiny", url, store=Store(tmp_path / "s.sqlite"), **kw)  # type: ignore[arg-type]


def _stored(tmp_path: Path, chat: OpenAIChat) -> int:
    st = Store(tmp_path / "s.sqlite")
    return int(st._con.execute("SELECT COUNT(*) FROM scores WHERE model=? AND namespace=?",
                               (chat.fingerprint, NAMESPACE)).fetchone()[0])


def test_answers_are_cached_and_the_key_is_never_stored(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setenv("GS_TEST_KEY", "sk-secret-123")
    with serve() as srv:
        chat = _chat(srv.base_url, tmp_path, api_key_env="GS_TEST_KEY", concurrency=3)
        out = chat.chat(PROMPTS, Decoding(max_new_tokens=20))
        assert out == [p[::-1] for p in PROMPTS]
        assert len(srv.requests) == 4
        assert srv.requests[0]["max_tokens"] == 20 and srv.requests[0]["temperature"] == 0
        assert srv.headers_seen[0]["authorization"] == "Bearer sk-secret-123"
        again = _chat(srv.base_url, tmp_path, api_key_env="GS_TEST_KEY")
        assert again.chat(PROMPTS, Decoding(max_new_tokens=20)) == out
        assert len(srv.requests) == 4  # all from the store
        sampled = again.chat(PROMPTS[:2], Decoding(max_new_tokens=20, temperature=0.7, seed=1))
        assert all("seed=" in s for s in sampled)
        assert srv.requests[-1]["seed"] != srv.requests[-2]["seed"]
    raw = (tmp_path / "s.sqlite").read_bytes()
    assert b"sk-secret-123" not in raw
    assert "sk-secret-123" not in str(chat.describe())


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["429", "500", "slow"])
def test_transient_faults_are_retried(tmp_path: Path, fault: str) -> None:
    with serve() as srv:
        srv.faults = [fault, fault]
        srv.slow_s = 1.0
        chat = _chat(srv.base_url, tmp_path, concurrency=1, timeout=0.4, max_retries=3)
        assert chat.chat(PROMPTS[:1], Decoding(max_new_tokens=5)) == [PROMPTS[0][::-1]]
        assert len(srv.requests) == 3


@pytest.mark.slow
@pytest.mark.parametrize(("faults", "message"), [
    (["403"], "HTTP 403: model access denied"),
    (["429"] * 3, "HTTP 429 after retries"),
    (["500"] * 3, "HTTP 500 after retries"),
    (["slow"] * 3, "did not answer within 0.3 s"),
    (["garbage"], "not JSON"),
    (["nomessage"], "without a chat message text"),
])
def test_failures_are_one_line_and_record_nothing(tmp_path: Path, faults: list[str],
                                                  message: str) -> None:
    with serve() as srv:
        srv.faults = list(faults)
        srv.slow_s = 0.6
        chat = _chat(srv.base_url, tmp_path, concurrency=1, timeout=0.3, max_retries=2)
        with pytest.raises(GenderscopeError) as err:
            chat.chat(PROMPTS[:2], Decoding(max_new_tokens=5))
        assert message in str(err.value) and "\n" not in str(err.value)
        assert _stored(tmp_path, chat) == 0  # the chunk in flight is not half-recorded


def test_unreachable_endpoint_and_missing_url(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(GenderscopeError, match="needs --base-url"):
        OpenAIChat("openai:tiny", None)
    with pytest.raises(GenderscopeError, match="needs a model name"):
        OpenAIChat("openai:", "http://127.0.0.1:9/v1")
    chat = _chat("http://127.0.0.1:9/v1", tmp_path, max_retries=0, timeout=1.0)
    with pytest.raises(GenderscopeError, match="cannot be reached"):
        chat.chat(["hi"], Decoding(max_new_tokens=5))
