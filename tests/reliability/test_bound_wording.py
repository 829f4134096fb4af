"""The seed and count bounds of fine-tuning (``debias cds``/``dropout``), of INLP and
SentenceDebias (``debias inlp``/``sentence-debias``) and of a sweep are checked by the one
checker, :func:`genderscope.checks.whole_number`, so a bound and its message are written
once: each caller's refusal is the checker's own words. Which values are refused does not
change (each bound itself is accepted, one past it refused)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from genderscope.checks import SEED_MAX, whole_number
from genderscope.errors import ArgumentError, GenderscopeError


def _message(call: Any) -> str:
    with pytest.raises(GenderscopeError) as err:
        call()
    return str(err.value)


def _checker(*args: Any, **kwargs: Any) -> str:
    return _message(lambda: whole_number(*args, **kwargs))


@pytest.mark.parametrize(("field", "bad", "least", "most"), [
    ("seed", -1, 0, None), ("seed", SEED_MAX + 1, 0, None), ("epochs", 0, 1, 1_000),
    ("epochs", 1_001, 1, 1_000), ("max_length", 7, 8, 2**20),
    ("max_length", 2**20 + 1, 8, 2**20), ("save_every", 0, 1, None),
    ("batch_size", 0, 1, None), ("max_steps", 0, 1, None)])
def test_finetune_bounds_are_the_checkers(field: str, bad: int, least: int,
                                          most: int | None) -> None:
    from genderscope.lm_debias.finetune import FinetuneConfig

    said = _message(lambda: FinetuneConfig(**{field: bad}).validate())
    assert said == _checker(bad, field, least, most), said
    good = {field: least if bad < least else (most or SEED_MAX)}
    FinetuneConfig(**good).validate()  # the bound itself is accepted


def test_finetune_types_are_the_checkers() -> None:
    """A count that is not a whole number is the checker's ArgumentError; a NumPy integer
    is still accepted, as before."""
    import numpy as np

    from genderscope.lm_debias.finetune import FinetuneConfig

    with pytest.raises(ArgumentError) as err:
        FinetuneConfig(epochs=1.5).validate()  # type: ignore[arg-type]
    assert str(err.value) == "epochs must be a whole number (int), got 1.5"
    FinetuneConfig(seed=np.int64(7), epochs=np.int32(2)).validate()  # type: ignore[arg-type]


@pytest.mark.parametrize(("option", "bad", "least", "most"), [
    ("n_classifiers", 0, 1, 10_000), ("n_classifiers", 10_001, 1, 10_000),
    ("batch_size", 0, 1, None), ("max_length", 3, 4, None), ("seed", SEED_MAX + 1, 0, None)])
def test_inlp_bounds_are_the_checkers(tmp_path: Path, option: str, bad: int, least: int,
                                      most: int | None) -> None:
    from genderscope.lm_debias.estimate import debias_lm

    said = _message(lambda: debias_lm("inlp", "no-such-model", tmp_path / "out",
                                      **{option: bad}))
    assert said == _checker(bad, option, least, most), said
    assert not (tmp_path / "out").exists()


def test_inlp_per_class_names_its_flag(tmp_path: Path) -> None:
    from genderscope.lm_debias.estimate import debias_lm

    said = _message(lambda: debias_lm("inlp", "no-such-model", tmp_path / "o", n_per_class=1))
    assert said == "--per-class must be at least 2, got 1"


def test_sweep_bounds_are_the_checkers(tmp_path: Path) -> None:
    """The sweep's seed (and a measure's), its --max-retries and a file's whole numbers."""
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec, load_file

    def spec(**kw: Any) -> SweepSpec:
        measures = [MeasureSpec("crows-pairs", seed=kw.pop("measure_seed", None))]
        return SweepSpec(models=[ModelSpec("smollm2")], measures=measures, **kw)

    assert _message(spec(seed=SEED_MAX + 1).check) == _checker(SEED_MAX + 1, "seed", 0)
    assert _message(spec(seed=-1).check) == "--seed must be at least 0, got -1"
    assert _message(spec(measure_seed=SEED_MAX + 1).check) == (
        f"measure crows-pairs: seed must be at most {SEED_MAX} (a 32-bit seed), got "
        f"{SEED_MAX + 1}")
    assert _message(spec(max_retries=-1).check) == _checker(-1, "max_retries", 0)
    spec(seed=SEED_MAX, measure_seed=0, max_retries=0).check()
    f = tmp_path / "sweep.yaml"
    for value, says in ((SEED_MAX + 1, f"seed must be at most {SEED_MAX} (a 32-bit seed)"),
                        (-1, "seed must be at least 0, got -1"),
                        (1.5, "seed must be a whole number (int), got 1.5")):
        f.write_text(f"models: [smollm2]\nmeasures: [{{name: crows-pairs, seed: {value}}}]\n",
                     encoding="utf-8")
        said = _message(lambda: load_file(f))
        assert said.startswith(f"sweep file {f}") and said.endswith(
            says if value != SEED_MAX + 1 else f"{says}, got {value}"), said
    f.write_text(f"models: [smollm2]\nmeasures: [crows-pairs]\nsettings: {{seed: {SEED_MAX}, "
                 "max_retries: 0}\n", encoding="utf-8")
    assert load_file(f).seed == SEED_MAX


# -- --limit of a corpus and of a texts file, an endpoint's --concurrency and --retries ------
@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "2"])
def test_corpus_and_texts_limits_are_the_checkers(tmp_path: Path, bad: Any) -> None:
    """``load_corpus`` and ``load_texts`` refuse a --limit below 1 or not a whole number in
    the checker's words (``load_texts`` took 1.5 and failed later with a TypeError)."""
    from genderscope.datasets.corpus import load_corpus
    from genderscope.datasets.texts import load_texts

    f = tmp_path / "t.txt"
    f.write_text("one\ntwo\nthree\n", encoding="utf-8")
    said = _checker(bad, "limit", 1, label="--limit")
    assert _message(lambda: load_corpus(str(f), limit=bad)) == said
    assert _message(lambda: load_texts(f, limit=bad)) == said


