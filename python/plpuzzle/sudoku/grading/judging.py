"""Deciding a test's grade, outside the sandbox, from what the parent
observed: answers, CPU time, memory, how the run ended; and how much of
a submission's text is kept."""

from __future__ import annotations

import functools
import re
from typing import Any

from plpuzzle.runtime.sicstus_gaps import gap_words, not_emulated
from plpuzzle.sandbox.program import (
    LoadReport,
    Observation,
    RunEnd,
)
from plpuzzle.sandbox.workspace import SubmissionFiles
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import grid_term
from plpuzzle.sudoku.engines.prolog_bridge import decode_answers
from plpuzzle.sudoku.grading.model import REFUSALS_SHOWN, Grade, Submission, TestGrade
from plpuzzle.sudoku.grading.similarity.source import decode
from plpuzzle.sudoku.grading.similarity.tokens import (
    NAME,
    PUNCT,
    RawToken,
    tokenize,
    with_clause_start,
)
from plpuzzle.sudoku.runs.suite import CaseResult, SuiteCase, Verdict, judge, load_case
from plpuzzle.untrusted import clip, one_line, printable

_MEMORY_WORDS = (
    "stack_overflow",
    "stack limit",
    "resource_error(memory)",
    "not enough memory",
    "cannot allocate memory",
    "out of global",
    "out of local",
)


#: Bytes of text from a submission (what it threw and printed) that the
#: gradebook and the reports keep of one student, over all tests; each
#: test gets an equal share, between these two bounds.
STUDENT_TEXT_BUDGET = 256_000


TEST_TEXT_MAX = 8_000


TEST_TEXT_MIN = 600


#: Bytes of a detail taken from a submission (an exception's first line).
DETAIL_BUDGET = 300


