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

from plpuzzle.sudoku.domain.model import Grid, Puzzle, grid_from_lists
from plpuzzle.sudoku.domain.syntax import (
    LINE_BREAK,
    FormatError,
    number,
    read_input,
    read_text,
    shown,
    too_long,
)

__all__ = [
    "FormatError",
    "format_board",
    "format_solutions",
    "grid_shape_problem",
    "grid_term",
    "harness_line",
    "load_puzzle",
    "load_solutions",
    "parse_puzzle",
    "parse_solutions",
    "puzzle_to_text",
    "read_text",
    "shown",
    "solutions_to_text",
]

# --- puzzle files (README: Text format) -----------------------------------


def parse_puzzle(text: str, path: str = "<string>") -> Puzzle:
    """Parse the text of a `testNNNd.txt` puzzle file (Puzzle.parse)."""
    return Puzzle.parse(text, path)


def load_puzzle(path: Path) -> Puzzle:
    """Read and parse a puzzle file; a read error is a FormatError too."""
    return parse_puzzle(read_input(path), str(path))


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
    return parse_solutions(read_input(path), str(path), n)


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
        breaks = list(LINE_BREAK.finditer(self.text, 0, at))
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
        value = number(digits)
        if value is None:
            raise self.error(at, f"{_what(place[:-1])}: {too_long(digits)}")
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
