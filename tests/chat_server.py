"""A local stand-in for an OpenAI-compatible ``/v1/chat/completions`` endpoint (standard
library only), served on 127.0.0.1 in a thread. Each request is answered by
``server.answer(body) -> text`` unless a scripted fault is queued in ``server.faults``:
``429`` / ``500`` (with ``Retry-After: 0``), ``401``, ``403``, ``slow`` (sleeps past the client's
timeout, then answers), ``garbage`` (a 200 body that is not JSON) or ``nomessage``
(JSON without ``choices``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, answer: Callable[[dict[str, Any]], str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answer = answer
        self.faults: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.slow_s = 1.0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, code: int, body: bytes, ctype: str = "application/json",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            fault = self.server.faults.pop(0) if self.server.faults else None
            self.server.requests.append(body)
            self.server.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
        if not self.path.endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        if fault in ("429", "500"):
            self._send(int(fault), json.dumps({"error": {"message": f"fault {fault}"}}).encode(),
                       headers={"Retry-After": "0", "retry-after-ms": "5"})
            return
        if fault == "403":
            self._send(403, b'{"error": {"message": "model access denied"}}')
            return
        if fault == "401":
            self._send(401, b'{"error": {"message": "invalid api key"}}')
            return
        if fault == "slow":
            time.sleep(self.server.slow_s)
        if fault == "garbage":
            self._send(200, b"<html>this is not json", "application/json")
            return
        if fault == "nomessage":
            self._send(200, b'{"id": "x", "object": "chat.completion", "choices": []}')
            return
        text = self.server.answer(body)
        out = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
               "model": body.get("model"),
               "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text}}],
               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        self._send(200, json.dumps(out).encode())


def echo_answer(body: dict[str, Any]) -> str:
    """A deterministic answer: the last message reversed, plus the seed when sampling."""
    text = body["messages"][-1]["content"][::-1]
    return f"{text} seed={body['seed']}" if body.get("seed") is not None else text


@contextmanager
def serve(answer: Callable[[dict[str, Any]], str] = echo_answer) -> Iterator[ChatServer]:
    server = ChatServer(answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
