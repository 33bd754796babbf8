"""The grader's working folders, and what goes into a sandbox.

Every grading run works in a folder of its own under the system's
temporary folder (`plpuzzle-grading-RUN`). A run killed with SIGKILL
cannot clean up, so every new run first removes the folders (and control
groups) of runs that are gone. A run id names the grader's process and
that process's start time, so whether a run is gone is known from /proc
alone, wherever its folder is: a live grader's sandboxes are never
touched, whatever temporary folder it uses. The run also holds a lock on
a file in its folder while it lives, which tells its folder from others.

Submissions are read into memory and written into the run's folder, and
only regular files are taken: a symbolic link could point at expected
solutions or at files of the machine, a fifo could block the grader, and
a device could be anything. What is refused is listed for the report.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import itertools
import os
import re
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sandbox import cgroups
from plpuzzle.untrusted import one_line

FOLDER_PREFIX = "plpuzzle-grading-"
LOCK_NAME = "lock"

_RUN_ID = re.compile(r"r(\d+)s(\d+)x[0-9a-f]+")


def _start_ticks(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot), or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(text[text.rfind(")") + 2 :].split()[19])


def new_run_id() -> str:
    """A run id that names this process and its start time."""
    pid = os.getpid()
    return f"r{pid}s{_start_ticks(pid)}x{uuid.uuid4().hex[:6]}"


def run_is_alive(run_id: str) -> bool | None:
    """Whether the grader of `run_id` still runs; None if it is no run id of ours."""
    match = _RUN_ID.fullmatch(run_id)
    if match is None:
        return None
    return _start_ticks(int(match.group(1))) == int(match.group(2))


def _lock_is_free(folder: Path) -> bool:
    """True when no live process holds the lock of a run folder."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return True  # a run that died before it took its lock
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    else:
        return True
    finally:
        os.close(fd)


def _owned_by_us(path: Path) -> bool:
    with contextlib.suppress(OSError):
        info = path.lstat()
        return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
    return False


class WorkspaceError(Exception):
    """The working folder cannot be used for sandboxes (the machine's setup)."""


class RunFolder:
    """This run's working folder: locked while it lives, removed on close.

    Only the grader uses it: sandboxes get their files copied in through
    descriptors, never a path into it, so it is private to the grader's uid.
    """

    def __init__(self, base: Path | None = None) -> None:
        self.base = Path(base or tempfile.gettempdir()).resolve()
        self.remove_stale(self.base)
        self.run_id = new_run_id()
        self.path = self.base / f"{FOLDER_PREFIX}{self.run_id}"
        self.path.mkdir(mode=0o700)
        self._lock = os.open(self.path / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(self._lock, fcntl.LOCK_EX)

    @staticmethod
    def remove_stale(base: Path) -> int:
        """Remove the folders and control groups of runs that are gone."""
        removed = 0
        with contextlib.suppress(OSError):
            for folder in base.iterdir():
                if not folder.name.startswith(FOLDER_PREFIX) or not _owned_by_us(folder):
                    continue
                alive = run_is_alive(folder.name[len(FOLDER_PREFIX) :])
                if alive is None:  # not named like a run: only an abandoned, locked folder
                    alive = not (folder / LOCK_NAME).exists() or not _lock_is_free(folder)
                if not alive:
                    shutil.rmtree(folder, ignore_errors=True)
                    removed += 1
        return removed + cgroups.remove_stale(run_is_alive)

    def folder(self, name: str, mode: int = 0o755) -> Path:
        """A fresh sub-folder of the run folder."""
        path = self.path / name
        path.mkdir(mode=mode)
        path.chmod(mode)
        return path

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self._lock)

    def __enter__(self) -> RunFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- what a hand-in holds ---------------------------------------------------------------

