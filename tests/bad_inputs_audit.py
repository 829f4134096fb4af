"""Bad inputs of the adversarial audit after the redesign ("the API as strict as the CLI,
every option bounded"): each ended in a traceback, a silent accept, a hang or a message
that did not name the option before its fix. Each must end in exit code 2 (the API: a
``GenderscopeError``), one ``error:`` line naming the problem, and the workspace unchanged
(``tests/reliability/test_bad_inputs_audit.py`` runs them as tests/bad_inputs.py runs its
own; the files they read beyond that workspace: :func:`extend_workspace`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bad_input_case import ApiCase, Case  # noqa: E402

BIG = str(2**32)
"""One more than the largest seed (NumPy's legacy RandomState, scikit-learn's random_state)."""
HUGE = str(2**70)
"""Beyond torch's 64-bit seeds."""
CDS = ("debias", "cds", "--model", "{model}", "--corpus", "corpus.txt", "--out", "ft",
       "--no-progress")
ATTACK = ("attack", "--classifier", "clf.py:predict", "--data", "texts.csv", "--vectors",
          "vec.txt", "--lm", "none", "--no-progress")

SEEDS = [
    # a seed above 2**32 - 1 was a traceback from NumPy, scikit-learn or torch
    Case("A.1", "rnsb --seed 2**32 (NumPy's RandomState)",
         ("run", "rnsb", "--vectors", "vec.txt", "--test", "wt3.json", "--seed", BIG),
         "--seed must be at most 4294967295"),
    Case("A.1", "debias double-hard --seed 2**32 (scikit-learn's k-means)",
         ("debias", "double-hard", "--vectors", "vec.txt", "--out", "dv", "--no-evaluate",
          "--n-words", "1", "--seed", BIG), "--seed must be at most 4294967295"),
    Case("A.1", "debias cds --seed 2**70 (torch)",
         (*CDS, "--seed", HUGE), "--seed must be at most 4294967295"),
    Case("A.1", "debias dropout --seed 2**70 (torch)",
         ("debias", "dropout", "--model", "{model}", "--corpus", "corpus.txt", "--out", "dl",
          "--no-progress", "--seed", HUGE), "--seed must be at most 4294967295"),
    Case("A.1", "debias balance --seed 2**32 (accepted, unlike every other seed)",
         ("debias", "balance", "--corpus", "captions.txt", "--objects", "objects.txt", "--out",
          "b.txt", "--seed", BIG), "--seed"),
    Case("A.1", "run-many --seed 2**32", ("run-many", "--vectors", "vec.txt", "--query",
                                          "q3.json", "--metric", "rnsb", "--seed", BIG),
         "--seed"),
    Case("A.1", "sweep file: a measure's seed 2**32", ("sweep", "sw_seed.yaml", "--no-progress"),
         "seed must be at most 4294967295 (a 32-bit seed)"),
]

RUNS = [
    # an empty run id is a prefix of every id: it matched the store's only run
    Case("A.2", "runs show '' (an empty run id)", ("runs", "show", ""), "run id is empty"),
    Case("A.2", "runs diff '' RUN", ("runs", "diff", "", "nope"), "run id is empty"),
    *(Case("A.2", f"runs export --what {what} --run '' (exported every run)",
           ("runs", "export", "--out", "e.csv", "--what", what, "--run", ""), "--run is empty")
      for what in ("runs", "headlines", "items")),
    Case("A.2", "runs export --run a missing id (named)",
         ("runs", "export", "--out", "e.csv", "--run", "nope"), "no run 'nope'"),
    Case("A.2", "runs export --out a folder (was: export format '')",
         ("runs", "export", "--out", "afolder"), "is a folder"),
]

RUN_MANY = [
    # a metric that refused every query crashed the score table (a pandas TypeError)
    Case("A.3", "run-many: every cell refused (RNSB on two-word attribute sets)",
         ("run-many", "--vectors", "vec.txt", "--query", "q2.json", "--metric", "rnsb"),
         "every run failed", cache_may_grow=True),
]

