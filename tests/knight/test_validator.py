"""The validator rejects every way a tour can be wrong, and never crashes."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plpuzzle.knight.domain.model import Board, Square, is_knight_move
from plpuzzle.knight.domain.validator import check_tour
from plpuzzle.knight.engines.python_engine import find_tour

BOARD = Board(6, 6)
START = (0, 5)
_found, _ = find_tour(BOARD, START, closed=True)
assert _found is not None
TOUR: list[Square] = _found


def plainly_valid(board: Board, tour: list[Square], start: Square, closed: bool) -> bool:
    """A second, blunt statement of the rules, to judge random mutations by."""
    return (
        sorted(tour) == sorted(board.squares())
        and tour[0] == start
        and all(is_knight_move(a, b) for a, b in pairwise(tour))
        and (not closed or is_knight_move(tour[-1], tour[0]))
    )


def test_a_closed_tour_passes() -> None:
    assert check_tour(BOARD, TOUR) == []
    assert check_tour(BOARD, TOUR, START, closed=True) == []
    assert check_tour(BOARD, tuple(TOUR), START) == []
    assert check_tour(BOARD, [list(s) for s in TOUR], START) == []  # JSON-shaped


def test_swapping_neighbours_breaks_the_knight_moves() -> None:
    tour = TOUR[:]
    tour[10], tour[11] = tour[11], tour[10]
    problems = check_tour(BOARD, tour, START)
    assert any("not a knight's move" in p for p in problems)


def test_a_dropped_square_is_missed() -> None:
    problems = check_tour(BOARD, TOUR[:20] + TOUR[21:], START)
    assert any("35 squares; the 6x6 board has 36" in p for p in problems)
    assert any("never visited" in p for p in problems)


def test_a_repeated_square_is_named() -> None:
    tour = TOUR[:]
    tour[30] = tour[4]
    problems = check_tour(BOARD, tour, START)
    assert any("step 31" in p and "already visited at step 5" in p for p in problems)
    assert any("1 square(s) never visited" in p for p in problems)


def test_a_step_that_is_not_a_knights_move() -> None:
    board = Board(1, 1)
    assert check_tour(board, [(0, 0)]) == []
    problems = check_tour(Board(2, 1), [(0, 0), (1, 0)])
    assert problems == ["step 1 to 2: a1 (0,0) to b1 (1,0) is not a knight's move"]


def test_wrong_start_and_not_closed() -> None:
    problems = check_tour(BOARD, TOUR, (1, 1))
    assert problems == ["the tour starts at a1 (0,5), not at b5 (1,1)"]
    open_tour, _ = find_tour(Board(5, 5), (0, 0))
    assert open_tour is not None
    problems = check_tour(Board(5, 5), open_tour, closed=True)
    assert len(problems) == 1 and "not closed" in problems[0]


def test_off_the_board() -> None:
    tour = TOUR[:]
    tour[-1] = (6, 0)
    problems = check_tour(BOARD, tour, START)
    assert any("(6,0) is off the 6x6 board" in p for p in problems)


@pytest.mark.parametrize(
    "bad",
    [None, 7, "a1b3", {"a1": 1}, [(0, 5), "b3"], [(0, 5, 1)], [(0, True)], [(0.0, 5.0)],
     [[None, None]], [], [object()]],
)  # fmt: skip
def test_garbage_is_a_problem_not_an_exception(bad: object) -> None:
    problems = check_tour(BOARD, bad, START, closed=True)
    assert problems and all(isinstance(p, str) for p in problems)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, len(TOUR) - 1),
    st.integers(0, len(TOUR) - 1),
    st.sampled_from(["swap", "drop", "repeat", "move"]),
    st.booleans(),
)
def test_mutations_are_judged_as_the_rules_say(i: int, j: int, how: str, closed: bool) -> None:
    tour = TOUR[:]
    if how == "swap":
        tour[i], tour[j] = tour[j], tour[i]
    elif how == "drop":
        del tour[i]
    elif how == "repeat":
        tour[i] = tour[j]
    else:
        x, y = tour[i]
        tour[i] = (x + 1, y)
    problems = check_tour(BOARD, tour, START, closed)
    assert (problems == []) == plainly_valid(BOARD, tour, START, closed)
    # These can never leave a tour (neighbours swapped: colours clash).
    if how in ("drop", "move") or (how == "repeat" and i != j) or abs(i - j) == 1:
        assert problems
