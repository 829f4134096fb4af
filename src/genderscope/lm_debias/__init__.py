"""Debiasing of language models beyond CDS, as compared by Meade et al. (2022, "An
Empirical Survey of the Effectiveness of Debiasing Techniques for Pre-trained Language
Models"; bias-bench):

- INLP (Ravfogel et al. 2020): iterative nullspace projection of the last hidden states;
- SentenceDebias (Liang et al. 2020): removal of the first principal direction of
  counterfactual sentence pairs' representations;
- Self-Debias (Schick et al. 2021): the output distributions of a causal LM (scoring and
  generation) or a masked LM (masked positions) adjusted by what the model predicts after
  a debiasing prefix.

It also holds the fine-tuning of ``debias cds`` (Bartl et al. 2020, sec. 4.2) and
``debias dropout`` (Webster et al. 2020, sec. 5): :mod:`.finetune` and :mod:`.checkpoint`
are, with :mod:`genderscope.vector_debias.ran_torch`, the only transforms that import
torch. Loading a debiased folder (its format, the scoring-time hooks) stays in
``genderscope.models``, below this layer.
"""
