"""The ground both text formats stand on, below the model: FormatError,
reading a file, numbers and tokens, and the grammar of a puzzle file as
plain values (K and rows of infos).

It imports nothing of the package, so that `Puzzle.parse` (in the model)
and the rest of the text formats (textformat, which builds on the model)
can both use it without an import cycle.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

#: The largest cell size K the formats take (N = K*K = 100).
MAX_K = 10

Info = str | int
"""An info: a letter of the text format (e, o, s, w), or an int for `v(M)`."""

#: The infos of one field, in the order the file gives them.
Infos = tuple[Info, ...]
#: The rows of a puzzle, each a tuple of fields.
Rows = tuple[tuple[Infos, ...], ...]


@dataclass
class FormatError(Exception):
    """Bad input in a text file, with its 1-based position."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        if self.line <= 0:  # about the whole file (e.g. unreadable): no position
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


def read_text(path: Path) -> str:
    """Read a file as text; the course's files are ASCII, but be lenient."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_input(path: Path) -> str:
    """read_text, but any failure to read is a FormatError naming the file.

    A directory or a dangling symlink where a file should be gets a message
    of its own, since "no such file" would be misleading for them.
    """
    try:
        return read_text(path)
    except OSError as e:
        reason = e.strerror or str(e)
        if os.path.islink(path) and not os.path.exists(path):
            reason = "dangling symbolic link"
        elif os.path.isdir(path):
            reason = "is a directory, not a file"
        raise FormatError(str(path), 0, 0, f"cannot read: {reason}") from None


#: Echo at most this much of a bad token: a fuzzed file may hold kilobytes of it.
SHOWN_CHARS = 40

#: A number with more significant digits than this is out of any range the
#: formats allow (N <= 100); checking it first keeps int() off huge strings.
MAX_DIGITS = 6

LINE_BREAK = re.compile(r"\r\n|\r|\n")


def shown(token: str) -> str:
    """A token quoted for an error message, cut short when it is long."""
    if len(token) <= SHOWN_CHARS:
        return repr(token)
    return f"{token[:SHOWN_CHARS]!r}... ({len(token)} characters)"


def number(digits: str) -> int | None:
    """The value of an ASCII digit string, or None when it is too long."""
    significant = digits.lstrip("0")
    if len(significant) > MAX_DIGITS:
        return None
    return int(significant or "0")


def too_long(digits: str) -> str:
    head = digits if len(digits) <= 20 else digits[:20] + "..."
    return f"number too long: {head} has {len(digits)} digits"


# --- puzzle files (README: Text format) -----------------------------------

_TOKEN = re.compile(r"[^ \t]+")


def puzzle_rows(text: str, path: str = "<string>") -> tuple[int, Rows]:
    """K and the rows of infos of a `testNNNd.txt` puzzle file's text."""
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    lines = list(enumerate(LINE_BREAK.split(text), 1))
    content = [(no, line) for no, line in lines if line.strip(" \t")]
    if not content:
        raise FormatError(path, 1, 1, "empty file: expected the cell size K on the first line")
    k_line, k_text = content[0]
    k = _parse_k(k_text, k_line, path)
    n = k * k
    rows = content[1:]
    if len(rows) > n:
        extra_line, extra_text = rows[n]
        raise FormatError(
            path, extra_line, _first_col(extra_text), f"too many rows: K={k} needs {n} rows"
        )
    if len(rows) < n:
        eof_line = len(lines) if lines[-1][1] else max(len(lines) - 1, 1)
        raise FormatError(
            path, eof_line, 1, f"too few rows: K={k} needs {n} rows, found {len(rows)}"
        )
    return k, tuple(_parse_row(text, no, n, path) for no, text in rows)


def _first_col(text: str) -> int:
    return len(text) - len(text.lstrip(" \t")) + 1


def _parse_k(text: str, line: int, path: str) -> int:
    tokens = list(_TOKEN.finditer(text))
    first = tokens[0]
    if not first.group().isdigit() or not first.group().isascii():
        raise FormatError(
            path,
            line,
            first.start() + 1,
            f"invalid cell size K {shown(first.group())}: expected a number from 1 to {MAX_K}",
        )
    if len(tokens) > 1:
        raise FormatError(
            path, line, tokens[1].start() + 1, "unexpected text after the cell size K"
        )
    k = number(first.group())
    if k is None:
        raise FormatError(path, line, first.start() + 1, f"cell size K: {too_long(first.group())}")
    if not 1 <= k <= MAX_K:
        raise FormatError(
            path, line, first.start() + 1, f"cell size K={k} is out of range 1..{MAX_K}"
        )
    return k


def _parse_row(text: str, line: int, n: int, path: str) -> tuple[Infos, ...]:
    tokens = list(_TOKEN.finditer(text))
    if len(tokens) != n:
        col = tokens[n].start() + 1 if len(tokens) > n else len(text) + 1
        raise FormatError(path, line, col, f"expected {n} fields in this row, found {len(tokens)}")
    return tuple(_parse_field(t.group(), line, t.start() + 1, n, path) for t in tokens)


def _parse_field(token: str, line: int, col: int, n: int, path: str) -> Infos:
    if token == "-":
        return ()
    infos: list[Info] = []
    seen: set[str] = set()
    i = 0
    while i < len(token):
        ch = token[i]
        if ch.isascii() and ch.isdigit():
            j = i
            while j < len(token) and token[j].isascii() and token[j].isdigit():
                j += 1
            if "v" in seen:
                raise FormatError(path, line, col + i, f"field {shown(token)} gives a value twice")
            value = number(token[i:j])
            if value is None:
                raise FormatError(path, line, col + i, too_long(token[i:j]))
            if not 1 <= value <= n:
                raise FormatError(path, line, col + i, f"value {value} is out of range 1..{n}")
            seen.add("v")
            infos.append(value)
            i = j
            continue
        if ch in "eosw":
            if ch in seen:
                raise FormatError(
                    path, line, col + i, f"field {shown(token)} repeats the info {ch!r}"
                )
            seen.add(ch)
            infos.append(ch)
            i += 1
            continue
        raise FormatError(
            path,
            line,
            col + i,
            f"unknown character {ch!r} in field {shown(token)} "
            "(expected a value, e, o, s, w, or a lone -)",
        )
    return tuple(infos)
