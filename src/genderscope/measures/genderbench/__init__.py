"""GenderBench 1.1.0 probes on chat models (Pikuliak et al. 2025): same data, prompts,
answer detection, metrics and mark ranges as GenderBench, with CIs over clusters
(cluster bootstrap; linearised cluster t for signed differences), paired tests over
clusters and Holm over each probe's tests (see ``common`` and ``probe_run``; one module
per probe)."""
