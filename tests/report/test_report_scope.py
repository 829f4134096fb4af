"""Report defaults by device: in full on a GPU (or --full), seeded subsets on a CPU.

No GPU is needed: the device check is injected."""

from __future__ import annotations

from pathlib import Path

import pytest

from genderscope.errors import GenderscopeError
from genderscope.reporting.entry import Context
from genderscope.reporting.runner import choose_scope


def _never() -> bool:
    raise AssertionError("the device was given; no CUDA check expected")


@pytest.mark.parametrize(("device", "cuda", "full", "quick", "expected"), [
    (None, True, None, False, "full"),      # a GPU is there: every benchmark in full
    (None, False, None, False, "subset"),   # CPU only: seeded subsets
    ("cuda:0", True, None, False, "full"),  # a CUDA device asked for is checked
    ("cpu", None, None, False, "subset"),   # CPU asked for on a GPU machine
    ("cpu", None, True, False, "full"),     # --full on a CPU
    ("cuda", True, False, False, "subset"),  # --subsets on a GPU
    (None, True, None, True, "quick"),      # --quick wins over the device
])
def test_choose_scope(device, cuda, full, quick, expected) -> None:
    probe = _never if cuda is None else (lambda: cuda)
    assert choose_scope(device, full=full, quick=quick, cuda_available=probe) == expected


def test_cuda_that_is_not_there_is_refused_cached_or_not(tiny_gpt2_dir: Path, data_dir: Path,
                                                        tmp_path: Path) -> None:
    """--device cuda without CUDA: one clear error, also when every run is already stored
    (it used to succeed silently from the store and call the scope 'a GPU')."""
    from genderscope.api import report

    store = tmp_path / "s.sqlite"
    args = dict(measures=["stereoset"], data=data_dir, quick=True, store=store)
    first = report([str(tiny_gpt2_dir)], tmp_path / "a.html", device="cpu", **args)
    assert first.sections[0].status == "ok"
    for name in ("b.html", "c.html"):  # cached (same key) and, with --full, not cached
        with pytest.raises(GenderscopeError, match="no CUDA device is available"):
            report([str(tiny_gpt2_dir)], tmp_path / name, device="cuda",
                   cuda_available=lambda: False, **args)
        args["quick"] = False
        args["full"] = True
    with pytest.raises(GenderscopeError, match="no CUDA device"):
        choose_scope("cuda:0", cuda_available=lambda: False)


def test_quick_and_full_conflict() -> None:
    with pytest.raises(GenderscopeError):
        choose_scope(None, full=True, quick=True, cuda_available=lambda: False)


def test_card_sizes_follow_the_scope() -> None:
    from genderscope.reporting.cards import crows_pairs as crows_pairs_card
    from genderscope.reporting.cards import stereoset as stereoset_card
    from genderscope.reporting.cards import winobias as winobias_card

    cpu, quick, full = Context(), Context(quick=True), Context(full=True)
    assert winobias_card.subset_size(cpu) == 300 and winobias_card.subset_size(quick) == 40
    assert stereoset_card.subset_size(cpu) == 150
    assert crows_pairs_card.subset_size(cpu) is None  # all 262 gender pairs anyway
    for card in (winobias_card, stereoset_card, crows_pairs_card):
        assert card.subset_size(full) is None


@pytest.mark.slow
@pytest.mark.parametrize("on_gpu", [False, True])
def test_report_items_by_device(on_gpu: bool, tiny_gpt2_dir: Path, data_dir: Path,
                                tmp_path: Path) -> None:
    """The same call: a GPU (injected) scores all 255 StereoSet gender contexts, a CPU the
    seeded 150; the page says how many items and that --full exists."""
    from genderscope.api import report

    out = tmp_path / "r.html"
    data = report([str(tiny_gpt2_dir)], out, measures=["stereoset"], data=data_dir,
                  cuda_available=lambda: on_gpu)
    sec = data.sections[0]
    assert sec.status == "ok", sec.reason
    sub = sec.result.metadata["data"]["subset"]
    assert sub["of"] == 255
    assert sub["n"] == (255 if on_gpu else 150)
    assert data.ctx.full is on_gpu
    page = out.read_text(encoding="utf-8")
    assert ("all 255 " if on_gpu else "150 of 255 ") in page
    assert "--full" in page


@pytest.mark.slow
def test_seed_picks_the_subset_and_is_recorded(tiny_gpt2_dir: Path, data_dir: Path,
                                               tmp_path: Path) -> None:
    """--seed draws the report's subsets (and seeds its bootstrap); it is recorded per run,
    and the same seed reuses the same run."""
    from genderscope.api import report

    def ids(seed: int, name: str):
        data = report([str(tiny_gpt2_dir)], tmp_path / name, measures=["stereoset"],
                      data=data_dir, quick=True, seed=seed)
        sec = data.sections[0]
        assert sec.status == "ok", sec.reason
        assert sec.result.metadata["seed"] == seed
        assert sec.result.metadata["data"]["subset"]["seed"] == seed
        return sorted(sec.result.items.iloc[:, 0].astype(str)), sec.reused

    a, _ = ids(0, "a.html")
    b, _ = ids(1, "b.html")
    again, reused = ids(0, "c.html")
    assert a != b
    assert again == a and reused


def test_docs_api_example_is_the_readme_one() -> None:
    """docs/api.md shows (part of) the README example, which tests/api/test_api.py runs."""
    import re

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", readme[readme.index("### From Python"):],
                      re.S).group(1)
    doc = (root / "docs" / "api.md").read_text(encoding="utf-8")
    first = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    assert first.strip() and first.strip() in block
