"""The downstream probe (issue 39, item 4): a coherence probe on frozen sentence features,
before and after LM debiasing, paired over held-out sentences."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from genderscope.measures.downstream import fit_predict, split_contexts


def test_split_is_seeded_and_model_free() -> None:
    a, b = split_contexts(100, 0.3, 7), split_contexts(100, 0.3, 7)
    assert (a == b).all() and a.sum() == 30
    assert (split_contexts(100, 0.3, 8) != a).any()
    assert split_contexts(2, 0.9, 0).sum() == 1  # at least one context on each side


def test_probe_against_an_independent_pipeline() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 6))
    y = (x[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    got = fit_predict(x[:80], y[:80], x[80:])
    ref = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=5000)).fit(
        x[:80], y[:80]).predict(x[80:])
    assert (got == ref).all() and (got == y[80:]).mean() > 0.7


@pytest.fixture(scope="module")
def gpt2_and_folders(tmp_path_factory: pytest.TempPathFactory, data_dir: Path):
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.testing import build_gpt2

    root = tmp_path_factory.mktemp("downstream")
    base = build_gpt2(root / "gpt2", n_positions=512)
    with pytest.MonkeyPatch.context() as mp:  # module scope: before the autouse fixture
        mp.setenv("GENDERSCOPE_DATA", str(data_dir.resolve()))
        debias_lm("sentence-debias", base, root / "sd", limit=60, max_pairs=40)
        debias_lm("self-debias", base, root / "selfdebias")
    return base, root / "sd", root / "selfdebias"


def test_before_and_after_debiasing_paired(gpt2_and_folders, data_dir: Path,
                                          tmp_path: Path) -> None:
    import genderscope as gs
    from genderscope.models.lm_encoder import LMSentenceEncoder
    from genderscope.reporting.compare import differences
    from genderscope.reporting.registry import Context
    from genderscope.reporting.runner import lm_subject, run_report
    from genderscope.store import Store

    base, sd, selfdebias = gpt2_and_folders
    opts = {"limit": 40, "data": data_dir}
    runs = {m: gs.run("downstream", m, out=tmp_path / m.name, **opts)
            for m in (base, sd, selfdebias)}
    r = runs[base]
    df = r.items
    assert len(df) == r.summary["n_test_sentences"] == 3 * r.summary["n_test_contexts"] == 36
    # accuracy recomputed from the held-out rows, and the predictions from the features
    assert r.summary["accuracy"]["estimate"] == pytest.approx(100 * df.correct.mean())
    assert r.summary["accuracy"]["ci_low"] <= r.summary["accuracy"]["estimate"] <= \
        r.summary["accuracy"]["ci_high"]
    from genderscope.core.registry import get
    from genderscope.stats.design_words import statistics_of

    method = r.summary["accuracy"]["method"].lower()  # named by the declared sentence
    assert method == "design-effect wilson" and method in statistics_of(get("downstream")).lower()
    every = gs.run("downstream", base, out=tmp_path / "again", **opts)
    assert every.items.predicted.tolist() == df.predicted.tolist()
    # the same held-out sentences for every model; the projection changes the features
    for m in (sd, selfdebias):
        assert runs[m].items.item_id.tolist() == df.item_id.tolist()
    enc_base = LMSentenceEncoder.load(base).encode(df.sentence.tolist()[:6])
    enc_sd = LMSentenceEncoder.load(sd).encode(df.sentence.tolist()[:6])
    assert np.abs(enc_base - enc_sd).max() > 1e-4
    # Self-Debias leaves hidden states alone: the same predictions (documented)
    assert runs[selfdebias].items.predicted.tolist() == df.predicted.tolist()
    # the report pairs the two models sentence by sentence, resampling contexts
    store = Store(tmp_path / "s.sqlite")
    data = run_report([lm_subject(str(base), store), lm_subject(str(sd), store)],
                      Context(lang="en", quick=True, data_dir=data_dir), store,
                      names=["downstream"])
    assert [s.status for s in data.sections] == ["ok", "ok"], [s.reason for s in data.sections]
    (diff,) = differences(data, n_resamples=200)
    assert diff.measure == "downstream" and diff.ci_unit == "contexts"
    assert diff.n_items == 3 * 27  # --quick: 90 contexts, 27 held out
    assert diff.difference == pytest.approx(diff.estimate_a - diff.estimate_b)  # a: base
    assert math.isfinite(diff.ci_low) and diff.ci_low <= diff.difference <= diff.ci_high
    store.close()


def test_downstream_passes_the_conformance_suite(gpt2_and_folders, data_dir: Path) -> None:
    from genderscope.models.loading import load_lm
    from genderscope.testing import check_measure

    assert check_measure("downstream", example={"model": load_lm(gpt2_and_folders[0]),
                                                "options": {"limit": 12, "data": data_dir}}) \
        == ["declared", "strict-api", "cli", "reuse"]
