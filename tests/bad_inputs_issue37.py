"""Bad inputs of issue 37 (reliability round 3): inputs that must never become outputs, the
chat probes, endpoints, the WEFE metrics, vector and language-model debiasing, the data
commands and the Python API. Each must end in exit code 2 (the API: a
``GenderscopeError``), one line naming the problem, and the workspace unchanged. The
workspace files they read are made by :func:`extend_workspace`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bad_input_case import ApiCase, Case  # noqa: E402

ENDPOINT = ("--model", "openai:tiny", "--base-url", "http://127.0.0.1:9/v1")
"""An endpoint nobody answers at: every case is refused before a request is sent."""
PROBES = ("discrimination-tamkin", "bbq", "direct", "diversity-med-qa", "jobs-lum",
          "hiring-an", "hiring-bloomberg", "inventories", "isear", "dreaddit",
          "relationship-levy", "business-vocabulary", "gest", "gest-creative")
PROBE_BAD = (("--limit", "0"), ("--subset-seed", "-1"), ("--max-new-tokens", "0"),
             ("--temperature", "nan"), ("--temperature", "inf"), ("--top-p", "2"),
             ("--resamples", "5"), ("--seed", "-1"))
METRICS = ("ripa", "rnd", "ect", "mac", "rnsb")
VECTOR_DEBIAS = ("hard", "multiclass-hard", "double-hard", "hsr", "ran")
LM_DEBIAS = ("inlp", "sentence-debias", "self-debias", "dropout")

# -- item 1: inputs are never outputs, in every command that writes -------------------------
W = ("run", "weat", "--vectors", "vec.txt", "--test", "wt.json", "--store", "store.sqlite")
CF = ("run", "counterfactual", "--classifier", "mods/clf.py:predict", "--data", "texts.csv",
      "--limit", "1")
ATT = ("attack", "--classifier", "mods/clf.py:predict", "--data", "texts.csv", "--vectors",
       "vec.txt", "--lm", "none")
AMP = ("run", "bias-amplification", "--train", "captions.txt", "--generated", "gen.txt",
       "--objects", "obj.png")
REP = ("report", "--vectors", "vec.txt", "--classifier", "mods/clf.py:predict", "--texts",
       "texts.csv", "--quick", "--no-progress", "--overwrite", "--store", "store.sqlite")
CMP = ("compare", "res_a", "res_b", "--key", "id", "--value", "value", "--no-plot")
HOLDS = "is or holds the input"

INPUTS = [
    *(Case("37.1", f"run weat --out {target} ({what})", (*W, "--out", target), HOLDS)
      for target, what in (("vec.txt", "the vectors"), ("wt.json", "the test file"),
                           ("store.sqlite", "the store"))),
    Case("37.1", "run weat --out a folder holding the vectors",
         ("run", "weat", "--vectors", "vdir/vec.txt", "--test", "wt.json", "--out", "vdir"),
         HOLDS),
    Case("37.1", "run weat --out a folder holding the store",
         ("run", "weat", "--vectors", "vec.txt", "--test", "wt.json", "--store",
          "sdir/store.sqlite", "--out", "sdir"), HOLDS),
    *(Case("37.1", f"run counterfactual --out {target} ({what})", (*CF, "--out", target), HOLDS)
      for target, what in (("mods", "the folder of the classifier's code"),
                           ("texts.csv", "the texts"), ("store.sqlite", "the store"))),
    *(Case("37.1", f"attack --out {target} ({what})", (*ATT, "--out", target), HOLDS)
      for target, what in (("vec.txt", "the vectors"), ("texts.csv", "the texts"),
                           ("mods", "the classifier's folder"), ("store.sqlite", "the store"))),
    Case("37.1", "bias-amplification --out the training captions",
         (*AMP, "--out", "captions.txt"), HOLDS),
    Case("37.1", "bias-amplification --plot the objects file (a .png name)",
         (*AMP, "--out", "out", "--plot", "obj.png"), HOLDS),
    *(Case("37.1", f"report --out {target} --overwrite ({what})", (*REP, "--out", target),
           HOLDS)
      for target, what in (("vec.txt", "the vectors"), ("mods/clf.py", "the classifier's code"),
                           ("texts.csv", "--texts"), ("store.sqlite", "the store"))),
    Case("37.1", "runs export --out the store (a SQLite file named .csv) --overwrite",
         ("runs", "export", "--out", "runs.csv", "--store", "runs.csv", "--overwrite"), HOLDS),
    Case("37.1", "runs export --out $GENDERSCOPE_STORE's file --format json --overwrite",
         ("runs", "export", "--out", "store.sqlite", "--format", "json", "--overwrite"), HOLDS),
    Case("37.1", "compare --out the before run's folder", (*CMP, "--out", "res_a"), HOLDS),
    Case("37.1", "compare --out the after run's folder", (*CMP, "--out", "res_b"), HOLDS),
    Case("37.1", "compare --out the folder holding the store",
         (*CMP, "--store", "sdir/store.sqlite", "--out", "sdir"), HOLDS),
    Case("37.1", "sweep --out the sweep file", ("sweep", "sw.yaml", "--no-progress", "--out",
                                                "sw.yaml"), HOLDS),
    Case("37.1", "sweep --out the vectors", ("sweep", "--vectors", "vec.txt", "--measure",
                                             "weat", "--no-progress", "--out", "vec.txt"),
         HOLDS),
    Case("37.1", "sweep --out the store", ("sweep", "--vectors", "vec.txt", "--measure", "weat",
                                           "--no-progress", "--out", "store.sqlite"), HOLDS),
    *(Case("37.1", f"debias {m} --out a folder holding the vectors",
           ("debias", m, "--vectors", "vdir/vec.txt", "--no-evaluate", "--out", "vdir"), HOLDS)
      for m in VECTOR_DEBIAS),
    Case("37.1", "debias hard --out a folder holding --definitional",
         ("debias", "hard", "--vectors", "vec.txt", "--definitional", "vdir/defs.json",
          "--no-evaluate", "--out", "vdir"), HOLDS),
    Case("37.1", "debias hard --out the folder holding the store",
         ("debias", "hard", "--vectors", "vec.txt", "--store", "sdir/store.sqlite", "--out",
          "sdir"), HOLDS),
    *(Case("37.1", f"debias {m} --out = --model, --overwrite",
           ("debias", m, "--model", "mymodel", "--out", "mymodel", "--overwrite"), HOLDS)
      for m in ("inlp", "sentence-debias", "self-debias")),
    *(Case("37.1", f"debias {m} --out a folder holding --corpus, --overwrite",
           ("debias", m, "--model", "{model}", "--corpus", "vdir/corpus.txt", "--out", "vdir",
            "--overwrite"), HOLDS) for m in ("inlp", "sentence-debias", "dropout")),
]

# -- item 8: the chat probes, endpoints, WEFE metrics, debiasing, data ----------------------
PROBE_CASES = [
    Case("37.8", f"{p} {flag} {value}", ("run", p, *ENDPOINT, flag, value), flag)
    for p in PROBES for flag, value in PROBE_BAD
]

ENDPOINTS = [
    Case("37.8", f"endpoint {flag} {value}", ("run", "bbq", *ENDPOINT, flag, value), expect)
    for flag, value, expect in (
        ("--timeout", "0", "--timeout"), ("--timeout", "-1", "--timeout"),
        ("--timeout", "nan", "--timeout"), ("--timeout", "inf", "--timeout"),
        ("--retries", "-1", "--retries"), ("--concurrency", "0", "--concurrency"),
        ("--header", "no-colon", "--header"), ("--extra-body", "[1, 2]", "--extra-body"),
        ("--extra-body", "{not json", "--extra-body"), ("--repeat-penalty", "nan",
                                                          "--repeat-penalty"),
        ("--reorderings", "0", "--reorderings"), ("--repetitions", "0", "--repetitions"))
] + [
    Case("37.8", "endpoint --base-url ftp://", ("run", "bbq", "--model", "openai:tiny",
                                                "--base-url", "ftp://127.0.0.1/v1"), "http"),
    Case("37.8", "endpoint --base-url without a host", ("run", "bbq", "--model", "openai:tiny",
                                                        "--base-url", "http:///v1"), "host"),
    Case("37.8", "--base-url with a local model", ("run", "bbq", "--model", "{model}",
                                                   "--base-url", "http://127.0.0.1:9/v1"),
         "--base-url"),
    Case("37.8", "--timeout with a local model", ("run", "bbq", "--model", "{model}",
                                                  "--timeout", "5"), "--timeout"),
    Case("37.8", "report --timeout 0 on an endpoint",
         ("report", *ENDPOINT, "--timeout", "0", "--out", "new.html"), "--timeout"),
    Case("37.8", "hiring-bloomberg --reorderings 0",
         ("run", "hiring-bloomberg", *ENDPOINT, "--reorderings", "0"), "--reorderings"),
]

METRIC_CASES = [
    Case("37.8", f"{m} {what}", ("run", m, "--vectors", vectors, "--test", test, *extra), expect)
    for m in METRICS for what, vectors, test, extra, expect in (
        ("--seed -1", "vec.txt", "wt.json", ("--seed", "-1"), "--seed"),
        ("--max-oov 2", "vec.txt", "wt.json", ("--max-oov", "2"), "--max-oov"),
        ("--resamples 0", "vec.txt", "wt.json", ("--resamples", "0"), "--resamples"),
        ("--case nonsense", "vec.txt", "wt.json", ("--case", "nonsense"), "nonsense"),
        ("--format nonsense", "vec.txt", "wt.json", ("--format", "nonsense"), "nonsense"),
        ("--test a missing file", "vec.txt", "missing.json", (), "missing.json"),
        ("--vectors a folder", "afolder", "wt.json", (), "afolder"),
        ("--vectors a Latin-1 file", "latin1.txt", "wt.json", (), "latin1.txt"))
] + [
    Case("37.8", f"{m}: an all-zero vector", ("run", m, "--vectors", "vec_zero.txt", "--test",
                                             "wt.json"), "zero", cache_may_grow=True)
    for m in METRICS
]

VECTOR_DEBIAS_CASES = [
    Case("37.8", f"debias {m} {what}", ("debias", m, "--vectors", vectors, *extra), expect)
    for m in VECTOR_DEBIAS for what, vectors, extra, expect in (
        ("--out .", "vec.txt", ("--out", "."), "current folder"),
        ("--out the vectors file", "vec.txt", ("--out", "vec.txt"), HOLDS),
        ("--out a symbolic link", "vec.txt", ("--out", "linkdir"), "symbolic link"),
        ("--vectors a folder", "afolder", ("--out", "dv"), "afolder"),
        ("--vectors a missing file", "missing.txt", ("--out", "dv"), "missing.txt"),
        ("--seed -1", "vec.txt", ("--out", "dv", "--test", "wt3.json", "--seed", "-1"),
         "--seed"))
] + [
    Case("37.8", f"debias {m} 1-dimensional vectors", ("debias", m, "--vectors", "vec_1d.txt",
                                                       "--out", "dv", "--no-evaluate"),
         "dimension", cache_may_grow=True) for m in VECTOR_DEBIAS
] + [
    Case("37.8", "debias hsr --alpha nan", ("debias", "hsr", "--vectors", "vec.txt", "--out",
                                            "dv", "--test", "wt3.json", "--alpha", "nan"),
         "--alpha"),
    Case("37.8", "debias hsr --alpha -1", ("debias", "hsr", "--vectors", "vec.txt", "--out",
                                           "dv", "--test", "wt3.json", "--alpha", "-1"),
         "--alpha"),
    Case("37.8", "debias ran --variant nonsense", ("debias", "ran", "--vectors", "vec.txt",
                                                   "--out", "dv", "--variant", "nonsense"),
         "nonsense"),
    Case("37.8", "debias hard --definitional a missing file",
         ("debias", "hard", "--vectors", "vec.txt", "--out", "dv", "--definitional",
          "missing.json"), "missing.json"),
]

LM_DEBIAS_CASES = [
    Case("37.8", f"debias {m} {what}", ("debias", m, "--model", "{model}", *extra,
                                        *(("--corpus", "corpus.txt") if m == "dropout" else ())),
         expect)
    for m in LM_DEBIAS for what, extra, expect in (
        ("--out .", ("--out", ".", "--overwrite"), "current folder"),
        ("--out a symbolic link", ("--out", "linkdir"), "symbolic link"),
        ("--out a user's folder, --overwrite", ("--out", "res", "--overwrite"), "res"))
] + [
    Case("37.8", "debias inlp --limit 0", ("debias", "inlp", "--model", "{model}", "--out",
                                           "dl", "--limit", "0"), "--limit"),
    Case("37.8", "debias inlp --seed -1", ("debias", "inlp", "--model", "{model}", "--out",
                                           "dl", "--seed", "-1"), "--seed"),
    Case("37.8", "debias self-debias --decay-constant nan",
         ("debias", "self-debias", "--model", "{model}", "--out", "dl", "--decay-constant",
          "nan"), "--decay-constant"),
    Case("37.8", "debias self-debias --epsilon 0",
         ("debias", "self-debias", "--model", "{model}", "--out", "dl", "--epsilon", "0"),
         "--epsilon"),
    Case("37.8", "debias dropout --corpus a missing file",
         ("debias", "dropout", "--model", "{model}", "--corpus", "missing.txt", "--out", "dl"),
         "missing.txt"),
]

DATA_CASES = [
    Case("37.8", "data fetch an unknown set", ("data", "fetch", "nonsense"), "nonsense"),
    Case("37.8", "data path an unknown set", ("data", "path", "nonsense"), "nonsense"),
    Case("37.8", "data verify an unknown set", ("data", "verify", "nonsense"), "nonsense"),
    Case("37.8", "data fetch an empty name", ("data", "fetch", ""), "data set"),
    Case("37.8", "data path a non-UTF-8 name", ("data", "path", "caf\udce9"), "data set"),
]

# -- item 7: the Python API --------------------------------------------------------------------
RUN = "gs.run('weat', 'vec.txt', test='wt.json'"
API = [
    ApiCase("37.7", f"gs.run({what})", f"{RUN}, {arg})", expect)
    for what, arg, expect in (
        ("seed='0'", "seed='0'", "seed"), ("seed=nan", "seed=float('nan')", "seed"),
        ("seed=1.5", "seed=1.5", "seed"), ("seed=True", "seed=True", "seed"),
        ("permutations='9'", "permutations='9'", "permutations"),
        ("out=3", "out=3", "out"), ("out=b'bytes'", "out=b'x'", "out"),
        ("out a surrogate-escaped name", "out='caf\\udce9'", "UTF-8"),
        ("store=3", "store=3", "store"), ("store a surrogate-escaped name",
                                          "store='caf\\udce9.sqlite'", "UTF-8"),
        ("record='yes'", "record='yes'", "record"), ("reuse=None", "reuse=None", "reuse"),
        ("save='no'", "save='no'", "save"), ("progress=2", "progress=2", "progress"),
        ("batch_size=0", "batch_size=0", "batch_size must be at least 1"),
        ("batch_size='8'", "batch_size='8'", "batch_size"),
        ("dtype=3", "dtype=3", "dtype"), ("command=3", "command=3", "command"))
] + [
    ApiCase("37.7", "gs.run(3, ...)", "gs.run(3, 'vec.txt')", "measure"),
    ApiCase("37.7", "gs.run(model=3)", "gs.run('weat', 3, test='wt.json')", "model"),
    ApiCase("37.7", "gs.run(model=a surrogate-escaped name)",
            "gs.run('weat', 'caf\\udce9.txt', test='wt.json')", "UTF-8"),
    ApiCase("37.7", "gs.load_model(3)", "gs.load_model(3)", "model"),
    ApiCase("37.7", "gs.load_model(None)", "gs.load_model(None)", "model is required"),
    ApiCase("37.7", "gs.run(test=a surrogate-escaped name)",
            "gs.run('weat', 'vec.txt', test='caf\\udce9.json')", "UTF-8"),
    ApiCase("37.7", "gs.run(train=a surrogate-escaped name)",
            "gs.run('bias-amplification', train='caf\\udce9.txt', generated='captions.txt',"
            " objects='objects.txt')", "UTF-8"),
    ApiCase("37.7", "gs.run(model=a list)",
            "gs.run('weat', ['vec.txt'], test='wt.json')", "model"),
    ApiCase("37.7", "gs.load_model('')", "gs.load_model('')", "model"),
    ApiCase("37.7", "gs.load_model(a surrogate-escaped name)", "gs.load_model('caf\\udce9')",
            "UTF-8"),
    ApiCase("37.7", "gs.load_model(batch_size=-1)",
            "gs.load_model('vec.txt', kind='vectors', batch_size=-1)", "batch_size must be"),
    ApiCase("37.7", "gs.load_model(timeout='5')",
            "gs.load_model('openai:x', base_url='http://127.0.0.1:9/v1', timeout='5')",
            "timeout"),
    ApiCase("37.7", "gs.report(models=3)", "gs.report(models=3, out='new.html')", "models"),
    ApiCase("37.7", "gs.report(vectors='vec.txt' as a str)",
            "gs.report(vectors=3, out='new.html')", "vectors"),
    ApiCase("37.7", "gs.report(seed='0')", "gs.report(vectors=['vec.txt'], out='new.html', "
            "seed='0')", "seed"),
    ApiCase("37.7", "gs.report(seed=nan)", "gs.report(vectors=['vec.txt'], out='new.html', "
            "seed=float('nan'))", "seed"),
    ApiCase("37.7", "gs.report(out a surrogate-escaped name)",
            "gs.report(vectors=['vec.txt'], out='caf\\udce9.html')", "UTF-8"),
    ApiCase("37.7", "gs.report(overwrite='yes')",
            "gs.report(vectors=['vec.txt'], out='new.html', overwrite='yes')", "overwrite"),
    ApiCase("37.7", "gs.report(quick=1)", "gs.report(vectors=['vec.txt'], out='new.html', "
            "quick=1)", "quick"),
    ApiCase("37.7", "gs.report(measures='weat')", "gs.report(vectors=['vec.txt'], "
            "out='new.html', measures=3)", "measures"),
    ApiCase("37.7", "gs.compare(3, ...)", "gs.compare(3, 'res_b')", "before"),
    ApiCase("37.7", "gs.compare(..., 3)", "gs.compare('res_a', 3)", "after"),
    ApiCase("37.7", "gs.compare(a surrogate-escaped name)", "gs.compare('caf\\udce9', 'res_b')",
            "UTF-8"),
    ApiCase("37.7", "gs.compare(resamples='10')",
            "gs.compare('res_a', 'res_b', key=['id'], value='value', resamples='10')",
            "resamples"),
    ApiCase("37.7", "gs.compare(resamples=-1)",
            "gs.compare('res_a', 'res_b', key=['id'], value='value', resamples=-1)",
            "resamples"),
    ApiCase("37.7", "gs.compare(seed=nan)",
            "gs.compare('res_a', 'res_b', key=['id'], value='value', seed=float('nan'))",
            "seed"),
    ApiCase("37.7", "gs.compare(seed='0')",
            "gs.compare('res_a', 'res_b', key=['id'], value='value', seed='0')", "seed"),
    ApiCase("37.7", "gs.compare(key=[3])", "gs.compare('res_a', 'res_b', key=[3], "
            "value='value')", "key"),
    ApiCase("37.7", "gs.compare(key='id')", "gs.compare('res_a', 'res_b', key=3, "
            "value='value')", "key"),
    ApiCase("37.7", "gs.compare(value=3)", "gs.compare('res_a', 'res_b', key=['id'], value=3)",
            "value"),
    ApiCase("37.7", "gs.compare(group_by=[1])", "gs.compare('res_a', 'res_b', key=['id'], "
            "value='value', group_by=[1])", "group_by"),
    ApiCase("37.7", "gs.compare(record='no')", "gs.compare('res_a', 'res_b', key=['id'], "
            "value='value', record='no')", "record"),
    ApiCase("37.7", "gs.compare(store=3)", "gs.compare('res_a', 'res_b', key=['id'], "
            "value='value', store=3)", "store"),
    ApiCase("37.7", "gs.debias(model=3)", "gs.debias(3, 'corpus.txt', 'ft')", "model"),
    ApiCase("37.7", "gs.debias(out=3)", "gs.debias(MODEL, 'corpus.txt', 3)", "out"),
    ApiCase("37.7", "gs.debias(corpus=None)", "gs.debias(MODEL, None, 'ft')", "corpus"),
    ApiCase("37.7", "gs.debias(seed='1')", "gs.debias(MODEL, 'corpus.txt', 'ft', seed='1')",
            "seed"),
    ApiCase("37.7", "gs.debias(seed=nan)", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "seed=float('nan'))", "seed"),
    ApiCase("37.7", "gs.debias(epochs='3')", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "epochs='3')", "epochs"),
    ApiCase("37.7", "gs.debias(out a surrogate-escaped name)",
            "gs.debias(MODEL, 'corpus.txt', 'caf\\udce9')", "UTF-8"),
    ApiCase("37.7", "gs.debias(pairs='x.txt')", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "pairs=3)", "pairs"),
    ApiCase("37.7", "gs.debias(overwrite='no')", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "overwrite='no')", "overwrite"),
    ApiCase("37.7", "gs.plot(3)", "gs.plot(3)", "result"),
    ApiCase("37.7", "gs.plot(path=3)", "gs.plot(Result('toy', {}, pd.DataFrame({'a': [1]})), "
            "path=3)", "path"),
]

CASES = [*INPUTS, *PROBE_CASES, *ENDPOINTS, *METRIC_CASES, *VECTOR_DEBIAS_CASES,
         *LM_DEBIAS_CASES, *DATA_CASES, *API]


def extend_workspace(root: Path) -> None:
    """The files issue 37's cases read (beside the earlier rounds' workspace)."""
    from genderscope.store import Store

    for name in ("vdir", "sdir", "mods"):
        (root / name).mkdir(exist_ok=True)
    shutil.copy(root / "vec.txt", root / "vdir" / "vec.txt")
    shutil.copy(root / "texts.csv", root / "vdir" / "texts.csv")
    shutil.copy(root / "corpus.txt", root / "vdir" / "corpus.txt")
    (root / "vdir" / "defs.json").write_text(json.dumps([["he", "she"], ["man", "woman"]]))
    shutil.copy(root / "store.sqlite", root / "sdir" / "store.sqlite")
    shutil.copy(root / "clf.py", root / "mods" / "clf.py")
    (root / "gen.txt").write_text("a woman is cooking\na woman is cooking\n")
    (root / "obj.png").write_text("cooking\n")
    sets = {"targ1": ["he", "man"], "targ2": ["she", "woman"],
            "attr1": ["doctor", "king", "the"], "attr2": ["nurse", "queen", "is"]}
    (root / "wt3.json").write_text(json.dumps({k: {"category": k, "examples": v}
                                               for k, v in sets.items()}))
    (root / "sw.yaml").write_text("models: [smollm2]\nmeasures: [crows-pairs]\n")
    Store(root / "runs.csv").close()  # a store whose name says CSV
    lines = (root / "vec.txt").read_text().splitlines()
    dim = len(lines[0].split(" ")) - 1
    zero = [f"{line.split(' ')[0]} " + " ".join(["0"] * dim) if line.startswith("doctor ")
            else line for line in lines]
    (root / "vec_zero.txt").write_text("\n".join(zero) + "\n")
    (root / "vec_1d.txt").write_text("".join(f"{line.split(' ')[0]} {i / 10 + 0.1}\n"
                                             for i, line in enumerate(lines)))
