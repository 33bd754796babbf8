"""Running a class's (submission, test) pairs on the local pool: each
submission loaded once in a sandbox, every test forked from it, every
slot busy to the last pair; results to the gradebook as they come.

Every grade is decided outside the sandbox, from what the sandbox could
not fake (judging.py); results go to the gradebook as soon as they are
known, keyed by the submission's content, the test's content and the
settings, so an interrupted grading resumes where it stopped.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from plpuzzle.sandbox import jail
from plpuzzle.sandbox.program import (
    LoadReport,
    SandboxedProgram,
    SandboxSetupError,
)
from plpuzzle.sandbox.workspace import (
    RunFolder,
)
from plpuzzle.sudoku.grading.judging import (
    answer_cap,
    goal_for,
    grade_observation,
    grader_failed,
    load_error_grade,
    text_budget,
)
from plpuzzle.sudoku.grading.model import GradeSettings, Submission, TestGrade
from plpuzzle.sudoku.services.suite import SuiteCase, load_case


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


def hidden_paths(*extra: Path) -> list[Path]:
    """Our own files, which a sandbox must not see even inside /usr."""
    return jail.own_paths(*extra)


def still_to_grade(
    submissions: list[Submission], cases: list[SuiteCase], hooks: Hooks
) -> list[tuple[Submission, SuiteCase]]:
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


Pair = tuple[Submission, SuiteCase]


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


def grade_class(
    submissions: list[Submission],
    cases: list[SuiteCase],
    settings: GradeSettings,
    hooks: Hooks,
    jobs: int = 1,
    hidden: list[Path] | None = None,
    workspace: Path | None = None,
) -> ClassRun:
    """Grade every submission on every case, `jobs` runs at a time."""
    summary = ClassRun()
    results: queue.Queue[tuple[Submission, SuiteCase, TestGrade, bool] | None] = queue.Queue()
    todo = still_to_grade(submissions, cases, hooks)
    if not todo:
        return summary
    todo, hooks = share_runs(todo, hooks)
    plan = _Plan(todo)
    goals = {case.name: goal_for(case) for case in cases}
    failed_loads: dict[str, LoadReport] = {}
    lock = threading.Lock()
    stop = threading.Event()  # Ctrl-C: no new tests, and the running ones are killed
    running: dict[int, SandboxedProgram] = {}
    place = socket.gethostname()

    budget = text_budget(len(cases))
    caps = {case.name: answer_cap(len(load_case(case)[1] or [])) for case in cases}

    with RunFolder(workspace) as run:

        def slot_work(index: int) -> None:
            # The slot (the sandboxes' uid) is claimed machine-wide: another
            # grader on this machine never runs a sandbox under the same uid.
            with jail.claim_slot() as slot:
                work(index, slot)

        def work(index: int, slot: int) -> None:
            program: SandboxedProgram | None = None
            current: str | None = None
            try:
                while not stop.is_set() and (pair := plan.next(current)) is not None:
                    sub, case = pair
                    if current != sub.student and program is not None:
                        program.close()
                        summary.problems.extend(program.problems)
                        program = None
                    current = sub.student
                    if (done := hooks.stored(sub, case)) is not None:  # another grader's
                        results.put((sub, case, done, False))
                        continue
                    if not hooks.claim(sub, case):
                        plan.defer(pair)
                        if plan.only_deferred():  # wait for the other grader
                            time.sleep(0.5)
                        continue
                    if sub.student in failed_loads:
                        report = failed_loads[sub.student]
                        grade = load_error_grade(sub, case, report, budget)
                        results.put((sub, case, grade, True))
                        continue
                    try:
                        if program is None or not program.alive:
                            if program is not None:
                                summary.problems.extend(program.problems)
                            program = SandboxedProgram(
                                run, sub.files, sub.files.main, "sudoku/2", settings.dialect,
                                settings.limits(), slot, hidden,
                            )  # fmt: skip
                            with lock:
                                running[index] = program
                            if stop.is_set():
                                break
                            report = program.load()
                            if stop.is_set():
                                break
                            with lock:
                                first = sub.student not in summary.load_reports
                                summary.load_reports.setdefault(sub.student, report)
                            if first:
                                hooks.loaded(sub, report)
                            if not report.loaded:
                                failed_loads[sub.student] = report
                                for pending in [pair, *plan.drop(sub.student)]:
                                    grade = load_error_grade(pending[0], pending[1], report, budget)
                                    results.put((pending[0], pending[1], grade, True))
                                continue
                        obs = program.run(goals[case.name], "Sol", caps[case.name])
                        if stop.is_set():  # killed by Ctrl-C, or finished in the meantime:
                            break  # graded again by the next run, never as crashed
                        grade = grade_observation(sub, case, obs, settings.rules, budget)
                    except SandboxSetupError:
                        raise  # the machine's: decided by a control sandbox (SandboxedProgram.load)
                    except Exception as e:  # this test's, never the class's
                        if program is not None:
                            program.close()
                            summary.problems.extend(program.problems)
                            program = None
                        grade = grader_failed(sub, case, e)
                        summary.problems.append(f"{sub.student}/{case.name}: {grade.detail}")
                    results.put((sub, case, grade, True))
            finally:
                if program is not None:
                    program.close()
                    summary.problems.extend(program.problems)

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(slot_work, slot) for slot in range(max(1, jobs))]
            received = 0
            try:
                while received < len(todo):
                    try:
                        item = results.get(timeout=0.2)
                    except queue.Empty:
                        for f in futures:  # a slot that failed would otherwise hang us
                            if f.done() and f.exception() is not None:
                                f.result()
                        continue
                    if item is not None:
                        if item[3]:  # run here, now
                            item[2].ran_on = place
                        hooks.record(*item)
                        received += 1
            except KeyboardInterrupt:
                # Keep what is graded; the running tests are killed, not
                # waited for (a limit can be minutes), and not graded: the
                # next run grades them.
                stop.set()
                with lock:
                    for program in running.values():
                        program.abort()
                pool.shutdown(wait=True)
                while not results.empty():
                    if (item := results.get()) is not None:
                        hooks.record(*item)
                raise
    return summary
