"""Reading a class: one submission per student, from folders, bare files or
archives; what cannot be graded, and why."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from plpuzzle.sandbox.workspace import (
    ArchiveError,
    SubmissionFiles,
    archive_suffix,
    read_archive,
    read_regular_files,
)
from plpuzzle.sudoku.grading.model import SOLVER_NAME, Grade, GradingError, Submission
from plpuzzle.untrusted import printable

_STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


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
