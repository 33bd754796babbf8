"""Boards, squares, algebraic names and the knight's move."""

from __future__ import annotations

import pytest

from plpuzzle.knight.domain.model import (
    KNIGHT_MOVES,
    Board,
    BoardError,
    file_name,
    is_knight_move,
    parse_board,
    parse_square,
)


def test_eight_distinct_knight_moves() -> None:
    assert len(set(KNIGHT_MOVES)) == 8
    assert all(is_knight_move((0, 0), m) for m in KNIGHT_MOVES)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [((0, 0), (1, 2), True), ((3, 3), (1, 2), True), ((0, 0), (2, 2), False),
     ((0, 0), (0, 0), False), ((0, 0), (3, 0), False), ((0, 0), (1, 1), False)],
)  # fmt: skip
def test_is_knight_move(a: tuple[int, int], b: tuple[int, int], expected: bool) -> None:
    assert is_knight_move(a, b) is expected
    assert is_knight_move(b, a) is expected


def test_moves_stay_on_the_board_and_count_as_on_a_chessboard() -> None:
    board = Board(8, 8)
    assert sorted(board.moves((0, 7))) == [(1, 5), (2, 6)]
    assert len(list(board.moves((3, 3)))) == 8
    assert sum(len(list(board.moves(s))) for s in board.squares()) == 2 * 168  # 168 edges


def test_board_sizes() -> None:
    assert parse_board("8") == Board(8, 8)
    assert parse_board(" 7x4 ") == Board(7, 4)
    assert parse_board("3X5") == Board(3, 5)
    assert Board(7, 4).size == 28
    assert str(Board(7, 4)) == "7x4"
    for bad in ("0", "0x3", "3x0", "x", "7x", "-1", "8.5", ""):
        with pytest.raises(BoardError):
            parse_board(bad)


def test_file_names_go_on_like_spreadsheet_columns() -> None:
    assert [file_name(x) for x in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == [
        "a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa",
    ]  # fmt: skip


def test_a1_is_bottom_left_and_h8_top_right() -> None:
    board = Board(8, 8)
    assert parse_square("a1", board) == (0, 7)
    assert parse_square("H8", board) == (7, 0)
    assert board.algebraic((0, 7)) == "a1"
    assert board.algebraic((7, 0)) == "h8"
    assert parse_square("0,7", board) == (0, 7)
    assert parse_square(" 3 , 4 ", board) == (3, 4)


@pytest.mark.parametrize("board", [Board(8, 8), Board(30, 3), Board(1, 12)])
def test_algebraic_names_round_trip(board: Board) -> None:
    names = [board.algebraic(s) for s in board.squares()]
    assert len(set(names)) == board.size
    assert [parse_square(n, board) for n in names] == list(board.squares())


@pytest.mark.parametrize(
    "text", ["i1", "a9", "a0", "8,0", "0,8", "-1,0", "a", "1", "a1b", "1;2", ""]
)
def test_squares_off_the_board_or_malformed_are_refused(text: str) -> None:
    with pytest.raises(BoardError):
        parse_square(text, Board(8, 8))
