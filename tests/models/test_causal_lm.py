"""CausalLM: batched scoring equals a one-text-at-a-time reference; start token explicit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from genderscope.errors import ModelLoadError
from genderscope.models.causal import CausalLM

TEXTS = ["he is a nurse.", "she is a kindergarten teacher.", "the housemaid cleaned it.",
         "my father is good at programming and my mother likes math.", "hello",
         "he is a nurse."]


def _naive_ll(adapter: CausalLM, text: str) -> tuple[float, int]:
    tok = adapter.tokenizer
    ids = [adapter.start_token_id] + tok(text, add_special_tokens=False)["input_ids"]
    with torch.inference_mode():
        logits = adapter.model(input_ids=torch.tensor([ids])).logits[0].float()
    logp = torch.log_softmax(logits, -1)
    return sum(float(logp[t - 1, ids[t]]) for t in range(1, len(ids))), len(ids) - 1


def test_batched_equals_naive(tiny_gpt2: CausalLM) -> None:
    got = tiny_gpt2.log_likelihood(TEXTS)
    for text, score in zip(TEXTS, got, strict=True):
        ref, n = _naive_ll(tiny_gpt2, text)
        assert score.n_tokens == n
        assert abs(score.total - ref) <= 1e-4
        assert score.perplexity == pytest.approx(np.exp(-ref / n), rel=1e-4)
        assert len(score.token_logprobs) == n == len(score.tokens)


def test_continuation_is_difference_of_prefix_scores(tiny_gpt2: CausalLM) -> None:
    pairs = [("he is a", " nurse."), ("she is a", " kindergarten teacher.")]
    got = tiny_gpt2.continuation_logprob(pairs)
    for (p, c), g in zip(pairs, got, strict=True):
        full = tiny_gpt2.log_likelihood([p + c])[0].total
        prefix = tiny_gpt2.log_likelihood([p])[0].total
        assert abs(g - (full - prefix)) <= 1e-4


def test_start_token_is_explicit_and_recorded(tiny_gpt2_dir) -> None:
    auto = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu")
    none = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", start_token="none")
    eos = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", start_token="</s>")
    assert auto.describe()["start_token"] == "<s>"
    assert none.describe()["start_token"] == "none"
    assert len({auto.fingerprint, none.fingerprint, eos.fingerprint}) == 3
    a, n = auto.log_likelihood(["he is a nurse."])[0], none.log_likelihood(["he is a nurse."])[0]
    assert n.n_tokens == a.n_tokens - 1  # without a start token the first word is not scored
    with pytest.raises(ModelLoadError, match="not in the vocabulary"):
        CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", start_token="<nonexistent>")


class _Tok:
    """The parts of a tokenizer that resolve_start_token reads."""

    def __init__(self, bos, eos, vocab):
        self.bos_token, self.eos_token, self.unk_token, self.unk_token_id = bos, eos, None, None
        self.vocab = vocab

    def convert_tokens_to_ids(self, tok):
        return self.vocab.get(tok)


def test_auto_start_token_skips_chat_turn_markers() -> None:
    from genderscope.models.causal import resolve_start_token

    chatml = {"<|endoftext|>": 0, "<|im_start|>": 1, "<|im_end|>": 2}
    assert resolve_start_token(_Tok("<|im_start|>", "<|im_end|>", chatml), "auto", "m") == \
        (0, "<|endoftext|>")
    assert resolve_start_token(_Tok("<bos>", "<eos>", {"<bos>": 2, "<eos>": 1}), "auto",
                               "m") == (2, "<bos>")
    assert resolve_start_token(_Tok(None, "</s>", {"</s>": 2}), "auto", "m") == (2, "</s>")
    # an explicit choice is always honoured
    assert resolve_start_token(_Tok("<|im_start|>", None, chatml), "<|im_start|>", "m") == \
        (1, "<|im_start|>")
    with pytest.raises(ModelLoadError, match="no usable BOS or EOS"):
        resolve_start_token(_Tok("<|im_start|>", "<|im_end|>", {"<|im_start|>": 1,
                                                                 "<|im_end|>": 2}), "auto", "m")


def test_hub_ids_and_paths_are_told_apart() -> None:
    from genderscope.models.source import ModelSource, pick_device

    for hub_id in ("gpt2", "google-bert/bert-base-uncased", "Qwen/Qwen2.5-0.5B"):
        assert ModelSource(hub_id).kind_of_source == "hub"
    for path in ("/nonexistent/model", "./model", "a/b/c", "~/model"):
        with pytest.raises(ModelLoadError, match="model path not found"):
            ModelSource(path)
    if not torch.cuda.is_available():
        with pytest.raises(ModelLoadError, match="no CUDA device"):
            pick_device("cuda")


def test_a_name_near_a_packaged_model_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, ``smolm2`` is a Hub id that cannot be read; the one line names the packaged
    model it is close to, and a Hub id near none of them gets no guess."""
    from genderscope.models.loading import detect_kind

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for typo, meant in (("smolm2", "smollm2"), ("SmolLM2", "smollm2"),
                        ("gemma3-270", "gemma3-270m")):
        with pytest.raises(ModelLoadError, match=f"did you mean '{meant}'"):
            detect_kind(typo)
    with pytest.raises(ModelLoadError) as err:
        detect_kind("no-such-org/no-such-model")
    assert "did you mean" not in str(err.value)


