"""The option-bounds audit over the registry: every declared number has a minimum; every
whole-number option is either a seed, a count that sets how much work a run does (then it
has a maximum), or a size the data caps (a value beyond the data takes all of it); and
``gs.run`` refuses one past each bound in one line, before any model or data, in the words
the command line prints (both go through the declaration's check)."""

from __future__ import annotations

from typing import Any

import pytest
from cli_main import run_main

import genderscope as gs
from genderscope.checks import COUNT_MAX, SEED_MAX, SEED_OPTIONS
from genderscope.core import registry
from genderscope.core.options import Option
from genderscope.errors import GenderscopeError

WORK = {
    "resamples": "the bootstrap keeps every replicate",
    "permutations": "a permutation test runs each",
    "exact_limit": "the exact test enumerates every partition up to it",
    "max_new_tokens": "each answer is generated and kept whole",
    "repetitions": "every prompt is asked this many times",
    "reorderings": "every item is asked in this many orders",
    "samples": "this many generations per prompt",
    "generations": "the genetic search runs this many rounds",
    "pop_size": "each round classifies this many texts",
}
"""Counts that set how much work a run does: each must have a maximum."""

DATA_SIZED = {
    "limit": "a subset of the items: beyond their number, all of them",
    "examples": "rows of the examples table, at most one per text",
    "candidates": "analogy candidates per word, at most the vocabulary",
    "lm_window": "context words, at most the text's",
    "max_queries": "a budget the search stops under: pop_size x generations at most",
    "min_count": "a threshold on counts in the data",
    "min_words": "a threshold on a document's words",
    "professions": "BEC-Pro's professions, at most the list's",
    "templates": "templates, at most the list's",
    "from_document": "a start index in the corpus (beyond it: one line, no documents)",
}
"""Whole numbers the data caps: a huge value costs nothing more than the data's size."""


def _numbers() -> list[tuple[str, Option]]:
    return [(name, o) for name, d in sorted(registry.declarations().items())
            for o in d.options if o.type in ("int", "float")]


def _ids(pairs: list[tuple[str, Option]]) -> list[str]:
    return [f"{name}:{o.name}" for name, o in pairs]


NUMBERS = _numbers()
BOUNDED = [(n, o) for n, o in NUMBERS if o.max is not None or o.min is not None]


def test_every_number_option_declares_a_minimum() -> None:
    lacking = [f"{name}: {o.flag}" for name, o in NUMBERS if o.min is None]
    assert not lacking, lacking


def test_every_whole_number_option_is_audited() -> None:
    """A new int option must be put in one of the classes above (with its reason)."""
    unknown = sorted({o.name for _, o in NUMBERS if o.type == "int"}
                     - set(WORK) - set(DATA_SIZED) - set(SEED_OPTIONS))
    assert not unknown, unknown


def test_seeds_and_work_counts_have_a_maximum() -> None:
    lacking = [f"{name}: {o.flag}" for name, o in NUMBERS
               if (o.name in WORK or o.name in SEED_OPTIONS) and o.max is None]
    assert not lacking, lacking
    for name, o in NUMBERS:  # the declared maximum is the checker's, where it holds one
        if o.name in SEED_OPTIONS:
            assert o.max == SEED_MAX, (name, o.name)
        elif o.name in COUNT_MAX:
            assert o.max == COUNT_MAX[o.name], (name, o.name)


def _past(o: Option, bound: float, step: int) -> Any:
    return int(bound) + step if o.type == "int" else float(bound) + step


def _api_message(name: str, option: str, value: Any) -> str:
    """gs.run with no model and no data: only the option check can answer first."""
    with pytest.raises(GenderscopeError) as err:
        gs.run(name, **{option: value})
    return str(err.value)


def _cli_message(name: str, args: tuple[str, ...]) -> tuple[int, str]:
    code, err, _ = run_main("run", name, *args)
    return code, err.strip()


@pytest.mark.parametrize(("name", "option"), BOUNDED, ids=_ids(BOUNDED))
def test_one_past_each_bound_is_refused_by_the_api_in_one_line(name: str,
                                                               option: Option) -> None:
    for bound, step, words in ((option.max, 1, "at most"), (option.min, -1, "at least")):
        if bound is None or bound in (float("inf"), float("-inf")):
            continue
        said = _api_message(name, option.name, _past(option, bound, step))
        assert said.startswith(f"{option.name} must be {words} ") and "\n" not in said, said