#: Bounds on what one submission may bring into its sandbox: files, bytes
#: in all, and bytes in one file (below the sandbox's file-size limit,
#: under which the files are written into it).
MAX_FILES = 500
MAX_BYTES = 32 * 1024 * 1024
MAX_FILE_BYTES = 8 * 1024 * 1024
#: Bytes a hand-in may unpack to in all, refused files included: past it,
#: nothing more is read.
UNPACK_BUDGET = 2 * MAX_BYTES
#: Bytes of one name in a path, and of a whole path: what file systems
#: (and so the sandbox) can lay out.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
#: Folders deep, and entries listed, in a hand-in that is a folder.
MAX_DEPTH = 32
MAX_LISTED = 2 * MAX_FILES
#: Refusals kept per hand-in (the rest are counted).
MAX_REFUSALS = 50
#: Characters of a name shown in a note.
NAME_SHOWN = 120


def decode_name(raw: str | bytes) -> tuple[str, bool]:
    """A file name as text: UTF-8 when it is, else Latin-1 (the encoding
    of an old system), and whether it was Latin-1. A str holds the bytes
    the system gave as surrogate escapes (os.scandir does that)."""
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("latin-1"), True


def shown_name(name: str, budget: int = NAME_SHOWN) -> str:
    """A name from a hand-in as a note shows it (untrusted.one_line)."""
    return one_line(name, budget)


def shown_path(path: Path) -> str:
    """A path on the grading machine whose last parts a student named, as
    the reports show it: its names decoded (decode_name), on one line."""
    return shown_name(decode_name(str(path))[0], 4 * NAME_SHOWN)


def name_problem(rel: str) -> str | None:
    """Why a relative path cannot be laid out in a sandbox, or None."""
    if "\0" in rel:
        return "a name with a NUL byte"
    if len(_utf8(rel)) > MAX_PATH_BYTES:
        return f"a path longer than {MAX_PATH_BYTES} bytes"
    if any(len(_utf8(part)) > MAX_NAME_BYTES for part in rel.split("/")):
        return f"a name longer than {MAX_NAME_BYTES} bytes"
    return None


@dataclass(frozen=True)
class SubmissionFiles:
    """A submission's regular files (relative name, content), and what was refused.

    `main` is the file to load (relative name); `notes` say how it was
    chosen or unpacked, when that is worth telling. Every name is text
    a sandbox can lay out (see name_problem), and every refusal is short.
    """

    files: tuple[tuple[str, bytes], ...]
    refused: tuple[str, ...]
    main: str = "sudoku.pl"
    notes: tuple[str, ...] = ()

    def digest(self) -> str:
        """A digest of exactly what would be graded, refusals included."""
        h = hashlib.sha256()
        for name, data in self.files:
            h.update(_utf8(name) + b"\0" + hashlib.sha256(data).digest())
        for note in self.refused:
            h.update(b"refused\0" + _utf8(note))
        if self.main != "sudoku.pl":
            h.update(b"main\0" + _utf8(self.main))
        return h.hexdigest()

    def write(self, target: Path) -> Path:
        """Write the files into `target` (for tools that want a folder)."""
        target.mkdir(parents=True, exist_ok=True, mode=0o755)
        for name, data in self.files:
            out = target / name
            out.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            out.write_bytes(data)
            out.chmod(0o644)
        return target


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


