"""genderscope: measure gender bias in language technology, and help reduce it.

The public API (see docs/api.md)::

    import genderscope as gs
    r = gs.run("crows-pairs", model="smollm2", bias_type="gender")
    r.summary, r.items, r.to_json(); gs.plot(r)

Everything not listed in ``__all__`` is internal. Names load on first use, so
``import genderscope`` imports neither torch nor transformers.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("genderscope")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+unknown"

__all__ = ["Query", "Result", "compare", "debias", "load_model", "plot", "report", "run",
           "run_many"]

_LAZY = {"run": "genderscope.api", "load_model": "genderscope.api",
         "plot": "genderscope.api", "report": "genderscope.api",
         "compare": "genderscope.api", "debias": "genderscope.api",
         "Result": "genderscope.results", "Query": "genderscope.datasets.query",
         "run_many": "genderscope.sweep.many"}

if TYPE_CHECKING:
    from genderscope.api import (  # noqa: F401
        compare,
        debias,
        load_model,
        plot,
        report,
        run,
    )
    from genderscope.datasets.query import Query
    from genderscope.results import Result
    from genderscope.sweep.many import run_many


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'genderscope' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
