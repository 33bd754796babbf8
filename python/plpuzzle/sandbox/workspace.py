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
import functools
import hashlib
import io
import os
import re
import shutil
import stat
import tarfile
import tempfile
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator
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
    """A submission's regular files (relative name, content), and what was refused.

    `main` is the file to load (relative name); `notes` say how it was
    chosen or unpacked, when that is worth telling.
    """

    files: tuple[tuple[str, bytes], ...]
    refused: tuple[str, ...]
    main: str = "sudoku.pl"
    notes: tuple[str, ...] = ()

    def digest(self) -> str:
        """A digest of exactly what would be graded, refusals included."""
        h = hashlib.sha256()
        for name, data in self.files:
            h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        for note in self.refused:
            h.update(b"refused\0" + note.encode())
        if self.main != "sudoku.pl":
            h.update(b"main\0" + self.main.encode())
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


class _Collector:
    """Files taken into a submission, within MAX_FILES, MAX_FILE_BYTES and
    MAX_BYTES, each refused with a reason past them. Contents are read
    through `read(limit)`, never more than a bound past what is allowed,
    whatever a file (or an archive's header) says its size is."""

    def __init__(self) -> None:
        self.files: list[tuple[str, bytes]] = []
        self.refused: list[str] = []
        self.total = 0

    def add(self, rel: str, read: Callable[[int], bytes]) -> None:
        if len(self.files) >= MAX_FILES:
            self.refused.append(f"{rel}: more than {MAX_FILES} files in the submission")
            return
        data = read(min(MAX_BYTES - self.total, MAX_FILE_BYTES) + 1)
        if len(data) > MAX_FILE_BYTES:
            self.refused.append(f"{rel}: larger than {MAX_FILE_BYTES >> 20} MB")
            return
        if self.total + len(data) > MAX_BYTES:
            self.refused.append(f"{rel}: the submission is larger than {MAX_BYTES >> 20} MB")
            return
        self.total += len(data)
        self.files.append((rel, data))

    def result(self, *notes: str) -> SubmissionFiles:
        return SubmissionFiles(tuple(self.files), tuple(self.refused), notes=notes)


def read_regular_files(source: Path, file_name: str | None = None) -> SubmissionFiles:
    """The regular files below `source` (a file or a folder), without following links.

    A single file is named `file_name` (default: its own name). Links,
    devices, fifos and sockets are refused with a reason, and so are
    files past the size and count bounds.
    """
    out = _Collector()

    def read_file(src: Path, rel: str) -> None:
        try:
            fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as e:
            out.refused.append(f"{rel}: cannot be read ({e.strerror})")
            return
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                out.refused.append(f"{rel}: not a regular file")
                return
            out.add(rel, f.read)

    def walk(folder: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as e:
            out.refused.append(f"{prefix or './'}: cannot be listed ({e.strerror})")
            return
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if entry.is_symlink():
                out.refused.append(f"{rel}: a symbolic link (links are not followed)")
            elif entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path), rel + "/")
            elif entry.is_file(follow_symlinks=False):
                read_file(Path(entry.path), rel)
            else:
                out.refused.append(f"{rel}: not a regular file (a device, fifo or socket)")

    if source.is_symlink():
        out.refused.append(f"{file_name or source.name}: a symbolic link (links are not followed)")
    elif source.is_dir():
        walk(source, "")
    else:
        read_file(source, file_name or source.name)
    return out.result()


# -- archives -----------------------------------------------------------------------

#: The archive kinds a hand-in may be, by how the name ends.
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
#: An archive larger than this is not opened (a hand-in is a few files).
MAX_ARCHIVE_BYTES = 16 * 1024 * 1024
#: Entries an archive may list (files, folders, links), read or not.
MAX_ENTRIES = 2 * MAX_FILES
#: What archivers and file browsers add that is nobody's work.
ARCHIVE_LITTER = ("__MACOSX/", ".DS_Store", "Thumbs.db", "desktop.ini")


class ArchiveError(Exception):
    """An archive that cannot be opened safely: the message says why."""


def archive_suffix(name: str) -> str | None:
    """The archive suffix `name` ends with (`.tar.gz`, `.zip`...), or None."""
    lower = name.lower()
    return next((s for s in ARCHIVE_SUFFIXES if lower.endswith(s)), None)


def _member_name(raw: str) -> str | None:
    """An archive member's path as a relative path inside the hand-in, or
    None when it would land outside it (absolute, `..`, a drive letter)."""
    name = raw.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if name.startswith("/") or ".." in parts or (parts and ":" in parts[0]):
        return None
    return "/".join(parts)


def _litter(rel: str) -> bool:
    return any(rel == x.rstrip("/") or rel.startswith(x) for x in ARCHIVE_LITTER) or any(
        part.startswith("._") for part in rel.split("/")
    )


