"""What a student's feedback says, as data: written by feedback.py (which
grades, groups and shrinks), drawn by render.py (Markdown, HTML).
Kept apart so that neither of the two imports the other's code."""

from __future__ import annotations

from dataclasses import dataclass, field

from plpuzzle.sudoku.domain.evidence import GridEvidence
from plpuzzle.sudoku.domain.model import Grid, Puzzle
from plpuzzle.sudoku.domain.textformat import puzzle_to_text
from plpuzzle.sudoku.grading.feedback.shrink import count_infos


@dataclass
class ErrorGroup:
    """One kind of error and the tests it hit, told once."""

    grade: str
    message: str
    tests: list[str]
    evidence: str = ""


@dataclass
class Shrunk:
    """A counterexample as the feedback shows it."""

    puzzle: Puzzle
    original_k: int
    original_infos: int
    ours: list[Grid]
    theirs_count: int
    extra: GridEvidence | None
    missing: GridEvidence | None
    duplicates: int
    malformed: int
    runs: int
    seconds: float
    stopped: str

    @property
    def infos(self) -> int:
        return count_infos(self.puzzle)

    @property
    def text(self) -> str:
        """The puzzle in the course's text format (a testNNNd.txt file)."""
        return puzzle_to_text(self.puzzle)


@dataclass
class TestFeedback:
    """One test as the student sees it."""

    __test__ = False  # not a pytest test class

    test: str
    grade: str
    points: float
    earned: float
    detail: str = ""
    extra: GridEvidence | None = None
    missing: GridEvidence | None = None
    #: Other evidence of a wrong answer (duplicates, malformed answers).
    other: list[str] = field(default_factory=list)
    shrunk: Shrunk | None = None
    #: Why there is no smaller puzzle (when shrinking was tried).
    shrink_note: str = ""


@dataclass
class StudentFeedback:
    """Everything one student's feedback file says."""

    student: str
    score: float
    max_score: float
    rules: str
    tests: list[TestFeedback]
    errors: list[ErrorGroup] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Other students who handed in the same files.
    identical_to: list[str] = field(default_factory=list)
    #: The course requirements as found: (requirement, what was found).
    requirements: list[tuple[str, str]] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.tests:
            out[t.grade] = out.get(t.grade, 0) + 1
        return out