ATTACKS = [
    Case("A.4", "attack --candidates 0 (the message named no option)",
         (*ATTACK, "--candidates", "0"), "--candidates must be at least 1"),
    # a huge population or generation count ran for hours (and grew without bound)
    Case("A.4", "attack --pop-size 10**9", (*ATTACK, "--pop-size", "1000000000"),
         "--pop-size must be at most 10000"),
    Case("A.4", "attack --generations 10**9", (*ATTACK, "--generations", "1000000000"),
         "--generations must be at most 1000"),
]

ENDPOINT = ("--model", "openai:tiny", "--base-url", "http://127.0.0.1:9/v1")
"""An endpoint nobody answers at: every case is refused before a request is sent."""
INLP = ("debias", "inlp", "--model", "{model}", "--out", "dl", "--corpus", "corpus.txt")

CHECKED_FIRST = [
    Case("A.5", "weat --tests-dir a missing folder beside a --test file (was ignored)",
         ("run", "weat", "--vectors", "vec.txt", "--test", "wt.json", "--tests-dir",
          "no-such-folder"), "--tests-dir"),
    # INLP/SentenceDebias: one message for four bounds, naming neither the flag nor its value
    *(Case("A.5", f"debias {m} {flag} {value}", (*INLP[:1], m, *INLP[2:], flag, value),
           f"{flag} must be at least {least}, got {value}")
      for m, flag, value, least in (("inlp", "--n-classifiers", "0", 1),
                                    ("inlp", "--per-class", "1", 2),
                                    ("sentence-debias", "--batch-size", "-1", 1),
                                    ("inlp", "--max-length", "2", 4))),
    # --kind was checked when the model loaded, after the word lists were read (or fetched)
    Case("A.5", "debias inlp --kind nonsense", ("debias", "inlp", "--model", "{model}", "--out",
                                                "dl", "--kind", "nonsense"), "--kind"),
    # the pair and the targets were checked after the model loaded (its memo stored)
    Case("A.5", "probe --pair he,HE (one word twice)",
         ("probe", "--model", "{model}", "--pair", "he,HE", "doctor"),
         "--pair needs two different words"),
    Case("A.5", "probe with an empty target", ("probe", "--model", "{model}", "doctor", " "),
         "empty target"),
    # more threads than the client has connections (thousands, one per prompt)
    Case("A.6", "run bbq --concurrency 100000", ("run", "bbq", *ENDPOINT, "--concurrency",
                                                 "100000"), "--concurrency must be at most 1,000"),
    Case("A.6", "report --concurrency 100000", ("report", *ENDPOINT, "--concurrency", "100000",
                                                "--out", "new.html"), "--concurrency"),
    Case("A.6", "sweep --concurrency 100000 (each job failed, exit 1)",
         ("sweep", *ENDPOINT, "--measure", "bbq", "--concurrency", "100000", "--no-progress",
          "--out", "s.html"), "--concurrency must be at most 1,000"),
    # the report ran every measure into a failure, or ignored the flag
    Case("A.7", "report --device nonsense (every measure failed, exit 1)",
         ("report", "--model", "{model}", "--device", "nonsense", "--out", "new.html"),
         "unknown device 'nonsense'"),
    Case("A.7", "report --texts without --classifier (ignored)",
         ("report", "--vectors", "vec.txt", "--texts", "texts.csv", "--out", "new.html"),
         "--texts is for the classifier measures"),
    Case("A.7", "sweep whose measures apply to none of its models (exit 0, an empty page)",
         ("sweep", "--vectors", "vec.txt", "--measure", "crows-pairs", "--no-progress", "--out",
          "s.html"), "no measure of the sweep applies to its models"),
]

