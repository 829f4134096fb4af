"""Repulsion-Attraction-Neutralization (vector_debias/ran.py, vector_debias/ran_torch.py) on
hand-made vectors: the paper variant is Adam on the paper's objective (checked against
torch autograd), the WEFE variant returns the attraction anchor, and ``genderscope debias
ran`` writes vectors / refuses bad options. Agreement with WEFE 1.0.1's RAN on GloVe:
tests/agreement/test_wefe_agreement.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genderscope.models.vectors import WordVectors, load_vectors
from genderscope.vector_debias import DebiasLists
from genderscope.vector_debias.ran import ran_debias, ran_paper_chunk, repulsion_sets
from tests.measures.test_embedding_metrics import _files, _gender_world, _lists, _main

GENDERED = ("he", "she", "man", "woman", "boy", "girl")


def _world(n: int = 40, dim: int = 8, seed: int = 5) -> tuple[WordVectors, DebiasLists]:
    rng = np.random.default_rng(seed)
    words = [*GENDERED, *(f"w{i}" for i in range(n))]
    vecs = WordVectors(rng.normal(size=(len(words), dim)).astype(np.float32), words,
                       fingerprint=f"r{seed}")
    lists = DebiasLists((("he", "she"), ("man", "woman"), ("boy", "girl")), (), GENDERED)
    return vecs, lists


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_paper_variant_is_adam_on_the_paper_objective() -> None:
    """The numpy gradients and Adam equal torch autograd + torch.optim.Adam (float64),
    word by word, on the objective l1 Fr + l2 Fa + l3 Fn."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    unit = _unit(rng.normal(size=(30, 5))).astype(np.float32)
    g = _unit(rng.normal(size=(1, 5)))[0]
    rows = np.arange(6)
    repel = [np.array([7, 8, 9]), np.array([], dtype=int), np.array([10]),
             np.array([11, 12, 13, 14]), np.array([15, 16]), np.array([29])]
    weights, lr, epochs = (0.2, 0.5, 0.3), 0.05, 60
    ours = ran_paper_chunk(unit[rows].astype(np.float64), repel, unit, g, weights=weights,
                           lr=lr, epochs=epochs)
    for i, r in zip(rows, repel, strict=True):
        w = torch.tensor(unit[i], dtype=torch.float64)
        s = torch.tensor(unit[r], dtype=torch.float64)
        gt = torch.tensor(g)
        x = torch.nn.Parameter(w.clone())
        opt = torch.optim.Adam([x], lr=lr)
        for _ in range(epochs):
            opt.zero_grad()
            cos = torch.nn.functional.cosine_similarity
            loss = weights[1] * torch.abs(cos(x, w, dim=0) - 1) / 2 \
                + weights[2] * torch.abs(x @ gt)
            if len(r):
                loss = loss + weights[0] * torch.abs(cos(x[None, :], s, dim=1)).mean()
            loss.backward()
            opt.step()
        want = (x / x.norm()).detach().numpy()
        assert np.allclose(ours[i], want, atol=1e-7), (i, ours[i], want)
    assert not np.allclose(ours, unit[rows], atol=1e-3)  # it moved


def test_repulsion_sets_are_biased_nearest_neighbours() -> None:
    vecs, lists = _world()
    from genderscope.vector_debias.hard import gender_direction
    from genderscope.vector_debias.ran import unit_float32

    unit = unit_float32(vecs)
    g = gender_direction(vecs, lists.definitional)[0]
    rows = np.array([10, 20])
    sets = repulsion_sets(unit, rows, g, n_neighbours=5, theta=0.05)
    u = unit.astype(np.float64)
    for row, got in zip(rows, sets, strict=True):
        sims = u @ u[row]
        sims[row] = -np.inf
        near = np.argsort(-sims)[:5]
        perp = u - np.outer(u @ g, g)
        beta = (u[near] @ u[row] - perp[near] @ perp[row] / (
            np.linalg.norm(perp[near], axis=1) * np.linalg.norm(perp[row]))) / (u[near] @ u[row])
        assert list(got) == [int(n) for n, b in zip(near, beta, strict=True) if b > 0.05]


