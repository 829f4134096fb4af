"""One self-contained HTML page from a :class:`~genderscope.reporting.runner.ReportData`.

No network is needed to view it: inline CSS, inline SVG plots in the page's text colour
(light and dark mode), no scripts or fonts; every status in words as well as colour.

Over 400 lines because the page's inline CSS (~50 lines) and its parts (headline
table, sections, comparison, provenance) are one template read top to bottom.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from genderscope.errors import GenderscopeError
from genderscope.reporting import plots
from genderscope.reporting.columns import readable
from genderscope.reporting.findings import shown, verdict
from genderscope.reporting.registry import Context, Headline, fmt, fmt_p
from genderscope.reporting.runner import ReportData, Section, Subject, items_note
from genderscope.reporting.verdict import model_line, scale_note
from genderscope.text_blocks import plural, visible

CSS = """
:root{--bg:#ffffff;--fg:#1c1e21;--muted:#5b6168;--line:#d9dde3;--panel:#f5f7fa;
--accent:#0b5cad;--bias:#9a4a00;--bias-bg:#fff1e0;--ok:#1d6b3a;--ok-bg:#e6f4ea;
--fail:#a3161b;--fail-bg:#fde8e8;--na:#555b63;--na-bg:#eceff3;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e7e9ec;--muted:#a3a9b1;
--line:#343942;--panel:#1f232a;--accent:#7fb6ff;--bias:#ffb86b;--bias-bg:#3a2a16;
--ok:#7fd99a;--ok-bg:#17301f;--fail:#ff8a8a;--fail-bg:#3a1b1d;--na:#b8bec6;--na-bg:#2a2f37}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:28px 22px 60px}
h1{font-size:1.7rem;margin:0 0 4px}h2{font-size:1.3rem;margin:38px 0 10px;padding-top:10px;
border-top:2px solid var(--line)}h3{font-size:1.08rem;margin:0}
a{color:var(--accent)}code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,
monospace;font-size:.86em;overflow-wrap:anywhere}
.sub{color:var(--muted);margin:0 0 18px}
table{border-collapse:collapse;width:100%;margin:8px 0 14px;font-size:.92rem}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}
td.model{white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ciu{display:block;white-space:normal;color:var(--muted);font-size:.82em}
.scale{display:block;color:var(--muted);font-size:.82em}
#verdict ul{margin:.3em 0 1em 1.2em;padding:0}
.badge{display:inline-block;border-radius:999px;padding:1px 10px;font-size:.8rem;
font-weight:600;white-space:nowrap;border:1px solid currentColor}
.b-bias{color:var(--bias);background:var(--bias-bg)}.b-none{color:var(--ok);
background:var(--ok-bg)}.b-fail{color:var(--fail);background:var(--fail-bg)}
.b-na,.b-info{color:var(--na);background:var(--na-bg)}
section.measure{border:1px solid var(--line);border-radius:10px;padding:14px 16px;
margin:14px 0;background:var(--bg)}
section.measure header{display:flex;gap:10px;align-items:center;flex-wrap:wrap;
margin-bottom:6px}
figure{margin:10px 0}figure svg{width:100%;height:auto;max-width:760px;display:block;
color:var(--fg)}figcaption{color:var(--muted);font-size:.85rem}
details{margin:8px 0;border-top:1px dashed var(--line);padding-top:6px}
summary{cursor:pointer;font-weight:600;color:var(--accent)}
.card dt{font-weight:600;margin-top:6px}.card dd{margin:2px 0 0 0}
.reason{color:var(--fail)}.muted{color:var(--muted)}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:.88rem}
.kv div:nth-child(odd){color:var(--muted)}
.toc{display:flex;flex-wrap:wrap;gap:6px 14px;font-size:.9rem;margin:6px 0 0}
.note{background:var(--panel);border-left:4px solid var(--accent);padding:8px 12px;
border-radius:4px;font-size:.92rem}
"""


def esc(x: Any) -> str:
    """HTML-escaped, control and bidi characters shown as code points (``visible``)."""
    return html.escape(visible("" if x is None else str(x)), quote=True)


def _slug(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in p.lower()) for p in parts)


_VERDICT_BADGES = {
    "bias": '<span class="badge b-bias">evidence of bias</span>',
    "mixed": '<span class="badge b-bias b-mixed">mixed: bias in some numbers</span>',
    "none": '<span class="badge b-none">no evidence of bias</span>',
    "context": '<span class="badge b-info">context</span>',
    "no uncertainty": '<span class="badge b-info">no uncertainty</span>'}


def badge(h: Headline) -> str:
    """The badge of one number: context, no uncertainty, or its evidence."""
    ev = h.evidence()
    return _VERDICT_BADGES["context" if h.null is None else "no uncertainty" if ev is None
                           else "bias" if ev else "none"]


def _ci(h: Headline, tail: str = "") -> str:
    """The interval (HTML) and ``tail``, then what it resamples on a line of its own."""
    words = h.ci_unit_words() if h.has_ci else ""
    return esc(f"[{fmt(h.ci_low)}, {fmt(h.ci_high)}]" if h.has_ci else
               h.no_interval or "–") + tail + (
        f'<span class="ciu">{esc(words)}</span>' if words else "")


def _unit(h: Headline) -> str:
    return f" {h.unit}" if h.unit and h.unit != "%" else (h.unit or "")


def headline_rows(sections: list[Section], *, with_model: bool) -> str:
    rows = []
    for sec in sections:
        if sec.status == "not applicable":
            continue
        link = f'<a href="#{_slug(sec.subject.label, sec.measure.name)}">' \
               f'{esc(sec.measure.title)}</a>'
        model = f'<td class="model">{esc(sec.subject.label)}</td>' if with_model else ""
        if sec.status != "ok":
            cls = "b-fail" if sec.status == "failed" else "b-na"
            rows.append(f"<tr>{model}<td>{link}</td><td colspan=\"5\"><span class=\"badge "
                        f"{cls}\">{esc(sec.status)}</span> <span class=\"muted\">"
                        f"{esc(sec.reason)}</span></td></tr>")
            continue
        for k, h in enumerate(shown(sec.headlines)):
            first = link if k == 0 else ""
            p_part = f' <span class="muted">/ p {esc(h.p_text())}</span>'
            rows.append(
                f"<tr>{model}<td>{first}</td><td>{esc(h.label.strip())}</td>"
                f'<td class="num">{esc(fmt(h.estimate))}{esc(_unit(h))}</td>'
                f'<td class="num">{_ci(h, p_part)}'
                f'</td><td class="items">{esc(items_note(sec, h))}</td>'
                f"<td>{badge(h)} {esc(h.reading())}{_scale(h)}</td></tr>")
    return "".join(rows)


def _scale(h: Headline) -> str:
    note = scale_note(h)
    return f'<span class="scale">{esc(note)}</span>' if note else ""


def verdict_html(data: ReportData) -> str:
    """Per model, one line (:func:`genderscope.reporting.verdict.model_line`)."""
    lines = "".join(f"<li><b>{esc(s.label)}</b>: {esc(model_line(data, s))}</li>"
                    for s in data.subjects)
    return f'<section id="verdict"><h2>Verdict</h2><ul>{lines}</ul></section>'


def headline_table(data: ReportData) -> str:
    many = len(data.subjects) > 1
    head = ("<th>model</th>" if many else "") + "<th>measure</th><th>number</th>" \
        "<th>estimate</th><th>95% CI / p</th><th>items</th><th>reading</th>"
    order = {name: k for k, name in enumerate(dict.fromkeys(s.measure.name
                                                            for s in data.sections))}
    secs = sorted(data.sections, key=lambda s: order[s.measure.name]) if many else \
        data.sections
    body = headline_rows(secs, with_model=many)
    na = [s for s in data.sections if s.status == "not applicable"]
    skipped = "" if not na else '<p class="muted">Not applicable: ' + "; ".join(
        f"{esc(s.measure.title)}{' (' + esc(s.subject.label) + ')' if many else ''}: "
        f"{esc(s.reason)}" for s in na) + ".</p>"
    return f'<table id="headline"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>' \
           f'</table><p class="muted scope">{esc(scope_note(data.ctx))}</p>{skipped}'


def scope_note(ctx: Context) -> str:
    """How much of each benchmark ran, and how to get the rest."""
    if ctx.full:
        return "Every benchmark ran in full (--full, the default on a GPU)."
    if ctx.quick:
        return ("--quick: small seeded subsets, a smoke test with wide CIs (the items column "
                "says how many each number comes from); --full runs every benchmark in full.")
    return ("Seeded subsets sized for a CPU (the items column says how many each number "
            "comes from); --full runs every benchmark in full, the default on a GPU.")


def frame_table(df: pd.DataFrame | None, *, max_rows: int = 12, cls: str = "") -> str:
    if df is None or len(df) == 0:
        return ""
    df = df.head(max_rows)
    head = "".join(f"<th>{esc(c)}</th>" for c in df.columns)
    body = []
    for _, row in df.iterrows():
        cells = []
        for v in row.tolist():
            if isinstance(v, float | int) and not isinstance(v, bool):
                cells.append(f'<td class="num">{esc(fmt(v))}</td>')
            else:
                text = str(v)
                cells.append(f"<td>{esc(text if len(text) <= 220 else text[:217] + '…')}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>' \
           f'{"".join(body)}</tbody></table>'


def figure_html(fig: Any, caption: str) -> str:
    svg = plots.to_svg(fig, title=caption)
    return f'<figure class="plot-figure">{svg}<figcaption>{esc(caption)}</figcaption></figure>'


def _json_short(x: Any, limit: int = 400) -> str:
    from genderscope.results import to_json

    s = to_json(x)
    return s if len(s) <= limit else s[:limit - 1] + "…"


def _hashes(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """(file, sha256) pairs found anywhere in a run's data metadata."""
    out: list[tuple[str, str]] = []

    def walk(x: Any, path: str = "") -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef"
                                                               for c in v):
                    out.append((str(k) if k not in ("file_sha256", "sha256") else path, v))
                else:
                    walk(v, str(k) if k not in ("file_sha256", "files") else path)
        elif isinstance(x, list):
            for v in x:
                walk(v, path)
    walk(meta.get("data", {}))
    return out


