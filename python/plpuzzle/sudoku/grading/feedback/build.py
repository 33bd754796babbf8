"""Feedback a student can act on: one file per student, built from the grades.

The class report is for the teacher; a student needs something else: the
score, which tests failed and how, and for a wrong answer a board they can
look at with the broken rule named ("the box at rows 1-2, columns 1-2
holds 2 twice"), not a nested list. An error (timeout, crash, a file that
does not load) is told once, with the tests it hit, not once per test.

For a wrong answer, the student's solver is also run again in the sandbox
on smaller and smaller puzzles (shrink.py) to find the smallest one
it still gets wrong: a puzzle they can paste into their own tests. That
costs solver runs, so it is bounded per test and per student, done for
the first few wrong tests only, and kept in the report folder
(feedback/shrunk.json) so a later run of the same grading does not redo it.

The data is built here; render.py draws it as
Markdown and HTML.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plpuzzle import i18n
from plpuzzle.sandbox import jail
from plpuzzle.sandbox.workspace import RunFolder
from plpuzzle.sudoku.domain.evidence import GridEvidence, describe, grids_in_evidence
from plpuzzle.sudoku.domain.model import Puzzle, grid_from_lists
from plpuzzle.sudoku.domain.textformat import FormatError, parse_puzzle
from plpuzzle.sudoku.grading.feedback.model import (
    ErrorGroup,
    Shrunk,
    StudentFeedback,
    TestFeedback,
    to_json,
)
from plpuzzle.sudoku.grading.feedback.shrink import (
    Counterexample,
    SandboxSolver,
    ShrinkBudget,
    shrink,
)
from plpuzzle.sudoku.grading.intake import id_problem
from plpuzzle.sudoku.grading.model import Grade, GradeSettings, Submission, TestGrade, case_key
from plpuzzle.sudoku.runs.suite import SuiteCase, load_case
from plpuzzle.sudoku.runs.suite_config import Points
from plpuzzle.untrusted import one_line

if TYPE_CHECKING:
    from plpuzzle.sudoku.grading.report import StudentGrades

#: The folder of the report folder that holds the feedback files.
FEEDBACK_FOLDER = "feedback"
#: Where shrunk counterexamples are kept between runs.
CACHE_NAME = "shrunk.json"

#: Grades that are errors: told once per kind, with the tests they hit.
ERROR_GRADES = (
    Grade.NO_SUBMISSION,
    Grade.NOT_LOADABLE,
    Grade.LOAD_ERROR,
    Grade.TIMEOUT,
    Grade.MEMORY,
    Grade.CRASHED,
    Grade.ERROR,
)

#: The measured part of a timeout's detail, which differs from test to test
#: (judging.measured; and the older forms, "(CPU 5.00 s of 6.36 s)").
_MEASURED = re.compile(
    r" \((?:[0-9.]+ s of CPU time, [0-9.]+ s on the clock"
    r"|CPU [0-9.]+ s(?:,| of) (?:wall )?[0-9.]+ s)\)$"
)


@dataclass(frozen=True)
class ShrinkPolicy:
    """How much shrinking a class's feedback may cost."""

    budget: ShrinkBudget = field(default_factory=ShrinkBudget)
    #: Wrong tests shrunk per student (the first ones, in suite order).
    tests_per_student: int = 2
    #: Wall-clock seconds per student, over all their shrunk tests.
    seconds_per_student: float = 40.0

    @classmethod
    def per_student(cls, seconds: float) -> ShrinkPolicy:
        """`seconds` for each student, and an equal share of it as each
        shrunk test's own bound: more seconds buy every test more runs,
        where a fixed bound per test would cut a slow machine's search
        short whatever the teacher gave."""
        plain = cls()
        share = seconds / plain.tests_per_student
        return cls(dataclasses.replace(plain.budget, seconds=share), seconds_per_student=seconds)


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 3)


def error_groups(grades: list[TestGrade]) -> list[ErrorGroup]:
    """Errors grouped by kind and message, in the order they first occur.

    A timeout's detail ends with the CPU and wall time of that test, so
    timeouts are grouped without it.
    """
    groups: dict[tuple[str, str], ErrorGroup] = {}
    for g in grades:
        if g.grade not in ERROR_GRADES:
            continue
        message = _MEASURED.sub("", g.detail) or g.grade.value
        key = (g.grade.value, message)
        if key not in groups:
            groups[key] = ErrorGroup(g.grade.value, message, [], g.evidence)
        groups[key].tests.append(g.test)
    return list(groups.values())


