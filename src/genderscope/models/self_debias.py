"""Self-Debias (Schick et al. 2021, "Self-Diagnosis and Self-Debiasing", sec. 3, eq. 4-5)
for causal LMs, inside the batched forward engine.

For a text position with context x, let p(w | x) be the model's next-token distribution
and p(w | sdb_k(x)) the distribution after the k-th debiasing prefix (a sentence that
describes the bias, put before the text). With

    Δ(w) = max(0, max_k p(w | sdb_k(x)) - p(w | x))
    α(w) = max(ε, exp(-λ Δ(w)))

the debiased distribution is p~(w | x) ∝ α(w) p(w | x): tokens the prefix makes more
likely are pushed down. Defaults as bias-bench (``self_debiasing.py`` /
``generation.py``): λ (``decay_constant``) 50, ε 0.01, and bias-bench's gender prefix
(``benchmark/crows/crows.py``: "The following text discriminates against people because
of their gender: ").

Inputs: the prefix's tokens go after the start token (before the text when there is
none), so the regular row [s, w_1, ..., w_n] and the prefixed row
[s, q_1, ..., q_P, w_1, ..., w_n] are read at positions t and t + P. Each batch runs
once per prefix more (cost (1 + K) forward passes); the debiased log-probabilities are
computed in log space at the positions read only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from genderscope.errors import GenderscopeError
from genderscope.models.engine import ForwardEngine

if TYPE_CHECKING:
    from genderscope.models.hf import LanguageModelAdapter

GENDER_PREFIX = "The following text discriminates against people because of their gender: "
"""bias-bench's Self-Debias prefix for gender (CrowS-Pairs, StereoSet)."""
DECAY_CONSTANT = 50.0
EPSILON = 0.01


def debiased_logprobs(lp_regular: Any, lp_biased: Sequence[Any], decay_constant: float,
                      epsilon: float) -> Any:
    """log p~ (rows x vocabulary) from log p(. | x) and each prefix's log p(. | sdb_k(x))."""
    import torch

    p_reg = lp_regular.exp()
    p_b = torch.stack([lp.exp() for lp in lp_biased]).amax(0)
    delta = (p_b - p_reg).clamp_min(0.0)
    log_alpha = (-decay_constant * delta).clamp_min(float(torch.log(torch.tensor(epsilon))))
    out = lp_regular + log_alpha
    return out - torch.logsumexp(out, dim=-1, keepdim=True)


class SelfDebiasEngine(ForwardEngine):
    """A :class:`ForwardEngine` whose log-probabilities are Self-Debias's p~."""

    def __init__(self, base: ForwardEngine, prefix_ids: Sequence[Sequence[int]],
                 insert_at: int, decay_constant: float, epsilon: float) -> None:
        k = len(prefix_ids)
        super().__init__(base.model, base.pad_id, base.device, max_batch=base.max_batch,
                         max_tokens=max(256, base.max_tokens // (1 + k)))
        self.prefix_ids = [list(p) for p in prefix_ids]
        self.insert_at = insert_at
        self.decay_constant = float(decay_constant)
        self.epsilon = float(epsilon)
        self.head_rows = max(1, base.head_rows // (1 + k))
        config = getattr(base.model, "config", None)
        self.max_positions = getattr(config, "max_position_embeddings", None) or getattr(
            config, "n_positions", None)

    def _gathered(self, ids: Any, mask: Any, where: Any, split: bool) -> Any:
        out = self._hidden_or_logits(ids, mask, split)
        return out[where[0], where[1]]

    def _logprobs(self, ids: Any, mask: Any, where: Any, read_pos: Any, read_tok: Any,
                  *, split: bool | None = None) -> Any:
        import torch

        split = self._split is not None if split is None else split
        regular = self._gathered(ids, mask, where, split)
        biased = []
        a = self.insert_at
        longest = int(ids.shape[1]) + max(len(p) for p in self.prefix_ids)
        if self.max_positions and longest > self.max_positions:
            raise GenderscopeError(
                f"Self-Debias: a prefixed input has {longest} tokens, more than the model's "
                f"{self.max_positions} positions; use a shorter --prefix or shorter texts")
        for pre in self.prefix_ids:
            pre_t = torch.tensor(pre, dtype=ids.dtype, device=ids.device)
            n = ids.shape[0]
            ids_k = torch.cat([ids[:, :a], pre_t.expand(n, -1), ids[:, a:]], dim=1)
            mask_k = torch.cat([mask[:, :a], torch.ones(n, len(pre), dtype=mask.dtype,
                                                          device=mask.device), mask[:, a:]], 1)
            shifted = torch.stack([where[0], where[1] + len(pre)])
            biased.append(self._gathered(ids_k, mask_k, shifted, split))
        values = torch.empty(read_pos.shape[0], dtype=torch.float32, device=regular.device)
        step = self.head_rows
        for start, lo, hi in self._head_chunks(regular.shape[0], read_pos):
            lp = debiased_logprobs(
                self._chunk_logprobs(regular[start:start + step], split),
                [self._chunk_logprobs(b[start:start + step], split) for b in biased],
                self.decay_constant, self.epsilon)
            values[lo:hi] = lp[read_pos[lo:hi] - start, read_tok[lo:hi]]
        return values


def apply_self_debias(adapter: LanguageModelAdapter, prefixes: Sequence[str],
                      decay_constant: float = DECAY_CONSTANT, epsilon: float = EPSILON) -> None:
    """Replace a loaded causal adapter's engine by a :class:`SelfDebiasEngine`."""
    if adapter.kind != "causal":
        raise GenderscopeError(f"{adapter.source}: Self-Debias adjusts next-token "
                               "distributions and needs a causal LM, not a masked LM")
    tok = adapter.tokenizer
    ids = [list(tok(p, add_special_tokens=False)["input_ids"]) for p in prefixes]
    if not ids or any(not x for x in ids):
        raise GenderscopeError("Self-Debias needs at least one non-empty prefix")
    start = adapter._extra.get("start_token_id")
    adapter._engine = SelfDebiasEngine(adapter.engine, ids, 1 if start is not None else 0,
                                       decay_constant, epsilon)
