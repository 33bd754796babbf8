"""A teacher's grading run: submissions in, gradebook kept, reports out.

The command line only parses options and prints; this module does the
work: checks that the machine can sandbox, reads the submissions and the
suite, grades what the gradebook does not hold yet (grading), and writes
grades.csv, grades.json and grades.html.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from plpuzzle.sandbox import cgroups, jail
from plpuzzle.sandbox.program import LoadReport, SandboxSetupError
from plpuzzle.sandbox.workspace import WorkspaceError, new_run_id, run_is_alive
from plpuzzle.sudoku.domain.textformat import FormatError
from plpuzzle.sudoku.presentation.class_report import StudentGrades, write_wide_csv
from plpuzzle.sudoku.presentation.class_report import build as build_report
from plpuzzle.sudoku.presentation.class_report import to_csv as report_csv
from plpuzzle.sudoku.presentation.class_report import to_json as report_json
from plpuzzle.sudoku.services.feedback import write_feedback
from plpuzzle.sudoku.services.gradebook import Gradebook
from plpuzzle.sudoku.services.grading import (
    ClassRun,
    GradeSettings,
    GradingError,
    Hooks,
    Points,
    Submission,
    TestGrade,
    case_key,
    find_submissions,
    grade_class,
    hidden_paths,
    load_points,
)
from plpuzzle.sudoku.services.suite import SuiteCase, discover, load_case


class SetupProblem(Exception):
    """The machine cannot grade safely (no SWI-Prolog, no bubblewrap)."""


@dataclass
class GradingRequest:
    submissions: Path
    suite: Path
    settings: GradeSettings
    report_dir: Path
    db: Path | None = None
    points_file: Path | None = None
    jobs: int = 1


@dataclass
class GradingOutcome:
    report: dict
    new: int
    reused: int
    db: Path
    paths: list[Path]
    run: ClassRun
    warnings: list[str] = field(default_factory=list)


def check_machine() -> list[str]:
    """Raise SetupProblem when grading cannot be made safe; return warnings."""
    if shutil.which("swipl") is None:
        raise SetupProblem(
            "SWI-Prolog (swipl) is not installed: install the Debian package swi-prolog-nox "
            "(make setup does)"
        )
    if jail.bubblewrap(jail.sandbox_uid(0)) is None:
        raise SetupProblem(
            "bubblewrap cannot build a sandbox here, and submissions are never run without "
            "one: install the Debian package bubblewrap, and allow unprivileged user "
            "namespaces (sysctl user.max_user_namespaces > 0)"
        )
    warnings = []
    if cgroups.layout() is None:
        warnings.append(
            "no writable control groups (run as root for them): CPU time and memory are "
            "sampled from the sandbox's process tree in /proc, memory is limited per process "
            "(address space), and the number of processes per uid"
        )
    if os.geteuid() != 0:
        warnings.append("not root: submissions run under your own uid, inside the sandbox")
    return warnings


def release_dead_claims(book: Gradebook, host: str) -> None:
    """Drop the claims of graders on this machine that are gone (killed)."""
    for other in book.claim_owners():
        other_host, _, run_id = other.partition(":")
        if other_host == host and run_is_alive(run_id) is False:
            book.release_claims(other)


def load_cases(request: GradingRequest, points: Points) -> list[SuiteCase]:
    suite = request.suite
    if not suite.is_dir():
        raise GradingError(f"{suite}: no such suite folder (use --suite DIR)")
    cases = discover(suite)
    if points.only is not None:
        unknown = sorted(set(points.only) - {c.name for c in cases})
        if unknown:
            raise GradingError(
                f"{request.points_file}: no such test(s) in {suite}: {', '.join(unknown)}"
            )
        cases = [c for c in cases if points.counts(c.name)]
    if not cases:
        raise GradingError(f"{suite}: no testNNNd.txt puzzles")
    for case in cases:
        try:
            load_case(case)
        except FormatError as e:
            raise GradingError(str(e)) from None
    return cases


def grade(
    request: GradingRequest, on_start: Callable[[int], Callable[[], None]] | None = None
) -> GradingOutcome:
    """Grade the class of `request`; `on_start(total)` returns a per-grade tick."""
    warnings = check_machine()
    subs = find_submissions(request.submissions)
    points = load_points(request.points_file) if request.points_file else Points()
    cases = load_cases(request, points)
    request.report_dir.mkdir(parents=True, exist_ok=True)
    db = request.db or request.report_dir / "grades.sqlite"
    settings = request.settings
    skey = settings.key()
    ckeys = {c.name: case_key(c) for c in cases}
    host = socket.gethostname()
    owner = f"{host}:{new_run_id()}"
    lease = settings.wall_seconds * 2 + 120
    tick = on_start(len(subs) * len(cases)) if on_start else (lambda: None)
    grades: dict[tuple[str, str], TestGrade] = {}
    counts = {"new": 0, "reused": 0}
    with Gradebook(db) as book:

        def stored(sub: Submission, case: SuiteCase) -> TestGrade | None:
            return book.get(sub, case.name, ckeys[case.name], skey)

        def claim(sub: Submission, case: SuiteCase) -> bool:
            key = (sub.digest, case.name, ckeys[case.name], skey)
            if book.claim(*key, owner, lease):
                return True
            release_dead_claims(book, host)  # a grader killed here need not hold us up
            return book.claim(*key, owner, lease)

        def loaded(sub: Submission, report: LoadReport) -> None:
            book.put_load(sub.digest, skey, "\n".join(report.messages))

        def record(sub: Submission, case: SuiteCase, g: TestGrade, fresh: bool) -> None:
            if fresh:
                book.put(sub, ckeys[case.name], skey, g)
            counts["new" if fresh else "reused"] += 1
            grades[(sub.student, case.name)] = g
            tick()

        hidden = hidden_paths(request.suite, request.report_dir, request.submissions, db)
        try:
            hooks = Hooks(stored, record, claim, loaded)
            run = grade_class(subs, cases, settings, hooks, request.jobs, hidden)
        except (SandboxSetupError, WorkspaceError) as e:
            raise SetupProblem(str(e)) from None
        finally:
            book.release_claims(owner)
        students = [
            StudentGrades(
                s.student,
                str(s.solver),
                [grades[(s.student, c.name)] for c in cases],
                s.notes(book.get_load(s.digest, skey) or ""),
            )
            for s in subs
        ]
    report = build_report(students, [c.name for c in cases], points, settings)
    paths = [request.report_dir / n for n in ("grades.csv", "grades.json", "grades.html")]
    from plpuzzle.sudoku.presentation.class_html import render_html

    paths[0].write_text(report_csv(report))
    paths[1].write_text(report_json(report))
    paths[2].write_text(render_html(report))
    paths.append(write_wide_csv(report, request.report_dir / "grades-wide.csv"))
    paths.append(write_feedback(
        request.report_dir, students, cases, settings,
        points=points, submissions=subs, hidden=hidden, jobs=request.jobs,
    ))  # fmt: skip
    warnings += run.problems
    return GradingOutcome(report, counts["new"], counts["reused"], db, paths, run, warnings)
