"""The WEFE-family word-embedding metrics beside WEAT, by name (RIPA, RND, ECT, MAC,
RNSB): the measure module of the report card ``wefe_metrics_card``; each metric's
definition is in its own module under :mod:`genderscope.measures.embedding_metrics`."""

from genderscope.measures.embedding_metrics import METRICS, ect, mac, ripa, rnd, rnsb

__all__ = ["METRICS", "ect", "mac", "ripa", "rnd", "rnsb"]
