"""Fixed costs and cache-only reruns (issue 15): commands that run no model import
neither torch nor transformers, a measure whose every answer is cached loads no
model, and the engine's split output head gives the full model's numbers."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from genderscope.models.base import FillQuery
from genderscope.models.causal import CausalLM
from genderscope.models.masked import MaskedLM

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import sys\nfrom genderscope.cli.app import main\nsys.argv[0] = 'genderscope'\n"
         "try:\n    main()\nfinally:\n    print('HEAVY=' + ','.join(m for m in "
         "('torch', 'transformers', 'scipy.stats') if m in sys.modules), file=sys.stderr)\n")


def _genderscope(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run the CLI in a fresh interpreter; returns the process and the heavy modules
    it had imported when it finished."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", GENDERSCOPE_CACHE=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=600)
    line = [x for x in done.stderr.splitlines() if x.startswith("HEAVY=")]
    assert line, done.stderr[-2000:]
    return done, {m for m in line[-1][len("HEAVY="):].split(",") if m}


@pytest.mark.slow
def test_commands_without_a_model_import_no_torch(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "train.txt").write_text("he cooks in the kitchen\nshe cooks in the kitchen\n"
                                        "he holds a knife\n")
    (tmp_path / "objs.txt").write_text("cooking\nkitchen\nknife\n")
    store = str(tmp_path / "s.sqlite")
    for args in (["--help"], ["run", "--help"],
                 ["run", "bias-amplification", "--train", "train.txt", "--generated",
                  "train.txt", "--objects", "objs.txt", "--out", "amp", "--store", store],
                 ["run", "weat", "--vectors", "glove-6b-50d", "--test", "weat6", "--tests-dir",
                  str(data_dir / "seat" / "tests"), "--out", "weat", "--store", store],
                 ["runs", "list", "--store", store, "--json"]):
        done, heavy = _genderscope(tmp_path, *args)
        assert done.returncode == 0, done.stderr[-2000:]
        assert heavy <= {"scipy.stats"}, (args, heavy)
    assert {r["method"] for r in json.loads(done.stdout)} == {"weat", "bias-amplification"}


@pytest.mark.slow
def test_warm_store_rerun_loads_no_model(tmp_path: Path, tiny_bert_dir: Path) -> None:
    """``--no-reuse``: the measure runs again, every answer from the score cache (a rerun
    that reuses the stored run is tested in test_run_reuse.py)."""
    args = ["run", "--no-reuse", "bec-pro", "--model", str(tiny_bert_dir), "--limit", "60",
            "--no-plot", "--no-progress", "--resamples", "200", "--store",
            str(tmp_path / "s.sqlite")]
    first, heavy_first = _genderscope(tmp_path, *args, "--out", "first")
    assert first.returncode == 0, first.stderr[-2000:]
    assert {"torch", "transformers", "scipy.stats"} <= heavy_first  # the probe sees them
    again, heavy_again = _genderscope(tmp_path, *args, "--out", "again")
    assert again.returncode == 0, again.stderr[-2000:]
    assert heavy_again == set()  # no model, no resampling either (memoised aggregates)
    a = (tmp_path / "first" / "items.csv").read_text()
    assert a == (tmp_path / "again" / "items.csv").read_text()
    s1 = json.loads((tmp_path / "first" / "summary.json").read_text())
    s2 = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert s1["summary"] == s2["summary"]
    assert s2["metadata"]["model"]["fingerprint"] == s1["metadata"]["model"]["fingerprint"]
    assert "not loaded" in s2["metadata"]["model"]["device"]


def _count_loads(monkeypatch: pytest.MonkeyPatch, cls: type) -> dict[str, int]:
    calls = {"n": 0}
    real = cls._load.__func__

    def counted(klass, *a, **k):
        calls["n"] += 1
        return real(klass, *a, **k)

    monkeypatch.setattr(cls, "_load", classmethod(counted))
    return calls


def test_masked_adapter_loads_on_the_first_cache_miss(tiny_bert_dir, store, monkeypatch) -> None:
    queries = [FillQuery("{target} is a nurse.", w) for w in ("he", "she")]
    first = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    want = first.fill_logprobs(queries)
    want_pll = first.pseudo_log_likelihood(["she is a nurse."])
    calls = _count_loads(monkeypatch, MaskedLM)
    again = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    np.testing.assert_array_equal(again.fill_logprobs(queries), want)
    pll = again.pseudo_log_likelihood(["she is a nurse."])
    assert pll[0].total == want_pll[0].total and pll[0].tokens == want_pll[0].tokens
    assert again.tokenize(["she is a nurse."]) == first.tokenize(["she is a nurse."])
    assert calls["n"] == 0 and not again.loaded
    assert again.describe()["fingerprint"] == first.describe()["fingerprint"]
    new = [FillQuery("{target} is a pilot.", "he")]
    got = again.fill_logprobs(new)  # a miss: loads now, once
    assert calls["n"] == 1 and again.loaded
    np.testing.assert_allclose(got, first.fill_logprobs(new), atol=1e-6)
    again.fill_logprobs([FillQuery("{target} is a cook.", "he")])
    assert calls["n"] == 1
    other = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store, dtype="bfloat16")
    assert calls["n"] == 2 and other.loaded  # another dtype: other answers, loaded at once


def test_causal_adapter_cache_hit_needs_no_load(tiny_gpt2_dir, store, monkeypatch) -> None:
    texts = ["he is a nurse.", "she is a pilot."]
    first = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", store=store)
    want = first.log_likelihood(texts)
    calls = _count_loads(monkeypatch, CausalLM)
    again = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", store=store)
    got = again.log_likelihood(texts)
    assert calls["n"] == 0 and not again.loaded
    assert [(s.total, s.tokens) for s in got] == [(s.total, s.tokens) for s in want]
    assert again.describe()["start_token"] == first.describe()["start_token"]
    none = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", store=store, start_token="none")
    assert calls["n"] == 1 and none.fingerprint != first.fingerprint


def test_changed_tokenizer_files_are_a_new_identity(tmp_path, tiny_bert_dir, store) -> None:
    import shutil

    from genderscope.models.source import ModelSource

    copy = Path(shutil.copytree(tiny_bert_dir, tmp_path / "copy"))
    before = ModelSource(copy).identity()
    cfg = json.loads((copy / "tokenizer_config.json").read_text())
    cfg["do_lower_case"] = not cfg.get("do_lower_case", True)
    (copy / "tokenizer_config.json").write_text(json.dumps(cfg))
    assert ModelSource(copy).identity() != before


# -- engine ----------------------------------------------------------------------
def _engine_pair(adapter):
    from genderscope.models.engine import ForwardEngine

    split = ForwardEngine(adapter.model, 0, adapter.device)
    full = ForwardEngine(adapter.model, 0, adapter.device)
    full._split = None
    return split, full


@pytest.mark.parametrize("which", ["tiny_bert", "tiny_gpt2"])
def test_split_head_gives_the_full_models_numbers(which, request) -> None:
    from genderscope.models.engine import Request

    adapter = request.getfixturevalue(which)
    split, full = _engine_pair(adapter)
    ids = adapter.tokenizer(["she is a nurse at the hospital .", "he is a pilot ."])["input_ids"]
    reqs = [Request(tuple(s), tuple((p, t) for p in range(1, len(s) - 1) for t in (7, 42)))
            for s in ids]
    a, b = split.run(reqs), full.run(reqs)
    assert split._split is not None  # checked once and kept
    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(x, y, atol=2e-5)


@pytest.mark.parametrize("which", ["tiny_bert", "tiny_gpt2"])
def test_output_head_in_small_chunks_gives_the_same_numbers(which, request) -> None:
    """Chunks of 3 positions (reads of one sequence split across chunks) equal one chunk."""
    from genderscope.models.engine import ForwardEngine, Request, head_rows

    adapter = request.getfixturevalue(which)
    one = ForwardEngine(adapter.model, 0, adapter.device)
    small = ForwardEngine(adapter.model, 0, adapter.device)
    assert one.head_rows == head_rows(len(adapter.tokenizer), "cpu") >= 16
    one.head_rows, small.head_rows = 10_000, 3
    ids = adapter.tokenizer(["she is a nurse at the hospital .", "he is a pilot ."])["input_ids"]
    reqs = [Request(tuple(s), tuple((p, t) for p in range(1, len(s) - 1) for t in (7, 42)))
            for s in ids]
    for x, y in zip(small.run(reqs), one.run(reqs), strict=True):
        np.testing.assert_allclose(x, y, atol=1e-6)


def test_head_chunk_bounds_the_logits_in_memory() -> None:
    """Rows per head chunk shrink with the vocabulary: <= 16 MB of float32 on a CPU."""
    from genderscope.models.engine import head_rows

    for vocab in (30_522, 49_152, 262_144):
        assert head_rows(vocab, "cpu") * vocab * 4 <= 16 * 2**20
        assert head_rows(vocab, "cuda") > head_rows(vocab, "cpu")
    assert head_rows(10**9, "cpu") == 1


def test_split_head_dropped_when_the_model_changes_its_logits(tiny_gpt2) -> None:
    """Logit soft-capping (Gemma) lives outside the head: the check must catch it."""
    import torch

    from genderscope.models.engine import ForwardEngine, Request

    model = tiny_gpt2.model
    real_forward = model.forward

    def capped(*a, **k):
        out = real_forward(*a, **k)
        out.logits = torch.tanh(out.logits / 2.0) * 2.0
        return out

    engine = ForwardEngine(model, 0, tiny_gpt2.device)
    ids = tuple(tiny_gpt2.tokenizer("she is a nurse .")["input_ids"])
    req = [Request(ids, tuple((p, ids[p + 1]) for p in range(len(ids) - 1)))]
    model.forward = capped
    try:
        got = engine.run(req)[0]
        assert engine._split is None
        with torch.inference_mode():
            logits = capped(input_ids=torch.tensor([ids])).logits[0]
        ref = torch.log_softmax(logits.float(), -1)
        want = [float(ref[p, ids[p + 1]]) for p in range(len(ids) - 1)]
    finally:
        del model.forward
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_token_budget_sized_to_the_device() -> None:
    import torch

    from genderscope.models.engine import CPU_BUDGET, ForwardEngine, device_budget

    assert device_budget(torch.device("cpu")) == CPU_BUDGET
    engine = ForwardEngine(torch.nn.Linear(1, 1), 0, torch.device("cpu"), max_tokens=40)
    batches = engine._batches([tuple(range(n)) for n in (3, 5, 8, 8, 10, 10, 10)])
    assert all(len(b) * max(map(len, b)) <= 40 for b in batches)
    assert engine.max_batch == CPU_BUDGET[0]


# -- report ----------------------------------------------------------------------
@pytest.mark.slow
def test_report_loads_each_model_once_and_times_each_measure(tiny_gpt2_dir: Path,
                                                             data_dir: Path, tmp_path: Path,
                                                             monkeypatch) -> None:
    from typer.testing import CliRunner

    from genderscope.cli.app import app

    calls = _count_loads(monkeypatch, CausalLM)
    args = ["report", "--model", str(tiny_gpt2_dir), "--quick", "--measure", "crows-pairs",
            "--measure", "probe", "--measure", "winobias", "--data", str(data_dir),
            "--store", str(tmp_path / "s.sqlite"), "--no-progress"]
    runner = CliRunner()
    first = runner.invoke(app, [*args, "--out", str(tmp_path / "a.html")],
                          terminal_width=250)
    assert first.exit_code == 0, first.output
    assert calls["n"] == 1  # three measures, one loaded model
    lines = [ln for ln in first.output.splitlines() if "crows-pairs" in ln or "probe" in ln]
    assert len(lines) >= 2 and all(re.search(r"\d+\.\d s\s*│?\s*$", ln) for ln in lines[-2:])
    again = runner.invoke(app, [*args, "--no-reuse", "--out", str(tmp_path / "b.html")],
                          terminal_width=250)
    assert again.exit_code == 0, again.output
    assert calls["n"] == 1  # measures re-run from the score cache: no load at all


# -- memoised aggregates -----------------------------------------------------------------
def test_aggregates_memo_round_trips_and_skips_the_statistics(tiny_bert_dir, store,
                                                              monkeypatch) -> None:
    import pandas as pd

    from genderscope.datasets.bec_pro import generate
    from genderscope.measures import bec_pro

    rows = generate("en")[:120]
    adapter = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    first = bec_pro.run(adapter, rows, n_resamples=300)

    def boom(*a, **k):
        raise AssertionError("statistics recomputed")

    monkeypatch.setattr(bec_pro, "summarize", boom)
    again = bec_pro.run(MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store),
                        rows, n_resamples=300)
    assert json.dumps(again.summary, sort_keys=True) == json.dumps(first.summary,
                                                                   sort_keys=True)
    for name, table in first.tables.items():
        pd.testing.assert_frame_equal(again.tables[name], table)
    with pytest.raises(AssertionError, match="recomputed"):  # other params: computed
        bec_pro.run(adapter, rows, n_resamples=301)


def test_aggregates_memo_is_exact_and_keyed_by_content(store) -> None:
    import pandas as pd

    from genderscope.measures._memo import aggregates

    class Holder:
        pass

    holder = Holder()
    holder.store = store  # type: ignore[attr-defined]
    items = pd.DataFrame({"x": [0.1 + 0.2, 1 / 3, float("nan")], "g": ["a", "b", "a"],
                          "n": np.array([1, 2, 3], dtype=np.int64), "ok": [True, False, True]})
    summary = {"mean": np.float64(1 / 3), "n": np.int64(3), "nan": float("nan"),
               "nested": {"v": [np.float64(2 / 3)]}}
    tables = {"t": items.copy()}
    calls = {"n": 0}

    def compute():
        calls["n"] += 1
        return summary, tables

    aggregates(holder, "m", items, {"seed": 0}, compute)
    got_summary, got_tables = aggregates(holder, "m", items, {"seed": 0}, compute)
    assert calls["n"] == 1
    assert got_summary["mean"] == 1 / 3 and got_summary["n"] == 3
    assert np.isnan(got_summary["nan"]) and got_summary["nested"]["v"] == [2 / 3]
    pd.testing.assert_frame_equal(got_tables["t"], items)
    changed = items.assign(x=[0.3, 1 / 3, float("nan")])
    aggregates(holder, "m", changed, {"seed": 0}, compute)
    aggregates(holder, "m", items, {"seed": 1}, compute)
    assert calls["n"] == 3


def test_bec_pro_figure_is_not_redrawn_when_unchanged(tmp_path, monkeypatch) -> None:
    import matplotlib.figure

    from genderscope.measures import bec_pro_plot
    from genderscope.results import Result

    table = pd.DataFrame({"prof_group": ["male", "male"], "gender": ["male", "female"],
                          "n": [3, 3], "mean": [0.5, -0.25], "ci_low": [0.1, -0.6],
                          "ci_high": [0.9, 0.1]})
    res = Result("bec-pro", {}, pd.DataFrame(), metadata={"model": {"source": "m"}},
                 tables={"by_group": table})
    first = bec_pro_plot.plot(res, tmp_path / "association")
    assert all(p.stat().st_size > 0 for p in first)

    def boom(*a, **k):
        raise AssertionError("redrawn")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", boom)
    assert bec_pro_plot.plot(res, tmp_path / "association") == first  # same figure: kept
    changed = Result("bec-pro", {}, pd.DataFrame(), metadata={"model": {"source": "m"}},
                     tables={"by_group": table.assign(ci_high=[0.95, 0.1])})
    with pytest.raises(AssertionError, match="redrawn"):
        bec_pro_plot.plot(changed, tmp_path / "association")
    with pytest.raises(AssertionError, match="redrawn"):
        bec_pro_plot.plot(res, tmp_path / "association", title="another title")
