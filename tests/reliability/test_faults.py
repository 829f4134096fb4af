"""Issue 24, items 2, 3 and 6: faults end in a clean error or a correct recompute, with
nothing already stored lost. Disk full is RLIMIT_FSIZE lowered in this process (writes past
the limit fail with EFBIG; SIGXFSZ ignored), so no tmpfs mount is needed."""

from __future__ import annotations

import contextlib
import hashlib
import resource
import signal
import sqlite3
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import genderscope as gs
from genderscope.errors import GenderscopeError
from genderscope.results import Result
from genderscope.store import Store


@contextlib.contextmanager
def disk_full(limit: int = 0) -> Iterator[None]:
    """No file of this process may grow past ``limit`` bytes inside the block."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _result(x: float = 1.0, key: str | None = None) -> Result:
    meta = {"model": {"fingerprint": "f"}, **({"cache_key": key} if key else {})}
    return Result("toy", {"x": x}, pd.DataFrame({"a": range(200)}), meta)


# -- disk full -----------------------------------------------------------------------------
def _garble_after_schema(path: Path, page: int = 4096) -> None:
    """Fold the store's WAL into its file, then overwrite every page after the third
    with 0xa5 bytes (header and schema pages intact): a garbled store page."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    raw = bytearray(path.read_bytes())
    raw[3 * page:] = b"\xa5" * (len(raw) - 3 * page)
    path.write_bytes(bytes(raw))


def test_disk_full_for_out_keeps_the_old_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _result(1.0).save(out)
    before = _files(tmp_path)
    with disk_full(), pytest.raises(GenderscopeError, match="cannot write"):
        _result(2.0).save(out)
    assert _files(tmp_path) == before  # old output intact, no temporary file left


def test_disk_full_for_the_store_loses_nothing(tmp_path: Path) -> None:
    st = Store(tmp_path / "s.sqlite")
    kept = st.record_run(_result(1.0))
    size = max(p.stat().st_size for p in tmp_path.iterdir())
    with disk_full(size), pytest.raises(GenderscopeError, match="cannot record"):
        for _ in range(50):  # WAL pages grow until the limit is hit
            st.record_run(_result(2.0))
    st.close()
    st = Store(tmp_path / "s.sqlite")
    assert st.load_run(kept).summary == {"x": 1.0}
    st.close()


def test_disk_full_for_the_hash_cache_still_gives_the_right_hash(tmp_path: Path,
                                                                 monkeypatch) -> None:
    from genderscope.models.memo import cached_sha256

    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache" / "hashes").mkdir(parents=True)
    f = tmp_path / "weights.bin"
    f.write_bytes(b"weights" * 1000)
    with disk_full():
        digest = cached_sha256(f)
    assert digest == hashlib.sha256(f.read_bytes()).hexdigest()
    assert list((tmp_path / "cache" / "hashes").iterdir()) == []  # no empty memo left
    assert cached_sha256(f) == digest


def test_disk_full_during_a_debias_checkpoint_keeps_the_last_one(tiny_bert_dir,
                                                                 tmp_path: Path) -> None:
    from genderscope.lm_debias.finetune import FinetuneConfig, fine_tune

    out = tmp_path / "ft"
    limit: list[contextlib.ExitStack] = []

    def on_step(done: int, total: int, loss: float) -> None:
        if done == 2:  # step 1's checkpoint is written; step 2's hits a full disk
            stack = contextlib.ExitStack()
            stack.enter_context(disk_full(1000))
            limit.append(stack)

    cfg = FinetuneConfig(lr=1e-3, epochs=1, max_steps=4, save_every=1)
    texts = ["He is a doctor.", "She is a nurse.", "He cooks.", "She drives."]
    try:
        with pytest.raises(GenderscopeError, match="checkpoint"):
            fine_tune(str(tiny_bert_dir), texts, out, config=cfg, progress=on_step)
    finally:
        for stack in limit:
            stack.close()
    steps = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert steps == ["run.json", "step-1"]
    manifest = fine_tune(str(tiny_bert_dir), texts, out, config=cfg)  # resumes
    assert manifest["resumed_from_step"] == 1


