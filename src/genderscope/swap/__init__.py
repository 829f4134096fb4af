"""Counterfactual gender swapping: word pairs, first names, CDS and CDA."""

from genderscope.swap.cds import cda, cds
from genderscope.swap.names import NameMap, build_name_map, default_name_map
from genderscope.swap.pairs import PairList, load_pairs, parse_pairs
from genderscope.swap.swapper import GenderedWord, GenderSwapper, SwapResult

__all__ = ["GenderSwapper", "SwapResult", "GenderedWord", "PairList", "load_pairs",
           "parse_pairs", "NameMap", "build_name_map", "default_name_map", "cds", "cda"]
