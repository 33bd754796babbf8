"""What every scheduler shares: the `Scheduler` protocol, the hooks to the
gradebook, and the two steps before any run (what is still to grade, and
identical hand-ins run once).

The grader builds one `Scheduler` from the request and hands it the
submissions, the cases, the settings and the gradebook's hooks; how the
(submission, test) pairs are spread is the scheduler's business.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from plpuzzle.sandbox.program import LoadReport
from plpuzzle.sudoku.grading.model import GradeSettings, Submission, TestGrade
from plpuzzle.sudoku.runs.suite import SuiteCase

Pair = tuple[Submission, SuiteCase]


@dataclass
class Hooks:
    """How grading talks to its gradebook and its caller.

    `stored` returns a grade kept from before (or None); `claim` says
    whether this grader may run a pair now (another grader sharing the
    gradebook may be running it); `record` gets every grade, with
    whether it is new, and is always called from the calling thread;
    `loaded` gets the first load report of every submission loaded.
    """

    stored: Callable[[Submission, SuiteCase], TestGrade | None]
    record: Callable[[Submission, SuiteCase, TestGrade, bool], None]
    claim: Callable[[Submission, SuiteCase], bool] = lambda sub, case: True
    #: Called once per submission loaded in this run (from a job slot's thread).
    loaded: Callable[[Submission, LoadReport], None] = lambda sub, report: None


@dataclass
class ClassRun:
    """What a grading run learnt besides the grades."""

    load_reports: dict[str, LoadReport] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class Scheduler(Protocol):
    """Runs every (submission, case) pair the hooks say is still to grade."""

    def run(
        self,
        subs: list[Submission],
        cases: list[SuiteCase],
        settings: GradeSettings,
        hooks: Hooks,
    ) -> ClassRun: ...


def still_to_grade(
    submissions: list[Submission], cases: list[SuiteCase], hooks: Hooks
) -> list[Pair]:
    """The pairs with no stored grade; the stored ones are recorded on the way,
    so a resumed grading reports them as it would have."""
    todo = []
    for sub in submissions:
        for case in cases:
            stored = hooks.stored(sub, case)
            if stored is not None:
                hooks.record(sub, case, stored, False)
            else:
                todo.append((sub, case))
    return todo


def share_runs(todo: list[Pair], hooks: Hooks) -> tuple[list[Pair], Hooks]:
    """Identical submissions (the same digest) run each test once: the
    pairs to run, and hooks that record the first student's grade for
    each twin too, as a row of the twin's own."""
    first: dict[tuple[str, str], Submission] = {}
    twins: dict[tuple[str, str], list[Submission]] = {}
    unique = []
    for sub, case in todo:
        key = (sub.digest, case.name)
        if key in first:
            twins.setdefault(key, []).append(sub)
        else:
            first[key] = sub
            unique.append((sub, case))
    if not twins:
        return todo, hooks

    def record(sub: Submission, case: SuiteCase, grade: TestGrade, fresh: bool) -> None:
        hooks.record(sub, case, grade, fresh)
        key = (sub.digest, case.name)
        if first.get(key) is sub:
            for twin in twins.get(key, []):
                hooks.record(twin, case, replace(grade, student=twin.student), fresh)

    return unique, replace(hooks, record=record)
