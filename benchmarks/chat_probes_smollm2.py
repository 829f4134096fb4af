"""GenderBench's structured probes on SmolLM2-135M-Instruct (offline), locally and through
an OpenAI-compatible endpoint serving the same model, to show the two paths agree
(DiscriminationTamkin, BBQ, Direct, DiversityMedQA, HiringAn, HiringBloomberg).

    flock /tmp/gs-heavy.lock python benchmarks/chat_probes_smollm2.py --out results.json

1. ``genderscope.run`` of each probe in ``LIMITS`` on seeded subsets
   (GenderBench's ``sample_k`` draw), greedy, in a fresh store.
2. A local server (standard library, 127.0.0.1) speaks ``/v1/chat/completions`` and
   answers with a second copy of the model (no store), one request at a time;
   ``genderscope.run(..., "openai:smollm2", base_url=...)`` runs one probe through it,
   and the answers are compared prompt by prompt with the local run's.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import genderscope as gs
from genderscope.models.generate import Decoding

LIMITS = {"discrimination-tamkin": 12, "bbq": 30, "direct": 30, "diversity-med-qa": 8,
          "hiring-an": 30, "hiring-bloomberg": 12}


def serve(lm: Any) -> ThreadingHTTPServer:
    """An OpenAI-compatible chat endpoint backed by ``lm`` (requests serialised)."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            dec = Decoding(max_new_tokens=int(body.get("max_tokens") or 300),
                           temperature=float(body.get("temperature") or 0.0),
                           stop=tuple(body.get("stop") or ()))
            with lock:
                text = lm.chat([body["messages"]], dec, batch_size=1)[0]
            out = json.dumps({"id": "x", "object": "chat.completion", "created": 0,
                              "model": body["model"], "choices": [{
                                  "index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": text}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--endpoint-probe", default="direct")
    ap.add_argument("--endpoint-limit", type=int, default=12)
    ap.add_argument("--work", type=Path, default=None,
                    help="work folder (stores); an earlier run's folder resumes it")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="gs-chat-"))
    work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"max_new_tokens": args.max_new_tokens, "limits": LIMITS,
                              "probes": {}}
    if args.out.is_file():  # resume: keep the probes an interrupted run measured
        report = json.loads(args.out.read_text())
    t0 = time.perf_counter()
    lm = gs.load_model("smollm2", store=work / "local.sqlite")
    report.setdefault("load_s", round(time.perf_counter() - t0, 1))
    local: dict[str, Any] = {}
    for probe, limit in LIMITS.items():
        if probe in report["probes"]:
            continue
        t = time.perf_counter()
        r = gs.run(probe, lm, store=work / "local.sqlite", limit=limit,
                   max_new_tokens=args.max_new_tokens, resamples=10_000)
        secs = time.perf_counter() - t
        local[probe] = r
        s = r.summary
        report["probes"][probe] = {
            "seconds": round(secs, 1), "n_items": s["n_items"], "n_attempts": s["n_attempts"],
            "undetected_rate_attempts": s["undetected_rate_attempts"],
            "metrics": {k: v for k, v in s.items() if isinstance(v, dict) and "estimate" in v},
            "marks": s["marks"], "tests": s["tests"],
            "answers_sample": r.items["answer"].head(3).tolist()}
        t = time.perf_counter()
        again = gs.run(probe, lm, store=work / "local.sqlite", limit=limit,
                       max_new_tokens=args.max_new_tokens, resamples=10_000)
        report["probes"][probe]["rerun_seconds"] = round(time.perf_counter() - t, 3)
        report["probes"][probe]["rerun_reused"] = bool(again.metadata.get("reused"))
        print(probe, report["probes"][probe]["seconds"], "s", flush=True)
        args.out.write_text(json.dumps(report, indent=1, default=str))
    if "endpoint" in report:  # measured by an earlier (resumed) run
        args.out.write_text(json.dumps(report, indent=1, default=str))
        args.out.with_suffix(".md").write_text(markdown(report))
        return
    # the endpoint path: the same model behind a local server (no store: every answer is
    # generated again, one request at a time)
    from genderscope.models.loading import load_lm

    served = load_lm("smollm2", store=None)
    server = serve(served)
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    probe, limit = args.endpoint_probe, args.endpoint_limit
    t = time.perf_counter()
    r_ep = gs.run(probe, "openai:smollm2", base_url=base, store=work / "client.sqlite",
                  limit=limit, max_new_tokens=args.max_new_tokens, resamples=10_000)
    secs = time.perf_counter() - t
    r_loc = gs.run(probe, lm, store=work / "local.sqlite", limit=limit,
                   max_new_tokens=args.max_new_tokens, resamples=10_000)
    server.shutdown()
    a = r_loc.items.sort_values(["prompt", "repetition"])["answer"].tolist()
    b = r_ep.items.sort_values(["prompt", "repetition"])["answer"].tolist()
    report["endpoint"] = {
        "probe": probe, "limit": limit, "seconds": round(secs, 1),
        "answers_identical": sum(x == y for x, y in zip(a, b, strict=True)),
        "answers": len(a),
        "local_metrics": {k: r_loc.summary[k]["estimate"] for k in r_loc.summary
                          if isinstance(r_loc.summary[k], dict)
                          and "estimate" in r_loc.summary[k]},
        "endpoint_metrics": {k: r_ep.summary[k]["estimate"] for k in r_ep.summary
                             if isinstance(r_ep.summary[k], dict)
                             and "estimate" in r_ep.summary[k]}}
    args.out.write_text(json.dumps(report, indent=1, default=str))
    args.out.with_suffix(".md").write_text(markdown(report))
    print(json.dumps(report["endpoint"], indent=1))


