"""The pure-Python search: tours it finds are valid, and it is exact.

Independent references: a naive recursive search (plain sets, no heuristic
and no pruning) on tiny boards, and published counts.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plpuzzle.knight.domain.model import Board, BoardError, Square, is_knight_move
from plpuzzle.knight.domain.results import Status
from plpuzzle.knight.domain.validator import check_tour
from plpuzzle.knight.engines.python_engine import (
    Geometry,
    PythonKnightEngine,
    Search,
    SearchState,
    count_request,
    count_tours,
    find_tour,
    luby,
    orders,
    ruled_out,
    survey,
    survey_request,
    tour_request,
)
from plpuzzle.runtime import Worker, WorkerCrashed

#: Boards up to this many squares are small enough for the naive search.
TINY = 16


def naive_count(board: Board, start: Square, closed: bool, stop_at: int | None = None) -> int:
    """Directed tours from `start`, by trying every path (tiny boards only)."""
    found = 0
    path = [start]
    seen = {start}

    def extend() -> bool:
        nonlocal found
        if len(path) == board.size:
            if not closed or is_knight_move(path[-1], start):
                found += 1
            return stop_at is not None and found >= stop_at
        for nxt in board.moves(path[-1]):
            if nxt not in seen:
                path.append(nxt)
                seen.add(nxt)
                if extend():
                    return True
                seen.remove(path.pop())
        return False

    extend()
    return found


def exhaustive_exists(board: Board, start: Square, closed: bool) -> bool:
    """Our search run to the end, without the colour shortcut of ruled_out()."""
    geometry = Geometry(board)
    search = Search(geometry, start, closed, next(orders(geometry)))
    return search.run(10**9) is SearchState.FOUND


def assert_tour(board: Board, start: Square, closed: bool = False) -> int:
    tour, moves = find_tour(board, start, closed)
    assert tour is not None, f"no tour found on {board} from {start}"
    assert check_tour(board, tour, start, closed) == []
    assert moves >= board.size - 1
    return moves


@pytest.mark.parametrize("n", [*range(5, 41), 101, 150])
def test_open_tour_from_a_corner(n: int) -> None:
    assert_tour(Board(n, n), (0, 0))


@pytest.mark.parametrize("n", [6, 8, 10, 12, 14, 20, 32])
def test_closed_tour_from_a_corner(n: int) -> None:
    assert_tour(Board(n, n), (0, 0), closed=True)


@pytest.mark.parametrize(
    ("w", "h", "start"),
    [(3, 10, (0, 0)), (10, 3, (4, 1)), (5, 6, (2, 3)), (6, 7, (5, 0)), (5, 8, (1, 1)),
     (12, 3, (0, 2)), (7, 6, (3, 3)), (8, 8, (3, 4))],
)  # fmt: skip
def test_closed_tours_on_rectangles_and_from_inside(w: int, h: int, start: Square) -> None:
    assert_tour(Board(w, h), start, closed=True)


@pytest.mark.parametrize(
    ("w", "h", "start"),
    [(3, 4, (0, 0)), (4, 3, (0, 0)), (7, 4, (0, 0)), (4, 5, (0, 0)), (30, 5, (12, 2)),
     (5, 30, (1, 17)), (1, 1, (0, 0)), (8, 8, (4, 4)), (60, 3, (0, 0)), (13, 17, (6, 8))],
)  # fmt: skip
def test_open_tours_on_rectangles_and_from_inside(w: int, h: int, start: Square) -> None:
    assert_tour(Board(w, h), start)


def test_warnsdorff_with_rim_ties_needs_no_step_back_on_8x8() -> None:
    assert assert_tour(Board(8, 8), (0, 0)) == 63


def test_a_tour_from_a1_starts_at_the_bottom_left() -> None:
    tour, _ = find_tour(Board(8, 8), (0, 7))
    assert tour is not None and tour[0] == (0, 7)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_no_tour_on_small_square_boards(n: int) -> None:
    board = Board(n, n)
    for start in board.squares():
        assert find_tour(board, start)[0] is None
        assert naive_count(board, start, False, stop_at=1) == 0


def test_5x5_from_the_minority_colour_has_no_tour_and_the_search_agrees() -> None:
    board = Board(5, 5)
    for start in board.squares():
        tour, _ = find_tour(board, start)
        if sum(start) % 2:
            assert tour is None
            assert ruled_out(board, start, False)
            assert not exhaustive_exists(board, start, False)  # without the shortcut
        else:
            assert tour is not None and check_tour(board, tour, start) == []


@pytest.mark.parametrize(
    ("w", "h"),
    [*((1, n) for n in range(1, 9)), *((2, n) for n in range(2, 9)), *((4, n) for n in range(4, 9)),
     (3, 4), (3, 6), (3, 8), (3, 3), (3, 5), (3, 7), (5, 5)],
)  # fmt: skip
def test_closed_tours_ruled_out_by_theory_are_ruled_out_by_search(w: int, h: int) -> None:
    board = Board(w, h)
    assert ruled_out(board, (0, 0), True)
    assert find_tour(board, (0, 0), True)[0] is None
    assert not exhaustive_exists(board, (0, 0), True)


def test_closed_tours_exist_where_the_theory_allows_them() -> None:
    for w, h in [(3, 10), (3, 12), (5, 6), (6, 6), (6, 7), (6, 8), (7, 8), (8, 8)]:
        assert not ruled_out(Board(w, h), (0, 0), True)
        assert exhaustive_exists(Board(w, h), (0, 0), True)


def test_7x4_has_tours_only_from_the_long_edges() -> None:
    """On 4 x N, a square of an outer row leads only to the inner rows, so
    a tour alternates outer and inner, except once if it starts and ends
    outside; alternating all the way would give all outer squares one
    colour. So a tour starts in an outer row."""
    board = Board(7, 4)
    for start in board.squares():
        tour, _ = find_tour(board, start)
        assert (tour is not None) == (start[1] in (0, 3)), start
        assert tour is None or check_tour(board, tour, start) == []


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 8).flatmap(
        lambda w: st.tuples(
            st.just(w),
            st.integers(1, 8).flatmap(
                lambda h: st.tuples(st.just(h), st.integers(0, w - 1), st.integers(0, h - 1))
            ),
        )
    ),
    st.booleans(),
)
def test_any_small_board_gives_a_valid_tour_or_a_true_no(
    shape: tuple[int, tuple[int, int, int]], closed: bool
) -> None:
    w, (h, x, y) = shape
    board = Board(w, h)
    tour, _ = find_tour(board, (x, y), closed)
    if tour is not None:
        assert check_tour(board, tour, (x, y), closed) == []
    elif board.size <= TINY:
        assert naive_count(board, (x, y), closed, stop_at=1) == 0


def test_tiny_boards_agree_with_the_naive_search_everywhere() -> None:
    for w in range(1, 5):
        for h in range(1, 5):
            board = Board(w, h)
            for start in board.squares():
                for closed in (False, True):
                    tour, _ = find_tour(board, start, closed)
                    assert (tour is not None) == (naive_count(board, start, closed, 1) > 0)


# --- counting -----------------------------------------------------------------


def test_5x5_counts_match_the_known_figures() -> None:
    assert count_tours(Board(5, 5), (0, 0)) == 304
    assert count_tours(Board(5, 5), None) == 1728
    assert count_tours(Board(5, 5), (2, 2)) == 64  # from the centre
    assert count_tours(Board(5, 5), (1, 0)) == 0  # minority colour


def test_counting_over_all_starts_by_symmetry_equals_the_plain_sum() -> None:
    for board in (Board(5, 5), Board(3, 4), Board(4, 5), Board(3, 7)):
        assert count_tours(board, None) == sum(count_tours(board, s) for s in board.squares())


def test_closed_counts() -> None:
    # 5x6 has 8 closed tours; each is counted in 2 directions from each of 30 squares.
    assert count_tours(Board(5, 6), (0, 0), closed=True) == 16
    assert count_tours(Board(5, 6), None, closed=True) == 8 * 2 * 30
    assert count_tours(Board(3, 10), (0, 0), closed=True) == 2 * 16  # 16 closed tours
    assert count_tours(Board(4, 6), (0, 0), closed=True) == 0


@pytest.mark.parametrize(("w", "h"), [(3, 4), (4, 3), (4, 4), (3, 5), (2, 6), (1, 1)])
def test_counts_agree_with_the_naive_search(w: int, h: int) -> None:
    board = Board(w, h)
    for closed in (False, True):
        for start in board.squares():
            assert count_tours(board, start, closed) == naive_count(board, start, closed)


def test_off_board_starts_are_refused() -> None:
    with pytest.raises(BoardError):
        find_tour(Board(5, 5), (5, 0))
    with pytest.raises(BoardError):
        count_tours(Board(5, 5), (0, -1))


# --- the survey and the search's parts ----------------------------------------


def test_survey_of_5x5_counts_moves_where_tours_start() -> None:
    grid = survey(Board(5, 5))
    assert len(grid) == 5 and all(len(row) == 5 for row in grid)
    for y, row in enumerate(grid):
        for x, moves in enumerate(row):
            if (x + y) % 2:
                assert moves is None
            else:
                assert moves is not None and moves >= 24


def test_luby_sequence() -> None:
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def test_a_search_resumes_where_its_budget_ran_out() -> None:
    geometry = Geometry(Board(7, 4))
    whole = Search(geometry, (1, 1), False, next(orders(geometry)))
    assert whole.run(10**9) is SearchState.EXHAUSTED
    sliced = Search(geometry, (1, 1), False, next(orders(geometry)))
    while sliced.run(100) is SearchState.GOING:
        pass
    assert sliced.state is SearchState.EXHAUSTED and sliced.moves == whole.moves


# --- the engine in its worker -------------------------------------------------


def test_engine_finds_and_counts_in_a_worker() -> None:
    engine = PythonKnightEngine()
    try:
        found = engine.tour(Board(8, 8), (0, 7), False, 30)
        assert found.status is Status.OK and found.engine == "python"
        assert check_tour(Board(8, 8), found.tour, (0, 7)) == []
        assert found.moves == 63
        none = engine.tour(Board(4, 4), (0, 0), False, 30)
        assert none.no_tour and none.tour is None
        counted = engine.count(Board(5, 5), (0, 0), False, 30)
        assert (counted.status, counted.count) == (Status.OK, 304)
        everywhere = engine.count(Board(5, 5), None, False, 30)
        assert everywhere.count == 1728
    finally:
        engine.close()


def test_engine_time_out_is_a_result() -> None:
    engine = PythonKnightEngine()
    try:
        result = engine.count(Board(8, 8), (0, 0), False, 0.5)
        assert result.status is Status.TIMEOUT and result.count is None
        after = engine.count(Board(3, 4), (0, 0), False, 30)  # a fresh worker takes over
        assert (after.status, after.count) == (Status.OK, 2)
    finally:
        engine.close()


class DyingWorker(Worker):
    """A worker that dies in every request."""

    def request(self, message: dict, deadline_seconds: float, *limits: float | None) -> dict:
        raise WorkerCrashed("the worker was killed by SIGKILL", "last words")


def test_engine_worker_death_is_a_crash_with_a_message() -> None:
    engine = PythonKnightEngine(DyingWorker())
    result = engine.tour(Board(8, 8), (0, 0), False, 5)
    assert result.status is Status.CRASHED
    assert "SIGKILL" in result.message and "last words" in result.message
    counted = engine.count(Board(5, 5), None, False, 5)
    assert counted.status is Status.CRASHED and "SIGKILL" in counted.message


def test_engine_reports_an_exception_in_the_worker_as_an_error() -> None:
    engine = PythonKnightEngine()
    try:
        result = engine.tour(Board(5, 5), (9, 9), False, 30)
        assert result.status is Status.ERROR
        assert "off the 5x5 board" in result.message
    finally:
        engine.close()


def test_worker_entry_points_return_json_ready_values() -> None:
    found = tour_request(5, 5, [0, 4], False)
    assert json.loads(json.dumps(found)) == found
    assert found["moves"] == 24 and found["tour"][0] == [0, 4]
    assert tour_request(4, 4, [0, 0], True) == {"tour": None, "moves": 0}
    assert count_request(5, 5, None, False) == 1728
    grid = survey_request(5, 5)
    assert json.loads(json.dumps(grid)) == grid and grid[0][1] is None
