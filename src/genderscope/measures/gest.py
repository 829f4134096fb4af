"""GenderBench's Gest and GestCreative by name: the measures behind ``genderscope run gest |
gest-creative`` and their report cards (``reporting/cards/gest.py``). The probes live in
:mod:`genderscope.measures.genderbench.gest`; their GEST sentences are the registry's
data set ``gest`` (not packaged), found here without fetching."""

from __future__ import annotations

from pathlib import Path

from genderscope.measures.genderbench.gest import build_creative, build_gest, load_gest

__all__ = ["build_creative", "build_gest", "gest_folder", "load_gest"]


def gest_folder(data_dir: Path | None = None) -> Path | None:
    """The folder holding ``gest.csv`` on this machine, or None; nothing is fetched.
    Looked for under ``data_dir/gest``, ``$GENDERSCOPE_DATA/gest``, then the registry's
    packaged or fetched copy of ``gest``."""
    from genderscope.datasets import registry
    from genderscope.datasets.locations import data_roots

    roots = [Path(data_dir)] if data_dir is not None else []
    for root in [*roots, *data_roots()]:
        if (root / "gest" / "gest.csv").is_file():
            return root / "gest"
    ds = registry.get("gest")
    found = registry.packaged_dir(ds) or registry.cached_dir(ds)
    return found if found is not None and (found / "gest.csv").is_file() else None
