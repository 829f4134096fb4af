"""Machine-readable records of benchmark rows, for the speed table of docs/performance.md.

A benchmark script run with ``--record`` writes one JSON file per measured row to
``benchmarks/results/<script-stem>[-<case>][-<device>].json`` (``<device>`` only when it
is not the CPU), or to ``--record-dir`` / ``$GENDERSCOPE_BENCH_RESULTS`` when given
(smoke runs that must not replace the committed records). ``benchmarks/speed_table.py``
renders the table from these files; nothing in the table is typed by hand.

A record holds: what was measured, the baseline (label, seconds), genderscope (label,
seconds), their ratio (baseline seconds / genderscope seconds), extra figures, the
exact command line, the git commit (``-dirty`` when tracked files differ from it,
the results folder aside), the UTC start and end times, the machine (CPU model, core
count, torch version, device and GPU name) and the load average at start and end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
RESULTS_ENV = "GENDERSCOPE_BENCH_RESULTS"
SCHEMA = 1
SHARED_DATA = REPO.parent / "shared" / "data"


def use_shared_data() -> None:
    """Point ``$GENDERSCOPE_DATA`` at this project's offline copy of the public data
    (``../shared/data`` beside the checkout) when it is unset and that folder exists, so a
    benchmark run from the checkout finds its data without the network. The product
    itself never looks there; a set ``$GENDERSCOPE_DATA`` is kept."""
    if not os.environ.get("GENDERSCOPE_DATA") and SHARED_DATA.is_dir():
        os.environ["GENDERSCOPE_DATA"] = str(SHARED_DATA)


use_shared_data()  # every benchmark script imports this module before any data look-up


def add_record_options(ap: argparse.ArgumentParser) -> None:
    """``--record`` and ``--record-dir`` on a benchmark's argument parser."""
    ap.add_argument("--record", action="store_true",
                    help="write one JSON record per measured row (benchmarks/results/; "
                         "benchmarks/speed_table.py renders docs/performance.md's table from them)")
    ap.add_argument("--record-dir", type=Path, default=None,
                    help=f"write the records here instead (also ${RESULTS_ENV}); implies "
                         "--record")


def record_name(script: str, case: str | None, device: str) -> str:
    """File name of one row's record: ``<stem>[-<case>][-<device kind>].json``."""
    kind = device.split(":")[0]
    return "-".join([Path(script).stem, *([case] if case else []),
                     *([kind] if kind != "cpu" else [])]) + ".json"


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what platform reports."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine(device: str) -> dict[str, Any]:
    """CPU model and cores, torch version, device and (on CUDA) the GPU's name."""
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch_version = None
    gpu = None
    if device.startswith("cuda"):
        import torch

        index = int(device.split(":")[1]) if ":" in device else 0
        gpu = torch.cuda.get_device_name(index)
        torch_version = torch.__version__
    elif "torch" in sys.modules:
        torch_version = sys.modules["torch"].__version__
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "torch": torch_version,
            "python": platform.python_version(), "device": device, "gpu": gpu}


def git_commit(repo: Path = REPO) -> str | None:
    """``git rev-parse --short HEAD``, plus ``-dirty`` when tracked files outside
    benchmarks/results differ from it (untracked files are not counted)."""
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no", "--",
             ".", ":(exclude)benchmarks/results"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def command_line(argv: list[str] | None = None) -> str:
    """The command as typed from the repository root: ``python <script> <args>``."""
    argv = list(sys.argv if argv is None else argv)
    script = Path(argv[0]).resolve()
    try:
        shown = str(script.relative_to(REPO))
    except ValueError:
        shown = script.name
    return shlex.join(["python", shown, *argv[1:]])


def timed_process(cmd: list[str], env: dict[str, str]) -> float:
    """Wall seconds of ``cmd`` run to its exit (a whole-process row's clock); its stderr
    tail and exit on failure."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr[-3000:]}")
    return wall


def genderscope_command() -> list[str]:
    """The ``genderscope`` command as a user types it: the console script installed next
    to this Python (else the CLI's entry point run by this Python)."""
    script = Path(sys.executable).with_name("genderscope")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from genderscope.cli.app import main; main()"]


def _utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


@dataclass
class Recorder:
    """Collects a benchmark run's context at start; :meth:`write` saves one row."""

    script: str
    folder: Path | None
    started: str = field(default_factory=_utc)
    load_start: list[float] = field(default_factory=_load)
    command: str = field(default_factory=command_line)
    written: list[Path] = field(default_factory=list)

    @classmethod
    def from_args(cls, script: str, args: argparse.Namespace) -> Recorder:
        """Records go to ``--record-dir``, ``$GENDERSCOPE_BENCH_RESULTS`` (with
        ``--record``) or benchmarks/results (with ``--record``); none without them."""
        folder = args.record_dir
        if folder is None and args.record:
            folder = Path(os.environ.get(RESULTS_ENV) or RESULTS)
        return cls(script=script, folder=folder)

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def write(self, *, what: str, baseline: str, baseline_s: float, genderscope: str,
              genderscope_s: float, device: str, case: str | None = None,
              extra: list[dict[str, Any]] | None = None) -> Path | None:
        """Save one measured row. ``extra``: ``{"name", "value", "unit"}`` dicts (figures
        the table shows beside the times; ``"side": "baseline"`` puts one in the
        baseline's cell)."""
        if self.folder is None:
            return None
        record = {
            "schema": SCHEMA,
            "script": f"benchmarks/{Path(self.script).name}",
            "case": case,
            "what": what,
            "baseline": {"label": baseline, "seconds": baseline_s},
            "genderscope": {"label": genderscope, "seconds": genderscope_s},
            "ratio": baseline_s / genderscope_s,
            "extra": extra or [],
            "command": self.command,
            "commit": git_commit(),
            "started_utc": self.started,
            "finished_utc": _utc(),
            "machine": machine(device),
            "load_start": self.load_start,
            "load_end": _load(),
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / record_name(self.script, case, device)
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        self.written.append(path)
        print(f"recorded {path} (speed table: python benchmarks/speed_table.py)")
        return path