HUGE_COUNTS = [
    # counts with no upper bound: a list of that many attempts (MemoryError), a retry loop
    # that never ends, a bootstrap that keeps every replicate, an overflow in the tokenizer
    Case("A.8", "bbq --repetitions 10**20", ("run", "bbq", *ENDPOINT, "--repetitions", HUGE),
         "--repetitions must be at most 100"),
    Case("A.8", "hiring-bloomberg --reorderings 10**20",
         ("run", "hiring-bloomberg", *ENDPOINT, "--reorderings", HUGE),
         "--reorderings must be at most 1000"),
    Case("A.8", "bias-amplification --model --samples 10**20",
         ("run", "bias-amplification", "--model", "{model}", "--temperature", "1", "--samples",
          HUGE), "--samples must be at most 100"),
    Case("A.8", "bbq --retries 10**20 (retried for ever)",
         ("run", "bbq", *ENDPOINT, "--retries", HUGE), "--retries must be at most 100"),
    Case("A.8", "bbq --timeout 1e300", ("run", "bbq", *ENDPOINT, "--timeout", "1e300"),
         "--timeout must be at most 3600"),
    Case("A.8", "stereoset --resamples 10**20 (a MemoryError)",
         ("run", "stereoset", "--model", "{model}", "--limit", "2", "--resamples", HUGE),
         "--resamples must be at most 1,000,000"),
    Case("A.8", "weat --permutations 10**20", ("run", "weat", "--vectors", "vec.txt", "--test",
                                               "wt.json", "--permutations", HUGE),
         "--permutations must be at most 10,000,000"),
    Case("A.8", "compare --n-resamples 10**20", ("compare", "res_a", "res_b", "--key", "id",
                                                 "--value", "value", "--n-resamples", HUGE),
         "--n-resamples"),
    Case("A.8", "run-many --resamples 10**20", ("run-many", "--vectors", "vec.txt", "--query",
                                                "q3.json", "--resamples", HUGE), "--resamples"),
    Case("A.8", "debias cds --epochs 10**20 (a MemoryError after minutes, a partial --out)",
         (*CDS, "--epochs", HUGE), "--epochs must be at most 1,000"),
    Case("A.8", "debias cds --max-length 10**20 (the tokenizer's OverflowError)",
         (*CDS, "--max-length", HUGE), "--max-length must be at most 1,048,576"),
    Case("A.8", "debias inlp --n-classifiers 10**20", (*INLP, "--n-classifiers", HUGE),
         "--n-classifiers must be at most 10,000"),
]

API = [
    ApiCase("A.1", "gs.run('rnsb', seed=2**32)",
            "gs.run('rnsb', 'vec.txt', test='wt3.json', seed=2**32)", "at most 4294967295"),
    ApiCase("A.1", "gs.debias(seed=2**70)", "gs.debias(MODEL, 'corpus.txt', 'ft', seed=2**70)",
            "at most 4294967295"),
    ApiCase("A.4", "gs.run('attack', pop_size=10**9)",
            "gs.run('attack', 'clf.py:predict', data='texts.csv', vectors='vec.txt', lm='none',"
            " pop_size=10**9)", "pop_size must be at most 10000"),
    ApiCase("A.6", "gs.load_model(concurrency=10**5)",
            "gs.load_model('openai:x', base_url='http://127.0.0.1:9/v1', concurrency=10**5)",
            "--concurrency must be at most 1,000"),
    ApiCase("A.8", "gs.compare(resamples=10**20)", "gs.compare('res_a', 'res_b', key=['id'], "
            "value='value', resamples=10**20)", "resamples must be at most 1,000,000"),
    ApiCase("A.8", "gs.run('ripa', resamples=10**7)",
            "gs.run('ripa', 'vec.txt', test='wt3.json', resamples=10**7)",
            "resamples must be at most 1,000,000"),
    ApiCase("A.7", "gs.report(texts=...) without classifiers",
            "gs.report(vectors=['vec.txt'], texts='texts.csv', out='new.html')",
            "texts is for the classifier measures; no classifier was given"),
]

REPORT = ("report", "--out", "new.html", "--no-progress")
CLASSIFIED = (*REPORT, "--texts", "texts.csv", "--classifier")
"""A report on texts; the classifier SPEC follows."""

