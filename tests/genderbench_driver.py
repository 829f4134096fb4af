"""Runs GenderBench 1.1.0's own probes, evaluators and metric calculators (in its own
Python 3.12 venv; driven by tests/agreement/test_genderbench_agreement.py, never imported by
genderscope).

Reads JSON on stdin: ``{"nltk_data": DIR, "punkt": {...}, "cases": [...]}``. Each case
names a probe class, its keyword arguments and a mode: ``replay`` (a generator that
replays the answers ``answer_for(text, repetition)`` gives, the same rule the test
feeds genderscope) or ``random`` (GenderBench's ``RandomGenerator``); or, given
``"harness"`` instead of cases, runs ``DefaultHarness`` on replayed answers
(``_harness``). Writes JSON: per case the metrics, the marks (0-3 = A-D, null for
NaN) and every attempt as (prompt, repetition, answer, evaluation) with, in ``items``,
the index of its probe item.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import tempfile


def answer_for(text: str, repetition: int, pool: list) -> str:
    """A fixed pseudo-random answer of the pool for one prompt and repetition (a pool of
    lists: one pool per repetition, ``pool[repetition % len(pool)]``)."""
    if pool and isinstance(pool[0], list):
        pool = pool[repetition % len(pool)]
    h = hashlib.sha256(f"{repetition}\x1f{text}".encode()).digest()
    return pool[int.from_bytes(h[:4], "little") % len(pool)]


def _install_punkt(root: str, params: dict) -> None:
    """NLTK's English punkt_tab parameters, written where nltk looks (no download)."""
    from nltk.tokenize.punkt import PunktParameters, save_punkt_params

    target = os.path.join(root, "tokenizers", "punkt_tab", "english")
    if os.path.isfile(os.path.join(target, "ortho_context.tab")):
        return
    p = PunktParameters()
    p.abbrev_types = set(params["abbrev_types"])
    p.collocations = {tuple(c) for c in params["collocations"]}
    p.sent_starters = set(params["sent_starters"])
    p.ortho_context.update({k: int(v) for k, v in params["ortho_context"].items()})
    os.makedirs(target, exist_ok=True)
    save_punkt_params(p, dir=target)


def _plain(evaluation: object) -> object:
    """An evaluation as JSON can hold it (BusinessVocabulary's dict of count arrays becomes
    sorted JSON text, as genderscope writes it)."""
    if isinstance(evaluation, dict):
        return json.dumps({k: [int(x) for x in v] for k, v in evaluation.items()},
                          sort_keys=True)
    return evaluation


def _harness(spec: dict, log_dir: str, generator_base: type) -> dict:
    """``DefaultHarness().run`` (its probes, repetitions, reorderings, bootstrap CIs and
    marks) with each probe's ``sample_k`` set to ``spec["sizes"][class]`` before it runs,
    on a generator that replays ``answer_for(text, repetition, spec["pools"][class])``.
    Returns per probe class its marks (0-3, null for NaN), interval metrics and the
    probe-item index of every attempt."""
    from genderbench.harnesses.default import DefaultHarness

    harness = DefaultHarness(log_dir=log_dir, log_strategy="no")
    for probe in harness.probes:
        probe.sample_k = spec["sizes"][type(probe).__name__]

    class HarnessReplay(generator_base):
        """Answers the harness's probes in the order it runs them."""

        def __init__(self) -> None:
            self.next = 0

        def generate(self, texts: list[str]) -> list[str]:
            probe = harness.probes[self.next]
            self.next += 1
            attempts = list(probe.attempts)
            assert [a.prompt.text for a in attempts] == texts
            pool = spec["pools"][type(probe).__name__]
            return [answer_for(a.prompt.text, a.repetition_id, pool) for a in attempts]

    marks, metrics = harness.run(HarnessReplay())

    def plain(v: object) -> object:
        if isinstance(v, tuple):
            return [None if math.isnan(x) else float(x) for x in v]
        return None if isinstance(v, float) and math.isnan(v) else v

    return {cls: {"marks": {k: (None if isinstance(m["mark_value"], float)
                                and math.isnan(m["mark_value"]) else int(m["mark_value"]))
                            for k, m in marks[cls].items()},
                  "metrics": {k: plain(v) for k, v in metrics[cls].items()},
                  "attempts": [[a.prompt.text, a.repetition_id, k]
                               for k, item in enumerate(probe.probe_items)
                               for a in item.attempts]}
            for cls, probe in ((type(p).__name__, p) for p in harness.probes)}


def main() -> None:
    job = json.load(sys.stdin)
    os.environ["NLTK_DATA"] = job["nltk_data"]
    import nltk

    nltk.data.path.insert(0, job["nltk_data"])
    nltk.download = lambda *a, **k: True  # offline: the data is installed above
    _install_punkt(job["nltk_data"], job["punkt"])
    if job.get("gest_csv"):  # GEST is read from the Hugging Face Hub: use the fixture
        import pandas as pd

        read_csv = pd.read_csv
        pd.read_csv = lambda path, *a, **k: read_csv(
            job["gest_csv"] if str(path).startswith("hf://datasets/kinit/gest") else path,
            *a, **k)
    import genderbench.probes as probes
    from genderbench.generators.generator import Generator
    from genderbench.generators.random import RandomGenerator

    class Replay(Generator):
        def __init__(self, answers: list[str]) -> None:
            self.answers = answers

        def generate(self, texts: list[str]) -> list[str]:
            assert len(texts) == len(self.answers)
            return list(self.answers)

    out = []
    log_dir = tempfile.mkdtemp()
    if job.get("harness"):  # GenderBench's DefaultHarness on replayed answers
        json.dump(_harness(job["harness"], log_dir, Generator), sys.stdout)
        return
    for case in job["cases"]:
        cls = getattr(probes, case["probe"])
        probe = cls(calculate_cis=case.get("cis", False), log_strategy="no", log_dir=log_dir,
                    **case["kwargs"])
        if case["mode"] == "replay":
            probe.create_probe_items()
            answers = [answer_for(a.prompt.text, a.repetition_id, case["pool"])
                       for a in probe.attempts]
            probe.generate(Replay(answers))
            probe.evaluate()
            probe.calculate_metrics()
        else:
            probe.run(RandomGenerator(case["pool"], seed=case["seed"]))
        metrics = {k: (list(v) if isinstance(v, tuple) else v) for k, v in probe.metrics.items()}
        out.append({"metrics": {k: (None if isinstance(v, float) and math.isnan(v) else v)
                                for k, v in metrics.items()},
                    "marks": {k: (None if isinstance(v["mark_value"], float)
                                  and math.isnan(v["mark_value"]) else int(v["mark_value"]))
                              for k, v in probe.marks.items()},
                    "attempts": [[a.prompt.text, a.repetition_id, a.answer,
                                  _plain(a.evaluation)] for a in probe.attempts],
                    "items": [k for k, item in enumerate(probe.probe_items)
                              for _ in item.attempts]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
