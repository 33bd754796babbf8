"""Grading a class of correct SICStus 4 solvers, each leaning on one gap that
SWI's SICStus emulation had in 2013 submissions.

Every solver in tests/fixtures/sicstus_class/ is correct under SICStus 4 as
documented; the grader has to give every one full marks. The header comment
of each file says which gap it exercises.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from once_per_run import once_per_run

# Grades a whole class of SICStus solvers: `make test-all`.
pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

REPO = Path(__file__).resolve().parents[2]
CLASS = REPO / "tests" / "fixtures" / "sicstus_class"
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
TESTS = ["test001", "test002", "test003", "test004", "test005", "test008"]

#: The gap each student's solver leans on.
STUDENTS = {
    "adam": "somechk/2, lists:append_length/4, lists:transpose/2",
    "bence": "sets:subtract/3, sets:intersection/3 for candidate sets",
    "csilla": "between:between/3, between:numlist/3",
    "daniel": "library(avl): empty_avl/1, avl_store/4, avl_fetch/3, avl_to_list/2",
    "eszter": "library(aggregate) with library(terms): aggregate_all/3, term_variables_bag/2",
    "ferenc": "a syntax error in an unused clause",
    "gabor": "a Latin-1 file with Hungarian comments",
    "hanna": "a UTF-8 file with a byte-order mark",
    "istvan": "labeling option value(Enum), first_bound/2, later_bound/2",
    "judit": "labeling option variable(Sel)",
    "kata": "labeling option discrepancy(D)",
    "laszlo": "FD sets [[Min|Max],...]: in_set/2, fd_set/2",
}

#: The line of ferenc.pl that holds the syntax error.
SYNTAX_ERROR_LINE = 73


@pytest.fixture(scope="module")
def students(request: pytest.FixtureRequest) -> dict[str, dict]:
    """The class graded once in the whole run, whichever worker asks first
    (once_per_run); the students by id."""
    return once_per_run(request, grade_the_class)


def grade_the_class(report: Path) -> dict[str, dict]:
    """Grade the whole class through the CLI into `report`; the students by id."""
    run = subprocess.run(
        [sys.executable, "-m", "plpuzzle", "sudoku", "grade", str(CLASS),
         "--suite", str(SUITE), "--time-limit", "20", "--memory-limit", "1024",
         "--jobs", "2", "--out", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads((report / "grades.json").read_text())
    return {s["id"]: s for s in data["students"]}


def test_the_whole_class_is_graded(students: dict[str, dict]) -> None:
    assert sorted(students) == sorted(STUDENTS)
    for sid, student in students.items():
        assert sorted(r["test"] for r in student["results"]) == TESTS, sid


@pytest.mark.parametrize("sid", sorted(STUDENTS))
def test_full_marks(students: dict[str, dict], sid: str) -> None:
    student = students[sid]
    failing = "\n".join(
        f"  {r['test']}: {r['grade']}: {r['detail']}\n    {r['evidence']}"
        for r in student["results"]
        if r["grade"] != "correct"
    )
    assert (student["score"], student["max_score"]) == (6, 6), (
        f"{sid} ({STUDENTS[sid]}) got {student['score']}/{student['max_score']}\n"
        f"notes: {student['notes']}\n{failing}"
    )


def test_the_syntax_error_is_reported_once_while_loading(students: dict[str, dict]) -> None:
    notes = students["ferenc"]["notes"]
    # A single-file submission is graded as sudoku.pl; the student's own name
    # for the file would do as well.
    where = re.compile(rf"\b(sudoku|ferenc)\.pl:{SYNTAX_ERROR_LINE}:")
    syntax = [n for n in notes if "Syntax error" in n]
    assert len(syntax) == 1, notes
    assert syntax[0].startswith("while loading: "), notes
    assert where.search(syntax[0]), notes
    for result in students["ferenc"]["results"]:
        assert "Syntax error" not in result["evidence"], result


def test_the_other_students_load_without_a_message(students: dict[str, dict]) -> None:
    # Latin-1, a byte-order mark and the libraries load silently.
    assert {sid: s["notes"] for sid, s in students.items() if sid != "ferenc" and s["notes"]} == {}


def test_no_generated_module_name_shows(students: dict[str, dict]) -> None:
    for sid, student in students.items():
        texts = list(student["notes"])
        for result in student["results"]:
            texts += [result["detail"], result["evidence"]]
        leaks = [t for t in texts if "plpuzzle_solver_" in t]
        assert leaks == [], sid
