"""Self-Debias's prefix goes before the text in a request without a start token (issue 39).

StereoSet's ``--scoring bias-bench`` scores the first token after the start token alone
and the later tokens from a request without it; the Self-Debias prefix must precede the
text in that second request (it went after the text's first token). The reference here
is written independently: a direct forward pass of the tiny GPT-2 on prefix + text for
each token, Schick et al. (2021) eq. 4-5 applied to the two next-token distributions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

TOL = 1e-5
PREFIX = "The following text discriminates against people because of their gender: "


def _next_token_probs(model, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids]))["logits"][0, -1]
    return torch.softmax(logits.double(), dim=-1)


def _reference(model_dir: Path, text: str, start: int, decay: float = 50.0,
               eps: float = 0.01) -> np.ndarray:
    """log p~(w_t) for every token: w_1 after [s] vs [s, prefix]; w_t (t >= 2) after
    [w_1..w_{t-1}] vs [prefix, w_1..w_{t-1}] (bias-bench's rule, prefix before text)."""
    from transformers import AutoTokenizer, GPT2LMHeadModel

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = GPT2LMHeadModel.from_pretrained(model_dir).eval()
    words = tok(text, add_special_tokens=False)["input_ids"]
    pre = tok(PREFIX, add_special_tokens=False)["input_ids"]
    out = []
    for t, w in enumerate(words):
        context = [start] if t == 0 else words[:t]
        prefixed = [start, *pre] if t == 0 else [*pre, *words[:t]]
        p = _next_token_probs(model, context)
        q = _next_token_probs(model, prefixed)
        alpha = torch.clamp(torch.exp(-decay * torch.clamp(q - p, min=0.0)), min=eps)
        debiased = alpha * p / (alpha * p).sum()
        out.append(float(torch.log(debiased[w])))
    return np.array(out)


def test_stereoset_bias_bench_rule_puts_the_prefix_before_the_text(tiny_gpt2_dir, tmp_path):
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.loading import load_lm

    out = tmp_path / "sd"
    debias_lm("self-debias", tiny_gpt2_dir, out, prefixes=[PREFIX])
    lm = load_lm(out)
    assert lm.start_token_id is not None
    texts = ["the mechanic fixed the car and he was paid", "her mother works as a teacher"]
    got = lm.log_likelihood_start_first(texts)  # one batch: rows with and without <s>
    for text, score in zip(texts, got, strict=True):
        ref = _reference(tiny_gpt2_dir, text, lm.start_token_id)
        assert len(score.token_logprobs) == len(ref) > 3
        assert np.abs(np.array(score.token_logprobs) - ref).max() < TOL
