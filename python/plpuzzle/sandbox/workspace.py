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
import os
import re
import shutil
import stat
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sandbox import cgroups

FOLDER_PREFIX = "plpuzzle-grading-"
LOCK_NAME = "lock"

#: Bounds on what one submission may bring into its sandbox: files, bytes
#: in all, and bytes in one file (below the sandbox's file-size limit,
#: under which the files are written into it).
MAX_FILES = 500
MAX_BYTES = 32 * 1024 * 1024
MAX_FILE_BYTES = 8 * 1024 * 1024


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


@dataclass(frozen=True)
class SubmissionFiles:
    """A submission's regular files (relative name, content), and what was refused."""

    files: tuple[tuple[str, bytes], ...]
    refused: tuple[str, ...]

    def digest(self) -> str:
        """A digest of exactly what would be graded, refusals included."""
        h = hashlib.sha256()
        for name, data in self.files:
            h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        for note in self.refused:
            h.update(b"refused\0" + note.encode())
        return h.hexdigest()

    def write(self, target: Path) -> Path:
        """Write the files into `target`, readable by any user (the sandbox's uid)."""
        target.mkdir(parents=True, exist_ok=True, mode=0o755)
        for name, data in self.files:
            out = target / name
            out.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            out.write_bytes(data)
            out.chmod(0o644)
        return target


def read_regular_files(source: Path, file_name: str | None = None) -> SubmissionFiles:
    """The regular files below `source` (a file or a folder), without following links.

    A single file is named `file_name` (default: its own name). Links,
    devices, fifos and sockets are refused with a reason, and so are
    files past the size and count bounds.
    """
    files: list[tuple[str, bytes]] = []
    refused: list[str] = []
    total = 0

    def read_file(src: Path, rel: str) -> None:
        nonlocal total
        if len(files) >= MAX_FILES:
            refused.append(f"{rel}: more than {MAX_FILES} files in the submission")
            return
        try:
            fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as e:
            refused.append(f"{rel}: cannot be read ({e.strerror})")
            return
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                refused.append(f"{rel}: not a regular file")
                return
            data = f.read(min(MAX_BYTES - total, MAX_FILE_BYTES) + 1)
        if len(data) > MAX_FILE_BYTES:
            refused.append(f"{rel}: larger than {MAX_FILE_BYTES >> 20} MB")
            return
        if total + len(data) > MAX_BYTES:
            refused.append(f"{rel}: the submission is larger than {MAX_BYTES >> 20} MB")
            return
        total += len(data)
        files.append((rel, data))

    def walk(folder: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as e:
            refused.append(f"{prefix or './'}: cannot be listed ({e.strerror})")
            return
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if entry.is_symlink():
                refused.append(f"{rel}: a symbolic link (links are not followed)")
            elif entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path), rel + "/")
            elif entry.is_file(follow_symlinks=False):
                read_file(Path(entry.path), rel)
            else:
                refused.append(f"{rel}: not a regular file (a device, fifo or socket)")

    if source.is_symlink():
        refused.append(f"{file_name or source.name}: a symbolic link (links are not followed)")
    elif source.is_dir():
        walk(source, "")
    else:
        read_file(source, file_name or source.name)
    return SubmissionFiles(tuple(files), tuple(refused))
