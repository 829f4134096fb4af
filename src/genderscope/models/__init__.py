"""Model adapters: the only code that runs a model or touches a tokenizer.

Measures ask adapters narrow questions (see :mod:`genderscope.models.base`)
and never import torch or transformers themselves.
"""

from genderscope.models.base import FillQuery, SeqScore

__all__ = ["FillQuery", "SeqScore"]
