"""Reading a class: one submission per student, from folders, bare files or
archives; what cannot be graded, and why.

Each entry is read on its own: whatever goes wrong with one (an archive
that cannot be unpacked, a name no file system takes, a bug of ours met
by a strange file) is that student's note, and the others are read as
usual. Ids come from entry names, which students chose: an id is shown
with its control characters escaped, and ids that mix scripts or look
like another student's id are shown with the look-alike characters
escaped too, and a note.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from confusable_homoglyphs import categories, confusables

from plpuzzle.sandbox.archives import ArchiveError, archive_suffix, read_archive
from plpuzzle.sandbox.workspace import (
    SubmissionFiles,
    decode_name,
    read_regular_files,
    shown_name,
    shown_path,
)
from plpuzzle.sudoku.grading.model import SOLVER_NAME, Grade, GradingError, Submission
from plpuzzle.untrusted import clip, one_line, printable

_STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
#: The longest student id (a course's ids are a few characters; a file
#: name must fit beside it).
MAX_ID_CHARS = 64
#: Characters of an id that is not one shown in the reports.
ID_SHOWN = 80
#: Bytes of an ungradable entry's note.
NOTE_BUDGET = 600


def id_problem(student: str) -> str | None:
    """Why `student` cannot be a student id, or None when it can."""
    if len(student) > MAX_ID_CHARS:
        return f"ids are at most {MAX_ID_CHARS} characters"
    if not _STUDENT_ID.fullmatch(student):
        return "letters, digits, . _ - only"
    return None


def _look_alikes(text: str) -> dict[str, str]:
    """Characters of `text` from another script that look like a Latin
    letter or digit: character -> the Latin one."""
    found = confusables.is_confusable(text, greedy=True, preferred_aliases=["latin"]) or []
    out = {}
    for item in found:
        if item["character"].isascii():
            continue
        latin = [h["c"] for h in item["homoglyphs"] if h["n"].startswith(("LATIN", "DIGIT"))]
        if latin:
            out[item["character"]] = latin[0]
    return out


def shown_id(student: str) -> str:
    """An id as the reports show it: control characters and characters
    that pass for Latin ones written as escapes, so that no two rows
    look alike and none writes on the terminal."""
    text = shown_name(student, ID_SHOWN)
    for char in _look_alikes(text):
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def skeleton(student: str) -> str:
    """What an id looks like: each look-alike character as its Latin one."""
    for char, latin in _look_alikes(student).items():
        student = student.replace(char, latin)
    return student.casefold()


def look_alike_notes(students: list[str]) -> tuple[dict[str, str], list[str]]:
    """id -> a note, for the ids that mix scripts or look like another id;
    and a warning for the teacher per such pair. The note names no other
    student: it is shown to this one."""
    by_look: dict[str, list[str]] = {}
    for s in students:
        by_look.setdefault(skeleton(s), []).append(s)
    notes = {}
    warnings = []
    for s in students:
        words = []
        scripts = categories.unique_aliases(s) - {"COMMON"}
        if len(scripts) > 1:
            words.append(f"its name mixes scripts ({', '.join(sorted(scripts)).lower()})")
        others = [o for o in by_look[skeleton(s)] if o != s]
        if others:
            words.append("it looks like another student's id")
            shown = ", ".join(shown_id(o) for o in others[:3])
            warnings.append(f"the id {shown_id(s)} looks like {shown}: two students, or one twice?")
        if words:
            notes[s] = "; ".join(words)
    return notes, warnings


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
    #: The files read, when there are some (several .pl files and no
    #: sudoku.pl): nothing to grade, but the similarity report compares
    #: them all.
    files: SubmissionFiles | None = None


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


def _names(names: list[str], most: int = 8) -> str:
    return ", ".join(shown_name(n) for n in names[:most]) + (", ..." if len(names) > most else "")


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
            hint = f"; file names are case-sensitive: {shown_name(only)} is not {SOLVER_NAME}"
        elif Path(only).name == SOLVER_NAME:
            hint = f"; it is in a subfolder, and {SOLVER_NAME} belongs at the top"
        note = (
            f"graded {shown_name(only)}: the only .pl file of the {what} "
            f"(the assignment asks for {SOLVER_NAME}{hint})"
        )
        return replace(files, main=only, notes=(*files.notes, note))
    if not prolog:
        return Ungradable("", Path(), f"no .pl file in the {what}{_refusals(files)}")
    return Ungradable(
        "",
        Path(),
        f"no {SOLVER_NAME} at the top of the {what}, and {len(prolog)} .pl files: {_names(prolog)} "
        f"(which one is the solver? it must be named {SOLVER_NAME})",
        Grade.LOAD_ERROR,
        replace(files, main=""),
    )


def _student_of(name: str, entry: Path, is_folder: bool) -> str:
    """The student an entry is, by its (decoded) name."""
    if is_folder:
        return name
    suffix = archive_suffix(name)
    if suffix is not None and not entry.is_symlink():
        return name[: -len(suffix)] or name
    return name.rsplit(".", 1)[0] or name


def _read_entry(entry: Path, is_folder: bool) -> SubmissionFiles | Ungradable:
    """What one entry of the submissions folder holds, or why it cannot be graded."""
    name = shown_name(decode_name(entry.name)[0])
    if is_folder:
        return choose_solver(read_regular_files(entry), "submission folder")
    if archive_suffix(entry.name) is not None and not entry.is_symlink():
        try:
            unpacked = read_archive(entry)
        except ArchiveError as e:
            return Ungradable(
                "", entry, f"{name}: the archive cannot be opened: {e}", Grade.LOAD_ERROR
            )
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
            f"{name} is an archive that plpuzzle does not open: unpack it, or ask for "
            ".zip or .tar.gz",
            Grade.LOAD_ERROR,
        )
    return Ungradable(
        "", entry, f"{name} is neither a folder, a .pl file nor a .zip or .tar.gz archive"
    )


def _read_safely(entry: Path, is_folder: bool) -> SubmissionFiles | Ungradable:
    """_read_entry, with anything it raises made this entry's note: one
    strange hand-in never stops the reading of the class."""
    try:
        return _read_entry(entry, is_folder)
    except Exception as e:  # the student's entry, not the class, is at stake
        why = printable(clip(f"{type(e).__name__}: {e}", 300))
        return Ungradable("", entry, f"this entry could not be read ({why})", Grade.LOAD_ERROR)


def read_class(folder: Path, jobs: int = 1) -> Intake:
    """Every entry of `folder` is one student, named by it (minus `.pl`,
    `.zip`, `.tar.gz`...).

    A folder or an archive (.zip, .tar.gz, .tgz, .tar, unpacked in
    memory by a process of its own, see sandbox.archives) with
    `sudoku.pl` at its top, or with a single .pl file (used, with a
    note), or a lone `ID.pl` file, is graded. Anything else is
    Ungradable: graded 0 with a note, while the others are graded as
    usual. Hidden entries (`.DS_Store`) and `__MACOSX` are no students.
    Links are not followed: a link in place of a submission, or of a
    file in one, is refused. `jobs` entries are read at a time. Raises
    GradingError only when `folder` is unusable or holds no student at
    all.
    """
    if not folder.is_dir():
        raise GradingError(f"{folder}: no such folder")
    intake = Intake()
    seen: dict[str, Path] = {}
    as_named: dict[str, str] = {}  # id as shown -> the entry's own name for it
    try:
        entries = sorted(folder.iterdir(), key=lambda e: (not e.is_dir(), e.name))
    except OSError as e:
        raise GradingError(f"{folder}: cannot list: {e.strerror}") from None
    to_read: list[tuple[str, Path, bool]] = []
    for entry in entries:  # folders first: a folder wins over a same-named file
        if _hidden(entry.name):
            continue
        is_folder = entry.is_dir() and not entry.is_symlink()
        name = decode_name(entry.name)[0]
        student = _student_of(name, entry, is_folder)
        if (problem := id_problem(student)) is not None:
            as_named[shown_id(student)] = student
            student = shown_id(student)
        if student in seen:
            intake.skipped.append(
                f"{shown_path(entry)}: student {student} also has "
                f"{shown_path(Path(seen[student].name))}, which is graded"
            )
            continue
        seen[student] = entry
        if problem is not None:
            note = f"'{shown_name(name)}' cannot be a student id ({problem})"
            intake.ungradable.append(Ungradable(student, entry, note, Grade.LOAD_ERROR))
        else:
            to_read.append((student, entry, is_folder))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        found = pool.map(lambda item: _read_safely(item[1], item[2]), to_read)
        for (student, entry, is_folder), files in zip(to_read, found, strict=True):
            if isinstance(files, Ungradable):
                note = printable(clip(files.note, NOTE_BUDGET))
                intake.ungradable.append(Ungradable(student, entry, note, files.grade, files.files))
                continue
            solver = entry / files.main if is_folder else entry
            intake.submissions.append(Submission(student, solver, entry, files, files.digest()))
    _note_look_alikes(intake, as_named)
    if not seen:
        raise GradingError(
            f"{folder}: no submissions (ID/{SOLVER_NAME} folders, ID.pl files or ID.zip archives)"
        )
    return intake


def _note_look_alikes(intake: Intake, as_named: dict[str, str]) -> None:
    """A note for each ungradable id that mixes scripts or looks like
    another id (a valid id is ASCII, so only theirs can); `as_named` gives
    the entry's own name of each id shown escaped."""
    notes, warnings = look_alike_notes([as_named.get(s, s) for s in intake.students])
    intake.skipped += warnings
    intake.ungradable = [
        replace(u, note=f"{u.note}; {notes[named]}")
        if (named := as_named.get(u.student, u.student)) in notes
        else u
        for u in intake.ungradable
    ]


def find_submissions(folder: Path) -> list[Submission]:
    """The gradable submissions of `folder` (see read_class for the rest)."""
    return read_class(folder).submissions


def _first_word(line: str) -> str:
    """The id of a roster line: the line, or its first word when a mail
    address follows it."""
    words = line.split()
    return words[0] if len(words) == 2 and "@" in words[1] else line


def load_roster(path: Path) -> list[str]:
    """Student ids, one a line; blank lines and # comments are skipped,
    and so is a mail address after the id (the service's roster has them).
    A line that is no student id is an error naming it (file:line)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise GradingError(f"{path}: cannot read the roster: {e.strerror}") from None
    except UnicodeDecodeError:
        raise GradingError(f"{path}: the roster is not UTF-8 text") from None
    ids = [_first_word(line.split("#", 1)[0].strip()) for line in lines]
    for number, student in enumerate(ids, 1):
        if student and (problem := id_problem(student)) is not None:
            raise GradingError(
                f"{path}:{number}: '{one_line(student, 80)}' cannot be a student id ({problem})"
            )
    return list(dict.fromkeys(i for i in ids if i))
