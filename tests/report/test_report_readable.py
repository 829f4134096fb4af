"""What a user sees must be true and readable (issue 26): a section's badge and the
headline tables show its strongest finding; each number carries one count phrase, the
same on the page and in the terminal; the terminal never breaks a word; plots keep every
label inside the figure."""

from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from genderscope.reporting import html, plots, terminal
from genderscope.reporting.entry import Card, Context, Headline, MethodCard, from_ci
from genderscope.reporting.runner import ReportData, Section, Subject
from genderscope.results import Result

LONG = ("resolves pronouns better when they match the occupation stereotype, which is a "
        "long reading with words like crows-pairs and all-minilm-l6-v2 in it")


def _section(name: str, headlines: list[Headline], subset: dict | None = None,
             label: str = "smollm2") -> Section:
    meta = {"data": {"subset": subset} if subset else {}}
    result = Result(name, {}, pd.DataFrame(), meta)
    measure = Card(name=name, title=name.title(), kinds=("causal",),
                      plan=lambda c: (name, {}), headlines=lambda r: headlines,
                      card=MethodCard("definition", "citation"))
    subject = Subject(label, "causal", "id", lambda: None)
    return Section(measure, subject, "ok", result=result, run_id="r1", seconds=1.0,
                   headlines=headlines)


def _data(*sections: Section) -> ReportData:
    return ReportData([sections[0].subject], list(sections), Context(), "cmd", 0.0, {})


def _bec_like() -> Section:
    """Headline null (CI includes 0); of three Holm-adjusted group tests, one finds bias."""
    main = from_ci("association male − female person words (nats)",
                   {"estimate": 0.17, "ci_low": -0.19, "ci_high": 0.51, "n": 675,
                    "ci_unit": "professions x person words", "n_units": 39}, null=0.0,
                   items_unit="sentence pairs", positive=LONG, negative="leans female")
    groups = [Headline(label=f"{g}-dominated professions: male vs female", estimate=est,
                       p_value=p, p_adjusted=padj, p_adjust_method="holm", family="groups",
                       null=0.0, n=5, items_unit="professions", primary=False,
                       thresholds=(0.1, 0.3, 0.5))
              for g, est, p, padj in (("male", 0.96, 0.002, 0.006),
                                      ("female", 0.10, 0.60, 0.90),
                                      ("balanced", -0.2, 0.40, 0.80))]
    return _section("bec-pro", [main, *groups],
                    {"n": 1350, "of": 5400, "unit": "rows", "seed": 0})


def _wino_like() -> Section:
    main = from_ci("main effect log2(accuracy pro / accuracy anti)",
                   {"estimate": 0.53, "ci_low": -0.09, "ci_high": 1.17, "n": 293,
                    "method": "cluster percentile bootstrap", "ci_unit": "occupations",
                    "n_units": 42}, null=0.0)
    share = from_ci("share of male pronoun predictions",
                    {"estimate": 0.577, "ci_low": 0.52, "ci_high": 0.632, "n": 293,
                     "method": "wilson", "ci_unit": "sentences"}, null=0.5, primary=False,
                    thresholds=(0.02, 0.05, 0.15))
    return _section("winobias", [main, share],
                    {"n": 300, "of": 1584, "unit": "sentences", "seed": 0})


def _stereoset_like() -> Section:
    ss = from_ci("stereotype score SS (%)",
                 {"estimate": 61.0, "ci_low": 50.6, "ci_high": 71.5, "n": 10,
                  "method": "t interval", "ci_unit": "targets", "n_items": 150}, null=50.0)
    return _section("stereoset", [ss], {"n": 150, "of": 255, "unit": "gender contexts"})


