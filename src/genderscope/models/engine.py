"""Batched forward passes with de-duplication and length bucketing.

A *read* is (position, token id): "give me log P(token id) from the output
distribution at this position". Many requests share one input (all person
words scored against the same masked sentence): the engine runs each distinct
input once, sorts inputs by length so that batches hold similar lengths (little
padding), pads on the right with an attention mask (padding is never attended
to), and computes ``log_softmax`` only at the positions that are read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

Read = tuple[int, int]


@dataclass(frozen=True)
class Request:
    """One model input and the (position, token id) log-probabilities wanted from it."""

    input_ids: tuple[int, ...]
    reads: tuple[Read, ...]


class ForwardEngine:
    """Runs a Hugging Face model over distinct inputs in length-sorted batches.

    ``max_batch`` caps sequences per batch, ``max_tokens`` caps padded tokens
    per batch. ``n_forward`` counts forward calls (batches), for tests.
    """

    def __init__(self, model: torch.nn.Module, pad_id: int, device: torch.device,
                 max_batch: int = 64, max_tokens: int = 8192) -> None:
        self.model = model
        self.pad_id = pad_id
        self.device = device
        self.max_batch = max_batch
        self.max_tokens = max_tokens
        self.n_forward = 0
        self.n_sequences = 0

    def run(self, requests: Sequence[Request],
            on_batch: Callable[[int], None] | None = None) -> list[np.ndarray]:
        """Log-probabilities (float64, nats) for each request's reads, in order."""
        wanted: dict[tuple[int, ...], set[Read]] = {}
        for req in requests:
            wanted.setdefault(req.input_ids, set()).update(req.reads)
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

    @torch.inference_mode()
    def _forward(self, batch: list[tuple[int, ...]],
                 wanted: dict[tuple[int, ...], set[Read]]
                 ) -> dict[tuple[int, ...], dict[Read, float]]:
        width = max(len(ids) for ids in batch)
        ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, seq in enumerate(batch):
            ids[i, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[i, :len(seq)] = 1
        logits = self.model(input_ids=ids.to(self.device),
                            attention_mask=mask.to(self.device)).logits
        self.n_forward += 1
        self.n_sequences += len(batch)
        rows, cols, per_seq = [], [], []
        for i, seq in enumerate(batch):
            positions = sorted({p for p, _ in wanted[seq]})
            per_seq.append(positions)
            rows.extend([i] * len(positions))
            cols.extend(positions)
        picked = logits[torch.tensor(rows), torch.tensor(cols)].float()
        logp = torch.log_softmax(picked, dim=-1).cpu()
        out: dict[tuple[int, ...], dict[Read, float]] = {}
        k = 0
        for seq, positions in zip(batch, per_seq, strict=True):
            row_of = {p: k + j for j, p in enumerate(positions)}
            k += len(positions)
            out[seq] = {(p, t): float(logp[row_of[p], t]) for p, t in wanted[seq]}
        return out
