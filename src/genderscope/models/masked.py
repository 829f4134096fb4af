"""Masked language model adapter (BERT, RoBERTa, XLM-R, ... any AutoModelForMaskedLM).

Multi-wordpiece candidates get one mask per piece and are scored by a named
strategy:

- ``l2r`` (default): pieces filled left to right; piece k is predicted with
  pieces 1..k-1 filled in and pieces k..n masked;
  log P(w) = sum_k log P(t_k | t_<k, context).
- ``independent``: all n pieces masked at once; log P(w) = sum_k log P(t_k | context)
  (an approximation that ignores dependence between pieces).
- ``first-piece`` (legacy): ONE mask, scored by the first piece only, as several
  reference implementations did. Documented for comparison only; biased towards
  words whose first piece is frequent.

Pseudo-log-likelihood (Salazar et al. 2020, eq. 1): PLL(W) = sum_t log P(w_t | W_{\\t}),
each token masked in turn; optionally only over a chosen subset of pieces
(CrowS-Pairs scores only the unmodified tokens, Nangia et al. 2020, Sec. 3).

Span pieces (:meth:`MaskedLM.span_logprobs`): log P of each piece that overlaps
given character spans of a text, under a named rule (``SPAN_RULES``):

- ``l2r``: pieces predicted left to right; piece k sees the span pieces before it
  filled in and those after it masked;
- ``l2r-drop``: as ``l2r``, but the span pieces after k are left out of the input
  (one mask), as StereoSet's reference code builds its inputs
  (``context.replace("BLANK", decode(pieces[:k]) + mask)``);
- ``pll``: each span piece masked alone, every other piece visible.

The candidate and hidden spans are located by character offsets of the full
sentence, so SentencePiece/BPE tokenizers (RoBERTa's leading-space ``Ġ``) get
the pieces the word really has in context; a zero-width piece (a bare ``Ġ``
that a byte-level BPE did not merge) belongs to the word that starts there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.errors import GenderscopeError, ModelLoadError
from genderscope.models.base import (
    SLOT,
    SPAN_RULES,
    STRATEGIES,
    FillQuery,
    SeqScore,
    SpanMasking,
    SpanRule,
    Strategy,
)
from genderscope.models.engine import Request
from genderscope.models.hf import LanguageModelAdapter, Planned, joined, total
from genderscope.models.source import ModelSource
from genderscope.store import Store


def _render(template: str, candidate: str) -> tuple[str, tuple[int, int], list[tuple[int, int]]]:
    """Sentence with the candidate and hidden words filled in, the candidate's
    character span, and each hidden span's character span."""
    parts: list[str] = []
    pos = 0
    target_span = (0, 0)
    hidden: list[tuple[int, int]] = []
    for m in re.finditer(r"\{target\}|\[\[(.+?)\]\]", template):
        parts.append(template[pos:m.start()])
        start = sum(len(p) for p in parts)
        if m.group(0) == SLOT:
            parts.append(candidate)
            target_span = (start, start + len(candidate))
        else:
            parts.append(m.group(1))
            hidden.append((start, start + len(m.group(1))))
        pos = m.end()
    parts.append(template[pos:])
    return "".join(parts), target_span, hidden


def _overlaps(a: int, b: int, s0: int, s1: int) -> bool:
    """Piece at characters [a, b) lies in span [s0, s1); a zero-width piece (a bare
    word-start ``Ġ`` of a byte-level BPE) belongs to the word starting at a."""
    return s0 <= a < s1 if a == b else (a < s1 and b > s0)


