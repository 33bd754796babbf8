"""A class's grades as reports: CSV (one row per student, counts per grade),
a wide CSV (one column per test, for a course's gradebook) and JSON (all of it).

The HTML page (plpuzzle.sudoku.grading.report_html) is drawn from the same
dictionary that the JSON report holds, so the three always agree. Nothing
here depends on when or in which order tests ran, so grading the same
class twice gives byte-identical reports. The JSON and HTML reports also
name where each run ran (this machine, or which Dask worker); the CSVs do
not, so a class graded locally and on a cluster gives the same CSVs.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plpuzzle.procstat import WALL_STRETCH
from plpuzzle.runtime.sicstus_gaps import NOT_EMULATED
from plpuzzle.sudoku.grading.model import Grade, GradeSettings, TestGrade
from plpuzzle.sudoku.runs.suite_config import Points
from plpuzzle.untrusted import json_for_pages, spreadsheet_csv


@dataclass
class StudentGrades:
    """One student's grades on every test that counts, in suite order."""

    student: str
    submission: str
    grades: list[TestGrade]
    #: What the grader noted about the submission (e.g. files it refused).
    notes: list[str] = field(default_factory=list)
    #: Other students whose hand-in has the same files (the same digest).
    identical_to: list[str] = field(default_factory=list)
    #: The course requirements as found (grading.requirements' JSON form);
    #: None: not checked (no hand-in, or the reader could not run).
    requirements: dict[str, Any] | None = None


def _points(value: float) -> float | int:
    """Whole points as ints, so reports read 3 rather than 3.0."""
    return int(value) if float(value).is_integer() else round(value, 3)


def build(
    students: list[StudentGrades], tests: list[str], points: Points, settings: GradeSettings
) -> dict[str, Any]:
    """The whole report as plain data (what the JSON file holds).

    Keys: not_emulated (SICStus library predicates that stopped a run
    because plpuzzle lacks them: the tool's gap); settings; tests (name,
    points, correct, total, pass_rate,
    median_cpu_seconds); max_score; grades (the grade names in order);
    students (id, submission, score, max_score, counts per grade, notes,
    and results: test, grade, points, earned, detail, evidence, solutions,
    cpu_seconds, wall_seconds, ran_on), sorted by id; ran_on (how many
    runs ran where, now or in an earlier grading kept in the gradebook, a
    run made once for identical hand-ins counted once: a list of {"place",
    "runs"} sorted by place).

    A result's ran_on is TestGrade.ran_on: this machine's name for the
    local pool, "HOST (dask worker tcp://ADDR:PORT)" for a cluster's
    worker, or "" when the test never ran (a missing or ungradable
    submission) or its grade was stored by a plpuzzle that did not keep
    places; the summary leaves those out.
    """
    max_score = sum(points.of(t) for t in tests)
    ordered = sorted(students, key=lambda s: s.student)
    per_test: dict[str, list[TestGrade]] = {t: [] for t in tests}
    for g in (g for s in students for g in s.grades):
        per_test[g.test].append(g)
    return {
        "not_emulated": _gaps(students),
        "settings": _settings(settings),
        # Near the top of grades.json, not after 100,000 results.
        "ran_on": _places(students),
        "grades": [g.value for g in Grade],
        "tests": [_test_row(t, points, per_test[t]) for t in tests],
        "max_score": _points(max_score),
        "students": [_student_row(s, points, max_score) for s in ordered],
    }


def _student_row(s: StudentGrades, points: Points, max_score: float) -> dict[str, Any]:
    score = sum(points.of(g.test) for g in s.grades if g.grade is Grade.CORRECT)
    row = {
        "id": s.student,
        "submission": s.submission,
        "score": _points(score),
        "max_score": _points(max_score),
        "counts": {grade.value: sum(1 for g in s.grades if g.grade is grade) for grade in Grade},
        "notes": list(s.notes),
        "identical_to": list(s.identical_to),
        "results": [_result(g, points) for g in s.grades],
    }
    if s.requirements is not None:
        # What the suite's [requirements] take off, never below 0; the
        # tests' own score is kept beside it.
        row["tests_score"] = row["score"]
        row["score"] = _points(max(0.0, score - s.requirements.get("deduction", 0)))
        row["requirements"] = s.requirements
    return row


def _result(g: TestGrade, points: Points) -> dict[str, Any]:
    earned = points.of(g.test) if g.grade is Grade.CORRECT else 0.0
    return {
        "test": g.test,
        "grade": g.grade.value,
        "points": _points(points.of(g.test)),
        "earned": _points(earned),
        "detail": g.detail,
        "evidence": g.evidence,
        "solutions": g.solutions,
        "cpu_seconds": round(g.cpu_seconds, 3),
        "wall_seconds": round(g.wall_seconds, 3),
        "ran_on": g.ran_on,
    }


def _test_row(test: str, points: Points, graded: list[TestGrade]) -> dict[str, Any]:
    correct = sum(1 for g in graded if g.grade is Grade.CORRECT)
    cpus = [g.cpu_seconds for g in graded]
    return {
        "name": test,
        "points": _points(points.of(test)),
        "correct": correct,
        "total": len(graded),
        "pass_rate": round(correct / len(graded), 4) if graded else 0.0,
        "median_cpu_seconds": round(statistics.median(cpus), 3) if cpus else 0.0,
    }


