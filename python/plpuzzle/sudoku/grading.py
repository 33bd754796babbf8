"""Grading a class: every student's sudoku.pl against a suite, sandboxed.

Each (submission, test) pair runs in a fresh sandboxed worker process
(plpuzzle.sandbox) with a copy of the submission in a working folder of
its own, so whatever one run does cannot reach another. Results go to a
gradebook (plpuzzle.sudoku.gradebook) as soon as they are known, keyed by
the submission's content, the test's content and the settings, so an
interrupted grading resumes where it stopped and a changed submission is
graded again.
"""

from __future__ import annotations

import hashlib
import json
import queue
import re
import shutil
import tempfile
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path

from plpuzzle import __version__
from plpuzzle.prolog_engine import Dialect
from plpuzzle.sandbox import Policy, Sandbox
from plpuzzle.sudoku.model import Rules
from plpuzzle.sudoku.prolog_bridge import PrologSudokuEngine
from plpuzzle.sudoku.results import SolveResult, Status
from plpuzzle.sudoku.suite import CaseResult, SuiteCase, Verdict, judge, load_case
from plpuzzle.sudoku.textformat import grid_term
from plpuzzle.worker import Worker

#: The file a submission folder must contain.
SOLVER_NAME = "sudoku.pl"

_STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Grade(StrEnum):
    """The verdict on one test of one submission."""

    CORRECT = "correct"
    WRONG = "wrong"
    TIMEOUT = "timeout"
    MEMORY = "memory limit"
    CRASHED = "crashed"
    LOAD_ERROR = "load error"
    ERROR = "error"


@dataclass(frozen=True)
class Submission:
    """One student's work: their id, the solver file, and its folder."""

    student: str
    solver: Path
    #: Files copied into the sandbox: the whole folder, or the single file.
    files: tuple[Path, ...]
    digest: str


class GradingError(Exception):
    """Bad grading input: a submissions folder or points file we cannot use."""


def _digest(paths: list[Path], names: list[str]) -> str:
    h = hashlib.sha256()
    for name, path in sorted(zip(names, paths, strict=True)):
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def find_submissions(folder: Path) -> list[Submission]:
    """Submissions in `folder`: ID/sudoku.pl folders and ID.pl files.

    Raises GradingError when a student has both, when a folder lacks
    sudoku.pl, or when there are none at all.
    """
    if not folder.is_dir():
        raise GradingError(f"{folder}: no such folder")
    found: dict[str, Submission] = {}
    problems: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            student, solver = entry.name, entry / SOLVER_NAME
            if not solver.is_file():
                problems.append(f"{entry}: no {SOLVER_NAME} in this submission folder")
                continue
            files = sorted(p for p in entry.rglob("*") if p.is_file())
            names = [str(p.relative_to(entry)) for p in files]
        elif entry.suffix == ".pl":
            student, solver, files, names = entry.stem, entry, [entry], [SOLVER_NAME]
        else:
            continue
        if not _STUDENT_ID.fullmatch(student):
            problems.append(f"{entry}: {student!r} is not a usable student id")
            continue
        if student in found:
            problems.append(f"{entry}: student {student} has both a folder and a .pl file")
            continue
        found[student] = Submission(student, solver, tuple(files), _digest(files, names))
    if problems:
        raise GradingError("\n".join(problems))
    if not found:
        raise GradingError(f"{folder}: no submissions (ID/{SOLVER_NAME} folders or ID.pl files)")
    return list(found.values())


@dataclass(frozen=True)
class Points:
    """Points per test: a default, overrides, and optionally a subset that counts."""

    default: float = 1.0
    per_test: dict[str, float] = field(default_factory=dict)
    only: tuple[str, ...] | None = None

    def counts(self, test: str) -> bool:
        return self.only is None or test in self.only

    def of(self, test: str) -> float:
        return self.per_test.get(test, self.default)