def test_corpus_and_texts_limits_still_take_whole_numbers(tmp_path: Path) -> None:
    import numpy as np

    from genderscope.datasets.corpus import load_corpus
    from genderscope.datasets.texts import load_texts

    f = tmp_path / "t.txt"
    f.write_text("one\ntwo\nthree\n", encoding="utf-8")
    assert load_corpus(str(f), limit=1).texts == ["one"]
    assert load_texts(f, limit=2).texts == ["one", "two"]
    assert load_texts(f, limit=np.int64(5)).texts == ["one", "two", "three"]  # as before


@pytest.mark.parametrize(("given", "name", "least", "most"), [
    ({"concurrency": 0}, "concurrency", 1, "MAX_CONCURRENCY"),
    ({"concurrency": 1001}, "concurrency", 1, "MAX_CONCURRENCY"),
    ({"concurrency": 2.0}, "concurrency", 1, "MAX_CONCURRENCY"),
    ({"retries": -1}, "retries", 0, "MAX_RETRIES"),
    ({"retries": 101}, "retries", 0, "MAX_RETRIES"),
    ({"retries": "3"}, "retries", 0, "MAX_RETRIES")])
def test_endpoint_counts_are_the_checkers(given: dict[str, Any], name: str, least: int,
                                          most: str) -> None:
    """An endpoint's --concurrency (at most the OpenAI client's 1,000 connections) and
    --retries (at most 100) are refused in the checker's words; each bound is accepted."""
    from genderscope.models import endpoint

    def client(**kw: Any) -> Any:
        kw = {"max_retries" if k == "retries" else k: v for k, v in kw.items()}
        return endpoint.OpenAIChat("tiny", "http://127.0.0.1:9/v1", **kw)

    bound = getattr(endpoint, most)
    why = "the OpenAI client's connection limit" if name == "concurrency" else None
    said = _message(lambda: client(**given))
    assert said == _checker(given[name], name, least, bound, label=f"--{name}", why=why)
    for fine in (least, bound):
        client(**{name: fine})


def test_hsr_alpha_is_checked_in_one_place(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``debias hsr --alpha`` is refused by the function hsr_debias itself calls, before any
    vectors load; both refuse 0, a negative, nan and inf in its words."""
    from genderscope.cli.commands import debias_vectors
    from genderscope.vector_debias import hsr

    for bad in (0.0, -1.0, float("nan"), float("inf")):
        said = _message(lambda bad=bad: hsr.check_alpha(bad))
        assert said == f"--alpha must be a positive finite number, got {bad}"
        assert _message(lambda bad=bad: debias_vectors._check_options(
            "hsr", {"alpha": bad})) == said
    assert hsr.check_alpha(60) == 60.0
    monkeypatch.setattr(hsr, "check_alpha", lambda a: (_ for _ in ()).throw(
        GenderscopeError("the one check")))
    assert _message(lambda: debias_vectors._check_options("hsr", {"alpha": 1.0})) == \
        "the one check"


@pytest.mark.parametrize("kind", [np.int8, np.int64, np.uint16])
def test_numpy_integers_are_whole_numbers(kind: Any) -> None:
    """The checker takes a NumPy integer as the int it holds (an ``int``, so it keys and
    serialises as one), and refuses one out of range in the words it uses for an int."""
    got = whole_number(kind(5), "limit", 1)
    assert got == 5 and type(got) is int
    assert _checker(kind(0), "limit", 1) == _checker(0, "limit", 1)


@pytest.mark.parametrize(("numpy", "python"), [
    (np.float64(3.0), 3.0), (np.float32(3.0), 3.0), (np.bool_(True), True),
    (np.float64("nan"), float("nan"))])
def test_numpy_floats_and_bools_are_refused_as_python_ones(numpy: Any, python: Any) -> None:
    with pytest.raises(ArgumentError) as py_err:
        whole_number(python, "limit", 1)
    with pytest.raises(ArgumentError) as np_err:
        whole_number(numpy, "limit", 1)
    assert str(np_err.value).split(", got ")[0] == str(py_err.value).split(", got ")[0]


def test_load_texts_takes_numpy_counts_and_refuses_numpy_floats(tmp_path: Path) -> None:
    from genderscope.datasets.texts import load_texts

    f = tmp_path / "t.txt"
    f.write_text("one\ntwo\nthree\n", encoding="utf-8")
    plain = load_texts(f, limit=2, sample_seed=3)
    same = load_texts(f, limit=np.int64(2), sample_seed=np.uint32(3))
    assert same.texts == plain.texts and len(same.texts) == 2
    for bad in ({"limit": np.float64(2.0)}, {"limit": np.bool_(True)},
                {"limit": 2, "sample_seed": np.float64(3.0)}):
        with pytest.raises(ArgumentError):
            load_texts(f, **bad)
    assert _message(lambda: load_texts(f, limit=np.int64(0))) == \
        _message(lambda: load_texts(f, limit=0))


def test_declared_int_option_takes_a_numpy_integer() -> None:
    """``gs.run``'s option check gives the plan an int for a NumPy integer."""
    from genderscope.core.registry import get

    opt = get("crows-pairs").options["limit"]
    got = opt.check(np.int64(4))
    assert got == 4 and type(got) is int
    with pytest.raises(ArgumentError):
        opt.check(np.float64(4.0))
