"""The one vocabulary of model kinds (docs/architecture.md).

A *model kind* says what adapter answers a measure's questions:

- ``masked``, ``causal``: language models (Hugging Face ids, folders, GGUF files;
  ``causal`` also covers OpenAI-compatible chat endpoints);
- ``vectors``: static word vectors; ``encoder``: sentence encoders;
- ``classifier``: anything with ``predict_proba``;
- ``none``: no model (a measure of texts or ratio tables, e.g. bias amplification).

A measure *needs* one adapter family: ``lm`` (either language-model kind), ``vectors``,
``encoder``, ``classifier`` or ``none``. The user picks how a language model loads
with ``kind`` = ``auto`` / ``masked`` / ``causal``.
"""

from __future__ import annotations

LM: tuple[str, ...] = ("masked", "causal")
"""The language-model kinds."""
MODEL: tuple[str, ...] = (*LM, "vectors", "encoder", "classifier")
"""Every adapter kind."""
NEEDS: tuple[str, ...] = ("lm", "vectors", "encoder", "classifier", "none")
"""What a measure can need."""
LM_LOAD: tuple[str, ...] = ("auto", *LM)
"""``kind=`` of a language model as the user gives it (``auto``: read from its config)."""
LOAD: tuple[str, ...] = (*LM_LOAD, "vectors", "encoder", "classifier")
"""``kind=`` of :func:`genderscope.load_model`."""


def kinds_of(needs: str) -> tuple[str, ...]:
    """The adapter kinds that answer a measure needing ``needs`` (``()``: no model)."""
    if needs == "lm":
        return LM
    return () if needs == "none" else (needs,)