def _seat_like() -> Section:
    hs = [from_ci(f"sent-weat{k}: X vs Y × A vs B (d)",
                  {"estimate": d, "ci_low": d - 0.8, "ci_high": d + 0.8, "n": n,
                   "ci_unit": "source words", "n_units": 16, "p_value": 0.001},
                  null=0.0, thresholds=(0.2, 0.5, 0.8))
          for k, d, n in ((6, 1.29, 128), (7, 0.73, 144), (8, 0.72, 112))]
    return _section("seat", hs, None, label="all-minilm-l6-v2")


def _cells(page: str, cls: str = "items") -> list[str]:
    return [html_unescape(c) for c in re.findall(rf'<td class="{cls}">(.*?)</td>', page)]


def html_unescape(s: str) -> str:
    import html as std

    return std.unescape(s)


def test_mixed_badge_and_the_significant_group_gets_a_headline_line() -> None:
    """BEC-Pro-like: the headline is null but one Holm-adjusted group test finds bias ->
    the section reads 'mixed', and that group has its own line in both headline tables."""
    sec = _bec_like()
    page = html.render(_data(sec))
    body = html.section_html(sec)
    assert "mixed" in body and "no evidence of bias</span>" not in body.split("</header>")[0]
    table = page.split('<table id="headline">')[1].split("</table>")[0]
    assert "male-dominated professions" in table
    assert "female-dominated professions" not in table  # not significant: section only
    rows = terminal.headline_rows(_data(sec))
    assert [r["number"] for r in rows] == [
        "association male − female person words (nats)",
        "male-dominated professions: male vs female"]
    assert "Large bias: leans male (Holm-adjusted p = 0.006)." in rows[1]["reading"]
    # WinoBias-like: a CI-tested secondary number finds bias -> mixed too
    wino = html.section_html(_wino_like())
    assert "mixed" in wino.split("</header>")[0]
    # a section whose numbers all find no bias keeps its badge
    assert "no evidence of bias" in html.section_html(_stereoset_like().__class__(
        **{**_stereoset_like().__dict__, "headlines": [_wino_like().headlines[0]]})
    ).split("</header>")[0]


def test_page_and_terminal_give_each_number_the_same_count() -> None:
    secs = [_wino_like(), _stereoset_like(), _bec_like()]
    for sec in secs[1:]:
        sec.subject = secs[0].subject  # one model, three sections
    seat = _seat_like()
    data = ReportData([secs[0].subject, seat.subject], [*secs, seat], Context(), "c", 0.0, {})
    page = html.render(data)
    head = page.split('<table id="headline">')[1].split("</table>")[0]
    term = [r["items"] for r in terminal.headline_rows(data)]
    assert _cells(head) == term
    assert term[0] == ("300 of 1,584 sentences (seeded subset); 293 kept; "
                       "CI resamples 42 occupations")
    assert term[1] == "300 of 1,584 sentences (seeded subset); 293 kept"
    assert term[2] == "150 of 255 gender contexts (seeded subset); CI over 10 targets"
    assert term[3] == ("1,350 of 5,400 rows (seeded subset); 675 sentence pairs; "
                       "CI resamples professions x person words (39 levels of the two "
                       "factors)")  # 30 + 9 levels, not 39 professions
    assert term[4] == "1,350 of 5,400 rows (seeded subset); 5 professions"
    assert term[-3:] == [f"n = {n}; CI resamples 16 source words" for n in (128, 144, 112)]
    # every section table repeats, per number, the headline table's phrase
    body = page.split('<table id="headline">')[1].split("</table>", 1)[1]
    for phrase in term:
        assert phrase in _cells(body)


def _words(rows: list[dict[str, str]]) -> set[str]:
    return {w for r in rows for v in r.values() for w in v.split()}


@pytest.mark.parametrize("width", [80, 150])
def test_terminal_table_never_breaks_a_word(width: int) -> None:
    data = _data(_wino_like(), _bec_like(), _stereoset_like())
    rows = terminal.headline_rows(data)
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, legacy_windows=False)
    terminal.print_rows(console, rows, title="Headline numbers")
    out = buf.getvalue()
    assert max(len(line) for line in out.splitlines()) <= width
    tokens = set(re.split(r"[\s│┃┏┓┗┛━─┡┩└┘┬┴┼╇╈┳┻]+", out))
    missing = sorted(w for w in _words(rows) if w not in tokens)
    assert not missing, f"words broken across lines at {width} columns: {missing[:8]}"
    assert ("┃" in out) is (width >= terminal.WIDE)  # a table when wide, blocks when not


