"""Increased dropout for debiasing by continued pre-training (Webster et al. 2020,
"Measuring and Reducing Gendered Correlations in Pre-trained Models", sec. 5; the values
bias-bench's ``run_mlm.py`` / ``run_clm.py`` use with ``--dropout_debias``):

- BERT / RoBERTa: hidden dropout 0.20, attention dropout 0.15;
- other models with BERT-style fields (ALBERT ...): 0.05 and 0.05;
- GPT-2 style (``resid_pdrop``, ``embd_pdrop``, ``attn_pdrop``): 0.15 each;
- Llama style (``attention_dropout`` only, e.g. SmolLM2): 0.15 (genderscope's choice,
  following GPT-2's; bias-bench has no such model).

Dropout modules are built from the config when a model is made, so the model is rebuilt
from the changed config and given the same weights.
"""

from __future__ import annotations

from typing import Any

from genderscope.errors import GenderscopeError


def dropout_settings(config: Any) -> dict[str, float]:
    """The config fields to raise and their values (see module doc)."""
    if hasattr(config, "hidden_dropout_prob") and hasattr(config,
                                                          "attention_probs_dropout_prob"):
        high = config.model_type in ("bert", "roberta")
        return {"hidden_dropout_prob": 0.20 if high else 0.05,
                "attention_probs_dropout_prob": 0.15 if high else 0.05}
    if all(hasattr(config, k) for k in ("resid_pdrop", "embd_pdrop", "attn_pdrop")):
        return {"resid_pdrop": 0.15, "embd_pdrop": 0.15, "attn_pdrop": 0.15}
    if hasattr(config, "attention_dropout"):
        return {"attention_dropout": 0.15}
    raise GenderscopeError(f"no dropout settings known for model type "
                           f"{getattr(config, 'model_type', '?')!r}")


def raise_dropout(model: Any) -> tuple[Any, dict[str, float]]:
    """``model`` rebuilt with increased dropout and the same weights; and the settings."""
    import copy

    settings = dropout_settings(model.config)
    config = copy.deepcopy(model.config)
    for key, value in settings.items():
        setattr(config, key, value)
    rebuilt = type(model)(config)
    missing, unexpected = rebuilt.load_state_dict(model.state_dict(), strict=False)
    if unexpected or [k for k in missing if "position_ids" not in k]:
        raise GenderscopeError(f"cannot rebuild {type(model).__name__} with more dropout "
                               f"({(list(missing) + list(unexpected))[:3]})")
    rebuilt.tie_weights()
    return rebuilt.to(next(model.parameters()).dtype), settings
