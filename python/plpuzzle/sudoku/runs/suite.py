"""A test suite in the course's layout, and the verdict on each of its tests.

A suite is a folder of `testNNNd.txt` puzzles, each with its expected
solutions in `testNNNs.txt` beside it. The CLI runner and the pytest plugin
both judge a test here, so they cannot disagree on what "correct" means.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from plpuzzle.runtime.sicstus_gaps import gap_words, not_emulated
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.results import BadAnswer, SolveResult, Status
from plpuzzle.sudoku.domain.textformat import FormatError, load_puzzle, load_solutions
from plpuzzle.sudoku.runs.crosscheck import CrossCheck, compare

_PUZZLE_NAME = re.compile(r"(test.*)d\.txt")


@dataclass(frozen=True)
class SuiteCase:
    """One test of a suite: `name` is e.g. `test017`."""

    name: str
    puzzle_path: Path
    expected_path: Path

    @property
    def output_name(self) -> str:
        """The harness's output file name, e.g. `test017t.txt`."""
        return f"{self.name}t.txt"


def natural_key(name: str) -> list[object]:
    """Sort key that puts test9 before test10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def discover(folder: Path, only: str | None = None) -> list[SuiteCase]:
    """The tests of a suite folder in natural order, optionally filtered.

    `only` is a shell-style pattern matched against the test name
    (`test0[0-4]?`); without wildcards it selects names containing it.
    A directory or dangling symlink with a puzzle's name is kept: loading it
    fails, so the run reports it as bad input instead of silently skipping it.
    """
    cases = []
    for path in folder.iterdir():
        match = _PUZZLE_NAME.fullmatch(path.name)
        if match:
            name = match.group(1)
            cases.append(SuiteCase(name, path, path.with_name(f"{name}s.txt")))
    if only:
        pattern = only if any(c in only for c in "*?[") else f"*{only}*"
        cases = [c for c in cases if fnmatch.fnmatchcase(c.name, pattern)]
    return sorted(cases, key=lambda c: natural_key(c.name))


class SuiteError(Exception):
    """A suite folder that cannot be run at all; the message is one line."""


def suite_cases(folder: Path, only: str | None = None) -> list[SuiteCase]:
    """The tests to run from `folder`, or SuiteError saying why there are none."""
    if not folder.is_dir():
        raise SuiteError(f"{folder}: no such folder")
    try:
        cases = discover(folder, only)
    except OSError as e:
        raise SuiteError(f"{folder}: cannot list: {e.strerror}") from None
    if not cases:
        what = f" matching {only!r}" if only else ""
        raise SuiteError(f"{folder}: no testNNNd.txt puzzles{what}")
    return cases


class Verdict(StrEnum):
    CORRECT = "correct"
    WRONG = "wrong"
    TIMEOUT = "timeout"
    ERROR = "error"  # the solver failed: exception, load error, crash
    NO_EXPECTED = "no expected"  # no testNNNs.txt to compare with
    BAD_INPUT = "bad input"  # the puzzle or expected file does not parse


@dataclass
class CaseResult:
    """The verdict on one test, with the evidence behind it."""

    case: SuiteCase
    verdict: Verdict
    #: One result per engine run, the first being the one that is judged.
    results: list[SolveResult] = field(default_factory=list)
    expected: list[Grid] | None = None
    comparison: CrossCheck | None = None
    reason: str = ""
    k: int | None = None

    @property
    def primary(self) -> SolveResult | None:
        return self.results[0] if self.results else None

    @property
    def solution_count(self) -> int:
        """How many answers the judged engine gave (as the harness counts)."""
        p = self.primary
        return len(p.solutions) + len(p.bad_answers) if p else 0

    @property
    def cpu_seconds(self) -> float:
        return sum(r.cpu_seconds for r in self.results)

    @property
    def missing(self) -> list[Grid]:
        """Expected solutions the judged engine did not give."""
        if self.expected is None or self.primary is None:
            return []
        return sorted(set(self.expected) - set(self.primary.solutions))

    @property
    def extra(self) -> list[Grid]:
        """Solutions the judged engine gave that were not expected."""
        if self.expected is None or self.primary is None:
            return []
        return sorted(set(self.primary.solutions) - set(self.expected))

    @property
    def duplicates(self) -> dict[Grid, int]:
        return self.primary.duplicates if self.primary else {}

    @property
    def bad_answers(self) -> list[BadAnswer]:
        return self.primary.bad_answers if self.primary else []

    def summary(self) -> str:
        """A short phrase with the reason, e.g. `missing 2, extra 1`."""
        if self.verdict is not Verdict.WRONG:
            return self.reason
        parts = [
            f"{label} {n}"
            for label, n in (
                ("missing", len(self.missing)),
                ("extra", len(self.extra)),
                ("duplicate", sum(c - 1 for c in self.duplicates.values())),
                ("malformed or non-ground", len(self.bad_answers)),
            )
            if n
        ]
        if self.reason:
            parts.append(self.reason)
        return ", ".join(parts)


def load_case(case: SuiteCase) -> tuple[Puzzle, list[Grid] | None]:
    """The puzzle and its expected solutions (None when there is no file).

    Raises FormatError for a file that does not parse or cannot be read;
    only a name with nothing behind it (not even a broken link) is missing.
    A test read before whose files hold the same bytes is not parsed
    again: a service grading upload after upload, and each step of one
    grading, would otherwise parse the suite's megabytes of solutions
    each time (reading and hashing them costs a small part of that).
    """
    files = (_digest(case.puzzle_path), _digest(case.expected_path))
    puzzle, expected = _parsed(case.puzzle_path, case.expected_path, files)
    return puzzle, None if expected is None else list(expected)


def _digest(path: Path) -> str | None:
    """The file's content digest (None: it cannot be read, and parsing says why)."""
    try:
        return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return None


