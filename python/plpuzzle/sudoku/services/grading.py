"""Grading a class: every student's sudoku.pl against a suite, sandboxed.

Each submission is read (regular files only) and loaded once in a sandbox
(plpuzzle.sandbox), which then runs every test in a fresh child forked
from the loaded state. The work is scheduled as (submission, test) pairs,
so every job slot stays busy until the last pair: a slot keeps running
the submission it has loaded, and when that one has no tests left it
helps with whichever has the most.

Every grade is decided here, outside the sandbox, from what the sandbox
could not fake: the answers (checked against the expected solutions),
the CPU time and memory of its whole process tree, and how the run
ended. Results go to a gradebook (plpuzzle.sudoku.services.gradebook) as soon as
they are known, keyed by the submission's content, the test's content
and the settings, so an interrupted grading resumes where it stopped.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import queue
import re
import socket
import threading
import time
import tomllib
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from plpuzzle import __version__
from plpuzzle.engine import Dialect, prolog_dir
from plpuzzle.sandbox import jail
from plpuzzle.sandbox.meter import accounting
from plpuzzle.sandbox.program import (
    WALL_STRETCH,
    LoadReport,
    Observation,
    RunEnd,
    SandboxedProgram,
)
from plpuzzle.sandbox.workspace import (
    ArchiveError,
    RunFolder,
    SubmissionFiles,
    archive_suffix,
    read_archive,
    read_regular_files,
)
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import grid_term
from plpuzzle.sudoku.engines.prolog_bridge import decode_answers
from plpuzzle.sudoku.services.suite import CaseResult, SuiteCase, Verdict, judge, load_case
from plpuzzle.untrusted import clip, printable

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

    def notes(self, load_messages: str = "") -> list[str]:
        """For the student's report: what was left out of the sandbox, and
        what loading printed (once, not with every test), within a budget."""
        refused = [f"not graded: {r}" for r in self.files.refused[:REFUSALS_SHOWN]]
        if len(self.files.refused) > REFUSALS_SHOWN:
            refused.append(f"not graded: {len(self.files.refused) - REFUSALS_SHOWN} more files")
        loading = [f"while loading: {m}" for m in load_messages.splitlines() if m]
        text = clip("\n".join(loading), NOTES_BUDGET)
        return [*self.files.notes, *refused, *(printable(n) for n in text.splitlines() if n)]


class GradingError(Exception):
    """Bad grading input: a submissions folder, suite or points file we cannot use."""


#: Entries of a submissions folder that are no student's: what archivers
#: and file browsers leave behind (names starting with a dot are skipped too).
NOT_STUDENTS = frozenset({"__MACOSX", "Thumbs.db", "desktop.ini"})


@dataclass(frozen=True)
class Ungradable:
    """A student whose entry holds nothing we can run: graded 0, with why.

    `note` says what was found instead (e.g. `a.pl, b.pl`), so that the
    teacher can fix the folder, or tell the student, without opening it;
    `grade` is NO_SUBMISSION when it holds no Prolog at all, else
    LOAD_ERROR (we cannot tell what to load).
    """

    student: str
    source: Path
    note: str
    grade: Grade = Grade.NO_SUBMISSION


@dataclass
class Intake:
    """What a submissions folder holds: who can be graded, and who cannot."""

    submissions: list[Submission] = field(default_factory=list)
    ungradable: list[Ungradable] = field(default_factory=list)
    #: Entries left out, with why (e.g. a second entry for one student).
    skipped: list[str] = field(default_factory=list)

    @property
    def students(self) -> list[str]:
        return sorted([s.student for s in self.submissions] + [u.student for u in self.ungradable])


def _hidden(name: str) -> bool:
    return name.startswith(".") or name in NOT_STUDENTS


#: Archives plpuzzle does not open, by how their names end.
_OTHER_ARCHIVES = (".rar", ".7z", ".gz", ".xz", ".bz2", ".zst", ".tar.xz", ".tar.bz2")


def _refusals(files: SubmissionFiles) -> str:
    if not files.refused:
        return ""
    shown = "; ".join(files.refused[:3]) + ("; ..." if len(files.refused) > 3 else "")
    return f" (not taken: {shown})"


def choose_solver(files: SubmissionFiles, what: str) -> SubmissionFiles | Ungradable:
    """The hand-in with its file to load chosen: sudoku.pl at its top, or
    else its only .pl file, with a note. Without any .pl file, or with
    several and no sudoku.pl, it is Ungradable (the student is filled in
    by the caller)."""
    names = [name for name, _ in files.files]
    if SOLVER_NAME in names:
        return files
    prolog = [n for n in names if n.lower().endswith(".pl") and not any(
        _hidden(part) for part in n.split("/"))]  # fmt: skip
    if len(prolog) == 1:
        (only,) = prolog
        hint = ""
        if Path(only).name.lower() == SOLVER_NAME and Path(only).name != SOLVER_NAME:
            hint = f"; file names are case-sensitive: {only} is not {SOLVER_NAME}"
        elif Path(only).name == SOLVER_NAME:
            hint = f"; it is in a subfolder, and {SOLVER_NAME} belongs at the top"
        note = (
            f"graded {only}: the only .pl file of the {what} "
            f"(the assignment asks for {SOLVER_NAME}{hint})"
        )
        return replace(files, main=only, notes=(*files.notes, note))
    if not prolog:
        return Ungradable("", Path(), f"no .pl file in the {what}{_refusals(files)}")
    shown = ", ".join(prolog[:8]) + (", ..." if len(prolog) > 8 else "")
    return Ungradable(
        "",
        Path(),
        f"no {SOLVER_NAME} at the top of the {what}, and {len(prolog)} .pl files: {shown} "
        f"(which one is the solver? it must be named {SOLVER_NAME})",
        Grade.LOAD_ERROR,
    )


def _student_of(entry: Path, is_folder: bool) -> str:
    if is_folder:
        return entry.name
    suffix = archive_suffix(entry.name)
    if suffix is not None and not entry.is_symlink():
        return entry.name[: -len(suffix)] or entry.name
    return entry.name.rsplit(".", 1)[0] or entry.name


def _read_entry(entry: Path, is_folder: bool) -> SubmissionFiles | Ungradable:
    """What one entry of the submissions folder holds, or why it cannot be graded."""
    if is_folder:
        return choose_solver(read_regular_files(entry), "submission folder")
    if archive_suffix(entry.name) is not None and not entry.is_symlink():
        try:
            unpacked = read_archive(entry)
        except ArchiveError as e:
            return Ungradable("", entry, f"{entry.name}: the archive cannot be opened: {e}",
                              Grade.LOAD_ERROR)  # fmt: skip
        return choose_solver(unpacked, "archive")
    if entry.suffix == ".pl" or entry.is_symlink():
        # A link is refused under its own name; a file is the solver, sudoku.pl.
        files = read_regular_files(entry, None if entry.is_symlink() else SOLVER_NAME)
        if not files.files:
            return Ungradable("", entry, f"nothing could be read{_refusals(files)}")
        return files
    if entry.name.lower().endswith(_OTHER_ARCHIVES):
        return Ungradable(
            "",
            entry,
            f"{entry.name} is an archive that plpuzzle does not open: unpack it, or ask for "
            ".zip or .tar.gz",
            Grade.LOAD_ERROR,
        )
    return Ungradable(
        "", entry, f"{entry.name} is neither a folder, a .pl file nor a .zip or .tar.gz archive"
    )


def read_class(folder: Path) -> Intake:
    """Every entry of `folder` is one student, named by it (minus `.pl`,
    `.zip`, `.tar.gz`...).

    A folder or an archive (.zip, .tar.gz, .tgz, .tar, unpacked in
    memory, see workspace.read_archive) with `sudoku.pl` at its top, or
    with a single .pl file (used, with a note), or a lone `ID.pl` file,
    is graded. Anything else is Ungradable: graded 0 with a note, while
    the others are graded as usual. Hidden entries (`.DS_Store`) and
    `__MACOSX` are no students. Links are not followed: a link in place
    of a submission, or of a file in one, is refused. Raises GradingError
    only when `folder` is unusable or holds no student at all.
    """
    if not folder.is_dir():
        raise GradingError(f"{folder}: no such folder")
    intake = Intake()
    seen: dict[str, Path] = {}
    try:
        entries = sorted(folder.iterdir(), key=lambda e: (not e.is_dir(), e.name))
    except OSError as e:
        raise GradingError(f"{folder}: cannot list: {e.strerror}") from None
    for entry in entries:  # folders first: a folder wins over a same-named file
        if _hidden(entry.name):
            continue
        is_folder = entry.is_dir() and not entry.is_symlink()
        student = _student_of(entry, is_folder)
        if student in seen:
            intake.skipped.append(
                f"{entry}: student {student} also has {seen[student].name}, which is graded"
            )
            continue
        seen[student] = entry
        if not _STUDENT_ID.fullmatch(student):
            note = f"{entry.name!r} cannot be a student id (letters, digits, . _ - only)"
            intake.ungradable.append(Ungradable(student, entry, printable(note), Grade.LOAD_ERROR))
            continue
        found = _read_entry(entry, is_folder)
        if isinstance(found, Ungradable):
            note = printable(found.note)
            intake.ungradable.append(Ungradable(student, entry, note, found.grade))
            continue
        solver = entry / found.main if is_folder else entry
        intake.submissions.append(Submission(student, solver, entry, found, found.digest()))
    if not seen:
        raise GradingError(
            f"{folder}: no submissions (ID/{SOLVER_NAME} folders, ID.pl files or ID.zip archives)"
        )
    return intake


def find_submissions(folder: Path) -> list[Submission]:
    """The gradable submissions of `folder` (see read_class for the rest)."""
    return read_class(folder).submissions


@dataclass(frozen=True)
class Points:
    """Points per test: a default, overrides, and optionally a subset that counts."""

    default: float = 1.0
    per_test: dict[str, float] = field(default_factory=dict)
    only: tuple[str, ...] | None = None
    #: The file these came from, for errors that name it.
    source: Path | None = field(default=None, compare=False)

    def counts(self, test: str) -> bool:
        return self.only is None or test in self.only

    def of(self, test: str) -> float:
        return self.per_test.get(test, self.default)


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The text and table of a TOML file; errors name the file (and the
    line, where tomllib gives one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise GradingError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError:
        raise GradingError(f"{path}: not UTF-8 text") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        if match:
            where = f"{path}:{match.group(1)}:{match.group(2)}"
            raise GradingError(f"{where}: {str(e)[: match.start()].strip()}") from None
        raise GradingError(f"{path}: {e}") from None


def key_line(text: str, key: str, table: str | None = None) -> int | None:
    """The line where `key` is set in TOML `text` (inside `[table]`, if
    given): tomllib keeps no positions, and an error should point there."""
    current: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if header := re.fullmatch(r"\[\s*([^\]\s]+)\s*\]\s*(#.*)?", stripped):
            current = header.group(1).strip("\"'")
            continue
        name = re.match(r"""["']?([^"'=\s]+)["']?\s*=""", stripped)
        if name and name.group(1) == key and current == table:
            return number
    return None


def _at(path: Path, text: str, key: str, table: str | None = None) -> str:
    line = key_line(text, key, table)
    return f"{path}:{line}" if line else str(path)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def load_points(path: Path) -> Points:
    """Read a points file (TOML):

    default = 1                      # each correct test not listed below
    only = ["test001", "test002"]    # optional: only these tests count
    [points]
    test002 = 3

    Test names are checked against the suite later (check_points).
    """
    text, data = _read_toml(path)
    for key in data:
        if key not in ("default", "only", "points"):
            raise GradingError(
                f"{_at(path, text, key)}: unknown key {key!r} (known: default, only, [points])"
            )
    default = data.get("default", 1)
    per_test = data.get("points", {})
    only = data.get("only")
    if not _number(default) or default < 0:
        raise GradingError(f"{_at(path, text, 'default')}: 'default' must be a number >= 0")
    per_test = _points_table(path, text, per_test)
    if only is not None and not (isinstance(only, list) and all(isinstance(t, str) for t in only)):
        raise GradingError(f"{_at(path, text, 'only')}: 'only' must be a list of test names")
    return Points(float(default), per_test, tuple(only) if only is not None else None, source=path)


def _points_table(path: Path, text: str, table: object) -> dict[str, float]:
    """A TOML [points] table as test -> points, each checked to be a number
    >= 0 (an error names the file and the line)."""
    if not isinstance(table, dict):
        raise GradingError(f"{_at(path, text, 'points')}: [points] must map test names to numbers")
    for test, value in table.items():
        if not _number(value) or value < 0:
            raise GradingError(
                f"{_at(path, text, test, 'points')}: the points of {test} must be a number >= 0"
            )
    return {k: float(v) for k, v in table.items()}


def near(name: str, known: Iterable[str]) -> str:
    """` (did you mean X?)` for a mistyped name, or nothing."""
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check_points(points: Points, tests: list[str]) -> None:
    """Every test a points file names must be in the suite: a typo would
    otherwise change nothing, silently."""
    where = points.source or Path("points")
    text = where.read_text(encoding="utf-8") if points.source else ""
    known = set(tests)
    for test in points.per_test:
        if test not in known:
            raise GradingError(
                f"{_at(where, text, test, 'points')}: no test {test} in the suite"
                + near(test, known)
            )
    for test in points.only or ():
        if test not in known:
            raise GradingError(
                f"{_at(where, text, 'only')}: 'only' names {test}, which is not in the "
                f"suite{near(test, known)}"
            )


#: The file in a suite folder that declares how the suite is graded.
MANIFEST_NAME = "suite.toml"


@dataclass(frozen=True)
class Manifest:
    """What a suite declares about itself in suite.toml; None: not declared.

    rules = "oddsum"      # what an s/w info means in this suite
    time_limit = 60       # CPU seconds per test
    memory_limit = 2048   # MB per submission's sandbox
    [points]              # points per correct test
    default = 1
    test012 = 3
    """

    path: Path
    rules: Rules | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    points: Points | None = None


def load_manifest(suite: Path) -> Manifest | None:
    """The suite's suite.toml, or None when it has none."""
    path = suite / MANIFEST_NAME
    if not path.exists():
        return None
    text, data = _read_toml(path)
    known = ("rules", "time_limit", "memory_limit", "points")
    for key in data:
        if key not in known:
            raise GradingError(
                f"{_at(path, text, key)}: unknown key {key!r}{near(key, known)} "
                f"(known: rules, time_limit, memory_limit, [points])"
            )
    rules = data.get("rules")
    if rules is not None and rules not in [r.value for r in Rules]:
        raise GradingError(
            f"{_at(path, text, 'rules')}: rules must be one of "
            f"{', '.join(repr(r.value) for r in Rules)}, not {rules!r}"
        )
    time_limit = data.get("time_limit")
    if time_limit is not None and (not _number(time_limit) or time_limit <= 0):
        raise GradingError(f"{_at(path, text, 'time_limit')}: time_limit must be seconds > 0")
    memory = data.get("memory_limit")
    if memory is not None and (type(memory) is not int or memory < 64):
        raise GradingError(f"{_at(path, text, 'memory_limit')}: memory_limit must be MB >= 64")
    points = None
    if "points" in data:
        table = _points_table(path, text, data["points"])
        default = table.pop("default", 1.0)
        points = Points(default, table, source=path)
    return Manifest(
        path,
        Rules(rules) if rules is not None else None,
        float(time_limit) if time_limit is not None else None,
        memory,
        points,
    )


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
            "wait (moved out by the time a sandbox waited for a free core, up to "
            f"{WALL_STRETCH:g} times); {self.memory_mb} MB of memory per submission's sandbox"
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
#: What loading printed, kept once per student; and refused files listed.
NOTES_BUDGET = 6_000  # above the sandbox's budget for them (4 KB), with their prefixes
REFUSALS_SHOWN = 20


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


