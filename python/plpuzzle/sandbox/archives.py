"""A hand-in archive (.zip, .tar.gz, .tgz, .tar) unpacked into memory,
never onto disk, by a process that can only spoil its own result.

The archive is parsed in a child process (unpack_child.py, the standard
library alone) under a CPU-time, memory and output limit and a wall-clock
deadline: a parser that hangs on a crafted header, a codec that raises
what nobody expected, a member that unpacks to gigabytes, all end that
child, and the hand-in is reported as an archive that could not be
unpacked, in words. The child reads no member further than the bounds,
whatever the headers claim, and counts what it unpacks across members,
refused ones included. Everything it sends back is checked again here:
names, kinds, sizes, counts (workspace._Collector).
"""

from __future__ import annotations

import functools
import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from plpuzzle import confined
from plpuzzle.sandbox.workspace import (
    MAX_BYTES,
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_PATH_BYTES,
    UNPACK_BUDGET,
    SubmissionFiles,
    _Collector,
    decode_name,
    shown_name,
)

#: The archive kinds a hand-in may be, by how the name ends.
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
#: An archive larger than this is not opened (a hand-in is a few files).
MAX_ARCHIVE_BYTES = 16 * 1024 * 1024
#: Entries an archive may list (files, folders, links), read or not.
MAX_ENTRIES = 2 * MAX_FILES
#: What archivers and file browsers add that is nobody's work.
ARCHIVE_LITTER = ("__MACOSX/", ".DS_Store", "Thumbs.db", "desktop.ini")
#: A .tar.gz may unpack to at most this much tar (files and headers).
MAX_TAR_BYTES = MAX_BYTES + MAX_ENTRIES * 1024

#: The unpacking process's limits: CPU seconds, wall-clock seconds,
#: address space (MB). An honest hand-in takes a few milliseconds.
UNPACK_CPU_SECONDS = 10
UNPACK_WALL_SECONDS = 30.0
UNPACK_MEMORY_MB = 1024

_CHILD = Path(__file__).with_name("unpack_child.py")

#: How each kind the child reports is refused, in words.
_NOT_FILES = {
    "symlink": "a symbolic link",
    "hardlink": "a link",
    "special": "not a regular file",
}


class ArchiveError(Exception):
    """An archive that cannot be opened safely: the message says why."""


def archive_suffix(name: str) -> str | None:
    """The archive suffix `name` ends with (`.tar.gz`, `.zip`...), or None."""
    lower = name.lower()
    return next((s for s in ARCHIVE_SUFFIXES if lower.endswith(s)), None)


def member_name(raw: str) -> str | None:
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


@dataclass(frozen=True)
class _Member:
    """A member as the child reported it: its name (decoded), whether the
    name was Latin-1, its kind, why it was refused, and a file's bytes."""

    raw: str
    latin1: bool
    kind: str
    why: str = ""
    data: bytes = b""