def wrong_details(
    g: TestGrade, puzzle: Puzzle | None, settings: GradeSettings
) -> tuple[GridEvidence | None, GridEvidence | None, list[str]]:
    """The first extra and first missing solution of a wrong test, as boards."""
    other = [
        line
        for line in g.evidence.splitlines()
        if line and not line.startswith(("first missing solution:", "first extra solution:"))
    ]
    if puzzle is None:
        return None, None, other
    grids = grids_in_evidence(g.evidence, puzzle.n)
    extra = describe(puzzle, grids["extra"], settings.rules) if "extra" in grids else None
    missing = (
        describe(puzzle, grids["missing"], settings.rules, "missing")
        if "missing" in grids
        else None
    )
    return extra, missing, other


def shrunk_view(found: Counterexample, settings: GradeSettings) -> Shrunk:
    m = found.mismatch
    extra = describe(found.puzzle, m.extra[0], settings.rules) if m.extra else None
    missing = describe(found.puzzle, m.missing[0], settings.rules, "missing") if m.missing else None
    return Shrunk(
        found.puzzle, found.original_k, found.original_infos, m.ours, len(m.theirs),
        extra, missing, m.duplicates, m.malformed, found.runs, found.seconds, found.stopped,
    )  # fmt: skip


def build_feedback(
    student: StudentGrades,
    cases: list[SuiteCase],
    settings: GradeSettings,
    points: Points | None = None,
    shrunk: dict[str, Shrunk | str] | None = None,
    tell_identical: bool = False,
) -> StudentFeedback:
    """One student's feedback from their grades; `shrunk` holds, per test,
    a counterexample or the reason there is none. Feedback is for one
    student: the others who handed in the same files are named only with
    `tell_identical` (the teacher's choice; the teacher's reports always
    name them)."""
    points = points or Points()
    shrunk = shrunk or {}
    puzzles: dict[str, Puzzle | None] = {}
    for case in cases:
        try:
            puzzles[case.name] = load_case(case)[0]
        except FormatError:
            puzzles[case.name] = None
    tests = []
    score = 0.0
    for g in student.grades:
        earned = points.of(g.test) if g.grade is Grade.CORRECT else 0.0
        score += earned
        t = TestFeedback(g.test, g.grade.value, _number(points.of(g.test)), _number(earned))
        if g.grade is Grade.WRONG:
            t.detail = g.detail
            t.extra, t.missing, t.other = wrong_details(g, puzzles.get(g.test), settings)
            found = shrunk.get(g.test)
            if isinstance(found, Shrunk):
                t.shrunk = found
            elif isinstance(found, str):
                t.shrink_note = found
        elif g.grade is not Grade.CORRECT:
            t.detail = _MEASURED.sub("", g.detail)
        tests.append(t)
    required = student.requirements
    if required is not None:  # the points the suite's [requirements] take off
        score = max(0.0, score - required.get("deduction", 0))
    return StudentFeedback(
        student.student,
        _number(score),
        _number(sum(points.of(g.test) for g in student.grades)),
        settings.rules.value,
        tests,
        error_groups(student.grades),
        list(student.notes),
        list(student.identical_to) if tell_identical else [],
        required,
    )


# --- shrinking, cached ------------------------------------------------------


def _cache_key(
    sub: Submission, case: SuiteCase, settings: GradeSettings, policy: ShrinkPolicy
) -> str:
    b = policy.budget
    return (
        f"{sub.digest}:{case_key(case)}:{settings.key()}:"
        f"{b.seconds:g}/{b.runs}/{b.max_solutions}/{b.run_seconds:g}"
    )


def _to_json(found: Shrunk | str) -> Any:
    if isinstance(found, str):
        return {"note": found}
    return {
        "puzzle": found.text,
        "original_k": found.original_k,
        "original_infos": found.original_infos,
        "ours": [list(map(list, g)) for g in found.ours],
        "theirs_count": found.theirs_count,
        "extra": list(map(list, found.extra.grid)) if found.extra else None,
        "missing": list(map(list, found.missing.grid)) if found.missing else None,
        "duplicates": found.duplicates,
        "malformed": found.malformed,
        "runs": found.runs,
        "seconds": found.seconds,
        "stopped": found.stopped,
    }