def test_paper_variant_neutralises_targets_and_keeps_the_rest() -> None:
    vecs, lists = _world()
    out, fit = ran_debias(vecs, lists, variant="paper", targets=vecs.words[6:26])
    g = fit.direction
    unit = _unit(vecs.matrix)
    assert np.allclose(np.linalg.norm(out, axis=1), 1, atol=1e-6)
    assert np.allclose(out[:6], unit[:6], atol=1e-7)  # gender-specific: only normalised
    assert np.allclose(out[26:], unit[26:], atol=1e-7)  # not a target: only normalised
    before, after = np.abs(unit[6:26] @ g).mean(), np.abs(out[6:26] @ g).mean()
    assert after < 0.5 * before, (before, after)
    assert np.einsum("ij,ij->i", out[6:26], unit[6:26]).min() > 0.5  # attracted to w
    assert fit.extra["n_debiased"] == 20 and fit.extra["variant"] == "paper"


def test_wefe_variant_returns_the_attraction_anchor() -> None:
    """WEFE's swapped vectors: the returned vector is only moved by the attraction term,
    so without it nothing changes, while the paper variant still neutralises."""
    pytest.importorskip("torch")
    vecs, lists = _world(n=10)
    targets = vecs.words[6:]
    no_attraction = (0.5, 0.0, 0.5)
    wefe, _ = ran_debias(vecs, lists, variant="wefe", targets=targets, weights=no_attraction,
                         epochs=30)
    paper, _ = ran_debias(vecs, lists, variant="paper", targets=targets,
                          weights=no_attraction, epochs=30)
    unit = _unit(vecs.matrix)
    assert np.allclose(wefe, unit, atol=1e-6)
    assert not np.allclose(paper[6:], unit[6:], atol=1e-2)
    moved, fit = ran_debias(vecs, lists, variant="wefe", targets=targets, epochs=30)
    assert not np.allclose(moved[6:], unit[6:], atol=1e-2)  # with attraction it moves


def test_cli_debias_ran_writes_vectors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    vec = _gender_world(tmp_path)
    code, err = _main(["debias", "ran", "--vectors", str(vec), "--out", str(tmp_path / "o"),
                       "--no-evaluate", "--n-words", "0", "--store",
                       str(tmp_path / "s.sqlite"),
                       *_lists(tmp_path, [["he", "she"], ["man", "woman"], ["boy", "girl"]])],
                      capsys, monkeypatch)
    assert code == 0, err
    rec = json.loads((tmp_path / "o" / "debias.json").read_text())
    assert rec["method"] == "ran" and rec["fit"]["variant"] == "paper"
    gs = json.loads((tmp_path / "gs.json").read_text())
    assert rec["fit"]["n_debiased"] == 12 - len(gs)
    after, before = load_vectors(tmp_path / "o" / "vectors.bin"), load_vectors(vec)
    assert after.words == before.words
    assert not np.allclose(after.vectors(["nurse"]), _unit(before.vectors(["nurse"])),
                           atol=1e-3)


@pytest.mark.parametrize(("method", "extra", "expect"), [
    ("ran", ["--variant", "bogus"], "--variant must be"),
    ("double-hard", ["--n-words", "0"], "--n-words must be at least 1")])
def test_cli_debias_bad_options_exit_2_one_line(method: str, extra: list[str], expect: str,
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    vec = _gender_world(tmp_path)
    before = _files(tmp_path)
    code, err = _main(["debias", method, "--vectors", str(vec), "--out", str(tmp_path / "o"),
                       *extra], capsys, monkeypatch)
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert code == 2 and len(lines) == 1 and expect in lines[0], err
    assert not (tmp_path / "o").exists() and _files(tmp_path) == before


@pytest.mark.parametrize(("case", "expect"), [("one_pair", "at least 2 pairs"),
                                              ("nan_rows", "NaN")])
def test_cli_debias_ran_bad_input_exit_2_nothing_written(
        case: str, expect: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    vec = _gender_world(tmp_path, nan=case == "nan_rows")
    pairs = [["he", "she"]] if case == "one_pair" else [["he", "she"], ["man", "woman"]]
    args = _lists(tmp_path, pairs)
    before = _files(tmp_path)
    code, err = _main(["debias", "ran", "--vectors", str(vec), "--out", str(tmp_path / "o"),
                       "--no-evaluate", "--store", str(tmp_path / "s.sqlite"), *args],
                      capsys, monkeypatch)
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert code == 2 and len(lines) == 1 and expect in lines[0], err
    assert not (tmp_path / "o").exists()
    assert [f for f in _files(tmp_path) if not f.startswith("s.sqlite")] == before
