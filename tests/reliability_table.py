"""Regenerate docs/reliability.md: run every case of tests/bad_inputs.py (issues 16, 24 and
37) and of the audit after the redesign (tests/bad_inputs_audit.py, each in the workspace
its test gives it) and write what really happened (exit code, the error line, files
changed), with the counts per round. The benchmark data, where a case reads it, is found as
the tests find it (tests/shared_data.py: ``$GENDERSCOPE_TEST_DATA`` or ``../shared/data``).

    PYTHONPATH=src HF_HUB_OFFLINE=1 python tests/reliability_table.py [docs/reliability.md]
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bad_input_case import ApiCase  # noqa: E402
from bad_inputs import CASES as ROUNDS  # noqa: E402
from bad_inputs import make_workspace, run_case  # noqa: E402
from bad_inputs_audit import CASES as AUDIT  # noqa: E402
from bad_inputs_audit import extend_workspace as extend_audit_workspace  # noqa: E402
from shared_data import data_dir  # noqa: E402

CASES = [*ROUNDS, *AUDIT]
"""Every case on the page, in its order: the rounds', then the audit's (items ``A.N``)."""

HEAD = """# Reliability: bad inputs and their outcomes

Each row is one command (or Python API call) run on a prepared workspace of small files
(column "item": the group of cases, 1-7, 24.1-24.5, 37.1-37.8 and the audit's A.1-A.13;
the cases live in `tests/bad_inputs.py`, `tests/bad_inputs_issue24.py`,
`tests/bad_inputs_issue37.py` and `tests/bad_inputs_audit.py`;
`tests/reliability/test_bad_inputs.py`, `test_bad_inputs_audit.py` and, for 37.1,
`test_inputs_never_outputs.py` assert them). Expected for every row: exit code 2 (an API
call: a `GenderscopeError`, `TypeError` or `ValueError`; from round 37 on a
`GenderscopeError`), one `error:` line naming the problem (or click's `Error: Invalid value`
for an option outside its range), no traceback, and no file or folder written or changed.
Rows marked "model cache only" loaded the model (or read the vectors) before refusing its
input, so the store may hold its memo.

