"""Bad inputs of issue 24 (reliability round 2): data loss, hangs, tracebacks and silent
wrong accepts, through the CLI and the Python API. Each must end in exit code 2 (or, for
the API, a ``GenderscopeError`` / ``TypeError`` / ``ValueError``) with one line naming the
problem and the workspace unchanged. The workspace files they read are made by
:func:`extend_workspace`."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bad_input_case import ApiCase, Case  # noqa: E402

CDS = ("debias", "cds", "--corpus", "corpus.txt", "--max-steps", "1", "--no-progress")
WEAT = ("run", "weat", "--vectors", "vec.txt", "--test", "wt.json")
CROWS = ("run", "crows-pairs", "--model", "{model}")
WINO = ("run", "winobias", "--model", "{model}", "--limit", "4")
LPBS = ("run", "lpbs", "--model", "{model}")
BEC = ("run", "bec-pro", "--model", "{model}")
CF = ("run", "counterfactual", "--classifier", "clf.py:predict", "--data", "texts.csv")
AMP = ("run", "bias-amplification", "--train", "captions.txt", "--generated", "captions.txt",
       "--objects", "objects.txt")
ATTACK = ("attack", "--classifier", "clf.py:predict", "--data", "texts.csv", "--vectors",
          "vec.txt", "--lm", "none")
REPORT = ("report", "--vectors", "vec.txt", "--out", "new.html")
SWEEP = ("sweep", "--model", "smollm2", "--measure", "crows-pairs", "--no-progress",
         "--out", "s.html")
CMP = ("compare", "res_a", "res_b", "--key", "id", "--value", "value")

CLI = [
    # -- data loss (item 1) -------------------------------------------------------------
    Case("24.1", "debias --overwrite with a missing model keeps the user's --out",
         ("debias", "cds", "--model", "./missing", "--corpus", "corpus.txt", "--out", "res",
          "--overwrite"), "did not write"),
    Case("24.1", "debias --out = --model, --overwrite",
         ("debias", "cds", "--model", "mymodel", "--corpus", "corpus.txt", "--out", "mymodel",
          "--overwrite"), "is or holds the input"),
    Case("24.1", "debias --out holds the corpus, --overwrite",
         ("debias", "cds", "--model", "{model}", "--corpus", "ftc/corpus.txt", "--out", "ftc",
          "--overwrite"), "is or holds the input"),
    Case("24.1", "debias --out . --overwrite, mistyped model",
         ("debias", "cds", "--model", "./mistyped", "--corpus", "corpus.txt", "--out", ".",
          "--overwrite"), "current folder"),
    Case("24.1", "debias --out .. (an ancestor of the current folder)",
         ("debias", "cds", "--model", "{model}", "--corpus", "corpus.txt", "--out", "..",
          "--overwrite"), "current folder"),
    Case("24.1", "debias --out a user's folder, no --overwrite",
         (*CDS, "--model", "{model}", "--out", "res"), "already exists"),
    Case("24.1", "debias --out a file", (*CDS, "--model", "{model}", "--out", "captions.txt"),
         "not a folder"),
    Case("24.1", "debias --out a symbolic link", (*CDS, "--model", "{model}", "--out",
                                                  "linkdir"), "symbolic link"),
    Case("24.1", "report --out a symbolic link (to a user's file)",
         ("report", "--vectors", "vec.txt", "--out", "r.html", "--overwrite"), "symbolic link"),
    Case("24.1", "report --out a device / FIFO, --overwrite",
         ("report", "--vectors", "vec.txt", "--out", "pipe", "--overwrite"), "special file"),
    Case("24.1", "report --out . (the current folder)",
         ("report", "--vectors", "vec.txt", "--out", ".", "--overwrite"), "current folder"),
    Case("24.1", "run weat --out a folder holding a user's summary.json",
         (*WEAT, "--out", "mine"), "did not write"),
    Case("24.1", "run --out a symbolic link", (*WEAT, "--out", "linkdir"), "symbolic link"),
    Case("24.1", "run --out .", (*WEAT, "--out", "."), "current folder"),
    Case("24.1", "run --out = the vectors file", (*WEAT, "--out", "vec.txt"),
         "is or holds the input"),
    Case("24.1", "run --out a file", (*WEAT, "--out", "captions.txt"), "is a file"),
    Case("24.1", "runs export --out a dangling symbolic link",
         ("runs", "export", "--out", "dangling.csv", "--overwrite"), "symbolic link"),
    Case("24.1", "runs export --out a FIFO", ("runs", "export", "--out", "pipe.csv",
                                              "--overwrite"), "special file"),
    Case("24.1", "compare --out a folder holding a user's summary.json",
         (*CMP, "--out", "mine"), "did not write"),
    # -- hangs (item 3) --------------------------------------------------------------------
    Case("24.3", "sweep --num-cpus 0", (*SWEEP, "--num-cpus", "0"), "--num-cpus"),
    Case("24.3", "sweep --cpus-per-job 64 --num-cpus 2",
         (*SWEEP, "--cpus-per-job", "64", "--num-cpus", "2"), "asks for 64 CPUs"),
    Case("24.3", "sweep --gpus-per-job more than the machine has",
         (*SWEEP, "--gpus-per-job", "99"), "asks for 99 GPUs"),
    Case("24.3", "sweep --cpus-per-job nan", (*SWEEP, "--cpus-per-job", "nan"),
         "--cpus-per-job"),
    Case("24.3", "sweep --cpus-per-job -1", (*SWEEP, "--cpus-per-job", "-1"),
         "--cpus-per-job"),
    Case("24.3", "sweep --gpus-per-job inf", (*SWEEP, "--gpus-per-job", "inf"),
         "--gpus-per-job"),
    Case("24.3", "sweep --seed -1", (*SWEEP, "--seed", "-1"), "--seed"),
    Case("24.3", "sweep --max-retries -1", (*SWEEP, "--max-retries", "-1"), "--max-retries"),
    Case("24.3", "sweep file: NaN resources", ("sweep", "sw_nan.yaml"), "finite"),
    Case("24.3", "sweep file: negative resources", ("sweep", "sw_neg.yaml"), ">= 0"),
    Case("24.3", "sweep file: infinite resources", ("sweep", "sw_inf.yaml"), "finite"),
    Case("24.3", "sweep file: a model's cpus NaN", ("sweep", "sw_model_nan.yaml"), "finite"),
    Case("24.3", "sweep file: deep nesting", ("sweep", "sw_deep.yaml"), "sweep file"),
    Case("24.3", "sweep file: a duplicate key drops a list", ("sweep", "sw_dup.yaml"),
         "given twice"),
    Case("24.3", "sweep file: settings out: null", ("sweep", "sw_out_null.yaml"),
         "must be a path"),
    Case("24.3", "sweep file: not a mapping", ("sweep", "sw_list.yaml"), "mapping"),
    # -- model limits (item 4) -------------------------------------------------------------
    Case("24.4", "lpbs template longer than the model's positions",
         (*LPBS, "--templates", "lpbs_long.txt"), "512", cache_may_grow=True),
    Case("24.4", "probe target longer than the model's positions",
         ("probe", "--model", "{model}", "--no-progress", "long " * 600), "512",
         cache_may_grow=True),
    Case("24.4", "crows-pairs sentence longer than the model's positions",
         (*CROWS, "--data", "crows_long.csv"), "512", cache_may_grow=True),
    # -- tracebacks (item 5) ---------------------------------------------------------------
    Case("24.5", "crows-pairs --subset-seed -1", (*CROWS, "--data", "crows.csv", "--limit",
                                                  "2", "--subset-seed", "-1"), "--subset-seed"),
    Case("24.5", "winobias --seed -1", (*WINO, "--seed", "-1"), "--seed"),
    Case("24.5", "bec-pro --seed -1", (*BEC, "--seed", "-1"), "--seed"),
    Case("24.5", "weat --seed -1", (*WEAT, "--seed", "-1"), "--seed"),
    Case("24.5", "counterfactual --sample-seed -1", (*CF, "--limit", "1", "--sample-seed",
                                                     "-1"), "--sample-seed"),
    Case("24.5", "counterfactual --seed -1", (*CF, "--seed", "-1"), "--seed"),
    Case("24.5", "debias --seed -1", (*CDS, "--model", "{model}", "--out", "ft", "--seed",
                                      "-1"), "--seed"),
    Case("24.5", "report --seed -1", (*REPORT, "--seed", "-1"), "--seed"),
    Case("24.5", "bias-amplification --seed -1", (*AMP, "--seed", "-1"), "--seed"),
    Case("24.5", "a classifier that raises", ("run", "counterfactual", "--classifier",
                                              "clf_raise.py:predict", "--data", "texts.csv"),
         "classifier"),
    Case("24.5", "a classifier that raises SystemExit(3)",
         ("run", "counterfactual", "--classifier", "clf_exit.py:predict", "--data",
          "texts.csv"), "classifier"),
    Case("24.5", "a classifier SPEC that is not a classifier (os:getcwd)",
         ("run", "counterfactual", "--classifier", "os:getcwd", "--data", "texts.csv"),
         "classifier"),
    Case("24.5", "store with a garbled page: runs list", ("runs", "list", "--store",
                                                          "garbled.sqlite"), "store"),
    Case("24.5", "store with a garbled page: run weat reuse",
         (*WEAT, "--store", "garbled.sqlite"), "store"),
    Case("24.5", "store with a bad summary JSON: runs show",
         ("runs", "show", "bad", "--store", "badjson.sqlite"), "store"),
    Case("24.5", "store with a bad Arrow item table: runs export --what items",
         ("runs", "export", "--out", "e.csv", "--what", "items", "--store",
          "badarrow.sqlite"), "store"),
    Case("24.5", "a non-UTF-8 file name", ("run", "weat", "--vectors", "caf\udce9.txt",
                                           "--test", "wt.json"), "not found"),
    # -- silent wrong accepts (item 5) -----------------------------------------------------
    Case("24.5", "weat: identical target sets X = Y", ("run", "weat", "--vectors", "vec.txt",
                                                       "--test", "wt_xy.json"), "identical"),
    Case("24.5", "weat: identical attribute sets A = B",
         ("run", "weat", "--vectors", "vec.txt", "--test", "wt_ab.json"), "identical"),
    Case("24.5", "a word listed twice in a vectors file",
         ("run", "weat", "--vectors", "vec_dup.txt", "--test", "wt.json"), "twice"),
    Case("24.5", "winobias --types 1,1", (*WINO, "--types", "1,1"), "--types"),
    Case("24.5", "winobias --types 3", (*WINO, "--types", "3"), "WinoBias type 3"),
    Case("24.5", "crows-pairs: a pair of identical sentences", (*CROWS, "--data",
                                                                "crows_same.csv"), "identical"),
    Case("24.5", "bias-amplification: conflicting ratio rows for one object",
         ("run", "bias-amplification", "--ratios", "ratios_conflict.csv"), "cooking"),
    Case("24.5", "counterfactual --examples -1", (*CF, "--examples", "-1"), "--examples"),
    Case("24.5", "compare over all-NaN values",
         ("compare", "res_nan_a", "res_nan_b", "--key", "id", "--value", "value"), "NaN"),
    Case("24.5", "report --model M --model M",
         ("report", "--model", "{model}", "--model", "{model}", "--out", "new.html"), "twice"),
    Case("24.5", "debias --lr inf", (*CDS, "--model", "{model}", "--out", "ft", "--lr",
                                     "inf"), "--lr"),
    Case("24.5", "debias --lr nan", (*CDS, "--model", "{model}", "--out", "ft", "--lr",
                                     "nan"), "--lr"),
    Case("24.5", "debias --prob 2", (*CDS, "--model", "{model}", "--out", "ft", "--prob", "2"),
         "--prob"),
    Case("24.5", "debias --prob nan", (*CDS, "--model", "{model}", "--out", "ft", "--prob",
                                       "nan"), "--prob"),
]

# -- option values across every command (refused before any work) -------------------------
OPTIONS = [
    Case("24.5", "crows-pairs --limit 0", (*CROWS, "--data", "crows.csv", "--limit", "0"),
         "--limit"),
    Case("24.5", "crows-pairs --bias-type nonsense", (*CROWS, "--data", "crows.csv",
                                                      "--bias-type", "nonsense"), "nonsense"),
    Case("24.5", "crows-pairs --kind weird", (*CROWS, "--data", "crows.csv", "--kind",
                                              "weird"), "weird"),
    Case("24.5", "crows-pairs --dtype float8", (*CROWS, "--data", "crows.csv", "--dtype",
                                                "float8"), "float8"),
    Case("24.5", "crows-pairs --data a missing file", (*CROWS, "--data", "missing.csv"),
         "missing.csv"),
    Case("24.5", "winobias --split nonsense", (*WINO, "--split", "nonsense"), "nonsense"),
    Case("24.5", "winobias --resamples 0", (*WINO, "--resamples", "0"), "--resamples"),
    Case("24.5", "winobias --limit -3", (*WINO[:-2], "--limit", "-3"), "--limit"),
    Case("24.5", "lpbs --strategy nonsense", (*LPBS, "--strategy", "nonsense"), "nonsense"),
    Case("24.5", "lpbs --span-masking nonsense", (*LPBS, "--span-masking", "nonsense"),
         "--span-masking"),
    Case("24.5", "lpbs --permutations 5", (*LPBS, "--permutations", "5"), "--permutations"),
    Case("24.5", "lpbs --test nonsense", (*LPBS, "--test", "nonsense"), "nonsense"),
    Case("24.5", "lpbs --templates a missing file", (*LPBS, "--templates", "missing.txt"),
         "missing.txt"),
    Case("24.5", "bec-pro --lang xx", (*BEC, "--lang", "xx"), "--lang"),
    Case("24.5", "bec-pro --resamples 0", (*BEC, "--resamples", "0"), "--resamples"),
    Case("24.5", "bec-pro --span-masking nonsense", (*BEC, "--span-masking", "nonsense"),
         "--span-masking"),
    Case("24.5", "weat --max-oov 2", (*WEAT, "--max-oov", "2"), "--max-oov"),
    Case("24.5", "weat --permutations 5", (*WEAT, "--permutations", "5"), "--permutations"),
    Case("24.5", "weat --phrases nonsense", (*WEAT, "--phrases", "nonsense"), "nonsense"),
    Case("24.5", "weat --format nonsense", (*WEAT, "--format", "nonsense"), "nonsense"),
    Case("24.5", "weat --test a missing file", ("run", "weat", "--vectors", "vec.txt",
                                                "--test", "missing.json"), "missing.json"),
    Case("24.5", "weat --vectors a missing file", ("run", "weat", "--vectors", "missing.txt",
                                                   "--test", "wt.json"), "missing.txt"),
    Case("24.5", "counterfactual --limit 0", (*CF, "--limit", "0"), "--limit"),
    Case("24.5", "counterfactual --text-column nope", (*CF, "--text-column", "nope"), "nope"),
    Case("24.5", "counterfactual --classifier a missing file",
         ("run", "counterfactual", "--classifier", "missing.py:predict", "--data",
          "texts.csv"), "missing.py"),
    Case("24.5", "counterfactual --data a missing file",
         ("run", "counterfactual", "--classifier", "clf.py:predict", "--data", "none.csv"),
         "none.csv"),
    Case("24.5", "bias-amplification --min-count 0", (*AMP, "--min-count", "0"),
         "--min-count"),
    Case("24.5", "bias-amplification --ratios a missing file",
         ("run", "bias-amplification", "--ratios", "missing.csv"), "missing.csv"),
    Case("24.5", "bias-amplification --ratios and --train together",
         ("run", "bias-amplification", "--ratios", "ratios_conflict.csv", "--train",
          "captions.txt"), "--ratios"),
    Case("24.5", "probe: a template without XXX",
         ("probe", "--model", "{model}", "--template", "GGG is here.", "doctor"), "XXX"),
    Case("24.5", "probe --pair with one word", ("probe", "--model", "{model}", "--pair", "he",
                                                "doctor"), "--pair"),
    Case("24.5", "probe --strategy nonsense", ("probe", "--model", "{model}", "--strategy",
                                               "nonsense", "doctor"), "nonsense"),
    Case("24.5", "report --lang xx", (*REPORT, "--lang", "xx"), "--lang"),
    Case("24.5", "report --dtype float8", (*REPORT, "--dtype", "float8"), "float8"),
    Case("24.5", "report --data a missing folder", (*REPORT, "--data", "nofolder"),
         "nofolder"),
    Case("24.5", "report --texts a missing file", (*REPORT, "--texts", "none.txt"),
         "none.txt"),
    Case("24.5", "report --measure nonsense", (*REPORT, "--measure", "nonsense"), "nonsense"),
    Case("24.5", "report with no model", ("report", "--out", "new.html"), "at least one"),
    Case("24.5", "compare --p-adjust nonsense", (*CMP, "--p-adjust", "nonsense"),
         "--p-adjust"),
    Case("24.5", "compare a missing run", ("compare", "nope-a", "nope-b"), "no run"),
    Case("24.5", "runs export --format nonsense", ("runs", "export", "--out", "e.xyz"),
         "format"),
    Case("24.5", "runs show a missing run", ("runs", "show", "nope"), "no run"),
    Case("24.5", "debias --mode nonsense", (*CDS, "--model", "{model}", "--out", "ft",
                                            "--mode", "nonsense"), "--mode"),
    Case("24.5", "debias --unit nonsense", (*CDS, "--model", "{model}", "--out", "ft",
                                            "--unit", "nonsense"), "--unit"),
    Case("24.5", "debias --epochs 0", (*CDS, "--model", "{model}", "--out", "ft", "--epochs",
                                       "0"), "--epochs"),
    Case("24.5", "debias --lr 0", (*CDS, "--model", "{model}", "--out", "ft", "--lr", "0"),
         "--lr"),
    Case("24.5", "debias --batch-size 0", (*CDS, "--model", "{model}", "--out", "ft",
                                           "--batch-size", "0"), "--batch-size"),
    Case("24.5", "debias --max-steps 0", ("debias", "cds", "--corpus", "corpus.txt",
                                          "--model", "{model}", "--out", "ft", "--max-steps",
                                          "0"), "--max-steps"),
    Case("24.5", "debias --corpus a missing file",
         ("debias", "cds", "--model", "{model}", "--corpus", "missing.txt", "--out", "ft"),
         "missing.txt"),
    Case("24.5", "report --out a file name that is not UTF-8",
         ("report", "--vectors", "vec.txt", "--out", "caf\udce9.html"), "not valid UTF-8"),
    Case("24.5", "run --out a folder name that is not UTF-8", (*WEAT, "--out", "caf\udce9"),
         "not valid UTF-8"),
    Case("24.5", "debias --pairs a missing file", (*CDS, "--model", "{model}", "--out", "ft",
                                                   "--pairs", "missing.tsv"), "missing.tsv"),
]

API = [
    ApiCase("24.1", "gs.debias(..., '.', overwrite=True), mistyped model",
            "gs.debias('./missing', 'corpus.txt', '.', overwrite=True)", "current folder"),
    ApiCase("24.1", "gs.debias into a user's folder with overwrite",
            "gs.debias(MODEL, 'corpus.txt', 'res', overwrite=True, max_steps=1)",
            "did not write"),
    ApiCase("24.1", "gs.run(out=) a folder holding a user's summary.json",
            "gs.run('weat', 'vec.txt', test='wt.json', out='mine')", "did not write"),
    ApiCase("24.1", "gs.report(out=123)", "gs.report(vectors=['vec.txt'], out=123)",
            "must be a path"),
    ApiCase("24.1", "gs.report(out=) a FIFO, overwrite", "gs.report(vectors=['vec.txt'], "
            "out='pipe', overwrite=True)", "special file"),
    ApiCase("24.1", "Result.save onto an existing file",
            "Result('toy', {}, pd.DataFrame({'a': [1]})).save('corpus.txt')", "is a file"),
    ApiCase("24.5", "gs.run(limit='2')", "gs.run('crows-pairs', MODEL, data='crows.csv', "
            "limit='2')", "limit"),
    ApiCase("24.5", "gs.run(limit=1.5)", "gs.run('crows-pairs', MODEL, data='crows.csv', "
            "limit=1.5)", "limit"),
    ApiCase("24.5", "gs.run(seed=nan)", "gs.run('weat', 'vec.txt', test='wt.json', "
            "seed=float('nan'))", "seed"),
    ApiCase("24.5", "gs.run(seed=-1)", "gs.run('weat', 'vec.txt', test='wt.json', seed=-1)",
            "seed"),
    ApiCase("24.5", "gs.run(seed='0')", "gs.run('weat', 'vec.txt', test='wt.json', seed='0')",
            "seed"),
    ApiCase("24.5", "gs.debias(epochs=1.5)", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "epochs=1.5)", "epochs"),
    ApiCase("24.5", "gs.debias(save_every=0)", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "save_every=0)", "save_every"),
    ApiCase("24.5", "gs.debias(max_length=0)", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "max_length=0)", "max_length"),
    ApiCase("24.5", "gs.debias(limit='2')", "gs.debias(MODEL, 'corpus.txt', 'ft', limit='2')",
            "limit"),
    ApiCase("24.5", "gs.debias(lr=inf)", "gs.debias(MODEL, 'corpus.txt', 'ft', "
            "lr=float('inf'))", "--lr"),
    ApiCase("24.5", "gs.debias(seed=-1)", "gs.debias(MODEL, 'corpus.txt', 'ft', seed=-1)",
            "seed must be at least 0"),
    ApiCase("24.5", "gs.load_model(kind='classifier'), not a classifier",
            "gs.load_model('os:getcwd', kind='classifier').predict_proba(['a'])", "classifier"),
    ApiCase("24.5", "gs.run with an unknown measure", "gs.run('nope', 'vec.txt')",
            "unknown measure"),
    ApiCase("24.5", "gs.run with an unknown option", "gs.run('weat', 'vec.txt', test='wt.json',"
            " bogus=1)", "unknown option"),
    ApiCase("24.5", "gs.report(lang='xx')", "gs.report(vectors=['vec.txt'], lang='xx')",
            "lang must be one of en, da"),
    ApiCase("24.5", "gs.compare over all-NaN values", "gs.compare('res_nan_a', 'res_nan_b', "
            "key=['id'], value='value', record=False)", "NaN"),
]


def _yaml(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text, encoding="utf-8")


def add_fifos(root: Path) -> None:
    """Special files (FIFOs) an output must never replace; made in each copy."""
    os.mkfifo(root / "pipe")
    os.mkfifo(root / "pipe.csv")


def extend_workspace(root: Path) -> None:
    """The files issue 24's cases read (beside :func:`bad_inputs.make_workspace`'s)."""
    import pandas as pd

    from genderscope.results import Result
    from genderscope.store import Store

    for folder in ("res", "mymodel", "ftc", "mine"):
        (root / folder).mkdir()
        (root / folder / "thesis.txt").write_text("years of work\n")
    (root / "mymodel" / "config.json").write_text('{"model_type": "bert"}')
    (root / "ftc" / "corpus.txt").write_text("He is a doctor.\nShe is a nurse.\n")
    (root / "mine" / "summary.json").write_text('{"mine": true}\n')
    (root / "victim.txt").write_text("precious\n")
    (root / "r.html").symlink_to("victim.txt")  # relative: the workspace is copied
    (root / "dangling.csv").symlink_to(Path("gone") / "escaped.csv")
    (root / "linkdir").symlink_to("res")
    sets = {"targ1": ["he", "man"], "targ2": ["she", "woman"], "attr1": ["doctor", "king"],
            "attr2": ["nurse", "queen"]}
    for name, same in (("wt_xy.json", ("targ1", "targ2")), ("wt_ab.json", ("attr1", "attr2"))):
        bad = {**sets, same[1]: sets[same[0]]}
        (root / name).write_text(json.dumps({k: {"category": k, "examples": v}
                                             for k, v in bad.items()}))
    lines = (root / "vec.txt").read_text().splitlines()
    other = lines[0].split(" ")[0] + " " + " ".join(["0.5"] * (len(lines[0].split(" ")) - 1))
    (root / "vec_dup.txt").write_text("\n".join([*lines, other]) + "\n")
    head = ",sent_more,sent_less,stereo_antistereo,bias_type\n"
    (root / "crows.csv").write_text(head + '0,"He is a doctor.","She is a doctor.",stereo,'
                                    'gender\n1,"She cooks.","He cooks.",stereo,gender\n')
    (root / "crows_same.csv").write_text(head + '0,"He is a doctor.","He is a doctor.",stereo,'
                                         'gender\n1,"She cooks.","He cooks.",stereo,gender\n')
    long = "He said that " + "very " * 600 + "much."
    (root / "crows_long.csv").write_text(head + f'0,"{long}","{long.replace("He", "She")}",'
                                         "stereo,gender\n")
    (root / "lpbs_long.txt").write_text("GGG is a " + "very " * 600 + "XXX.\n")
    (root / "ratios_conflict.csv").write_text("object,training_ratio,predicted_ratio\n"
                                              "cooking,0.3,0.4\ncooking,0.7,0.9\n")
    (root / "clf_raise.py").write_text("def predict(texts):\n    raise RuntimeError('boom')\n")
    (root / "clf_exit.py").write_text("def predict(texts):\n    raise SystemExit(3)\n")
    nan = pd.DataFrame({"id": [1, 2, 3], "value": [float("nan")] * 3})
    for name in ("res_nan_a", "res_nan_b"):
        Result("toy", {}, nan).save(root / name)
    base = ("models: [smollm2]\nmeasures: [crows-pairs]\n")
    _yaml(root, "sw_nan.yaml", base + "resources: {cpus_per_job: .nan}\n")
    _yaml(root, "sw_neg.yaml", base + "resources: {cpus_per_job: -1}\n")
    _yaml(root, "sw_inf.yaml", base + "resources: {gpus_per_job: .inf}\n")
    _yaml(root, "sw_model_nan.yaml", "models: [{model: smollm2, cpus: .nan}]\n"
                                     "measures: [crows-pairs]\n")
    _yaml(root, "sw_deep.yaml", "models: " + "[" * 5000 + "]" * 5000 + "\n")
    _yaml(root, "sw_dup.yaml", base + "models: [gemma3-270m]\n")
    _yaml(root, "sw_out_null.yaml", base + "settings: {out: null}\n")
    _yaml(root, "sw_list.yaml", "- smollm2\n")
    items = pd.DataFrame({"id": [1, 2], "value": [0.1, 0.2]})
    for name in ("garbled.sqlite", "badjson.sqlite", "badarrow.sqlite"):
        st = Store(root / name)
        for i in range(40 if name == "garbled.sqlite" else 1):
            st.record_run(Result("toy", {"x": float(i)}, items, {"model": {"fingerprint": "f"}}))
        st.close()
    con = sqlite3.connect(root / "badjson.sqlite")
    con.execute("UPDATE runs SET summary = '{not json', run_id = 'bad-1'")
    con.execute("UPDATE run_items SET run_id = 'bad-1'")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    con = sqlite3.connect(root / "badarrow.sqlite")
    con.execute("UPDATE run_items SET items = x'00010203'")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    con = sqlite3.connect(root / "garbled.sqlite")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    raw = bytearray((root / "garbled.sqlite").read_bytes())
    raw[3 * 4096:] = b"\xa5" * (len(raw) - 3 * 4096)
    (root / "garbled.sqlite").write_bytes(bytes(raw))
