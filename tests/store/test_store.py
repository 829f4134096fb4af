"""SQLite store: runs round-trip, schema versioning, interrupted runs resume from the cache."""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

from genderscope.errors import GenderscopeError
from genderscope.models.base import FillQuery
from genderscope.models.masked import MaskedLM
from genderscope.results import Result
from genderscope.store import Store


def test_run_round_trip(store: Store) -> None:
    res = Result("probe", {"x": {"estimate": 1.5, "ci_low": 1.0, "ci_high": 2.0}},
                 pd.DataFrame({"a": [1, 2], "b": ["u", "v"]}),
                 {"model": {"fingerprint": "sha256:abc"}, "params": {"k": 1}})
    run_id = store.record_run(res)
    back = store.load_run(run_id[:12])
    assert back.summary == res.summary
    pd.testing.assert_frame_equal(back.items, res.items)
    assert store.list_runs()[0]["model"] == "sha256:abc"
    with pytest.raises(GenderscopeError, match="no run"):
        store.load_run("nope")


def test_wal_mode_and_newer_schema_refused(tmp_path) -> None:
    path = tmp_path / "s.sqlite"
    s = Store(path)
    assert s._con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    s.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    con.commit()
    con.close()
    with pytest.raises(GenderscopeError, match="newer"):
        Store(path)


def test_arrays_round_trip(store: Store) -> None:
    store.put_arrays("m", "ns", {"k": np.array([1.5, np.nan, -2.0])})
    got = store.get_arrays("m", "ns", ["k", "missing"])
    assert list(got) == ["k"]
    np.testing.assert_array_equal(got["k"], np.array([1.5, np.nan, -2.0]))


WORDS = ["tea", "coffee", "music", "dogs", "cats", "rain", "snow", "books", "films",
         "maps", "trains", "boats", "games", "bread", "fish", "rice", "soup", "cake",
         "milk", "wine", "beer", "salt", "sugar", "fruit", "eggs", "cheese", "meat",
         "apples", "grapes", "lemons"]


@pytest.mark.slow
def test_interrupted_run_resumes_from_cache(tiny_bert_dir, store: Store, monkeypatch) -> None:
    """A run killed after its first chunk keeps that chunk; the rerun computes only the rest."""
    queries = [FillQuery(f"{{target}} likes {w}.", p) for w in WORDS for p in ("he", "she")]
    adapter = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    real_run = adapter.engine.run
    calls = {"n": 0}

    def flaky(reqs, on_batch=None):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_run(reqs, on_batch)

    monkeypatch.setattr(adapter.engine, "run", flaky)
    import genderscope.models.hf as hf

    original = hf.LanguageModelAdapter._cached

    def small_chunks(self, namespace, keys, plan, *, progress, label, chunk=None):
        return original(self, namespace, keys, plan, progress=progress, label=label, chunk=4)

    monkeypatch.setattr(hf.LanguageModelAdapter, "_cached", small_chunks)
    with pytest.raises(KeyboardInterrupt):
        adapter.fill_logprobs(queries)
    # the first chunk of 4 sentences answered both person words of each: 8 answers kept
    assert store.count_scores() == 8
    fresh = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    resumed = fresh.fill_logprobs(queries)
    assert fresh.engine.n_sequences == len(WORDS) - 4  # the 4 cached sentences were not rerun
    ref = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu").fill_logprobs(queries)
    np.testing.assert_allclose(resumed, ref, atol=1e-6)


@pytest.mark.slow
def test_shared_input_runs_once_across_chunks(tiny_bert_dir) -> None:
    """Keys far apart that share a masked sentence (every sentence's "he" query first,
    then every "she" query) run that sentence once, not once per chunk of keys."""
    templates = [f"{{target}} likes {a} and {b}." for a in WORDS for b in WORDS[:21] if a != b]
    queries = [FillQuery(t, "he") for t in templates] + [FillQuery(t, "she") for t in templates]
    assert len(templates) > 512  # more than one chunk of keys apart
    adapter = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu")
    lp = adapter.fill_logprobs(queries)
    assert adapter.engine.n_sequences == len(templates)
    one = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu")
    np.testing.assert_allclose(lp[[0, len(templates) + 7]],
                               one.fill_logprobs([queries[0], queries[len(templates) + 7]]),
                               atol=1e-5)