@functools.lru_cache(maxsize=2048)
def _parsed(
    puzzle_path: Path, expected_path: Path, files: object
) -> tuple[Puzzle, tuple[Grid, ...] | None]:
    """One test's files parsed, kept by their contents' digests (`files`)."""
    puzzle = load_puzzle(puzzle_path)
    if not os.path.lexists(expected_path):
        return puzzle, None
    return puzzle, tuple(load_solutions(expected_path, puzzle.n))


def bad_input(case: SuiteCase, error: FormatError) -> CaseResult:
    return CaseResult(case, Verdict.BAD_INPUT, reason=str(error))


def judge(
    case: SuiteCase,
    puzzle: Puzzle,
    expected: list[Grid] | None,
    results: list[SolveResult],
    rules: Rules,
) -> CaseResult:
    """The verdict on the first result; further results are cross-checked.

    Correct means: finished, exactly the expected solutions, each once, no
    malformed answers, and (with two engines) the engines agree.
    """
    out = CaseResult(case, Verdict.CORRECT, results, expected, k=puzzle.k)
    for result in results:
        if result.status is Status.TIMEOUT:
            out.verdict = Verdict.TIMEOUT
            words = result.message.strip().splitlines()[:1] or ["ran out of time"]
            out.reason = f"the {result.engine} engine {words[0]}"
            return out
        if result.status is not Status.OK:
            out.verdict = Verdict.ERROR
            first = result.message.strip().splitlines()[:1]
            out.reason = f"the {result.engine} engine: {result.status}" + (
                f": {first[0]}" if first else ""
            )
            if result.status is Status.ERROR and (gap := not_emulated(result.message)):
                out.reason = f"the {result.engine} engine: {gap_words(gap)}"  # as grade says
            return out
    if len(results) > 1:
        out.comparison = compare(puzzle, rules, results)
        if not out.comparison.agree:
            out.verdict = Verdict.WRONG
            out.reason = "; ".join(
                f"{f.engine} {', '.join(f.faults)}" for f in out.comparison.findings if f.faults
            )
    if expected is None:
        if out.verdict is Verdict.CORRECT:
            out.verdict = Verdict.NO_EXPECTED
            out.reason = f"no expected-solution file {case.expected_path.name}"
        return out
    if out.missing or out.extra or out.duplicates or out.bad_answers:
        out.verdict = Verdict.WRONG
    return out


def bundled_puzzles(*parts: str) -> Path:
    """A folder of the puzzles shipped with plpuzzle: the data package
    plpuzzle.puzzles_data (the top-level puzzles/ of a checkout, mapped
    into the package by the install, editable or not)."""
    from importlib.resources import files

    return Path(str(files("plpuzzle.puzzles_data"))).resolve().joinpath(*parts)


def bundled_suite() -> Path:
    """The default suite of `grade` and `bench`: the consecutive puzzles."""
    return bundled_puzzles("sudoku", "consecutive")
