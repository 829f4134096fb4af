"""The WEFE family of word-embedding bias metrics beside WEAT: RIPA, RND, ECT, MAC and
RNSB, each on the four word sets X, Y (targets) and A, B (attributes) of a WEAT/SEAT
test. One module per metric; shared word lookup and resampling in :mod:`._sets`."""

from genderscope.measures.embedding_metrics.ect import ect
from genderscope.measures.embedding_metrics.mac import mac
from genderscope.measures.embedding_metrics.ripa import ripa
from genderscope.measures.embedding_metrics.rnd import rnd
from genderscope.measures.embedding_metrics.rnsb import rnsb

METRICS = {"ripa": ripa, "rnd": rnd, "ect": ect, "mac": mac, "rnsb": rnsb}
"""Metric name -> function(vectors, test, **options) -> Result."""

__all__ = ["METRICS", "ect", "mac", "ripa", "rnd", "rnsb"]
