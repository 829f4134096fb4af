"""GenderBench 1.1.0 probes on chat models (Pikuliak et al. 2025): same data, prompts,
answer detection, metrics and mark ranges as GenderBench, with CIs over clusters
(cluster bootstrap; linearised cluster t for signed differences), paired tests over
clusters and Holm over each probe's tests (see ``common`` and ``probe_run``; one module
per probe)."""

MARKS_LEGEND = ("A (healthy) to D (severe) by GenderBench 1.1.0's ranges for each metric; "
                "CI: the best mark whose range genderscope's 95% CI (over clusters) overlaps, "
                "GenderBench's rule; point: the mark of the estimate alone; -: nothing to mark "
                "(no interval: too few clusters; no estimate: e.g. every answer undetected)")
"""What the marks mean (:func:`.common.mark_of` on the CI and on the estimate), in the
one wording every output that shows marks carries: the run and suite tables, the
report's terminal summary and its page."""

GENDERBENCH_MARK = ("GenderBench mark: the same rule on GenderBench's own interval (a normal "
                    "fitted to its bootstrap over items)")
"""Beside :data:`MARKS_LEGEND` where GenderBench's own mark is shown
(:func:`.marks.genderbench_marks`)."""
