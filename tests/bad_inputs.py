"""Bad inputs a demanding user tries (issue 16), shared by
``tests/reliability/test_bad_inputs.py`` and ``tests/reliability_table.py`` (which writes
docs/reliability.md).

Every case runs the real ``genderscope`` entry point in a prepared workspace and must end
with exit code 2, one ``error: ...`` line on stderr naming the problem, no traceback, and the
workspace (files, their bytes, folders) exactly as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pickle
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from bad_input_case import ApiCase, Case  # noqa: E402

WORDS = ["he", "she", "man", "woman", "king", "queen", "doctor", "nurse", "the", "is"]


CLF = "clf.py:predict"
ATTACK = ("attack", "--classifier", CLF, "--data", "texts.csv", "--vectors", "vec.txt",
          "--lm", "none", "--out", "out")
AMP = ("run", "bias-amplification", "--train", "captions.txt", "--generated", "captions.txt",
       "--objects", "objects.txt", "--out", "out")
CDS = ("debias", "cds", "--model", "{model}", "--corpus", "corpus.txt", "--out", "ft")

CASES = [
    Case("1", "resume: checkpoints/ without run.json (planted pickle)",
         ("debias", "cds", "--model", "{model}", "--corpus", "corpus.txt", "--out", "planted"),
         "no run.json"),
    Case("2", "runs list on another application's SQLite file",
         ("runs", "list", "--store", "other_app.sqlite"), "not a genderscope store"),
    Case("2", "runs show on another application's SQLite file",
         ("runs", "show", "x", "--store", "other_app.sqlite"), "not a genderscope store"),
    Case("2", "a measure writing to another application's SQLite file",
         (*AMP, "--store", "other_app.sqlite"), "not a genderscope store"),
    Case("2", "runs list, mistyped store path", ("runs", "list", "--store", "typo/s.sqlite"),
         "no store at"),
    Case("2", "runs export, mistyped store path",
         ("runs", "export", "--out", "e.csv", "--store", "typo/s.sqlite"), "no store at"),
    Case("2", "a measure writing to a store in a missing folder",
         (*AMP, "--store", "typo/s.sqlite"), "does not exist"),
    Case("2", "store path is a folder", ("runs", "list", "--store", "afolder"),
         "is not a file"),
    Case("2", "store file that is not SQLite", ("runs", "list", "--store", "captions.txt"),
         "cannot open store"),
    Case("4", "compare --value on a text column",
         ("compare", "res_a", "res_b", "--key", "id", "--value", "word", "--out", "out"),
         "not numeric"),
    Case("4", "store whose schema_version is not an integer",
         ("runs", "list", "--store", "bad_version.sqlite"), "not an integer"),
    Case("4", "store whose columns disagree with its version (before work starts)",
         ("compare", "res_a", "res_b", "--key", "id", "--value", "value", "--out", "out",
          "--store", "bad_columns.sqlite"), "no column runs.cache_key"),
    Case("5", "debias cds --limit -1", (*CDS, "--limit", "-1"), "--limit"),
    Case("5", "debias cds --limit 0", (*CDS, "--limit", "0"), "--limit"),
    Case("5", "attack: NaN in the word vectors", ("attack", "--classifier", CLF, "--data",
         "texts.csv", "--vectors", "vec_nan.txt", "--lm", "none", "--out", "out"),
         "NaN or infinity"),
    Case("5", "attack --min-similarity nan", (*ATTACK, "--min-similarity", "nan"),
         "--min-similarity"),
    Case("5", "attack --min-similarity 2", (*ATTACK, "--min-similarity", "2"),
         "--min-similarity"),
    Case("5", "attack --lm-threshold -1", (*ATTACK, "--lm-threshold", "-1"), "--lm-threshold"),
    Case("5", "attack --lm-threshold nan", (*ATTACK, "--lm-threshold", "nan"),
         "--lm-threshold"),
    Case("5", "attack --lm-window -2", (*ATTACK, "--lm-window", "-2"), "--lm-window"),
    Case("5", "runs show % (LIKE wildcard)", ("runs", "show", "%"), "no run '%'"),
    Case("5", "runs show _ (LIKE wildcard)", ("runs", "show", "_"), "no run '_'"),
    Case("6", "weat --vectors: Latin-1 file", ("run", "weat", "--vectors", "latin1.txt",
                                                "--test", "wt.json", "--out", "out"),
         "latin1.txt"),
    Case("6", "bias-amplification --generated: Latin-1 file",
         ("run", "bias-amplification", "--train", "captions.txt", "--generated", "latin1.txt",
          "--objects", "objects.txt", "--out", "out"), "latin1.txt"),
    Case("6", "lpbs --templates: Latin-1 file",
         ("run", "lpbs", "--model", "{model}", "--templates", "latin1.txt", "--out", "out"),
         "latin1.txt"),
    Case("6", "--model names a file that is not a model",
         ("run", "lpbs", "--model", "captions.txt", "--out", "out"), "is a file"),
    Case("6", "bias-amplification --train: a folder",
         ("run", "bias-amplification", "--train", "afolder", "--generated", "captions.txt",
          "--objects", "objects.txt", "--out", "out"), "is a folder"),
    Case("6", "weat --vectors: a folder", ("run", "weat", "--vectors", "afolder", "--test",
                                            "wt.json", "--out", "out"), "is a folder"),
    Case("7", "--plot into a path under a file", (*AMP, "--plot", "captions.txt/fig.png"),
         "--plot"),
    Case("7", "--plot names a folder", (*AMP, "--plot", "afolder.png"), "--plot"),
    Case("7", "report --out an existing file", ("report", "--vectors", "vec.txt", "--out",
                                                 "existing.html"), "--overwrite"),
    Case("7", "runs export --out an existing file",
         ("runs", "export", "--out", "existing.csv"), "--overwrite"),
]


# -- workspace ---------------------------------------------------------------------------------
def _vectors(path: Path, rows: np.ndarray, words: list[str]) -> None:
    path.write_text("".join(f"{w} " + " ".join(f"{x:.3f}" for x in r) + "\n"
                            for w, r in zip(words, rows, strict=True)), encoding="utf-8")


_TEMPLATE: list[Path] = []


def make_workspace(root: Path) -> Path:
    """Files the cases read: good ones (so only the named input is bad) and bad ones. Built
    once per process and copied (links copied as links; FIFOs made in each copy)."""
    import shutil
    import tempfile

    if not _TEMPLATE:
        import atexit

        base = Path(tempfile.mkdtemp(prefix="gs-ws-"))
        atexit.register(shutil.rmtree, base, True)
        _TEMPLATE.append(_build_workspace(base / "ws"))
    root.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(_TEMPLATE[0], root, symlinks=True)
    add_fifos(root)
    return root


def _build_workspace(root: Path) -> Path:
    from genderscope.results import Result
    from genderscope.store import Store

    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    mat = rng.normal(size=(len(WORDS), 5))
    _vectors(root / "vec.txt", mat, WORDS)
    mat[2, 1] = np.nan
    _vectors(root / "vec_nan.txt", mat, WORDS)
    (root / "latin1.txt").write_bytes("caf\xe9 0.1 0.2\nhe GGG XXX na\xefve\n".encode("latin-1"))
    (root / "captions.txt").write_text("a man is cooking\na woman is cooking\n")
    (root / "objects.txt").write_text("cooking\n")
    sets = {"targ1": ["he", "man"], "targ2": ["she", "woman"], "attr1": ["doctor", "king"],
            "attr2": ["nurse", "queen"]}
    (root / "wt.json").write_text(json.dumps({k: {"category": k, "examples": v}
                                              for k, v in sets.items()}))
    (root / "corpus.txt").write_text("He is a doctor.\nShe is a nurse.\n")
    (root / "texts.csv").write_text("text\nhe is a doctor\nshe is a nurse\n")
    (root / "clf.py").write_text("import numpy as np\n\n\ndef predict(texts):\n"
                                 "    return np.full((len(texts), 2), 0.5)\n")
    (root / "afolder").mkdir()
    (root / "afolder.png").mkdir()
    (root / "existing.html").write_text("<p>my page</p>\n")
    (root / "existing.csv").write_text("mine\n1\n")
    items = pd.DataFrame({"id": [1, 2, 3], "value": [0.1, 0.5, 0.9],
                          "word": ["a", "b", "c"]})
    for name in ("res_a", "res_b"):
        Result("toy", {}, items).save(root / name)
    con = sqlite3.connect(root / "other_app.sqlite")
    con.execute("CREATE TABLE notes (body TEXT)")
    con.execute("INSERT INTO notes VALUES ('mine')")
    con.commit()
    con.close()
    store = Store(root / "store.sqlite")
    store.record_run(Result("toy", {"x": 1.0}, items, {"model": {"fingerprint": "f"}}))
    store.close()
    for name, sql in (("bad_version.sqlite",
                       "UPDATE meta SET value='two' WHERE key='schema_version'"),
                      ("bad_columns.sqlite", "ALTER TABLE runs DROP COLUMN cache_key")):
        Store(root / name).close()
        con = sqlite3.connect(root / name)
        con.execute("DROP INDEX IF EXISTS runs_by_cache_key")
        con.execute(sql)
        con.commit()
        con.close()
    planted = root / "planted" / "checkpoints" / "step-1"
    planted.mkdir(parents=True)
    (planted / "state.json").write_text('{"step": 1, "losses": [1.0]}')
    (planted / "trainer.pt").write_bytes(pickle.dumps(_Marker("MARKER")))
    extend_workspace(root)
    extend_workspace_37(root)
    return root


class _Marker:
    """Unpickling it writes MARKER in the working folder (the workspace while a case runs):
    proof that code ran."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def snapshot(root: Path) -> dict[str, str]:
    """Every file (SHA-256 of its bytes), folder, link (its target) and special file under
    ``root``; links are not followed."""
    out: dict[str, str] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "link->" + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            elif p.is_file():
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[rel] = f"special {p.stat().st_mode:o}"
    return out


