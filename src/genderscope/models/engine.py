"""Batched forward passes with de-duplication and length bucketing.

A *read* is (position, token id): log P(token id) from the output distribution at that
position. The engine runs each distinct input once (many requests share one masked
sentence), in length-sorted batches padded on the right with an attention mask, bounded by a
token budget and a sequence cap sized to the device (:func:`device_budget`), and computes
``log_softmax`` only at the positions read, gathered on the device. Where the model splits
cleanly into a body and an output head (BERT's ``cls``, GPT-2's and Llama's ``lm_head``),
the head runs only at the positions read; the split is checked once against the full model's
output and dropped if they disagree (e.g. Gemma's logit soft-capping lives outside the
head).

torch is imported on first use, so building :class:`Request` objects is free.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from genderscope.errors import GenderscopeError

Read = tuple[int, int]

CPU_BUDGET = (64, 8192)
"""(sequences, padded tokens) per batch on a CPU."""
GPU_BUDGET = (512, 65536)
"""(sequences, padded tokens) per batch on a GPU with >= 40 GB; a quarter below 20 GB."""
LOGIT_BUDGET = {"cpu": 1 << 22, "gpu": 1 << 26}
"""Logits (rows x vocabulary entries) per output-head chunk: 16 MB of float32 on a CPU,
256 MB on a GPU. Bounds the head's memory whatever the vocabulary (SmolLM2's 49,152
entries: 85 rows per chunk on a CPU); small chunks are also faster on a CPU (CrowS-Pairs,
150 pairs, SmolLM2: 9.2 s with 128-row chunks against 10.3 s with 4,096)."""


def head_rows(vocab_size: int, device: Any) -> int:
    """Positions per output-head chunk for this vocabulary on this device."""
    kind = getattr(device, "type", str(device))
    budget = LOGIT_BUDGET["cpu" if kind == "cpu" else "gpu"]
    return max(1, budget // max(1, vocab_size))


@dataclass(frozen=True)
class Request:
    """One model input and the (position, token id) log-probabilities wanted from it."""

    input_ids: tuple[int, ...]
    reads: tuple[Read, ...]


def device_budget(device: Any) -> tuple[int, int]:
    """(max sequences, max padded tokens) per batch for ``device`` (a torch.device)."""
    kind = getattr(device, "type", str(device))
    if kind == "cuda":
        import torch

        total = torch.cuda.get_device_properties(device).total_memory / 2**30
        seqs, toks = GPU_BUDGET
        scale = 1 if total >= 40 else 2 if total >= 20 else 4
        return seqs // scale, toks // scale
    if kind == "mps":
        return 256, 16384
    return CPU_BUDGET


def max_positions(config: Any) -> int | None:
    """The most tokens one input may hold, from a Hugging Face config: learned position
    tables (``max_position_embeddings``, ``n_positions``, ``n_ctx``); RoBERTa-style
    models start positions after the padding index, so two fewer. None when unknown."""
    if config is None:
        return None
    for name in ("n_positions", "max_position_embeddings", "n_ctx"):
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            model_type = str(getattr(config, "model_type", ""))
            if "roberta" in model_type or model_type in ("camembert", "longformer"):
                pad = getattr(config, "pad_token_id", None)
                value -= (pad + 1) if isinstance(pad, int) else 2
            return value
    return None


def split_head(model: Any) -> tuple[Any, Any] | None:
    """(body, head) of a ``*ForMaskedLM`` / ``*ForCausalLM`` model whose only module
    besides its base model is the output head, else None."""
    prefix = getattr(model, "base_model_prefix", "")
    body = getattr(model, prefix, None) if prefix else None
    if body is None or body is model:
        return None
    others = [m for _, m in model.named_children() if m is not body]
    return (body, others[0]) if len(others) == 1 else None


def _vocab_size(model: Any) -> int:
    """Rows of the output embedding (the logits' width), else the config's vocab_size,
    else 32,000."""
    try:
        return int(model.get_output_embeddings().weight.shape[0])
    except (AttributeError, TypeError, IndexError):
        pass
    config = getattr(model, "config", None)
    for cfg in (config, getattr(config, "text_config", None)):
        size = getattr(cfg, "vocab_size", None)
        if isinstance(size, int) and size > 0:
            return size
    return 32_000


class ForwardEngine:
    """Runs a Hugging Face model over distinct inputs in length-sorted batches of at most
    ``max_batch`` sequences and ``max_tokens`` padded tokens (None: :func:`device_budget`);
    ``n_forward`` counts forward calls (batches)."""

    def __init__(self, model: Any, pad_id: int, device: Any,
                 max_batch: int | None = None, max_tokens: int | None = None) -> None:
        self.model = model
        self.pad_id = pad_id
        self.device = device
        seqs, toks = device_budget(device)
        self.max_batch = max_batch or seqs
        self.max_tokens = max_tokens or toks
        self.n_forward = 0
        self.n_sequences = 0
        self._split = split_head(model)
        self._split_checked = False
        self.head_rows = head_rows(_vocab_size(model), device)
        params = inspect.signature(model.forward).parameters
        self._extra_kwargs = {"use_cache": False} if "use_cache" in params else {}
        self.max_positions = max_positions(getattr(model, "config", None))
        """Longest input (tokens) the model takes (None: no known limit)."""

    def check_lengths(self, inputs: Sequence[tuple[int, ...]],
                      describe: Callable[[tuple[int, ...]], str] | None = None) -> None:
        """Refuse, before any forward pass, an input longer than :attr:`max_positions`:
        a one-line :class:`GenderscopeError` naming the item (``describe(ids)``, e.g. the
        decoded text), its length and the limit, never a tensor error."""
        if self.max_positions is None or not inputs:
            return
        longest = max(inputs, key=len)
        if len(longest) > self.max_positions:
            what = describe(longest) if describe is not None else f"{longest[:8]}..."
            what = " ".join(str(what).split())
            shown = what if len(what) <= 80 else what[:77] + "..."
            raise GenderscopeError(
                f"an input of {len(longest)} tokens is longer than the model's limit of "
                f"{self.max_positions} positions: {shown!r}; shorten it or leave it out")

    def run(self, requests: Sequence[Request],
            on_batch: Callable[[int], None] | None = None) -> list[np.ndarray]:
        """Log-probabilities (float64, nats) for each request's reads, in order."""
        wanted: dict[tuple[int, ...], set[Read]] = {}
        for req in requests:
            wanted.setdefault(req.input_ids, set()).update(req.reads)
        self.check_lengths(list(wanted))
        answers: dict[tuple[int, ...], dict[Read, float]] = {}
        for batch in self._batches(sorted(wanted, key=len)):
            answers.update(self._forward(batch, wanted))
            if on_batch is not None:
                on_batch(len(batch))
        return [np.array([answers[r.input_ids][rd] for rd in r.reads], dtype=np.float64)
                for r in requests]

    def _batches(self, inputs: list[tuple[int, ...]]) -> list[list[tuple[int, ...]]]:
        batches: list[list[tuple[int, ...]]] = []
        cur: list[tuple[int, ...]] = []
        for ids in inputs:  # sorted by length: the last one is the longest
            if cur and (len(cur) >= self.max_batch or (len(cur) + 1) * len(ids) > self.max_tokens):
                batches.append(cur)
                cur = []
            cur.append(ids)
        if cur:
            batches.append(cur)
        return batches

    def _forward(self, batch: list[tuple[int, ...]],
                 wanted: dict[tuple[int, ...], set[Read]]
                 ) -> dict[tuple[int, ...], dict[Read, float]]:
        import torch

        width = max(len(ids) for ids in batch)
        ids = np.full((len(batch), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        # distinct positions read (rows of the head) and the reads at each of them
        pos_rows: list[int] = []
        pos_cols: list[int] = []
        read_pos: list[int] = []
        read_tok: list[int] = []
        read_keys: list[tuple[int, Read]] = []
        for i, seq in enumerate(batch):
            ids[i, :len(seq)] = seq
            mask[i, :len(seq)] = 1
            reads = sorted(wanted[seq])
            last = None
            for p, t in reads:
                if p != last:
                    pos_rows.append(i)
                    pos_cols.append(p)
                    last = p
                read_pos.append(len(pos_rows) - 1)
                read_tok.append(t)
                read_keys.append((i, (p, t)))
        with torch.inference_mode():
            ids_t = torch.from_numpy(ids).to(self.device, non_blocking=True)
            mask_t = torch.from_numpy(mask).to(self.device, non_blocking=True)
            where = torch.from_numpy(np.array([pos_rows, pos_cols], dtype=np.int64)).to(
                self.device, non_blocking=True)
            rp = torch.from_numpy(np.asarray(read_pos, dtype=np.int64)).to(self.device)
            rt = torch.from_numpy(np.asarray(read_tok, dtype=np.int64)).to(self.device)
            if self._split is not None and not self._split_checked:
                self._check_split(ids_t[:1, :len(batch[0])], mask_t[:1, :len(batch[0])])
            values = self._logprobs(ids_t, mask_t, where, rp, rt).cpu().numpy()
        self.n_forward += 1
        self.n_sequences += len(batch)
        out: dict[tuple[int, ...], dict[Read, float]] = {seq: {} for seq in batch}
        for (i, rd), v in zip(read_keys, values.tolist(), strict=True):
            out[batch[i]][rd] = v
        return out

    def _gathered(self, ids: Any, mask: Any, where: Any, split: bool) -> list[Any]:
        """The body's hidden states (``split``) or the logits at the positions read, one
        tensor (Self-Debias adds one per prefix)."""
        if split:
            body, _ = self._split  # type: ignore[misc]
            out = body(input_ids=ids, attention_mask=mask, **self._extra_kwargs)[0]
        else:
            out = self.model(input_ids=ids, attention_mask=mask, **self._extra_kwargs).logits
        return [out[where[0], where[1]]]  # (positions, hidden or vocabulary)

    def _combined(self, logprobs: list[Any]) -> Any:
        """The log-probabilities read, from a chunk's :meth:`_gathered` ones (Self-Debias:
        its p~)."""
        return logprobs[0]

    def _logprobs(self, ids: Any, mask: Any, where: Any, read_pos: Any, read_tok: Any,
                  *, split: bool | None = None) -> Any:
        """log P(read_tok) at the gathered positions, float32 on the device."""
        import torch

        split = self._split is not None if split is None else split
        gathered = self._gathered(ids, mask, where, split)
        values = torch.empty(read_pos.shape[0], dtype=torch.float32, device=gathered[0].device)
        step = self.head_rows
        for start, a, b in self._head_chunks(gathered[0].shape[0], read_pos):
            lp = self._combined([self._chunk_logprobs(g[start:start + step], split)
                                 for g in gathered])
            values[a:b] = lp[read_pos[a:b] - start, read_tok[a:b]]
        return values

    def _head_chunks(self, n_rows: int, read_pos: Any) -> Iterator[tuple[int, int, int]]:
        """``(start, lo, hi)`` for each chunk of :attr:`head_rows` gathered rows that holds
        read positions: rows ``start:start + head_rows`` answer ``read_pos[lo:hi]``
        (``read_pos`` sorted). Chunks bound the output head's memory."""
        import torch

        step = self.head_rows
        bounds = torch.searchsorted(read_pos, torch.arange(
            0, n_rows + step, step, device=read_pos.device)).tolist()
        for k, start in enumerate(range(0, n_rows, step)):
            if bounds[k] != bounds[k + 1]:
                yield start, bounds[k], bounds[k + 1]

    def _chunk_logprobs(self, rows: Any, split: bool) -> Any:
        """Next-token log-probabilities (float32) of one chunk of gathered rows: hidden
        states through the split-off head when ``split``, else logits."""
        import torch

        if split:
            rows = self._split[1](rows.unsqueeze(0)).squeeze(0)  # type: ignore[index]
        return torch.log_softmax(rows.float(), dim=-1)

    def _check_split(self, ids: Any, mask: Any) -> None:
        """Compare the split head with the full model on one sequence; drop it on mismatch."""
        import torch

        self._split_checked = True
        n = int(mask.sum())
        where = torch.stack([torch.zeros(n, dtype=torch.long, device=ids.device),
                             torch.arange(n, device=ids.device)])
        pos = torch.arange(n, device=ids.device)
        tok = ids[0, :n]
        a = self._logprobs(ids, mask, where, pos, tok, split=True)
        b = self._logprobs(ids, mask, where, pos, tok, split=False)
        tol = 1e-3 if next(self.model.parameters()).dtype == torch.float32 else 5e-2
        if not bool(torch.allclose(a, b, atol=tol, rtol=0)):  # a, b: float32 (_logprobs)
            self._split = None
