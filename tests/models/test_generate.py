"""Generation in the model layer: chat template, batched greedy decoding with left
padding, per-item sampling seeds, stop strings and the generation cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from genderscope.errors import GenderscopeError
from genderscope.models import generate as gen
from genderscope.models.causal import CausalLM
from genderscope.models.generate import Decoding
from genderscope.models.testing import build_chat_llama
from genderscope.store import Store

PROMPTS = ["Is he a nurse?", "hello world",
           "the developer argued with the designer because she did not like the design. "
           "Answer yes or no.", "my father is an engineer", "her mother works as a teacher"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_chat_llama(tmp_path_factory.mktemp("chat") / "m")


def _lm(model_dir: Path, tmp_path: Path, name: str = "s.sqlite") -> CausalLM:
    return CausalLM.from_pretrained(model_dir, store=Store(tmp_path / name))


@pytest.mark.slow
def test_batched_greedy_equals_one_at_a_time(model_dir: Path, tmp_path: Path) -> None:
    dec = Decoding(max_new_tokens=10)
    batched = _lm(model_dir, tmp_path, "a.sqlite").chat(PROMPTS, dec, batch_size=5)
    single = _lm(model_dir, tmp_path, "b.sqlite")
    one = [single.chat([p], dec, batch_size=1)[0] for p in PROMPTS]
    assert batched == one
    assert len(set(batched)) > 1  # the prompts get different answers: a real test


@pytest.mark.slow
def test_sampling_is_independent_of_order_and_seeded(model_dir: Path, tmp_path: Path) -> None:
    dec = Decoding(max_new_tokens=10, temperature=1.0, seed=3)
    a = _lm(model_dir, tmp_path, "a.sqlite").chat(PROMPTS, dec)
    b = _lm(model_dir, tmp_path, "b.sqlite").chat(PROMPTS[::-1], dec)
    assert a == b[::-1]
    other = _lm(model_dir, tmp_path, "c.sqlite").chat(PROMPTS, Decoding(
        max_new_tokens=10, temperature=1.0, seed=4))
    assert other != a
    reps = _lm(model_dir, tmp_path, "d.sqlite").chat([PROMPTS[0]] * 3, dec,
                                                     repetitions=[0, 1, 2])
    assert reps[0] == a[0] and len(set(reps)) > 1  # repetitions draw different answers


def test_stop_strings_cut_the_answer(model_dir: Path, tmp_path: Path) -> None:
    lm = _lm(model_dir, tmp_path)
    full = lm.chat(PROMPTS, Decoding(max_new_tokens=10))
    stop = next(c for c in full[0] if c.isalpha())
    cut = lm.chat(PROMPTS, Decoding(max_new_tokens=10, stop=(stop,)))
    assert cut == [f.split(stop)[0] for f in full]
    assert cut[0] != full[0]


def test_rerun_generates_nothing_and_interrupted_run_resumes(
        model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = gen.generate_local

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(args[3]))
        if len(calls) == 2 and kill["on"]:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    kill = {"on": True}
    monkeypatch.setattr(gen, "generate_local", counting)
    dec = Decoding(max_new_tokens=6)
    lm = _lm(model_dir, tmp_path)
    with pytest.raises(KeyboardInterrupt):  # killed during the second chunk (of 2 prompts)
        lm.chat(PROMPTS, dec, batch_size=1)  # chunk = 4 prompts
    assert calls == [4, 1]
    kill["on"] = False
    calls.clear()
    again = _lm(model_dir, tmp_path)  # a new process: deferred, reads the store
    answers = again.chat(PROMPTS, dec, batch_size=1)
    assert calls == [1]  # only the prompt the killed run had not stored
    calls.clear()
    rerun = _lm(model_dir, tmp_path)
    assert rerun.chat(PROMPTS, dec) == answers
    assert calls == [] and not rerun.loaded  # no weights, no tokenizer loaded


def test_no_chat_template_is_one_clear_error(tmp_path: Path) -> None:
    folder = build_chat_llama(tmp_path / "plain", chat_template=False)
    lm = _lm(folder, tmp_path)
    with pytest.raises(GenderscopeError, match="no chat template"):
        lm.chat(["hi"])
    assert Store(tmp_path / "s.sqlite").get_texts(lm.fingerprint, gen.NAMESPACE,
                                                  ["x"]) == {}


@pytest.mark.parametrize("bad", [{"max_new_tokens": 0}, {"temperature": -1.0},
                                 {"top_p": 0.0}])
def test_bad_decoding_options(bad: dict[str, float]) -> None:
    with pytest.raises(GenderscopeError):
        Decoding(**bad)  # type: ignore[arg-type]


def test_cache_key_parts() -> None:
    d = Decoding(max_new_tokens=5)
    k = gen.generation_key("p", d, 0)
    assert k != gen.generation_key("p", d, 1)
    assert k != gen.generation_key("q", d, 0)
    assert k != gen.generation_key("p", Decoding(max_new_tokens=6), 0)
    assert k == gen.generation_key("p", Decoding(max_new_tokens=5, seed=9), 0)  # greedy
    s = Decoding(max_new_tokens=5, temperature=0.7)
    assert gen.generation_key("p", s, 0) != gen.generation_key(
        "p", Decoding(max_new_tokens=5, temperature=0.7, seed=1), 0)
    assert gen.cut_at_stop("abc. def", [".", "d"]) == "abc"


def test_missing_prompts_are_chunked_shortest_first() -> None:
    """With ``sizes``, the chunks hold the missing prompts in order of size across the
    whole run (less padding than sorting within each chunk); answers stay in place."""
    sizes = [50, 10, 40, 20, 30, 60, 5]
    keys = [f"k{i}" for i in range(len(sizes))]
    seen: list[list[int]] = []

    def compute(idx: list[int]) -> list[str]:
        seen.append(list(idx))
        return [f"a{i}" for i in idx]

    out = gen.cached_generations(None, "fp", keys, compute, progress=False, label="x",
                                 chunk=3, sizes=sizes)
    assert out == [f"a{i}" for i in range(len(sizes))]
    assert seen == [[6, 1, 3], [4, 2, 0], [5]]
    seen.clear()
    gen.cached_generations(None, "fp", keys, compute, progress=False, label="x", chunk=3)
    assert seen == [[0, 1, 2], [3, 4, 5], [6]]  # without sizes: in the given order
