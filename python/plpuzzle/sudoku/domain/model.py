"""The sudoku puzzle as data: sizes, infos, rule variants and grid geometry.

Everything else in the sudoku package (text format, engines, validator)
speaks in these terms, so they are kept small and immutable.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from plpuzzle.sudoku.domain.syntax import MAX_K, Info, puzzle_rows

#: One solution: rows of values, row-major, values in 1..N.
Grid = tuple[tuple[int, ...], ...]

#: The info letters of the text format, in the order they are documented.
INFO_LETTERS = ("e", "o", "s", "w")


class Rules(StrEnum):
    """What an `s` or `w` info means between two neighbouring cells."""

    CONSECUTIVE = "consecutive"  # the two values differ by exactly 1
    ODDSUM = "oddsum"  # the two values have different parities

    def related(self, a: int, b: int) -> bool:
        """Whether two neighbouring values satisfy this variant's relation."""
        if self is Rules.CONSECUTIVE:
            return abs(a - b) == 1
        return (a + b) % 2 == 1


@dataclass(frozen=True)
class Field:
    """The infos of one cell, in the order the puzzle gives them."""

    infos: tuple[Info, ...] = ()

    @property
    def value(self) -> int | None:
        return next((i for i in self.infos if isinstance(i, int)), None)

    @property
    def even(self) -> bool:
        return "e" in self.infos

    @property
    def odd(self) -> bool:
        return "o" in self.infos

    @property
    def south(self) -> bool:
        return "s" in self.infos

    @property
    def west(self) -> bool:
        return "w" in self.infos

    def to_term(self) -> str:
        """The Prolog list for this field, e.g. `[e,w,v(2),s]`."""
        parts = (f"v({i})" if isinstance(i, int) else i for i in self.infos)
        return "[" + ",".join(parts) + "]"

    def to_text(self) -> str:
        """The text-format field, e.g. `ew2s`, or `-` when empty."""
        return "".join(str(i) for i in self.infos) or "-"


@dataclass(frozen=True)
class Puzzle:
    """A sudoku with infos: cell size K and N x N fields (N = K*K)."""

    k: int
    fields: tuple[tuple[Field, ...], ...]

    def __post_init__(self) -> None:
        n = self.k * self.k
        if not 1 <= self.k <= MAX_K:
            raise ValueError(f"K must be in 1..{MAX_K}, got {self.k}")
        if len(self.fields) != n or any(len(row) != n for row in self.fields):
            raise ValueError(f"a K={self.k} puzzle needs {n} rows of {n} fields")

    @property
    def n(self) -> int:
        return self.k * self.k

    @classmethod
    def from_rows(cls, k: int, rows: Sequence[Sequence[Sequence[Info]]]) -> Puzzle:
        """Build from nested lists of infos, as in the Prolog term."""
        return cls(k, tuple(tuple(Field(tuple(f)) for f in row) for row in rows))

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> Puzzle:
        """A puzzle from the text of a `testNNNd.txt` file (a file's path goes
        to textformat.load_puzzle, or straight to `sudoku.solve`). Bad text
        raises FormatError naming `source`, the line and the column.

        >>> puzzle = Puzzle.parse("2\\n1 - - -\\n- - s -\\n- w - -\\n- - - 4\\n")
        >>> puzzle.k, puzzle.field(0, 0).value, puzzle.field(1, 2).south
        (2, 1, True)
        >>> from plpuzzle.sudoku import FormatError
        >>> try:
        ...     Puzzle.parse("2\\n1 - - -\\n- - 7 -\\n- - - -\\n- - - 4\\n")
        ... except FormatError as e:
        ...     print(e)
        <string>:3:5: value 7 is out of range 1..4
        """
        k, rows = puzzle_rows(text, source)
        return cls.from_rows(k, rows)

    def field(self, row: int, col: int) -> Field:
        """The field at 0-based (row, col)."""
        return self.fields[row][col]

    def to_term(self) -> str:
        """The `s(K,F)` term that `sudoku/2` takes, as Prolog source text."""
        rows = ("[" + ",".join(f.to_term() for f in row) + "]" for row in self.fields)
        return f"s({self.k},[" + ",".join(rows) + "])"

    def neighbour_pairs(self) -> Iterator[tuple[tuple[int, int], tuple[int, int], str]]:
        """Each s/w info that refers to a cell: (this cell, other cell, letter).

        An `s` in the bottom row or a `w` in the leftmost column has no
        partner and is ignored, as the assignment says.
        """
        n = self.n
        for r, row in enumerate(self.fields):
            for c, f in enumerate(row):
                if f.south and r + 1 < n:
                    yield (r, c), (r + 1, c), "s"
                if f.west and c > 0:
                    yield (r, c), (r, c - 1), "w"


def box_index(row: int, col: int, k: int) -> int:
    """The 0-based box number of a 0-based cell, boxes numbered row-major."""
    return (row // k) * k + col // k


def box_cells(box: int, k: int) -> list[tuple[int, int]]:
    """The cells of a 0-based box, row-major."""
    top, left = (box // k) * k, (box % k) * k
    return [(top + i, left + j) for i in range(k) for j in range(k)]


def grid_from_lists(rows: Sequence[Sequence[int]]) -> Grid:
    """Freeze nested lists into a hashable Grid."""
    return tuple(tuple(r) for r in rows)