def read_archive(path: Path) -> SubmissionFiles:
    """The files of a .zip or .tar(.gz) hand-in, unpacked in memory, never on disk.

    Nothing lands outside the hand-in (absolute paths and `..` are
    refused), no link or device is taken, and the bounds on files and
    bytes hold while reading, whatever the headers claim; the archive
    itself may list at most MAX_ENTRIES entries. When every file sits
    in one top folder (an archived folder), that folder is left out of
    the names. Raises ArchiveError when the archive cannot be opened.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise ArchiveError(f"cannot be read ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ArchiveError("not a regular file")
        if info.st_size > MAX_ARCHIVE_BYTES:
            raise ArchiveError(f"larger than {MAX_ARCHIVE_BYTES >> 20} MB")
        data = f.read(MAX_ARCHIVE_BYTES + 1)
    suffix = archive_suffix(path.name)
    try:
        with _entries(data, suffix or "") as entries:
            return _collect(path, entries)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise ArchiveError(f"not a readable {suffix} archive ({e})") from None


#: An archive member: its relative name, its kind ("file", "dir", "outside"
#: or why it is refused), and how to read a file's first N bytes.
_Entry = tuple[str, str, Callable[[int], bytes] | None]


def _collect(path: Path, entries: list[_Entry]) -> SubmissionFiles:
    kept = [(rel, kind, read) for rel, kind, read in entries if not _litter(rel)]
    tops = {rel.split("/", 1)[0] for rel, _, _ in kept}
    strip = ""
    if len(tops) == 1 and all("/" in rel or kind == "dir" for rel, kind, _ in kept):
        strip = next(iter(tops)) + "/"
    out = _Collector()
    for rel, kind, read in kept:
        name = rel[len(strip) :] if strip and rel.startswith(strip) else rel
        if kind == "dir" or not name:
            continue
        if kind == "outside":
            out.refused.append(f"{rel}: a path outside the hand-in's folder")
        elif kind != "file" or read is None:
            out.refused.append(f"{rel}: {kind} (only regular files are taken from an archive)")
        else:
            out.add(name, read)
    what = f"unpacked from {path.name}" + (f" (its folder {strip[:-1]} left out)" if strip else "")
    return out.result(what)


@contextlib.contextmanager
def _entries(data: bytes, suffix: str) -> Iterator[list[_Entry]]:
    """The members of an archive in memory; their readers work inside the block."""
    if suffix == ".zip":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            yield _zip_entries(archive)
        return
    if suffix in (".tar.gz", ".tgz"):
        data = _gunzip(data, MAX_BYTES + MAX_ENTRIES * 1024)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        yield _tar_entries(tar)


def _gunzip(data: bytes, limit: int) -> bytes:
    """`data` decompressed, refused when it would unpack to more than `limit` bytes."""
    unpack = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = unpack.decompress(data, limit + 1)
    if len(out) > limit or unpack.unconsumed_tail:
        raise ArchiveError(f"it unpacks to more than {limit >> 20} MB")
    return out


def _zip_entries(archive: zipfile.ZipFile) -> list[_Entry]:
    members = archive.infolist()
    if len(members) > MAX_ENTRIES:
        raise ArchiveError(f"it lists {len(members)} entries, more than {MAX_ENTRIES}")
    out: list[_Entry] = []
    for member in members:
        rel = _member_name(member.filename)
        mode = member.external_attr >> 16
        if rel is None:
            out.append((member.filename, "outside", None))
        elif member.is_dir():
            out.append((rel, "dir", None))
        elif stat.S_ISLNK(mode):
            out.append((rel, "a symbolic link", None))
        elif stat.S_IFMT(mode) and not stat.S_ISREG(mode):  # no type bits: a plain file
            out.append((rel, "not a regular file", None))
        else:
            out.append((rel, "file", functools.partial(_read_zip, archive, member)))
    return out


def _read_zip(archive: zipfile.ZipFile, member: zipfile.ZipInfo, limit: int) -> bytes:
    with archive.open(member) as f:
        return f.read(limit)


def _tar_entries(archive: tarfile.TarFile) -> list[_Entry]:
    out: list[_Entry] = []
    while (member := archive.next()) is not None:
        if len(out) >= MAX_ENTRIES:
            raise ArchiveError(f"it lists more than {MAX_ENTRIES} entries")
        rel = _member_name(member.name)
        if rel is None:
            out.append((member.name, "outside", None))
        elif member.isdir():
            out.append((rel, "dir", None))
        elif member.issym() or member.islnk():
            out.append((rel, "a link", None))
        elif not member.isfile():
            out.append((rel, "not a regular file", None))
        else:
            out.append((rel, "file", functools.partial(_read_tar, archive, member)))
    return out


def _read_tar(archive: tarfile.TarFile, member: tarfile.TarInfo, limit: int) -> bytes:
    f = archive.extractfile(member)
    return f.read(limit) if f is not None else b""
