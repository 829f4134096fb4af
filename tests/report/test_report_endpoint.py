"""The report and the sweep on an OpenAI-compatible endpoint (issue 38, item 2), against
the local server of tests/chat_server.py: ``genderscope report --model openai:NAME
--base-url URL`` runs the chat section (every GenderBench probe by default, nothing
else), passes the client settings and decoding flags to every request, writes a page
with the GenderBench marks grid and table for each model, and a rerun sends no request;
misplaced endpoint flags are one line; a sweep file's endpoint model runs its probe."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from chat_server import serve  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import genderscope as gs  # noqa: E402
from genderscope.errors import GenderscopeError  # noqa: E402


def _answer(body: dict[str, Any]) -> str:
    """Model ``yes`` agrees and picks option (a); any other model says no, picks (b)."""
    return "Yes (a)" if body["model"] == "yes" else "No (b)"


def _cli(*args: str) -> Any:
    from genderscope.cli.app import app

    return CliRunner().invoke(app, list(args))


@pytest.mark.slow  # every probe on two models: about a minute on 2 busy cores
def test_cli_report_on_an_endpoint_runs_the_chat_section_with_marks(
        tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.reporting import registry, runner
    from genderscope.reporting.cards.chat_probes import DECODING

    monkeypatch.setenv("OPENAI_API_KEY", "sk-none")
    out, store = tmp_path / "r.html", tmp_path / "s.sqlite"
    args = ["report", "--model", "openai:yes", "--model", "openai:no", "--out", str(out),
            "--quick", "--data", str(data_dir), "--store", str(store), "--no-progress",
            "--concurrency", "3", "--header", "X-Org:team-a", "--repeat-penalty", "1.0"]
    with serve(_answer) as srv:
        res = _cli("report", "--base-url", srv.base_url, *args[1:])
        assert res.exit_code == 0, res.output
        assert "GenderBench mark: A (healthy) to D (severe)" in res.output  # the letters
        asked = len(srv.requests)
        assert asked > 0
        bodies, headers = list(srv.requests), list(srv.headers_seen)
        again = _cli("report", "--base-url", srv.base_url, *args[1:], "--overwrite")
        assert again.exit_code == 0, again.output
        assert len(srv.requests) == asked  # every answer and run reused
    assert all(b["max_tokens"] == DECODING["max_new_tokens"] and b["temperature"] == 0
               and b["repeat_penalty"] == 1.0 for b in bodies)
    assert all(h.get("x-org") == "team-a" for h in headers)
    assert {b["model"] for b in bodies} == {"yes", "no"}
    page = out.read_text(encoding="utf-8")
    chat = [m.name for m in registry.measures().values() if runner.is_chat(m)]
    assert len(chat) == 14
    for name in chat:  # every probe's section on both models (gest: not applicable)
        assert f'id="openai-yes-{name}"' in page and f'id="openai-no-{name}"' in page
    assert "crows-pairs" not in page  # nothing but the chat section on an endpoint
    block = page[page.index('id="genderbench-marks"'):]
    block = block[:block.index("</table>")]
    assert "<svg" in block and "GenderBench marks (A-D)" in block
    assert "openai:yes: mark (point)" in block and "openai:no: mark (point)" in block
    # Direct's fail_rate: "yes" agrees with every stereotype (D), "no" with none (A)
    row = re.search(r"<td>direct</td><td>fail_rate</td>(.*?)</tr>", block)
    assert row is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    assert cells[1] == "D (D)" and cells[3] == "A (A)", cells


def test_an_endpoint_takes_only_chat_cards_and_endpoint_flags_need_one(
        tmp_path: Path, data_dir: Path) -> None:
    with serve(_answer) as srv, pytest.raises(GenderscopeError, match="no measure applies"):
        gs.report(["openai:yes"], tmp_path / "r.html", base_url=srv.base_url,
                  measures=["crows-pairs"], store=tmp_path / "s.sqlite", data=data_dir)
    for flag in (["--base-url", "http://127.0.0.1:9/v1"], ["--concurrency", "8"]):
        res = _cli("report", "--model", "smollm2", "--out", str(tmp_path / "x.html"), *flag)
        assert isinstance(res.exception, GenderscopeError), res.output  # exit 2 in main()
        assert "openai:NAME" in str(res.exception) and "\n" not in str(res.exception)
    res = _cli("report", "--model", "openai:yes", "--base-url", "http://127.0.0.1:9/v1",
               "--out", str(tmp_path / "x.html"), "--temperature", "-1")
    assert isinstance(res.exception, GenderscopeError), res.output
    assert "temperature" in str(res.exception) and not (tmp_path / "x.html").exists()


def test_report_decoding_flags_default_to_the_cards_decoding() -> None:
    from genderscope.cli.commands.report import REPORT_MAX_NEW_TOKENS
    from genderscope.reporting.build import decoding_options
    from genderscope.reporting.cards.chat_probes import DECODING

    assert DECODING["max_new_tokens"] == REPORT_MAX_NEW_TOKENS
    # the report's own decoding is left out: the cards' plans and keys are unchanged
    assert decoding_options(max_new_tokens=48, temperature=0.0, top_p=1.0) == ()
    assert decoding_options(repeat_penalty=1.0, extra_body={"top_k": 1}) == (
        ("repeat_penalty", 1.0), ("extra_body", '{"top_k": 1}'))
    with pytest.raises(GenderscopeError, match="extra-body"):
        decoding_options(extra_body="[1]")


def test_a_sweep_file_with_an_endpoint_model_runs(tmp_path: Path, data_dir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from genderscope.store import Store
    from genderscope.sweep.driver import run_sequential
    from genderscope.sweep.spec import load_file

    monkeypatch.setenv("MY_KEY", "sk-sweep")
    with serve(_answer) as srv:
        f = tmp_path / "sweep.yaml"
        f.write_text(
            "models:\n"
            f"  - {{model: 'openai:yes', base_url: '{srv.base_url}', concurrency: 2,\n"
            "     api_key_env: MY_KEY, headers: ['X-Org:team-b']}\n"
            "measures: [direct, crows-pairs]\n"
            f"settings: {{quick: true, data: {data_dir}, decoding: {{repeat_penalty: 1.0}}}}\n",
            encoding="utf-8")
        spec = load_file(f)
        assert pickle.loads(pickle.dumps(spec)) == spec  # what Ray ships to a worker
        store = Store(tmp_path / "s.sqlite")
        try:
            run = run_sequential(spec, store)
            asked = len(srv.requests)
            assert run_sequential(spec, store).ran == 0  # a finished sweep asks nothing
        finally:
            store.close()
        assert len(srv.requests) == asked == 12  # --quick: 12 Direct items
    direct = run.statuses[("openai:yes", "direct")]
    assert direct.status == "done", direct.reason
    crows = run.statuses[("openai:yes", "crows-pairs")]
    assert crows.status == "not applicable" and "chat prompts only" in crows.reason
    assert all(b["repeat_penalty"] == 1.0 for b in srv.requests)
    assert {h["authorization"] for h in srv.headers_seen} == {"Bearer sk-sweep"}
    assert {h["x-org"] for h in srv.headers_seen} == {"team-b"}


def test_marks_table_and_grid_from_probe_summaries() -> None:
    """The marks block's data: one row per probe metric, a pair of columns per model, a
    metric one model lacks shown as '-', a NaN estimate as n/a, GenderBench's own mark
    as a column only where a result holds it; the grid has one cell per metric and
    model, labelled with the mark (and the point's where it differs)."""
    from types import SimpleNamespace

    from genderscope.reporting.chat_marks import COLOURS, marks_frame, marks_grid, marks_table

    def sec(model: str, probe: str, summary: dict[str, Any]) -> Any:
        return SimpleNamespace(status="ok", result=SimpleNamespace(summary=summary),
                               subject=SimpleNamespace(label=model),
                               measure=SimpleNamespace(name=probe))

    a = {"fail_rate": {"estimate": 0.6, "ci_low": 0.4, "ci_high": 0.8},
         "marks": {"fail_rate": {"mark": "C", "mark_point": "D",
                                 "genderbench": {"mark": "D", "interval": [0.5, 0.7]}}}}
    b = {"fail_rate": {"estimate": None, "ci_low": None, "ci_high": None},
         "other": {"estimate": 0.01, "ci_low": 0.0, "ci_high": 0.02},
         "marks": {"fail_rate": {"mark": None, "mark_point": None},
                   "other": {"mark": "A", "mark_point": "A"}}}
    data = SimpleNamespace(sections=[sec("m1", "direct", a), sec("m2", "direct", b),
                                     SimpleNamespace(status="failed", result=None)])
    frame = marks_frame(data)  # type: ignore[arg-type]
    assert len(frame) == 3
    table = marks_table(frame)
    assert list(table["metric"]) == ["fail_rate", "other"]
    first, second = table.iloc[0].to_dict(), table.iloc[1].to_dict()
    assert first["m1: estimate [95% CI]"] == "0.600 [0.400, 0.800]"
    assert first["m1: mark (point)"] == "C (D)" and first["m1: GenderBench mark"] == "D"
    assert first["m2: estimate [95% CI]"] == "n/a" and first["m2: mark (point)"] == "- (-)"
    assert second["m1: mark (point)"] == "-" and second["m2: mark (point)"] == "A (A)"
    fig = marks_grid(frame)
    ax = fig.axes[0]
    labels = sorted(t.get_text() for t in ax.texts)
    assert labels == ["-", "-", "A", "C (D)"]
    fills = {p.get_facecolor()[:3] for p in ax.patches}
    from matplotlib.colors import to_rgb

    assert to_rgb(COLOURS["C"]) in fills and to_rgb(COLOURS["A"]) in fills
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_sweep_endpoint_flags_need_an_endpoint_model(tmp_path: Path) -> None:
    for flags in (["--base-url", "http://127.0.0.1:9/v1"], ["--header", "X-Org:a"]):
        res = _cli("sweep", "--model", "smollm2", "--measure", "direct", "--out",
                   str(tmp_path / "s.html"), *flags)
        assert isinstance(res.exception, GenderscopeError), res.output
        assert "openai:NAME" in str(res.exception) and "\n" not in str(res.exception)
    f = tmp_path / "bad.yaml"
    f.write_text("models: [{model: smollm2, base_url: 'http://127.0.0.1:9/v1'}]\n"
                 "measures: [direct]\n", encoding="utf-8")
    res = _cli("sweep", str(f), "--out", str(tmp_path / "s.html"))
    assert isinstance(res.exception, GenderscopeError) and "openai:NAME" in str(
        res.exception), res.output