REPORT_INPUTS = [
    # the report started, recorded a failed section for the classifier measures and exited 1
    Case("A.10", "report --classifier a missing pickle (a failed section, exit 1)",
         (*CLASSIFIED, "nope.pkl"), "--classifier nope.pkl: no such file"),
    Case("A.10", "report --classifier a file that is not a classifier SPEC",
         (*CLASSIFIED, "texts.csv"), "not a classifier SPEC"),
    Case("A.10", "report --classifier a missing file.py:name",
         (*CLASSIFIED, "nope.py:predict"), "no such file nope.py"),
    Case("A.10", "report --classifier a module that is not installed",
         (*CLASSIFIED, "no_such_module_gs:predict"), "no module named 'no_such_module_gs'"),
    Case("A.10", "report --texts a CSV without a text column (a failed section, exit 1)",
         (*REPORT, "--classifier", "clf.py:predict", "--texts", "nocol.csv"),
         "no text column"),
    Case("A.10", "report --texts a file of blank lines", (*REPORT, "--classifier",
                                                          "clf.py:predict", "--texts",
                                                          "blank.txt"), "no texts"),
    Case("A.10", "report --texts a file that is not UTF-8",
         (*REPORT, "--classifier", "clf.py:predict", "--texts", "latin1.txt"), "--texts"),
    Case("A.10", "report --texts a missing file", (*REPORT, "--classifier", "clf.py:predict",
                                                   "--texts", "nope.csv"),
         "--texts nope.csv: no such file"),
    # a start token means something to a causal LM only: it was accepted and ignored
    Case("A.11", "run crows-pairs --start-token none with a masked model (ignored)",
         ("run", "crows-pairs", "--model", "{model}", "--limit", "2", "--start-token", "none"),
         "--start-token applies to causal models only"),
    Case("A.11", "report --start-token none with a masked model (ignored)",
         (*REPORT, "--model", "{model}", "--start-token", "none"),
         "--start-token applies to causal models only"),
    Case("A.11", "sweep file: start_token with masked models only (ignored)",
         ("sweep", "sw_start.yaml", "--no-progress"),
         "settings: start_token 'none' applies to causal models only"),
]

UNSET = "GS_AUDIT_UNSET_KEY"
"""An environment variable no test sets: ``--api-key-env`` naming it is refused."""

ENDPOINT_STRICT = [
    # a named key variable that is unset: the requests went out without a key
    Case("A.12", "run bbq --api-key-env naming an unset variable",
         ("run", "bbq", *ENDPOINT, "--api-key-env", UNSET), f"--api-key-env {UNSET}: the "
         "variable is not set"),
    Case("A.12", "report --api-key-env naming an unset variable",
         (*REPORT, *ENDPOINT, "--api-key-env", UNSET), f"--api-key-env {UNSET}: the variable "
         "is not set"),
    Case("A.12", "sweep --api-key-env naming an unset variable",
         ("sweep", *ENDPOINT, "--measure", "bbq", "--api-key-env", UNSET, "--no-progress",
          "--out", "s.html"), f"--api-key-env {UNSET}: the variable is not set"),
    Case("A.12", "sweep file: an endpoint's api_key_env naming an unset variable",
         ("sweep", "sw_key.yaml", "--no-progress"), f"model openai:tiny: api_key_env {UNSET}: "
         "the variable is not set"),  # as the file spells it, not the flag
    # an '@' inside a path segment ends a user name or password that holds a '/'
    Case("A.12", "run bbq --base-url with '@' inside a path segment",
         ("run", "bbq", "--model", "openai:tiny", "--base-url", "http://127.0.0.1:9/v1/te@m"),
         "percent-encode"),
]

BOUNDS = [
    # the option-bounds audit: counts that set a run's work had no upper bound, a negative
    # count was accepted
    Case("A.13", "weat --exact-limit 10**20 (exact up to 10**20 partitions)",
         ("run", "weat", "--vectors", "vec.txt", "--test", "wt.json", "--exact-limit", HUGE),
         "--exact-limit must be at most 10,000,000"),
    Case("A.13", "run bbq --max-new-tokens 10**20 (sent to the endpoint)",
         ("run", "bbq", *ENDPOINT, "--max-new-tokens", HUGE),
         "--max-new-tokens must be at most 1,048,576"),
    Case("A.13", "report --max-new-tokens 10**20 (every endpoint measure failed, exit 1)",
         ("report", *ENDPOINT, "--max-new-tokens", HUGE, "--out", "new.html"),
         "--max-new-tokens must be at most 1,048,576"),
    Case("A.13", "report --repeat-penalty -1 (every endpoint measure failed, exit 1)",
         ("report", *ENDPOINT, "--repeat-penalty", "-1", "--out", "new.html"),
         "--repeat-penalty must be at least 0"),
    Case("A.13", "sweep --max-retries 10**20", ("sweep", "--vectors", "vec.txt", "--measure",
                                                "weat", "--max-retries", HUGE, "--no-progress",
                                                "--out", "s.html"),
         "--max-retries must be at most 100"),
    Case("A.13", "debias inlp --max-length 10**20", (*INLP, "--max-length", HUGE),
         "--max-length must be at most 1,048,576"),
    Case("A.13", "debias sentence-debias --max-pairs 0 (no pairs)",
         ("debias", "sentence-debias", "--model", "{model}", "--out", "dl", "--corpus",
          "corpus.txt", "--max-pairs", "0"), "--max-pairs must be at least 1"),
    Case("A.13", "runs show --items -1 (printed every item but the last)",
         ("runs", "show", "nope", "--items", "-1"), "--items must be at least 0"),
]

