"""What grading works with: grades, submissions, settings and a test's
grade."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

from plpuzzle import __version__
from plpuzzle.i18n import N_, _
from plpuzzle.procstat import WALL_STRETCH
from plpuzzle.runtime import Dialect
from plpuzzle.sandbox import jail
from plpuzzle.sandbox.archives import archive_suffix
from plpuzzle.sandbox.meter import accounting
from plpuzzle.sandbox.workspace import SubmissionFiles, decode_name
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.runs.suite import SuiteCase, SuiteError
from plpuzzle.untrusted import clip, printable

#: What loading printed, kept once per student (above the sandbox's own
#: budget for it, 4 KB, with the prefixes); and how many refused files
#: are listed.
NOTES_BUDGET = 6_000
REFUSALS_SHOWN = 20

#: The file a submission folder must contain.
SOLVER_NAME = "sudoku.pl"
#: The solver's place in what Prolog reports (`sudoku.pl:7:28`).
_PLACE = re.compile(r"(?<![\w/.-])sudoku\.pl(?=:\d)")


class Grade(StrEnum):
    """The verdict on one test of one submission."""

    CORRECT = "correct"
    WRONG = "wrong"
    TIMEOUT = "timeout"
    MEMORY = "memory limit"
    CRASHED = "crashed"
    #: The file did not load: Prolog reported errors (the first one, with
    #: its file and line, is the detail).
    NOT_LOADABLE = "not loadable"
    #: Loading stopped otherwise: no sudoku/2, halt/0 or a limit while
    #: loading, or an entry we cannot tell how to load.
    LOAD_ERROR = "load error"
    ERROR = "error"
    #: An entry that holds nothing to run: no Prolog file at all.
    NO_SUBMISSION = "no submission"
    #: On the roster, but nothing was handed in.
    MISSING = "missing"


#: The verdicts' names for people: the one table every page, feedback
#: file, report and mail names a verdict by (the stored value is its code).
VERDICT_NAMES = {
    Grade.CORRECT: N_("correct"),
    Grade.WRONG: N_("wrong"),
    Grade.TIMEOUT: N_("timeout"),
    Grade.MEMORY: N_("memory limit"),
    Grade.CRASHED: N_("crashed"),
    Grade.NOT_LOADABLE: N_("not loadable"),
    Grade.LOAD_ERROR: N_("load error"),
    Grade.ERROR: N_("error"),
    Grade.NO_SUBMISSION: N_("no submission"),
    Grade.MISSING: N_("missing"),
}


def verdict_name(grade: str) -> str:
    """A verdict (its stored value) in the language in force; a value that
    is no verdict as it is."""
    try:
        return _(VERDICT_NAMES[Grade(grade)])
    except ValueError:
        return grade


@dataclass(frozen=True)
class Submission:
    """One student's work: their id, where it is, and what will be graded.

    `files` holds the regular files read without following any link; the
    digest covers exactly them (and what was refused), so a changed
    submission is graded again.
    """

    student: str
    solver: Path
    source: Path
    files: SubmissionFiles
    digest: str

    def renamed(self) -> str | None:
        """The name the student gave their lone solver file (`frank.pl`),
        which the sandbox loads as sudoku.pl; None for a folder or an
        archive, whose names are the student's own."""
        if self.source != self.solver or archive_suffix(self.source.name) is not None:
            return None
        name = decode_name(self.source.name)[0]
        return None if name == SOLVER_NAME else name

    def as_named(self, text: str) -> str:
        """`text` (what Prolog said of the file) with the solver's place
        as the student named the file: `frank.pl:7:28`, not `sudoku.pl:7:28`."""
        name = self.renamed()
        return _PLACE.sub(name, text) if name else text

    def notes(self, load_messages: str = "") -> list[str]:
        """For the student's report: what was left out of the sandbox, and
        what loading printed (once, not with every test), within a budget."""
        refused = [f"not graded: {r}" for r in self.files.refused[:REFUSALS_SHOWN]]
        if len(self.files.refused) > REFUSALS_SHOWN:
            refused.append(f"not graded: {len(self.files.refused) - REFUSALS_SHOWN} more files")
        loading = [f"while loading: {self.as_named(m)}" for m in load_messages.splitlines() if m]
        text = clip("\n".join(loading), NOTES_BUDGET)
        return [*self.files.notes, *refused, *(printable(n) for n in text.splitlines() if n)]


class GradingError(SuiteError):
    """Bad grading input: a submissions folder, roster or class we cannot use
    (a suite, points or suite.toml file we cannot use is a SuiteError)."""


@dataclass(frozen=True)
class GradeSettings:
    """Everything that changes a result; a change means grading again.

    `time_limit` is CPU seconds per test, counted over every process of
    the sandbox, as the course's harness counted CPU time. `wall_limit`
    is a backstop for solvers that wait instead of computing (default:
    twice the time limit plus ten seconds, room for a loaded machine).
    """

    rules: Rules = Rules.CONSECUTIVE
    dialect: Dialect = "sicstus4"
    time_limit: float = DEFAULTS.time_limit
    memory_mb: int = DEFAULTS.memory_mb
    wall_limit: float | None = None

    @property
    def wall_seconds(self) -> float:
        return (
            self.wall_limit if self.wall_limit is not None else DEFAULTS.wall_limit(self.time_limit)
        )

    def limits(self) -> jail.Limits:
        return jail.Limits(
            cpu_seconds=self.time_limit, wall_seconds=self.wall_seconds, memory_mb=self.memory_mb
        )

    def key(self) -> str:
        """A digest of the settings and of plpuzzle's version."""
        fields = {**asdict(self), "rules": self.rules.value, "wall_limit": self.wall_seconds}
        text = json.dumps({**fields, "version": __version__}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def policy(self) -> str:
        """The limits in words, for the reports."""
        return (
            f"{self.time_limit:g} s of CPU time per test, over every process of the "
            f"submission; a wall-clock backstop of {self.wall_seconds:g} s for solvers that "
            "wait (moved out by the time a sandbox waited for a free core, to at most "
            f"{WALL_STRETCH:g} times its length); {self.memory_mb} MB of memory per "
            "submission's sandbox"
        )

    @staticmethod
    def accounting() -> str:
        """How CPU time is counted on this machine, in words, for the reports."""
        return accounting().words


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
    #: Where the run ran: this machine's name for the local pool, the
    #: machine and the Dask worker's address for a cluster ("" : not run).
    ran_on: str = ""
