"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def official_suite() -> Path:
    """The course's official test suite (`bme-2013-oddsum/`), or skip.

    It lives in the `shared` folder beside the repository root; the
    environment variable PLPUZZLE_SHARED names another `shared` folder.
    """
    shared = Path(os.environ.get("PLPUZZLE_SHARED") or REPO_ROOT.parent / "shared")
    suite = shared / "bme-2013-oddsum"
    if not (suite / "tests").is_dir():
        pytest.skip(f"official suite not found at {suite} (set PLPUZZLE_SHARED)")
    return suite
