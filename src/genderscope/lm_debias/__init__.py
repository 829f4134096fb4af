"""Debiasing of language models beyond CDS, as compared by Meade et al. (2022, "An
Empirical Survey of the Effectiveness of Debiasing Techniques for Pre-trained Language
Models"; bias-bench):

- INLP (Ravfogel et al. 2020): iterative nullspace projection of the last hidden states;
- SentenceDebias (Liang et al. 2020): removal of the first principal direction of
  counterfactual sentence pairs' representations;
- Self-Debias (Schick et al. 2021): the output distributions of a causal LM (scoring and
  generation) or a masked LM (masked positions) adjusted by what the model predicts after
  a debiasing prefix.

This package holds the torch-free parts: the attribute-word data (:mod:`.attribute_data`)
and the estimation of the subspaces from sentence representations (:mod:`.subspace`). The
output folder format (:mod:`genderscope.models.debias_folder`), hidden states and the
scoring-time hooks live in ``genderscope.models``
(:mod:`genderscope.models.projection`, :mod:`genderscope.models.self_debias`).
"""