def test_cache_rerun_runs_no_forward(tiny_gpt2_dir, store) -> None:
    a = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", store=store)
    first = a.log_likelihood(TEXTS)
    assert a.n_forward > 0
    b = CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu", store=store)
    second = b.log_likelihood(TEXTS)
    b.continuation_logprob([("he is", " a nurse.")])
    assert b.n_forward == 1  # only the new continuation question ran
    assert [s.total for s in first] == [s.total for s in second]


def test_bad_gguf_is_a_clear_error(tmp_path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a gguf file at all")
    with pytest.raises(ModelLoadError, match="broken.gguf"):
        CausalLM.from_pretrained(bad)


@pytest.mark.slow
def test_smollm2_prefers_grammatical_text(smollm2: CausalLM) -> None:
    good, bad = smollm2.log_likelihood(["She is a nurse.", "Nurse a is she."])
    assert good.total > bad.total + 3
    # its GGUF declares <|im_start|> as BOS; auto skips the chat-turn marker
    assert smollm2.describe()["start_token"] == "<|endoftext|>"
    assert smollm2.start_token_id == 0
    # meaning (docs/models.md): after the document separator "she is" makes
    # " a mother." and " pregnant." likelier than "he is" does
    c = smollm2.continuation_logprob([("he is", " a mother."), ("she is", " a mother."),
                                      ("he is", " pregnant."), ("she is", " pregnant.")])
    assert c[0] < c[1] and c[2] < c[3]


def _gguf_forward(adapter: CausalLM) -> np.ndarray:
    from genderscope.models.engine import Request

    ids = (1, 5, 9, 17, 33, 60)
    return adapter.engine.run([Request(ids, tuple((p, ids[p + 1]) for p in range(5)))])[0]


def test_gguf_dequantised_once_then_loaded_from_the_cache(tmp_path, monkeypatch) -> None:
    """The first load of a GGUF file keeps its config, tokenizer and de-quantised model;
    the next load reads those (not the GGUF file) and gives bit-identical answers."""
    import transformers.modeling_gguf_pytorch_utils as gguf_utils
    from transformers.quantizers.quantizer_gguf import GgufHfQuantizer

    from genderscope.models.testing import build_tiny_gguf

    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    gguf = build_tiny_gguf(tmp_path / "tiny.gguf")
    first = CausalLM.from_pretrained(gguf, device="cpu")
    kept = list((tmp_path / "cache" / "gguf-models").iterdir())
    assert len(kept) == 1 and (kept[0] / "model.safetensors").is_file()

    def no_gguf(*a, **k):
        raise AssertionError("the GGUF file was read again")

    monkeypatch.setattr(GgufHfQuantizer, "get_state_dict", no_gguf)  # tensors
    monkeypatch.setattr(gguf_utils, "load_gguf_checkpoint", no_gguf)  # header (config)
    second = CausalLM.from_pretrained(gguf, device="cpu")
    assert second.fingerprint == first.fingerprint  # the GGUF file's identity, not the cache's
    a, b = first.model.state_dict(), second.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    np.testing.assert_array_equal(_gguf_forward(first), _gguf_forward(second))
    gguf.write_bytes(gguf.read_bytes())  # a rewritten file (new mtime) is read again
    with pytest.raises(ModelLoadError, match="read again"):
        CausalLM.from_pretrained(gguf, device="cpu")


def test_gguf_cache_can_be_turned_off(tmp_path, monkeypatch) -> None:
    from genderscope.models.testing import build_tiny_gguf

    monkeypatch.setenv("GENDERSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GENDERSCOPE_GGUF_CACHE", "0")
    CausalLM.from_pretrained(build_tiny_gguf(tmp_path / "tiny.gguf"), device="cpu")
    assert not (tmp_path / "cache" / "gguf-models").exists()
