"""The course's text formats: puzzle files, expected-solution files, and
the byte-exact solution printout of the course harness.

Parsing never raises anything but FormatError for bad input, and every
FormatError names the file, line and column, so the CLI can show one clear
line instead of a traceback.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.domain.model import MAX_K, Field, Grid, Info, Puzzle, grid_from_lists


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


def _read_input(path: Path) -> str:
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

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def shown(token: str) -> str:
    """A token quoted for an error message, cut short when it is long."""
    if len(token) <= SHOWN_CHARS:
        return repr(token)
    return f"{token[:SHOWN_CHARS]!r}... ({len(token)} characters)"


def _number(digits: str) -> int | None:
    """The value of an ASCII digit string, or None when it is too long."""
    significant = digits.lstrip("0")
    if len(significant) > MAX_DIGITS:
        return None
    return int(significant or "0")


def _too_long(digits: str) -> str:
    head = digits if len(digits) <= 20 else digits[:20] + "..."
    return f"number too long: {head} has {len(digits)} digits"


# --- puzzle files (README: Text format) -----------------------------------

_TOKEN = re.compile(r"[^ \t]+")


def parse_puzzle(text: str, path: str = "<string>") -> Puzzle:
    """Parse the text of a `testNNNd.txt` puzzle file."""
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    lines = list(enumerate(_LINE_BREAK.split(text), 1))
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
    board = tuple(_parse_row(text, no, n, path) for no, text in rows)
    return Puzzle(k, board)


def load_puzzle(path: Path) -> Puzzle:
    """Read and parse a puzzle file; a read error is a FormatError too."""
    return parse_puzzle(_read_input(path), str(path))


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
    k = _number(first.group())
    if k is None:
        raise FormatError(path, line, first.start() + 1, f"cell size K: {_too_long(first.group())}")
    if not 1 <= k <= MAX_K:
        raise FormatError(
            path, line, first.start() + 1, f"cell size K={k} is out of range 1..{MAX_K}"
        )
    return k


def _parse_row(text: str, line: int, n: int, path: str) -> tuple[Field, ...]:
    tokens = list(_TOKEN.finditer(text))
    if len(tokens) != n:
        col = tokens[n].start() + 1 if len(tokens) > n else len(text) + 1
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
                raise FormatError(path, line, col + i, f"field {shown(token)} gives a value twice")
            value = _number(token[i:j])
            if value is None:
                raise FormatError(path, line, col + i, _too_long(token[i:j]))
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
    return Field(tuple(infos))


def puzzle_to_text(puzzle: Puzzle) -> str:
    """Write a puzzle in the text format, columns aligned for reading."""
    cells = [[f.to_text() for f in row] for row in puzzle.fields]
    width = max(len(c) for row in cells for c in row)
    body = "\n".join(" ".join(c.rjust(width) for c in row) for row in cells)
    return f"{puzzle.k}\n{body}\n"


# --- expected-solution files (README: Text format) ------------------------


def parse_solutions(text: str, path: str = "<string>", n: int | None = None) -> list[Grid]:
    """Parse a `testNNNs.txt` file: a Prolog list of grids followed by `.`.

    Files of the plain JSON-like shape are read with json.loads, which is
    fast; the regex that admits them bounds the nesting and the digits, so
    json.loads can neither recurse deeply nor refuse a long number. All else,
    and every error, goes through a reader of its own that knows each
    token's line and column.
    """
    text = text.removeprefix("\ufeff")
    if _PLAIN_SOLUTIONS.fullmatch(text):
        data = json.loads(text.rstrip()[:-1])
        size = n if n is not None else len(data[0]) if data else None
        if all(grid_shape_problem(sol, size) is None for sol in data):
            return [grid_from_lists(sol) for sol in data]
    reader = _SolutionReader(text, path)
    items = reader.read_file()
    grids = []
    for index, sol in enumerate(items, 1):
        size = reader.check_grid(sol, index, n)
        n = size
        grids.append(grid_from_lists([_ints(row) for row in _items(sol)]))
    return grids


def load_solutions(path: Path, n: int | None = None) -> list[Grid]:
    """Read and parse an expected-solution file."""
    return parse_solutions(_read_input(path), str(path), n)


@dataclass
class _Item:
    """A list or an integer of a solution file, with where it starts."""

    at: int
    value: int | list[_Item]


def _items(item: _Item) -> list[_Item]:
    assert isinstance(item.value, list), "the reader puts lists at levels 1 and 2"
    return item.value


def _ints(row: _Item) -> list[int]:
    return [v.value for v in _items(row) if isinstance(v.value, int)]


_SPACE = " \t\r\n\f\v"
_JSON_SPACE = r"[ \t\r\n]*"
_JSON_INT = r"-?(?:0|[1-9][0-9]{0,5})"


def _json_list(item: str) -> str:
    return rf"\[{_JSON_SPACE}(?:{item}{_JSON_SPACE}(?:,{_JSON_SPACE}{item}{_JSON_SPACE})*)?\]"


#: `[grid, ...].` in JSON's syntax, at most 3 levels deep, numbers of at most 6 digits.
_PLAIN_SOLUTIONS = re.compile(
    _JSON_SPACE + _json_list(_json_list(_json_list(_JSON_INT))) + _JSON_SPACE + r"\." + _JSON_SPACE
)
_DELIMITERS = _SPACE + ",[]"


class _SolutionReader:
    """Reads the term `[grid, ...].` of an expected-solution file.

    Levels: 1 is the list of solutions, 2 a solution (its rows), 3 a row (its
    values). Nothing may nest deeper, so recursion is at most three calls.
    """

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.i = 0

    def error(self, at: int, message: str) -> FormatError:
        """A FormatError at offset `at`, counting CR LF, CR and LF as line breaks."""
        breaks = list(_LINE_BREAK.finditer(self.text, 0, at))
        line_start = breaks[-1].end() if breaks else 0
        return FormatError(self.path, len(breaks) + 1, at - line_start + 1, message)

    def skip_space(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in _SPACE:
            self.i += 1

    def token_at(self, at: int) -> str:
        end = at
        while end < len(self.text) and self.text[end] not in _DELIMITERS:
            end += 1
        return self.text[at : max(end, at + 1)]

    def read_file(self) -> list[_Item]:
        self.skip_space()
        if self.i == len(self.text):
            raise self.error(self.i, "empty file: expected a list of solutions ending in '.'")
        if self.text[self.i] != "[":
            raise self.error(
                self.i,
                f"not a list of solutions: expected '[', found {shown(self.token_at(self.i))}",
            )
        body = self.text.rstrip(_SPACE)
        if not body.endswith("."):  # the commonest slip: say so before any other fault
            raise self.error(len(body), "the list of solutions must end with '.'")
        items = self.read_list(1, [])
        self.skip_space()
        if self.i == len(self.text):
            raise self.error(self.i, "the list of solutions must end with '.'")
        if self.text[self.i] != ".":
            raise self.error(
                self.i,
                f"the list of solutions must end with '.', found {shown(self.token_at(self.i))}",
            )
        self.i += 1
        self.skip_space()
        if self.i < len(self.text):
            raise self.error(
                self.i, f"unexpected text after the final '.': {shown(self.token_at(self.i))}"
            )
        return _items(items)

    def read_list(self, level: int, where: list[int]) -> _Item:
        """The list starting at self.i; `where` numbers the enclosing items."""
        start = self.i
        self.i += 1
        items: list[_Item] = []
        self.skip_space()
        if self.i < len(self.text) and self.text[self.i] == "]":
            self.i += 1
            return _Item(start, items)
        while True:
            self.skip_space()
            place = [*where, len(items) + 1]
            items.append(self.read_element(level, place))
            self.skip_space()
            if self.i == len(self.text):
                raise self.error(
                    self.i, f"not a list of solutions: the file ends inside {_what(where)}"
                )
            ch = self.text[self.i]
            self.i += 1
            if ch == "]":
                return _Item(start, items)
            if ch != ",":
                raise self.error(
                    self.i - 1,
                    "not a list of solutions: expected ',' or ']' "
                    f"in {_what(where)}, found {shown(self.token_at(self.i - 1))}",
                )

    def read_element(self, level: int, place: list[int]) -> _Item:
        at = self.i
        if at == len(self.text):
            raise self.error(
                at, f"not a list of solutions: the file ends inside {_what(place[:-1])}"
            )
        if self.text[at] in ",]":
            wanted = "an integer" if level == 3 else "a list"
            raise self.error(
                at,
                f"not a list of solutions: expected {wanted} in {_what(place[:-1])}, "
                f"found {self.text[at]!r}",
            )
        if level < 3:
            if self.text[at] != "[":
                raise self.error(
                    at,
                    f"not a list of solutions: {_what(place)} is not a list, "
                    f"found {shown(self.token_at(at))}",
                )
            return self.read_list(level + 1, place)
        token = self.token_at(at)
        digits = token.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()):
            found = "a list" if token == "[" else shown(token)
            why = ": a list of solutions has exactly 3 levels of brackets" if token == "[" else ""
            raise self.error(at, f"{_what(place[:-1])} holds {found}, which is not an integer{why}")
        value = _number(digits)
        if value is None:
            raise self.error(at, f"{_what(place[:-1])}: {_too_long(digits)}")
        self.i += len(token)
        return _Item(at, -value if token.startswith("-") else value)

    def check_grid(self, sol: _Item, index: int, n: int | None) -> int:
        """Raise unless `sol` is an N x N grid (N = K*K, and `n` when given); return N."""
        rows = _items(sol)
        size = len(rows)
        problem = None
        if n is not None and size != n:
            problem = f"has {size} rows, expected {n}"
        elif size == 0 or math.isqrt(size) ** 2 != size:
            problem = f"has {size} rows, which is not a square number K*K"
        if problem:
            raise self.error(sol.at, f"solution {index} {problem}")
        for r, row in enumerate(rows, 1):
            if len(_items(row)) != size:
                raise self.error(
                    row.at,
                    f"solution {index}: row {r} has {len(_items(row))} values, expected {size}",
                )
        return size


def _what(place: list[int]) -> str:
    """Names the item at `place` (1-based indices from the outside in)."""
    if not place:
        return "the list of solutions"
    if len(place) == 1:
        return f"solution {place[0]}"
    return f"solution {place[0]}: row {place[1]}"


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
    """Write solutions as an expected-solution file (sorted, as the course's files are)."""
    return "[" + ",".join(grid_term(g) for g in sorted(solutions)) + "].\n"


# --- solution printout -----------------------------------------------------


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
