"""Running a class's (submission, test) pairs on the local pool: each
submission loaded once in a sandbox, every test forked from it, every
slot busy to the last pair; results to the gradebook as they come.

Every grade is decided outside the sandbox, from what the sandbox could
not fake (judging.py); results go to the gradebook as soon as they are
known, keyed by the submission's content, the test's content and the
settings, so an interrupted grading resumes where it stopped.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plpuzzle.sandbox import jail
from plpuzzle.sandbox.program import (
    LoadReport,
    SandboxedProgram,
    SandboxSetupError,
)
from plpuzzle.sandbox.workspace import RunFolder
from plpuzzle.sudoku.grading.judging import (
    answer_cap,
    goal_for,
    grade_observation,
    grader_failed,
    load_error_grade,
    text_budget,
)
from plpuzzle.sudoku.grading.model import GradeSettings, Submission, TestGrade
from plpuzzle.sudoku.grading.scheduling.fair_share import Cancelled, Ticket, Turn
from plpuzzle.sudoku.grading.scheduling.protocol import (
    ClassRun,
    Hooks,
    Pair,
    share_runs,
    still_to_grade,
)
from plpuzzle.sudoku.runs.suite import SuiteCase, load_case


class _Plan:
    """The (submission, test) pairs still to grade, handed out to job slots.

    A slot asks for its next pair with the submission it has loaded; it
    gets another test of that one while there are any, otherwise a test
    of the submission with the most tests left, preferring one that no
    slot has loaded yet, so that loading is shared and no slot idles.
    """

    def __init__(self, pairs: list[tuple[Submission, SuiteCase]]) -> None:
        self._lock = threading.Lock()
        self._left: dict[str, deque[tuple[Submission, SuiteCase]]] = {}
        for sub, case in pairs:
            self._left.setdefault(sub.student, deque()).append((sub, case))
        self._loaded_by: dict[str, int] = {}
        self.deferred: deque[tuple[Submission, SuiteCase]] = deque()

    def next(self, current: str | None) -> tuple[Submission, SuiteCase] | None:
        with self._lock:
            if current and self._left.get(current):
                return self._left[current].popleft()
            if current:
                self._loaded_by[current] = self._loaded_by.get(current, 1) - 1
            candidates = [s for s, q in self._left.items() if q]
            if not candidates:
                return self.deferred.popleft() if self.deferred else None
            best = min(candidates, key=lambda s: (self._loaded_by.get(s, 0), -len(self._left[s])))
            self._loaded_by[best] = self._loaded_by.get(best, 0) + 1
            return self._left[best].popleft()

    def drop(self, student: str) -> list[tuple[Submission, SuiteCase]]:
        """Take every pair left of a submission (one that cannot load)."""
        with self._lock:
            taken = list(self._left.get(student, ()))
            self._left[student] = deque()
            return taken

    def only_deferred(self) -> bool:
        with self._lock:
            return not any(self._left.values())

    def defer(self, pair: tuple[Submission, SuiteCase]) -> None:
        with self._lock:
            self.deferred.append(pair)


#: The machine a run here happened on, for each fresh grade's `ran_on`.
PLACE = socket.gethostname()


def hidden_paths(*extra: Path) -> list[Path]:
    """Our own files, which a sandbox must not see even inside /usr."""
    return jail.own_paths(*extra)


@dataclass
class _Shared:
    """What the job slots of one local grading run share."""

    plan: _Plan
    hooks: Hooks
    settings: GradeSettings
    folder: RunFolder
    hidden: list[Path] | None
    summary: ClassRun
    #: A future per pair to run, resolved by the slot that grades it.
    outcomes: dict[tuple[str, str], Future[tuple[TestGrade, bool]]]
    goals: dict[str, str]
    caps: dict[str, int]
    budget: int
    failed_loads: dict[str, LoadReport] = field(default_factory=dict)
    #: Ctrl-C: no new tests, and the running ones are killed.
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    running: dict[int, SandboxedProgram] = field(default_factory=dict)

    def tell(self, sub: Submission, case: SuiteCase, grade: TestGrade, fresh: bool) -> None:
        """Resolve a pair's future: the collector records it."""
        self.outcomes[sub.student, case.name].set_result((grade, fresh))

    def abort(self) -> None:
        """Kill every running sandbox (Ctrl-C)."""
        self.stop.set()
        with self.lock:
            for program in self.running.values():
                program.abort()