class MaskedLM(LanguageModelAdapter):
    """Scores fills and pseudo-log-likelihoods with a pretrained masked LM
    (:meth:`from_pretrained`); ``store`` caches every answer by model fingerprint."""

    kind = "masked"
    auto_class = "AutoModelForMaskedLM"
    type_table = "MODEL_FOR_MASKED_LM_MAPPING_NAMES"
    wrong_type = "has no masked-LM head in transformers; is it a causal LM?"

    @classmethod
    def from_pretrained(cls, spec: str | Path, *, revision: str | None = None,
                        device: str | None = None, dtype: str = "float32",
                        store: Store | None = None, batch_size: int | None = None,
                        max_tokens: int | None = None) -> MaskedLM:
        """Load a Hub id or local folder; refuse checkpoints without a trained LM head
        (deferred with a ``store``: :class:`LanguageModelAdapter`)."""
        source = ModelSource(spec, revision)
        if source.gguf_file:
            raise ModelLoadError(f"{spec}: GGUF files hold causal LMs; use a causal model kind")
        return cls._open(source, device=device, dtype=dtype, store=store,  # type: ignore[return-value]
                         batch_size=batch_size, max_tokens=max_tokens)

    @classmethod
    def _extras(cls, tokenizer: Any, spec: str, **options: str) -> dict[str, Any]:
        if tokenizer.mask_token_id is None:
            raise ModelLoadError(f"{spec}: tokenizer has no mask token")
        return {}

    # -- fills -------------------------------------------------------------------
    def fill_logprobs(self, queries: Sequence[FillQuery], *, strategy: Strategy = "l2r",
                      span_masking: SpanMasking = "piece", progress: bool = False) -> np.ndarray:
        """log P(candidate at ``{target}``) in nats for each query (see module doc)."""
        if strategy not in STRATEGIES:
            raise GenderscopeError(f"unknown strategy {strategy!r}; choose one of "
                                   f"{', '.join(STRATEGIES)}")
        if span_masking not in ("piece", "word"):
            raise GenderscopeError(f"unknown span masking {span_masking!r}; use piece or word")
        keys = [f"{q.template}\x1f{q.candidate}" for q in queries]

        def plan(i: int) -> Planned:
            return self._plan_fill(queries[i], strategy, span_masking), total

        vals = self._cached(f"fill:{strategy}:{span_masking}", keys, plan,
                            progress=progress, label="scoring fills")
        return np.array([float(v[0]) for v in vals], dtype=np.float64)

    def _plan_fill(self, q: FillQuery, strategy: str, span_masking: str) -> list[Request]:
        text, (t0, t1), hidden = _render(q.template, q.candidate)
        enc = self.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)
        ids: list[int] = enc["input_ids"]
        offsets = enc["offset_mapping"]
        special = enc["special_tokens_mask"]
        label: list[object] = [None] * len(ids)
        for j, ((a, b), sp) in enumerate(zip(offsets, special, strict=True)):
            if sp:
                continue
            if _overlaps(a, b, t0, t1):
                label[j] = "T"
            for h, (h0, h1) in enumerate(hidden):
                if _overlaps(a, b, h0, h1):
                    label[j] = h
        mask = int(self.tokenizer.mask_token_id)
        seq: list[int] = []
        target_pos: list[int] = []
        target_ids: list[int] = []
        seen_hidden: set[object] = set()
        for j, tok in enumerate(ids):
            lab = label[j]
            if lab == "T":
                if strategy == "first-piece" and target_ids:
                    continue
                target_pos.append(len(seq))
                target_ids.append(tok)
                seq.append(mask)
            elif lab is not None:
                if span_masking == "piece":
                    seq.append(mask)
                elif lab not in seen_hidden:
                    h0, h1 = hidden[lab]  # type: ignore[index]
                    seq.extend([mask] * max(1, len(text[h0:h1].split())))
                seen_hidden.add(lab)
            else:
                seq.append(tok)
        if not target_ids:
            raise GenderscopeError(f"candidate {q.candidate!r} produced no tokens in "
                                   f"{q.template!r}")
        unk = getattr(self.tokenizer, "unk_token_id", None)
        if unk is not None and unk in target_ids:
            raise GenderscopeError(f"candidate {q.candidate!r} is unknown to the model's "
                                   f"vocabulary (it tokenizes to "
                                   f"{self.tokenizer.unk_token!r}); scoring it would score "
                                   "the unknown token")
        limit = getattr(self.tokenizer, "model_max_length", 10**9) or 10**9
        if len(seq) > min(limit, 10**6):
            raise GenderscopeError(
                f"sentence longer than the model's {limit} tokens: {text[:60]!r}")
        if strategy in ("independent", "first-piece"):
            return [Request(tuple(seq), tuple(zip(target_pos, target_ids, strict=True)))]
        reqs = []
        for k in range(len(target_ids)):
            step = list(seq)
            for j in range(k):
                step[target_pos[j]] = target_ids[j]
            reqs.append(Request(tuple(step), ((target_pos[k], target_ids[k]),)))
        return reqs

    # -- pieces of character spans ---------------------------------------------------
    def span_logprobs(self, texts: Sequence[str],
                      spans: Sequence[Sequence[tuple[int, int]]], *, rule: SpanRule = "l2r",
                      progress: bool = False) -> list[np.ndarray]:
        """log P (nats) of each piece of ``texts[i]`` overlapping a character span in
        ``spans[i]`` (half-open ``(start, end)``), in text order, under ``rule``
        (module doc). Pieces are those of the whole text, found by their offsets."""
        if rule not in SPAN_RULES:
            raise GenderscopeError(f"unknown span rule {rule!r}; choose one of "
                                   f"{', '.join(SPAN_RULES)}")
        if len(spans) != len(texts):
            raise GenderscopeError(f"spans has {len(spans)} entries for {len(texts)} texts")
        keys = [t + "\x1f" + ";".join(f"{a},{b}" for a, b in sp)
                for t, sp in zip(texts, spans, strict=True)]

        def plan(i: int) -> Planned:
            return self._plan_spans(texts[i], spans[i], rule), joined

        return self._cached(f"span:{rule}", keys, plan, progress=progress,
                            label="scoring spans")

    def _plan_spans(self, text: str, spans: Sequence[tuple[int, int]],
                    rule: str) -> list[Request]:
        enc = self.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)
        ids: list[int] = enc["input_ids"]
        chosen = [j for j, ((a, b), sp) in enumerate(zip(enc["offset_mapping"],
                                                         enc["special_tokens_mask"], strict=True))
                  if not sp and any(_overlaps(a, b, s0, s1) for s0, s1 in spans)]
        if not chosen:
            raise GenderscopeError(f"spans {list(spans)} cover no token of {text[:60]!r}")
        mask = int(self.tokenizer.mask_token_id)
        reqs = []
        for k, j in enumerate(chosen):
            later = set(chosen[k + 1:]) if rule != "pll" else set()
            if rule == "l2r-drop":  # later pieces come after j: j keeps its position
                step = [t for p, t in enumerate(ids) if p not in later]
            else:
                step = [mask if p in later else t for p, t in enumerate(ids)]
            step[j] = mask
            reqs.append(Request(tuple(step), ((j, ids[j]),)))
        return reqs

    # -- pseudo-log-likelihood ------------------------------------------------------
    def pseudo_log_likelihood(self, texts: Sequence[str], *,
                              positions: Sequence[Sequence[bool] | None] | None = None,
                              progress: bool = False) -> list[SeqScore]:
        """PLL of each text (Salazar et al. 2020), over all pieces or, given
        ``positions[i]``, those of ``tokenize(texts[i])`` marked True."""
        if positions is not None and len(positions) != len(texts):
            raise GenderscopeError(f"positions has {len(positions)} entries for {len(texts)} texts")
        sel = list(positions) if positions is not None else [None] * len(texts)
        keys = [t + "\x1f" + ("" if p is None else "".join("1" if b else "0" for b in p))
                for t, p in zip(texts, sel, strict=True)]

        def plan(i: int) -> Planned:
            reqs, (n_pieces, chosen) = self._plan_pll(texts[i], sel[i])

            def finish(answers: list[np.ndarray]) -> np.ndarray:
                arr = np.full(n_pieces, np.nan)  # NaN: a piece not scored
                for c, a in zip(chosen, answers, strict=True):
                    arr[c] = float(a[0])
                return arr

            return reqs, finish

        arrays = self._cached("pll", keys, plan, progress=progress, label="pseudo-log-lik")
        pieces = self.tokenize(texts)
        return [SeqScore(float(np.nansum(a)), int(np.count_nonzero(~np.isnan(a))),
                         tuple(a.tolist()), tuple(p)) for a, p in zip(arrays, pieces, strict=True)]

    def _plan_pll(self, text: str, chosen_mask: Sequence[bool] | None
                  ) -> tuple[list[Request], tuple[int, list[int]]]:
        enc = self.tokenizer(text, return_special_tokens_mask=True)
        ids: list[int] = enc["input_ids"]
        piece_pos = [j for j, sp in enumerate(enc["special_tokens_mask"]) if not sp]
        if chosen_mask is not None and len(chosen_mask) != len(piece_pos):
            raise GenderscopeError(f"positions for {text[:40]!r}... has {len(chosen_mask)} "
                                   f"entries; the text has {len(piece_pos)} pieces")
        chosen = [k for k in range(len(piece_pos)) if chosen_mask is None or chosen_mask[k]]
        mask = int(self.tokenizer.mask_token_id)
        reqs = []
        for k in chosen:
            j = piece_pos[k]
            step = list(ids)
            step[j] = mask
            reqs.append(Request(tuple(step), ((j, ids[j]),)))
        return reqs, (len(piece_pos), chosen)

