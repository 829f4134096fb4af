"""Where the benchmark data sets live.

:func:`find_benchmark` returns the folder of a data set (``seat``, ``winobias``,
``crows-pairs`` ...; a subfolder such as ``seat/tests`` also works), with the layout of the
upstream data set. It looks, in this order:

1. in the folders given (``--data``), else in ``$GENDERSCOPE_DATA`` (a user's own copy
   or an offline mirror holding ``<name>/`` folders);
2. in the package (sets whose licence allows redistribution ship inside genderscope);
3. in the fetch cache (``$GENDERSCOPE_CACHE/data``);
4. by downloading it from its pinned source (or ``$GENDERSCOPE_DATA_MIRROR``) and
   verifying every file's SHA-256 (:mod:`genderscope.datasets.registry`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from genderscope.errors import DataError

DATA_ENV = "GENDERSCOPE_DATA"


def data_roots() -> list[Path]:
    """The user's data folders searched before the registry (``$GENDERSCOPE_DATA``); one
    that is not a folder is refused (a typo was ignored, the packaged sets used instead)."""
    env = os.environ.get(DATA_ENV)
    if env and not Path(env).is_dir():
        raise DataError(f"${DATA_ENV} is {env}, not a folder; set it to the folder that holds "
                        "the data sets' <name>/ folders, or unset it")
    return [Path(env)] if env else []


def find_benchmark(folder: str, roots: Sequence[Path] | None = None) -> Path:
    """The data set folder ``folder`` (see the module docstring); a one-line error when
    it is neither in ``roots`` nor a registered data set, or cannot be fetched."""
    from genderscope.datasets import registry
    from genderscope.datasets.registry_fetch import locate

    roots = list(roots) if roots is not None else data_roots()
    if _LISTENING:
        _LISTENING[-1].append(Path(folder).parts[0])
        raise _Needed(folder)
    for root in roots:
        if (root / folder).is_dir():
            return root / folder
    name, *rest = Path(folder).parts
    if name not in registry.registry():
        where = f" under {', '.join(map(str, roots))}" if roots else ""
        raise DataError(f"{folder} data not found{where}: not a registered data set "
                        f"({', '.join(registry.names())}); pass --data or set {DATA_ENV} "
                        f"to the folder that holds {name}/")
    found = locate(registry.get(name)).joinpath(*rest)
    if not found.is_dir():
        raise DataError(f"{folder}: no such folder in data set {name} ({found.parent})")
    return found


class _Needed(Exception):
    """Raised by :func:`find_benchmark` while :func:`needed_sets` listens."""


_LISTENING: list[list[str]] = []


def needed_sets(build: Callable[[], object]) -> list[str]:
    """The registered data sets ``build()`` asks :func:`find_benchmark` for, learnt
    without reading or fetching them: the first request stops ``build`` (so a plan that
    needs two sets names the first). Any other error of ``build`` is left for the real
    run to report."""
    heard: list[str] = []
    _LISTENING.append(heard)
    try:
        build()
    except Exception:  # noqa: BLE001 - _Needed, or a problem the real run reports
        pass
    finally:
        _LISTENING.pop()
    return heard


def available_here(name: str, roots: Sequence[Path] | None = None) -> bool:
    """Whether data set ``name`` can be read without a download: in ``roots`` (else
    ``$GENDERSCOPE_DATA``), packaged, or in the fetch cache."""
    from genderscope.datasets import registry
    from genderscope.datasets.registry import cached_dir, packaged_dir

    roots = list(roots) if roots is not None else data_roots()
    if any((root / name).is_dir() for root in roots):
        return True
    if name not in registry.registry():
        return True  # not ours to fetch: the run says what is wrong
    ds = registry.get(name)
    return packaged_dir(ds) is not None or cached_dir(ds) is not None