def read_archive(path: Path) -> SubmissionFiles:
    """The files of a .zip or .tar(.gz) hand-in, unpacked in memory.

    Nothing lands outside the hand-in (absolute paths and `..` are
    refused), no link or device is taken, and the bounds on files and
    bytes hold while reading, whatever the headers claim. When every file
    sits in one top folder (an archived folder), that folder is left out
    of the names. Raises ArchiveError when the archive cannot be opened,
    or could not be unpacked within the child's limits.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise ArchiveError(f"cannot be read ({e.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ArchiveError("not a regular file")
        if info.st_size > MAX_ARCHIVE_BYTES:
            raise ArchiveError(f"larger than {MAX_ARCHIVE_BYTES >> 20} MB")
        suffix = archive_suffix(path.name) or ".tar"
        members = _unpack(fd, suffix)
    finally:
        os.close(fd)
    return _collect(shown_name(decode_name(path.name)[0]), members)


def _unpack(fd: int, suffix: str) -> list[_Member]:
    """The members as the child process reports them."""
    bounds = {
        "kind": suffix,
        "max_archive": MAX_ARCHIVE_BYTES,
        "max_tar": MAX_TAR_BYTES,
        "max_file": MAX_FILE_BYTES,
        "max_name": MAX_PATH_BYTES,
        "max_entries": MAX_ENTRIES,
        "unpack_budget": UNPACK_BUDGET,
    }
    # Room for every byte the bounds allow, and the frames around them.
    output_mb = (UNPACK_BUDGET + MAX_ENTRIES * (2 * MAX_PATH_BYTES + 512)) // (1 << 20) + 2
    done = confined.run(
        [sys.executable, "-I", "-S", str(_CHILD), json.dumps(bounds)],
        stdin=fd,
        limits=confined.ProcessLimits(
            cpu_seconds=UNPACK_CPU_SECONDS,
            memory_mb=UNPACK_MEMORY_MB,
            file_size_mb=output_mb,
            open_files=32,
        ),
        wall_seconds=UNPACK_WALL_SECONDS,
    )
    members, end = _frames(done.stdout)
    if end is None:
        raise ArchiveError(
            f"unpacking it was stopped by {done.ended_by()} (it may take "
            f"{UNPACK_CPU_SECONDS} s of CPU time and {UNPACK_MEMORY_MB} MB of memory)"
        )
    if end.get("error"):
        raise ArchiveError(f"not a readable {suffix} archive ({end['error']})")
    return members


def _frames(out: bytes) -> tuple[list[_Member], dict | None]:
    """The child's frames, checked: members, and the end (None if it never
    came or anything is amiss)."""
    members: list[_Member] = []
    at = 0
    while at < len(out):
        newline = out.find(b"\n", at, at + 4 * MAX_PATH_BYTES)
        if newline < 0:
            return members, None
        line = out[at:newline]
        at = newline + 1
        try:
            head = json.loads(line[2:])
        except ValueError:
            return members, None
        if line.startswith(b"E ") and isinstance(head, dict):
            return members, head if at == len(out) else None
        if not line.startswith(b"M ") or not isinstance(head, dict):
            return members, None
        try:
            raw, latin1 = decode_name(bytes.fromhex(str(head["name"])))
            kind, size = str(head["kind"]), int(head.get("size", 0))
        except (KeyError, ValueError):
            return members, None
        data = out[at : at + size] if kind == "file" else b""
        if len(data) != size or size > MAX_FILE_BYTES:
            return members, None
        at += len(data)
        members.append(_Member(raw, latin1, kind, str(head.get("why", ""))[:300], data))
    return members, None


def _head(data: bytes, limit: int) -> bytes:
    return data[:limit]


def _collect(archive: str, members: list[_Member]) -> SubmissionFiles:
    named = [(member_name(m.raw), m) for m in members]
    kept = [(rel, m) for rel, m in named if rel is None or not _litter(rel)]
    tops = {rel.split("/", 1)[0] for rel, _ in kept if rel is not None}
    strip = ""
    if len(tops) == 1 and all(
        rel is not None and ("/" in rel or m.kind == "dir") for rel, m in kept
    ):
        strip = next(iter(tops)) + "/"
    out = _Collector()
    for rel, m in kept:
        if rel is None:
            out.refuse(m.raw, "a path outside the hand-in's folder")
            continue
        name = rel[len(strip) :] if strip and rel.startswith(strip) else rel
        if m.kind == "dir" or not name:
            continue
        if m.kind == "file":
            out.add(name, functools.partial(_head, m.data), latin1=m.latin1)
        elif m.kind == "refused":
            out.refuse(rel, m.why or "refused")
        else:
            words = _NOT_FILES.get(m.kind, "not a regular file")
            out.refuse(rel, f"{words} (only regular files are taken from an archive)")
    what = f"unpacked from {archive}" + (
        f" (its folder {shown_name(strip[:-1])} left out)" if strip else ""
    )
    return out.result(what)
