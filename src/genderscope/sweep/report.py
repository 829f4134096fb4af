"""The sweep's leaderboard page, read back from the store.

The page is the multi-model report (:mod:`genderscope.reporting.html`), every number a
run recorded in the store. Models swept at several revisions (or in one ``series``) also
get a trajectory plot per measure: the first headline estimate with its 95 % CI against
the revision, in the sweep's order.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import time
from pathlib import Path
from typing import Any

from genderscope.reporting import plots
from genderscope.reporting.registry import Card, Context, fmt, measures
from genderscope.reporting.runner import ReportData, Section, Subject
from genderscope.results import Result
from genderscope.store import Store
from genderscope.sweep.driver import SweepRun
from genderscope.sweep.planning import JobStatus
from genderscope.sweep.spec import SweepSpec


def _placeholder(label: str, reason: str) -> Subject:
    """A model that could not be set up: shown with its failed sections, never loaded."""
    def fail() -> Any:
        raise RuntimeError(reason)
    return Subject(label, "unknown", "-", fail)


def _stored(measure: Card, st: JobStatus, store: Store, ctx: Context) -> Result:
    """The section's Result: the stored run, or the card's combination of its plans'
    stored runs (one per test)."""
    if measure.plans is None:
        return store.load_run(st.run_id or "")
    from genderscope.reporting.plan_runs import combined

    result = combined(measure, [store.load_run(i) for i in st.run_ids], ctx)
    result.metadata["run_ids"] = list(st.run_ids)
    return result


def report_data(spec: SweepSpec, run: SweepRun, store: Store, command: str) -> ReportData:
    """ReportData over every (model, measure) of the sweep, results loaded from the store."""
    from genderscope.results import environment

    registry = measures()
    subjects: list[Subject] = []
    sections: list[Section] = []
    for model in spec.models:
        subject = run.subjects.get(model.name)
        if subject is None:
            reason = next((s.reason for s in run.statuses.values() if s.model == model.name),
                          "")
            subject = _placeholder(model.name, reason)
        subjects.append(subject)
        for ms in spec.measures:
            st = run.statuses[(model.name, ms.name)]
            measure = registry[ms.name]
            if st.status in ("done", "skipped") and st.run_id is not None:
                try:
                    result = _stored(measure, st, store, run.contexts[ms.name])
                    heads = measure.headlines(result)
                except Exception as exc:  # noqa: BLE001 - a stored run the entry cannot read
                    sections.append(Section(measure, subject, "failed",
                                            f"cannot read stored run {st.run_id}: {exc}"))
                    continue
                sections.append(Section(measure, subject, "ok", result=result,
                                        run_id=st.run_id, reused=st.status == "skipped",
                                        seconds=st.seconds, headlines=heads))
            else:
                sections.append(Section(measure, subject, st.status if st.status in (
                    "failed", "not applicable") else "failed", st.reason or st.status))
    env = environment()
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        env["ray"] = importlib.metadata.version("ray")
    ctx = run.contexts[spec.measures[0].name]
    return ReportData(subjects, sections, ctx, command, time.time(), env)


def trajectories(spec: SweepSpec, data: ReportData) -> dict[tuple[str, str], list[Section]]:
    """(series, measure) -> the ok sections of that series' models, in sweep order."""
    by_label = {(s.subject.label, s.measure.name): s for s in data.sections}
    out: dict[tuple[str, str], list[Section]] = {}
    for ms in spec.measures:
        groups: dict[str, list[Section]] = {}
        for model in spec.models:
            series = spec.series_of(model)
            sec = by_label.get((model.name, ms.name))
            if series is not None and sec is not None and sec.status == "ok" and sec.headlines:
                groups.setdefault(series, []).append(sec)
        out.update({(series, ms.name): secs for series, secs in groups.items()
                    if len(secs) >= 2})
    return out


def _point_label(spec: SweepSpec, label: str) -> str:
    model = next(m for m in spec.models if m.name == label)
    return model.revision or model.label or Path(model.spec).name or model.spec


def trajectory_figure(spec: SweepSpec, series: str, secs: list[Section]) -> Any:
    """Estimate ± 95 % CI of the first headline, one point per revision/checkpoint."""
    h0 = secs[0].headlines[0]
    xs = list(range(len(secs)))
    est_f, lo, hi = ([float("nan") if v is None else float(v)
                      for v in (getattr(s.headlines[0], attr) for s in secs)]
                     for attr in ("estimate", "ci_low", "ci_high"))
    fig, ax = plots.figure(6.4, 3.0)
    ax.errorbar(xs, est_f, yerr=plots.ci_errors(est_f, lo, hi), fmt="-o", color=plots.SERIES[0],
                ecolor=plots.SERIES[0], elinewidth=1.8, capsize=4, markersize=5, zorder=3)
    if h0.null is not None:
        plots.null_line(ax, h0.null, vertical=False, label="no bias")
    ax.set_xticks(xs, [_point_label(spec, s.subject.label) for s in secs], rotation=20,
                  ha="right")
    ax.set_xlabel("revision / checkpoint")
    ax.set_ylabel(h0.label.strip())
    plots.set_title(fig, f"{secs[0].measure.title}: {series} over revisions")
    return fig


def trajectory_html(spec: SweepSpec, data: ReportData) -> str:
    """The page's "Trajectories" part ('' when no model has two revisions)."""
    from genderscope.reporting.html import esc, figure_html

    groups = trajectories(spec, data)
    if not groups:
        return ""
    parts = ['<h2 id="trajectories">Trajectories</h2><p class="sub">Revisions (checkpoints) '
             "of one model, in the order the sweep lists them: first headline estimate with "
             "its 95% CI.</p>"]
    for (series, name), secs in groups.items():
        parts.append(figure_html(trajectory_figure(spec, series, secs),
                                 f"Trajectory: {name} — {series}"))
        parts.append(f'<p class="muted">{esc(series)}: ' + ", ".join(
            f"{esc(_point_label(spec, s.subject.label))} = "
            f"{esc(fmt(s.headlines[0].estimate))}" for s in secs) + "</p>")
    return "".join(parts)


def write_report(spec: SweepSpec, run: SweepRun, store: Store, out: Path,
                 command: str) -> tuple[Path, ReportData]:
    """Write the leaderboard page to ``out``; returns its path and the data behind it."""
    from genderscope.reporting import html

    data = report_data(spec, run, store, command)
    return html.write(data, out, trajectory_html(spec, data)), data
