"""Command lists that help find things: ``genderscope --help`` lists the commands in
sections by what they are for (:data:`SECTIONS`), and ``genderscope run --help`` lists
the measures by family (the declarations' ``family``,
:data:`genderscope.core.declaration.FAMILIES`), each with its whole first paragraph.

Click's own list is one section in the order the commands were registered, each line
cut to the terminal's width; typer's ``rich_help_panel`` sections only show with rich
markup, which the CLI leaves off (help texts hold literal brackets). The section of a
top-level command is its ``rich_help_panel`` (set in :mod:`genderscope.cli.app`)."""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand, TyperGroup

SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Measure", ("run", "probe", "attack")),
    ("Report and compare", ("report", "compare")),
    ("Reduce bias", ("debias",)),
    ("Data and stored runs", ("data", "runs")),
    ("Many models at once", ("sweep", "run-many")),
)
"""The sections of ``genderscope --help``, in order, with the commands of each."""
OTHER = "Other commands"


def first_paragraph(text: str | None) -> str:
    """The first paragraph of a help text on one line (reST ``literals`` as plain
    words)."""
    para = (text or "").strip().split("\n\n", 1)[0]
    return " ".join(para.split()).replace("``", "")


def _rows(ctx: Any, group: TyperGroup, names: list[str]) -> list[tuple[str, str]]:
    rows = []
    for name in names:
        cmd = group.get_command(ctx, name)
        if cmd is not None and not cmd.hidden:
            rows.append((name, first_paragraph(cmd.help) or cmd.get_short_help_str(200)))
    return rows


def _write(formatter: Any, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
    """Each section's rows, the descriptions of every section in one column."""
    width = max((len(name) for _, rows in sections for name, _ in rows), default=0)
    for title, rows in sections:
        if rows:
            with formatter.section(title):
                formatter.write_dl([(name.ljust(width), text) for name, text in rows])


class SectionedGroup(TyperGroup):
    """``genderscope --help``: the commands in the sections of their ``rich_help_panel``
    (:data:`SECTIONS`' order), each with its whole first line."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        by_title: dict[str, list[str]] = {}
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None:
                by_title.setdefault(getattr(cmd, "rich_help_panel", None) or OTHER,
                                    []).append(name)
        listed = [n for _, names in SECTIONS for n in names]
        order = [t for t, _ in SECTIONS] + sorted(t for t in by_title
                                                   if t not in dict(SECTIONS))
        _write(formatter, [(t, _rows(ctx, self, sorted(
            by_title.get(t, []), key=lambda n: listed.index(n) if n in listed else
            len(listed)))) for t in order])


class MeasureGroup(TyperGroup):
    """``genderscope run --help``: the measures by family, alphabetically within each,
    with their whole one-line descriptions; commands no declaration names go last."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        from genderscope.core.declaration import FAMILIES
        from genderscope.core.registry import declarations

        declared = declarations()
        by_family: dict[str, list[str]] = {}
        for name in self.list_commands(ctx):
            family = declared[name].family if name in declared else OTHER
            by_family.setdefault(family, []).append(name)
        order = [f for f in FAMILIES if f in by_family] + sorted(
            f for f in by_family if f not in FAMILIES and f != OTHER) + [OTHER]
        _write(formatter, [(f"Measures: {f}" if f != OTHER else OTHER,
                            _rows(ctx, self, sorted(by_family.get(f, []))))
                           for f in order])


class _StatisticsHelp:
    """A ``genderscope run NAME`` command whose help ends its description with the
    measure's interval and test in words (:func:`statistics_help`), generated when the
    help is shown: the stats code it needs is imported then, never at the CLI's start."""

    def format_help_text(self, ctx: Any, formatter: Any) -> None:
        super().format_help_text(ctx, formatter)  # type: ignore[misc]
        text = statistics_help(getattr(self, "name", None) or "")
        if text:
            formatter.write_paragraph()
            with formatter.indentation():
                formatter.write_text("Interval and test:")
                with formatter.indentation():
                    formatter.write_text(text)


def statistics_help(name: str) -> str:
    """Measure ``name``'s interval and test in words: the sentence of its declaration
    (:func:`genderscope.stats.design_words.statistics_of`, as its docs page shows it);
    "" for a command no declaration names."""
    from genderscope.core.registry import declarations

    declared = declarations().get(name)
    if declared is None:
        return ""
    from genderscope.stats.design_words import statistics_of

    return statistics_of(declared)


_WITH_STATISTICS: dict[type, type] = {}


def with_statistics(cls: type | None) -> type:
    """``cls`` (a click command class; None: typer's) whose help shows the measure's
    interval and test (:class:`_StatisticsHelp`); one subclass per class."""
    base = cls or TyperCommand
    if issubclass(base, _StatisticsHelp):
        return base
    if base not in _WITH_STATISTICS:
        _WITH_STATISTICS[base] = type(f"Statistics{base.__name__}", (_StatisticsHelp, base),
                                      {"__doc__": _StatisticsHelp.__doc__})
    return _WITH_STATISTICS[base]


class _TestsCommand(TyperCommand):
    """A command whose ``--test`` names a WEAT/SEAT test: its help ends with the names of
    the built-in tests, read from the data registry when the help is shown (nothing is
    fetched, and the CLI's start loads no registry)."""

    sentence_tests: bool | None = None
    """True: the ``sent-`` tests first; False: the word tests only."""

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        super().format_epilog(ctx, formatter)
        from genderscope.datasets import registry
        from genderscope.datasets.seat import registered_tests

        names = sorted(registered_tests(),  # Caliskan et al.'s WEAT 1-10 first
                       key=lambda n: not n.removeprefix("sent-").startswith("weat"))
        words = [n for n in names if not n.startswith("sent-")]
        sentences = [n for n in names if n.startswith("sent-")]
        parts = [("Sentence tests", sentences), ("Word tests", words)] if \
            self.sentence_tests else [("Tests", words)]
        formatter.write_paragraph()
        formatter.write_text(f"Built-in tests for --test (data set seat, licence "
                             f"{registry.get('seat').licence}, fetched on first use, or now "
                             "with `genderscope data fetch seat`); --tests-dir or a JSON "
                             "file gives others.")
        for title, found in parts:
            formatter.write_paragraph()
            formatter.write_text(f"{title}: {', '.join(found)}.")


class WordTestsCommand(_TestsCommand):
    """``genderscope run weat`` and the WEFE metrics: the word tests."""

    sentence_tests = False


class SentenceTestsCommand(_TestsCommand):
    """``genderscope run seat``: the sentence tests, then the word tests."""

    sentence_tests = True
