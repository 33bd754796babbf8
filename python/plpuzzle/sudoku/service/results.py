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
from plpuzzle.sudoku.service.store import Document, Upload, User, arrival_key, by_arrival


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
    #: Of the tests the reader may see, those not graded yet (the upload's
    #: public tests are graded, the others wait or were never graded).
    ungraded: int = 0


def grading_report(service: Service, folder: str | None) -> dict[str, Any] | None:
    """The grades.json of a reports folder (relative to the data folder),
    as the grader wrote it."""
    if folder is None:
        return None
    path = service.data / folder / "grades.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def report_row(service: Service, folder: str | None) -> dict[str, Any] | None:
    """The student's row of a reports folder's grades.json."""
    students = (grading_report(service, folder) or {}).get("students") or []
    return students[0] if students else None


def _file(path: Path) -> Path | None:
    return path if path.is_file() else None


def results_for(service: Service, upload: Upload, login: str, everything: bool) -> Results:
    """The results of `upload` (of student `login`), all of them when
    `everything` (a teacher, or released), else the public tests'. Before
    its every test is graded, what its public stage found."""
    full, early = report_row(service, upload.reports), report_row(service, upload.early)
    course = service.course
    if full is None and early is None:
        return Results(complete=everything)
    if everything and full is not None:
        folder = service.data / str(upload.reports)
        return Results(full["results"], full["score"], full["max_score"], True, 0,
                       _file(folder / "feedback" / f"{login}.html"),
                       full.get("notes", []))  # fmt: skip
    if full is not None and not everything:
        shown = [r for r in full["results"] if course.is_public(r["test"])]
        folder = service.data / str(upload.reports)
        # The public stage's feedback; a grading before stages had a view of its own.
        feedback = (
            _file(service.data / upload.early / "feedback" / f"{login}.html")
            if upload.early
            else _file(folder / "public" / "feedback" / f"{login}.html")
        )
        if feedback is None and service.all_public():
            feedback = _file(folder / "feedback" / f"{login}.html")
        return Results(shown, upload.public_score, upload.public_max, False,
                       len(full["results"]) - len(shown), feedback if shown else None,
                       full.get("notes", []))  # fmt: skip
    assert early is not None  # only the public stage is graded (so far)
    shown = early["results"]
    feedback = _file(service.data / str(upload.early) / "feedback" / f"{login}.html")
    others = max(0, len(service.tests) - len(shown))
    return Results(shown, upload.public_score, upload.public_max, False,
                   0 if everything else others, feedback if shown else None,
                   early.get("notes", []), ungraded=others if everything else 0)  # fmt: skip


def counting(service: Service, uploads: list[Upload]) -> Upload | None:
    """The upload that counts among one student's (in any order): the last
    to arrive of those that may count."""
    kept = [u for u in uploads if not u.late or service.course.late == "counted"]
    return max(kept, key=arrival_key, default=None)


def counting_uploads(service: Service) -> dict[str, Upload | None]:
    """Every student's counting upload (None: nothing counts yet), by login."""
    with service.store.session() as db:
        students = list(db.scalars(select(User).where(User.role == "student")))
        uploads = list(db.scalars(select(Upload)))
    mine: dict[int, list[Upload]] = {}
    for upload in uploads:
        mine.setdefault(upload.user_id, []).append(upload)
    return {s.login: counting(service, mine.get(s.id, [])) for s in students}


def late_only(service: Service) -> dict[str, Upload]:
    """Students whose every upload came after the deadline and does not
    count: their last one, by login."""
    if service.course.late == "counted":
        return {}
    with service.store.session() as db:
        rows = db.execute(select(Upload, User.login).join(User, User.id == Upload.user_id)
                          .where(User.role == "student")).all()  # fmt: skip
    mine: dict[str, list[Upload]] = {}
    for upload, login in rows:
        mine.setdefault(login, []).append(upload)
    return {login: max(ups, key=arrival_key) for login, ups in mine.items()
            if all(u.late for u in ups)}  # fmt: skip


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
    tests = service.tests
    students = []
    policy = None  # the course requirements' policy, as the gradings applied it
    documents = counting_documents(service)
    for login, upload in sorted(counting_uploads(service).items()):
        report = grading_report(service, upload.reports) if upload is not None else None
        rows = (report or {}).get("students") or []
        row = rows[0] if rows else None
        why = "no upload" if upload is None else f"upload {upload.id} is {_progress(upload)}"
        notes = list(row.get("notes", [])) if row else [why]
        submission = f"upload {upload.id}" if upload is not None else ""
        found = row.get("requirements") if row else None
        if found is not None:
            found = with_documentation(found, documents.get(login))
        policy = policy or (report or {}).get("requirements")
        students.append(StudentGrades(login, submission, _grades(login, row, tests, why), notes,
                                      requirements=found))  # fmt: skip
    built = build(students, tests, service.points, service.grade_settings)
    if policy and any(s.requirements is not None for s in students):
        built["requirements"] = policy  # the CSVs' and the page's requirement columns
    return built


def counting_documents(service: Service) -> dict[str, tuple[str, int]]:
    """The documentation handed in apart from the program that counts, by
    login: (name, bytes)."""
    with service.store.session() as db:
        rows = db.execute(select(Document, User.login).join(User, User.id == Document.user_id)
                          .order_by(*by_arrival(Document))).all()  # fmt: skip
    out: dict[str, tuple[str, int]] = {}
    for document, login in rows:  # the last to arrive that counts wins
        if not document.late or service.course.late == "counted":
            out[login] = (document.name, document.size)
    return out


def with_documentation(found: dict[str, Any], document: tuple[str, int] | None) -> dict[str, Any]:
    """A grading's course requirements with the documentation handed in
    apart (if any) counted: present, and no deduction for its lack."""
    if document is None or found.get("documentation") is None:
        return found
    doc = dict(found["documentation"])
    doc["present"] = True
    doc["files"] = [*doc.get("files", []), {"name": f"(apart) {document[0]}", "bytes": document[1]}]
    deductions = [d for d in found.get("deductions", []) if d.get("requirement") != "documentation"]
    total = sum(d["points"] for d in deductions)
    return {**found, "documentation": doc, "deductions": deductions,
            "deduction": int(total) if float(total).is_integer() else round(total, 3)}  # fmt: skip


def _progress(upload: Upload) -> str:
    """Where an upload not graded in full stands, in words."""
    if upload.state == "replaced":
        return f"replaced by upload {upload.replaced_by} before it was graded"
    if upload.early is not None:
        return f"{upload.state}: its public tests are graded, the others wait"
    return upload.state
