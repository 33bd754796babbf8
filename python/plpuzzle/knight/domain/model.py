"""Boards, squares and tours, and the knight's move that links them.

A square is (x, y), 0-based, with (0, 0) the top-left square as printed:
x counts files left to right, y counts rows top to bottom. Algebraic names
see the board from white's side, so `a1` is the bottom-left square,
(0, height - 1).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

Square = tuple[int, int]
Tour = list[Square]

#: The eight knight's moves as (dx, dy).
KNIGHT_MOVES: tuple[Square, ...] = (
    (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2),
)  # fmt: skip


class BoardError(ValueError):
    """A board or square given by the user does not make sense."""


@dataclass(frozen=True)
class Board:
    """A W x H board (W files, H rows)."""

    width: int
    height: int

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise BoardError(f"a board needs at least one row and one column, not {self}")

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def size(self) -> int:
        return self.width * self.height

    def contains(self, square: Square) -> bool:
        x, y = square
        return 0 <= x < self.width and 0 <= y < self.height

    def moves(self, square: Square) -> Iterator[Square]:
        """The squares a knight on `square` can jump to."""
        x, y = square
        for dx, dy in KNIGHT_MOVES:
            if 0 <= x + dx < self.width and 0 <= y + dy < self.height:
                yield (x + dx, y + dy)

    def squares(self) -> Iterator[Square]:
        """Every square, row by row from the top."""
        for y in range(self.height):
            for x in range(self.width):
                yield (x, y)

    def algebraic(self, square: Square) -> str:
        """`square` in algebraic notation: files a..z, then aa, ab, ..."""
        x, y = square
        return f"{file_name(x)}{self.height - y}"


def is_knight_move(a: Square, b: Square) -> bool:
    return {abs(a[0] - b[0]), abs(a[1] - b[1])} == {1, 2}


def file_name(x: int) -> str:
    """The letters of file `x` (0 -> a, 25 -> z, 26 -> aa), like spreadsheet columns."""
    name = ""
    x += 1
    while x:
        x, rest = divmod(x - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


_ALGEBRAIC = re.compile(r"([a-z]+)([0-9]+)")
_PAIR = re.compile(r"(-?[0-9]+)\s*,\s*(-?[0-9]+)")
_SIZE = re.compile(r"([0-9]+)\s*[xX]\s*([0-9]+)")


def parse_board(text: str) -> Board:
    """`8` (square) or `7x4` (width x height)."""
    text = text.strip()
    if text.isdigit():
        return Board(int(text), int(text))
    match = _SIZE.fullmatch(text)
    if not match:
        raise BoardError(f"board {text!r}: expected N or WxH, e.g. 8 or 7x4")
    return Board(int(match[1]), int(match[2]))


def parse_square(text: str, board: Board) -> Square:
    """`a1` (algebraic) or `x,y` (0-based, (0,0) top-left), checked against `board`."""
    raw = text.strip().lower()
    if match := _ALGEBRAIC.fullmatch(raw):
        x = 0
        for letter in match[1]:
            x = x * 26 + ord(letter) - ord("a") + 1
        square = (x - 1, board.height - int(match[2]))
    elif match := _PAIR.fullmatch(raw):
        square = (int(match[1]), int(match[2]))
    else:
        raise BoardError(f"square {text!r}: expected algebraic like a1 or 0-based x,y like 0,7")
    if not board.contains(square):
        raise BoardError(f"square {text!r} is off the {board} board")
    return square