def provenance(sec: Section) -> str:
    r = sec.result
    assert r is not None
    m = r.metadata
    model = m.get("model") if isinstance(m.get("model"), dict) else {"model": m.get("model")}
    items = [("run id", f"<code>{esc(sec.run_id or '–')}</code>"
              + (" (reused from the store: no model run)" if sec.reused else "")),
             ("model fingerprint", f"<code>{esc((model or {}).get('fingerprint', '–'))}</code>"),
             ("model", f"<code>{esc(_json_short(model, 300))}</code>"),
             ("parameters", f"<code>{esc(_json_short(m.get('params', {})))}</code>"),
             ("seed", esc(m.get("seed", "–"))),
             ("subset", f"<code>{esc(_json_short((m.get('data') or {}).get('subset')))}</code>"
              if isinstance(m.get("data"), dict) and (m.get("data") or {}).get("subset")
              else "see method card"),
             ("runtime", f"{esc(m.get('runtime_s', '–'))} s"),
             ("command", f"<code>{esc(m.get('command') or '–')}</code>"),
             ("versions", f"<code>{esc(_json_short(m.get('environment', {}), 300))}</code>")]
    for name, digest in _hashes(m)[:8]:
        items.append((f"data sha256 {Path(name).name or name}", f"<code>{esc(digest)}</code>"))
    body = "".join(f"<div>{esc(k)}</div><div>{v}</div>" for k, v in items)
    return f'<details class="prov"><summary>Provenance</summary><div class="kv">{body}</div>' \
           f"</details>"


