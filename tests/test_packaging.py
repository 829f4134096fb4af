"""Declared dependency bounds match what the code calls."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


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