class _Collector:
    """Files taken into a submission, within MAX_FILES, MAX_FILE_BYTES and
    MAX_BYTES, each refused with a reason past them. Contents are read
    through `read(limit)`, never more than a bound past what is allowed,
    whatever a file (or an archive's header) says its size is; what is
    read counts against UNPACK_BUDGET, refused or not. A name that a
    sandbox cannot lay out (too long, or a file where another file needs
    a folder) is refused too."""

    def __init__(self) -> None:
        self.files: list[tuple[str, bytes]] = []
        self.refused: list[str] = []
        self.more_refused = 0
        self.total = 0
        self.read_in_all = 0
        self.latin1: list[str] = []
        self._names: set[str] = set()
        self._folders: set[str] = set()

    def refuse(self, rel: str, why: str) -> None:
        if len(self.refused) < MAX_REFUSALS:
            self.refused.append(f"{shown_name(rel)}: {why}")
        else:
            self.more_refused += 1

    def _clash(self, rel: str) -> str | None:
        if rel in self._folders:
            return "a folder of the hand-in has the same name"
        parts = rel.split("/")
        for n in range(1, len(parts)):
            parent = "/".join(parts[:n])
            if parent in self._names:
                return f"{shown_name(parent)} is a file of the hand-in, not a folder"
        return None

    def add(self, rel: str, read: Callable[[int], bytes], latin1: bool = False) -> None:
        problem = name_problem(rel) or self._clash(rel)
        if problem is not None:
            self.refuse(rel, problem)
            return
        if len(self.files) >= MAX_FILES:
            self.refuse(rel, f"more than {MAX_FILES} files in the submission")
            return
        if self.read_in_all >= UNPACK_BUDGET:
            self.refuse(rel, f"not read: the hand-in holds more than {UNPACK_BUDGET >> 20} MB")
            return
        data = read(min(MAX_BYTES - self.total, MAX_FILE_BYTES) + 1)
        self.read_in_all += len(data)
        if len(data) > MAX_FILE_BYTES:
            self.refuse(rel, f"larger than {MAX_FILE_BYTES >> 20} MB")
            return
        if self.total + len(data) > MAX_BYTES:
            self.refuse(rel, f"the submission is larger than {MAX_BYTES >> 20} MB")
            return
        self.total += len(data)
        self.files.append((rel, data))
        self._names.add(rel)
        parts = rel.split("/")
        self._folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
        if latin1:
            self.latin1.append(rel)

    def result(self, *notes: str) -> SubmissionFiles:
        refused = list(self.refused)
        if self.more_refused:
            refused.append(f"... and {self.more_refused} more entries not taken")
        if self.latin1:
            shown = ", ".join(shown_name(n) for n in self.latin1[:5])
            more = f" and {len(self.latin1) - 5} more" if len(self.latin1) > 5 else ""
            notes = (*notes, f"names that are not UTF-8, read as Latin-1: {shown}{more}")
        return SubmissionFiles(tuple(self.files), tuple(refused), notes=notes)


def read_regular_files(source: Path, file_name: str | None = None) -> SubmissionFiles:
    """The regular files below `source` (a file or a folder), without following links.

    A single file is named `file_name` (default: its own name). Links,
    devices, fifos and sockets are refused with a reason, and so are
    files past the size and count bounds; at most MAX_LISTED entries are
    looked at, MAX_DEPTH folders deep.
    """
    out = _Collector()
    listed = 0

    def read_file(src: Path, rel: str, latin1: bool) -> None:
        try:
            fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as e:
            out.refuse(rel, f"cannot be read ({e.strerror})")
            return
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                out.refuse(rel, "not a regular file")
                return
            out.add(rel, f.read, latin1)

    def walk(folder: Path, prefix: str, depth: int) -> None:
        nonlocal listed
        if depth > MAX_DEPTH:
            out.refuse(prefix or "./", f"more than {MAX_DEPTH} folders deep: not read")
            return
        try:
            with os.scandir(folder) as it:
                listing = itertools.islice(it, MAX_LISTED - listed + 1)
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as e:
            out.refuse(prefix or "./", f"cannot be listed ({e.strerror})")
            return
        for entry in entries:
            listed += 1
            name, latin1 = decode_name(entry.name)
            rel = f"{prefix}{name}"
            if listed > MAX_LISTED:
                out.refuse(rel, f"more than {MAX_LISTED} entries in the hand-in: not read")
                return
            if entry.is_symlink():
                out.refuse(rel, "a symbolic link (links are not followed)")
            elif entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path), rel + "/", depth + 1)
            elif entry.is_file(follow_symlinks=False):
                read_file(Path(entry.path), rel, latin1)
            else:
                out.refuse(rel, "not a regular file (a device, fifo or socket)")

    own_name = file_name or decode_name(source.name)[0]
    if source.is_symlink():
        out.refuse(own_name, "a symbolic link (links are not followed)")
    elif source.is_dir():
        walk(source, "", 0)
    else:
        read_file(source, own_name, file_name is None and decode_name(source.name)[1])
    return out.result()
