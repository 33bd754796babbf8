"""Reports show a wrong test's evidence as boards with the broken rules named."""

from __future__ import annotations

import json
from pathlib import Path

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.grading.grader import in_words
from plpuzzle.sudoku.grading.model import Grade, TestGrade
from plpuzzle.sudoku.grading.report import StudentGrades
from plpuzzle.sudoku.runs.suite import discover

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "grading_suite"


def test_a_wrong_grade_is_shown_as_boards_and_named_rules() -> None:
    cases = discover(SUITE)[:1]
    extra = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    missing = [[2, 1, 4, 3], [3, 4, 2, 1], [4, 3, 1, 2], [1, 2, 3, 4]]
    evidence = (
        f"first missing solution: {json.dumps(missing)}\nfirst extra solution: {json.dumps(extra)}"
    )
    wrong = TestGrade("sam", cases[0].name, Grade.WRONG, "missing 1, extra 1", evidence)
    right = TestGrade("sam", cases[0].name, Grade.CORRECT)
    student = StudentGrades("sam", "sam.pl", [wrong])
    [shown] = in_words([student], cases, Rules.CONSECUTIVE)
    text = shown.grades[0].evidence
    assert "[[" not in text  # no raw nested list left
    assert " 1 2  3 4" in text and " 2 1  4 3" in text  # both drawn as boards
    assert "breaks: s: cell (1,1)=1 and the cell below (2,1)=3 differ by 2, not 1" in text
    # The stored grade is untouched: the gradebook and the feedback read the lists.
    assert student.grades[0].evidence == evidence
    assert in_words([StudentGrades("x", "x.pl", [right])], cases, Rules.CONSECUTIVE)[0].grades == [
        right
    ]
