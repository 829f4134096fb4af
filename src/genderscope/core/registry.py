"""The registry of measure declarations, by name, loaded on first use.

Built-in measures are declared in the modules of :data:`BUILTIN` (the catalog); a
third-party package adds its own through the ``genderscope.measures`` entry-point group
(``[project.entry-points."genderscope.measures"] mine = "my_pkg.measures"``: a module,
a :class:`~genderscope.core.declaration.Declaration` or a list of them). Nothing else in
genderscope names a measure: the CLI, the API, the engine and the docs read this
registry.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
from types import ModuleType
from typing import Any

from genderscope.core.declaration import Declaration
from genderscope.errors import GenderscopeError, did_you_mean

BUILTIN = "genderscope.catalog"
"""The package whose modules declare the built-in measures (read by name: the core
imports no layer above it)."""
GROUP = "genderscope.measures"
"""The entry-point group of plug-in measures."""

_REGISTRY: dict[str, Declaration] = {}
_loaded = False


def _found_in(obj: Any) -> list[Declaration]:
    if isinstance(obj, Declaration):
        return [obj]
    if isinstance(obj, ModuleType):  # its declarations, and those listed in MEASURES
        found = [v for v in vars(obj).values() if isinstance(v, Declaration)]
        return found + [d for d in _found_in(list(getattr(obj, "MEASURES", ())))
                        if d not in found]
    if isinstance(obj, (list, tuple)):
        return [d for o in obj for d in _found_in(o)]
    raise GenderscopeError(f"entry point of {GROUP} gave a {type(obj).__name__}, not a "
                           "measure declaration")


def _builtin() -> list[Declaration]:
    package = importlib.import_module(BUILTIN)
    found: list[Declaration] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            found += _found_in(importlib.import_module(f"{BUILTIN}.{info.name}"))
    return found


def _load() -> None:
    global _loaded
    if _loaded:
        return
    declared = _builtin()
    for ep in importlib.metadata.entry_points(group=GROUP):
        declared += _found_in(ep.load())
    for d in declared:
        if d.name in _REGISTRY and _REGISTRY[d.name] is not d:
            raise GenderscopeError(f"measure {d.name!r} is declared twice")
        _REGISTRY[d.name] = d
    _loaded = True


def register(declaration: Declaration, *, replace: bool = False) -> Declaration:
    """Add a declaration at run time (tests, notebooks); ``replace`` one of that name."""
    _load()
    if declaration.name in _REGISTRY and not replace:
        raise GenderscopeError(f"measure {declaration.name!r} is already registered")
    _REGISTRY[declaration.name] = declaration
    return declaration


def unregister(name: str) -> None:
    """Remove a declaration added with :func:`register`."""
    _REGISTRY.pop(name, None)


def declarations() -> dict[str, Declaration]:
    """Every measure, by name."""
    _load()
    return dict(_REGISTRY)


def names() -> list[str]:
    return list(declarations())


def get(name: str) -> Declaration:
    """The declaration of ``name``, or a one-line error listing the names."""
    found = declarations().get(name)
    if found is None:
        raise GenderscopeError(f"unknown measure {name!r}; {did_you_mean(str(name), names())}"
                               f"choose one of {', '.join(names())}")
    return found
