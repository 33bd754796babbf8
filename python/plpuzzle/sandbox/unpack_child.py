"""Unpacks one untrusted archive: run by plpuzzle.sandbox.archives in a
process of its own, under the kernel's limits and a wall-clock deadline.

Archive parsers have had hangs and blow-ups that a crafted hand-in can
trigger (a pax header of millions of digits is quadratic in some Python
releases' tarfile; a member's headers may lie about its size; a codec may
raise anything). Here they can only stop this process, which the parent
then reports as that student's archive that could not be unpacked.

Only the standard library is used (the parent starts this file with
`python -I -S`). The archive comes on standard input; the arguments are
one JSON object (kind, bounds). What it finds goes to standard output as
frames, each a line `M {json}` followed, for a file, by exactly `size`
bytes of its content, and at the end a line `E {json}`:

    M {"name": HEX, "kind": "file", "size": N}      a file, N bytes follow
    M {"name": HEX, "kind": KIND}                    a folder, or no file:
                                                     dir, symlink, hardlink, special
    M {"name": HEX, "kind": "refused", "why": TEXT}  not taken, and why
    E {"error": null}                                the end
    E {"error": TEXT}                                the archive is unreadable

Names are the member's bytes, in hex, cut to `max_name` bytes (the parent
refuses longer ones); the parent decides everything else about them.
"""

from __future__ import annotations

import io
import json
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO


class Emitter:
    """Writes frames, within the bounds the parent gave."""

    def __init__(self, out: BinaryIO, args: dict[str, Any]) -> None:
        self.out = out
        self.max_file: int = args["max_file"]
        self.max_name: int = args["max_name"]
        self.budget: int = args["unpack_budget"]
        self.budget_mb = self.budget >> 20
        self.max_entries: int = args["max_entries"]
        self.entries = 0

    def frame(
        self, raw_name: bytes, kind: str, why: str | None = None, data: bytes | None = None
    ) -> None:
        self.entries += 1
        if self.entries > self.max_entries:
            raise Refused(f"it lists more than {self.max_entries} entries")
        if len(raw_name) > self.max_name:
            kind, why, data = "refused", f"a name of {len(raw_name):,} bytes", None
        head: dict[str, Any] = {"name": raw_name[: self.max_name].hex(), "kind": kind}
        if why is not None:
            head["why"] = why
        if data is not None:
            head["size"] = len(data)
        self.out.write(b"M " + json.dumps(head).encode() + b"\n")
        if data is not None:
            self.out.write(data)

    def file(self, raw_name: bytes, declared: int, read: Callable[[int], bytes]) -> None:
        """A file member, read no further than the bounds allow."""
        if len(raw_name) > self.max_name:
            self.frame(raw_name, "refused")
            return
        mb = self.max_file >> 20
        if declared > self.max_file:
            self.frame(raw_name, "refused", why=f"larger than {mb} MB")
            return
        if self.budget <= 0:
            self.frame(raw_name, "refused", why=self.spent())
            return
        try:
            data = read(min(self.max_file, self.budget) + 1)
        except Exception as e:  # encrypted, unsupported, corrupt: each codec its own error
            why = f"cannot be unpacked ({type(e).__name__}: {e})"[:300]
            self.frame(raw_name, "refused", why=why)
            return
        self.budget -= len(data)
        if len(data) > self.max_file:
            self.frame(raw_name, "refused", why=f"larger than {mb} MB")
        elif self.budget < 0:
            self.frame(raw_name, "refused", why=self.spent())
        else:
            self.frame(raw_name, "file", data=data)

    def spent(self) -> str:
        return f"not unpacked: the archive unpacks to more than {self.budget_mb} MB in all"

    def end(self, error: str | None) -> None:
        self.out.write(b"E " + json.dumps({"error": error}).encode() + b"\n")


class Refused(Exception):
    """The archive breaks a bound: the message says which."""


def zip_members(data: bytes, emit: Emitter) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        if len(members) > emit.max_entries:
            raise Refused(f"it lists {len(members)} entries, more than {emit.max_entries}")
        for member in members:
            raw = member.orig_filename.encode(
                "utf-8" if member.flag_bits & 0x800 else "cp437", "surrogateescape"
            )
            mode = member.external_attr >> 16
            kind = mode & 0o170000
            if member.is_dir():
                emit.frame(raw, "dir")
            elif kind == 0o120000:
                emit.frame(raw, "symlink")
            elif kind and kind != 0o100000:  # no type bits: a plain file
                emit.frame(raw, "special")
            else:

                def read(limit: int, member: zipfile.ZipInfo = member) -> bytes:
                    with archive.open(member) as f:
                        return f.read(limit)

                emit.file(raw, member.file_size, read)


def tar_members(data: bytes, emit: Emitter) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
        while (member := archive.next()) is not None:
            raw = member.name.encode("utf-8", "surrogateescape")
            if member.isdir():
                emit.frame(raw, "dir")
            elif member.issym():
                emit.frame(raw, "symlink")
            elif member.islnk():
                emit.frame(raw, "hardlink")
            elif not member.isfile():
                emit.frame(raw, "special")
            else:

                def read(limit: int, member: tarfile.TarInfo = member) -> bytes:
                    f = archive.extractfile(member)
                    return f.read(limit) if f is not None else b""

                emit.file(raw, member.size, read)


def gunzip(data: bytes, limit: int) -> bytes:
    """`data` decompressed; Refused past `limit` bytes."""
    unpack = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = unpack.decompress(data, limit + 1)
    if len(out) > limit or unpack.unconsumed_tail:
        raise Refused(f"it unpacks to more than {limit >> 20} MB")
    return out


def main() -> None:
    args = json.loads(sys.argv[1])
    data = sys.stdin.buffer.read(args["max_archive"] + 1)
    out = sys.stdout.buffer
    emit = Emitter(out, args)
    try:
        if args["kind"] == ".zip":
            zip_members(data, emit)
        else:
            if args["kind"] in (".tar.gz", ".tgz"):
                data = gunzip(data, args["max_tar"])
            tar_members(data, emit)
    except Exception as e:
        words = str(e) if isinstance(e, Refused) else f"{type(e).__name__}: {e}"
        emit.end(words[:300] or type(e).__name__)
    else:
        emit.end(None)
    out.flush()


if __name__ == "__main__":
    main()
