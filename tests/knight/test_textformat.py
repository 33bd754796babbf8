"""Output formats: numbered boards (plain and ASCII), the algebraic path, JSON."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from plpuzzle.knight.domain.model import Board, is_knight_move
from plpuzzle.knight.domain.textformat import (
    FORMATS,
    format_ascii,
    format_grid,
    format_json,
    format_path,
    format_tour,
    numbering,
)
from plpuzzle.knight.engines.python_engine import find_tour

# An open tour of the 3x4 board (3 files, 4 rows) from a1, checked by hand.
BOARD = Board(3, 4)
TOUR = [(0, 3), (1, 1), (2, 3), (0, 2), (1, 0), (2, 2),
        (0, 1), (2, 0), (1, 2), (0, 0), (2, 1), (1, 3)]  # fmt: skip


def test_the_example_is_a_tour() -> None:
    assert sorted(TOUR) == sorted(BOARD.squares())
    assert all(is_knight_move(a, b) for a, b in pairwise(TOUR))


def test_grid_numbers_moves_with_a1_bottom_left() -> None:
    assert format_grid(BOARD, TOUR) == "10  5  8\n 7  2 11\n 4  9  6\n 1 12  3\n"


def test_ascii_grid_has_borders() -> None:
    assert format_ascii(BOARD, TOUR) == (
        "+--+--+--+\n"
        "|10| 5| 8|\n"
        "+--+--+--+\n"
        "| 7| 2|11|\n"
        "+--+--+--+\n"
        "| 4| 9| 6|\n"
        "+--+--+--+\n"
        "| 1|12| 3|\n"
        "+--+--+--+\n"
    )


def test_path_is_algebraic_eight_squares_a_line() -> None:
    assert format_path(BOARD, TOUR) == "a1->b3->c1->a2->b4->c2->a3->c4->\nb2->a4->c3->b1\n"


def test_path_of_8x8_has_eight_lines_of_eight() -> None:
    board = Board(8, 8)
    tour, _ = find_tour(board, (0, 7))
    assert tour is not None
    lines = format_path(board, tour).splitlines()
    assert len(lines) == 8
    assert all(line.count("->") == 8 for line in lines[:-1])
    assert lines[-1].count("->") == 7 and not lines[-1].endswith("->")
    assert lines[0].startswith("a1->")


def test_numbers_are_right_aligned_to_the_widest() -> None:
    board = Board(10, 10)
    tour, _ = find_tour(board, (0, 9))
    assert tour is not None
    rows = format_grid(board, tour).splitlines()
    assert len(rows) == 10 and all(len(r) == 10 * 4 - 1 for r in rows)
    assert rows[-1].startswith("  1 ")
    assert format_ascii(board, tour).splitlines()[0] == "+" + "---+" * 10


def test_json_holds_every_view_of_the_tour() -> None:
    document = json.loads(format_json(BOARD, TOUR, extra={"engine": "python"}))
    assert document["width"] == 3 and document["height"] == 4
    assert document["closed"] is False and document["start"] == "a1"
    assert [tuple(s) for s in document["squares"]] == TOUR
    assert document["path"][:3] == ["a1", "b3", "c1"]
    assert (
        document["grid"]
        == numbering(BOARD, TOUR)
        == [[10, 5, 8], [7, 2, 11], [4, 9, 6], [1, 12, 3]]
    )
    assert document["engine"] == "python"


def test_format_tour_dispatches() -> None:
    for style in FORMATS:
        assert format_tour(BOARD, TOUR, style)
    assert format_tour(BOARD, TOUR, "text") == format_grid(BOARD, TOUR)
    with pytest.raises(ValueError, match="unknown format"):
        format_tour(BOARD, TOUR, "svg")