@dataclass
class Outcome:
    code: int | str
    stderr: str
    changed: list[str]


def assert_refused_cleanly(case: Case | ApiCase, outcome: Outcome) -> None:
    """What every bad-input case must give: exit 2, one error line last ("error: ..." from
    genderscope, or click's usage error for an option out of its range) holding
    ``case.expect``, no traceback, nothing written or changed (a status line such as
    "reading vectors ...: done" may come before the error)."""
    lines = outcome.stderr.splitlines()
    last = lines[-1] if lines else ""
    assert outcome.code == 2, outcome.stderr
    assert last.startswith(("error: ", "Error: Invalid value")), outcome.stderr
    assert case.expect in last, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert sum(line.lower().startswith("error") for line in lines) == 1, outcome.stderr
    assert outcome.changed == []


def run_case(case: Case | ApiCase, root: Path, model: Path) -> Outcome:
    """Run ``case`` in-process through ``genderscope``'s ``main()`` (or, for an
    :class:`ApiCase`, evaluate its call) with ``root`` as the working folder and its store
    as the default store."""
    from genderscope.cli.app import main

    if isinstance(case, ApiCase):
        return _run_api_case(case, root, model)
    args = [a.replace("{model}", str(model)) for a in case.args]
    before = snapshot(root)
    err, out = io.StringIO(), io.StringIO()
    old = (sys.argv, os.getcwd(), os.environ.get("GENDERSCOPE_STORE"))
    sys.argv = ["genderscope", *args]
    os.chdir(root)
    os.environ["GENDERSCOPE_STORE"] = str(root / "store.sqlite")
    code: int | str
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # noqa: BLE001 - a traceback is what the cases look for
        code = f"traceback ({type(exc).__name__})"
        err.write(f"{type(exc).__name__}: {exc}\n")
    finally:
        sys.argv = old[0]
        os.chdir(old[1])
        if old[2] is None:
            os.environ.pop("GENDERSCOPE_STORE", None)
        else:
            os.environ["GENDERSCOPE_STORE"] = old[2]
    after = snapshot(root)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if case.cache_may_grow:  # the loaded model's memo in the store (a cache) may be new
        changed = [k for k in changed if not k.startswith("store.sqlite")]
    return Outcome(code, err.getvalue().strip(), changed)