def card_html(sec: Section) -> str:
    c = sec.measure.card
    cav = "".join(f"<li>{esc(x)}</li>" for x in c.caveats)
    return (f'<details class="card"><summary>Method card</summary><dl>'
            f"<dt>Definition</dt><dd>{esc(c.definition)}</dd>"
            f"<dt>Source</dt><dd>{esc(c.citation)}</dd>"
            + (f"<dt>Default subset</dt><dd>{esc(c.subset)}</dd>" if c.subset else "")
            + (f"<dt>Caveats</dt><dd><ul>{cav}</ul></dd>" if cav else "")
            + "</dl></details>")


def section_html(sec: Section) -> str:
    sid = _slug(sec.subject.label, sec.measure.name)
    title = f"<h3>{esc(sec.measure.title)}</h3>"
    if sec.status == "failed":
        return (f'<section class="measure status-failed" id="{sid}"><header>'
                f'{title}<span class="badge b-fail">failed</span></header>'
                f'<p class="reason">Failed: {esc(sec.reason)}</p>{card_html(sec)}</section>')
    if sec.status != "ok":  # one line: the reason is also under the headline table
        return (f'<section class="measure status-{_slug(sec.status)}" id="{sid}"><header>'
                f'{title}<span class="badge b-na">{esc(sec.status)}</span>'
                f'<span class="muted">{esc(sec.reason)}</span></header></section>')
    r = sec.result
    assert r is not None
    parts = [f'<section class="measure status-ok" id="{sid}"><header>{title}'
             + _VERDICT_BADGES[verdict(sec.headlines)]  # its strongest finding
             + (' <span class="badge b-info">reused run</span>' if sec.reused else "")
             + "</header>"]
    rows = "".join(
        f"<tr><td>{esc(h.label.strip())}</td><td class=\"num\">{esc(fmt(h.estimate))}"
        f"{esc(_unit(h))}</td><td class=\"num\">{_ci(h)}</td><td class=\"num\">"
        f"{esc(h.p_text())}</td><td class=\"items\">{esc(items_note(sec, h) or '–')}</td>"
        f"<td>{esc(h.reading())}</td></tr>" for h in sec.headlines)
    parts.append("<table><thead><tr><th>number</th><th>estimate</th><th>95% CI</th><th>p</th>"
                 f"<th>items</th><th>reading</th></tr></thead><tbody>{rows}</tbody></table>")
    if sec.measure.plot is not None:
        try:
            fig = sec.measure.plot(r)
            if fig is not None:
                parts.append(figure_html(fig, f"{sec.measure.title} — {sec.subject.label}"))
        except Exception as exc:  # noqa: BLE001 - a plot bug must not lose the numbers
            from genderscope.reporting.runner import one_line

            plots.close_all()  # a figure left half-drawn by the failure
            parts.append(f'<p class="reason">Plot failed: {esc(one_line(exc))}</p>')
    try:
        hl = sec.measure.highlights(r)
    except Exception:  # noqa: BLE001
        hl = None
    if hl is not None and len(hl):
        parts.append("<details open><summary>Item-level highlights (most extreme items; "
                     f"single items' values, descriptive: no CI)</summary>"
                     f"{frame_table(readable(hl, sec.measure.columns))}"
                     "</details>")
    parts.append(card_html(sec))
    parts.append(provenance(sec))
    parts.append("</section>")
    return "".join(parts)


