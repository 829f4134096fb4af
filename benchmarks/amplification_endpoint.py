"""Bias amplification of SmolLM2 through the endpoint path: the local model served behind
the OpenAI-compatible test server (tests/chat_server.py, standard library), and
``gs.run("bias-amplification", "openai:smollm2", base_url=...)`` against it.

    python benchmarks/amplification_endpoint.py --data ../shared/data/reducingbias \
        --limit 5 --templates 2 --samples 2

Prints the summary's headline numbers and the wall time (a small seeded subset: the
point is the path, not the number).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="the reducingbias folder")
    ap.add_argument("--limit", type=int, default=5)
    ap.add_argument("--templates", type=int, default=2)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--max-new-tokens", type=int, default=30)
    args = ap.parse_args()

    from chat_server import serve

    import genderscope as gs
    from genderscope.models.generate import Decoding

    tmp = Path(tempfile.mkdtemp(prefix="amp-endpoint-"))
    lm = gs.load_model("smollm2", store=tmp / "local.sqlite")
    lm.chat(["Hi"], Decoding(max_new_tokens=1))  # load the weights in this thread
    lm.store = None  # the server answers in its own threads: no SQLite store there

    def answer(body: dict[str, Any]) -> str:
        decoding = Decoding(max_new_tokens=int(body.get("max_tokens") or 40),
                            temperature=float(body.get("temperature") or 0.0),
                            top_p=float(body.get("top_p") or 1.0), seed=int(body.get("seed") or 0))
        return str(lm.chat([body["messages"]], decoding, repetitions=[0])[0])

    t0 = time.perf_counter()
    with serve(answer) as srv:
        r = gs.run("bias-amplification", "openai:smollm2", base_url=srv.base_url,
                   concurrency=1, store=tmp / "runs.sqlite", data=args.data, limit=args.limit,
                   templates=args.templates, samples=args.samples,
                   max_new_tokens=args.max_new_tokens, resamples=2_000)
        requests = len(srv.requests)
    s = r.summary
    print(json.dumps({k: s[k] for k in ("mean_bias_amplification", "biasamp_t_to_a",
                                        "share_none", "share_both", "n_items", "n_answers",
                                        "model_ratio")}, indent=1))
    print(f"requests {requests}; wall {time.perf_counter() - t0:.0f} s; model "
          f"{r.metadata['model'].get('fingerprint')}")


if __name__ == "__main__":
    main()
