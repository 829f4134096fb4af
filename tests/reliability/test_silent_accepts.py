"""Silent accepts of issue 37 (item 6), each refused by name: exit code 2 and one
``error:`` line from the CLI (a ``GenderscopeError`` from the API), nothing changed on
disk (the store may only gain a model's memo, a cache); and ``debias hard|hsr|ran|
multiclass-hard`` publish ``vectors.bin`` only after the evaluation ran.

Cases run as tests/bad_inputs.py runs its own (:func:`bad_inputs.run_case`) in a copy of
its workspace, with the files below added."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from bad_input_case import ApiCase, Case  # noqa: E402
from bad_inputs import make_workspace, run_case  # noqa: E402

GENDER_WORDS = ["he", "she", "man", "woman", "king", "queen", "nurse", "doctor", "boy", "girl",
                "table", "engineer"]
LISTS = ("--definitional", "def.json", "--equalize", "eq.json", "--gender-specific", "gs.json")
DEBIAS_EVAL = ("--test", "gt.json", "--store", "store.sqlite", *LISTS)


class _Exit:
    """Unpickling it calls sys.exit(3): a pickled classifier that exits."""

    def __reduce__(self):
        return (sys.exit, (3,))


def _word_vectors(path: Path, rows: dict[str, list[float]]) -> None:
    path.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in v) + "\n"
                            for w, v in rows.items()), encoding="utf-8")


def _test_file(path: Path, x: list[str], y: list[str], a: list[str], b: list[str]) -> None:
    path.write_text(json.dumps({k: {"category": k, "examples": ex} for k, ex in
                                (("targ1", x), ("targ2", y), ("attr1", a), ("attr2", b))}),
                    encoding="utf-8")


def add_files(root: Path) -> Path:
    """The files the cases read, beside tests/bad_inputs.py's workspace."""
    rng = np.random.default_rng(3)
    rows = {w: rng.normal(size=6).round(4).tolist() for w in GENDER_WORDS}
    _word_vectors(root / "gw.txt", rows)  # gender words, 6 dimensions
    _word_vectors(root / "gw_zero.txt", {**rows, "doctor": [0.0] * 6})
    _word_vectors(root / "gw_1d.txt", {w: v[:1] for w, v in rows.items()})
    three = (["man", "boy", "king"], ["woman", "girl", "queen"], ["doctor", "engineer", "he"],
             ["nurse", "table", "she"])
    _test_file(root / "gt.json", *three)  # three words in every set
    _test_file(root / "gt2.json", *three[:2], ["doctor", "engineer"], ["nurse", "table"])
    _test_file(root / "gt1.json", *three[:2], ["doctor"], ["nurse"])
    (root / "def.json").write_text(json.dumps([["he", "she"], ["man", "woman"],
                                               ["boy", "girl"]]))
    (root / "eq.json").write_text(json.dumps([["king", "queen"]]))
    (root / "gs.json").write_text(json.dumps(["he", "she", "king", "queen"]))
    (root / "clf_exit_import.py").write_text("raise SystemExit(3)\n\n\ndef predict(texts):\n"
                                             "    return [[0.5, 0.5]] * len(texts)\n")
    (root / "clf_exit_factory.py").write_text("def make():\n    raise SystemExit(3)\n")
    (root / "clf_exit.pkl").write_bytes(pickle.dumps(_Exit()))
    return root


RUN_EXIT = ("run", "counterfactual", "--data", "texts.csv", "--classifier")