# -- caches that cannot lie ---------------------------------------------------------------
def test_empty_hash_memo_is_recomputed_with_one_warning(tmp_path: Path, monkeypatch) -> None:
    from genderscope.models import memo

    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    a, b = tmp_path / "a.gguf", tmp_path / "b.gguf"
    a.write_bytes(b"model A")
    b.write_bytes(b"model B")
    memo.cached_sha256(a), memo.cached_sha256(b)
    for m in (tmp_path / "cache" / "hashes").iterdir():
        m.write_text("")  # a full disk truncated them
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        da, db = memo.cached_sha256(a), memo.cached_sha256(b)
    assert da == hashlib.sha256(b"model A").hexdigest() != db
    assert len(seen) == 2 and "damaged" in str(seen[0].message)
    assert not memo.usable_fingerprint("sha256:") and memo.usable_fingerprint("sha256:" + da)


def test_damaged_adapter_memo_is_ignored(tmp_path: Path) -> None:
    from genderscope.models.memo import MEMO_MODEL, read_memo

    st = Store(tmp_path / "s.sqlite")
    st.put_texts(MEMO_MODEL, "lm", {"k": "{not json"})
    st.put_texts(MEMO_MODEL, "lm", {"e": '{"fingerprint": "sha256:"}'})
    with pytest.warns(UserWarning, match="damaged"):
        assert read_memo(st, "lm", "k") is None
    with pytest.warns(UserWarning, match="damaged"):
        assert read_memo(st, "lm", "e") is None
    st.close()


def test_flipped_bytes_in_the_cached_weights_are_recomputed(tmp_path: Path,
                                                            monkeypatch) -> None:
    import torch

    from genderscope.models.causal import CausalLM
    from genderscope.models.testing import build_tiny_gguf

    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    gguf = build_tiny_gguf(tmp_path / "tiny.gguf")
    first = CausalLM.from_pretrained(gguf, device="cpu")
    (kept,) = (tmp_path / "cache" / "gguf-models").iterdir()
    weights = kept / "model.safetensors"
    raw = bytearray(weights.read_bytes())
    raw[-5] ^= 0xFF  # same size, one weight changed
    weights.write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match="does not match its checksums"):
        second = CausalLM.from_pretrained(gguf, device="cpu")
    a, b = first.model.state_dict(), second.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert (kept / "model.safetensors").read_bytes() != bytes(raw)  # the cache was rewritten


# -- a damaged store ------------------------------------------------------------------------
def test_garbled_store_page_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    import sys

    from genderscope.cli.app import main

    path = tmp_path / "s.sqlite"
    st = Store(path)
    for i in range(30):
        st.record_run(_result(float(i)))
    st.close()
    _garble_after_schema(path)
    monkeypatch.setattr(sys, "argv", ["genderscope", "runs", "export", "--out",
                                      str(tmp_path / "e.csv"), "--what", "items",
                                      "--store", str(path)])
    with pytest.raises(SystemExit) as exc:
        main()
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "e.csv").exists()


# -- concurrent identical runs ---------------------------------------------------------------
def test_concurrent_identical_runs_record_one_row(tmp_path: Path) -> None:
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from bad_inputs import make_workspace

    ws = make_workspace(tmp_path / "ws")  # vec.txt (word vectors) and wt.json (a WEAT test)
    store = tmp_path / "s.sqlite"
    Store(store).close()
    assert json.loads((ws / "wt.json").read_text())
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def one() -> None:
        try:
            st = Store(store)
            real, calls = st.find_run, []

            def find(key: str) -> str | None:  # all four look before any records
                calls.append(key)
                if len(calls) == 1:
                    barrier.wait(timeout=60)
                return real(key)

            st.find_run = find  # type: ignore[method-assign]
            gs.run("weat", str(ws / "vec.txt"), store=st, test=str(ws / "wt.json"),
                   permutations=10_000)
            st.close()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    st = Store(store)
    assert len(st.list_runs("weat")) == 1
    st.close()


def test_garbled_score_cache_is_a_genderscope_error_in_the_api(tmp_path: Path) -> None:
    """Through the Python API (no CLI to catch it), a damaged score-cache page is a
    GenderscopeError naming the store, not a raw sqlite3 error."""
    from genderscope.errors import GenderscopeError

    path = tmp_path / "s.sqlite"
    st = Store(path)
    st.put_scores("m", "ns", {f"k{i}": float(i) for i in range(3000)})
    st.close()
    _garble_after_schema(path)
    st = Store(path)
    try:
        with pytest.raises(GenderscopeError, match="cannot be read"):
            st.get_scores("m", "ns", [f"k{i}" for i in range(3000)])
        with pytest.raises(GenderscopeError, match=str(path.name)):
            st.put_scores("m", "ns", {f"n{i}": 1.0 for i in range(3000)})
    finally:
        st.close()
