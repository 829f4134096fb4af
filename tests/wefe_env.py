"""WEFE 1.0.1 in its own venv (it pins numpy <= 1.26.4 and scipy < 1.13), built once
under ``~/.cache/genderscope-ref/wefe-1.0.1`` (keyed by version) and reused; used by
tests/agreement/test_wefe_agreement.py and benchmarks/bench_wefe.py. Building it needs the
package registry; without one the caller skips with the reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from filelock import FileLock

WEFE_VERSION = "1.0.1"
PINS = [f"wefe=={WEFE_VERSION}", "numpy<=1.26.4", "scipy<1.13"]
REFERENCE_SCRIPT = Path(__file__).with_name("wefe_reference.py")


def venv_dir() -> Path:
    root = os.environ.get("GENDERSCOPE_REF_CACHE") or Path.home() / ".cache" / "genderscope-ref"
    return Path(root) / f"wefe-{WEFE_VERSION}"


def _works(python: Path) -> bool:
    if not python.is_file():
        return False
    probe = subprocess.run([str(python), "-c", "import wefe, gensim, sklearn; "
                            f"assert wefe.__version__ == '{WEFE_VERSION}'"],
                           capture_output=True, timeout=120)
    return probe.returncode == 0


def wefe_python(timeout: int = 900) -> tuple[Path | None, str]:
    """(the venv's python, "") when WEFE is usable, else (None, why not). Builds the venv
    in a temporary sibling folder and renames it into place, so a half-built one is
    never taken for a good one; a file lock beside it lets one test process (of
    ``pytest -n``) build it while the others wait."""
    target = venv_dir()
    python = target / "bin" / "python"
    if _works(python):
        return python, ""
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock", timeout=timeout + 600):
        return _build(target, python, timeout)


def _build(target: Path, python: Path, timeout: int) -> tuple[Path | None, str]:
    if _works(python):  # another process built it while this one waited
        return python, ""
    tmp = target.with_name(target.name + f".build-{os.getpid()}")
    try:
        tmp.parent.mkdir(parents=True, exist_ok=True)
        base = shutil.which("python3.11") or sys.executable
        subprocess.run([base, "-m", "venv", str(tmp)], check=True, capture_output=True,
                       timeout=300)
        subprocess.run([str(tmp / "bin" / "python"), "-m", "pip", "install", "-q", *PINS],
                       check=True, capture_output=True, timeout=timeout)
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        return None, f"WEFE {WEFE_VERSION} venv could not be built: {exc}"
    if not _works(python):
        return None, f"WEFE {WEFE_VERSION} venv at {target} does not import wefe"
    return python, ""


def ensure_torch(python: Path, timeout: int = 900) -> str:
    """"" when the venv imports torch (WEFE's RAN needs it), installing this
    environment's torch version there if missing (under the venv's lock); else why not."""
    with FileLock(str(python.parents[1]) + ".lock", timeout=timeout + 600):
        return _ensure_torch(python, timeout)


def _ensure_torch(python: Path, timeout: int) -> str:
    probe = [str(python), "-c", "import torch"]
    if subprocess.run(probe, capture_output=True, timeout=120).returncode == 0:
        return ""
    try:
        import torch
        version = torch.__version__
    except ImportError:
        return "torch is not installed here, so WEFE's RAN is not run"
    try:
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"torch=={version}"],
                       check=True, capture_output=True, timeout=timeout)
    except (subprocess.SubprocessError, OSError) as exc:
        return f"torch {version} could not be installed in the WEFE venv: {exc}"
    if subprocess.run(probe, capture_output=True, timeout=120).returncode != 0:
        return "the WEFE venv does not import torch"
    return ""


def run_reference(python: Path, spec: Path, out: Path, timeout: int = 1800) -> None:
    """Run tests/wefe_reference.py in the venv (one subprocess)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([str(python), str(REFERENCE_SCRIPT), str(spec), str(out)],
                          capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"WEFE reference run failed:\n{proc.stderr[-3000:]}")
