"""What an upload's grading says, as each reader may see it.

An upload's results are its grading's grades.json (written by the grader
from the gradebook); a student sees the public tests' results and the
public feedback until the results are released, a teacher sees all. The
class as a whole is the counting upload of every student: the last one
before the deadline (or the last one, when late uploads count).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from plpuzzle.sudoku.grading.model import Grade, TestGrade
from plpuzzle.sudoku.grading.report import StudentGrades, build
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.store import Upload, User
from plpuzzle.sudoku.services.suite import discover


@dataclass
class Results:
    """One upload's results as one reader sees them."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    score: float | None = None
    max_score: float | None = None
    #: Every test shown (released, or a teacher), or the public ones only.
    complete: bool = False
    #: Tests the reader does not see yet.
    hidden: int = 0
    feedback: Path | None = None
    notes: list[str] = field(default_factory=list)


def grading_report(service: Service, upload: Upload) -> dict[str, Any] | None:
    """The upload's latest grades.json, as the grader wrote it."""
    if upload.reports is None:
        return None
    path = service.data / upload.reports / "grades.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def report_row(service: Service, upload: Upload) -> dict[str, Any] | None:
    """The student's row of the upload's latest grades.json."""
    students = (grading_report(service, upload) or {}).get("students") or []
    return students[0] if students else None


def results_for(service: Service, upload: Upload, login: str, everything: bool) -> Results:
    """The results of `upload` (of student `login`), all of them when
    `everything` (a teacher, or released), else the public tests'."""
    row = report_row(service, upload)
    if row is None:
        return Results(complete=everything)
    folder = service.data / str(upload.reports)
    if everything:
        feedback = folder / "feedback" / f"{login}.html"
        return Results(row["results"], row["score"], row["max_score"], True, 0,
                       feedback if feedback.is_file() else None, row.get("notes", []))  # fmt: skip
    shown = [r for r in row["results"] if service.course.is_public(r["test"])]
    feedback = folder / "public" / "feedback" / f"{login}.html"
    return Results(
        shown, upload.public_score, upload.public_max, False, len(row["results"]) - len(shown),
        feedback if feedback.is_file() and shown else None, row.get("notes", []),
    )  # fmt: skip


def counting(service: Service, uploads: list[Upload]) -> Upload | None:
    """The upload that counts among one student's (newest first or not)."""
    kept = [u for u in uploads if not u.late or service.course.late == "counted"]
    return max(kept, key=lambda u: u.id, default=None)


def counting_uploads(service: Service) -> dict[str, Upload | None]:
    """Every student's counting upload (None: nothing counts yet), by login."""
    with service.store.session() as db:
        students = list(db.scalars(select(User).where(User.role == "student")))
        uploads = list(db.scalars(select(Upload)))
    mine: dict[int, list[Upload]] = {}
    for upload in uploads:
        mine.setdefault(upload.user_id, []).append(upload)
    return {s.login: counting(service, mine.get(s.id, [])) for s in students}


def tests_that_count(service: Service) -> list[str]:
    return [c.name for c in discover(service.suite) if service.points.counts(c.name)]


def _grades(login: str, row: dict[str, Any] | None, tests: list[str], why: str) -> list[TestGrade]:
    if row is None:
        return [TestGrade(login, t, Grade.MISSING, why) for t in tests]
    by_test = {r["test"]: r for r in row["results"]}
    out = []
    for t in tests:
        r = by_test.get(t)
        if r is None:
            out.append(TestGrade(login, t, Grade.MISSING, "not graded"))
            continue
        out.append(TestGrade(login, t, Grade(r["grade"]), r["detail"], r["evidence"],
                             r["solutions"], r["cpu_seconds"], r["wall_seconds"],
                             r.get("ran_on", "")))  # fmt: skip
    return out


def class_report(service: Service) -> dict[str, Any]:
    """The class report (as `sudoku grade` writes it) of the counting
    uploads; a student with none is missing, one still grading too."""
    tests = tests_that_count(service)
    students = []
    policy = None  # the course requirements' policy, as the gradings applied it
    for login, upload in sorted(counting_uploads(service).items()):
        report = grading_report(service, upload) if upload is not None else None
        rows = (report or {}).get("students") or []
        row = rows[0] if rows else None
        why = "no upload" if upload is None else f"upload {upload.id} is {upload.state}"
        notes = list(row.get("notes", [])) if row else [why]
        submission = f"upload {upload.id}" if upload is not None else ""
        found = row.get("requirements") if row else None
        policy = policy or (report or {}).get("requirements")
        students.append(StudentGrades(login, submission, _grades(login, row, tests, why), notes,
                                      requirements=found))  # fmt: skip
    built = build(students, tests, service.points, service.grade_settings)
    if policy and any(s.requirements is not None for s in students):
        built["requirements"] = policy  # the CSVs' and the page's requirement columns
    return built