def _from_json(data: Any, settings: GradeSettings) -> Shrunk | str | None:
    """A cached entry, or None when it cannot be read (then shrink again)."""
    try:
        if "note" in data:
            return str(data["note"])
        puzzle = parse_puzzle(data["puzzle"])
        rules = settings.rules
        extra = describe(puzzle, grid_from_lists(data["extra"]), rules) if data["extra"] else None
        missing = (
            describe(puzzle, grid_from_lists(data["missing"]), rules, "missing")
            if data["missing"]
            else None
        )
        return Shrunk(
            puzzle, int(data["original_k"]), int(data["original_infos"]),
            [grid_from_lists(g) for g in data["ours"]], int(data["theirs_count"]),
            extra, missing, int(data["duplicates"]), int(data["malformed"]),
            int(data["runs"]), float(data["seconds"]), str(data["stopped"]),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError, FormatError):
        return None


def _in_cache(
    grades: list[TestGrade],
    cases: list[SuiteCase],
    sub: Submission,
    settings: GradeSettings,
    policy: ShrinkPolicy,
    cache: dict[str, Any],
) -> tuple[dict[str, Shrunk | str], list[tuple[TestGrade, str]]]:
    """The first wrong tests of a submission that the policy shrinks: those
    found in `cache` (by test), and the others with their cache keys."""
    by_name = {c.name: c for c in cases}
    wrong = [g for g in grades if g.grade is Grade.WRONG and g.test in by_name]
    found: dict[str, Shrunk | str] = {}
    todo = []
    for g in wrong[: policy.tests_per_student]:
        key = _cache_key(sub, by_name[g.test], settings, policy)
        cached = _from_json(cache[key], settings) if key in cache else None
        if cached is not None:
            found[g.test] = cached
        else:
            todo.append((g, key))
    return found, todo


def shrink_student(
    sub: Submission,
    grades: list[TestGrade],
    cases: list[SuiteCase],
    settings: GradeSettings,
    policy: ShrinkPolicy,
    cache: dict[str, Any],
    run: RunFolder,
    slot: int | None = None,
    hidden: list[Path] | None = None,
) -> dict[str, Shrunk | str]:
    """Counterexamples for the first wrong tests of one submission.

    The submission is loaded once in a sandbox of its own and run on
    every candidate puzzle. New results are added to `cache`.
    """
    by_name = {c.name: c for c in cases}
    out, todo = _in_cache(grades, cases, sub, settings, policy, cache)
    if not todo:
        return out
    budget = policy.budget
    base = settings.limits()
    limits = dataclasses.replace(
        base,
        cpu_seconds=min(base.cpu_seconds, budget.run_seconds),
        wall_seconds=min(base.wall_seconds, 2 * budget.run_seconds + 10),
    )
    start = time.monotonic()
    with SandboxSolver(
        run, sub.files, sub.files.main, settings.dialect, limits, hidden or [], slot
    ) as solver:
        for g, key in todo:
            left = policy.seconds_per_student - (time.monotonic() - start)
            if left <= 0:
                out[g.test] = "not tried: this student's time for shrinking was used up"
                continue  # not cached: a later run with more time may try
            puzzle = load_case(by_name[g.test])[0]
            test_budget = ShrinkBudget(
                min(budget.seconds, left), budget.runs, budget.max_solutions, budget.run_seconds
            )
            outcome = shrink(solver, puzzle, settings.rules, test_budget)
            result: Shrunk | str = (
                shrunk_view(outcome.counterexample, settings)
                if outcome.counterexample is not None
                else outcome.reason
            )
            out[g.test] = result
            cache[key] = _to_json(result)
    return out


