"""Identity test: every number ``genderscope.run`` and ``genderscope.report`` give on
the cases of ``record.py`` is the number recorded in ``baseline.json.gz`` (recorded on
the code before the measure/engine/registry refactor, commit d37d9a8).

One test per case (a case names its measure: ``winobias/causal``, ``bbq/hash-chat``):
``test_same_numbers`` compares the reuse key (``metadata["cache_key"]``), the summary,
the item table (columns, dtypes, every cell) and the further tables (reuse keys hold no
paths, so they compare wherever the data lies; the keys that dropped a path are in
``KEYS_WITHOUT_PATHS``);
``test_same_metadata`` the metadata less timings, ids and versions. Strings, ints and
bools must be equal, floats to 1e-12 relative (NaN equals NaN). Re-record (only on
purpose, on the code the baseline should hold) with::

    PYTHONPATH=/tmp/baseline-wt/src python tests/identity/record.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import record

BASELINE: dict[str, Any] = record.load_baseline() if record.BASELINE.is_file() else {}
CASE_IDS = sorted(BASELINE.get("cases", {}))
SHOWN = 25
"""Differences listed in a failure message (then how many more)."""

pytestmark = pytest.mark.skipif(not BASELINE, reason=f"no baseline at {record.BASELINE}")

ABSENT = "<absent>"
"""A CHANGED_ON_PURPOSE 'recorded value' for a key the baseline does not have."""

TOO_FEW = "too few units to test"

# issue 36 row 5: BEC-Pro's gender-test table gains n_person_pairs (before, after)
_COLUMNS = (
    ['prof_group', 'n_pairs', 'n_professions', 'test_unit', 'mean_male', 'mean_female', 'test',
    'statistic', 'p_value', 'effect_size_r', 'n', 'mean_difference', 'estimand', 'estimate',
    'exact', 'difference_ci_low', 'difference_ci_high', 'ci_unit', 'p_adjusted',
    'p_adjust_method', 'family'],
    ['prof_group', 'n_pairs', 'n_professions', 'test_unit', 'mean_male', 'mean_female', 'test',
    'statistic', 'p_value', 'effect_size_r', 'n', 'mean_difference', 'estimand', 'estimate',
    'exact', 'n_person_pairs', 'difference_ci_low', 'difference_ci_high', 'ci_unit',
    'p_adjusted', 'p_adjust_method', 'family'])
_DTYPES = (
    ['str', 'int64', 'int64', 'str', 'float64', 'float64', 'str', 'float64', 'float64',
    'float64', 'int64', 'float64', 'str', 'float64', 'bool', 'float64', 'float64', 'str',
    'float64', 'str', 'str'],
    ['str', 'int64', 'int64', 'str', 'float64', 'float64', 'str', 'float64', 'float64',
    'float64', 'int64', 'float64', 'str', 'float64', 'bool', 'int64', 'float64', 'float64',
    'str', 'float64', 'str', 'str'])

CHANGED_ON_PURPOSE: dict[str, dict[tuple[str, ...], tuple[Any, Any]]] = {
    # issue 41 item 5: gender is CrowS-Pairs' default bias type; the case asks for every
    # type by name ("all", keyed as the old default), so its numbers and key are unchanged
    "crows-pairs/causal": {("options", "bias_type"): (ABSENT, "all")},
    "crows-pairs/masked": {("options", "bias_type"): (ABSENT, "all")},
    # issue 38 item 6: JobsLum's correlation is NaN when every share is the same (as
    # GenderBench's pearsonr); a bootstrap replicate that drew one of the 3 detected
    # occupations 3 times was -inf from 0/0 and clipped to -1, and is now left out
    "jobs-lum/hash-chat": {("summary", "correlation", "ci_low"): (-1.0, 0.917662935482239),
        # issue 36 row 9 and item 3: see the GenderBench probes' entries below
        ('summary', 'tests', 0, 'p_value'):
            (1.0, float("nan")),
        ('summary', 'tests', 0, 'p_adjusted'):
            (1.0, float("nan")),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (-0.16666666666666666, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means', 'none (too few units to test: 3 occupations)'),
        ('summary', 'disparity', 'no_bias_p95'):
            (ABSENT, 0.5),
        ('summary', 'disparity', 'no_bias'):
            (ABSENT,
             "95th percentile of disparity over 200 random relabellings of the answers' genders"),
        ('summary', 'disparity', 'absolute'):
            (ABSENT, True),
    },
    # issue 36 rows 1 and 3: statistics chosen from the declared design. The flip rate
    # is a proportion of texts: Wilson's interval, not a percentile bootstrap of 0/1 flips
    # (which gave [1, 1] for 2 of 2 flips); RIPA is a mean over few word pairs: the t
    # interval over pairs, not a percentile bootstrap (estimates, tests and metadata
    # unchanged)
    # a bootstrap interval's method is "percentile bootstrap" also where the sample had
    # nothing to resample (one value, or all equal); it was scipy's bare "percentile"
    **{case: {("summary", "woman->man", "words_changed_per_success", "method"):
              ("percentile", "percentile bootstrap")}
       for case in ("attack/glove-gpt2", "attack/glove-no-lm")},
    "counterfactual/gap": {
        ("summary", "all", "flip_rate", "ci_high"): (0.9166666666666666, 0.8618799089087867),
        ("summary", "all", "flip_rate", "ci_low"): (0.3333333333333333, 0.39062208887279953),
        ("summary", "all", "flip_rate", "method"): ("percentile bootstrap", "wilson"),
        ("summary", "f2m", "flip_rate", "ci_low"): (1.0, 0.34238022750665303),
        ("summary", "f2m", "flip_rate", "method"): ("percentile", "wilson"),
        ("summary", "m2f", "flip_rate", "ci_low"): (1.0, 0.34238022750665303),
        ("summary", "m2f", "flip_rate", "method"): ("percentile", "wilson"),
        ("summary", "mixed", "flip_rate", "ci_high"): (0.7531250000000007, 0.7847839377861224),
        ("summary", "mixed", "flip_rate", "ci_low"): (0.2468750000000005, 0.21521606221387757),
        ("summary", "mixed", "flip_rate", "method"): ("percentile bootstrap", "wilson"),
    },
    # issue 36 row 4: RND's interval inverts its permutation test under a shift model
    # (for the attribute words given): the permuted values carry the bias of the distance
    # to the smaller set's centroid, which the percentile bootstrap over words did not
    # count (it missed a null 0 in 0.09-0.13 of runs at 8 + 16 words); RND's value and
    # p-value unchanged (WEFE agreement)
    "rnd/glove": {
        ("metadata", "params", "ci"): (ABSENT, "permutation shift interval"),
        ("summary", "attributes", "A", "ci_high"): (-0.28311531533365053, -0.216473574608388),
        ("summary", "attributes", "A", "ci_low"): (-0.9694758445112975, -1.1249889838058476),
        ("summary", "attributes", "A", "ci_unit"): ("words", "target words"),
        ("summary", "attributes", "A", "method"):
            ("percentile bootstrap", "permutation shift interval"),
        ("summary", "attributes", "B", "ci_high"): (1.2677578502029119, 1.2599708255532052),
        ("summary", "attributes", "B", "ci_low"): (0.21284913215947188, 0.09165303281950887),
        ("summary", "attributes", "B", "ci_unit"): ("words", "target words"),
        ("summary", "attributes", "B", "method"):
            ("percentile bootstrap", "permutation shift interval"),
    },
    "rnd/glove-swapped": {
        ("metadata", "params", "ci"): (ABSENT, "permutation shift interval"),
        ("summary", "attributes", "A", "ci_high"): (0.17511029243784948, 0.228959099580349),
        ("summary", "attributes", "A", "ci_low"): (-0.894647546992997, -0.9011212829628168),
        ("summary", "attributes", "A", "ci_unit"): ("words", "target words"),
        ("summary", "attributes", "A", "method"):
            ("percentile bootstrap", "permutation shift interval"),
        ("summary", "attributes", "B", "ci_high"): (0.4205750798472194, 0.39572179826323545),
        ("summary", "attributes", "B", "ci_low"): (-0.5355324327016585, -0.4966795795485123),
        ("summary", "attributes", "B", "ci_unit"): ("words", "target words"),
        ("summary", "attributes", "B", "method"):
            ("percentile bootstrap", "permutation shift interval"),
    },
    # issue 36 row 11: RNSB is >= 0, so its CI never contains 0; the summary labels it
    # absolute and adds the value expected under no bias (95th percentile over random
    # relabellings of A u B); RNSB, its interval and accuracy unchanged
    "rnsb/glove": {
        ("summary", "rnsb", "absolute"): (ABSENT, True),
        ("summary", "rnsb", "no_bias"):
            (ABSENT, "95th percentile of RNSB over random relabellings of A u B"),
        ("summary", "rnsb", "no_bias_p95"): (ABSENT, 0.25990823154315457),
    },
    # issue 36 row 8: WEAT's and SEAT's d get the noncentral-t interval of a standardised
    # difference (genderscope.stats.standardized), which counts that the SD grows with
    # the difference; the t interval over a fixed SD covered 0.98-0.99 at d != 0 (and
    # reached past d's attainable maximum, 2 for equal sets). Estimates, tests unchanged
    "weat/glove": {
        ("summary", "effect_size", "ci_high"): (2.2311029367012667, 1.8615023261737422),
        ("summary", "effect_size", "ci_low"): (1.1844522564700075, 1.3629546927021918),
        ("summary", "effect_size", "method"):
            ("t interval over source words", "noncentral t interval"),
        ("metadata", "params", "ci"): ("t over source words", "noncentral t over source words"),
    },
    "seat/minilm": {
        ("summary", "effect_size", "ci_high"): (2.0915744201271202, 1.6300260961476785),
        ("summary", "effect_size", "ci_low"): (0.4959708513265534, 0.5159588141666758),
        ("summary", "effect_size", "method"):
            ("t interval over source words", "noncentral t interval"),
        ("metadata", "params", "ci"): ("t over source words", "noncentral t over source words"),
    },
    # issue 36 row 6: with 5 or fewer units no paired test is run, and the row says why
    # ("too few units to test", p NaN as before) instead of "none"; these cases have 2
    # professions per group (p-values, estimates and intervals unchanged)
    "bec-pro/causal": {
        ("summary", "male_vs_female", "balanced", "test"): ("none", TOO_FEW),
        ("summary", "male_vs_female", "female", "test"): ("none", TOO_FEW),
        ("summary", "male_vs_female", "male", "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 0, "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 1, "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 2, "test"): ("none", TOO_FEW),
        # issue 36 row 5: BEC-Pro's male - female interval and group tests count the
        # person words too (professions x person words crossed: the two-way interval
        # and its t test); estimates and the other numbers unchanged
        ("summary", "male_minus_female", "ci_high"): (0.07921694696197076, 0.10369431041411689),
        ("summary", "male_minus_female", "ci_low"): (-0.03386001098014425, -0.05833737443229037),
        ("summary", "male_minus_female", "ci_unit"): ('professions', 'professions x person words'),
        ("summary", "male_minus_female", "method"):
            ('cluster t interval', 'two-way cluster bootstrap-variance t interval'),
        ("summary", "male_minus_female", "n_units"): (6, 15),
        ("summary", "male_vs_female", "balanced", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "balanced", "difference_ci_high"):
            (0.04581113021175138, 0.5946661508649872),
        ("summary", "male_vs_female", "balanced", "difference_ci_low"):
            (-0.06964215326516249, -0.6184971739183983),
        ("summary", "male_vs_female", "balanced", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "balanced", "n_person_pairs"): (ABSENT, 9),
        ("summary", "male_vs_female", "female", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "female", "difference_ci_high"):
            (0.7068069842741245, 0.7735969613225714),
        ("summary", "male_vs_female", "female", "difference_ci_low"):
            (-0.5494596759524135, -0.6162496530008604),
        ("summary", "male_vs_female", "female", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "female", "n_person_pairs"): (ABSENT, 9),
        ("summary", "male_vs_female", "male", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "male", "difference_ci_high"):
            (0.017506405046995424, 0.5085640188733944),
        ("summary", "male_vs_female", "male", "difference_ci_low"):
            (-0.01495188236981572, -0.5060094961962147),
        ("summary", "male_vs_female", "male", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "male", "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "columns"): (_COLUMNS[0], _COLUMNS[1]),
        ("tables", "gender_tests", "dtypes"): (_DTYPES[0], _DTYPES[1]),
        ("tables", "gender_tests", "records", 0, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 0, "difference_ci_high"):
            (0.017506405046995424, 0.5085640188733944),
        ("tables", "gender_tests", "records", 0, "difference_ci_low"):
            (-0.01495188236981572, -0.5060094961962147),
        ("tables", "gender_tests", "records", 0, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 0, "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "records", 1, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 1, "difference_ci_high"):
            (0.7068069842741245, 0.7735969613225714),
        ("tables", "gender_tests", "records", 1, "difference_ci_low"):
            (-0.5494596759524135, -0.6162496530008604),
        ("tables", "gender_tests", "records", 1, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 1, "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "records", 2, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 2, "difference_ci_high"):
            (0.04581113021175138, 0.5946661508649872),
        ("tables", "gender_tests", "records", 2, "difference_ci_low"):
            (-0.06964215326516249, -0.6184971739183983),
        ("tables", "gender_tests", "records", 2, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 2, "n_person_pairs"): (ABSENT, 9),
    },
    "bec-pro/de-masked": {
        ("summary", "male_vs_female", "balanced", "test"): ("none", TOO_FEW),
        ("summary", "male_vs_female", "female", "test"): ("none", TOO_FEW),
        ("summary", "male_vs_female", "male", "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 0, "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 1, "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 2, "test"): ("none", TOO_FEW),
        # issue 36 row 5: BEC-Pro's male - female interval and group tests count the
        # person words too (professions x person words crossed: the two-way interval
        # and its t test); estimates and the other numbers unchanged
        ("summary", "male_minus_female", "ci_high"): (0.00017584328038407684, 0.00115833611536358),
        ("summary", "male_minus_female", "ci_low"): (-0.000660945615996056, -0.001643438450975559),
        ("summary", "male_minus_female", "ci_unit"): ('professions', 'professions x person words'),
        ("summary", "male_minus_female", "method"):
            ('cluster t interval', 'two-way cluster bootstrap-variance t interval'),
        ("summary", "male_minus_female", "n_units"): (3, 12),
        ("summary", "male_vs_female", "balanced", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "balanced", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "balanced", "n_person_pairs"): (ABSENT, 9),
        ("summary", "male_vs_female", "female", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "female", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "female", "n_person_pairs"): (ABSENT, 9),
        ("summary", "male_vs_female", "male", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "male", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "male", "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "columns"): (_COLUMNS[0], _COLUMNS[1]),
        ("tables", "gender_tests", "dtypes"): (_DTYPES[0], _DTYPES[1]),
        ("tables", "gender_tests", "records", 0, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 0, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 0, "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "records", 1, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 1, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 1, "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "records", 2, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 2, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 2, "n_person_pairs"): (ABSENT, 9),
    },
    "bec-pro/masked": {
        ("summary", "male_vs_female", "balanced", "test"): ("none", TOO_FEW),
        ("summary", "male_vs_female", "female", "test"): ("none", TOO_FEW),
        ("summary", "male_vs_female", "male", "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 0, "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 1, "test"): ("none", TOO_FEW),
        ("tables", "gender_tests", "records", 2, "test"): ("none", TOO_FEW),
        # issue 36 row 5: BEC-Pro's male - female interval and group tests count the
        # person words too (professions x person words crossed: the two-way interval
        # and its t test); estimates and the other numbers unchanged
        ("summary", "male_minus_female", "ci_high"):
            (5.3469614573097476e-05, 0.00019014200145244745),
        ("summary", "male_minus_female", "ci_low"):
            (-0.0002276034804946831, -0.0003642758673740331),
        ("summary", "male_minus_female", "ci_unit"): ('professions', 'professions x person words'),
        ("summary", "male_minus_female", "method"):
            ('cluster t interval', 'two-way cluster bootstrap-variance t interval'),
        ("summary", "male_minus_female", "n_units"): (6, 15),
        ("summary", "male_vs_female", "balanced", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "balanced", "difference_ci_high"):
            (0.00020181882535372217, 0.001401074084137495),
        ("summary", "male_vs_female", "balanced", "difference_ci_low"):
            (-0.0006450654548567603, -0.0018443207136405332),
        ("summary", "male_vs_female", "balanced", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "balanced", "n_person_pairs"): (ABSENT, 9),
        ("summary", "male_vs_female", "female", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "female", "difference_ci_high"):
            (0.0002009263929046484, 0.0011556732405244078),
        ("summary", "male_vs_female", "female", "difference_ci_low"):
            (-0.00019154859545998697, -0.0011462954430797462),
        ("summary", "male_vs_female", "female", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "female", "n_person_pairs"): (ABSENT, 9),
        ("summary", "male_vs_female", "male", "ci_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "male", "difference_ci_high"):
            (0.0015185649816210828, 0.0016231750095540025),
        ("summary", "male_vs_female", "male", "difference_ci_low"):
            (-0.0016070977473274632, -0.0017117077752603828),
        ("summary", "male_vs_female", "male", "test_unit"):
            ('professions', 'professions x person words'),
        ("summary", "male_vs_female", "male", "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "columns"): (_COLUMNS[0], _COLUMNS[1]),
        ("tables", "gender_tests", "dtypes"): (_DTYPES[0], _DTYPES[1]),
        ("tables", "gender_tests", "records", 0, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 0, "difference_ci_high"):
            (0.0015185649816210828, 0.0016231750095540025),
        ("tables", "gender_tests", "records", 0, "difference_ci_low"):
            (-0.0016070977473274632, -0.0017117077752603828),
        ("tables", "gender_tests", "records", 0, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 0, "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "records", 1, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 1, "difference_ci_high"):
            (0.0002009263929046484, 0.0011556732405244078),
        ("tables", "gender_tests", "records", 1, "difference_ci_low"):
            (-0.00019154859545998697, -0.0011462954430797462),
        ("tables", "gender_tests", "records", 1, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 1, "n_person_pairs"): (ABSENT, 9),
        ("tables", "gender_tests", "records", 2, "ci_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 2, "difference_ci_high"):
            (0.00020181882535372217, 0.001401074084137495),
        ("tables", "gender_tests", "records", 2, "difference_ci_low"):
            (-0.0006450654548567603, -0.0018443207136405332),
        ("tables", "gender_tests", "records", 2, "test_unit"):
            ('professions', 'professions x person words'),
        ("tables", "gender_tests", "records", 2, "n_person_pairs"): (ABSENT, 9),
    },
    # the same in the --quick report's BEC-Pro section (its headlines name the test)
    "report": {
        ("sections", 2, "headlines", 1, "label"): (
            "male-dominated professions: male vs female, none (effect size r)",
            "male-dominated professions: male vs female, too few units to test (effect size r)"),
        ("sections", 2, "headlines", 2, "label"): (
            "female-dominated professions: male vs female, none (effect size r)",
            "female-dominated professions: male vs female, too few units to test (effect size r)"),
        ("sections", 2, "headlines", 3, "label"): (
            "balanced professions: male vs female, none (effect size r)",
            "balanced professions: male vs female, too few units to test (effect size r)"),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "balanced", "test"):
            ("none", TOO_FEW),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "female", "test"):
            ("none", TOO_FEW),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "male", "test"): ("none", TOO_FEW),
        ("sections", 2, "summary", "male_vs_female", "balanced", "test"): ("none", TOO_FEW),
        ("sections", 2, "summary", "male_vs_female", "female", "test"): ("none", TOO_FEW),
        ("sections", 2, "summary", "male_vs_female", "male", "test"): ("none", TOO_FEW),
        # issue 36 row 5: BEC-Pro's male - female interval and group tests count the
        # person words too (professions x person words crossed: the two-way interval
        # and its t test); estimates and the other numbers unchanged
        ("sections", 2, "headlines", 0, "ci_high"): (-0.029605677375679512, 0.15533748828260444),
        ("sections", 2, "headlines", 0, "ci_low"): (-0.136576945669685, -0.321520111327969),
        ("sections", 2, "headlines", 0, "ci_method"):
            ('cluster t interval', 'two-way cluster bootstrap-variance t interval'),
        ("sections", 2, "headlines", 0, "ci_unit"): ('professions', 'professions x person words'),
        ("sections", 2, "headlines", 0, "n_units"): (6, 15),
        ("sections", 2, "parts", 0, "summary", "male_minus_female", "ci_high"):
            (-0.029605677375679512, 0.15533748828260444),
        ("sections", 2, "parts", 0, "summary", "male_minus_female", "ci_low"):
            (-0.136576945669685, -0.321520111327969),
        ("sections", 2, "parts", 0, "summary", "male_minus_female", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "parts", 0, "summary", "male_minus_female", "method"):
            ('cluster t interval', 'two-way cluster bootstrap-variance t interval'),
        ("sections", 2, "parts", 0, "summary", "male_minus_female", "n_units"): (6, 15),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "balanced", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "balanced", "difference_ci_high"):
            (0.3726016178200242, 1.4753586217209063),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "balanced", "difference_ci_low"):
            (-0.5411239130246543, -1.6438809169255362),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "balanced", "test_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "balanced", "n_person_pairs"):
            (ABSENT, 9),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "female", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "female", "difference_ci_high"):
            (0.21526393132267374, 1.1929836586141815),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "female", "difference_ci_low"):
            (-0.43093469263753337, -1.408654419929041),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "female", "test_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "female", "n_person_pairs"):
            (ABSENT, 9),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "male", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "male", "difference_ci_high"):
            (0.6693304864974613, 0.703091020436058),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "male", "difference_ci_low"):
            (-0.7836852991140651, -0.8174458330526618),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "male", "test_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "parts", 0, "summary", "male_vs_female", "male", "n_person_pairs"):
            (ABSENT, 9),
        ("sections", 2, "summary", "male_minus_female", "ci_high"):
            (-0.029605677375679512, 0.15533748828260444),
        ("sections", 2, "summary", "male_minus_female", "ci_low"):
            (-0.136576945669685, -0.321520111327969),
        ("sections", 2, "summary", "male_minus_female", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "summary", "male_minus_female", "method"):
            ('cluster t interval', 'two-way cluster bootstrap-variance t interval'),
        ("sections", 2, "summary", "male_minus_female", "n_units"): (6, 15),
        ("sections", 2, "summary", "male_vs_female", "balanced", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "summary", "male_vs_female", "balanced", "difference_ci_high"):
            (0.3726016178200242, 1.4753586217209063),
        ("sections", 2, "summary", "male_vs_female", "balanced", "difference_ci_low"):
            (-0.5411239130246543, -1.6438809169255362),
        ("sections", 2, "summary", "male_vs_female", "balanced", "test_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "summary", "male_vs_female", "balanced", "n_person_pairs"): (ABSENT, 9),
        ("sections", 2, "summary", "male_vs_female", "female", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "summary", "male_vs_female", "female", "difference_ci_high"):
            (0.21526393132267374, 1.1929836586141815),
        ("sections", 2, "summary", "male_vs_female", "female", "difference_ci_low"):
            (-0.43093469263753337, -1.408654419929041),
        ("sections", 2, "summary", "male_vs_female", "female", "test_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "summary", "male_vs_female", "female", "n_person_pairs"): (ABSENT, 9),
        ("sections", 2, "summary", "male_vs_female", "male", "ci_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "summary", "male_vs_female", "male", "difference_ci_high"):
            (0.6693304864974613, 0.703091020436058),
        ("sections", 2, "summary", "male_vs_female", "male", "difference_ci_low"):
            (-0.7836852991140651, -0.8174458330526618),
        ("sections", 2, "summary", "male_vs_female", "male", "test_unit"):
            ('professions', 'professions x person words'),
        ("sections", 2, "summary", "male_vs_female", "male", "n_person_pairs"): (ABSENT, 9),
        # issue 36 row 8: the --quick report's WEAT section, d's noncentral-t interval
        ('sections', 7, 'headlines', 0, 'ci_high'):
            (2.2311029367012667, 1.8615023261737422),
        ('sections', 7, 'headlines', 0, 'ci_low'):
            (1.1844522564700075, 1.3629546927021918),
        ('sections', 7, 'headlines', 0, 'ci_method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'headlines', 1, 'ci_high'):
            (2.2005827319760223, 1.7408362940792181),
        ('sections', 7, 'headlines', 1, 'ci_low'):
            (0.7896860682890832, 0.8675306823910677),
        ('sections', 7, 'headlines', 1, 'ci_method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'headlines', 2, 'ci_high'):
            (2.197411002899963, 1.7351532489836594),
        ('sections', 7, 'headlines', 2, 'ci_low'):
            (0.7723591030517493, 0.8461692844557451),
        ('sections', 7, 'headlines', 2, 'ci_method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'parts', 0, 'summary', 'effect_size', 'ci_high'):
            (2.2311029367012667, 1.8615023261737422),
        ('sections', 7, 'parts', 0, 'summary', 'effect_size', 'ci_low'):
            (1.1844522564700075, 1.3629546927021918),
        ('sections', 7, 'parts', 0, 'summary', 'effect_size', 'method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'parts', 1, 'summary', 'effect_size', 'ci_high'):
            (2.2005827319760223, 1.7408362940792181),
        ('sections', 7, 'parts', 1, 'summary', 'effect_size', 'ci_low'):
            (0.7896860682890832, 0.8675306823910677),
        ('sections', 7, 'parts', 1, 'summary', 'effect_size', 'method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'parts', 2, 'summary', 'effect_size', 'ci_high'):
            (2.197411002899963, 1.7351532489836594),
        ('sections', 7, 'parts', 2, 'summary', 'effect_size', 'ci_low'):
            (0.7723591030517493, 0.8461692844557451),
        ('sections', 7, 'parts', 2, 'summary', 'effect_size', 'method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'summary', 'tests', 'weat6', 'effect_size', 'ci_high'):
            (2.2311029367012667, 1.8615023261737422),
        ('sections', 7, 'summary', 'tests', 'weat6', 'effect_size', 'ci_low'):
            (1.1844522564700075, 1.3629546927021918),
        ('sections', 7, 'summary', 'tests', 'weat6', 'effect_size', 'method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'summary', 'tests', 'weat7', 'effect_size', 'ci_high'):
            (2.2005827319760223, 1.7408362940792181),
        ('sections', 7, 'summary', 'tests', 'weat7', 'effect_size', 'ci_low'):
            (0.7896860682890832, 0.8675306823910677),
        ('sections', 7, 'summary', 'tests', 'weat7', 'effect_size', 'method'):
            ('t interval over source words', 'noncentral t interval'),
        ('sections', 7, 'summary', 'tests', 'weat8', 'effect_size', 'ci_high'):
            (2.197411002899963, 1.7351532489836594),
        ('sections', 7, 'summary', 'tests', 'weat8', 'effect_size', 'ci_low'):
            (0.7723591030517493, 0.8461692844557451),
        ('sections', 7, 'summary', 'tests', 'weat8', 'effect_size', 'method'):
            ('t interval over source words', 'noncentral t interval'),
    },
    # issue 36 row 3, second half (ripa version 3): RIPA is a mean over word pairs crossed
    # with the attribute words (both samples): the several-sample jackknife t interval and
    # its t test of 0 replace the t interval and sign flip over pairs (which held the
    # attribute words fixed: coverage 0.480 of the value over attribute words drawn anew);
    # the interval over pairs for the words given is kept as given_words_ci_*; the
    # estimate (WEFE's) is unchanged
    "ripa/glove": {
        ("summary", "attributes", "A", "ci_high"): (1.3182341182588704, 1.4653514525046185),
        ("summary", "attributes", "A", "ci_low"): (0.9802290246971113, 0.8164340960069014),
        ("summary", "attributes", "A", "method"):
            ("percentile bootstrap", "several-sample infinitesimal jackknife t"),
        ("summary", "attributes", "A", "ci_unit"): ("word pairs", "word pairs x attribute words"),
        ("summary", "attributes", "A", "n"): (8, 16),
        ("summary", "attributes", "A", "n_units"): (ABSENT, 16),
        ("summary", "attributes", "A", "p_value"): (0.0078125, 3.159458915784342e-06),
        ("summary", "attributes", "A", "exact"): (True, ABSENT),
        ("summary", "attributes", "A", "n_flips"): (256, ABSENT),
        ("summary", "attributes", "A", "test"):
            (ABSENT, "t test of no change (jackknife, several samples)"),
        ("summary", "attributes", "A", "given_words_ci_high"): (ABSENT, 1.3827048054216777),
        ("summary", "attributes", "A", "given_words_ci_low"): (ABSENT, 0.8990807430898421),
        ("summary", "attributes", "B", "ci_high"): (0.13714800188480417, 0.39952837692108073),
        ("summary", "attributes", "B", "ci_low"): (-0.6320312058014055, -0.9447953578947534),
        ("summary", "attributes", "B", "method"):
            ("percentile bootstrap", "several-sample infinitesimal jackknife t"),
        ("summary", "attributes", "B", "ci_unit"): ("word pairs", "word pairs x attribute words"),
        ("summary", "attributes", "B", "n"): (8, 16),
        ("summary", "attributes", "B", "n_units"): (ABSENT, 16),
        ("summary", "attributes", "B", "p_value"): (0.2890625, 0.39667772097407283),
        ("summary", "attributes", "B", "exact"): (True, ABSENT),
        ("summary", "attributes", "B", "n_flips"): (256, ABSENT),
        ("summary", "attributes", "B", "test"):
            (ABSENT, "t test of no change (jackknife, several samples)"),
        ("summary", "attributes", "B", "given_words_ci_high"): (ABSENT, 0.3241130625283854),
        ("summary", "attributes", "B", "given_words_ci_low"): (ABSENT, -0.869380043502058),
        ("metadata", "params", "test"):
            ("two-sided sign flip over pairs", "two-sided t test, word pairs x attribute words"),
    },
    # issue 36 row 9 and item 3, the GenderBench probes (version 2): a signed difference
    # of two pooled rates (male - female "yes" rate ...) gets its design's interval, the
    # linearised cluster t (the percentile cluster bootstrap covered 0.893 at 12
    # scenarios with scenario x gender slopes), GenderBench's number unchanged; a paired
    # test is of the item-weighted mean difference it reports (cluster t, with its
    # interval), not of equally weighted cluster means, and is not run below 6 clusters
    # ("too few units to test"); an absolute value (max_diff*, diff_abs_*, disparity) is
    # labelled so, with its no-bias value (95th percentile over 200 relabellings of the
    # genders) where the probe defines the relabelling
    "bbq/hash-chat": {
        ('summary', 'tests', 0, 'ci_low'):
            (ABSENT, -0.9848319574699939),
        ('summary', 'tests', 0, 'method'):
            (ABSENT, 'cluster t interval'),
        ('summary', 'tests', 0, 'ci_unit'):
            (ABSENT, 'questions'),
        ('summary', 'tests', 0, 'p_value'):
            (0.625, 0.3559176837495822),
        ('summary', 'tests', 0, 'p_adjusted'):
            (0.625, 0.3559176837495822),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (-0.2857142857142857, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means', 'cluster t test of the mean over questions'),
        ('summary', 'tests', 0, 'ci_high'):
            (ABSENT, 0.41340338604142246),
        ('summary', 'tests', 1, 'test'):
            ('none (fewer than 3 clusters, or every difference 0)',
             'none (too few units to test: 0 questions)'),
    },
    "discrimination-tamkin/hash-chat": {
        ('summary', 'diff_mvf_success_rate', 'ci_low'):
            (-0.5558333333333333, -0.5727141614324661),
        ('summary', 'diff_mvf_success_rate', 'method'):
            ('cluster percentile bootstrap', 'linearised cluster t interval'),
        ('summary', 'diff_mvf_success_rate', 'ci_high'):
            (0.04306776556776563, 0.1282697169880217),
        ('summary', 'max_diff', 'no_bias_p95'):
            (ABSENT, 0.5777777777777778),
        ('summary', 'max_diff', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff over 200 random relabellings of the answers' genders"),
        ('summary', 'max_diff', 'absolute'):
            (ABSENT, True),
        ('summary', 'tests', 0, 'ci_low'):
            (ABSENT, -0.717667355867361),
        ('summary', 'tests', 0, 'method'):
            (ABSENT, 'cluster t interval'),
        ('summary', 'tests', 0, 'ci_unit'):
            (ABSENT, 'scenarios'),
        ('summary', 'tests', 0, 'p_value'):
            (0.25, 0.08051623795726262),
        ('summary', 'tests', 0, 'p_adjusted'):
            (0.75, 0.24154871387178786),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (-0.3333333333333333, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means', 'cluster t test of the mean over scenarios'),
        ('summary', 'tests', 0, 'ci_high'):
            (ABSENT, 0.05100068920069428),
        ('summary', 'tests', 1, 'ci_low'):
            (ABSENT, -1.1984634765446731),
        ('summary', 'tests', 1, 'method'):
            (ABSENT, 'cluster t interval'),
        ('summary', 'tests', 1, 'ci_unit'):
            (ABSENT, 'scenarios'),
        ('summary', 'tests', 1, 'p_value'):
            (1.0, 0.695192295931711),
        ('summary', 'tests', 1, 'cluster_mean_difference'):
            (-0.16666666666666666, ABSENT),
        ('summary', 'tests', 1, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 1, 'test'):
            ('sign-flip test over cluster means', 'cluster t test of the mean over scenarios'),
        ('summary', 'tests', 1, 'ci_high'):
            (ABSENT, 0.8651301432113397),
        ('summary', 'tests', 2, 'ci_low'):
            (ABSENT, -0.4382072248468828),
        ('summary', 'tests', 2, 'method'):
            (ABSENT, 'cluster t interval'),
        ('summary', 'tests', 2, 'ci_unit'):
            (ABSENT, 'scenarios'),
        ('summary', 'tests', 2, 'p_value'):
            (1.0, 0.6066481195086206),
        ('summary', 'tests', 2, 'cluster_mean_difference'):
            (0.14285714285714285, ABSENT),
        ('summary', 'tests', 2, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 2, 'test'):
            ('sign-flip test over cluster means', 'cluster t test of the mean over scenarios'),
        ('summary', 'tests', 2, 'ci_high'):
            (ABSENT, 0.6882072248468828),
    },
    "diversity-med-qa/hash-chat": {
        ('summary', 'diff_success_rate', 'ci_low'):
            (-0.41666666666666674, -0.53739978630276),
        ('summary', 'diff_success_rate', 'method'):
            ('cluster percentile bootstrap', 'linearised cluster t interval'),
        ('summary', 'diff_success_rate', 'ci_high'):
            (-0.08333333333333333, 0.03739978630276003),
        ('summary', 'diff_abs_success_rate', 'no_bias_p95'):
            (ABSENT, 0.3333333333333333),
        ('summary', 'diff_abs_success_rate', 'no_bias'):
            (ABSENT,
             "95th percentile of diff_abs_success_rate over 200 random relabellings "
             "of the answers' genders"),
        ('summary', 'diff_abs_success_rate', 'absolute'):
            (ABSENT, True),
        ('summary', 'tests', 0, 'ci_low'):
            (ABSENT, -0.5373997863104496),
        ('summary', 'tests', 0, 'method'):
            (ABSENT, 'cluster t interval'),
        ('summary', 'tests', 0, 'ci_unit'):
            (ABSENT, 'questions'),
        ('summary', 'tests', 0, 'p_value'):
            (0.25, 0.07558681842161248),
        ('summary', 'tests', 0, 'p_adjusted'):
            (0.25, 0.07558681842161248),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (-0.25, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means', 'cluster t test of the mean over questions'),
        ('summary', 'tests', 0, 'ci_high'):
            (ABSENT, 0.037399786310449545),
        ('summary', 'marks', 'diff_success_rate', 'mark'):
            ('B', 'A'),
    },
    "dreaddit/hash-chat": {
        ('summary', 'max_diff_stress_rate', 'no_bias_p95'):
            (ABSENT, 0.8),
        ('summary', 'max_diff_stress_rate', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_stress_rate over 200 random relabellings "
             "of the answers' genders"),
        ('summary', 'max_diff_stress_rate', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_tnr', 'no_bias_p95'):
            (ABSENT, 1.0),
        ('summary', 'max_diff_tnr', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_tnr over 200 random relabellings of the "
             "answers' genders"),
        ('summary', 'max_diff_tnr', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_tpr', 'no_bias_p95'):
            (ABSENT, 0.6666666666666667),
        ('summary', 'max_diff_tpr', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_tpr over 200 random relabellings of the "
             "answers' genders"),
        ('summary', 'max_diff_tpr', 'absolute'):
            (ABSENT, True),
        ('summary', 'tests', 0, 'p_value'):
            (1.0, float("nan")),
        ('summary', 'tests', 0, 'p_adjusted'):
            (1.0, float("nan")),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (0.0, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means', 'none (too few units to test: 5 posts)'),
        ('summary', 'tests', 1, 'p_value'):
            (1.0, float("nan")),
        ('summary', 'tests', 1, 'p_adjusted'):
            (1.0, float("nan")),
        ('summary', 'tests', 1, 'cluster_mean_difference'):
            (0.0, ABSENT),
        ('summary', 'tests', 1, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 1, 'test'):
            ('sign-flip test over cluster means', 'none (too few units to test: 4 posts)'),
        ('summary', 'tests', 2, 'p_value'):
            (1.0, float("nan")),
        ('summary', 'tests', 2, 'p_adjusted'):
            (1.0, float("nan")),
        ('summary', 'tests', 2, 'cluster_mean_difference'):
            (-0.25, ABSENT),
        ('summary', 'tests', 2, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 2, 'test'):
            ('sign-flip test over cluster means', 'none (too few units to test: 4 posts)'),
    },
    "gest-creative/hash-chat": {
        ('summary', 'tests', 0, 'test'):
            ('none (fewer than 3 clusters, or every difference 0)',
             'none (too few units to test: 2 sentences)'),
        ('summary', 'tests', 1, 'test'):
            ('none (fewer than 3 clusters, or every difference 0)',
             'none (too few units to test: 1 sentences)'),
        ('summary', 'disparity', 'no_bias_p95'):
            (ABSENT, 0.5),
        ('summary', 'disparity', 'no_bias'):
            (ABSENT,
             "95th percentile of disparity over 200 random relabellings of the answers' genders"),
        ('summary', 'disparity', 'absolute'):
            (ABSENT, True),
    },
    "gest/hash-chat": {
        ('summary', 'tests', 0, 'p_value'):
            (0.5, float("nan")),
        ('summary', 'tests', 0, 'p_adjusted'):
            (1.0, float("nan")),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (-0.6666666666666666, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means', 'none (too few units to test: 3 sentences)'),
        ('summary', 'tests', 1, 'p_value'):
            (1.0, float("nan")),
        ('summary', 'tests', 1, 'p_adjusted'):
            (1.0, float("nan")),
        ('summary', 'tests', 1, 'cluster_mean_difference'):
            (0.0, ABSENT),
        ('summary', 'tests', 1, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 1, 'test'):
            ('sign-flip test over cluster means', 'none (too few units to test: 5 sentences)'),
    },
    "hiring-an/hash-chat": {
        ('summary', 'diff_abs_acceptance_rate', 'no_bias_p95'):
            (ABSENT, 0.6),
        ('summary', 'diff_abs_acceptance_rate', 'no_bias'):
            (ABSENT,
             "95th percentile of diff_abs_acceptance_rate over 200 random "
             "relabellings of the answers' genders"),
        ('summary', 'diff_acceptance_rate', 'method'):
            ('cluster percentile bootstrap', 'linearised cluster t interval'),
        ('summary', 'diff_acceptance_rate', 'ci_high'):
            (-0.19999999999999996, -0.020954970720281074),
        ('summary', 'marks', 'diff_acceptance_rate', 'mark'):
            ('C', 'A'),
        ('summary', 'diff_abs_acceptance_rate', 'absolute'):
            (ABSENT, True),
        ('summary', 'race_asian_diff_acceptance_rate', 'method'):
            ('cluster percentile bootstrap', 'linearised cluster t interval'),
        ('summary', 'race_asian_diff_acceptance_rate', 'ci_high'):
            (0.0, 0.43442989808990184),
        ('summary', 'tests', 0, 'test'):
            ('none (fewer than 3 clusters, or every difference 0)',
             'none (too few units to test: 0 occupations)'),
    },
    "hiring-bloomberg/hash-chat": {
        ('summary', 'disparity', 'no_bias_p95'):
            (ABSENT, 0.33333333333333337),
        ('summary', 'disparity', 'no_bias'):
            (ABSENT,
             "95th percentile of disparity over 200 random relabellings of the answers' genders"),
        ('summary', 'tests', 0, 'p_value'):
            (1.0, float("nan")),
        ('summary', 'tests', 0, 'p_adjusted'):
            (1.0, float("nan")),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (0.0, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means',
             'none (too few units to test: 4 items (stratified by occupation))'),
        ('summary', 'disparity', 'absolute'):
            (ABSENT, True),
    },
    "inventories/hash-chat": {
        ('summary', 'disparity', 'no_bias_p95'):
            (ABSENT, 0.5),
        ('summary', 'disparity', 'no_bias'):
            (ABSENT,
             "95th percentile of disparity over 200 random relabellings of the answers' genders"),
        ('summary', 'disparity', 'absolute'):
            (ABSENT, True),
    },
    "isear/hash-chat": {
        ('summary', 'max_diff_fear', 'no_bias_p95'):
            (ABSENT, 0.3333333333333333),
        ('summary', 'max_diff_fear', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_fear over 200 random relabellings of the "
             "answers' genders"),
        ('summary', 'max_diff_fear', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_anger', 'no_bias_p95'):
            (ABSENT, 0.2),
        ('summary', 'max_diff_anger', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_anger over 200 random relabellings of the "
             "answers' genders"),
        ('summary', 'max_diff_anger', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff', 'no_bias_p95'):
            (ABSENT, 0.5),
        ('summary', 'max_diff', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff over 200 random relabellings of the answers' genders"),
        ('summary', 'max_diff', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_sadness', 'no_bias_p95'):
            (ABSENT, 0.4),
        ('summary', 'max_diff_sadness', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_sadness over 200 random relabellings of "
             "the answers' genders"),
        ('summary', 'max_diff_sadness', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_regret', 'no_bias_p95'):
            (ABSENT, 0.46464646464646464),
        ('summary', 'max_diff_regret', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_regret over 200 random relabellings of "
             "the answers' genders"),
        ('summary', 'max_diff_regret', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_frustration', 'no_bias_p95'):
            (ABSENT, 0.0),
        ('summary', 'max_diff_frustration', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_frustration over 200 random relabellings "
             "of the answers' genders"),
        ('summary', 'max_diff_frustration', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_joy', 'no_bias_p95'):
            (ABSENT, 0.3),
        ('summary', 'max_diff_joy', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_joy over 200 random relabellings of the "
             "answers' genders"),
        ('summary', 'max_diff_joy', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_anxiety', 'no_bias_p95'):
            (ABSENT, 0.45454545454545453),
        ('summary', 'max_diff_anxiety', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_anxiety over 200 random relabellings of "
             "the answers' genders"),
        ('summary', 'max_diff_anxiety', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_shame', 'no_bias_p95'):
            (ABSENT, 0.2),
        ('summary', 'max_diff_shame', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_shame over 200 random relabellings of the "
             "answers' genders"),
        ('summary', 'max_diff_shame', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_guilt', 'no_bias_p95'):
            (ABSENT, 0.0),
        ('summary', 'max_diff_guilt', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_guilt over 200 random relabellings of the "
             "answers' genders"),
        ('summary', 'max_diff_guilt', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_embarrassment', 'no_bias_p95'):
            (ABSENT, 0.0),
        ('summary', 'max_diff_embarrassment', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_embarrassment over 200 random "
             "relabellings of the answers' genders"),
        ('summary', 'max_diff_embarrassment', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_disappointment', 'no_bias_p95'):
            (ABSENT, 0.0),
        ('summary', 'max_diff_disappointment', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_disappointment over 200 random "
             "relabellings of the answers' genders"),
        ('summary', 'max_diff_disappointment', 'absolute'):
            (ABSENT, True),
        ('summary', 'max_diff_disgust', 'no_bias_p95'):
            (ABSENT, 0.0),
        ('summary', 'max_diff_disgust', 'no_bias'):
            (ABSENT,
             "95th percentile of max_diff_disgust over 200 random relabellings of "
             "the answers' genders"),
        ('summary', 'max_diff_disgust', 'absolute'):
            (ABSENT, True),
    },
    "jobs-lum/tiny-chat-llama-sampled": {
        ('summary', 'tests', 0, 'test'):
            ('none (fewer than 3 clusters, or every difference 0)',
             'none (too few units to test: 0 occupations)'),
        ('summary', 'disparity', 'absolute'):
            (ABSENT, True),
    },
    "relationship-levy/hash-chat": {
        ('summary', 'diff_abs_success_rate', 'no_bias_p95'):
            (ABSENT, 0.4285714285714286),
        ('summary', 'diff_abs_success_rate', 'no_bias'):
            (ABSENT,
             "95th percentile of diff_abs_success_rate over 200 random "
             "relabellings of the answers' genders"),
        ('summary', 'diff_success_rate', 'ci_low'):
            (-0.7142857142857144, -0.9749736121790937),
        ('summary', 'diff_success_rate', 'method'):
            ('cluster percentile bootstrap', 'linearised cluster t interval'),
        ('summary', 'diff_success_rate', 'ci_high'):
            (0.5714285714285714, 0.6892593264648079),
        ('summary', 'diff_abs_success_rate', 'absolute'):
            (ABSENT, True),
        ('summary', 'tests', 0, 'ci_low'):
            (ABSENT, -0.48748680609298),
        ('summary', 'tests', 0, 'method'):
            (ABSENT, 'cluster t interval'),
        ('summary', 'tests', 0, 'ci_unit'):
            (ABSENT, 'scenarios'),
        ('summary', 'tests', 0, 'p_value'):
            (1.0, 0.6890522264439654),
        ('summary', 'tests', 0, 'p_adjusted'):
            (1.0, 0.6890522264439654),
        ('summary', 'tests', 0, 'cluster_mean_difference'):
            (-0.07142857142857142, ABSENT),
        ('summary', 'tests', 0, 'exact'):
            (True, ABSENT),
        ('summary', 'tests', 0, 'test'):
            ('sign-flip test over cluster means', 'cluster t test of the mean over scenarios'),
        ('summary', 'tests', 0, 'ci_high'):
            (ABSENT, 0.3446296632358372),
    },
}
"""Case -> path -> (recorded value, the value now): numbers changed by a deliberate fix,
each named with its reason; anything else must still equal the baseline."""

# issue 35 leftovers: reuse keys no longer hold where the data lies (the items' path,
# an LPBS test's files, a corpus's files: NOT_CONTENT in datasets/, the plans' key
# options), only what it holds, so the same data in another folder is the same run. The
# numbers are unchanged and no version raised: a run stored before misses once and is
# recomputed with the same numbers. Case -> (key recorded, key now); the report's
# CrowS-Pairs and StereoSet sections likewise.
KEYS_WITHOUT_PATHS: dict[str, tuple[str, str]] = {
    "abc/causal": (
        "run:c5db820b22b21cfb876d612ebf0beecc95b3fbd122d9b9f6c3b70a9ada1eb0ed",
        "run:d525a27f7794c75fe24e7a1960d5e430bef5847bf5c5c185697abacffe425fe1"),
    "abc/masked": (
        "run:48f1e8cdb0fe36c57a5abc672c009dc4e0c037165e130b75f1d5fb7ddc26484d",
        "run:708ecdfe9c93446bd9f0aaa253af9aeda6601a5ee840f9364553ff5115480799"),
    "abc/sv-causal": (
        "run:9b7f7438c2d751457b4afbedd83bff0e8165efac8677a682cb85f7d3a465220d",
        "run:f7dfb9f48e156f1f646e95527be3fac04fb2a1ceb5089eccb5003c6b5916a5c7"),
    "crows-pairs/causal": (
        "run:f04c8c27e8089b9869485b33bd3fc4b6cfa982c1cbc81d8ed5d899d99bc31185",
        "run:19e251aab2c386801ec27cd50833d7ec51221f81041519a633b2221b390ce43a"),
    "crows-pairs/gender-causal": (
        "run:9f31e8eaa5b51888983dc11d02cf9c7ad8126b68a9aa21730fbc5d798ab6fe2e",
        "run:b5eeecf7ac756d0f0405db4b700f0390ec166c2cd8c7329e34849b7eb300e80d"),
    "crows-pairs/masked": (
        "run:3f5ac71c333741aef265d88019a16002f38232b71dd2bbd95d363183a18cf1b7",
        "run:51be4a95fe5ae74bd124fdc725c93f71b71e369a4f83d6a108321dfdbb426213"),
    "dawinobias/causal": (
        "run:e272ba1404e5c82c992d8bd8134b5d3bed44df7717831c4e0cfb001bd2530389",
        "run:b0224805a4b4bca091a0aa56de339e5d3e53dfbc92b836c4b35dd80e162e29a3"),
    "dawinobias/masked": (
        "run:fd2f5fe6a491bb4c79fe8c91c61631f884c2db91899f86c08630c358bcf0bbf1",
        "run:67ce05ec216afcecaaf6a929968fe31b303e9f7a0642f9a172b6fbcdba65c1b7"),
    "lpbs/causal": (
        "run:8386a9c83ce8cc4622a7bb91c4eb8986758c28c2cbb59f9c7b1e63c27add3ef4",
        "run:182fe7521a3618a187eb88b775106c6f08758717ae5cf5cdfaf4e9bb29462789"),
    "lpbs/masked": (
        "run:3d6343d2fb556206399cf5adc29954d5b3ff0a244bb30ceea7985d0c4e60c714",
        "run:05bea9bdf99e32c327239ce928b0ee42587858ce8c2ea363abccda7ffd725153"),
    "lpbs/file-masked": (
        "run:a3137ec44506786ded9927f89d1d896ecb255599d2e49ca61cec23b39b4d54f8",
        "run:2188a7cd8152067119f9c35207a20c3a1fbfd4344796fe8bd9493549621a9318"),
    "perplexity/causal": (
        "run:009b9f3c45cced17e1cf6de663b2533e625a0cc19f46801da4b74713295c07a6",
        "run:7ae7126f20572108e8a77c270b107b72a102313b8b4f87ed94c054750e9fcbda"),
    "perplexity/masked": (
        "run:5d00aedd004d40c0ce1f1625491e474a3db1e9bc9e2eeb81967f20c2870258cc",
        "run:a462399db24f9db1b64f39cc7f67f6a5c92e8197aeac624c229bd5ddf21ea01f"),
    "stereoset/causal": (
        "run:ffe2bdb195dbffc07ed572e56bc6d1b8aa7b5b2a966dacc4659c2b12763294db",
        "run:d9d9fcf2e9c99ffd032368f3941a5fa76fc17e3ec293f29fef4dd97c96e86011"),
    "stereoset/masked": (
        "run:7b71707fd609092b631a4f570f46ab45694317261e86c62b990c0ed5414fc5ef",
        "run:cd77874f2e566bc9d629931819825830c24b38f5bb8d95de97c7cb537dbf821e"),
    "winobias/causal": (
        "run:303f1839cf54779415851a57b07fcb0ee06e1b7aec8a3006f19bbf52ff9c8a68",
        "run:2e9f4660516c425e5b53b84eb7e6d5c0977ebf0039968c0ddcfedda736cde3de"),
    "winobias/masked": (
        "run:596da6ad493502e9a16f2dac036110b73eb4705214f8b9e3fc05221961ec2ef2",
        "run:74e3e84c60100b0d70d42f218a2a4b3ef7939ec715b1ee0bf85fe98c79b3cb55"),
}
KEYS_REPORT_CROWS = ("run:0541aa2bae2768ee3fba98215c76fa135bc5bbf2add69877014339bd700e0999",
                     "run:775618f788fb8f2dc95f84042976f4f0eee0001073a9225ed9be117a730dc3a8")
KEYS_REPORT_STEREOSET = ("run:744761c3a735ab1330b6962e63c80d66a63f06af21b6d01e245743dad4943e7e",
                         "run:99178b764de1d295e9e00dddaa956cd3a870d8c19cfd3a9da436cbcc6c81bb85")
for _case, _keys in KEYS_WITHOUT_PATHS.items():
    CHANGED_ON_PURPOSE.setdefault(_case, {})[("cache_key",)] = _keys
for _section, _keys in ((0, KEYS_REPORT_CROWS), (1, KEYS_REPORT_STEREOSET)):
    CHANGED_ON_PURPOSE["report"][("sections", _section, "cache_key")] = _keys
    CHANGED_ON_PURPOSE["report"][("sections", _section, "parts", 0, "cache_key")] = _keys
# issue 36 item 2: a report headline carries its interval's caveat (stats/diagnostics.py:
# values outside the calibrated range); None in every headline of this report, whose
# numbers and readings are unchanged
for _section, _recorded in enumerate(BASELINE.get("report", {}).get("sections", [])):
    for _headline in range(len(_recorded.get("headlines", []))):
        CHANGED_ON_PURPOSE["report"][("sections", _section, "headlines", _headline,
                                      "caveat")] = (ABSENT, None)
        # a headline says why it has no interval or no estimate (reporting/entry.py: a
        # GenderBench metric over 5 or fewer clusters, JobsLum's slope on one item); None
        # in every headline of this report, whose numbers and readings are unchanged
        for _why in ("no_interval", "no_estimate"):
            CHANGED_ON_PURPOSE["report"][("sections", _section, "headlines", _headline,
                                          _why)] = (ABSENT, None)

# no point intervals (direct, discrimination-tamkin, counterfactual 4, attack 2, probe 3,
# abc 2, the chat probes and the suite one version up): an interval whose units (clusters) all
# give the same value was the point [x, x], which the data cannot establish; it is now
# NaN with no_interval "no spread over N units: interval undefined"
# (stats/intervals.no_spread). Every recorded zero-width interval below is such a point.
# The shares of answers (GenderBench's common.Share: Direct's fail rates,
# DiscriminationTamkin's success rates) take the design-effect Wilson interval over
# their clusters instead of the percentile cluster bootstrap (new bounds, method, and
# n_units: the clusters with an answer of that kind)
def _points(summary: Any, path: tuple[Any, ...] = ()) -> Any:
    """The summary entries (nested dicts) whose recorded interval is a finite point."""
    if not isinstance(summary, dict):
        return
    low, high = summary.get("ci_low"), summary.get("ci_high")
    if isinstance(low, float) and low == high and "no_interval" not in summary:
        yield path, summary
    for key, value in summary.items():
        yield from _points(value, (*path, key))


_SHARES = {"direct": ("fail_rate", "sbic_fail_rate", "gest_fail_rate"),
           "discrimination-tamkin": ("female_success_rate", "male_success_rate",
                                     "nonbinary_success_rate")}
_GENDERBENCH = {case.split("/")[0] for case in BASELINE.get("cases", {})
                if case.endswith("/hash-chat")}
for _case, _recorded in BASELINE.get("cases", {}).items():
    _probe = _case.split("/")[0]
    if _probe not in {*_GENDERBENCH, "attack", "counterfactual", "probe", "abc"}:
        continue  # measures whose intervals were not changed here
    _changed = CHANGED_ON_PURPOSE.setdefault(_case, {})
    for _path, _ci in _points(_recorded.get("summary", {})):
        if _path[0] in _SHARES.get(_probe, ()) or ("summary", *_path, "ci_low") in _changed:
            continue  # a share's new interval (below), or changed on purpose before
        _count = _ci.get("n_units") or _ci.get("n") or _ci.get("n_a", 0) + _ci.get("n_b", 0)
        for _end in ("ci_low", "ci_high"):
            _changed[("summary", *_path, _end)] = (_ci[_end], float("nan"))
        _changed[("summary", *_path, "no_interval")] = (
            ABSENT, f"no spread over {_count} {_ci.get('ci_unit') or 'units'}: interval "
            "undefined")
_WILSON = "design-effect Wilson"
_SHARE_CHANGES = {
    "direct/hash-chat": {
        **{(m, "ci_low"): 0.16835296708289788 for m in ("fail_rate", "sbic_fail_rate")},
        **{(m, "ci_high"): 0.7159379636985939 for m in ("fail_rate", "sbic_fail_rate")},
        ("gest_fail_rate", "n_units"): 0},
    "discrimination-tamkin/hash-chat": {
        ("female_success_rate", "ci_low"): 0.31987490247988515,
        ("female_success_rate", "ci_high"): 0.8947909808165445,
        ("male_success_rate", "ci_low"): 0.15185272968240449,
        ("male_success_rate", "ci_high"): 0.7814021200556794,
        ("male_success_rate", "n_units"): 9,
        ("nonbinary_success_rate", "ci_low"): 0.2502632588347303,
        ("nonbinary_success_rate", "ci_high"): 0.8927228001789305,
        ("nonbinary_success_rate", "n_units"): 7},
    "direct/tiny-chat-llama": {}}
for _case, _new in _SHARE_CHANGES.items():
    _summary = BASELINE.get("cases", {}).get(_case, {}).get("summary", {})
    for _metric in _SHARES[_case.split("/")[0]]:
        if _metric in _summary:
            _new = {**_new, (_metric, "method"): _WILSON}
    for (_metric, _key), _value in _new.items():
        CHANGED_ON_PURPOSE.setdefault(_case, {})[("summary", _metric, _key)] = (
            _summary.get(_metric, {}).get(_key, ABSENT), _value)

WORD_ROWS = "<the word rows the run looked up>"
"""A CHANGED_ON_PURPOSE 'recorded value' for a run's ``word_vectors`` table: the GloVe
rows of the words the run used, not a number it computed; checked to be that table
(columns set, text, v0..v49) and then compared as recorded."""
_CHANGE_DESIGNS = {
    "target": "mean of target words, crossed with attribute words",
    "attribute": "mean of attribute words, crossed with target words",
    "ripa": "mean of attribute words, crossed with word pairs"}
# issue 36 row 2: plain runs of the word-vector metrics record their word rows and the
# design of their change, so `genderscope compare` of two of them uses the crossed design
# (the numbers, the items and the reuse keys are unchanged)
for _case, _design in (("weat/glove", "target"), ("mac/glove", "target"),
                       ("ripa/glove", "ripa"), ("rnd/glove", "attribute"),
                       ("rnd/glove-swapped", "attribute"), ("ect/glove", "attribute")):
    CHANGED_ON_PURPOSE.setdefault(_case, {}).update({
        ("tables", "word_vectors"): (ABSENT, WORD_ROWS),
        ("metadata", "change_design"): (ABSENT, _CHANGE_DESIGNS[_design])})
# issue 36 item 6: LPBS's summary["aggregation"] said the words were "bootstrapped"; the
# set means have Student's t intervals over words (numbers unchanged; the words of
# test_statistics_words.py)
for _case in ("lpbs/causal", "lpbs/masked", "lpbs/file-masked"):
    CHANGED_ON_PURPOSE.setdefault(_case, {})[("summary", "aggregation")] = (
        "attribute-word means over templates; words permuted and bootstrapped",
        "attribute-word means over templates; words permuted, set means with t intervals "
        "over words")

# StereoSet's SS and LMS t intervals are clipped to the percentages' range [0, 100]
# (measures/stereoset.py): the masked case's SS interval began at -8.69, below any SS
for _path in (("summary", "by_bias_type", "gender", "ss", "ci_low"),
              ("summary", "gender", "ss", "ci_low"), ("summary", "overall", "ss", "ci_low"),
              ("tables", "by_bias_type", "records", 0, "ss_ci_low")):
    CHANGED_ON_PURPOSE.setdefault("stereoset/masked", {})[_path] = (-8.69305279936632, 0.0)

# perplexity (version 2): its runs name their model (metadata["model"], which `runs list`,
# `runs export --model`, `runs diff` and the report's provenance read); it had none. The
# engine records every run's model the same way, so it is the model description the other
# measures' cases of the same model recorded. Numbers and items unchanged
for _case, _same in (("perplexity/causal", "winobias/causal"),
                     ("perplexity/masked", "winobias/masked")):
    CHANGED_ON_PURPOSE.setdefault(_case, {})[("metadata", "model")] = (
        ABSENT, BASELINE.get("cases", {}).get(_same, {}).get("metadata", {}).get("model"))

# GenderBench probes: a metric over 5 or fewer clusters has no interval, the rule under
# which their paired tests give no p (measures/genderbench/probe_run.too_few_clusters):
# ci_low and ci_high NaN, no_interval says why, and genderscope's mark on that interval is
# none. Estimates, point marks and GenderBench's own marks are unchanged. Each entry is
# made from the recorded metric it changes: those with n_units (clusters) below 6.
for _case in ("dreaddit/hash-chat", "gest-creative/hash-chat", "hiring-bloomberg/hash-chat",
              "inventories/hash-chat", "jobs-lum/hash-chat"):
    _summary = BASELINE.get("cases", {}).get(_case, {}).get("summary", {})
    _changes = CHANGED_ON_PURPOSE.setdefault(_case, {})
    for _name, _m in _summary.items():
        if not (isinstance(_m, dict) and "ci_low" in _m and _m.get("n_units", 6) < 6):
            continue
        _changes[("summary", _name, "no_interval")] = (
            ABSENT, f"too few {_m['ci_unit']} to give an interval ({_m['n_units']}; 6 needed)")
        for _end in ("ci_low", "ci_high"):
            if _m[_end] == _m[_end]:  # a recorded NaN stays NaN
                _changes[("summary", _name, _end)] = (_m[_end], float("nan"))
        _mark = _summary.get("marks", {}).get(_name, {}).get("mark")
        if _mark is not None:
            _changes[("summary", "marks", _name, "mark")] = (_mark, None)


def _word_rows(want: dict[str, Any], got: dict[str, Any]) -> None:
    """Each :data:`WORD_ROWS` table of ``want`` checked in ``got`` and taken from it."""
    tables = want.get("tables", {})
    if tables.get("word_vectors") != WORD_ROWS:
        return
    table = got["tables"].get("word_vectors", {})
    assert table.get("columns") == ["set", "text", *(f"v{j}" for j in range(50))], table
    tables["word_vectors"] = table


def _as_changed(case_id: str, want: dict[str, Any]) -> dict[str, Any]:
    """The baseline of a case with its :data:`CHANGED_ON_PURPOSE` values (each checked
    to be what was recorded, so an entry cannot outlive its reason)."""
    changes = CHANGED_ON_PURPOSE.get(case_id, {})
    if not changes:
        return want
    want = json.loads(json.dumps(want))
    for path, (before, after) in changes.items():
        *parents, last = path
        node = want
        for k in parents:
            node = node[k]
        assert node.get(last, ABSENT) == before, (case_id, path, node.get(last, ABSENT))
        if after == ABSENT:  # a key removed on purpose
            del node[last]
        else:
            node[last] = after
    return want


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> record.Workspace:
    if not record.data_dir().is_dir():
        pytest.fail(f"benchmark data not found at {record.data_dir()}; set "
                    "GENDERSCOPE_TEST_DATA")
    return record.Workspace(tmp_path_factory.mktemp("identity"))


@pytest.fixture(scope="module")
def reruns() -> dict[str, dict[str, Any]]:
    """Records of this session's runs by case id (each case runs once for both tests)."""
    return {}


