"""The time limit is CPU time; the wall clock is only a backstop for waiters.

A solver that computes is stopped when its sandbox has used the CPU time
limit, however long that takes on a loaded machine; a solver that waits
uses no CPU and is stopped by the wall-clock backstop.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Each test waits out a full CPU or wall-clock limit: `make test-all`.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset (util-linux)"),
]

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"

LOOPER = "% Computes for ever.\nsudoku(_, _) :- repeat, fail.\n"
SLEEPER = "% Waits instead of computing.\nsudoku(_, _) :- sleep(100).\n"

#: A busy loop that ends by itself after two minutes should nobody stop it.
HOG = "import time\nend = time.monotonic() + 120\nwhile time.monotonic() < end:\n    pass\n"


#: The one core that the hogs and the grader (with its sandbox) share. The
#: sandbox is held back as on a machine whose every core is busy, and the
#: hogs burn one core, not all: on 2 cores, hogs free to roam took most of
#: the machine from the tests running beside these (each hog is a
#: scheduling group of its own, as heavy as all of pytest's workers).
CORE = str(max(os.sched_getaffinity(0)))


def on_the_core(argv: list[str]) -> list[str]:
    return ["taskset", "-c", CORE, *argv]


def start_hog() -> subprocess.Popen[bytes]:
    """A busy loop in a session of its own. The sandbox runs in a session of
    its own too, and where the kernel groups the scheduling by session
    (autogroup), hogs that shared pytest's session would together get no
    more than the sandbox's one share, and leave it a whole core."""
    return subprocess.Popen(on_the_core([sys.executable, "-c", HOG]), start_new_session=True)


def grade_one(tmp_path: Path, source: str, *limits: str) -> dict:
    """Grade a class of one student on one fast test; that test's result.
    No feedback, similarity or requirements: none of them is looked at,
    and the hogs would burn the cores while the grader wrote them."""
    sub = tmp_path / "class"
    sub.mkdir()
    (sub / "solo.pl").write_text(source)
    points = tmp_path / "points.toml"
    points.write_text('only = ["test005"]\n')
    argv = [sys.executable, "-m", "plpuzzle", "sudoku", "grade", str(sub), "--suite", str(SUITE),
            "--points", str(points), "--memory-limit", "1024", "--jobs", "1",
            "--no-feedback", "--no-similarity", "--no-requirements",
            "--out", str(tmp_path / "report"), *limits]  # fmt: skip
    run = subprocess.run(on_the_core(argv), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads((tmp_path / "report" / "grades.json").read_text())
    (result,) = data["students"][0]["results"]
    return result


def test_a_computing_solver_is_stopped_by_cpu_time_on_a_loaded_machine(tmp_path: Path) -> None:
    hogs = [start_hog() for _ in range(2)]
    try:
        result = grade_one(tmp_path, LOOPER, "--time-limit", "2")  # wall backstop: 14 s
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert result["grade"] == "timeout", result
    assert "CPU limit" in result["detail"], result
    assert 2 <= result["cpu_seconds"] < 3, result
    # One process computing cannot use more CPU time than wall-clock time;
    # sharing the machine with the hogs it takes longer.
    assert result["wall_seconds"] >= result["cpu_seconds"] - 0.05, result


def test_a_waiting_solver_is_stopped_by_the_wall_clock_backstop(tmp_path: Path) -> None:
    result = grade_one(tmp_path, SLEEPER, "--time-limit", "2", "--wall-limit", "3")
    assert result["grade"] == "timeout", result
    assert "wall-clock backstop" in result["detail"], result
    assert result["cpu_seconds"] < 1, result
    assert 3 <= result["wall_seconds"] < 5, result


def hogged(tmp_path: Path, source: str, *limits: str, hogs: int = 3) -> dict:
    """grade_one with the machine busy: `hogs` busy loops beside it."""
    running = [start_hog() for _ in range(hogs)]
    try:
        return grade_one(tmp_path, source, *limits)
    finally:
        for hog in running:
            hog.kill()
            hog.wait()


def test_the_backstop_moves_out_while_a_busy_machine_holds_a_computing_solver_back(
    tmp_path: Path,
) -> None:
    """1.5 s of CPU, a 2 s backstop, and a machine so busy that the solver
    gets a share of a core: by the wall clock alone it would be stopped at
    2 s as a waiter. The backstop moves out by the time it waited for a
    core, so it is stopped at its CPU limit, as it would be on an idle
    machine."""
    result = hogged(tmp_path, LOOPER, "--time-limit", "1.5", "--wall-limit", "2")
    assert result["grade"] == "timeout", result
    assert "CPU limit" in result["detail"], result
    assert result["wall_seconds"] > 2, result  # it ran past the backstop's own length


def test_a_computing_solver_stopped_at_the_backstop_on_a_busy_machine_is_not_called_waiting(
    tmp_path: Path,
) -> None:
    """A backstop shorter than the CPU limit, on a busy machine: the verdict
    names the busy machine, not a solver that waits. (The backstop moves
    out by the time the solver waits for a core, up to ten times its
    length: 1 s keeps that wait short.)"""
    result = hogged(tmp_path, LOOPER, "--time-limit", "30", "--wall-limit", "1")
    assert result["grade"] == "timeout", result
    assert "wall-clock backstop of 1 s: the machine was busy (" in result["detail"], result
    assert "waiting" not in result["detail"], result


def test_a_waiting_solver_on_a_busy_machine_is_still_called_waiting(tmp_path: Path) -> None:
    """Sleeping is not waiting for a core: the busy machine changes nothing."""
    result = hogged(tmp_path, SLEEPER, "--time-limit", "4", "--wall-limit", "3")
    assert result["grade"] == "timeout", result
    assert "wall-clock backstop of 3 s: waiting, not computing (" in result["detail"], result
    assert 3 <= result["wall_seconds"] < 5, result
