"""What the similarity report compares: each hand-in's Prolog files as text.

A hand-in is every `.pl` file of a student's submission (the solver first),
decoded the way the grader loads it: UTF-8 when it is valid UTF-8, else
Latin-1. Positions everywhere in the report are offsets into these texts,
so the side-by-side view marks the files as the student wrote them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.grading.model import Submission

#: Bounds on what of one hand-in is compared: .pl files, and characters of
#: one file (a solution of the assignment is a few thousand); past them,
#: the rest is left out, with a note.
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
        return SourceFile(name, text[:MAX_CHARS], len(text) - MAX_CHARS)
    return SourceFile(name, text)


def _hidden(name: str) -> bool:
    return any(part.startswith(".") or part == "__MACOSX" for part in name.split("/"))


def hand_in(submission: Submission) -> HandIn:
    """The Prolog files of a graded submission: the file it loads, then
    its other .pl files by name (a helper file is part of the solution)."""
    files = dict(submission.files.files)
    main = submission.files.main
    others = sorted(n for n in files if n != main and n.endswith(".pl") and not _hidden(n))
    names = ([main] if main in files else []) + others
    notes = []
    if len(names) > MAX_FILES:
        notes.append(f"compared its first {MAX_FILES} of {len(names)} .pl files")
        names = names[:MAX_FILES]
    digest = hashlib.sha256()
    sources = []
    for name in names:
        data = files[name]
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        source = _source(name, data)
        if source.cut:
            notes.append(f"{name}: compared its first {MAX_CHARS:,} characters")
        sources.append(source)
    return HandIn(submission.student, tuple(sources), digest.hexdigest(), tuple(notes))


def from_file(path: Path, name: str | None = None) -> HandIn:
    """A single file as a hand-in (the --base template). OSError if it
    cannot be read."""
    data = path.read_bytes()
    source = _source(path.name, data)
    digest = hashlib.sha256(data).hexdigest()
    return HandIn(name or path.name, (source,), digest)