def text_budget(tests: int) -> int:
    """Bytes of a submission's text kept per test, for a suite of `tests`."""
    return max(TEST_TEXT_MIN, min(TEST_TEXT_MAX, STUDENT_TEXT_BUDGET // max(1, tests)))


def answer_cap(expected: int) -> int:
    """Answers read of a run that should give `expected`: past that and a
    small margin it is wrong whatever follows, and need not be read."""
    return expected + 10 + expected // 10


#: How a run that gave no complete answer list is graded.
_UNFINISHED = {
    RunEnd.CPU_LIMIT: Grade.TIMEOUT,
    RunEnd.WALL_LIMIT: Grade.TIMEOUT,
    RunEnd.MEMORY_LIMIT: Grade.MEMORY,
    RunEnd.VANISHED: Grade.CRASHED,
    RunEnd.SANDBOX_DIED: Grade.CRASHED,
    RunEnd.TOO_MUCH_REPLY: Grade.ERROR,
    RunEnd.BROKEN_REPLY: Grade.ERROR,
}


def _evidence(*parts: tuple[str, str]) -> str:
    return "\n".join(
        f"{label}:\n{printable(text.rstrip())}" for label, text in parts if text.strip()
    )


@functools.lru_cache(maxsize=64)
def called_predicates(files: SubmissionFiles) -> frozenset[tuple[str, int]]:
    """(name, arity) of every term written `name(...)` in the hand-in's
    files (and of every bare name, arity 0, that is not `name/N`), read
    by the tokenizer, never run: what the submission can call. Written
    data and thrown terms count too; a predicate named only in an
    indicator (`geost/3`), as an exception names it, does not."""
    found: set[tuple[str, int]] = set()
    for _, data in files.files:
        for clause in tokenize(decode(data)):
            found |= _terms(clause.tokens)
    return frozenset(found)


def _terms(tokens: list[RawToken]) -> set[tuple[str, int]]:
    """The (name, arity) of each compound term and bare name, in one pass:
    a stack holds the open brackets, with the name and argument count of
    those that open a compound term's arguments."""
    found: set[tuple[str, int]] = set()
    stack: list[list[Any] | None] = []
    for i, token in enumerate(tokens):
        value = token.value
        if token.kind == NAME:
            after = tokens[i + 1].value if i + 1 < len(tokens) else ""
            if after not in ("(", "/"):
                found.add((str(value), 0))
        elif token.kind != PUNCT:
            continue
        elif value == "(":  # the tokenizer keeps only a name's own "("
            before = tokens[i - 1] if i else None
            named = before is not None and before.kind == NAME
            stack.append([str(before.value), 1] if named and before else None)
        elif value in ("[", "{"):
            stack.append(None)
        elif value in (")", "]", "}"):
            if stack and (frame := stack.pop()) is not None:
                found.add((frame[0], frame[1]))
        elif value == "," and stack and (top := stack[-1]) is not None:
            top[1] += 1
    return found


def measured(cpu: float, wall: float) -> str:
    """The times a timeout's detail ends with (the feedback groups without them)."""
    return f" ({cpu:.2f} s of CPU time, {wall:.2f} s on the clock)"


def grade_observation(
    submission: Submission,
    case: SuiteCase,
    obs: Observation,
    rules: Rules,
    budget: int = TEST_TEXT_MAX,
) -> TestGrade:
    """Turn what the parent saw of one run into a grade with its evidence.

    `budget` bytes of the submission's own text (what it threw, what it
    printed) are kept, half each at most (see text_budget).
    """
    out = TestGrade(
        submission.student,
        case.name,
        Grade.ERROR,
        cpu_seconds=round(obs.cpu_seconds, 3),
        wall_seconds=round(obs.wall_seconds, 3),
    )
    printed = ("what it printed (last part)", clip(obs.output, budget // 2, tail=True))
    if obs.end is RunEnd.RAISED:
        lower = obs.exception.lower()
        out.grade = Grade.MEMORY if any(w in lower for w in _MEMORY_WORDS) else Grade.ERROR
        out.detail = printable(clip(_first_line(obs.exception), DETAIL_BUDGET))
        if gap := not_emulated(obs.exception, lambda: called_predicates(submission.files)):
            gap = clip(gap, DETAIL_BUDGET)
            out.detail = gap_words(printable(gap))
        out.evidence = _evidence(("the exception", clip(obs.exception, budget // 2)), printed)
        return out
    if obs.end is RunEnd.TOO_MANY_ANSWERS:
        out = _judged(out, case, obs, rules)
        out.grade = Grade.WRONG
        out.detail = obs.detail  # ours: "too many answers (at least N)"
        return out
    if obs.end is not RunEnd.FINISHED:
        out.grade = _UNFINISHED[obs.end]
        out.detail = printable(obs.detail)
        if out.grade is Grade.TIMEOUT:
            out.detail += measured(obs.cpu_seconds, obs.wall_seconds)
        out.evidence = _evidence(printed)
        return out
    return _judged(out, case, obs, rules)


def _judged(out: TestGrade, case: SuiteCase, obs: Observation, rules: Rules) -> TestGrade:
    """`out` graded by the answers of `obs` against the expected solutions."""
    puzzle, expected = load_case(case)
    grids, bad = decode_answers(obs.answers, puzzle.n)
    result = SolveResult("submission", Status.OK, grids, bad, obs.cpu_seconds, obs.wall_seconds)
    out.solutions = len(grids)
    judged = judge(case, puzzle, expected, [result], rules)
    if judged.verdict is Verdict.CORRECT:
        out.grade = Grade.CORRECT
        return out
    out.grade = Grade.WRONG
    out.detail = judged.summary()
    out.evidence = printable(_wrong_evidence(judged))
    return out


_LOCATED = re.compile(r"^error: (.+?:\d+(?::\d+)?): ?(.*)$")


def first_load_error(messages: list[str]) -> str | None:
    """The first error Prolog reported while loading that names a file and
    line (`sudoku.pl:7:28: Syntax error: ...`), or None."""
    for message in messages:
        if match := _LOCATED.match(message):
            return f"{match.group(1)}: {match.group(2)}".rstrip(": ")
    return None


def load_error_grade(
    submission: Submission, case: SuiteCase, report: LoadReport, budget: int = TEST_TEXT_MAX
) -> TestGrade:
    """The grade of every test of a submission that did not load: `not
    loadable` with the first error's file and line when Prolog reported
    errors, else `load error` with why loading stopped."""
    obs = report.observation
    reason = report.reason or obs.detail or "the file did not load"
    grade = Grade.LOAD_ERROR
    stopped = obs.end in (RunEnd.CPU_LIMIT, RunEnd.WALL_LIMIT, RunEnd.MEMORY_LIMIT)
    if stopped:
        reason = f"loading was stopped: {obs.detail}"
    elif (located := first_load_error(report.messages)) is not None:
        files = dict(submission.files.files)
        texts = lambda name: decode(files[name]) if name in files else None  # noqa: E731
        grade, reason = Grade.NOT_LOADABLE, with_clause_start(located, texts)
    evidence = _evidence(
        ("why", clip(report.reason or obs.detail, budget // 2)),
        (
            "while loading",
            "see the messages printed while loading, in the notes" if report.messages else "",
        ),
        ("not graded", "\n".join(submission.files.refused[:REFUSALS_SHOWN])),
        # Loading prints its messages too: they are already in the notes.
        (
            "what it printed (last part)",
            "" if report.messages else clip(obs.output, budget // 2, tail=True),
        ),
    )
    detail = printable(clip(reason, DETAIL_BUDGET))
    return TestGrade(submission.student, case.name, grade, detail, evidence)


def grader_failed(submission: Submission, case: SuiteCase, error: BaseException) -> TestGrade:
    """The grade of a test the grader could not run to its end because
    of an error of its own (a bug met by this hand-in): that test's
    `error`, in words, and never the whole class's stop."""
    words = one_line(f"{type(error).__name__}: {error}", DETAIL_BUDGET)
    return TestGrade(
        submission.student, case.name, Grade.ERROR,
        f"the grader could not run this test ({words}); plpuzzle's fault: please report it",
    )  # fmt: skip


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


def goal_for(case: SuiteCase) -> str:
    """The goal a submission runs for a test: the assignment's sudoku/2."""
    puzzle, _ = load_case(case)
    return f"sudoku({puzzle.to_term()}, Sol)"