def _texts_outside(fig, tolerance: float = 0.5) -> list[str]:
    """The texts ``fig`` draws whose box (in pixels, at the figure's own size) reaches
    outside the figure by more than ``tolerance`` pixels: what a page would clip."""
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    box = fig.bbox
    return [t.get_text() for t in plots._texts(fig)
            if (e := t.get_window_extent(renderer)).x0 < box.x0 - tolerance
            or e.y0 < box.y0 - tolerance or e.x1 > box.x1 + tolerance
            or e.y1 > box.y1 + tolerance]


def test_plots_keep_every_label_inside_the_figure() -> None:
    """At the page's size a long axis label used to reach outside the figure (CrowS-Pairs'
    x-label lost '(95% CI over pa...'); to_svg wraps it first."""
    fig = plots.forest([("all gender pairs (n=262)", 53.8, 47.8, 59.8),
                        ("pairs about an anti-stereotype (n=103)", 55.4, 45.7, 64.6)],
                       null=50.0, title="CrowS-Pairs (gender): 50 % = no preference",
                       xlabel="% pairs preferring the stereotypical sentence (95% CI over "
                              "pairs)")
    fig2, ax = plots.figure(6.4, 2.9)
    ax.bar([0, 1], [0.2, -0.9])
    ax.set_ylabel("association (nats, 95% CI resampling professions)")
    plots.set_title(fig2, "BEC-Pro: person-word association by profession group")
    for f in (fig, fig2):
        assert _texts_outside(f)  # what the page showed clipped
        plots.lay_out(f)
        assert _texts_outside(f) == []
    svg = plots.to_svg(fig, title="t")
    assert "over" in svg and "pairs)" in svg


def test_winobias_macro_f1_without_warnings() -> None:
    """An item group with no pronoun predicted used to warn 'Mean of empty slice'."""
    from genderscope.measures.winobias import _counts

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acc, f1 = _counts(np.array([[0.0, 0, 0, 0], [2, 0, 0, 0], [1, 1, 1, 1]]))
    assert np.isnan(f1[0]) and f1[1] == 1.0 and f1[2] == 0.5
    assert np.isnan(acc[0]) and acc[1] == 1.0


def test_runs_show_the_model_name_and_export_one_row_per_headline(tmp_path) -> None:
    import json

    from typer.main import get_command
    from typer.testing import CliRunner

    from genderscope.cli.app import app
    from genderscope.store import Store

    path = tmp_path / "s.sqlite"
    fp = "sha256:b179c9523d0e|{\"dtype\": \"float32\"}"
    store = Store(path)
    ps = {"estimate": 53.8, "ci_low": 47.8, "ci_high": 59.8, "n": 262, "method": "wilson",
          "ci_unit": "pairs", "p_value": 0.24}
    run_id = store.record_run(Result(
        "crows-pairs", {"percent_stereotypical": ps}, pd.DataFrame({"x": [1]}),
        {"model": {"source": "smollm2 (SmolLM2-135M-Instruct.Q4_1.gguf)", "fingerprint": fp},
         "params": {}, "data": {"subset": {"n": 262, "of": 262, "unit": "gender pairs"}}}))
    store.close()
    runner = CliRunner()
    listed = runner.invoke(app, ["runs", "list", "--store", str(path), "--json"])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.output)[0]["model_name"] == "smollm2"
    table = runner.invoke(app, ["runs", "list", "--store", str(path)], terminal_width=150)
    assert "smollm2" in table.output and "sha256:" in table.output
    shown_ = runner.invoke(app, ["runs", "show", run_id, "--store", str(path)])
    assert "model: smollm2" in shown_.output
    out = tmp_path / "h.csv"
    done = runner.invoke(app, ["runs", "export", "--store", str(path), "--what", "headlines",
                               "-o", str(out)])
    assert done.exit_code == 0, done.output
    rows = pd.read_csv(out)
    assert len(rows) == 1
    row = rows.iloc[0]
    assert row["model_name"] == "smollm2" and row["measure"] == "crows-pairs"
    assert (row["estimate"], row["ci_low"], row["ci_high"], row["p"], row["n"]) == \
        (53.8, 47.8, 59.8, 0.24, 262)
    assert row["unit"] == "%" and row["items"] == "all 262 gender pairs"
    assert row["reading"].startswith("No evidence of bias")
    # every option of every runs command says what it does
    runs_group = get_command(app).commands["runs"]
    for name, cmd in runs_group.commands.items():
        for param in cmd.params:
            if param.param_type_name == "option":
                assert (param.help or "").strip(), f"runs {name} {param.opts} has no help"