def _places(students: list[StudentGrades]) -> list[dict[str, Any]]:
    """How many runs ran where; a run made for identical hand-ins is one
    run: each group counts once."""
    counted = [s for s in students if not any(other < s.student for other in s.identical_to)]
    places = Counter(g.ran_on for s in counted for g in s.grades if g.ran_on)
    return [{"place": p, "runs": n} for p, n in sorted(places.items())]


def _gaps(students: list[StudentGrades]) -> list[str]:
    """The SICStus library predicates plpuzzle lacks that stopped a run."""
    return sorted(
        {
            g.detail[len(NOT_EMULATED) :].split()[0]
            for s in students
            for g in s.grades
            if g.detail.startswith(NOT_EMULATED)
        }
    )


def _settings(settings: GradeSettings) -> dict[str, Any]:
    return {
        "rules": settings.rules.value,
        "dialect": settings.dialect,
        "time_limit": settings.time_limit,
        "wall_limit": settings.wall_seconds,
        "memory_limit_mb": settings.memory_mb,
        "policy": settings.policy(),
        "accounting": settings.accounting(),
        # What the two sentences above are made from: a page puts them in
        # its reader's language (report_html; a report without these keeps
        # its English sentences).
        "wall_stretch": WALL_STRETCH,
        "accounting_facts": settings.accounting_facts(),
    }


def to_json(report: dict[str, Any]) -> str:
    """grades.json: <, > and & in strings escaped, for consumers that paste
    a submission's text into a page (the data is the same once parsed)."""
    return json_for_pages(report, indent=2) + "\n"


def score_cell(student: dict[str, Any]) -> Any:
    """A student's score as a CSV cell: blank where their row holds no
    grade (the service's row of a student with no upload, or one whose
    grading has not ended: `graded` false), never a 0 they did not earn."""
    return student["score"] if student.get("graded", True) else ""


def to_csv(report: dict[str, Any]) -> str:
    """One row per student: id, score, max score, a count per grade, then
    the course requirements' columns when grading checked them, and the
    student's feedback file (relative to the report) when it was written. A
    text cell that a spreadsheet would take for a formula starts with an
    apostrophe (the ids come from the names of the hand-ins)."""
    grades = report["grades"]
    extra = list(REQUIREMENT_COLUMNS) if report.get("requirements") else []
    files = any("feedback" in s for s in report["students"])
    rows: list[list[Any]] = [["id", "score", "max_score", *grades, *extra,
                              *(["feedback"] if files else [])]]  # fmt: skip
    for s in report["students"]:
        counts = (s["counts"][g] for g in grades)
        more = _requirement_cells(s) if extra else []
        feedback = [s.get("feedback", "")] if files else []
        rows.append([s["id"], score_cell(s), s["max_score"], *counts, *more, *feedback])
    return spreadsheet_csv(rows)


#: The course requirements' columns of both CSVs, after the grades (only
#: when grading checked them: report["requirements"] holds the suite's policy).
REQUIREMENT_COLUMNS = ("clpfd", "head_comments", "long_lines", "documentation", "deduction")


def _requirement_cells(student: dict[str, Any]) -> list[Any]:
    """clpfd yes/no/unknown, the share of predicates with a head comment,
    lines over the limit, documentation yes/no, points taken off; empty
    where a check is off or the student was not checked."""
    r = student.get("requirements")
    if not r:
        return [""] * len(REQUIREMENT_COLUMNS)
    c, h, lay, d = r["clpfd"], r["head_comments"], r["layout"], r["documentation"]
    return [
        c["status"] if c else "",
        h["share"] if h and h["share"] is not None else "",
        lay["long_lines"] if lay else "",
        ("yes" if d["present"] else "no") if d else "",
        r["deduction"],
    ]


def to_wide_csv(report: dict[str, Any]) -> str:
    """One row per student, one column per test (points earned), then the total.

    Made for importing into a course's gradebook (Moodle and the like map
    columns by header and students by the first column), so it holds
    nothing but numbers between the id and the total: a test's column is
    its points when the grade is correct, else 0; the header names the
    tests in suite order. The total is after the suite's deductions; the
    course requirements' columns (REQUIREMENT_COLUMNS) follow it when
    grading checked them.
    """
    tests = [t["name"] for t in report["tests"]]
    extra = list(REQUIREMENT_COLUMNS) if report.get("requirements") else []
    rows: list[list[Any]] = [["id", *tests, "total", *extra]]
    for s in report["students"]:
        earned = {r["test"]: r["earned"] for r in s["results"]}
        if not s.get("graded", True):
            earned = dict.fromkeys(tests, "")
        more = _requirement_cells(s) if extra else []
        rows.append([s["id"], *(earned.get(t, 0) for t in tests), score_cell(s), *more])
    return spreadsheet_csv(rows)


def write_wide_csv(report: dict[str, Any], path: Path) -> Path:
    """Write to_wide_csv(report) to `path` (the grader's one line for it)."""
    path.write_text(to_wide_csv(report))
    return path
