"""Feedback per student: evidence in words and boards, files a teacher can send.

The end-to-end test grades a deliberately buggy Prolog solver
(tests/fixtures/feedback/s_points_up.pl: its `s` looks at the row above)
with the real `plpuzzle sudoku grade` and checks that its feedback file
holds a shrunk counterexample that really fails for that solver.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from run_plpuzzle import plpuzzle

from plpuzzle.sandbox import jail
from plpuzzle.sandbox.workspace import RunFolder, read_regular_files
from plpuzzle.sudoku.domain.evidence import describe, evidence_in_words, grids_in_evidence
from plpuzzle.sudoku.domain.model import Rules, grid_from_lists
from plpuzzle.sudoku.domain.textformat import grid_term, parse_puzzle
from plpuzzle.sudoku.engines import python_engine
from plpuzzle.sudoku.grading.feedback.build import build_feedback, feedback_name, write_feedback
from plpuzzle.sudoku.grading.feedback.render import to_html, to_markdown
from plpuzzle.sudoku.grading.feedback.shrink import SandboxSolver
from plpuzzle.sudoku.grading.model import Grade, GradeSettings, TestGrade
from plpuzzle.sudoku.grading.report import StudentGrades
from plpuzzle.sudoku.grading.scheduling.local_pool import hidden_paths
from plpuzzle.sudoku.runs.suite import discover

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
BUGGY = REPO / "tests" / "fixtures" / "feedback" / "s_points_up.pl"
CORRECT = REPO / "tests" / "fixtures" / "class" / "alice.pl"

EMPTY_2 = parse_puzzle("2\n- - - -\n- - - -\n- - - -\n- - - -\n")
#: Rows and columns right, but the top-left box holds 2 twice.
NOT_A_SUDOKU = grid_from_lists([[1, 2, 3, 4], [2, 1, 4, 3], [3, 4, 1, 2], [4, 3, 2, 1]])


def test_an_extra_grid_is_drawn_and_its_broken_rules_named() -> None:
    e = describe(EMPTY_2, NOT_A_SUDOKU, Rules.CONSECUTIVE)
    assert e.board.splitlines()[0] == " 1 2  3 4"
    assert "the box at rows 1-2, columns 1-2 holds 2 twice" in e.violations
    assert any(line.strip().startswith("breaks: the box") for line in e.lines())
    assert describe(EMPTY_2, NOT_A_SUDOKU, Rules.CONSECUTIVE, "missing").violations == []


def test_grids_are_read_back_from_stored_evidence_and_junk_is_skipped() -> None:
    text = (
        f"first missing solution: {grid_term(NOT_A_SUDOKU)}\n"
        "first extra solution: [[1,2],[2,1]]\n"  # the wrong size for N=4
    )
    assert grids_in_evidence(text, 4) == {"missing": NOT_A_SUDOKU}
    assert grids_in_evidence("first extra solution: [[1,", 4) == {}


def student(name: str, grades: list[tuple[str, Grade, str, str]]) -> StudentGrades:
    return StudentGrades(
        name, f"{name}.pl", [TestGrade(name, t, g, detail, ev) for t, g, detail, ev in grades]
    )


def test_feedback_tells_wrong_answers_as_boards_and_each_error_once() -> None:
    cases = discover(SUITE)
    names = [c.name for c in cases]
    timeout = "stopped at the CPU limit of 60 s"
    grades = [
        (names[0], Grade.CORRECT, "", ""),
        (names[1], Grade.WRONG, "extra 1", f"first extra solution: {grid_term(NOT_A_SUDOKU)}"),
        (names[2], Grade.TIMEOUT, f"{timeout} (CPU 60.01 s, wall 61.00 s)", ""),
        (names[3], Grade.TIMEOUT, f"{timeout} (CPU 60.20 s, wall 60.90 s)", ""),
        *((n, Grade.CORRECT, "", "") for n in names[4:]),
    ]
    fb = build_feedback(student("sam", grades), cases, GradeSettings())
    assert (fb.score, fb.max_score) == (len(names) - 3, len(names))
    assert len(fb.errors) == 1 and fb.errors[0].tests == names[2:4]
    md = to_markdown(fb)
    assert md.count(timeout) == 1  # told once, not per test
    assert f"| {names[1]} | wrong: extra 1 | 0/1 |" in md
    assert " 1 2  3 4\n 2 1  4 3\n" in md
    assert "- the box at rows 1-2, columns 1-2 holds 2 twice" in md
    page = to_html(fb)
    assert "the box at rows 1-2, columns 1-2 holds 2 twice" in page
    assert page.count(timeout) == 1 and "<script" not in page


def test_write_feedback_without_submissions_needs_no_sandbox(tmp_path: Path) -> None:
    cases = discover(SUITE)
    s = student(
        "eve<x>", [(c.name, Grade.LOAD_ERROR, "syntax error", "why:\nsyntax error") for c in cases]
    )
    folder = write_feedback(tmp_path, [s], cases, GradeSettings())
    # No student id (an ungradable entry's): its files get a name any file system takes.
    name = feedback_name("eve<x>")
    assert name.startswith("eve_x-") and feedback_name("alice") == "alice"
    md = (folder / f"{name}.md").read_text()
    assert md.count("syntax error") == 2  # the heading and its evidence, once
    assert "eve&lt;x&gt;" in (folder / f"{name}.html").read_text()


@pytest.mark.slow
def test_the_pytest_plugin_names_what_an_extra_solution_breaks(pytester: pytest.Pytester) -> None:
    suite = pytester.path / "suite"
    suite.mkdir()
    for kind in "ds":
        shutil.copy(SUITE / f"test004{kind}.txt", suite)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--sudoku-suite", str(suite), f"--sudoku-solver={BUGGY}",
        timeout=120,
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["extra (given, not expected): 2", "*breaks: s: cell (2,2)=3 and the cell below (3,2)=1*"]
    )


def puzzle_in(markdown: str) -> str:
    """The first shrunk puzzle of a feedback file (the block after "Save it")."""
    match = re.search(r"Save it as a puzzle file.*?\n\n```\n(.*?)```", markdown, re.S)
    assert match, markdown
    return match.group(1)


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_buggy_solver_gets_a_shrunk_counterexample_that_really_fails(tmp_path: Path) -> None:
    subs = tmp_path / "submissions"
    subs.mkdir()
    shutil.copy(BUGGY, subs / "sam.pl")
    shutil.copy(CORRECT, subs / "alice.pl")
    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "plpuzzle", "sudoku", "grade", subs, "--suite", SUITE,
         "--out", out, "--jobs", "2", "--time-limit", "20",
         # The search is bounded by its runs, not by seconds, which a
         # loaded machine makes short.
         "--shrink-seconds", "3600"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert f"{out / 'feedback'}" in done.stdout
    # Off a terminal the long search is announced, so the run never looks stuck.
    assert "writing feedback: looking for the smallest failing puzzle of 1 student(s)" in (
        done.stderr
    )
    alice = (out / "feedback" / "alice.md").read_text()
    assert "Score: **6 / 6**" in alice and "smaller puzzle" not in alice
    sam = (out / "feedback" / "sam.md").read_text()
    assert "## Wrong answers" in sam
    assert "It breaks these rules:" in sam and "the cell below" in sam
    puzzle = parse_puzzle(puzzle_in(sam))
    infos = sum(len(f.infos) for row in puzzle.fields for f in row)
    assert puzzle.k == 2 or infos <= 3
    assert (out / "feedback" / "sam.html").read_text().count("smaller puzzle") >= 1
    # It really fails: the solver, run again in the sandbox, disagrees with
    # the Python engine on the shrunk puzzle.
    files = read_regular_files(BUGGY, "sudoku.pl")
    limits = jail.Limits(cpu_seconds=10, wall_seconds=30, memory_mb=1024)
    with RunFolder() as run:
        folder = files.write(run.path / "sub")
        with SandboxSolver(run, folder, "sudoku.pl", "sicstus4", limits, hidden_paths()) as s:
            theirs = s.answers(puzzle, 10_000)
    assert theirs is not None
    ours = sorted(python_engine.solve_all(puzzle, Rules.CONSECUTIVE))
    assert sorted(set(theirs.grids)) != ours


def test_stored_evidence_is_told_in_words() -> None:
    stored = f"first extra solution: {grid_term(NOT_A_SUDOKU)}\ngiven 2 times: [[1]]"
    text = evidence_in_words(stored, EMPTY_2, Rules.CONSECUTIVE)
    assert "    1 2  3 4" in text.splitlines()[1]
    assert "    breaks: the box at rows 1-2, columns 1-2 holds 2 twice" in text
    assert text.endswith("given 2 times: [[1]]")


@pytest.mark.sandbox
@pytest.mark.slow
def test_the_search_is_announced_only_when_one_runs(tmp_path: Path) -> None:
    """The second run takes the grades from the gradebook and the shrunk
    puzzles from the feedback folder: nothing is searched, so nothing is
    announced; the feedback still holds the smaller puzzle."""
    subs = tmp_path / "submissions"
    subs.mkdir()
    shutil.copy(REPO / "tests" / "fixtures" / "class" / "dave.pl", subs / "dave.pl")
    out = tmp_path / "report"
    announced = "looking for the smallest failing puzzle"
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "plpuzzle", "sudoku", "grade", subs, "--suite", SUITE,
             "--out", out, "--time-limit", "20"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        runs.append(done)
        assert "smaller puzzle" in (out / "feedback" / "dave.md").read_text()
    assert announced in runs[0].stderr
    assert "0 test run(s) graded now, 6 taken from the gradebook" in runs[1].stdout
    assert announced not in runs[1].stderr, runs[1].stderr
    # The progress lines say where the grades came from.
    assert "graded 6/6 (100%)," in runs[0].stderr
    assert "graded 6/6 (100%; 6 from the gradebook)," in runs[1].stderr
    # Done as the feedback says, the smaller puzzle is a test that runs cleanly.
    dave = (out / "feedback" / "dave.md").read_text()
    own = tmp_path / "own_tests"
    own.mkdir()
    follow_the_feedback(dave, own)
    run = plpuzzle("sudoku", "test", own, "--solver", "bundled", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 tests: 1 correct" in run.stdout, run.stdout


def follow_the_feedback(markdown: str, folder: Path) -> None:
    """Save the smaller puzzle as the feedback names it, and its expected
    solutions as it says: listed, or written by the command it gives."""
    name = re.search(r"Save it as a puzzle file of your own tests \(`([^`]+)`\)", markdown)
    assert name, markdown
    (folder / name.group(1)).write_text(puzzle_in(markdown))
    listed = re.search(r"as an expected-solution file \(`([^`]+)`\):\n\n```\n(.*?)```", markdown,
                       re.S)  # fmt: skip
    if listed:
        (folder / listed.group(1)).write_text(listed.group(2))
        return
    command = re.search(r"`(plpuzzle sudoku solve \S+ .*? -o \S+)`", markdown)
    assert command, markdown
    args = command.group(1).split()[1:]
    done = plpuzzle(*args, cwd=folder)
    assert done.returncode == 0, done.stderr