ENDPOINT = ("--model", "openai:tiny", "--base-url", "http://127.0.0.1:9/v1")
VECTORS = ("--vectors", "missing.txt", "--test", "weat6")
CLASSIFIER = ("--classifier", "missing.py:predict", "--data", "missing.csv")
CLI_SAMPLE = [("weat", "exact_limit", VECTORS), ("bbq", "max_new_tokens", ENDPOINT),
              ("attack", "min_similarity", CLASSIFIER), ("downstream", "test_share",
                                                         ("--model", "missing-model")),
              ("counterfactual", "examples", CLASSIFIER),
              ("perplexity", "from_document", ("--model", "missing-model")),
              ("ripa", "resamples", VECTORS), ("gest", "seed", ENDPOINT)]
"""(measure, option, the flags its command requires: files that do not exist, an endpoint
nobody answers at; the option is refused before any is read)."""


@pytest.mark.parametrize(("name", "option", "needed"), CLI_SAMPLE)
def test_the_command_line_refuses_what_the_api_refuses(name: str, option: str,
                                                       needed: tuple[str, ...]) -> None:
    """`genderscope run NAME --OPTION v` exits 2 with the API's line, with no model given:
    the options the audit bounded, and one of each older kind. Each names the option as
    its caller does: the flag on the command line, the keyword in Python."""
    o = registry.get(name).options[option]
    for bound, step in ((o.max, 1), (o.min, -1)):
        if bound is None:
            continue
        value = _past(o, bound, step)
        code, said = _cli_message(name, (*needed, o.flag, str(value)))
        api = _api_message(name, option, value)
        assert api.startswith(f"{option} must be "), api
        assert code == 2 and said == f"error: {o.flag}{api.removeprefix(option)}", said


def test_double_hard_refuses_more_frequency_components_than_dimensions() -> None:
    """Double-Hard Debias tries each of the first ``--frequency-components`` principal
    components; beyond the vectors' dimension there are none (was an IndexError)."""
    import numpy as np

    from genderscope.errors import DataError
    from genderscope.models.vectors import WordVectors
    from genderscope.vector_debias import DebiasLists
    from genderscope.vector_debias.double_hard import double_hard_debias

    words = ["he", "she", "man", "woman", "boy", "girl", *(f"w{i}" for i in range(20))]
    vecs = WordVectors(np.random.default_rng(0).normal(size=(len(words), 6)).astype(
        np.float32), words, fingerprint="t")
    lists = DebiasLists((("he", "she"), ("man", "woman"), ("boy", "girl")),
                        (("boy", "girl"),), ("he", "she", "man", "woman"))
    double_hard_debias(vecs, lists, n_components=6, n_words=4)  # every dimension: fine
    with pytest.raises(DataError, match="--frequency-components 7: the vectors have 6 "):
        double_hard_debias(vecs, lists, n_components=7, n_words=4)


@pytest.mark.parametrize("value", [0, 2**16 + 1, 10**20, 2.5])
def test_the_sweep_api_bounds_num_cpus_as_the_command_line(value: Any, tmp_path) -> None:
    """``sweep.driver.run_sweep(num_cpus=...)`` refuses what ``genderscope sweep --num-cpus``
    refuses, in the same line, before planning any job or starting Ray."""
    from genderscope.errors import ArgumentError
    from genderscope.store import Store
    from genderscope.sweep.driver import run_sweep
    from genderscope.sweep.spec import MeasureSpec, ModelSpec, SweepSpec

    spec = SweepSpec([ModelSpec("openai:tiny", base_url="http://127.0.0.1:9/v1")],
                     [MeasureSpec("bbq")], out=tmp_path / "s.html")
    with Store(tmp_path / "s.sqlite") as store, pytest.raises(GenderscopeError) as err:
        run_sweep(spec, store, num_cpus=value)
    if isinstance(value, float):
        assert isinstance(err.value, ArgumentError)
        return
    code, said, _ = run_main("sweep", "--model", "openai:tiny", "--base-url",
                             "http://127.0.0.1:9/v1", "--measure", "bbq", "--out",
                             str(tmp_path / "s.html"), "--no-progress", "--num-cpus", str(value))
    assert code == 2 and said.strip() == f"error: {err.value}", said
