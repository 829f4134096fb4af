"""Statistics shared by all measures: bootstrap CIs, proportions, paired tests,
permutation tests. Plain numpy/scipy; no model code."""

from genderscope.stats.intervals import CI, bootstrap_ci, proportion_ci
from genderscope.stats.paired import PairedTest, paired_test
from genderscope.stats.permutation import PermutationResult, difference_of_sums_test

__all__ = ["CI", "bootstrap_ci", "proportion_ci", "PairedTest", "paired_test",
           "PermutationResult", "difference_of_sums_test"]
