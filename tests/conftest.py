"""Shared pytest fixtures."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Python modules of the tests' own, e.g. worker_hooks, which a worker
#: child may call: its folder goes on PYTHONPATH (inherited by every
#: worker and subprocess a test starts) and the module is named in
#: PLPUZZLE_WORKER_MODULES, without which a worker calls only plpuzzle's.
TEST_MODULES = REPO_ROOT / "tests" / "fixtures" / "python"
sys.path.insert(0, str(TEST_MODULES))
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(TEST_MODULES), os.environ.get("PYTHONPATH")])
)
os.environ["PLPUZZLE_WORKER_MODULES"] = "worker_hooks"
BUNDLED = REPO_ROOT / "puzzles" / "sudoku" / "consecutive"

#: The hand-made part of the bundled consecutive suite; the generated part
#: (test011 on) is checked as a whole by a few tests only, as it is slower.
HAND_MADE = tuple(f"test{i:03d}" for i in range(1, 11))


@pytest.fixture
def hand_made_suite(tmp_path: Path) -> Path:
    """A copy of the hand-made bundled puzzles, in tmp_path/tests, that a
    test may change."""
    folder = tmp_path / "tests"
    folder.mkdir()
    for name in HAND_MADE:
        for kind in "ds":
            shutil.copy(BUNDLED / f"{name}{kind}.txt", folder)
    return folder


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
