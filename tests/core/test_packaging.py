"""Declared dependency bounds match what the code calls."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def _requirement(name: str) -> Requirement:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [req] = [Requirement(d) for d in deps if Requirement(d).name == name]
    return req


def test_scipy_lower_bound_allows_bootstrap_rng() -> None:
    """``scipy.stats.bootstrap(..., rng=)`` exists from scipy 1.15 on."""
    uses_rng = any(re.search(r"bootstrap\(.{0,300}?\brng=", p.read_text(), re.DOTALL)
                   for p in (ROOT / "src" / "genderscope").rglob("*.py"))
    assert uses_rng, "no bootstrap(rng=) call left: revisit the scipy bound"
    spec = _requirement("scipy").specifier
    assert not spec.contains("1.14.1") and spec.contains("1.15.0")


def test_torch_is_a_range_not_a_pin() -> None:
    """Installs beside the user's own torch build (CUDA, ROCm, CPU); the full check in
    fresh virtual environments is scripts/check_install_beside_torch.sh (docs/install.md)."""
    spec = _requirement("torch").specifier
    assert all(s.operator == ">=" for s in spec), str(spec)
    assert spec.contains("2.4.0") and spec.contains("2.12.0") and spec.contains("3.0.0")


def test_no_library_dependency_is_pinned_exactly() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = [d for d in deps if any(s.operator == "==" for s in Requirement(d).specifier)
              and Requirement(d).name != "names"]  # names 0.3.0: last release, data package
    assert not pinned, f"exact pins replace what users have installed: {pinned}"