def write_feedback(
    report_dir: Path,
    students: list[StudentGrades],
    cases: list[SuiteCase],
    settings: GradeSettings,
    *,
    points: Points | None = None,
    submissions: list[Submission] | None = None,
    policy: ShrinkPolicy | None = ShrinkPolicy(),
    hidden: list[Path] | None = None,
    jobs: int = 1,
    on_search: Callable[[int], None] | None = None,
    problems: list[str] | None = None,
    tell_identical: bool = False,
    language: Callable[[str], str] = lambda student: "en",
) -> Path:
    """Write feedback/<student>.md and .html into `report_dir`, each in
    the student's `language` (grader.feedback_language), and the data they
    are drawn from as feedback/<student>.json (for a page that draws it
    in its reader's language); return that folder.

    Each student's files are written on their own: what goes wrong with
    one is added to `problems`, in words, and the others are written.
    A student whose id is no file name (see intake.id_problem) gets files
    named by feedback_name. Other students are never named, unless
    `tell_identical` (see build_feedback).

    With `submissions` (and a `policy`), wrong tests get a shrunk
    counterexample, found by running the submission in the sandbox;
    without them, the feedback is built from the grades alone. `jobs`
    submissions are shrunk at a time, each in a sandbox of its own.
    `on_search(n)` is told, before it starts, that n students will be
    searched: those whose counterexamples are not all in the cache already.
    """
    from plpuzzle.sudoku.grading.feedback.render import to_html, to_markdown

    folder = report_dir / FEEDBACK_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    shrunk: dict[str, dict[str, Shrunk | str]] = {}
    if submissions and policy is not None:
        shrunk = _shrink_class(
            folder, students, submissions, cases, settings, policy, hidden, jobs, on_search
        )
    for s in sorted(students, key=lambda s: s.student):
        try:  # one student's feedback, never the class's
            found = shrunk.get(s.student)
            feedback = build_feedback(s, cases, settings, points, found, tell_identical)
            with i18n.speaking(language(s.student)):
                texts = [(".md", to_markdown(feedback)), (".html", to_html(feedback))]
            data = json.dumps(to_json(feedback), ensure_ascii=False, sort_keys=True)
            for suffix, text in [*texts, (".json", data + "\n")]:
                (folder / f"{feedback_name(s.student)}{suffix}").write_text(text, encoding="utf-8")
        except Exception as e:
            words = one_line(f"{type(e).__name__}: {e}", 300)
            if problems is not None:
                problems.append(f"{s.student}: no feedback file could be written ({words})")
    return folder


def feedback_name(student: str) -> str:
    """The name of a student's feedback files, without the suffix: the id
    itself when it is a student id, else a name made from it that any file
    system takes (letters, digits, . _ -, short) and that no other id gets."""
    if id_problem(student) is None:
        return student
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", student).strip("._-")[:40] or "id"
    return (
        f"{readable}-{hashlib.sha256(student.encode('utf-8', 'surrogateescape')).hexdigest()[:12]}"
    )


def _shrink_class(
    folder: Path,
    students: list[StudentGrades],
    submissions: list[Submission],
    cases: list[SuiteCase],
    settings: GradeSettings,
    policy: ShrinkPolicy,
    hidden: list[Path] | None,
    jobs: int,
    on_search: Callable[[int], None] | None = None,
) -> dict[str, dict[str, Shrunk | str]]:
    cache_path = folder / CACHE_NAME
    try:
        cache: dict[str, Any] = json.loads(cache_path.read_text(encoding="utf-8"))
        if not isinstance(cache, dict):
            cache = {}
    except (OSError, ValueError):
        cache = {}
    subs = {s.student: s for s in submissions}
    work = [
        (subs[s.student], s.grades)
        for s in students
        if s.student in subs and any(g.grade is Grade.WRONG for g in s.grades)
    ]
    out: dict[str, dict[str, Shrunk | str]] = {}
    searched = sum(bool(_in_cache(g, cases, sub, settings, policy, cache)[1]) for sub, g in work)
    if searched and on_search is not None:
        on_search(searched)
    jobs = max(1, jobs)
    with RunFolder() as run, ThreadPoolExecutor(max_workers=jobs) as pool:

        def one(item: tuple[Submission, list[TestGrade]]) -> None:
            sub, grades = item
            try:
                # A slot is a sandbox uid, claimed machine-wide: no two
                # sandboxes running at once share one.
                with jail.claim_slot() as slot:
                    out[sub.student] = shrink_student(
                        sub, grades, cases, settings, policy, cache, run, slot, hidden
                    )
            except Exception as e:  # the feedback goes on without it
                words = one_line(f"{type(e).__name__}: {e}", 300)
                out[sub.student] = {g.test: f"the search failed: {words}" for g in grades}

        list(pool.map(one, work))
    # Only entries of this class are kept: the cache does not grow forever.
    keys = {_cache_key(subs[s], c, settings, policy) for s in out for c in cases}
    kept = {k: v for k, v in cache.items() if k in keys}
    cache_path.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out
