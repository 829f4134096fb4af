"""Debiasing of static word vectors: Hard Debias (Bolukbasi et al. 2016) with
Bolukbasi's word lists, the word2vec binary writer, and before/after evaluation
(WEAT-family metrics with paired CIs, the analogy check, and Gonen & Goldberg's 2019
cluster test). ``genderscope debias hard`` is the command."""

from genderscope.vector_debias.hard import HardDebiasFit, hard_debias
from genderscope.vector_debias.lists import DebiasLists, load_lists
from genderscope.vector_debias.write import write_word2vec_binary

__all__ = ["DebiasLists", "HardDebiasFit", "hard_debias", "load_lists",
           "write_word2vec_binary"]
