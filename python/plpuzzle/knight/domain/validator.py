"""An independent checker: is a proposed tour really a knight's tour?

It referees every engine's answer, ours and the Prolog one alike, so it
trusts nothing about its input: a tour of the wrong type or shape is a
problem to report, not an exception. It shares nothing with the search
code, and names every fault it finds, not just the first.
"""

from __future__ import annotations

from itertools import pairwise

from plpuzzle.knight.domain.model import Board, Square, is_knight_move


def check_tour(
    board: Board, tour: object, start: Square | None = None, closed: bool = False
) -> list[str]:
    """Every way `tour` fails to be a tour of `board`; [] means it is one.

    A tour is a list of (x, y) squares, 0-based with (0, 0) top-left. With
    `start`, it must begin there; with `closed`, its last square must be a
    knight's move from its first.
    """
    if not isinstance(tour, list | tuple):
        return [f"the tour is a {type(tour).__name__}, not a list of squares"]
    squares: list[Square | None] = [_as_square(item) for item in tour]
    problems = [
        f"step {step}: {item!r} is not a square (a pair of integers x, y)"
        for step, (item, square) in enumerate(zip(tour, squares, strict=True), 1)
        if square is None
    ]
    if len(tour) != board.size:
        problems.append(f"the tour has {len(tour)} squares; the {board} board has {board.size}")
    problems += _placement_problems(board, squares)
    problems += _move_problems(board, squares)
    problems += _end_problems(board, squares, start, closed)
    return problems


def _as_square(item: object) -> Square | None:
    """`item` as a square if it is a pair of integers (not booleans), else None."""
    if not isinstance(item, list | tuple) or len(item) != 2:
        return None
    x, y = item
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (x, y)):
        return None
    return (x, y)


def _name(board: Board, square: Square) -> str:
    """A square as `b3 (1,5)`, or just the pair when it is off the board."""
    x, y = square
    if board.contains(square):
        return f"{board.algebraic(square)} ({x},{y})"
    return f"({x},{y})"


def _placement_problems(board: Board, squares: list[Square | None]) -> list[str]:
    """Squares off the board, visited twice, or never visited."""
    problems = []
    first_visit: dict[Square, int] = {}
    for step, square in enumerate(squares, 1):
        if square is None:
            continue
        if not board.contains(square):
            problems.append(f"step {step}: {_name(board, square)} is off the {board} board")
        elif square in first_visit:
            problems.append(
                f"step {step}: {_name(board, square)} was already visited "
                f"at step {first_visit[square]}"
            )
        else:
            first_visit[square] = step
    missed = [s for s in board.squares() if s not in first_visit]
    if missed:
        names = ", ".join(_name(board, s) for s in missed[:10])
        more = f" and {len(missed) - 10} more" if len(missed) > 10 else ""
        problems.append(f"{len(missed)} square(s) never visited: {names}{more}")
    return problems


def _move_problems(board: Board, squares: list[Square | None]) -> list[str]:
    """Steps that are not a knight's move."""
    problems = []
    for step, (a, b) in enumerate(pairwise(squares), 1):
        if a is not None and b is not None and not is_knight_move(a, b):
            problems.append(
                f"step {step} to {step + 1}: {_name(board, a)} to {_name(board, b)} "
                "is not a knight's move"
            )
    return problems


def _end_problems(
    board: Board, squares: list[Square | None], start: Square | None, closed: bool
) -> list[str]:
    """The wrong first square, or a closed tour that does not close."""
    if not squares:
        return []
    problems = []
    first, last = squares[0], squares[-1]
    if start is not None and first is not None and first != start:
        problems.append(f"the tour starts at {_name(board, first)}, not at {_name(board, start)}")
    if closed and first is not None and last is not None and not is_knight_move(last, first):
        problems.append(
            f"the tour is not closed: its last square {_name(board, last)} is not "
            f"a knight's move from its first {_name(board, first)}"
        )
    return problems