def load_points(path: Path) -> Points:
    """Read a points file (TOML):

    default = 1                      # each correct test not listed below
    only = ["test001", "test002"]    # optional: only these tests count
    [points]
    test002 = 3
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise GradingError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise GradingError(f"{path}: {e}") from None
    unknown = set(data) - {"default", "only", "points"}
    if unknown:
        raise GradingError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    default = data.get("default", 1)
    per_test = data.get("points", {})
    only = data.get("only")
    if not isinstance(default, int | float) or isinstance(default, bool):
        raise GradingError(f"{path}: 'default' must be a number")
    if not isinstance(per_test, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in per_test.values()
    ):
        raise GradingError(f"{path}: [points] must map test names to numbers")
    if only is not None and not (isinstance(only, list) and all(isinstance(t, str) for t in only)):
        raise GradingError(f"{path}: 'only' must be a list of test names")
    return Points(
        float(default),
        {k: float(v) for k, v in per_test.items()},
        tuple(only) if only is not None else None,
    )


@dataclass(frozen=True)
class GradeSettings:
    """Everything that changes a result; a change means grading again."""

    rules: Rules = Rules.CONSECUTIVE
    dialect: Dialect = "sicstus4"
    time_limit: float = 60.0
    memory_mb: int = 2048
    use_bubblewrap: bool = True

    def key(self) -> str:
        """A digest of the settings and of plpuzzle's version."""
        text = json.dumps(
            {**asdict(self), "rules": self.rules.value, "version": __version__}, sort_keys=True
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def case_key(case: SuiteCase) -> str:
    """A digest of a test's puzzle and expected solutions."""
    h = hashlib.sha256(case.puzzle_path.read_bytes())
    if case.expected_path.is_file():
        h.update(b"\0" + case.expected_path.read_bytes())
    return h.hexdigest()[:16]


@dataclass
class TestGrade:
    """The result of one test of one submission, as stored."""

    __test__ = False  # not a pytest test class, despite its name

    student: str
    test: str
    grade: Grade
    detail: str = ""
    evidence: str = ""
    solutions: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0


_MEMORY_WORDS = (
    "stack_overflow",
    "stack limit",
    "resource_error(memory)",
    "not enough memory",
    "cannot allocate memory",
    "memoryerror",
    "out of global",
    "out of local",
)


def _is_memory(result: SolveResult) -> bool:
    text = result.message.lower()
    return any(w in text for w in _MEMORY_WORDS)


def grade_result(
    submission: Submission, case: SuiteCase, result: SolveResult, rules: Rules
) -> TestGrade:
    """Turn one engine run into a grade with its evidence."""
    out = TestGrade(
        submission.student,
        case.name,
        Grade.ERROR,
        solutions=len(result.solutions),
        cpu_seconds=result.cpu_seconds,
        wall_seconds=result.wall_seconds,
    )
    message = result.message.strip()
    if result.status is Status.LOAD_ERROR:
        out.grade, out.detail, out.evidence = Grade.LOAD_ERROR, _first_line(message), message
        return out
    if result.status is Status.TIMEOUT:
        out.grade, out.detail = Grade.TIMEOUT, "did not finish in time"
        out.evidence = message
        return out
    if result.status is not Status.OK:
        if _is_memory(result):
            out.grade = Grade.MEMORY
        elif "SIGXCPU" in message:
            out.grade = Grade.TIMEOUT
        elif result.status is Status.CRASHED:
            out.grade = Grade.CRASHED
        out.detail, out.evidence = _first_line(message), message
        return out
    puzzle, expected = load_case(case)
    judged = judge(case, puzzle, expected, [result], rules)
    if judged.verdict is Verdict.CORRECT:
        out.grade = Grade.CORRECT
        return out
    out.grade = Grade.WRONG
    out.detail = judged.summary()
    out.evidence = _wrong_evidence(judged)
    return out


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def _wrong_evidence(judged: CaseResult) -> str:
    """The first differing solution of each kind, in Prolog list syntax."""
    lines = []
    if judged.missing:
        lines.append(f"first missing solution: {grid_term(judged.missing[0])}")
    if judged.extra:
        lines.append(f"first extra solution: {grid_term(judged.extra[0])}")
    for grid, count in list(judged.duplicates.items())[:1]:
        lines.append(f"given {count} times: {grid_term(grid)}")
    for bad in judged.bad_answers[:1]:
        lines.append(f"answer {bad.text[:200]}: {bad.reason}")
    if judged.expected is None:
        lines.append(judged.reason)
    return "\n".join(lines)


def run_one(
    submission: Submission, case: SuiteCase, settings: GradeSettings, grace: float = 5.0
) -> TestGrade:
    """Run one test of one submission in a fresh sandbox and grade it."""
    with tempfile.TemporaryDirectory(prefix=f"plpuzzle-{submission.student}-") as tmp:
        work = Path(tmp)
        root = submission.solver.parent if len(submission.files) > 1 else None
        for path in submission.files:
            target = work / (path.relative_to(root) if root else SOLVER_NAME)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        policy = Policy(
            memory_mb=settings.memory_mb, cpu_seconds=int(settings.time_limit + grace) + 1
        )
        sandbox = Sandbox(policy, work, settings.use_bubblewrap)
        stack_mb = max(64, settings.memory_mb * 3 // 4)
        worker = Worker(sandbox=sandbox, env={"PLPUZZLE_STACK_LIMIT_MB": str(stack_mb)})
        engine = PrologSudokuEngine(work / SOLVER_NAME, settings.dialect, worker, grace=grace)
        try:
            puzzle, _ = load_case(case)
            result = engine.solve(puzzle, settings.rules, settings.time_limit)
        finally:
            engine.close()
    # Messages name files in the temporary folder; name them as the student did.
    result.message = result.message.replace(f"{work}/", "")
    return grade_result(submission, case, result, settings.rules)


def grade_class(
    submissions: list[Submission],
    cases: list[SuiteCase],
    settings: GradeSettings,
    done: Callable[[Submission, SuiteCase], TestGrade | None],
    record: Callable[[Submission, SuiteCase, TestGrade, bool], None],
    jobs: int = 1,
) -> None:
    """Grade every submission on every case, in parallel across submissions.

    `done` returns a stored grade (or None, to run the test); `record` is
    called in this thread for every grade, with whether it was new. A
    submission that fails to load is not run again for its other tests.
    """

    results: queue.Queue[tuple[Submission, SuiteCase, TestGrade, bool]] = queue.Queue()

    def one_submission(sub: Submission) -> None:
        load_failure: TestGrade | None = None
        for case in cases:
            stored = done(sub, case)
            if stored is not None:
                results.put((sub, case, stored, False))
                continue
            if load_failure is not None:
                grade = TestGrade(
                    sub.student,
                    case.name,
                    Grade.LOAD_ERROR,
                    load_failure.detail,
                    load_failure.evidence,
                )
            else:
                grade = run_one(sub, case, settings)
                if grade.grade is Grade.LOAD_ERROR:
                    load_failure = grade
            results.put((sub, case, grade, True))

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(one_submission, sub) for sub in submissions]
        expected = len(submissions) * len(cases)
        received = 0
        while received < expected:
            try:
                item = results.get(timeout=0.2)
            except queue.Empty:
                for f in futures:  # a thread that failed would otherwise hang us
                    if f.done() and f.exception() is not None:
                        f.result()
                continue
            record(*item)
            received += 1
