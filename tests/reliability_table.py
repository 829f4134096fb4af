"""Regenerate docs/reliability.md: run every case of tests/bad_inputs.py and write what
really happened (exit code, the error line, files changed).

    PYTHONPATH=src HF_HUB_OFFLINE=1 python tests/reliability_table.py [docs/reliability.md]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bad_inputs import CASES, make_workspace, run_case  # noqa: E402

HEAD = """# Reliability: bad inputs and their outcomes

Each row is one command run on a prepared workspace of small files (issue 16; the cases
live in `tests/bad_inputs.py`, `tests/test_bad_inputs.py` asserts them). Expected for every
row: exit code 2, one `error:` line naming the problem, no traceback, and no file or folder
written or changed. The table is regenerated, not written by hand:

    PYTHONPATH=src HF_HUB_OFFLINE=1 python tests/reliability_table.py

`{model}` is a tiny random BERT folder; `planted/` holds `checkpoints/step-1/trainer.pt`,
a pickle whose unpickling would create `MARKER` (it never appears).

| item | input | command | exit | error line | changed |
|---|---|---|---|---|---|
"""

ELSEWHERE = [
    ("a checkpoint is safetensors + JSON; resuming never unpickles (planted pickles under "
     "every file name, with and without a matching `run.json`)", "tests/test_checkpoint.py"),
    ("a checkpoint is resumed only when `checkpoints/run.json` matches model, corpus hash "
     "and parameters", "tests/test_checkpoint.py, "
     "tests/test_finetune.py::test_resume_refuses_other_settings"),
    ("another application's SQLite file keeps its bytes, tables and journal mode",
     "tests/test_store_safety.py::test_foreign_sqlite_file_refused_by_writers"),
    ("`runs list/show/export` never create a store or its folders; an old store is read "
     "without migrating", "tests/test_store_safety.py"),
    ("a store on read-only media (read-only bind mount, or a read-only folder) can be "
     "listed and shown",
     "tests/test_store_safety.py::test_store_on_read_only_media_can_be_listed_and_shown"),
    ("6 processes creating one new store at once, 8 times (each SQL statement delayed at "
     "random by up to 5 ms): no failure",
     "tests/test_store_safety.py::test_concurrent_creation_is_race_free"),
    ("a figure that fails while drawing leaves no items.csv/summary.json and records no run",
     "tests/test_reliability.py"),
    ("`report --out` / `runs export --out` replace an existing file only with `--overwrite`",
     "tests/test_reliability.py"),
    ("a UTF-8 byte-order mark at the start of a vectors file is dropped, not read as part "
     "of the first word", "tests/test_reliability.py"),
    ("classifier SPECs that run code (.pkl/.joblib, module:name, file.py:name) say so in "
     "`--help` and docs/measures/robustness.md", "tests/test_reliability.py"),
]
TAIL = "\n## What else holds (tested elsewhere)\n\n| what | test |\n|---|---|\n" + "".join(
    f"| {what} | `{test}` |\n" for what, test in ELSEWHERE)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(rows: list[tuple[str, str, str, str, str, str]]) -> str:
    lines = [f"| {' | '.join(_cell(c) for c in row)} |" for row in rows]
    return HEAD + "\n".join(lines) + "\n" + TAIL


def main() -> None:
    from genderscope.models.testing import build_bert

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        Path(__file__).resolve().parents[1] / "docs" / "reliability.md"
    with tempfile.TemporaryDirectory() as tmp:
        model = build_bert(Path(tmp) / "bert")
        rows = []
        for i, case in enumerate(CASES):
            root = make_workspace(Path(tmp) / f"ws{i}")
            o = run_case(case, root, model)
            last = o.stderr.splitlines()[-1] if o.stderr else ""
            last = last.replace(str(root) + "/", "").replace(str(model), "{model}")
            command = "genderscope " + " ".join(case.args)
            rows.append((case.item, case.what, f"`{command}`", str(o.code), last or "-",
                         ", ".join(o.changed) or "nothing"))
    target.write_text(render(rows), encoding="utf-8")
    print(f"wrote {target} ({len(rows)} cases)")


if __name__ == "__main__":
    main()
