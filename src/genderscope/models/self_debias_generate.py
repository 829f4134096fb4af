"""Generation with Self-Debias (Schick et al. 2021): every step's next-token distribution is
rescaled as in :mod:`genderscope.models.self_debias`.

As bias-bench's ``GPT2Wrapper.generate_self_debiasing``: each prompt runs as 1 + K rows, the
prompt and the prompt after each debiasing prefix, left-padded with position ids counted
from the first real token; at each step the regular row's distribution is debiased with the
prefixed rows' (``SelfDebiasingLogitsProcessor``), then temperature and nucleus sampling
apply (HF's warpers come after its processors), and the token chosen for the regular row is
appended to every row of that prompt (bias-bench's modified ``sample``). The prefix goes
before the rendered chat prompt (after a start token the tokenizer itself adds, e.g. Llama's
``<s>``). Greedy prompts run ``batch_size`` at a time, shortest first; sampled prompts one
at a time with their own seeded generator (as :mod:`genderscope.models.generate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from genderscope.errors import GenderscopeError
from genderscope.models.generate import (
    Decoding,
    _decoded,
    _eos_ids,
    check_new_tokens,
    cut_at_stop,
    local_decoding,
)


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


def insertion_point(tokenizer: Any, ids: Sequence[int]) -> int:
    """1 when ``ids`` starts with a start token the tokenizer adds on its own, else 0."""
    bos = getattr(tokenizer, "bos_token_id", None)
    if bos is None or not ids or ids[0] != bos:
        return 0
    added = list(tokenizer("a", add_special_tokens=True)["input_ids"])
    return 1 if added[:1] == [bos] else 0


def _nucleus(logprobs: Any, temperature: float, top_p: float) -> Any:
    """Probabilities after temperature and nucleus (top-p) filtering, as HF's
    ``TemperatureLogitsWarper`` + ``TopPLogitsWarper`` (at least one token kept)."""
    import torch

    scores = logprobs / temperature
    if top_p < 1.0:
        srt, idx = torch.sort(scores, descending=False, dim=-1)
        cum = srt.softmax(dim=-1).cumsum(dim=-1)
        drop = cum <= (1 - top_p)
        drop[..., -1:] = False
        scores = scores.masked_fill(drop.scatter(-1, idx, drop), float("-inf"))
    return scores.softmax(dim=-1)


def generate_self_debiased(model: Any, tokenizer: Any, device: Any, rendered: Sequence[str],
                           decoding: Decoding, seeds: Sequence[int],
                           prefix_ids: Sequence[Sequence[int]], decay_constant: float,
                           epsilon: float, *, batch_size: int,
                           trace: Callable[[int, Any], None] | None = None) -> list[str]:
    """Debiased answers to rendered prompts (see module doc). ``trace(i, logprobs)``, when
    given, receives each step's debiased log-distribution of prompt i (for tests)."""
    import torch

    local_decoding(decoding, "Self-Debias generation")
    if decoding.repeat_penalty is not None:
        raise GenderscopeError("--repeat-penalty: Self-Debias generation decodes by itself "
                               "and applies no repetition penalty; drop the option")
    from genderscope.models.engine import max_positions

    check_new_tokens(decoding, max_positions(getattr(model, "config", None)),
                     "the Self-Debias model")
    ids = [list(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in rendered]
    eos = _eos_ids(model, tokenizer)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos[0]
    out: list[str] = [""] * len(ids)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    step = batch_size if decoding.greedy else 1
    for s in range(0, len(order), step):
        part = order[s:s + step]
        gen = None
        if not decoding.greedy:
            gen = torch.Generator(device="cpu").manual_seed(int(seeds[part[0]]))
        answers = _run_batch(model, tokenizer, device, [ids[i] for i in part], prefix_ids,
                             decoding, eos, int(pad), decay_constant, epsilon, gen,
                             None if trace is None else
                             (lambda r, lp, part=part: trace(part[r], lp)))
        for i, text in zip(part, answers, strict=True):
            out[i] = text
    return out


def _run_batch(model: Any, tokenizer: Any, device: Any, prompts: list[list[int]],
               prefix_ids: Sequence[Sequence[int]], decoding: Decoding, eos: list[int],
               pad: int, decay: float, epsilon: float, gen: Any,
               trace: Callable[[int, Any], None] | None) -> list[str]:
    import torch

    n, k = len(prompts), len(prefix_ids)
    rows = []
    for pre in [[], *prefix_ids]:  # rows: prompts, then prompts after each prefix
        for p in prompts:
            at = insertion_point(tokenizer, p)
            rows.append(p[:at] + list(pre) + p[at:])
    width = max(len(r) for r in rows)
    x = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=device)
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=device)
    pos = (mask.cumsum(-1) - 1).clamp_min(0)
    new: list[list[int]] = [[] for _ in range(n)]
    done = torch.zeros(n, dtype=torch.bool, device=device)
    eos_t = torch.tensor(eos, device=device)
    past = None
    with torch.inference_mode():
        for _ in range(int(decoding.max_new_tokens)):
            res = model(input_ids=x, attention_mask=mask, position_ids=pos,
                        past_key_values=past, use_cache=True)
            past = res.past_key_values
            lp = torch.log_softmax(res.logits[:, -1, :].float(), dim=-1)
            deb = debiased_logprobs(lp[:n], [lp[n * (j + 1):n * (j + 2)] for j in range(k)],
                                    decay, epsilon)
            if trace is not None:
                for r in range(n):
                    if not bool(done[r]):
                        trace(r, deb[r].detach().cpu())
            if decoding.greedy:
                tok = deb.argmax(dim=-1)
            else:
                probs = _nucleus(deb, float(decoding.temperature), float(decoding.top_p))
                tok = torch.multinomial(probs.cpu(), 1, generator=gen).squeeze(1).to(device)
            tok = torch.where(done, torch.full_like(tok, pad), tok)
            for r in range(n):
                if not bool(done[r]):
                    new[r].append(int(tok[r]))
            done |= torch.isin(tok, eos_t)
            if decoding.stop:
                for r in range(n):
                    text = _decoded(tokenizer, new[r], eos)
                    if not bool(done[r]) and any(st in text for st in decoding.stop):
                        done[r] = True
            if bool(done.all()):
                break
            x = tok.repeat(1 + k)[:, None]
            mask = torch.cat([mask, torch.ones_like(x)], dim=1)
            pos = pos[:, -1:] + 1
    return [cut_at_stop(_decoded(tokenizer, t, eos), decoding.stop) for t in new]
