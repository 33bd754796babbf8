"""What the similarity report compares: each hand-in's Prolog files as text.

A hand-in is what grading loads: the solver first, then every other `.pl`
file of the submission (in hidden folders too: a copy in `.lib/core.pl`
is loaded all the same), then any other file that a compared file
includes or loads by name (`:- include('notes.txt')`). Each is decoded
the way the grader loads it: UTF-8 when it is valid UTF-8, else Latin-1.
Positions everywhere in the report are offsets into these texts, so the
side-by-side view marks the files as the student wrote them.

A file's budget counts its code, not its comments and layout: a copy
after a million characters of comment is still compared.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from plpuzzle.sandbox.workspace import SubmissionFiles
from plpuzzle.sudoku.grading.model import Submission
from plpuzzle.sudoku.grading.similarity.tokens import code_prefix
from plpuzzle.untrusted import one_line

#: Bounds on what of one hand-in is compared: files, and characters of
#: code of one file, comments and layout not counted (a solution of the
#: assignment is a few thousand); past them, the rest is left out, with
#: a note.
MAX_FILES = 20
MAX_CHARS = 1_000_000


@dataclass(frozen=True)
class SourceFile:
    """One Prolog file of a hand-in: its name in the hand-in and its text."""

    name: str
    text: str
    #: Characters left out past MAX_CHARS (0: none).
    cut: int = 0


@dataclass(frozen=True)
class HandIn:
    """A student's Prolog files, solver first, and a digest of their bytes
    (equal digests: identical files)."""

    student: str
    files: tuple[SourceFile, ...]
    digest: str
    notes: tuple[str, ...] = ()


def decode(data: bytes) -> str:
    """Text as SWI-Prolog's loader reads it under the SICStus layer: UTF-8
    (a byte-order mark dropped) when valid, else Latin-1."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _source(name: str, data: bytes) -> SourceFile:
    text = decode(data)
    if len(text) > MAX_CHARS:
        cut = code_prefix(text, MAX_CHARS)
        if cut < len(text):
            return SourceFile(name, text[:cut], len(text) - cut)
    return SourceFile(name, text)


def _litter(name: str) -> bool:
    """What archivers and file browsers leave, nobody's code."""
    return any(part == "__MACOSX" or part.startswith("._") for part in name.split("/"))


#: `include(F)`, `consult(F)`, `ensure_loaded(F)`, `use_module(F...)`,
#: `load_files(F...)`, `reexport(F...)`: the file they name (an atom,
#: quoted or not); the list form `:- [a, 'b/c']` is read by _LISTED.
_LOADS = re.compile(
    r"\b(?:include|consult|ensure_loaded|use_module|load_files|reexport)\s*\(\s*"
    r"(?:'((?:[^'\\\n]|\\.){1,300})'|([a-z][A-Za-z0-9_]{0,100}))"
)
_LISTED = re.compile(r":-\s*\[([^\]\n]{1,1000})\]")
_ATOM = re.compile(r"'((?:[^'\\\n]|\\.){1,300})'|\b([a-z][A-Za-z0-9_]{0,100})\b")


def loaded_names(text: str, folder: str) -> set[str]:
    """The hand-in's files that `text` (a file in `folder`) loads or
    includes by name, as names in the hand-in, with and without `.pl`."""
    named = [a or b for a, b in _LOADS.findall(text)]
    for listed in _LISTED.findall(text):
        named += [a or b for a, b in _ATOM.findall(listed)]
    out = set()
    for name in named:
        path = posixpath.normpath(posixpath.join(folder, name))
        out |= {path, f"{path}.pl"}
    return out


def compared_names(files: dict[str, bytes], main: str) -> list[str]:
    """The files of a hand-in that are compared, in order: the solver, the
    other .pl files by name, then the files those load by name."""
    names = [main] if main in files else []
    names += sorted(n for n in files if n != main and n.endswith(".pl") and not _litter(n))
    checked = 0
    while checked < len(names) and len(names) < MAX_FILES:
        name = names[checked]
        checked += 1
        parent = str(PurePosixPath(name).parent)
        folder = "" if parent == "." else parent
        for other in sorted(loaded_names(decode(files[name]), folder)):
            if other in files and other not in names and b"\0" not in files[other][:8192]:
                names.append(other)
    return names


def hand_in(submission: Submission) -> HandIn:
    """The files of a graded submission that grading loads (compared_names),
    each named as handed in (a lone `frank.pl`, loaded as sudoku.pl, is
    frank.pl in every note and report)."""
    return files_hand_in(submission.student, submission.files, submission.renamed())


def files_hand_in(
    student: str,
    submitted: SubmissionFiles,
    renamed: str | None = None,
    notes: list[str] | None = None,
) -> HandIn:
    """A student's files as a hand-in: those compared_names gives (with
    no solver, `main` empty: every .pl file), the solver shown as `renamed`."""
    files = dict(submitted.files)
    names = compared_names(files, submitted.main)
    notes = list(notes or [])
    if len(names) > MAX_FILES:
        notes.append(f"compared its first {MAX_FILES} of {len(names)} files")
        names = names[:MAX_FILES]
    digest = hashlib.sha256()
    sources = []
    for name in names:
        data = files[name]
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        shown = renamed if renamed and name == submitted.main else name
        source = _source(shown, data)
        if source.cut:
            notes.append(f"{one_line(shown)}: compared its first {MAX_CHARS:,} characters of code")
        sources.append(source)
    return HandIn(student, tuple(sources), digest.hexdigest(), tuple(notes))


def from_file(path: Path, name: str | None = None) -> HandIn:
    """A single file as a hand-in (the --base template). OSError if it
    cannot be read."""
    data = path.read_bytes()
    source = _source(path.name, data)
    digest = hashlib.sha256(data).hexdigest()
    return HandIn(name or path.name, (source,), digest)
