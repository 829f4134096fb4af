"""Record the README's main job and render its sample output; never typed by hand.

``--record`` runs the README's main job exactly as a user types it (``genderscope report
--model smollm2 --vectors glove-6b-50d --encoder all-minilm-l6-v2 --out report.html``)
in a scratch folder with a fresh results store, in an 80-column terminal
(``COLUMNS=80``), under ``/usr/bin/time -v``, and writes what it printed, its wall time,
peak memory, date, commit and load average to ``benchmarks/results/readme/sample.json``.
Without ``--record`` the README block between ``<!-- sample-output:start -->`` and
``<!-- sample-output:end -->`` is rendered from that record:

    python benchmarks/readme_sample.py --record   # run the main job (minutes), record it
    python benchmarks/readme_sample.py            # rewrite the README block
    python benchmarks/readme_sample.py --check    # exit 1 when README.md differs

The GGUF caches under ``$GENDERSCOPE_CACHE`` are kept (the record says whether they were
warm); only the results store is fresh.

The same run's page is the README's picture: ``--record`` also screenshots its
``report.html`` with headless Chromium (light and dark, ``docs/report.png`` and
``docs/report-dark.png``) and records the pictures' SHA-256 and the page's headline
numbers (estimate and interval text, from the page's headline table), so that a test
(tests/core/test_readme_sample.py) checks that the picture, the page and the terminal
sample are one run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchrecord import REPO, _load, _utc, git_commit, machine  # noqa: E402

RECORD = REPO / "benchmarks" / "results" / "readme" / "sample.json"
"""Beside, not among, the speed records (speed_table.py reads results/*.json)."""
README = REPO / "README.md"
START = "<!-- sample-output:start -->"
END = "<!-- sample-output:end -->"
SHOTS = {"light": REPO / "docs" / "report.png", "dark": REPO / "docs" / "report-dark.png"}
"""The README's and docs/report.md's pictures of the recorded page."""
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                  "--disable-background-networking", "--no-first-run",
                  "--disable-extensions", "--disable-dev-shm-usage",
                  "--virtual-time-budget=10000", "--window-size=1280,1500"]
COMMAND = ["genderscope", "report", "--model", "smollm2", "--vectors", "glove-6b-50d",
           "--encoder", "all-minilm-l6-v2", "--out", "report.html"]


def _size(folder: Path) -> int:
    """Bytes of the files under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) \
        if folder.is_dir() else 0


def record(path: Path = RECORD, data: Path | None = None) -> dict[str, Any]:
    """Run the main job once (fresh store, 80 columns) and write its record."""
    cache = Path(os.environ.get("GENDERSCOPE_CACHE", Path.home() / ".cache" / "genderscope"))
    warm = (cache / "gguf-models").is_dir() and any((cache / "gguf-models").iterdir())
    with tempfile.TemporaryDirectory(prefix="gs-readme-") as tmp:
        env = dict(os.environ, COLUMNS="80", GENDERSCOPE_STORE=str(Path(tmp) / "store.sqlite"),
                   GENDERSCOPE_DATA=str(data or REPO.parent / "shared" / "data"),
                   TERM="dumb", NO_COLOR="1")
        start, load0 = _utc(), _load()
        t0 = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-v", *COMMAND], cwd=tmp, env=env,
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        store_mb = sum(p.stat().st_size for p in Path(tmp).glob("store.sqlite*")) / 2**20
        if done.returncode != 0:
            raise SystemExit(f"the main job failed ({done.returncode}):\n"
                             f"{done.stderr[-3000:]}")
        page = (Path(tmp) / "report.html").read_text(encoding="utf-8")
        shots = screenshot(Path(tmp) / "report.html")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    rec = {"command": " ".join(COMMAND), "stdout": done.stdout, "wall_s": round(wall, 1),
           "peak_rss_mb": round(int(rss.group(1)) / 1024) if rss else None,
           "columns": 80, "fresh_store": True, "gguf_cache_warm": warm,
           "store_mb": round(store_mb, 1), "cache_mb": round(_size(cache) / 2**20),
           "started_utc": start, "finished_utc": _utc(), "commit": git_commit(),
           "machine": machine("cpu"), "load_start": load0, "load_end": _load(),
           "page_numbers": page_numbers(page), "screenshots": shots}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = path.with_name(path.name + ".tmp")
    tmp_path.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp_path.replace(path)
    return rec


def page_numbers(page: str) -> list[str]:
    """The estimates of the page's headline table (the HTML cells ``td.num`` of
    ``table#headline``), as printed: what the terminal sample must show too."""
    import html

    table = re.search(r'<table id="headline">(.*?)</table>', page, re.S)
    if table is None:
        return []
    cells = re.findall(r'<td class="num">(.*?)</td>', table.group(1), re.S)
    texts = [html.unescape(re.sub(r"<[^>]+>.*", "", c, flags=re.S)).strip() for c in cells
             if not c.startswith("[")]  # estimates, not their intervals
    numbers = (re.match(r"[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?", t) for t in texts)
    return [m.group(0) for m in numbers if m][:200]  # the number, less its unit


def screenshot(page: Path) -> dict[str, str]:
    """Light and dark screenshots of ``page`` into :data:`SHOTS`; their SHA-256."""
    import hashlib
    import shutil

    chromium = next((p for p in (shutil.which(n) for n in (
        "chromium", "chromium-browser", "google-chrome")) if p), None)
    if chromium is None:
        raise SystemExit("--record needs Chromium for the README's screenshot "
                         "(Debian: apt-get install -y chromium)")
    digests = {}
    for scheme, path in SHOTS.items():
        subprocess.run([chromium, *CHROMIUM_FLAGS,
                        f"--blink-settings=preferredColorScheme={0 if scheme == 'dark' else 1}",
                        f"--screenshot={path}", page.as_uri()],
                       capture_output=True, check=True, timeout=180)
        digests[scheme] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


SHOWN_BLOCKS = 3
"""Measure blocks of the headline table the README shows (the rest are summarised in one
line; the record holds the whole output)."""
BLOCK = re.compile(r"^\S.* · .* · [\d.]+ s$")


def excerpt(stdout: str) -> list[str]:
    """The README's view of the output: every line but the per-measure start lines
    (``model: measure …``) and the headline blocks after the first :data:`SHOWN_BLOCKS`,
    which one line counts."""
    lines = [line.rstrip() for line in stdout.rstrip("\n").splitlines()]
    out: list[str] = []
    blocks = skipped = 0
    in_table = False
    for line in lines:
        if line.endswith(" …") and not in_table:
            continue
        if line.startswith("Headline numbers"):
            in_table = True
        elif in_table and BLOCK.match(line):
            blocks += 1
        elif in_table and line and not line.startswith(" "):
            in_table = False  # the verdict and the last lines
            if skipped:
                out.append(f"[… {skipped} more measure blocks: see the record]")
        if in_table and blocks > SHOWN_BLOCKS:
            if BLOCK.match(line):
                skipped += 1
            continue
        out.append(line)
    return out


def render(rec: dict[str, Any]) -> str:
    """The README block: where and how the run was made, then what it printed."""
    m = rec.get("machine") or {}
    load = " ".join(f"{x:.2f}" for x in rec.get("load_start") or [])
    lines = [
        f"`{rec['command']}` as run on {m.get('cpu', 'this machine')} "
        f"({m.get('cores', '?')} cores) on {rec['started_utc'][:10]} at commit "
        f"{rec.get('commit') or '?'}: {rec['wall_s']:.0f} s wall, peak memory "
        f"{rec['peak_rss_mb']:,} MB (`/usr/bin/time -v`), a fresh results store"
        + (f" ({rec['store_mb']:.1f} MB after the run)" if "store_mb" in rec else "")
        + f", the GGUF cache {'warm' if rec.get('gguf_cache_warm') else 'empty'}"
        + (f" (`$GENDERSCOPE_CACHE`: {rec['cache_mb']:,} MB after the run)"
           if "cache_mb" in rec else "")
        + f", load average {load} at the start"
        + (" (a busy machine: other jobs ran beside it, so an idle machine is faster)"
           if (rec.get("load_start") or [0])[0] > (m.get("cores") or 1) else "")
        + f", an {rec['columns']}-column terminal. Recorded by "
        "`python benchmarks/readme_sample.py --record`; this block is rendered from that "
        "record (`benchmarks/results/readme/sample.json`), never typed by hand.",
        "", "```", *excerpt(rec["stdout"]), "```"]
    return "\n".join(lines)


def block(readme: str, rec: dict[str, Any]) -> str:
    """``readme`` with its sample-output block replaced by the rendering of ``rec``."""
    if START not in readme or END not in readme:
        raise SystemExit(f"README has no {START} ... {END} block")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{render(rec)}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="run the main job and record it")
    ap.add_argument("--check", action="store_true", help="exit 1 when README.md differs")
    ap.add_argument("--data", type=Path, default=None, help="benchmark data folder")
    args = ap.parse_args(argv)
    rec = record(data=args.data) if args.record else json.loads(
        RECORD.read_text(encoding="utf-8"))
    text = README.read_text(encoding="utf-8")
    new = block(text, rec)
    if args.check:
        if new != text:
            print("README.md sample output differs from benchmarks/results/readme/sample.json;"
                  " run python benchmarks/readme_sample.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
