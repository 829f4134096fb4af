"""Causal (autoregressive) language model adapter: Hub id, local folder or GGUF file.

log-likelihood of a text W = w_1..w_n given a start token s:

    LL(W) = sum_{t=1..n} log P(w_t | s, w_1..w_{t-1})    (nats)

The start-of-text token matters: without one the first word is never scored,
and which token is used moves results (SmolLM2: ``<|endoftext|>`` vs
``<|im_start|>``). ``start_token="auto"`` uses the tokenizer's BOS token unless it
is a chat-turn marker (``<|im_start|>``, see ``CHAT_TURN_TOKENS``), else
``<|endoftext|>`` when the vocabulary has it (the pretraining document separator
of GPT-2 and SmolLM2), else the EOS token;
``start_token="none"`` scores from the second token on; any other string is
used as that token. The choice is part of the fingerprint and of ``describe()``.

Perplexity = exp(-LL / n_scored_tokens). It favours texts split into more
tokens, so measures report total LL beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.errors import GenderscopeError, ModelLoadError
from genderscope.models.base import SeqScore
from genderscope.models.engine import Request
from genderscope.models.generate import Decoding, Prompt
from genderscope.models.hf import LanguageModelAdapter, Planned, first, joined, total
from genderscope.models.source import ModelSource
from genderscope.store import Store


class CausalLM(LanguageModelAdapter):
    """Scores texts and continuations with a pretrained causal LM."""

    kind = "causal"
    auto_class = "AutoModelForCausalLM"
    type_table = "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES"
    wrong_type = "is not a causal LM"

    @classmethod
    def from_pretrained(cls, spec: str | Path, *, revision: str | None = None,
                        device: str | None = None, dtype: str = "float32",
                        store: Store | None = None, start_token: str = "auto",
                        batch_size: int | None = None, max_tokens: int | None = None) -> CausalLM:
        """Load a Hub id, local folder or ``.gguf`` file (de-quantised by transformers;
        deferred with a ``store``: :class:`LanguageModelAdapter`)."""
        return cls._open(ModelSource(spec, revision), device=device,  # type: ignore[return-value]
                         dtype=dtype, store=store, batch_size=batch_size,
                         max_tokens=max_tokens, start_token=start_token)

    @classmethod
    def _extras(cls, tokenizer: Any, spec: str, **options: str) -> dict[str, Any]:
        start_id, start_str = resolve_start_token(tokenizer, options["start_token"], spec)
        return {"start_token": start_str, "start_token_id": start_id}

    @property
    def start_token_id(self) -> int | None:
        return self._extra["start_token_id"]

    def _ids(self, text: str) -> list[int]:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return ([self.start_token_id] if self.start_token_id is not None else []) + list(ids)

    def log_likelihood(self, texts: Sequence[str], *, progress: bool = False) -> list[SeqScore]:
        """Total and per-token log-likelihood of each text (see module doc)."""
        def plan(i: int) -> Planned:
            ids = self._ids(texts[i])
            return [Request(tuple(ids), tuple((t - 1, ids[t]) for t in range(1, len(ids))))], \
                first

        arrays = self._cached("ll", list(texts), plan, progress=progress,
                              label="log-likelihood")
        pieces = self.tokenize(texts)  # cached: a fully cached call loads no tokenizer
        scores = []
        for arr, toks in zip(arrays, pieces, strict=True):
            # the scored tokens: every piece after the start token (the first piece too
            # when there is one)
            scored = tuple(toks if self.start_token_id is not None else toks[1:])
            scores.append(SeqScore(float(arr.sum()), int(arr.size), tuple(arr.tolist()),
                                   scored))
        return scores

    def log_likelihood_start_first(self, texts: Sequence[str], *, progress: bool = False
                                   ) -> list[SeqScore]:
        """Per-token log-likelihood by bias-bench's causal-LM rule (Meade et al. 2022,
        ``StereoSetRunner._likelihood_score_generative``): the first token is scored
        after the start token alone, every later token after the text's earlier tokens
        *without* the start token. (:meth:`log_likelihood` keeps the start token in the
        context of every token.) Needs a start token."""
        if self.start_token_id is None:
            raise GenderscopeError("bias-bench scoring needs a start token; load the model "
                                   "without --start-token none")
        start = self.start_token_id

        def plan(i: int) -> Planned:
            ids = list(self.tokenizer(texts[i], add_special_tokens=False)["input_ids"])
            if not ids:
                raise GenderscopeError(f"text {texts[i]!r} produced no tokens")
            reqs = [Request((start,), ((0, ids[0]),))]
            if len(ids) > 1:
                reqs.append(Request(tuple(ids), tuple((t - 1, ids[t])
                                                      for t in range(1, len(ids)))))
            return reqs, joined

        arrays = self._cached("ll-first-start", list(texts), plan, progress=progress,
                              label="log-likelihood (bias-bench rule)")
        pieces = self.tokenize(texts)
        return [SeqScore(float(arr.sum()), int(arr.size), tuple(arr.tolist()), tuple(toks))
                for arr, toks in zip(arrays, pieces, strict=True)]

    def continuation_logprob(self, pairs: Sequence[tuple[str, str]], *,
                             progress: bool = False) -> np.ndarray:
        """log P(continuation | prefix), nats. The pair is tokenized as one string; the
        continuation's tokens are those starting at or after the prefix's end (a token
        straddling the boundary counts as continuation)."""
        keys = [f"{p}\x1f{c}" for p, c in pairs]

        def plan(i: int) -> Planned:
            return [self._plan_continuation(*pairs[i])], total

        vals = self._cached("cont", keys, plan, progress=progress, label="continuations")
        return np.array([float(v[0]) for v in vals])

    def chat(self, prompts: Sequence[Prompt], decoding: Decoding | None = None, *,
             repetitions: Sequence[int] | None = None, batch_size: int = 8,
             progress: bool = False) -> list[str]:
        """The model's answer to each prompt (chat template applied; see
        :mod:`genderscope.models.generate`). ``repetitions[i]``: the repetition index of
        prompt i (default 0), part of its cache key and of its sampling seed. Answers
        are cached in the store; only the missing ones are generated."""
        from genderscope.models.generate import (
            cached_generations,
            generate_local,
            generation_key,
            item_seed,
            render_chat,
        )

        dec = decoding or Decoding()
        reps = list(repetitions) if repetitions is not None else [0] * len(prompts)
        rendered = self._rendered(prompts, render_chat)
        keys = [generation_key(r, dec, k) for r, k in zip(rendered, reps, strict=True)]

        def compute(idx: list[int]) -> list[str]:
            texts = [rendered[i] for i in idx]
            seeds = [item_seed(dec, rendered[i], reps[i]) for i in idx]
            debiased = getattr(self.engine, "generate", None)  # Self-Debias decodes itself
            if debiased is not None:
                return debiased(self.tokenizer, texts, dec, seeds, batch_size=batch_size)
            return generate_local(self.model, self.tokenizer, self.device, texts, dec, seeds,
                                  batch_size=batch_size)

        return cached_generations(self.store, self.fingerprint, keys, compute,
                                  progress=progress, label="generating",
                                  chunk=4 * batch_size, sizes=[len(r) for r in rendered])

    def _rendered(self, prompts: Sequence[Prompt], render: Callable[..., str]) -> list[str]:
        """Each prompt with the chat template applied; memoised in the store (namespace
        ``chat-prompt``, keyed by the messages as JSON) so that a rerun whose answers are
        all cached loads no tokenizer and no weights."""
        import json

        from genderscope.models.generate import as_messages

        msgs = [json.dumps(as_messages(p), ensure_ascii=False, sort_keys=True) for p in prompts]
        by_msgs = dict(zip(msgs, prompts, strict=True))

        def rendered(missing: list[str]) -> list[str]:
            return [json.dumps({"text": render(self.tokenizer, by_msgs[m], self.source)},
                               ensure_ascii=False) for m in missing]

        found = self._stored_texts("chat-prompt", msgs, rendered)
        return [json.loads(found[m])["text"] for m in msgs]

    def _plan_continuation(self, prefix: str, continuation: str) -> Request:
        if not continuation:
            raise GenderscopeError("empty continuation")
        enc = self.tokenizer(prefix + continuation, add_special_tokens=False,
                             return_offsets_mapping=True)
        ids = list(enc["input_ids"])
        first = next((j for j, (a, b) in enumerate(enc["offset_mapping"])
                      if b > len(prefix)), len(ids))
        shift = 0
        if self.start_token_id is not None:
            ids = [self.start_token_id] + ids
            shift = 1
        start = max(first + shift, 1)
        if start >= len(ids):
            raise GenderscopeError(f"continuation {continuation!r} produced no tokens")
        return Request(tuple(ids), tuple((t - 1, ids[t]) for t in range(start, len(ids))))


CHAT_TURN_TOKENS = frozenset({"<|im_start|>", "<|im_end|>"})
"""ChatML turn markers: a chat model reads text after ``<|im_start|>`` as a role name
("system", "user"), so plain text scored after it is out of distribution (SmolLM2:
log p(" a mother." | "he is") exceeded the same after "she is" by 0.90 nats with
``<|im_start|>`` and fell 1.93 nats below it with ``<|endoftext|>``)."""
DOCUMENT_SEPARATOR = "<|endoftext|>"


def resolve_start_token(tokenizer: object, start_token: str, spec: str) -> tuple[int | None, str]:
    """Token id and name of the start-of-text token (see module doc)."""
    if start_token == "none":
        return None, "none"
    if start_token == "auto":
        for tok in (getattr(tokenizer, "bos_token", None), DOCUMENT_SEPARATOR,
                    getattr(tokenizer, "eos_token", None)):
            if tok and tok not in CHAT_TURN_TOKENS:
                tid = _vocab_id(tokenizer, tok)
                if tid is not None:
                    return tid, str(tok)
        raise ModelLoadError(f"{spec}: tokenizer has no usable BOS or EOS token; pass "
                             "--start-token TOKEN or none")
    tid = _vocab_id(tokenizer, start_token)
    if tid is None:
        raise ModelLoadError(f"{spec}: start token {start_token!r} is not in the vocabulary")
    return tid, start_token


def _vocab_id(tokenizer: object, token: str) -> int | None:
    """The id of ``token``, or None when the tokenizer maps it to its unknown token
    (the unknown token itself counts as known: SmolLM2's is ``<|endoftext|>``)."""
    tid = tokenizer.convert_tokens_to_ids(token)  # type: ignore[attr-defined]
    unk = getattr(tokenizer, "unk_token_id", None)
    if tid is None or (unk is not None and tid == unk
                       and token != getattr(tokenizer, "unk_token", None)):
        return None
    return int(tid)