def comparison_html(data: ReportData) -> str:
    from genderscope.reporting import compare

    if len(data.subjects) < 2:
        return ""
    board = compare.leaderboard(data)
    if board.empty:  # no measure ran on two models (e.g. one LM, one set of vectors)
        return ""
    out = ['<h2 id="comparison">Comparison</h2>',
           '<p class="sub">Headline numbers side by side (estimate [95% CI] or (p)). '
           "Differences below are tested on the items both models scored: a paired "
           "bootstrap 95% CI and a paired permutation test (two-sided) that both resample "
           "or swap the unit named in the CI column (whole clusters where items share one), "
           "Holm-adjusted over all differences tested on this page.</p>",
           frame_table(board, max_rows=200, cls="leaderboard")]
    diffs = compare.differences(data, seed=data.ctx.seed)
    if diffs:
        df = pd.DataFrame([{"measure": d.measure, "number": d.label, "A": d.model_a,
                            "B": d.model_b, "A value": d.estimate_a, "B value": d.estimate_b,
                            "A − B": d.difference, "95% CI": f"[{fmt(d.ci_low)}, "
                            f"{fmt(d.ci_high)}], {d.ci_words()}",
                            "p": fmt_p(d.p_value), "p (Holm)": fmt_p(d.p_adjusted),
                            "items": d.n_items} for d in diffs])
        out.append("<h3>Tested differences</h3>" + frame_table(df, max_rows=200,
                                                                  cls="differences"))
        out += [f'<p class="caveat">Caveat: {esc(d.measure)}, {esc(d.model_a)} − '
                f"{esc(d.model_b)}: {esc(d.caveat)}.</p>" for d in diffs if d.caveat]
    names = list(dict.fromkeys(s.measure.name for s in data.sections if s.status == "ok"))
    for name in names:
        fig = compare.comparison_plot(data, name)
        if fig is not None:
            out.append(figure_html(fig, f"Comparison: {name}"))
    return "".join(out)