class _Stopped(Exception):
    """Ctrl-C reached a job slot: it stops without grading its test."""


class _Slot:
    """One job slot: a sandbox uid of its own, one submission loaded at a
    time, its tests run one after the other in that sandbox.

    With a ticket of a shared FairShare, the slot runs only while it holds
    a turn, and gives the turn back (closing its sandbox and its uid) when
    the turn is over; without one, it runs until the plan is done."""

    def __init__(self, shared: _Shared, index: int, ticket: Ticket | None = None) -> None:
        self.shared = shared
        self.index = index
        self.ticket = ticket
        self.uid_slot = 0
        self._uid_lock: int | None = None
        self.turn: Turn | None = None
        self.program: SandboxedProgram | None = None

    def work(self) -> None:
        """Grade pairs until the plan has none left (or Ctrl-C)."""
        shared, current, finished = self.shared, None, False
        try:
            while not shared.stop.is_set() and (pair := shared.plan.next(current)) is not None:
                self.take_turn()
                if current != pair[0].student:
                    self.close()
                current = pair[0].student
                self.grade(pair)
                if self.turn is not None and self.turn.over():
                    self.give_back()
            finished = not shared.stop.is_set()
        except _Stopped:
            pass  # the running test is graded again by the next run, never as crashed
        finally:
            self.give_back(keep=finished)

    def take_turn(self) -> None:
        """Hold a turn (with a ticket) and a sandbox uid, before running."""
        if self.ticket is not None and self.turn is None:
            self.turn = self.ticket.wait_turn()
        if self._uid_lock is None:
            # The slot (the sandboxes' uid) is claimed machine-wide: another
            # grader on this machine never runs a sandbox under the same uid.
            self.uid_slot, self._uid_lock = jail.take_slot()

    def give_back(self, keep: bool = False) -> None:
        """Close the sandbox, free the uid and end the turn (or, with `keep`,
        leave it to the ticket: the grading's reports and feedback go on
        in it, unless it is over by then)."""
        self.close()
        if self._uid_lock is not None:
            os.close(self._uid_lock)
            self._uid_lock = None
        if self.turn is not None:
            if keep and self.ticket is not None:
                self.ticket.keep(self.turn)
            else:
                self.turn.end()
            self.turn = None

    def grade(self, pair: Pair) -> None:
        """Grade one pair, or leave it to the grader that claimed it."""
        shared, (sub, case) = self.shared, pair
        if (done := shared.hooks.stored(sub, case)) is not None:  # another grader's
            shared.tell(sub, case, done, False)
        elif not shared.hooks.claim(sub, case):
            shared.plan.defer(pair)
            if shared.plan.only_deferred():  # wait for the other grader
                time.sleep(0.5)
        elif sub.student in shared.failed_loads:
            report = shared.failed_loads[sub.student]
            shared.tell(sub, case, load_error_grade(sub, case, report, shared.budget), True)
        else:
            self.run(pair)

    def run(self, pair: Pair) -> None:
        """Run one test in the submission's sandbox, loading it first if needed."""
        shared, (sub, case) = self.shared, pair
        try:
            program = self.program
            if program is None or not program.alive:
                program = self.load(pair)
                if program is None:
                    return  # did not load: its pairs are graded for that
            obs = program.run(shared.goals[case.name], "Sol", shared.caps[case.name])
            self.check_stop()  # killed by Ctrl-C, or finished in the meantime
            grade = grade_observation(sub, case, obs, shared.settings.rules, shared.budget)
        except (_Stopped, SandboxSetupError):
            raise  # Ctrl-C; or the machine's, decided by a control sandbox
        except Exception as e:  # this test's, never the class's
            self.close()
            grade = grader_failed(sub, case, e)
            shared.summary.problems.append(f"{sub.student}/{case.name}: {grade.detail}")
        shared.tell(sub, case, grade, True)

    def load(self, pair: Pair) -> SandboxedProgram | None:
        """The pair's submission loaded in a fresh sandbox; None when it
        does not load, and then every pair of it is graded for that."""
        shared, (sub, _) = self.shared, pair
        self.close()
        program = self.program = SandboxedProgram(
            shared.folder, sub.files, sub.files.main, "sudoku/2", shared.settings.dialect,
            shared.settings.limits(), self.uid_slot, shared.hidden,
        )  # fmt: skip
        with shared.lock:
            shared.running[self.index] = program
        self.check_stop()
        report = program.load()
        self.check_stop()
        with shared.lock:
            first = sub.student not in shared.summary.load_reports
            shared.summary.load_reports.setdefault(sub.student, report)
        if first:
            shared.hooks.loaded(sub, report)
        if report.loaded:
            return program
        shared.failed_loads[sub.student] = report
        for other, case in [pair, *shared.plan.drop(sub.student)]:
            shared.tell(other, case, load_error_grade(other, case, report, shared.budget), True)
        return None

    def check_stop(self) -> None:
        if self.shared.stop.is_set():
            raise _Stopped

    def close(self) -> None:
        """Close the loaded sandbox, keeping what went wrong with it."""
        if self.program is not None:
            self.program.close()
            self.shared.summary.problems.extend(self.program.problems)
            self.program = None