CLI = [
    # -- chat probe options: a float option takes no infinity (nan was refused already)
    Case("37.6", "--temperature inf", ("run", "discrimination-tamkin", "--model", "{model}",
                                       "--temperature", "inf", "--out", "out"),
         "--temperature must be a finite number"),
    Case("37.6", "--temperature -inf", ("run", "bbq", "--model", "{model}", "--temperature",
                                        "-inf", "--out", "out"), "--temperature"),
    Case("37.6", "--top-p inf", ("run", "direct", "--model", "{model}", "--top-p", "inf",
                                 "--out", "out"), "--top-p"),
    # -- --base-url is for an endpoint only
    Case("37.6", "--base-url with a local model",
         ("run", "discrimination-tamkin", "--model", "{model}", "--base-url",
          "http://127.0.0.1:9/v1", "--out", "out"), "--base-url is for an endpoint model"),
    # -- Self-Debias: a non-finite decay constant
    Case("37.6", "self-debias --decay-constant nan",
         ("debias", "self-debias", "--model", "{model}", "--out", "sd", "--decay-constant",
          "nan", "--no-progress"), "--decay-constant must be a finite number"),
    Case("37.6", "self-debias --decay-constant inf",
         ("debias", "self-debias", "--model", "{model}", "--out", "sd", "--decay-constant",
          "inf", "--no-progress"), "--decay-constant must be a finite number"),
    # -- the WEFE-family metrics: an all-zero vector, named; ECT's smallest sets
    *(Case("37.6", f"{m}: an all-zero attribute vector",
           ("run", m, "--vectors", "gw_zero.txt", "--test", "gt.json", "--out", "out",
            "--no-progress"), "the vector of 'doctor' (set A) is all zeros", cache_may_grow=True)
      for m in ("ripa", "rnd", "rnsb", "ect", "mac")),
    Case("37.6", "ect: one-word attribute sets",
         ("run", "ect", "--vectors", "gw.txt", "--test", "gt1.json", "--out", "out",
          "--no-progress"), "needs at least 3", cache_may_grow=True),
    Case("37.6", "ect: two-word attribute sets (Spearman over 2 words is always +-1)",
         ("run", "ect", "--vectors", "gw.txt", "--test", "gt2.json", "--out", "out",
          "--no-progress"), "needs at least 3", cache_may_grow=True),
    # -- debiasing word vectors: nothing published when the result is not valid
    Case("37.6", "debias hsr --alpha nan (evaluated)",
         ("debias", "hsr", "--vectors", "gw.txt", "--out", "dv", "--alpha", "nan",
          *DEBIAS_EVAL), "--alpha must be a positive finite number", cache_may_grow=True),
    Case("37.6", "debias hsr --alpha nan --no-evaluate",
         ("debias", "hsr", "--vectors", "gw.txt", "--out", "dv", "--alpha", "nan",
          "--no-evaluate", *LISTS), "--alpha must be a positive finite number",
         cache_may_grow=True),
    Case("37.6", "debias hsr --alpha inf --no-evaluate",
         ("debias", "hsr", "--vectors", "gw.txt", "--out", "dv", "--alpha", "inf",
          "--no-evaluate", *LISTS), "--alpha", cache_may_grow=True),
    *(Case("37.6", f"debias {m}: 1-dimensional vectors",
           ("debias", m, "--vectors", "gw_1d.txt", "--out", "dv", *extra, *DEBIAS_EVAL),
           "at least 2 dimensions", cache_may_grow=True)
      for m, extra in (("hsr", ()), ("hard", ()), ("multiclass-hard", ()),
                       ("ran", ("--n-words", "0")))),
    Case("37.6", "debias hsr --no-evaluate: 1-dimensional vectors",
         ("debias", "hsr", "--vectors", "gw_1d.txt", "--out", "dv", "--no-evaluate", *LISTS),
         "at least 2 dimensions", cache_may_grow=True),
    Case("37.6", "debias hard evaluated on a test ECT cannot score",
         ("debias", "hard", "--vectors", "gw.txt", "--out", "dv", *DEBIAS_EVAL[2:], "--test",
          "gt2.json"), "needs at least 3", cache_may_grow=True),
    # -- a classifier whose code exits while it loads
    Case("37.6", "a classifier module that runs raise SystemExit(3) on import",
         (*RUN_EXIT, "clf_exit_import.py:predict"), "it called exit(3)"),
    Case("37.6", "a classifier factory that runs raise SystemExit(3)",
         (*RUN_EXIT, "clf_exit_factory.py:make()"), "it called exit(3)"),
    Case("37.6", "a pickled classifier that calls sys.exit(3) when unpickled",
         (*RUN_EXIT, "clf_exit.pkl"), "it called exit(3)"),
    Case("37.6", "attack: a classifier module that exits on import",
         ("attack", "--classifier", "clf_exit_import.py:predict", "--data", "texts.csv",
          "--vectors", "vec.txt", "--lm", "none", "--out", "out"), "it called exit(3)"),
]

API = [
    ApiCase("37.6", "gs.run(temperature=inf)",
            "gs.run('discrimination-tamkin', MODEL, temperature=float('inf'))",
            "temperature must be a finite number"),
    ApiCase("37.6", "gs.load_model(local model, base_url=...)",
            "gs.load_model(MODEL, base_url='http://127.0.0.1:9/v1')",
            "base_url is for an endpoint model"),
    ApiCase("37.6", "gs.run(local model, base_url=...)",
            "gs.run('discrimination-tamkin', MODEL, base_url='http://127.0.0.1:9/v1')",
            "base_url is for an endpoint model"),
    ApiCase("37.6", "gs.run('ripa') on an all-zero vector",
            "gs.run('ripa', 'gw_zero.txt', test='gt.json', store=':memory:')",
            "the vector of 'doctor' (set A) is all zeros"),
    ApiCase("37.6", "gs.run('ect') on two-word attribute sets",
            "gs.run('ect', 'gw.txt', test='gt2.json', store=':memory:')", "needs at least 3"),
    ApiCase("37.6", "gs.load_model(classifier that exits on import)",
            "gs.load_model('clf_exit_import.py:predict', kind='classifier')",
            "it called exit(3)"),
]


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return add_files(make_workspace(tmp_path / "ws"))