API = [
    *API,
    ApiCase("A.13", "gs.run('ripa', exact_limit=10**20)",
            "gs.run('ripa', 'vec.txt', test='wt3.json', exact_limit=10**20)",
            "exact_limit must be at most 10,000,000"),

    ApiCase("A.10", "gs.report(classifiers=[a missing pickle]) (a failed section)",
            "gs.report(classifiers=['nope.pkl'], texts='texts.csv', out='new.html')",
            "--classifier nope.pkl: no such file"),
    ApiCase("A.10", "gs.report(texts=a file of blank lines) (a failed section)",
            "gs.report(classifiers=['clf.py:predict'], texts='blank.txt', out='new.html')",
            "no texts"),
    ApiCase("A.11", "gs.run(start_token='none') with a masked model (ignored)",
            "gs.run('crows-pairs', MODEL, limit=2, start_token='none')",
            "--start-token applies to causal models only"),
    ApiCase("A.11", "gs.report(start_token='none') with a masked model (ignored)",
            "gs.report([MODEL], out='new.html', start_token='none')",
            "--start-token applies to causal models only"),
    ApiCase("A.12", "gs.run(api_key_env=an unset variable)",
            f"gs.run('bbq', 'openai:tiny', base_url='http://127.0.0.1:9/v1', "
            f"api_key_env='{UNSET}')", f"--api-key-env {UNSET}: the variable is not set"),
]

CASES = [*SEEDS, *RUNS, *RUN_MANY, *ATTACKS, *CHECKED_FIRST, *HUGE_COUNTS, *REPORT_INPUTS,
         *ENDPOINT_STRICT, *BOUNDS, *API]


def _query(path: Path, attributes: tuple[list[str], list[str]]) -> None:
    path.write_text(json.dumps({"name": path.stem,
                                "targets": {"male": ["he", "man"], "female": ["she", "woman"]},
                                "attributes": {"a": attributes[0], "b": attributes[1]}}))


def extend_workspace(root: Path) -> None:
    """The files these cases read, beside tests/bad_inputs.py's workspace."""
    sets = {"targ1": ["he", "man"], "targ2": ["she", "woman"],
            "attr1": ["doctor", "king", "the"], "attr2": ["nurse", "queen", "is"]}
    (root / "wt3.json").write_text(json.dumps({k: {"category": k, "examples": v}
                                               for k, v in sets.items()}))
    _query(root / "q3.json", (["doctor", "king", "the"], ["nurse", "queen", "is"]))
    _query(root / "q2.json", (["doctor", "king"], ["nurse", "queen"]))
    (root / "nocol.csv").write_text("sentence_id,words\n1,he is a doctor\n")
    (root / "blank.txt").write_text("\n  \n\n")
    (root / "sw_seed.yaml").write_text(f"models: [smollm2]\nmeasures: [{{name: crows-pairs, "
                                       f"seed: {BIG}}}]\n")
    (root / "sw_start.yaml").write_text("models: [{model: mymodel, kind: masked}]\nmeasures: "
                                        "[crows-pairs]\nsettings: {start_token: none}\n")
    (root / "sw_key.yaml").write_text("models: [{model: 'openai:tiny', base_url: "
                                      f"'http://127.0.0.1:9/v1', api_key_env: {UNSET}}}]\n"
                                      "measures: [bbq]\n")
