"""The course's text formats: puzzle files, expected-solution files, and
the byte-exact solution printout of the course harness.

Parsing never raises anything but FormatError for bad input, and every
FormatError names the file, line and column, so the CLI can show one clear
line instead of a traceback.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.model import MAX_K, Field, Grid, Info, Puzzle, grid_from_lists


@dataclass
class FormatError(Exception):
    """Bad input in a text file, with its 1-based position."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


def read_text(path: Path) -> str:
    """Read a file as text; the course's files are ASCII, but be lenient."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# --- puzzle files (SPEC 1.4) ------------------------------------------------

_TOKEN = re.compile(r"[^ \t]+")


def parse_puzzle(text: str, path: str = "<string>") -> Puzzle:
    """Parse the text of a `testNNNd.txt` puzzle file."""
    lines = [(no, line.rstrip("\r\n")) for no, line in enumerate(text.split("\n"), 1)]
    content = [(no, line) for no, line in lines if line.strip(" \t\r")]
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
    board = tuple(_parse_row(text, no, n, path) for no, text in rows)
    return Puzzle(k, board)


def load_puzzle(path: Path) -> Puzzle:
    """Read and parse a puzzle file; OSError is turned into a FormatError."""
    try:
        text = read_text(path)
    except OSError as e:
        raise FormatError(str(path), 0, 0, f"cannot read: {e.strerror}") from None
    return parse_puzzle(text, str(path))


def _first_col(text: str) -> int:
    return len(text) - len(text.lstrip(" \t")) + 1


def _parse_k(text: str, line: int, path: str) -> int:
    tokens = list(_TOKEN.finditer(text.rstrip("\r")))
    first = tokens[0]
    if not first.group().isdigit() or not first.group().isascii():
        raise FormatError(
            path,
            line,
            first.start() + 1,
            f"invalid cell size K {first.group()!r}: expected a number from 1 to {MAX_K}",
        )
    if len(tokens) > 1:
        raise FormatError(
            path, line, tokens[1].start() + 1, "unexpected text after the cell size K"
        )
    k = int(first.group())
    if not 1 <= k <= MAX_K:
        raise FormatError(
            path, line, first.start() + 1, f"cell size K={k} is out of range 1..{MAX_K}"
        )
    return k


def _parse_row(text: str, line: int, n: int, path: str) -> tuple[Field, ...]:
    tokens = list(_TOKEN.finditer(text.rstrip("\r")))
    if len(tokens) != n:
        col = tokens[n].start() + 1 if len(tokens) > n else len(text.rstrip("\r")) + 1
        raise FormatError(path, line, col, f"expected {n} fields in this row, found {len(tokens)}")
    return tuple(_parse_field(t.group(), line, t.start() + 1, n, path) for t in tokens)


def _parse_field(token: str, line: int, col: int, n: int, path: str) -> Field:
    if token == "-":
        return Field()
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
                raise FormatError(path, line, col + i, f"field {token!r} gives a value twice")
            value = int(token[i:j])
            if not 1 <= value <= n:
                raise FormatError(path, line, col + i, f"value {value} is out of range 1..{n}")
            seen.add("v")
            infos.append(value)
            i = j
            continue
        if ch in "eosw":
            if ch in seen:
                raise FormatError(path, line, col + i, f"field {token!r} repeats the info {ch!r}")
            seen.add(ch)
            infos.append(ch)
            i += 1
            continue
        raise FormatError(
            path,
            line,
            col + i,
            f"unknown character {ch!r} in field {token!r} "
            "(expected a value, e, o, s, w, or a lone -)",
        )
    return Field(tuple(infos))


def puzzle_to_text(puzzle: Puzzle) -> str:
    """Write a puzzle in the text format, columns aligned for reading."""
    cells = [[f.to_text() for f in row] for row in puzzle.fields]
    width = max(len(c) for row in cells for c in row)
    body = "\n".join(" ".join(c.rjust(width) for c in row) for row in cells)
    return f"{puzzle.k}\n{body}\n"


# --- expected-solution files (SPEC 1.5) --------------------------------------


def parse_solutions(text: str, path: str = "<string>", n: int | None = None) -> list[Grid]:
    """Parse a `testNNNs.txt` file: a Prolog list of grids followed by `.`."""
    body = text.rstrip()
    if not body:
        raise FormatError(path, 1, 1, "empty file: expected a list of solutions ending in '.'")
    if not body.endswith("."):
        line = body.count("\n") + 1
        col = len(body) - body.rfind("\n")
        raise FormatError(path, line, col, "the list of solutions must end with '.'")
    try:
        data = json.loads(body[:-1])
    except json.JSONDecodeError as e:
        raise FormatError(path, e.lineno, e.colno, f"not a list of solutions: {e.msg}") from None
    if not isinstance(data, list):
        raise FormatError(path, 1, 1, "expected a list of solutions")
    grids = []
    for index, sol in enumerate(data, 1):
        problem = grid_shape_problem(sol, n)
        if problem:
            raise FormatError(path, 1, 1, f"solution {index}: {problem}")
        n = len(sol)
        grids.append(grid_from_lists(sol))
    return grids


def load_solutions(path: Path, n: int | None = None) -> list[Grid]:
    """Read and parse an expected-solution file."""
    try:
        text = read_text(path)
    except OSError as e:
        raise FormatError(str(path), 0, 0, f"cannot read: {e.strerror}") from None
    return parse_solutions(text, str(path), n)


def grid_shape_problem(sol: object, n: int | None = None) -> str | None:
    """Why `sol` is not an N x N list of integers, or None when it is.

    N must be a square (N = K*K); when `n` is given the grid must match it.
    """
    if not isinstance(sol, list):
        return "not a list of rows"
    size = len(sol)
    if n is not None and size != n:
        return f"has {size} rows, expected {n}"
    if size == 0 or math.isqrt(size) ** 2 != size:
        return f"has {size} rows, which is not a square number K*K"
    for r, row in enumerate(sol, 1):
        if not isinstance(row, list):
            return f"row {r} is not a list"
        if len(row) != size:
            return f"row {r} has {len(row)} values, expected {size}"
        for value in row:
            if type(value) is not int:
                return f"row {r} holds {value!r}, which is not an integer"
    return None


def grid_term(grid: Grid) -> str:
    """One grid as a Prolog list of rows, e.g. `[[1,2],[2,1]]`."""
    return "[" + ",".join("[" + ",".join(map(str, row)) + "]" for row in grid) + "]"


def solutions_to_text(solutions: Iterable[Grid]) -> str:
    """Write solutions as an expected-solution file (sorted, as in SPEC 1.5)."""
    return "[" + ",".join(grid_term(g) for g in sorted(solutions)) + "].\n"


# --- solution printout (SPEC 1.6) --------------------------------------------


def format_board(grid: Grid, k: int) -> str:
    """One board as the course harness prints it (without the separators)."""
    n = k * k
    width = len(str(n)) + 1
    out = []
    for r, row in enumerate(grid):
        if r % k == 0:
            out.append("\n")
        out.append("\n")
        for c, value in enumerate(row):
            if c and c % k == 0:
                out.append(" ")
            out.append(str(value).rjust(width))
    out.append("\n")
    return "".join(out)


def format_solutions(solutions: Iterable[Grid], k: int) -> str:
    """All solutions, sorted, byte-exact with the course harness output."""
    return "".join("\n-----" + format_board(g, k) for g in sorted(solutions)) + "\n-----\n"


def harness_line(puzzle: str, count: int, cpu_seconds: float) -> str:
    """The course harness's per-puzzle line (its `stopper` report).

    The count is right-aligned in 4 columns and the time in 8, straight
    after the colons, e.g. `megoldásszám:   1, futási idő:   0.000 s`.
    """
    return f"Feladvány: {puzzle}, megoldásszám:{count:4d}, futási idő:{cpu_seconds:8.3f} s"