#: The SICStus 4 libraries a submission may call into, by module name.
SICSTUS_LIBRARIES = frozenset(
    [
        "lists",
        "sets",
        "ordsets",
        "between",
        "avl",
        "assoc",
        "ugraphs",
        "terms",
        "aggregate",
        "samsort",
        "random",
        "system",
        "file_systems",
        "clpfd",
        "timeout",
        "atts",
        "types",
    ]
)
_UNKNOWN = re.compile(r"Unknown procedure: (?:(\w+):)?(\w+)/(\d+)")
_EXPORTS = re.compile(r":- module\(sicstus_lib_(\w+),\s*\[(.*?)\]\s*\)", re.S)
_INDICATOR = re.compile(r"(\w+)/(\d+)")
_DOCUMENTED = re.compile(r"^documented\((\w+), *'?(\w+)'?/(\d+)\)\.", re.M)


@functools.cache
def documented_sicstus_predicates() -> dict[tuple[str, int], str]:
    """(name, arity) -> library, for the predicates the SICStus 4 manual
    documents in its libraries: what prolog/sicstus/L.pl exports (it
    exports exactly those), and the documented(L, Name/Arity) facts of
    prolog/sicstus/documented.pl for those plpuzzle knowingly lacks."""
    found: dict[tuple[str, int], str] = {}
    for path in sorted((prolog_dir() / "sicstus").glob("*.pl")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for library, exports in _EXPORTS.findall(text):
            for name, arity in _INDICATOR.findall(re.sub(r"%.*", "", exports)):
                found.setdefault((name, int(arity)), library)
        for library, name, arity in _DOCUMENTED.findall(text):
            found.setdefault((name, int(arity)), library)
    return found


def not_emulated(exception: str) -> str | None:
    """`library:name/arity` when a run stopped on a SICStus library
    predicate that plpuzzle does not provide: the tool's gap, not the
    student's fault."""
    match = _UNKNOWN.search(exception)
    if match is None:
        return None
    module, name, arity = match.group(1), match.group(2), int(match.group(3))
    documented = documented_sicstus_predicates()
    library = documented.get((name, arity))
    if module in SICSTUS_LIBRARIES and (library or not documented):
        return f"{module}:{name}/{arity}"  # a typo in a qualified call is the student's
    return f"{library}:{name}/{arity}" if library else None


#: How a detail that marks the tool's gap begins (the reports count them).
NOT_EMULATED = "not emulated: SICStus library predicate"


def measured(cpu: float, wall: float) -> str:
    """The times a timeout's detail ends with (the feedback groups without them)."""
    return f" (CPU {cpu:.2f} s of {wall:.2f} s)"


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
        if gap := not_emulated(obs.exception):
            gap = clip(gap, DETAIL_BUDGET)
            out.detail = f"{NOT_EMULATED} {printable(gap)} (plpuzzle's gap: please report it)"
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
        grade, reason = Grade.NOT_LOADABLE, located
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