@pytest.mark.parametrize("case", [*CLI, *API], ids=[c.what for c in [*CLI, *API]])
def test_silent_accept_refused_by_name(case: Case | ApiCase, workspace: Path,
                                       tiny_gpt2_dir: Path) -> None:
    outcome = run_case(case, workspace, tiny_gpt2_dir)
    lines = outcome.stderr.splitlines()
    assert outcome.code == 2, outcome.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), outcome.stderr
    assert case.expect in lines[0], outcome.stderr
    if isinstance(case, ApiCase):  # GenderscopeError or a subclass, never a bare Python error
        assert not lines[0].startswith(("error: TypeError", "error: ValueError")), lines[0]
    assert outcome.changed == []


def test_self_debias_overwrite_keeps_the_folder_when_refused(workspace: Path,
                                                             tiny_gpt2_dir: Path) -> None:
    """``--overwrite`` with a bad --decay-constant: refused before the old output goes."""
    made = run_case(Case("37.6", "make", ("debias", "self-debias", "--model", "{model}",
                                          "--out", "sd", "--no-progress"), ""),
                    workspace, tiny_gpt2_dir)
    assert made.code == 0 and (workspace / "sd" / "manifest.json").is_file(), made.stderr
    for value in ("-1", "nan"):
        outcome = run_case(Case("37.6", "overwrite", (
            "debias", "self-debias", "--model", "{model}", "--out", "sd", "--overwrite",
            "--decay-constant", value, "--no-progress"), ""), workspace, tiny_gpt2_dir)
        assert outcome.code == 2 and "--decay-constant" in outcome.stderr, outcome.stderr
        assert outcome.changed == [], outcome.changed


@pytest.mark.parametrize("method", ["hard", "hsr", "ran", "multiclass-hard"])
def test_debiased_vectors_published_only_after_the_evaluation(
        method: str, workspace: Path, tiny_gpt2_dir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluation fails at its last step: no vectors.bin, no marker, no evaluation
    runs, no --out at all; the same command then succeeds and publishes all of them."""
    import genderscope.vector_debias.evaluate as ev
    from genderscope.errors import DataError

    real = ev.compare_metric
    calls = {"n": 0}

    def fail_last(before, after, seed=0, **kw):  # noqa: ANN001, ANN003, ANN202
        calls["n"] += 1
        if calls["n"] == 5:  # the fifth and last metric of the one test
            raise DataError("the evaluation failed")
        return real(before, after, seed, **kw)

    extra = ("--n-words", "0") if method == "ran" else ()
    case = Case("37.6", method, ("debias", method, "--vectors", "gw.txt", "--out", "dv", *extra,
                                 *DEBIAS_EVAL), "the evaluation failed", cache_may_grow=True)
    monkeypatch.setattr(ev, "compare_metric", fail_last)
    outcome = run_case(case, workspace, tiny_gpt2_dir)
    assert calls["n"] == 5 and outcome.code == 2, outcome.stderr
    assert outcome.stderr.splitlines() == ["error: the evaluation failed"]
    assert outcome.changed == [], outcome.changed  # no dv/, no hidden temporary sibling
    monkeypatch.setattr(ev, "compare_metric", real)
    outcome = run_case(case, workspace, tiny_gpt2_dir)
    assert outcome.code == 0, outcome.stderr
    out = workspace / "dv"
    marker = json.loads((out / ".genderscope-output").read_text())
    assert sorted(marker["files"]) == ["debias.json", "vectors.bin"]
    record = json.loads((out / "debias.json").read_text())
    assert [m["metric"] for m in record["metrics"]] == ["weat", "ripa", "rnd", "ect", "mac"]
    assert (out / "eval" / "ect" / "gt" / "after" / "summary.json").is_file()
    from genderscope.models.vectors import load_vectors

    after = load_vectors(out / "vectors.bin")
    assert after.dim == 6 and len(after) == len(GENDER_WORDS)
    summary = json.loads((out / "eval" / "weat" / "gt" / "after" / "summary.json").read_text())
    assert summary["metadata"]["model"]["name"] == "dv/vectors.bin"  # as once published
    assert summary["metadata"]["model"]["fingerprint"] == after.fingerprint
    assert [p.name for p in workspace.iterdir() if p.name.startswith(".dv")] == []


def test_a_float_option_refuses_infinity_unless_its_bounds_allow_it() -> None:
    """``Option.check`` (every declared float option: --temperature, --top-p, ...)."""
    from genderscope.core.options import Option
    from genderscope.errors import GenderscopeError

    temperature = Option("temperature", 0.0, "Sampling temperature.", type="float", min=0)
    for bad in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(GenderscopeError, match="--temperature must be a"):
            temperature.check(bad)
    assert temperature.check(1e308) == 1e308
    unbounded = Option("scale", 1.0, "A scale.", type="float", max=float("inf"))
    assert unbounded.check(float("inf")) == float("inf")  # declared: allowed
    with pytest.raises(GenderscopeError, match="finite"):
        unbounded.check(float("-inf"))