def marks_html(data: ReportData) -> str:
    """The GenderBench marks of every probe that ran, on every model (grid and table,
    :mod:`genderscope.reporting.chat_marks`); ``''`` when none ran."""
    from genderscope.measures.genderbench import GENDERBENCH_MARK, MARKS_LEGEND
    from genderscope.reporting import chat_marks

    frame = chat_marks.marks_frame(data)
    if frame.empty:
        return ""
    models = ", ".join(dict.fromkeys(frame["model"]))
    own = f"; {GENDERBENCH_MARK}" if frame["mark_genderbench"].astype(bool).any() else ""
    return ('<h2 id="genderbench-marks">GenderBench marks</h2><p class="sub">'
            f"Per probe metric, for {esc(models)}, the CI's mark, in brackets the point's (in "
            f"the grid only where it differs). Marks: {esc(MARKS_LEGEND + own)}. "
            "Subsets and short answers make the intervals wide: each probe's section "
            "says how many items its numbers come from.</p>"
            + figure_html(chat_marks.marks_grid(frame),
                          "GenderBench marks (A-D) per probe metric and model")
            + frame_table(chat_marks.marks_table(frame), max_rows=500, cls="marks"))


def _subject_line(s: Subject) -> str:
    d = s.describe()
    fp = d.get("fingerprint") or s.identity
    return f"<li><b>{esc(s.label)}</b> ({esc(s.kind)}) <code>{esc(fp)}</code></li>"


