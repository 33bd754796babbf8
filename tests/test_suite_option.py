"""The tests that need the course's official suite find it anywhere:
`--suite DIR` or PLPUZZLE_SUITE=DIR name a folder of its puzzles, the old
PLPUZZLE_SHARED names the folder that holds bme-2013-oddsum, and when none
of them leads to it, the skip says how to point at it.

Each case runs pytest itself, in a process of its own, on one
suite-dependent test of this repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: A suite-dependent test that reads the puzzles, their expected solutions
#: and the harness's printouts (test*t.txt), and runs no solver.
PROBE = "tests/sudoku/test_textformat.py::test_official_files_parse_and_golden_outputs_match"


def run_pytest(*args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v for k, v in os.environ.items() if k not in ("PLPUZZLE_SUITE", "PLPUZZLE_SHARED")
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", PROBE, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**environ, **env},
        timeout=300,
    )


@pytest.fixture
def course(official_suite: Path, official_golden: Path, tmp_path: Path) -> Path:
    """Three tests of the official suite, printouts beside them, in a
    folder of another name (as a student's `../course` would be)."""
    folder = tmp_path / "course"
    folder.mkdir()
    for name in ("test001", "test009"):
        for kind in "ds":
            shutil.copy(official_suite / f"{name}{kind}.txt", folder)
        shutil.copy(official_golden / f"{name}t.txt", folder)
    return folder


def test_the_suite_option_points_the_tests_at_a_folder(course: Path, tmp_path: Path) -> None:
    empty = tmp_path / "nothing-shared"
    run = run_pytest(f"--suite={course}", PLPUZZLE_SHARED=str(empty))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_the_suite_variable_points_the_tests_at_a_folder(course: Path, tmp_path: Path) -> None:
    run = run_pytest(PLPUZZLE_SUITE=str(course), PLPUZZLE_SHARED=str(tmp_path / "nothing-shared"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_the_shared_folder_still_works(course: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shutil.copytree(course, shared / "bme-2013-oddsum" / "tests")
    run = run_pytest(PLPUZZLE_SHARED=str(shared))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_without_a_suite_the_skip_says_how_to_point_at_one(tmp_path: Path) -> None:
    run = run_pytest(PLPUZZLE_SHARED=str(tmp_path / "nothing-shared"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 skipped" in run.stdout
    assert "--suite DIR or PLPUZZLE_SUITE=DIR" in run.stdout


def test_a_named_folder_that_is_no_suite_stops_the_run(tmp_path: Path) -> None:
    run = run_pytest(f"--suite={tmp_path}")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout + run.stderr
    assert f"--suite: {tmp_path} holds no test*d.txt" in run.stderr
