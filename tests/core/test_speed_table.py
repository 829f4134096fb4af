"""The speed table of docs/performance.md is rendered from benchmark records, never typed
(benchmarks/speed_table.py, benchmarks/benchrecord.py). No benchmark runs here."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import benchrecord  # noqa: E402
import speed_table  # noqa: E402


def _args(**kw: object) -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    benchrecord.add_record_options(ap)
    argv = []
    if kw.get("record"):
        argv.append("--record")
    if kw.get("record_dir"):
        argv += ["--record-dir", str(kw["record_dir"])]
    return ap.parse_args(argv)


def _write(folder: Path, script: str, case: str | None = None, *, base_s: float = 57.8,
           ours_s: float = 12.3, device: str = "cpu") -> dict:
    rec = benchrecord.Recorder(script=script, folder=folder,
                               command=f"python benchmarks/{script} --record")
    path = rec.write(what="p(person) for 18 words on 900 sentences", baseline="pipeline",
                     baseline_s=base_s, genderscope="engine", genderscope_s=ours_s,
                     device=device, case=case,
                     extra=[{"name": "max |Δ log p|", "value": 3.3e-6},
                            {"name": "peak RSS", "value": 940.0, "unit": "MB",
                             "side": "baseline"}])
    return json.loads(path.read_text())


def test_committed_performance_block_equals_rendering_of_committed_records() -> None:
    assert speed_table.DOC == REPO / "docs" / "performance.md"
    text = speed_table.DOC.read_text(encoding="utf-8")
    block = text.split(speed_table.START, 1)[1].split(speed_table.END, 1)[0]
    assert block == "\n" + speed_table.render(speed_table.load_records(speed_table.RESULTS))
    assert speed_table.main(["--check"]) == 0


def test_record_holds_what_the_table_needs(tmp_path: Path) -> None:
    rec = _write(tmp_path, "bench_engine_vs_pipeline.py")
    assert (tmp_path / "bench_engine_vs_pipeline.json").is_file()
    assert rec["baseline"] == {"label": "pipeline", "seconds": 57.8}
    assert rec["genderscope"] == {"label": "engine", "seconds": 12.3}
    assert rec["ratio"] == pytest.approx(57.8 / 12.3)
    assert rec["script"] == "benchmarks/bench_engine_vs_pipeline.py"
    assert rec["command"] == "python benchmarks/bench_engine_vs_pipeline.py --record"
    m = rec["machine"]
    assert m["device"] == "cpu" and m["cores"] >= 1 and m["cpu"] and m["gpu"] is None
    assert len(rec["load_start"]) == 3 and len(rec["load_end"]) == 3
    assert rec["started_utc"].endswith("Z") and rec["commit"]


def test_record_names_and_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(benchrecord.RESULTS_ENV, raising=False)
    assert benchrecord.record_name("bench_x.py", None, "cpu") == "bench_x.json"
    assert benchrecord.record_name("bench_x.py", "a", "cuda:1") == "bench_x-a-cuda.json"
    assert benchrecord.Recorder.from_args("bench_x.py", _args()).folder is None
    got = benchrecord.Recorder.from_args("bench_x.py", _args(record_dir=tmp_path))
    assert got.folder == tmp_path
    assert benchrecord.Recorder.from_args("bench_x.py", _args(record=True)).folder \
        == benchrecord.RESULTS
    monkeypatch.setenv(benchrecord.RESULTS_ENV, str(tmp_path / "env"))
    assert benchrecord.Recorder.from_args("bench_x.py", _args(record=True)).folder \
        == tmp_path / "env"
    nothing = benchrecord.Recorder(script="bench_x.py", folder=None)
    assert nothing.write(what="w", baseline="b", baseline_s=1, genderscope="g",
                         genderscope_s=1, device="cpu") is None


def test_command_line_is_relative_to_the_repository() -> None:
    argv = [str(REPO / "benchmarks" / "bench_bec_pro.py"), "--rows", "540", "--record"]
    assert benchrecord.command_line(argv) == \
        "python benchmarks/bench_bec_pro.py --rows 540 --record"


def test_git_commit_marks_dirty_tracked_files_but_not_results(tmp_path: Path) -> None:
    def git(*a: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *a], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "benchmarks" / "results" / "r.json").write_text("{}\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c")
    clean = benchrecord.git_commit(tmp_path)
    assert clean and not clean.endswith("-dirty")
    (tmp_path / "benchmarks" / "results" / "r.json").write_text('{"new": 1}\n')
    (tmp_path / "untracked.txt").write_text("u\n")
    assert benchrecord.git_commit(tmp_path) == clean
    (tmp_path / "code.py").write_text("x = 2\n")
    assert benchrecord.git_commit(tmp_path) == clean + "-dirty"


def test_missing_rows_say_not_measured_with_their_command() -> None:
    block = speed_table.render([])
    for row in speed_table.ROWS:
        assert f"not measured yet (run: `{row.command}`)" in block
    assert block.count("not measured yet") == len(speed_table.ROWS)
    assert "No GPU figures recorded yet" in block


def test_measured_row_renders_its_figures_and_note(tmp_path: Path) -> None:
    rec = _write(tmp_path, "bench_engine_vs_pipeline.py")
    block = speed_table.render(speed_table.load_records(tmp_path))
    line = next(x for x in block.splitlines() if "bench_engine_vs_pipeline.py" in x
                and x.startswith("| p(person)"))
    assert "pipeline, 57.8 s, peak RSS 940 MB" in line
    assert "engine, 12.3 s, max \\|Δ log p\\| 3.3e-06" in line
    assert f"| {57.8 / 12.3:.1f}x |" in line and "[1](#speed-notes)" in line
    assert "not measured yet" not in line
    assert block.count("not measured yet") == len(speed_table.ROWS) - 1
    n1 = next(x for x in block.splitlines() if x.startswith("1. "))
    assert "`python benchmarks/bench_engine_vs_pipeline.py --record`" in n1
    assert rec["commit"] in n1 and rec["machine"]["cpu"] in n1
    assert f"{rec['load_start'][0]:.2f}" in n1 and "at end" in n1


def test_gpu_record_gets_its_own_table_naming_the_gpu(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(benchrecord, "machine", lambda device: {
        "cpu": "Some CPU", "cores": 16, "torch": "2.13.0+cu130", "python": "3.11",
        "device": device, "gpu": "NVIDIA H100 80GB HBM3"})
    _write(tmp_path, "bench_bec_pro.py", base_s=19.3, ours_s=2.0, device="cuda")
    assert (tmp_path / "bench_bec_pro-cuda.json").is_file()
    block = speed_table.render(speed_table.load_records(tmp_path))
    cpu_part, gpu_part = block.split("On a GPU:")
    cpu_row = next(x for x in cpu_part.splitlines() if x.startswith("| BEC-Pro EN"))
    assert "not measured yet" in cpu_row  # a GPU figure never fills a CPU row
    assert "| what | GPU |" in gpu_part
    gpu_row = next(x for x in gpu_part.splitlines() if "bench_bec_pro.py" in x)
    assert "| NVIDIA H100 80GB HBM3 |" in gpu_row and f"| {19.3 / 2.0:.1f}x |" in gpu_row
    assert "NVIDIA H100 80GB HBM3 (cuda), host Some CPU (16 cores)" in block


def test_record_of_an_unlisted_row_is_still_shown(tmp_path: Path) -> None:
    _write(tmp_path, "bench_sweep.py", base_s=10.0, ours_s=5.0)
    block = speed_table.render(speed_table.load_records(tmp_path))
    assert "`benchmarks/bench_sweep.py` | [1](#speed-notes) |" in block
    assert "| 2.0x |" in block


def test_the_readme_holds_no_speed_table() -> None:
    """The README stays the front door (issue 35): it links to the table."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert speed_table.START not in text and "docs/performance.md" in text