def _plain(value: Any) -> Any:
    """As the baseline was stored: through JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def _rerun(case_id: str, workspace: record.Workspace,
           reruns: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if case_id not in reruns:
        case = record.cases().get(case_id)
        if case is None:
            pytest.fail(f"{case_id}: in the baseline but not in record.CASES")
        reruns[case_id] = _plain(record.record_case(case, workspace))
    return reruns[case_id]


def _check(what: str, diffs: list[str]) -> None:
    if diffs:
        more = f"\n... and {len(diffs) - SHOWN} more" if len(diffs) > SHOWN else ""
        pytest.fail(f"{what}: {len(diffs)} difference(s) from the baseline "
                    f"(expected -> actual)\n" + "\n".join(diffs[:SHOWN]) + more,
                    pytrace=False)


def test_baseline_covers_every_measure() -> None:
    """Each measure of the recorded code has a case, and the cases are the ones
    ``record.py`` defines (a case added or renamed there needs a new recording)."""
    measured = {c["measure"] for c in BASELINE["cases"].values()}
    assert len(BASELINE["measures"]) == 33
    assert set(BASELINE["measures"]) <= measured, set(BASELINE["measures"]) - measured
    assert sorted(c.id for c in record.CASES) == CASE_IDS


def test_every_measure_is_still_offered() -> None:
    from genderscope import api

    measures = getattr(api, "measures", None)
    if measures is None:
        pytest.skip("genderscope.api.measures() is gone")
    missing = set(BASELINE["measures"]) - set(measures())
    assert not missing, f"genderscope.run no longer offers {sorted(missing)}"


def _key_comparable(case_id: str) -> bool:
    """Whether this case's reuse key can be compared with the baseline's: its measure's
    declared version is still 1 (:func:`_raised`). Keys hold no paths (issue 35), so
    where the data, this folder and the package lie does not matter."""
    case = record.cases().get(case_id)
    return case is None or not _raised(case.measure)


def _raised(measure: str) -> bool:
    """A measure whose declared version was raised on purpose (its stored runs' numbers
    changed, e.g. WEAT's d interval), so that its reuse keys differ from the baseline's:
    a store made before is never served for it (engine.keys.run_key)."""
    from genderscope.core.registry import get, names

    return measure in names() and get(measure).version != 1


def _without_raised_keys(value: Any) -> Any:
    """``value`` less the ``cache_key`` of every run (a ``method``) of a raised measure."""
    if isinstance(value, dict):
        name = value.get("method", value.get("measure"))  # a run, or a report section
        drop = isinstance(name, str) and _raised(name)
        return {k: _without_raised_keys(v) for k, v in value.items()
                if not (drop and k == "cache_key")}
    if isinstance(value, list):
        return [_without_raised_keys(v) for v in value]
    return value


def test_reuse_keys_are_compared_here() -> None:
    """Says (as a skip) which reuse keys this session cannot compare: those of measures
    whose version was raised on purpose (never because data or code moved)."""
    skipped = [c for c in CASE_IDS if not _key_comparable(c)]
    if skipped:
        pytest.skip(f"reuse keys not compared for {len(skipped)} case(s) "
                    f"({', '.join(skipped[:6])}{', ...' if len(skipped) > 6 else ''}): "
                    "their measure's version was raised")


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_same_numbers(case_id: str, workspace: record.Workspace,
                      reruns: dict[str, dict[str, Any]]) -> None:
    want = _as_changed(case_id, BASELINE["cases"][case_id])
    _check(f"{case_id} options (record.py changed: re-record)",
           list(record.compare(want["options"], _plain(record.options_record(
               record.cases()[case_id].make(workspace)[1], workspace)), "options")))
    got = _rerun(case_id, workspace, reruns)
    _word_rows(want, got)
    diffs = []
    parts = ("method", "cache_key", "summary", "items", "tables")
    for part in parts if _key_comparable(case_id) else [p for p in parts if p != "cache_key"]:
        diffs += record.compare(want[part], got[part], part)
    _check(case_id, diffs)
    if _raised(record.cases()[case_id].measure) and want["cache_key"] is not None:
        assert got["cache_key"] != want["cache_key"], "a raised version must change the key"


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_same_metadata(case_id: str, workspace: record.Workspace,
                       reruns: dict[str, dict[str, Any]]) -> None:
    got = _rerun(case_id, workspace, reruns)
    want = _as_changed(case_id, BASELINE["cases"][case_id])  # ("metadata", ...) entries
    _check(f"{case_id} metadata", list(record.compare(
        want["metadata"], got["metadata"], "metadata")))


def test_same_report(workspace: record.Workspace) -> None:
    """A --quick report's sections: status, headlines, summaries and reuse keys."""
    if "report" not in BASELINE:
        pytest.skip("the baseline holds no report")
    want, got = _as_changed("report", BASELINE["report"]), _plain(record.record_report(workspace))
    if not _key_comparable("report"):
        want, got = _without_keys(want), _without_keys(got)
    want, got = _without_raised_keys(want), _without_raised_keys(got)
    _check("report", list(record.compare(want, got, "report")))


def _without_keys(value: Any) -> Any:
    """``value`` less every ``cache_key`` (reuse keys that cannot be compared here)."""
    if isinstance(value, dict):
        return {k: _without_keys(v) for k, v in value.items() if k != "cache_key"}
    if isinstance(value, list):
        return [_without_keys(v) for v in value]
    return value


def test_compare_catches_a_changed_number() -> None:
    """The comparison this module relies on: a float one part in 1e9 off, an int, a
    string, a NaN and a missing key are differences; 1e-14 relative is not."""
    base = {"a": 0.1, "b": 3, "c": "x", "d": float("nan"), "e": [1.0, 2.0], "f": None}
    same = {**base, "a": 0.1 * (1 + 1e-14), "d": float("nan")}
    assert list(record.compare(base, same)) == []
    for changed in ({**base, "a": 0.1 * (1 + 1e-9)}, {**base, "b": 4}, {**base, "b": 3.0},
                    {**base, "c": "y"}, {**base, "d": 0.0}, {**base, "e": [1.0]},
                    {k: v for k, v in base.items() if k != "f"}, {**base, "g": 1}):
        assert list(record.compare(base, changed)), changed


def test_baseline_file_is_small() -> None:
    assert Path(record.BASELINE).stat().st_size < 2_000_000
