"""Render the speed table of docs/performance.md from the benchmark records in
benchmarks/results/.

Every figure in the table comes from a JSON record a benchmark script wrote with
``--record`` (see benchmarks/benchrecord.py); each row names the machine, date, load
average and exact command in a numbered note under the table. A row whose record is
missing reads "not measured yet (run: <command>)". Records measured on a GPU (device
``cuda``) go to a second table that names the GPU.

    python benchmarks/speed_table.py            # rewrite the block in docs/performance.md
    python benchmarks/speed_table.py --check    # exit 1 when docs/performance.md differs
    python benchmarks/speed_table.py --print    # print the block

The block lies between ``<!-- speed-table:start -->`` and ``<!-- speed-table:end -->``
(``--doc FILE`` renders into another Markdown file). Links in the table are relative to
docs/, where the page lives (the README links to it and holds no speed figures).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
DOC = REPO / "docs" / "performance.md"
START = "<!-- speed-table:start -->"
END = "<!-- speed-table:end -->"


@dataclass(frozen=True)
class Row:
    """One expected row: the script (and case) that measures it and how to run it."""

    script: str
    case: str | None
    what: str
    command: str
    docs: str

    def key(self) -> tuple[str, str | None]:
        return (self.script, self.case)


WHOLE = "whole process (python start to exit, each command as a user types it)"

WEFE = (("ripa", "RIPA of weat6 (A and B)"), ("rnd", "RND of weat6 (A and B)"),
        ("ect", "ECT of weat6 (A and B)"), ("mac", "MAC of weat6"), ("rnsb", "RNSB of weat6"),
        ("hard", "Hard Debias"))
GENERATE = (("", "--prompts 24 --batch 8 --max-new-tokens 24 --repeats 3",
             "chat generation (SmolLM2, 24 discrimination-tamkin prompts)"),
            ("jobs-lum-", "--probe jobs-lum --prompts 16 --batch 8 --max-new-tokens 128 "
                          "--repeats 2",
             "chat generation, decode-heavy (SmolLM2, 16 JobsLum prompts, 128 tokens)"))
DEBIAS = (("inlp", "INLP"), ("sentence-debias", "SentenceDebias"),
          ("self-debias", "Self-Debias"))

TIMED = {
    "benchmarks/bench_engine_vs_pipeline.py": "in-process (model loaded before the clock)",
    "benchmarks/bench_bec_pro.py": "in-process (each way in its own process, its clock "
                                   "started after torch and transformers are imported)",
    "benchmarks/bench_bec_pro.py#whole-process": WHOLE,
    "benchmarks/bench_crows_pairs.py": "in-process (model loaded before the clock)",
    "benchmarks/bench_crows_pairs.py#whole-process": WHOLE,
    "benchmarks/bench_weat_permutations.py": "in-process (the test alone)",
    "benchmarks/bench_weat_permutations.py#whole-process": WHOLE,
    "benchmarks/bench_attack.py": "in-process (models loaded before the clock)",
    "benchmarks/bench_generate.py": "in-process (model loaded before the clock; the rerun "
                                    "row: gs.run on a store that holds the run)",
    "benchmarks/bench_wefe.py": "in-process (vectors loaded before the clock, both sides; "
                                "peak RSS of each side's whole process)",
    "benchmarks/bench_debias_scoring.py": "in-process (models loaded before the clock)",
    "benchmarks/bench_attack.py#whole-process": WHOLE,
    **{f"benchmarks/bench_wefe.py#{c}-whole-process": "whole process (python start to "
       "exit, a WEFE user script on WEFE's venv python vs the command as a user types it)"
       for c, _ in WEFE},
    **{f"benchmarks/bench_generate.py#{pre}whole-process{post}": WHOLE
       for pre in ("", "jobs-lum-") for post in ("", "-plain")},
    **{f"benchmarks/bench_generate.py#{pre}whole-process-rerun": "whole process (python "
       "start to exit, the command as a user types it, then again on its store)"
       for pre in ("", "jobs-lum-")},
    **{f"benchmarks/bench_debias_scoring.py#{t}-whole-process": WHOLE
       for t, _ in DEBIAS},
    "benchmarks/bench_overhead.py": "whole process (python start to exit, the command as a "
                                    "user types it; its `--json --no-progress` rerun beside)",
    "benchmarks/bench_endpoint.py": "in-process (the chat calls alone; the server in its own "
                                    "process)",
}
"""How each script times its rows: in-process (part of a run, the rest outside the
clock) or whole process (what a user waits for, from start to exit)."""



ROWS = (
    Row("benchmarks/bench_engine_vs_pipeline.py", None,
        "p(person) for 18 words on the 900 BEC-Pro sentences, bert-base shape",
        "python benchmarks/bench_engine_vs_pipeline.py --record",
        "[models.md](models.md)"),
    Row("benchmarks/bench_bec_pro.py", None,
        "BEC-Pro EN end to end (5,400 rows), bert-base shape",
        "python benchmarks/bench_bec_pro.py --record",
        "[measures/bec_pro.md](measures/bec_pro.md)"),
    Row("benchmarks/bench_bec_pro.py", "whole-process",
        "BEC-Pro EN end to end (5,400 rows), bert-base shape, as typed",
        "python benchmarks/bench_bec_pro.py --record",
        "[measures/bec_pro.md](measures/bec_pro.md)"),
    Row("benchmarks/bench_crows_pairs.py", None, "CrowS-Pairs, 1,508 pairs, SmolLM2",
        "python benchmarks/bench_crows_pairs.py --record",
        "[results](results/bench_crows_pairs.md)"),
    Row("benchmarks/bench_crows_pairs.py", "whole-process",
        "CrowS-Pairs, 1,508 pairs, smollm2, as typed",
        "python benchmarks/bench_crows_pairs.py --whole-process --record",
        "[results](results/bench_crows_pairs.md)"),
    Row("benchmarks/bench_weat_permutations.py", None,
        "WEAT (weat6), 100,000 permutations, sets of 8, 8, 8, 8 words",
        "python benchmarks/bench_weat_permutations.py --record",
        "[measures/weat.md](measures/weat.md)"),
    Row("benchmarks/bench_weat_permutations.py", "whole-process",
        "WEAT (weat6), 100,000 permutations, GloVe 6B 50d, as typed",
        "python benchmarks/bench_weat_permutations.py --whole-process --record",
        "[measures/weat.md](measures/weat.md)"),
    Row("benchmarks/bench_attack.py", "query-cache",
        "gender-analogy attack per text: classifier query cache",
        "python benchmarks/bench_attack.py --n 10 --record",
        "[results](results/robustness_davidson.md)"),
    Row("benchmarks/bench_attack.py", "lm-batching",
        "gender-analogy attack per text: LM filter batching",
        "python benchmarks/bench_attack.py --n 10 --record",
        "[results](results/robustness_davidson.md)"),
    Row("benchmarks/bench_attack.py", "whole-process",
        "gender-analogy attack, 20 attacks on 10 tweets, as typed",
        "python benchmarks/bench_attack.py --n 10 --whole-process --repeats 3 --record",
        "[results](results/robustness_davidson.md)"),
    Row("benchmarks/bench_overhead.py", "bec-pro-tiny",
        "warm-store rerun of `run bec-pro` (EN, 5,400 rows), tiny BERT",
        "python benchmarks/bench_overhead.py --case bec-pro-tiny --record",
        "[what makes a rerun cheap](#what-makes-a-rerun-cheap)"),
    Row("benchmarks/bench_overhead.py", "bec-pro-base",
        "warm-store rerun of `run bec-pro` (EN, 5,400 rows), bert-base shape",
        "python benchmarks/bench_overhead.py --case bec-pro-base --record",
        "[what makes a rerun cheap](#what-makes-a-rerun-cheap)"),
    Row("benchmarks/bench_overhead.py", "crows-smollm2",
        "warm-store rerun of `run crows-pairs`, SmolLM2 (150-pair subset)",
        "python benchmarks/bench_overhead.py --case crows-smollm2 --crows-limit 150 "
        "--repeats 1 --record",
        "[what makes a rerun cheap](#what-makes-a-rerun-cheap)"),
    *(Row("benchmarks/bench_generate.py", pre + case, f"{work}{typed}: {vs}",
          f"python benchmarks/bench_generate.py{mode} --record {opts}",
          "[measures/genderbench.md](measures/genderbench.md)")
      for pre, opts, work in GENERATE
      for mode, typed, cases in (("", "", ("vs-one", "vs-plain", "rerun")),
                                 (" --whole-process", ", as typed",
                                  ("whole-process", "whole-process-plain",
                                   "whole-process-rerun")))
      for case, vs in zip(cases, ("vs one at a time", "vs a plain batched script",
                                  "a stored run reused"), strict=True)),
    *(Row("benchmarks/bench_wefe.py", f"{c}{tail}", f"{what} on GloVe 6B 50d{as_typed}",
          f"python benchmarks/bench_wefe.py{opts} --repeats {n} --record",
          "[results](results/wefe_agreement.md)")
      for c, what in WEFE
      for tail, as_typed, opts, n in (("", "", "", 5),
                                      ("-whole-process", ", as typed", " --whole-process", 3))),
    *(Row("benchmarks/bench_debias_scoring.py", tech,
          f"log-likelihood of 300 CrowS-Pairs sentences, SmolLM2 debiased by {name} (cost)",
          "python benchmarks/bench_debias_scoring.py --record",
          "[measures/debiasing.md](measures/debiasing.md)")
      for tech, name in DEBIAS),
    *(Row("benchmarks/bench_endpoint.py", case,
          f"256 chat requests (DiscriminationTamkin prompts) to a 200 ms fixed-latency "
          f"server, concurrency 16: {vs}",
          "python benchmarks/bench_endpoint.py --repeats 5 --record",
          "[below](#chat-endpoints)")
      for case, vs in (("vs-one", "vs one request at a time"),
                       ("vs-async", "vs a plain openai AsyncOpenAI script"))),
    *(Row("benchmarks/bench_debias_scoring.py", f"{tech}-whole-process",
          f"CrowS-Pairs, 150 pairs, SmolLM2 debiased by {name}, as typed (cost)",
          "python benchmarks/bench_debias_scoring.py --whole-process --repeats 3 --record",
          "[measures/debiasing.md](measures/debiasing.md)")
      for tech, name in DEBIAS),
)


# -- reading ------------------------------------------------------------------------------
def load_records(folder: Path) -> list[dict[str, Any]]:
    """Every ``*.json`` record in ``folder``, sorted by file name (none: empty list)."""
    if not folder.is_dir():
        return []
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def is_gpu(rec: dict[str, Any]) -> bool:
    return str(rec["machine"]["device"]).startswith("cuda")


# -- formatting ---------------------------------------------------------------------------
def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def seconds(s: float) -> str:
    if s >= 10:
        return f"{s:,.1f} s"
    if s >= 1:
        return f"{s:.2f} s"
    return f"{s:.3g} s"


def number(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if v == 0:
        return "0"
    if abs(v) < 1e-2:
        return f"{v:.1e}"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def figures(rec: dict[str, Any], side: str) -> list[str]:
    out = []
    for e in rec.get("extra", []):
        if e.get("side", "genderscope") == side:
            unit = f" {e['unit']}" if e.get("unit") else ""
            out.append(f"{e['name']} {number(e['value'])}{unit}")
    return out


def note(rec: dict[str, Any]) -> str:
    """Where, when and how one record was measured."""
    m = rec["machine"]
    where = f"{m['cpu']} ({m['cores']} cores)"
    if m.get("gpu"):
        where = f"{m['gpu']} ({m['device']}), host {where}"
    else:
        where += f", device {m['device']}"
    load0, load1 = rec["load_start"], rec["load_end"]
    return (f"`{rec['command']}`: commit {rec['commit'] or 'unknown'}, "
            f"{rec['started_utc'].replace('T', ' ').rstrip('Z')} UTC, {where}, "
            f"torch {m['torch'] or 'not installed'}; load average (1/5/15 min) "
            f"{' '.join(f'{x:.2f}' for x in load0)} at start, "
            f"{' '.join(f'{x:.2f}' for x in load1)} at end")


def measured_cells(rec: dict[str, Any]) -> list[str]:
    base = ", ".join([f"{rec['baseline']['label']}, {seconds(rec['baseline']['seconds'])}",
                      *figures(rec, "baseline")])
    ours = ", ".join([f"{rec['genderscope']['label']}, "
                      f"{seconds(rec['genderscope']['seconds'])}", *figures(rec, "genderscope")])
    return [base, ours, f"{rec['ratio']:.1f}x"]


def _script_cell(script: str, docs: str) -> str:
    return f"`{script}`" + (f" ({docs})" if docs else "")


def render(records: list[dict[str, Any]]) -> str:
    """The Markdown block (without the markers) for these records."""
    by_key: dict[tuple[str, str | None, bool], dict[str, Any]] = {}
    for rec in records:
        by_key[(rec["script"], rec.get("case"), is_gpu(rec))] = rec
    docs = {r.key(): r.docs for r in ROWS}
    known = {r.key() for r in ROWS}
    notes: list[str] = []

    def ref(rec: dict[str, Any]) -> str:  # rows of one run share their note
        text = note(rec)
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}](#speed-notes)"

    lines = ["| what | baseline | genderscope | ratio | script | measured |",
             "|---|---|---|---|---|---|"]
    for row in ROWS:
        rec = by_key.get((row.script, row.case, False))
        if rec is None:
            lines.append(f"| {cell(row.what)} | – | not measured yet (run: `{row.command}`) "
                         f"| – | {_script_cell(row.script, row.docs)} | – |")
            continue
        timed = TIMED.get(f"{row.script}#{row.case}", TIMED.get(row.script))
        cells = [rec["what"] + (f"; timed {timed}" if timed else ""), *measured_cells(rec)]
        lines.append("| " + " | ".join(cell(c) for c in cells)
                     + f" | {_script_cell(row.script, row.docs)} | {ref(rec)} |")
    extra = [r for (s, c, gpu), r in sorted(by_key.items(), key=lambda kv: str(kv[0]))
             if not gpu and (s, c) not in known]
    for rec in extra:  # records of rows the list above does not name yet
        timed = TIMED.get(f"{rec['script']}#{rec['case']}", TIMED.get(rec["script"]))
        cells = [rec["what"] + (f"; timed {timed}" if timed else ""), *measured_cells(rec)]
        lines.append("| " + " | ".join(cell(c) for c in cells)
                     + f" | {_script_cell(rec['script'], '')} | {ref(rec)} |")

    gpu = [by_key[(r.script, r.case, True)] for r in ROWS if (r.script, r.case, True) in by_key]
    gpu += [r for (s, c, g), r in sorted(by_key.items(), key=lambda kv: str(kv[0]))
            if g and (s, c) not in known]
    lines += ["", "On a GPU:", ""]
    if gpu:
        lines += ["| what | GPU | baseline | genderscope | ratio | script | measured |",
                  "|---|---|---|---|---|---|---|"]
        for rec in gpu:
            timed = TIMED.get(f"{rec['script']}#{rec.get('case')}", TIMED.get(rec["script"]))
            cells = [rec["what"] + (f"; timed {timed}" if timed else ""),
                     rec["machine"]["gpu"] or rec["machine"]["device"],
                     *measured_cells(rec)]
            script = _script_cell(rec["script"], docs.get((rec["script"], rec.get("case")), ""))
            lines.append("| " + " | ".join(cell(c) for c in cells) + f" | {script} | {ref(rec)} |")
    else:
        lines.append("No GPU figures recorded yet: run a script with `--device cuda --record` "
                     "on a machine with a GPU, then `python benchmarks/speed_table.py`.")
    lines += ["", '<a id="speed-notes"></a>Where, when and how each row was measured '
              "(commands from the repository root):", ""]
    if notes:
        lines += [f"{i}. {n}" for i, n in enumerate(notes, start=1)]
    else:
        lines.append("No row has been measured with `--record` yet.")
    return "\n".join(lines) + "\n"


# -- the page -----------------------------------------------------------------------------
def replace_block(text: str, block: str) -> str:
    """``text`` with the part between the markers replaced by ``block``."""
    try:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
    except ValueError:
        raise SystemExit(f"no {START} ... {END} block") from None
    return f"{head}{START}\n{block}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=RESULTS, help="folder of JSON records")
    ap.add_argument("--doc", type=Path, default=DOC,
                    help="Markdown file holding the block [default: docs/performance.md]")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true",
                      help="exit 1 when the block differs from the rendering")
    what.add_argument("--print", action="store_true", help="print the block only")
    args = ap.parse_args(argv)
    block = render(load_records(args.results))
    if args.print:
        sys.stdout.write(block)
        return 0
    text = args.doc.read_text(encoding="utf-8")
    new = replace_block(text, block)
    if args.check:
        if new != text:
            print(f"{args.doc}: speed table differs from the records in {args.results}; "
                  "run python benchmarks/speed_table.py", file=sys.stderr)
            return 1
        print(f"{args.doc}: speed table matches {args.results}")
        return 0
    if new != text:
        args.doc.write_text(new, encoding="utf-8")
        print(f"{args.doc}: speed table rewritten from {args.results}")
    else:
        print(f"{args.doc}: speed table already up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
