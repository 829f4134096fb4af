"""Statistics shared by all measures: bootstrap CIs (iid and clustered), proportions,
paired tests, permutation tests, multiplicity adjustment. Plain numpy/scipy; no model
code."""

from genderscope.stats.intervals import CI, bootstrap_ci, proportion_ci, t_mean_ci
from genderscope.stats.multiplicity import adjust_pvalues, annotate_family
from genderscope.stats.paired import PairedTest, paired_test
from genderscope.stats.permutation import PermutationResult, difference_of_sums_test
from genderscope.stats.resample import cluster_bootstrap_ci, cluster_mean_ci, cluster_t_ci
from genderscope.stats.signflip import SignFlipResult, hodges_lehmann, sign_flip_test

__all__ = ["CI", "bootstrap_ci", "proportion_ci", "t_mean_ci", "PairedTest", "paired_test",
           "PermutationResult", "difference_of_sums_test", "adjust_pvalues", "annotate_family",
           "cluster_bootstrap_ci", "cluster_mean_ci", "cluster_t_ci", "SignFlipResult",
           "hodges_lehmann", "sign_flip_test"]
