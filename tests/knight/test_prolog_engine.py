"""The Prolog engine: prolog/knight.pl through pyswip, in a real worker.

Tours are checked here by a few lines of their own (every square once,
knight's moves only), not by the engine's code; counts against published
figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

import pytest

from plpuzzle.knight.domain.model import Board, Square, is_knight_move
from plpuzzle.knight.domain.results import Status
from plpuzzle.knight.engines.prolog_bridge import PrologKnightEngine, decode_count, decode_tour

LIMIT = 30.0


@pytest.fixture(scope="module")
def engine() -> Iterator[PrologKnightEngine]:
    engine = PrologKnightEngine()
    yield engine
    engine.close()


def tour_problem(board: Board, tour: list[Square], start: Square, closed: bool) -> str | None:
    if sorted(tour) != sorted(board.squares()):
        return "the tour does not visit every square exactly once"
    if tour[0] != start:
        return f"the tour starts on {tour[0]}, not {start}"
    for a, b in pairwise(tour):
        if not is_knight_move(a, b):
            return f"{a} -> {b} is not a knight's move"
    if closed and not is_knight_move(tour[-1], tour[0]):
        return "the last square is not a knight's move from the first"
    return None


@pytest.mark.parametrize(
    ("width", "height", "start"),
    [(5, 5, (0, 0)), (6, 6, (0, 0)), (8, 8, (0, 7)), (7, 4, (0, 0)), (20, 20, (0, 0)),
     (20, 20, (7, 11)), (100, 100, (0, 0)), (1, 1, (0, 0))],
)  # fmt: skip
def test_open_tours(engine: PrologKnightEngine, width: int, height: int, start: Square) -> None:
    board = Board(width, height)
    result = engine.tour(board, start, False, LIMIT)
    assert result.status is Status.OK, result.message
    assert result.tour is not None
    assert tour_problem(board, result.tour, start, False) is None
    assert result.moves is not None and result.moves >= board.size - 1
    assert result.engine == "prolog"


@pytest.mark.parametrize(
    ("width", "height", "start"), [(6, 6, (0, 0)), (8, 8, (0, 7)), (8, 8, (3, 4)), (12, 7, (5, 2))]
)
def test_closed_tours(engine: PrologKnightEngine, width: int, height: int, start: Square) -> None:
    board = Board(width, height)
    result = engine.tour(board, start, True, LIMIT)
    assert result.status is Status.OK, result.message
    assert result.tour is not None
    assert tour_problem(board, result.tour, start, True) is None


@pytest.mark.parametrize(
    ("width", "height", "start", "closed"),
    [
        (3, 3, (0, 0), False),
        (4, 4, (0, 0), False),
        (5, 5, (1, 0), False),  # the minority colour
        (7, 4, (2, 1), False),  # an inner row of a board four high
        (5, 5, (0, 0), True),  # an odd number of squares
        (4, 6, (0, 0), True),
        (3, 4, (0, 0), True),
    ],
)
def test_no_tour(
    engine: PrologKnightEngine, width: int, height: int, start: Square, closed: bool
) -> None:
    result = engine.tour(Board(width, height), start, closed, LIMIT)
    assert result.no_tour, result.message
    assert result.tour is None


@pytest.mark.parametrize(
    ("width", "height", "start", "closed", "expected"),
    [
        (5, 5, (0, 0), False, 304),
        (5, 5, None, False, 1728),
        (5, 5, (1, 0), False, 0),
        (3, 4, None, False, 16),  # 8 open tours, each walked both ways
        (5, 6, (0, 0), True, 16),  # 8 closed tours, each walked both ways
        (5, 5, None, True, 0),
    ],
)
def test_counts(
    engine: PrologKnightEngine,
    width: int,
    height: int,
    start: Square | None,
    closed: bool,
    expected: int,
) -> None:
    result = engine.count(Board(width, height), start, closed, LIMIT)
    assert result.status is Status.OK, result.message
    assert result.count == expected


def test_a_heavy_count_times_out(engine: PrologKnightEngine) -> None:
    result = engine.count(Board(6, 6), None, False, 0.5)
    assert result.status is Status.TIMEOUT
    assert result.count is None
    assert "time limit" in result.message
    # the worker lives on after a time-out
    assert engine.count(Board(3, 4), (0, 0), False, LIMIT).status is Status.OK


def test_a_start_off_the_board_is_an_error(engine: PrologKnightEngine) -> None:
    result = engine.tour(Board(8, 8), (9, 2), False, LIMIT)
    assert result.status is Status.ERROR
    assert "9-2" in result.message


def test_decode_tour_checks_the_shape() -> None:
    assert decode_tour([(True, "[3, [[0, 0], [1, 2]]]")]) == ([(0, 0), (1, 2)], 3)
    assert "unbound" in str(decode_tour([(False, "[_1, [[0, 0]]]")]))
    assert "pairs" in str(decode_tour([(True, "[3, [[0, 0, 1]]]")]))
    assert "pairs" in str(decode_tour([(True, "[3, [[0, true]]]")]))
    assert "not a list" in str(decode_tour([(True, "[3, [0-0]]")]))
    assert "2 answers" in str(decode_tour([(True, "[0, []]")] * 2))


def test_decode_count_checks_the_shape() -> None:
    assert decode_count([(True, "304")]) == 304
    assert "not a count" in str(decode_count([(True, "-1")]))
    assert "not a count" in str(decode_count([(True, "[1]")]))
    assert "0 answers" in str(decode_count([]))
