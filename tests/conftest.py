"""Shared fixtures. Tests never reach a network: the Hugging Face offline
variables are set before anything imports transformers."""

from __future__ import annotations

import os
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402
from shared_data import data_dir as _data_dir  # noqa: E402 - where ../shared/data is

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The public benchmark data (``../shared/data`` or ``$GENDERSCOPE_TEST_DATA``)."""
    d = _data_dir()
    if not d.is_dir():
        pytest.fail(f"benchmark data not found at {d}; set GENDERSCOPE_TEST_DATA")
    return d


@pytest.fixture()
def store(tmp_path: Path):
    """A fresh SQLite store in a temporary folder."""
    from genderscope.store import Store

    s = Store(tmp_path / "store.sqlite")
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never write to the user's real store from tests."""
    monkeypatch.setenv("GENDERSCOPE_STORE", str(tmp_path / "default-store.sqlite"))


@pytest.fixture(autouse=True)
def _product_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the product's data lookup (``GENDERSCOPE_DATA``, read by
    ``genderscope.datasets.locations``) at the test data, so commands run by tests find
    it from any working directory, not only from a checkout beside ``shared/``."""
    if _data_dir().is_dir():
        monkeypatch.setenv("GENDERSCOPE_DATA", str(_data_dir().resolve()))
    # a data set missing there would be downloaded: point downloads at a closed local
    # port, so no test reaches the network (tests/datasets/test_data_registry.py serves its own)
    monkeypatch.setenv("GENDERSCOPE_DATA_MIRROR", "http://127.0.0.1:9")
    monkeypatch.setenv("GENDERSCOPE_DATA_RETRIES", "0")


# -- offline test models -------------------------------------------------------
@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Folder with a tiny random BERT MLM and the real bert-base-uncased vocabulary."""
    from genderscope.models.testing import build_bert

    return build_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_roberta_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from genderscope.models.testing import build_roberta

    return build_roberta(tmp_path_factory.mktemp("tiny-roberta"))


@pytest.fixture(scope="session")
def tiny_xlmr_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tiny random XLM-R MLM with a SentencePiece (Unigram) tokenizer."""
    from genderscope.models.testing import build_xlmr

    return build_xlmr(tmp_path_factory.mktemp("tiny-xlmr"))


@pytest.fixture(scope="session")
def tiny_gpt2_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from genderscope.models.testing import build_gpt2

    return build_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture(scope="session")
def tiny_bert(tiny_bert_dir: Path):
    """MaskedLM adapter (no store) on the tiny BERT."""
    from genderscope.models.masked import MaskedLM

    return MaskedLM.from_pretrained(tiny_bert_dir, device="cpu")


@pytest.fixture(scope="session")
def tiny_roberta(tiny_roberta_dir: Path):
    from genderscope.models.masked import MaskedLM

    return MaskedLM.from_pretrained(tiny_roberta_dir, device="cpu")


@pytest.fixture(scope="session")
def tiny_xlmr(tiny_xlmr_dir: Path):
    from genderscope.models.masked import MaskedLM

    return MaskedLM.from_pretrained(tiny_xlmr_dir, device="cpu")


@pytest.fixture(scope="session")
def tiny_gpt2(tiny_gpt2_dir: Path):
    from genderscope.models.causal import CausalLM

    return CausalLM.from_pretrained(tiny_gpt2_dir, device="cpu")


@pytest.fixture(scope="session")
def smollm2():
    """The real SmolLM2-135M-Instruct (GGUF, packaged offline). Slow tests only."""
    from genderscope.models.loading import load_lm

    return load_lm("smollm2", device="cpu")
