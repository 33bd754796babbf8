"""The difference between two uploads of a student, bounded and kept.

GNU diff (Myers' algorithm: time linear in the files' length when they
differ little, as a student's successive uploads do) compares the two
files in a process of its own, with a time limit; files over
MAX_BYTES are not compared line by line at all. What it found is kept
under the data folder by the two files' digests, so the same difference
is never computed twice. At most SLOTS comparisons run at once.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import threading
from pathlib import Path

from plpuzzle.i18n import N_, _
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.store import Upload

#: Lines of a difference kept and shown at most.
MAX_LINES = 2000
#: Files larger than this are not compared line by line.
MAX_BYTES = 256 * 1024
#: Seconds a comparison may take.
SECONDS = 10.0
SLOTS = threading.BoundedSemaphore(2)

Lines = list[tuple[str, str]]

#: The notes a kept comparison may hold: kept in English, shown in the
#: reader's language.
SAME = N_("the two files are the same")
NOT_COMPARED = N_("the two files could not be compared; download both")


def note(text: str) -> tuple[Lines, int]:
    return [("note", text)], 0


def difference(service: Service, old: Upload | None, new: Upload) -> tuple[Lines, int]:
    """(kind, text) lines of a unified diff of two uploads' files, at
    most MAX_LINES of them, and how many more there are."""
    if new.suffix != ".pl" or (old is not None and old.suffix != ".pl"):
        return note(_("archives are not compared line by line; download them to compare"))
    biggest = max(new.size, old.size if old else 0)
    if biggest > MAX_BYTES:
        return note(
            _(
                "files over %(most)s KB are not compared here (%(kb)s KB); download "
                "both to compare them"
            )
            % {"most": MAX_BYTES // 1024, "kb": biggest // 1024}
        )
    cache = service.data / "diffs" / f"{old.blob if old else 'none'}-{new.blob}.json"
    try:
        kept = json.loads(cache.read_text(encoding="utf-8"))
        lines, more = [(str(k), str(t)) for k, t in kept["lines"]], int(kept["more"])
    except (OSError, ValueError, KeyError, TypeError):
        before = service.blobs.path(old.blob) if old else Path(os.devnull)
        with SLOTS:
            found = _diff(before, service.blobs.path(new.blob))
        if found is None:
            return note(_("the comparison took too long; download both files to compare them"))
        lines, more = found
        _keep(cache, lines, more)

    def name(upload: Upload) -> str:
        return _("upload %(id)s") % {"id": upload.number or upload.id}

    names = {"--- a": "--- " + (name(old) if old else _("nothing")), "+++ b": "+++ " + name(new)}
    shown: Lines = []
    for kind, text in lines:  # the files named, a kept note in the reader's language
        shown.append((kind, names.get(text, text) if kind == "file" else
                      _(text) if kind == "note" else text))  # fmt: skip
    return shown, more


def _diff(before: Path, after: Path) -> tuple[Lines, int] | None:
    """GNU diff -u of two files, named a and b (the pages name them)."""
    try:
        run = subprocess.run(
            ["diff", "-u", "--label", "a", "--label", "b", str(before), str(after)],
            capture_output=True, timeout=SECONDS, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return None
    if run.returncode == 0:
        return [("note", SAME)], 0
    if run.returncode != 1:  # diff's own trouble
        return [("note", NOT_COMPARED)], 0
    text = run.stdout.decode("utf-8", "replace").splitlines()
    out: Lines = []
    for n, line in enumerate(text[:MAX_LINES]):
        head = n < 2 and line.startswith(("--- ", "+++ "))
        kind = "file" if head else {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
        out.append((kind, line))
    return out, max(0, len(text) - MAX_LINES)


def _keep(cache: Path, lines: Lines, more: int) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{secrets.token_hex(4)}.tmp")
    tmp.write_text(json.dumps({"lines": lines, "more": more}), encoding="utf-8")
    os.replace(tmp, cache)
