"""The terminal tables of ``genderscope run genderbench --model MODEL [--scope
quick|cpu|full]``: GenderBench 1.1.0's 14 probes in one run
(:mod:`genderscope.measures.genderbench.suite`); the command, with the probes' endpoint
flags, is :func:`genderscope.cli.commands.chat_probes.chat_command`."""

from __future__ import annotations

from rich.table import Table

from genderscope.cli.commands.chat_probes import estimate_cell, interval, tests_table
from genderscope.measures.genderbench import GENDERBENCH_MARK, MARKS_LEGEND
from genderscope.results import Result


def tables(result: Result) -> list[Table | str]:
    """The suite's marks (GenderBench's beside genderscope's), its paired tests with Holm
    over the suite, and the probes that did not run."""
    s = result.summary
    scope = result.metadata.get("params", {}).get("scope", "")
    t = Table(title=f"genderbench ({scope}): {s['n_probes']} probes, {s['n_items']} items, "
                    f"{s['n_attempts']} answers")
    for col in ("probe", "metric", "estimate [95% CI, clusters]", "mark (CI / point)",
                "GenderBench mark [its interval]", "undetected"):
        t.add_column(col)
    notes = []
    for r in s["marks"]:
        undetected = s["probes"][r["probe"]]["undetected_rate_attempts"]
        if r.get("genderbench_note"):
            notes.append(f"{r['probe']} {r['metric']}: {r['genderbench_note']}")
        t.add_row(r["probe"], r["metric"], estimate_cell(r),
                  f"{r['mark'] or '-'} / {r['mark_point'] or '-'}",
                  f"{r['mark_genderbench'] or '-'}"
                  f"{interval(r['genderbench_low'], r['genderbench_high'])}",
                  f"{100 * undetected:.0f} %")
    out: list[Table | str] = [t, f"marks: {MARKS_LEGEND}; {GENDERBENCH_MARK}", *notes]
    if s.get("tests"):
        out.append(tests_table(s["tests"], f"paired tests ({len(s['tests'])}; Holm over the "
                               "suite)", probes=True))
    out += [f"not run: {name}: {why}" for name, why in s.get("not_run", {}).items()]
    return out