Round 37 (37.1: every command that writes, `--out` pointed at each thing it reads; 37.7: the
Python API's arguments; 37.8: the chat probes, endpoints, WEFE metrics, vector and
language-model debiasing, the data commands) added the cases counted below. The audit after
the redesign (the API as strict as the command line, every option bounded) added: A.1 seeds
above 2**32 - 1, A.2 an empty run id, A.3 a run-many whose every cell was refused, A.4 the
attack's counts, A.5 options checked only after work had started, A.6 an endpoint's
concurrency, A.7 report and sweep flags that were ignored or failed every measure, A.8 counts
with no upper bound, A.9 `$GENDERSCOPE_DATA` (in its test only), A.10 the report's
`--classifier` and `--texts` (checked before any model loads, not a failed section), A.11 a
start token with masked models only (a sweep file's too), A.12 an endpoint's `--api-key-env`
naming an unset variable and an `@` inside a `--base-url` path segment, A.13 the option-bounds
audit (every declared number has a minimum, and every count that sets a run's work, a maximum:
`--exact-limit`, `--max-new-tokens`, a sweep's `--max-retries`, INLP's `--max-length`;
`--max-pairs`, `--repeat-penalty` and `runs show --items` below their minimum).
The table is regenerated, not written by hand:

    PYTHONPATH=src HF_HUB_OFFLINE=1 python tests/reliability_table.py

`{model}` is a tiny random BERT folder; `planted/` holds `checkpoints/step-1/trainer.pt`,
a pickle whose unpickling would create `MARKER` (it never appears). `res/`, `mine/`,
`mymodel/`, `ftc/` are a user's folders; `pipe` is a FIFO; `r.html` and `linkdir` are
symbolic links to a user's file and folder, `dangling.csv` a link to a missing file;
`vdir/`, `sdir/`, `mods/` hold a copy of the vectors, texts and corpus, of the store, and of
the classifier's code; `runs.csv` is a store whose name says CSV; `nocol.csv` is a CSV with
no text column and `blank.txt` holds blank lines only; `openai:tiny` at
`http://127.0.0.1:9/v1` is an endpoint nobody answers at.

{counts}

| item | input | command | exit | error line | changed |
|---|---|---|---|---|---|
"""

ELSEWHERE = [
    ("a checkpoint is safetensors + JSON; resuming never unpickles (planted pickles under "
     "every file name, with and without a matching `run.json`)",
     "tests/transforms/test_checkpoint.py"),
    ("a checkpoint is resumed only when `checkpoints/run.json` matches model, corpus hash "
     "and parameters", "tests/transforms/test_checkpoint.py, "
     "tests/transforms/test_finetune.py::test_resume_refuses_other_settings"),
    ("another application's SQLite file keeps its bytes, tables and journal mode",
     "tests/store/test_store_safety.py::test_foreign_sqlite_file_refused_by_writers"),
    ("`runs list/show/export` never create a store or its folders; an old store is read "
     "without migrating", "tests/store/test_store_safety.py"),
    ("a store on read-only media (read-only bind mount, or a read-only folder) can be "
     "listed and shown",
     "tests/store/test_store_safety.py::test_store_on_read_only_media_can_be_listed_and_shown"),
    ("6 processes creating one new store at once, 8 times (each SQL statement delayed at "
     "random by up to 5 ms): no failure",
     "tests/store/test_store_safety.py::test_concurrent_creation_is_race_free"),
    ("a figure that fails while drawing leaves no items.csv/summary.json and records no run",
     "tests/reliability/test_reliability.py"),
    ("`report --out` / `runs export --out` replace an existing file only with `--overwrite`",
     "tests/reliability/test_reliability.py"),
    ("a UTF-8 byte-order mark at the start of a vectors file is dropped, not read as part "
     "of the first word", "tests/reliability/test_reliability.py"),
    ("classifier SPECs that run code (.pkl/.joblib, module:name, file.py:name) say so in "
     "`--help` and docs/measures/robustness.md", "tests/reliability/test_reliability.py"),
    ("data loss: `debias cds --overwrite` checks everything before touching `--out`, "
     "never removes the current folder, an input or a folder genderscope did not write; a "
     "planted `OUT.tmp` link is never followed; `run --out` never replaces a user's "
     "summary.json; `runs export` never writes through a dangling link",
     "tests/reliability/test_output_rule.py"),
    ("disk full (RLIMIT_FSIZE) for `--out`, the store, the file-hash cache and a debias "
     "checkpoint: a clean error or the right answer, old output and stored runs intact, no "
     "temporary file", "tests/reliability/test_faults.py"),
    ("an empty/damaged file-hash memo is recomputed with one warning (two models never share "
     "a fingerprint); a damaged adapter memo is ignored; flipped bytes in the cached "
     "de-quantised GGUF weights are detected (SHA-256) and recomputed",
     "tests/reliability/test_faults.py"),
    ("a garbled store page is one `error:` line; 4 concurrent identical runs record one row",
     "tests/reliability/test_faults.py"),
    ("sweep requests no local node can satisfy, and bad sweep files, are refused before Ray "
     "starts", "tests/sweep/test_sweep_refusals.py"),
    ("inputs longer than the model's positions (GPT-2, RoBERTa, BERT) are refused naming the "
     "input and the limit", "tests/reliability/test_reliability.py::"
     "test_input_longer_than_the_model_is_refused_by_name"),
    ("`data fetch` never writes into a cache folder that holds the results store",
     "tests/reliability/test_inputs_never_outputs.py"),
    ("`--max-new-tokens` above a local model's context is one line; an endpoint answer is cut "
     "to `max_new_tokens` x 64 characters before it is stored, and a rerun over a stored "
     "64 MB answer evaluates it cut; a silent or trickling endpoint ends within its bound; "
     "any Ray start failure is one line", "tests/reliability/test_bounded.py"),
]
TAIL = "\n## What else holds (tested elsewhere)\n\n| what | test |\n|---|---|\n" + "".join(
    f"| {what} | `{test}` |\n" for what, test in ELSEWHERE)


def _cell(text: str) -> str:
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # a non-UTF-8 name
    return text.replace("|", "\\|").replace("\n", " ")


def counts(rows: list[tuple[str, str, str, str, str, str]]) -> str:
    """A table of the cases per round: how many, how many exit 2, tracebacks, files
    changed (beyond a model's cache)."""
    out = "| round | cases | exit 2 | tracebacks | files changed |\n|---|---|---|---|---|\n"
    for name, test in (("16", lambda i: "." not in i), ("24", lambda i: i.startswith("24")),
                       ("37", lambda i: i.startswith("37")),
                       ("audit", lambda i: i.startswith("A."))):
        mine = [r for r in rows if test(r[0])]
        out += (f"| {name} | {len(mine)} | {sum(r[3] == '2' for r in mine)} | "
                f"{sum(r[3].startswith('traceback') for r in mine)} | "
                f"{sum(r[5] not in ('nothing', 'model cache only') for r in mine)} |\n")
    return out


def render(rows: list[tuple[str, str, str, str, str, str]]) -> str:
    lines = [f"| {' | '.join(_cell(c) for c in row)} |" for row in rows]
    return HEAD.replace("{counts}", counts(rows)) + "\n".join(lines) + "\n" + TAIL


def command_text(args: list[str] | tuple[str, ...]) -> str:
    """The command line of a case as a user would type it: an argument with a space (or
    an empty one) in shell quotes, an unprintable or long one shortened as its ascii()."""
    return "genderscope " + " ".join(
        (shlex.quote(a) if not a or any(c.isspace() for c in a) else a)
        if a.isprintable() and len(a) < 60 else
        ascii(a) if len(a) < 60 else ascii(a)[:40] + "...'"
        for a in args)


def main() -> None:
    import os

    from genderscope.models.testing import build_bert

    data = data_dir()  # $GENDERSCOPE_TEST_DATA or ../shared/data (tests/shared_data.py)
    if data.is_dir():  # as tests/conftest.py: the test data, and no download ever
        os.environ.setdefault("GENDERSCOPE_DATA", str(data))
    os.environ["GENDERSCOPE_DATA_MIRROR"] = "http://127.0.0.1:9"
    os.environ["GENDERSCOPE_DATA_RETRIES"] = "0"

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        Path(__file__).resolve().parents[1] / "docs" / "reliability.md"
    with tempfile.TemporaryDirectory() as tmp:
        model = build_bert(Path(tmp) / "bert")
        rows = []
        for i, case in enumerate(CASES):
            root = make_workspace(Path(tmp) / f"ws{i}")
            if i >= len(ROUNDS):  # an audit case: the files its test adds
                extend_audit_workspace(root)
            o = run_case(case, root, model)
            last = o.stderr.splitlines()[-1] if o.stderr else ""
            last = last.replace(str(root) + "/", "").replace(str(model), "{model}")
            command = case.call if isinstance(case, ApiCase) else command_text(case.args)
            changed = ", ".join(o.changed) or (
                "model cache only" if getattr(case, "cache_may_grow", False) else "nothing")
            rows.append((case.item, case.what, f"`{command}`", str(o.code), last or "-",
                         changed))
    target.write_text(render(rows), encoding="utf-8")
    print(f"wrote {target} ({len(rows)} cases)")


if __name__ == "__main__":
    main()