def _run_api_case(case: ApiCase, root: Path, model: Path) -> Outcome:
    import genderscope as gs
    from genderscope.errors import GenderscopeError
    from genderscope.results import Result

    before = snapshot(root)
    old = (os.getcwd(), os.environ.get("GENDERSCOPE_STORE"))
    os.chdir(root)
    os.environ["GENDERSCOPE_STORE"] = str(root / "store.sqlite")
    code: int | str = 0
    err = ""
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            eval(case.call, {"gs": gs, "Result": Result, "pd": pd,  # noqa: S307
                             "MODEL": str(model)})
    except (GenderscopeError, TypeError, ValueError) as exc:
        code, err = 2, f"error: {type(exc).__name__}: {exc}"
    except BaseException as exc:  # noqa: BLE001 - a traceback is what the cases look for
        code, err = f"traceback ({type(exc).__name__})", f"{type(exc).__name__}: {exc}"
    finally:
        os.chdir(old[0])
        if old[1] is None:
            os.environ.pop("GENDERSCOPE_STORE", None)
        else:
            os.environ["GENDERSCOPE_STORE"] = old[1]
    after = snapshot(root)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return Outcome(code, err, changed)


from bad_inputs_issue24 import API, CLI, OPTIONS, add_fifos, extend_workspace  # noqa: E402
from bad_inputs_issue37 import CASES as CASES_37  # noqa: E402
from bad_inputs_issue37 import extend_workspace as extend_workspace_37  # noqa: E402

CASES = [*CASES, *CLI, *OPTIONS, *API, *CASES_37]
