"""A student's grade, made in one place for every page, mail and export.

A grade joins what an upload's grading found (its grades.json: the
tests' verdicts and the course requirements as read from the files) with
what the service knows beside it: the documentation handed in apart (the
one that counts, by the late rules and the student's own deadline),
which tests the reader may see (every test for a teacher or once the
results are released, else the public ones) and the points the course
requirements take off. The score is then the class report's rule
(`grading.report.build`): the points of the tests shown, less the
deduction, never below 0. /me, an upload's page and its feedback, the
API's answer, the results mail, the class page and report and every
export render a `Grade` of `grade_of`, so they cannot disagree.

The deduction is shown with the public results too, before the release:
it comes from reading the files, not from the hidden tests, and a student
should learn of it while they can still mend it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from plpuzzle.i18n import _
from plpuzzle.sudoku.grading.model import Grade as Verdict
from plpuzzle.sudoku.grading.model import TestGrade
from plpuzzle.sudoku.grading.report import StudentGrades, build
from plpuzzle.sudoku.grading.requirements.words import lines as requirement_lines
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.results import (
    counting,
    counting_uploads,
    grading_report,
    report_row,
)
from plpuzzle.sudoku.service.store import Document, Upload, User, by_arrival

#: The documentation that counts: (file name, bytes), or None.
Paper = tuple[str, int] | None


@dataclass(frozen=True)
class Grade:
    """One student's grade on one upload, as one reader may see it."""

    login: str
    upload: Upload | None
    #: The reader sees every test (a teacher, the results released, or
    #: every test public).
    complete: bool
    #: What report.build takes: the tests shown, those not graded as missing.
    student: StudentGrades
    #: What report.build made of it: score, max_score, tests_score, counts,
    #: results, requirements (the documentation handed in apart counted).
    row: dict[str, Any]
    #: The tests shown and graded, by name.
    graded: frozenset[str] = frozenset()
    #: Tests the reader does not see yet.
    hidden: int = 0
    feedback: Path | None = None

    @property
    def score(self) -> float | None:
        """The points, after the course requirements' deduction; None while
        no test shown is graded (no upload, or none graded yet)."""
        return self.row["score"] if self.graded else None

    @property
    def max_score(self) -> float:
        return self.row["max_score"]

    @property
    def tests_score(self) -> float | None:
        """The tests' points before the deduction."""
        return self.row.get("tests_score", self.row["score"]) if self.graded else None

    @property
    def requirements(self) -> dict[str, Any] | None:
        """The course requirements as found (None: not checked yet, or off)."""
        return self.row.get("requirements")

    @property
    def deduction(self) -> float:
        return (self.requirements or {}).get("deduction", 0)

    @property
    def requirement_lines(self) -> list[tuple[str, str]]:
        """The requirements in words, as the feedback and the class report say them."""
        return requirement_lines(self.requirements) if self.requirements else []

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The results of the tests shown and graded, in suite order."""
        return [r for r in self.row["results"] if r["test"] in self.graded]

    @property
    def ungraded(self) -> int:
        """Tests shown but not graded (yet, or ever: a replaced upload)."""
        return len(self.row["results"]) - len(self.graded)

    @property
    def final(self) -> bool:
        """Every test shown is graded: the score is the whole grade the
        reader may see (the exports leave the rest blank)."""
        return bool(self.graded) and not self.ungraded

    @property
    def notes(self) -> list[str]:
        return self.student.notes

    @property
    def score_text(self) -> str:
        """The score in words, as every page and mail writes it, in the
        language in force (the reader's)."""
        if self.score is None:
            return "\u2013"
        text = f"{self.score:g} / {self.max_score:g}"
        if not self.complete:
            text = _("%(score)s on the public tests") % {"score": text}
        if self.deduction:
            text += " " + _("(%(tests)s from the tests, %(off)s taken off for the course "
                            "requirements)") % {"tests": f"{self.tests_score:g}",
                                                "off": f"{self.deduction:g}"}  # fmt: skip
        return text


def shown_tests(service: Service, everything: bool) -> list[str]:
    """The tests a reader sees: every one, or the public ones."""
    return list(service.tests) if everything else [t for t in service.tests
                                                   if service.course.is_public(t)]  # fmt: skip


def grade_of(service: Service, login: str, upload: Upload | None, everything: bool,
             paper: Paper | None = None, look_up: bool = True) -> Grade:  # fmt: skip
    """Student `login`'s grade on `upload` (None: no upload), every test's
    when `everything`, else the public tests'. `paper` is the student's
    counting documentation; with `look_up` (and no paper given) it is
    found here."""
    if paper is None and look_up:
        paper = counting_documents(service, login).get(login)
    tests = shown_tests(service, everything)
    full = report_row(service, upload.reports) if upload is not None else None
    early = report_row(service, upload.early) if upload is not None else None
    source = full or early
    why = "no upload" if upload is None else f"upload {upload.id} is {_progress(upload)}"
    found = with_documentation(full["requirements"], paper) if full and full.get(
        "requirements") is not None else None  # fmt: skip
    student = StudentGrades(login, f"upload {upload.id}" if upload is not None else "",
                            _grades(login, source, tests, why),
                            list(source.get("notes", [])) if source else [why],
                            requirements=found)  # fmt: skip
    row = build([student], tests, service.points, service.grade_settings)["students"][0]
    graded = frozenset(r["test"] for r in (source or {}).get("results", [])) & set(tests)
    feedback = _feedback(service, upload, login, everything, full) if graded else None
    complete = len(tests) == len(service.tests)
    return Grade(login, upload, complete, student, row, graded, len(service.tests) - len(tests),
                 feedback)  # fmt: skip


def _feedback(service: Service, upload: Upload | None, login: str, everything: bool,
              full: dict[str, Any] | None) -> Path | None:  # fmt: skip
    """The grader's feedback file the reader may see: the whole grading's,
    or its public stage's."""
    if upload is None:
        return None
    whole = service.data / str(upload.reports) / "feedback" / f"{login}.html"
    if full is not None and (everything or service.all_public()):
        return _file(whole)
    if upload.early:
        return _file(service.data / upload.early / "feedback" / f"{login}.html")
    # A grading before stages had a public view of its own.
    return _file(service.data / str(upload.reports) / "public" / "feedback" / f"{login}.html")


def _file(path: Path) -> Path | None:
    return path if path.is_file() else None


def student_grade(service: Service, user: User, everything: bool) -> Grade:
    """A student's grade: the one of their counting upload."""
    with service.store.session() as db:
        uploads = list(db.scalars(select(Upload).where(Upload.user_id == user.id)))
    return grade_of(service, user.login, counting(service, uploads), everything)


def class_grades(service: Service, everything: bool) -> dict[str, Grade]:
    """Every student's grade, by login (sorted)."""
    papers = counting_documents(service)
    return {login: grade_of(service, login, upload, everything, papers.get(login), False)
            for login, upload in sorted(counting_uploads(service).items())}  # fmt: skip


def class_report(service: Service, everything: bool = True,
                 grades: dict[str, Grade] | None = None) -> dict[str, Any]:  # fmt: skip
    """The class report (as `sudoku grade` writes it) of the students'
    grades: each row is the row of their Grade (a student with none, or
    one still grading, is missing there); `graded` says whether the row's
    score is a grade (every test shown is graded), `released` and
    `complete` whether it holds every test."""
    grades = grades if grades is not None else class_grades(service, everything)
    tests = shown_tests(service, everything)
    built = build([g.student for g in grades.values()], tests, service.points,
                  service.grade_settings)  # fmt: skip
    for row in built["students"]:
        row["graded"] = grades[row["id"]].final
    policy = next((r for g in grades.values() if g.upload is not None and g.requirements
                   and (r := _policy(service, g.upload)) is not None), None)  # fmt: skip
    if policy:
        built["requirements"] = policy  # the CSVs' and the page's requirement columns
    built["complete"] = everything
    built["released"] = service.released()
    return built


def _policy(service: Service, upload: Upload) -> dict[str, Any] | None:
    """The course requirements' policy as a grading applied it."""
    found = (grading_report(service, upload.reports) or {}).get("requirements")
    return found if isinstance(found, dict) else None


def _grades(login: str, row: dict[str, Any] | None, tests: list[str], why: str) -> list[TestGrade]:
    if row is None:
        return [TestGrade(login, t, Verdict.MISSING, why) for t in tests]
    by_test = {r["test"]: r for r in row["results"]}
    out = []
    for t in tests:
        r = by_test.get(t)
        if r is None:
            out.append(TestGrade(login, t, Verdict.MISSING, "not graded"))
            continue
        out.append(TestGrade(login, t, Verdict(r["grade"]), r["detail"], r["evidence"],
                             r["solutions"], r["cpu_seconds"], r["wall_seconds"],
                             r.get("ran_on", "")))  # fmt: skip
    return out


def counting_documents(service: Service, login: str | None = None) -> dict[str, tuple[str, int]]:
    """The documentation handed in apart from the program that counts, by
    login (everyone's, or one student's): (name, bytes)."""
    query = select(Document, User.login).join(User, User.id == Document.user_id)
    if login is not None:
        query = query.where(User.login == login)
    with service.store.session() as db:
        rows = db.execute(query.order_by(*by_arrival(Document))).all()
    out: dict[str, tuple[str, int]] = {}
    for document, owner in rows:  # the last to arrive that counts wins
        if not document.late or service.course.late == "counted":
            out[owner] = (document.name, document.size)
    return out


def with_documentation(found: dict[str, Any], document: Paper) -> dict[str, Any]:
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
    """Where an upload not graded in full stands, in English (a test's
    detail, said in the reader's language by grading.said)."""
    if upload.state == "replaced":
        return f"replaced by upload {upload.replaced_by} before it was graded"
    if upload.early is not None:
        return f"{upload.state}: its public tests are graded, the others wait"
    return upload.state
