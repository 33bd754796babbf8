"""What a student's feedback says, as data: written by build.py (which
grades, groups and shrinks), drawn by render.py (Markdown, HTML) in the
language in force. Kept apart so that neither of the two imports the
other's code.

The data holds codes, not words: verdicts by their stored value, the
grader's findings as it stored them (English, said again in the reader's
language by grading.said), the course requirements as their JSON. It is
kept beside the feedback files (feedback/<student>.json, `to_json`), so
that the service draws a stored grading's feedback in each reader's
language.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from plpuzzle.sudoku.domain.evidence import GridEvidence
from plpuzzle.sudoku.domain.model import Grid, Puzzle, grid_from_lists
from plpuzzle.sudoku.domain.textformat import parse_puzzle, puzzle_to_text
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
    #: The course requirements as found (Requirements.to_json; None: not
    #: checked), put in words as the feedback is drawn.
    requirements: dict[str, Any] | None = None

    @property
    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.tests:
            out[t.grade] = out.get(t.grade, 0) + 1
        return out


#: The version of feedback/<student>.json's form.
JSON_FORM = 1


def _evidence_json(e: GridEvidence | None) -> Any:
    return None if e is None else {**dataclasses.asdict(e), "grid": [list(r) for r in e.grid]}


def _evidence_of(data: Any) -> GridEvidence | None:
    if data is None:
        return None
    return GridEvidence(str(data["kind"]), grid_from_lists(data["grid"]), str(data["board"]),
                        [str(v) for v in data["violations"]])  # fmt: skip


def to_json(f: StudentFeedback) -> dict[str, Any]:
    """The feedback as JSON data, to be drawn again in any language."""
    tests = []
    for t in f.tests:
        s = t.shrunk
        shrunk = None if s is None else {
            "puzzle": s.text, "original_k": s.original_k, "original_infos": s.original_infos,
            "ours": [[list(r) for r in g] for g in s.ours], "theirs_count": s.theirs_count,
            "extra": _evidence_json(s.extra), "missing": _evidence_json(s.missing),
            "duplicates": s.duplicates, "malformed": s.malformed, "runs": s.runs,
            "seconds": s.seconds, "stopped": s.stopped,
        }  # fmt: skip
        tests.append({
            "test": t.test, "grade": t.grade, "points": t.points, "earned": t.earned,
            "detail": t.detail, "extra": _evidence_json(t.extra),
            "missing": _evidence_json(t.missing), "other": t.other, "shrunk": shrunk,
            "shrink_note": t.shrink_note,
        })  # fmt: skip
    return {
        "form": JSON_FORM, "student": f.student, "score": f.score, "max_score": f.max_score,
        "rules": f.rules, "tests": tests, "errors": [dataclasses.asdict(e) for e in f.errors],
        "notes": f.notes, "identical_to": f.identical_to, "requirements": f.requirements,
    }  # fmt: skip


def from_json(data: dict[str, Any]) -> StudentFeedback:
    """The feedback `to_json` wrote. Raises KeyError, TypeError or
    ValueError (FormatError is one) for data it did not write."""
    if data.get("form") != JSON_FORM:
        raise ValueError(f"feedback data of form {data.get('form')!r}, not {JSON_FORM}")
    tests = []
    for t in data["tests"]:
        s = t["shrunk"]
        shrunk = None if s is None else Shrunk(
            parse_puzzle(s["puzzle"]), int(s["original_k"]), int(s["original_infos"]),
            [grid_from_lists(g) for g in s["ours"]], int(s["theirs_count"]),
            _evidence_of(s["extra"]), _evidence_of(s["missing"]), int(s["duplicates"]),
            int(s["malformed"]), int(s["runs"]), float(s["seconds"]), str(s["stopped"]),
        )  # fmt: skip
        tests.append(TestFeedback(
            str(t["test"]), str(t["grade"]), t["points"], t["earned"], str(t["detail"]),
            _evidence_of(t["extra"]), _evidence_of(t["missing"]), [str(o) for o in t["other"]],
            shrunk, str(t["shrink_note"]),
        ))  # fmt: skip
    return StudentFeedback(
        str(data["student"]), data["score"], data["max_score"], str(data["rules"]), tests,
        [ErrorGroup(str(e["grade"]), str(e["message"]), [str(x) for x in e["tests"]],
                    str(e["evidence"])) for e in data["errors"]],
        [str(n) for n in data["notes"]], [str(x) for x in data["identical_to"]],
        data["requirements"],
    )  # fmt: skip