def render(data: ReportData, extra: str = "") -> str:
    """The whole page as a string; ``extra``: HTML placed after the comparison (e.g. a
    sweep's trajectory plots)."""
    from genderscope import __version__

    when = dt.datetime.fromtimestamp(data.created, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    models = ", ".join(s.label for s in data.subjects)
    n_ok = sum(s.status == "ok" for s in data.sections)
    n_fail = sum(s.status == "failed" for s in data.sections)
    toc = "".join(f'<a href="#{_slug("subject", s.label)}">{esc(s.label)}</a>'
                  for s in data.subjects)
    comparison = comparison_html(data)
    comp_link = '<a href="#comparison">comparison</a>' if comparison else ""
    parts = [
        "<!doctype html>", f'<html lang="{esc(data.ctx.lang)}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>genderscope report: {esc(models)}</title><style>{CSS}</style></head><body>"
        "<main>",
        f"<h1>Gender bias report</h1><p class=\"sub\">{esc(models)} · {esc(when)} · "
        f"genderscope {esc(__version__)} · language {esc(data.ctx.lang)}"
        + (" · quick subsets" if data.ctx.quick else " · full benchmarks" if data.ctx.full
           else " · CPU subsets") + f" · {plural(n_ok, 'measure')} ran"
        + (f", {n_fail} failed" if n_fail else "") + "</p>",
        '<p class="note">Each number comes with a 95% confidence interval (or a p-value). '
        "“No evidence of bias” means the interval includes the value of no bias (for numbers "
        "tested together as a family: the multiplicity-adjusted p-value is 0.05 or more); "
        "it does not prove the model unbiased. Benchmarks probe narrow, mostly English and binary "
        "notions of gender; read the method cards and caveats.</p>",
        verdict_html(data),
        f'<nav class="toc">{toc}{comp_link}<a href="#provenance">provenance</a></nav>',
        '<h2 id="headlines">Headline numbers</h2>', headline_table(data), comparison,
        marks_html(data), extra]
    for s in data.subjects:
        secs = data.for_subject(s)
        parts.append(f'<h2 id="{_slug("subject", s.label)}">{esc(s.label)} '
                     f'<span class="muted">({esc(s.kind)})</span></h2>')
        if not secs:
            parts.append('<p class="reason">No measure applies to this model.</p>')
        parts.extend(section_html(sec) for sec in secs)
    env = "".join(f"<div>{esc(k)}</div><div><code>{esc(v)}</code></div>"
                  for k, v in data.environment.items())
    parts.append(
        '<h2 id="provenance">Provenance</h2><ul>' + "".join(_subject_line(s)
                                                          for s in data.subjects) + "</ul>"
        f'<div class="kv"><div>command</div><div><code>{esc(data.command)}</code></div>'
        f"<div>seed</div><div>{esc(data.ctx.seed)}</div>{env}</div>"
        '<p class="muted">Per-run details (run id, data hashes, parameters) are under each '
        "section's Provenance. Every run is in the results store: <code>genderscope runs "
        "list</code>.</p></main></body></html>")
    return visible("\n".join(parts))  # the plots' SVG text and ``extra`` too


def write(data: ReportData, out: str | Path, extra: str = "") -> Path:
    """Render and write the page; a clear error when ``out`` cannot be written."""
    path = Path(out)
    page = render(data, extra)
    if path.is_dir():
        raise GenderscopeError(f"--out {path} is a folder; give a file name such as "
                               f"{path / 'report.html'}")
    from genderscope.outputs import check_not_unsafe, write_text

    check_not_unsafe(path, "--out")
    try:  # a fresh mkstemp sibling renamed into place: never a fixed name or a link
        write_text(path, page)
    except GenderscopeError as exc:
        raise GenderscopeError(f"cannot write report to {path}: "
                               f"{str(exc).split(': ', 1)[-1]}") from None
    return path


def check_writable(out: str | Path, *, overwrite: bool = False,
                   inputs: Sequence[Any] = ()) -> None:
    """Fail before any model runs when ``out`` cannot be written, is or holds one of the
    ``inputs`` (whatever ``overwrite`` says), or already exists and ``overwrite`` is
    False."""
    from genderscope.outputs import check_not_unsafe

    path = check_not_unsafe(out, "--out", inputs)  # a link, a device, an input ...
    if path.is_dir():
        raise GenderscopeError(f"--out {path} is a folder; give a file name such as "
                               f"{path / 'report.html'}")
    if path.exists() and not overwrite:
        raise GenderscopeError(f"--out {path} already exists; pass --overwrite to replace it")
    import os
    import tempfile

    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise GenderscopeError(f"cannot write report to {path}: {existing} is not a folder")
    if path.exists() and not os.access(path, os.W_OK):
        raise GenderscopeError(f"cannot write report to {path}: permission denied")
    try:  # the one sure test: make the folder and a scratch file in it
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".genderscope-"):
            pass
    except OSError as exc:
        raise GenderscopeError(f"cannot write report to {path}: "
                               f"{exc.strerror or exc}") from None