@pytest.mark.slow
def test_plain_rerun_prints_its_table_without_pandas_or_pyarrow(tmp_path, tiny_gpt2_dir,
                                                               data_dir) -> None:
    """The rerun users type (no --json) prints the stored run's table from its summary:
    like the --json rerun, it imports neither pandas nor pyarrow (it used to read the
    by-bias-type table from the store's Parquet)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    probe = ("import sys\nfrom genderscope.cli.app import main\nsys.argv[0] = 'genderscope'\n"
             "try:\n    main()\nfinally:\n    print('HEAVY=' + ','.join(m for m in ('torch', "
             "'pandas', 'pyarrow', 'scipy') if m in sys.modules), file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=str(repo / "src"), HF_HUB_OFFLINE="1",
               GENDERSCOPE_CACHE=str(tmp_path / "cache"), COLUMNS="100")
    args = ["run", "crows-pairs", "--model", str(tiny_gpt2_dir), "--data", str(data_dir),
            "--limit", "12", "--no-progress", "--store", str(tmp_path / "s.sqlite"),
            "--out", "a"]
    outs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        heavy = [x for x in done.stderr.splitlines() if x.startswith("HEAVY=")][-1]
        outs.append((done.stdout, set(heavy[len("HEAVY="):].split(",")) - {""}))
    assert "pandas" in outs[0][1]  # the first run computes
    assert outs[1][1] == set(), outs[1][1]
    assert "reused stored run" in " ".join(outs[1][0].split())
    table = [line for line in outs[0][0].splitlines() if "%" in line or "all" in line]
    assert table == [line for line in outs[1][0].splitlines() if "%" in line or "all" in line]


def test_report_refuses_an_existing_page_before_anything_else(tmp_path) -> None:
    """The overwrite refusal is the first and only thing printed, with no model, torch,
    pandas or matplotlib loaded (it used to print the scope line and take 7.7 s)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    out = tmp_path / "report.html"
    out.write_text("the user's page", encoding="utf-8")
    probe = ("import sys\nfrom genderscope.cli.app import main\nsys.argv[0] = 'genderscope'\n"
             "try:\n    main()\nfinally:\n    print('HEAVY=' + ','.join(m for m in ('torch', "
             "'pandas', 'matplotlib', 'transformers') if m in sys.modules), file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=str(repo / "src"), HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", probe, "report", "--model", "smollm2",
                           "--out", str(out)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert done.stdout.strip() == ""
    lines = [x for x in done.stderr.splitlines() if not x.startswith("HEAVY=")]
    assert len(lines) == 1 and "already exists" in lines[0] and "--overwrite" in lines[0]
    assert done.stderr.splitlines()[-1] == "HEAVY="
    assert out.read_text(encoding="utf-8") == "the user's page"


def test_full_and_quick_mean_the_same_in_report_and_sweep() -> None:
    """--full: every benchmark in full; --subsets: the CPU subsets; --quick: small subsets
    (sweep's --full used to mean 'not --quick')."""
    from typer.main import get_command

    from genderscope.cli.app import app
    from genderscope.errors import GenderscopeError
    from genderscope.sweep.jobs import measure_context
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

    cmds = get_command(app).commands

    def options(cmd: str) -> dict[str, tuple]:
        return {o: (tuple(p.opts), tuple(p.secondary_opts)) for p in cmds[cmd].params
                for o in p.opts if o in ("--full", "--quick")}

    assert options("sweep") == options("report") == {
        "--full": (("--full",), ("--subsets",)), "--quick": (("--quick",), ())}
    for name in ("report", "sweep"):  # every option says what it does
        for param in cmds[name].params:
            if param.param_type_name == "option":
                assert (param.help or "").strip(), f"{name} {param.opts} has no help"
    spec = SweepSpec(models=[ModelSpec("m")], measures=[MeasureSpec("stereoset")], full=True)
    ctx = measure_context(spec, spec.measures[0])
    assert ctx.full and not ctx.quick and ctx.size(150, quick=30) is None
    spec.quick = True
    with pytest.raises(GenderscopeError, match="exclude each other"):
        spec.check()


@pytest.mark.slow
def test_unreachable_hub_fails_fast_with_a_hint(tmp_path) -> None:
    """A Hub id while the Hub cannot be reached (HF_HUB_OFFLINE unset): one line naming
    HF_HUB_OFFLINE=1 and a local folder, in seconds (it used to retry for ~30 s)."""
    import os
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    repo = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
           and "proxy" not in k.lower()}
    env.update(PYTHONPATH=str(repo / "src"), HF_ENDPOINT=f"http://127.0.0.1:{port}",
               HF_HOME=str(tmp_path / "hf"), GENDERSCOPE_STORE=str(tmp_path / "s.sqlite"))
    t0 = time.perf_counter()
    main = "import sys\nfrom genderscope.cli.app import main\nsys.argv[0] = 'genderscope'\nmain()"
    done = subprocess.run([sys.executable, "-c", main, "report", "--model",
                           "someone/some-model", "--out", str(tmp_path / "r.html"),
                           "--no-progress"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    took = time.perf_counter() - t0
    assert done.returncode == 2, done.stderr[-1500:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "HF_HUB_OFFLINE=1" in lines[0] and "local folder" in lines[0]
    assert took < 15, took  # ~4 s here (most of it imports); ~33 s before


def test_unreachable_hub_with_a_cached_model_goes_offline(monkeypatch) -> None:
    from huggingface_hub import constants

    from genderscope.models import hub

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hub, "unreachable", lambda endpoint: "Connection refused")
    monkeypatch.setattr(hub, "_cached", lambda repo, rev: True)
    for var in hub._PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    hub.check_reachable("gpt2")
    assert constants.HF_HUB_OFFLINE is True
    monkeypatch.setattr(hub, "_cached", lambda repo, rev: False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with pytest.raises(Exception, match="HF_HUB_OFFLINE=1"):
        hub.check_reachable("gpt2")


def test_t_interval_of_values_equal_up_to_rounding_without_precision_warning() -> None:
    """The probe's t interval over nearly identical values (a model that scores every
    target alike) used to raise scipy's 'Precision loss' warning in a normal test run."""
    from genderscope.stats.intervals import t_mean_ci

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = t_mean_ci([1 / 3] * 5 + [np.nextafter(1 / 3, 1.0)])  # one ulp apart
        wide = t_mean_ci([1.0, 2.0, 3.0])
    assert np.isnan(ci.ci_low) and np.isnan(ci.ci_high) and ci.estimate == pytest.approx(1 / 3)
    assert ci.no_interval == "no spread over 6 units: interval undefined"  # not [x, x]
    assert wide.ci_low < 2.0 < wide.ci_high
