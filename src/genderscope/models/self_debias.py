"""Self-Debias (Schick et al. 2021, "Self-Diagnosis and Self-Debiasing", sec. 3, eq. 4-5)
for causal and masked LMs, inside the batched forward engine, and for generation.

For a position with context x, let p(w | x) be the model's distribution there (the next
token of a causal LM, the masked token of a masked LM) and p(w | sdb_k(x)) the
distribution after the k-th debiasing prefix (a sentence that describes the bias, put
before the text). With

    Δ(w) = max(0, max_k p(w | sdb_k(x)) - p(w | x))
    α(w) = max(ε, exp(-λ Δ(w)))

the debiased distribution is p~(w | x) ∝ α(w) p(w | x): tokens the prefix makes more
likely are pushed down. Defaults as bias-bench (``self_debiasing.py`` /
``generation.py``): λ (``decay_constant``) 50, ε 0.01, and bias-bench's gender prefix
(``benchmark/crows/crows.py``: "The following text discriminates against people because
of their gender: ").

Inputs: a causal LM's prefix tokens go after the start token when the row begins with it
and before the text when it does not (no start token, or a request without one, as the
later tokens of StereoSet's ``--scoring bias-bench``), so the regular row
[s, w_1, ..., w_n] and the prefixed row [s, q_1, ..., q_P, w_1, ..., w_n] are read at
positions t and t + P. A masked LM's go
after its first special token, as bias-bench's ``MaskedLMWrapper`` builds them
([CLS] + tokens of "[CLS] <prefix>" less that [CLS] + the text after [CLS]); every
masked position read is rescaled. Each batch runs once per prefix more (cost (1 + K)
forward passes); the debiased log-probabilities are computed in log space at the
positions read only. Generation (:mod:`genderscope.models.self_debias_generate`) applies
the same rescaling to every step's next-token distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from genderscope.core.kinds import LM
from genderscope.errors import GenderscopeError
from genderscope.models.engine import ForwardEngine
from genderscope.models.self_debias_generate import (  # noqa: F401 - re-exported
    debiased_logprobs,
    generate_self_debiased,
)

if TYPE_CHECKING:
    from genderscope.models.hf import LanguageModelAdapter

GENDER_PREFIX = "The following text discriminates against people because of their gender: "
"""bias-bench's Self-Debias prefix for gender (CrowS-Pairs, StereoSet)."""
DECAY_CONSTANT = 50.0
EPSILON = 0.01


class SelfDebiasEngine(ForwardEngine):
    """A :class:`ForwardEngine` whose log-probabilities are Self-Debias's p~."""

    def __init__(self, base: ForwardEngine, prefix_ids: Sequence[Sequence[int]],
                 lead_id: int | None, decay_constant: float, epsilon: float) -> None:
        k = len(prefix_ids)
        super().__init__(base.model, base.pad_id, base.device, max_batch=base.max_batch,
                         max_tokens=max(256, base.max_tokens // (1 + k)))
        self.prefix_ids = [list(p) for p in prefix_ids]
        self.lead_id = lead_id
        """The prefix goes after this token in a row that begins with it, else first."""
        self.decay_constant = float(decay_constant)
        self.epsilon = float(epsilon)
        self.head_rows = max(1, base.head_rows // (1 + k))

    def generate(self, tokenizer: Any, rendered: Sequence[str], decoding: Any,
                 seeds: Sequence[int], *, batch_size: int) -> list[str]:
        """Answers to rendered chat prompts, each step's next-token distribution
        debiased (:func:`genderscope.models.self_debias_generate.generate_self_debiased`)."""
        return generate_self_debiased(self.model, tokenizer, self.device, rendered, decoding,
                                      seeds, self.prefix_ids, self.decay_constant,
                                      self.epsilon, batch_size=batch_size)

    def _gathered(self, ids: Any, mask: Any, where: Any, split: bool) -> list[Any]:
        """The regular rows' gathered outputs, then those of the rows after each prefix."""
        import torch

        n = ids.shape[0]
        after_lead = (ids[:, :1] == self.lead_id) if self.lead_id is not None else \
            torch.zeros(n, 1, dtype=torch.bool, device=ids.device)
        longest = int(ids.shape[1]) + max(len(p) for p in self.prefix_ids)
        if self.max_positions and longest > self.max_positions:
            raise GenderscopeError(
                f"Self-Debias: a prefixed input has {longest} tokens, more than the model's "
                f"{self.max_positions} positions; use a shorter --prefix or shorter texts")
        out = super()._gathered(ids, mask, where, split)
        for pre in self.prefix_ids:
            pre_t = torch.tensor(pre, dtype=ids.dtype, device=ids.device).expand(n, -1)
            ones = torch.ones(n, len(pre), dtype=mask.dtype, device=mask.device)
            # the rows that begin with the lead token get the prefix after it, the others
            # before their first token; either way every position moves by len(pre)
            ids_k = torch.where(after_lead, torch.cat([ids[:, :1], pre_t, ids[:, 1:]], 1),
                                torch.cat([pre_t, ids], 1))
            mask_k = torch.where(after_lead, torch.cat([mask[:, :1], ones, mask[:, 1:]], 1),
                                 torch.cat([ones, mask], 1))
            shifted = torch.stack([where[0], where[1] + len(pre)])
            out += super()._gathered(ids_k, mask_k, shifted, split)
        return out

    def _combined(self, logprobs: list[Any]) -> Any:
        return debiased_logprobs(logprobs[0], logprobs[1:], self.decay_constant, self.epsilon)


def prefix_token_ids(adapter: LanguageModelAdapter, prefix: str) -> list[int]:
    """The prefix's tokens as they go into a row: a causal LM's tokens of the prefix; a
    masked LM's tokens of "<first special token> <prefix>" less that token (bias-bench's
    ``" ".join([cls_token, prefix])``, so a byte-level BPE sees the space)."""
    tok = adapter.tokenizer
    if adapter.kind == "causal":
        return list(tok(prefix, add_special_tokens=False)["input_ids"])
    lead = _leading_special(adapter)
    if lead is None:
        return list(tok(prefix, add_special_tokens=False)["input_ids"])
    ids = list(tok(f"{tok.convert_ids_to_tokens(lead)} {prefix}",
                   add_special_tokens=False)["input_ids"])
    return ids[1:] if ids[:1] == [lead] else ids


def _leading_special(adapter: LanguageModelAdapter) -> int | None:
    """The special token a masked LM's tokenizer puts first ([CLS], <s>), or None."""
    enc = adapter.tokenizer("a", add_special_tokens=True, return_special_tokens_mask=True)
    ids, special = list(enc["input_ids"]), list(enc["special_tokens_mask"])
    return int(ids[0]) if ids and special[0] else None


def apply_self_debias(adapter: LanguageModelAdapter, prefixes: Sequence[str],
                      decay_constant: float = DECAY_CONSTANT, epsilon: float = EPSILON) -> None:
    """Replace a loaded adapter's engine by a :class:`SelfDebiasEngine`."""
    if adapter.kind not in LM:
        raise GenderscopeError(f"{adapter.source}: Self-Debias needs a causal or masked LM")
    ids = [prefix_token_ids(adapter, p) for p in prefixes]
    if not ids or any(not x for x in ids):
        raise GenderscopeError("Self-Debias needs at least one non-empty prefix")
    lead = adapter._extra.get("start_token_id") if adapter.kind == "causal" \
        else _leading_special(adapter)
    adapter._engine = SelfDebiasEngine(adapter.engine, ids, lead, decay_constant, epsilon)