def _run_slot(shared: _Shared, index: int, ticket: Ticket | None) -> None:
    _Slot(shared, index, ticket).work()


def _collect(shared: _Shared, pending: dict[Future[Any], Pair], slots: list[Future[None]]) -> None:
    """Record every pair's grade as its future resolves, in this thread,
    taking it out of `pending`; a slot that fails ends the run with its
    exception."""
    waiting: set[Future[Any]] = set(pending) | set(slots)
    while pending:
        if not waiting:
            raise RuntimeError("the job slots stopped with tests left to grade")
        done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
        for future in done:
            if future in pending:
                _record(shared.hooks, *pending.pop(future), *future.result())
            else:
                future.result()  # a slot's own failure is the run's


def _record(hooks: Hooks, sub: Submission, case: SuiteCase, grade: TestGrade, fresh: bool) -> None:
    if fresh:  # run here, now
        grade.ran_on = PLACE
    hooks.record(sub, case, grade, fresh)


def grade_class(
    submissions: list[Submission],
    cases: list[SuiteCase],
    settings: GradeSettings,
    hooks: Hooks,
    jobs: int = 1,
    hidden: list[Path] | None = None,
    workspace: Path | None = None,
    ticket: Ticket | None = None,
) -> ClassRun:
    """Grade every submission on every case, `jobs` runs at a time (each
    in a turn of `ticket`'s share, when given: see fair_share). Raises
    Cancelled, with the running tests killed, when the ticket is."""
    summary = ClassRun()
    todo = still_to_grade(submissions, cases, hooks)
    if not todo:
        return summary
    todo, hooks = share_runs(todo, hooks)
    with RunFolder(workspace) as folder:
        shared = _Shared(
            _Plan(todo), hooks, settings, folder, hidden, summary,
            {(sub.student, case.name): Future() for sub, case in todo},
            {case.name: goal_for(case) for case in cases},
            {case.name: answer_cap(len(load_case(case)[1] or [])) for case in cases},
            text_budget(len(cases)),
        )  # fmt: skip
        pending = {shared.outcomes[sub.student, case.name]: (sub, case) for sub, case in todo}
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            slots = [pool.submit(_run_slot, shared, index, ticket) for index in range(max(1, jobs))]
            try:
                _collect(shared, pending, slots)
            except (KeyboardInterrupt, Cancelled):
                # Keep what is graded; the running tests are killed, not
                # waited for (a limit can be minutes), and not graded: the
                # next run grades them.
                shared.abort()
                pool.shutdown(wait=True)
                for future, pair in pending.items():
                    if future.done():
                        _record(hooks, *pair, *future.result())
                raise
    return summary


@dataclass(frozen=True)
class LocalPool:
    """`jobs` sandboxes at once on this machine (the default)."""

    jobs: int = 1
    #: Folders the sandboxes must not see (the suite, the reports...).
    hidden: list[Path] = field(default_factory=list)
    #: Run only in turns of this ticket's FairShare (a service's gradings).
    ticket: Ticket | None = None

    def run(
        self, subs: list[Submission], cases: list[SuiteCase], settings: GradeSettings, hooks: Hooks
    ) -> ClassRun:
        return grade_class(subs, cases, settings, hooks, self.jobs, self.hidden,
                           ticket=self.ticket)  # fmt: skip
