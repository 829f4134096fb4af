"""Where the benchmark data sets live.

The data folder holds one subfolder per benchmark (``seat/``, ``winobias/``,
``crows-pairs/`` ...). It is ``$GENDERSCOPE_DATA`` when set, else the first of
``./shared/data`` and ``../shared/data`` that holds the subfolder asked for.
Commands take ``--data`` to name it explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from genderscope.errors import DataError

DATA_ENV = "GENDERSCOPE_DATA"


def data_roots() -> list[Path]:
    """Candidate data folders, in the order they are searched."""
    env = os.environ.get(DATA_ENV)
    if env:
        return [Path(env)]
    return [Path("shared") / "data", Path("..") / "shared" / "data"]


def find_benchmark(folder: str, roots: Sequence[Path] | None = None) -> Path:
    """``<root>/<folder>`` for the first root that has it; a one-line error otherwise."""
    roots = list(roots) if roots is not None else data_roots()
    for root in roots:
        if (root / folder).is_dir():
            return root / folder
    raise DataError(f"{folder} data not found under {', '.join(map(str, roots))}: pass "
                    f"--data or set {DATA_ENV} to the folder that holds {folder}/")