def test_table_links_resolve_from_docs() -> None:
    """Links in the table are relative to docs/, where the table lives."""
    import re

    block = speed_table.render(speed_table.load_records(speed_table.RESULTS))
    for target in set(re.findall(r"\]\(([^)#]+)\)", block)):
        assert (speed_table.DOC.parent / target).is_file(), target
    for row in speed_table.ROWS:
        assert "docs/" not in row.docs, row.docs


def test_check_and_rewrite_of_a_page(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    page.write_text(f"# T\n\nbefore\n\n{speed_table.START}\n| old | typed |\n"
                    f"{speed_table.END}\n\nafter\n", encoding="utf-8")
    results = tmp_path / "results"
    _write(results, "bench_crows_pairs.py", base_s=240.8, ours_s=71.6)
    opts = ["--results", str(results), "--doc", str(page)]
    assert speed_table.main([*opts, "--check"]) == 1
    assert speed_table.main(opts) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# T\n\nbefore\n\n") and text.endswith("\n\nafter\n")
    assert "| old | typed |" not in text and "| 3.4x |" in text
    assert speed_table.main([*opts, "--check"]) == 0
    (results / "bench_crows_pairs.json").unlink()
    assert speed_table.main([*opts, "--check"]) == 1


def test_every_listed_script_offers_record() -> None:
    for script in {row.script for row in speed_table.ROWS}:
        src = (REPO / script).read_text(encoding="utf-8")
        assert "add_record_options(ap)" in src and "recorder.write(" in src, script
        assert "GENDERSCOPE_TEST_DATA" not in src and "find_benchmark" in src, script


def test_rows_of_one_run_share_one_note(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(benchrecord, "_load", lambda: [1.0, 1.0, 1.0])  # steady load
    rec = benchrecord.Recorder(script="bench_attack.py", folder=tmp_path,
                               command="python benchmarks/bench_attack.py --record")
    for case in ("query-cache", "lm-batching"):
        rec.write(what=f"attack: {case}", baseline="off", baseline_s=2.0, genderscope="on",
                  genderscope_s=1.0, device="cpu", case=case)
    block = speed_table.render(speed_table.load_records(tmp_path))
    assert block.count("[1](#speed-notes)") == 2 and "[2](#speed-notes)" not in block
    assert sum(x.startswith("1. ") for x in block.splitlines()) == 1