def _f(x: Any, nd: int = 3) -> str:
    try:
        return f"{float(x):.{nd}f}"
    except (TypeError, ValueError):
        return str(x)


def markdown(report: dict[str, Any]) -> str:
    """The measured figures as Markdown tables (docs/results/genderbench_smollm2.md)."""
    lines = [f"Greedy decoding, at most {report['max_new_tokens']} new tokens; model loaded "
             f"in {report['load_s']} s.", ""]
    for probe, d in report["probes"].items():
        lines += [f"### {probe}: {d['n_items']} items, {d['n_attempts']} answers, "
                  f"{d['seconds']} s (rerun: {d['rerun_seconds']} s, reused "
                  f"{d['rerun_reused']})", "",
                  f"Undetected answers: {100 * d['undetected_rate_attempts']:.1f} %.", "",
                  "| metric | estimate | 95 % CI (cluster bootstrap) | mark (CI / point) |",
                  "|---|---|---|---|"]
        for k, v in d["metrics"].items():
            m = d["marks"].get(k)
            mark = f"{m['mark'] or '-'} / {m['mark_point'] or '-'}" if m else ""
            lines.append(f"| {k} | {_f(v['estimate'])} | [{_f(v['ci_low'])}, "
                         f"{_f(v['ci_high'])}] ({v.get('n_units', '?')} {v.get('ci_unit', '')})"
                         f" | {mark} |")
        if d["tests"]:
            lines += ["", "| paired test | difference | clusters | p | p (Holm) |",
                      "|---|---|---|---|---|"]
            for t in d["tests"]:
                lines.append(f"| {t['name']} | {_f(t['estimate'])} | {t['n_clusters']} | "
                             f"{_f(t['p_value'], 4)} | {_f(t.get('p_adjusted'), 4)} |")
        lines += ["", "First answers: " + "; ".join(
            f"`{a[:60]!r}`" for a in d["answers_sample"]), ""]
    e = report.get("endpoint")
    if e is None:
        return "\n".join(lines) + "\n"
    lines += [f"### The same model behind an OpenAI-compatible endpoint ({e['probe']}, "
              f"{e['limit']} items)", "",
              f"Answers identical to the local run: {e['answers_identical']} of "
              f"{e['answers']} ({e['seconds']} s through the endpoint, one request at a "
              "time).", "", "| metric | local | endpoint |", "|---|---|---|"]
    for k, v in e["local_metrics"].items():
        lines.append(f"| {k} | {_f(v)} | {_f(e['endpoint_metrics'].get(k))} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
