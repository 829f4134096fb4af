"""The terminal tables of a stored run: what ``genderscope run NAME`` printed, so that
``genderscope runs show RUN`` prints the same rounded tables.

The table of a measure is the function its declaration names (``table="module:function"``,
:func:`genderscope.cli.common.declared_table`). A measure without one (a plug-in's,
``gap``), or a stored run whose summary its table cannot read (an older layout), gets
:func:`genderscope.cli.common.summary_table`: every summary number, with its CI or p.
"""

from __future__ import annotations

from typing import Any

from genderscope.results import Result


def tables_of(result: Result) -> list[Any]:
    """The tables (and notes) ``genderscope run`` prints for ``result``, then its
    caveats: :func:`genderscope.cli.common.run_output`, as ``genderscope run`` prints it."""
    from genderscope.cli.common import declared_table, run_output, summary_table

    table = declared_table(result.method)
    if table is not summary_table:
        try:
            return run_output(result, table)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            pass  # a summary of another layout: every number, as a plain table
    return run_output(result, summary_table)
