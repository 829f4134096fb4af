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

REPO = Path(__file__).resolve().parents[1]


def _data_dir() -> Path:
    env = os.environ.get("GENDERSCOPE_TEST_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


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
