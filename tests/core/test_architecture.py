"""The package's import structure (docs/architecture.md): one path down, no circles.

Imports are read with :mod:`ast` EVERYWHERE in a module, inside functions too: a
deferred import runs just the same when its function is called, so it counts. Only
imports under ``if TYPE_CHECKING:`` (never run) are ignored.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "genderscope"

# bottom to top: a module may import from its own layer or any below, never above
LAYERS: list[tuple[str, set[str]]] = [
    ("core", {"__init__", "errors", "checks", "casing", "files", "progress", "results",
              "outputs", "text_blocks", "core"}),
    ("store", {"store"}),
    ("stats", {"stats"}),
    ("models/datasets", {"models", "datasets"}),
    ("transforms", {"attack", "swap", "lm_debias", "vector_debias"}),
    ("measures", {"measures"}),
    ("catalog", {"catalog"}),
    ("engine", {"engine"}),
    ("report/sweep", {"reporting", "sweep"}),  # the report cards: reporting/cards/
    ("api", {"api", "api_debias"}),
    ("cli", {"cli", "testing", "__main__"}),  # testing: check_measure reads the CLI too;
    # __main__: python -m genderscope
]
MODULES = {".".join(p.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__")
           for p in SRC.rglob("*.py")}
WORKFLOWS = {"genderscope.vector_debias.evaluate": "engine"}
"""Modules that sit above their folder's layer: the before/after evaluation of
``genderscope debias hard ...`` runs measures through the engine."""
TORCH = {"torch", "transformers", "tokenizers", "sentence_transformers"}
"""Top-level packages that run or train a neural model."""
TORCH_FOLDERS = {"models", "lm_debias", "vector_debias"}
"""Only the adapters (``models/``) and the model-changing transforms touch torch: the
fine-tuning loop of ``debias cds|dropout`` and its checkpoints (``lm_debias/``) and RAN's
torch optimiser (``vector_debias/ran_torch.py``). ``attack/`` and ``swap/`` make new texts
with no model of their own."""
TRAINING = {"backward", "zero_grad", "optim", "requires_grad_", "requires_grad",
            "get_linear_schedule_with_warmup"}
"""Names that only code which trains (autograd, an optimiser, a schedule) uses."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(tree: ast.Module, package: str) -> set[str]:
    """Dotted names the module imports anywhere (functions included; ``TYPE_CHECKING``
    blocks skipped)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.orelse:
                    visit_one(stmt)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            subs = {f"{base}.{a.name}" for a in node.names}
            found.update(subs)  # submodules, if any
            if not subs & MODULES:  # `from pkg import module` runs pkg's module level only
                found.add(base)
        visit(node)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """genderscope module -> the genderscope modules it imports (anywhere)."""
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported = imports_of(ast.parse(path.read_text(encoding="utf-8")), package)
        graph[name] = {m for m in imported if m in paths and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def layer(module: str) -> int:
    if module in WORKFLOWS:
        return [n for n, _ in LAYERS].index(WORKFLOWS[module])
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for i, (_, members) in enumerate(LAYERS):
        if top in members:
            return i
    raise AssertionError(f"{module} is in no layer: add {top!r} to LAYERS (and the picture)")


def test_the_checks_find_what_they_look_for() -> None:
    """The helpers on made-up code: a circle, a deferred import (counted), a
    TYPE_CHECKING import (not counted)."""
    code = ("import genderscope.a\nfrom . import b\nif TYPE_CHECKING:\n    import x.y\n"
            "try:\n    import z\nexcept ImportError:\n    import w\n"
            "def f():\n    import genderscope.report\n")
    assert imports_of(ast.parse(code), "genderscope.pkg") == {
        "genderscope.a", "genderscope.pkg", "genderscope.pkg.b", "z", "w",
        "genderscope.report"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert layer("genderscope.core.options") < layer("genderscope.store.runs") < \
        layer("genderscope.models.hf") < layer("genderscope.measures.crows_pairs") < \
        layer("genderscope.catalog.sentences") < layer("genderscope.engine") < \
        layer("genderscope.reporting.cards.crows_pairs") < layer("genderscope.api") < \
        layer("genderscope.cli.app")


def test_no_import_circle() -> None:
    """No circle among src/genderscope modules, counting imports inside functions."""
    assert cycles(import_graph()) == []


@pytest.mark.slow
def test_no_module_imports_from_a_layer_above_it() -> None:
    """cli -> api -> report/sweep -> engine -> catalog -> measures -> transforms ->
    models/datasets -> stats -> store -> core, imports inside functions included."""
    graph = import_graph()
    upward = [f"{m} ({LAYERS[layer(m)][0]}) imports {d} ({LAYERS[layer(d)][0]})"
              for m, deps in sorted(graph.items()) for d in sorted(deps) if layer(d) > layer(m)]
    assert upward == []


@pytest.mark.slow
def test_the_core_imports_nothing_above_it() -> None:
    """genderscope.core imports no genderscope module outside the core layer."""
    graph = import_graph()
    core = [n for n, _ in LAYERS].index("core")
    assert [(m, d) for m in graph if m.startswith("genderscope.core")
            for d in graph[m] if layer(d) != core] == []


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in SRC.rglob("*.py")}


def test_only_adapters_and_model_changing_transforms_import_torch() -> None:
    """torch, transformers, tokenizers and sentence-transformers are imported (anywhere in
    a module) only under models/, lm_debias/ and vector_debias/."""
    found = []
    for name, path in sorted(_sources().items()):
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tops = {m.split(".")[0] for m in imports_of(ast.parse(path.read_text("utf-8")),
                                                     package)}
        if tops & TORCH and name.split(".")[1] not in TORCH_FOLDERS:
            found.append(f"{name} imports {sorted(tops & TORCH)}")
    assert found == []


def test_models_hold_no_training_code() -> None:
    """models/ loads, reads and scores models (and installs a debias folder's scoring-time
    hook as it loads one); nothing there takes a gradient step or builds an optimiser:
    training is a transform (lm_debias/finetune.py, vector_debias/ran_torch.py)."""
    found = sorted(
        f"{name}: {node.attr if isinstance(node, ast.Attribute) else node.id}"
        for name, path in _sources().items() if name.startswith("genderscope.models")
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if (isinstance(node, ast.Attribute) and node.attr in TRAINING)
        or (isinstance(node, ast.Name) and node.id in TRAINING))
    assert found == []
    moved = {"finetune", "finetune_output", "checkpoint", "dropout", "ran_torch"}
    assert {p.stem for p in (SRC / "models").glob("*.py")} & moved == set()


@pytest.mark.parametrize("modules", [("genderscope.results", "genderscope.store")])
def test_the_core_never_imports_the_page(modules: tuple[str, ...]) -> None:
    """A fresh interpreter importing the core (and opening a store) loads no report module."""
    code = (f"import sys, {', '.join(modules)}\n"
            "from genderscope.store import Store\n"
            "Store(':memory:').close()\n"
            "print(sorted(m for m in sys.modules if m.startswith('genderscope.reporting')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout


def test_no_subpackage_shadows_a_public_name() -> None:
    """``gs.debias`` and the other public names stay callable whatever was imported:
    importing a subpackage ``genderscope.X`` sets attribute ``X`` on the package, so a
    module sharing a name with an entry of ``genderscope.__all__`` must itself be
    callable."""
    import importlib
    import pkgutil
    import subprocess
    import sys

    import genderscope

    subs = {m.name for m in pkgutil.iter_modules(genderscope.__path__)}
    code = ("import importlib, genderscope as gs\n"
            f"for n in {sorted(set(genderscope.__all__) & subs)!r}:\n"
            "    importlib.import_module('genderscope.' + n)\n"
            "bad = [n for n in gs.__all__ if not callable(getattr(gs, n))]\n"
            "assert bad == [], bad\n")
    assert importlib.util.find_spec("genderscope") is not None
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
