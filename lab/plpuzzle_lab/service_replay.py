"""Hand-ins that cost what real ones cost: a replay solver spends, on each
test of the official suite, the CPU seconds a measured profile
(service_costs) spent on it, times a scale, then fails. A test the
profile ran out of time on spends the course's limit, times the scale,
and fails too: the bench's own limit is kept well above that, since a
sandbox needs a second or so to start whatever the scale (and a timeout
there would cost a reload that, at the course's 120 s, is nothing).

The solver knows a test by the puzzle's K and its first rows (as few as
tell every test of the suite apart), written as the Prolog terms the
grader passes to sudoku/2. It is plain Prolog with no library, so it
loads in either dialect.
"""

from __future__ import annotations

from pathlib import Path

from plpuzzle.sudoku.domain.model import Puzzle
from plpuzzle.sudoku.domain.textformat import load_puzzle
from plpuzzle.sudoku.runs.suite import discover

SOLVER = """\
% A replay hand-in for the service's capacity bench ({name}): on each
% test it spends the CPU seconds the measured profile spent, times
% {scale:g}, then fails; an unknown puzzle costs nothing.

sudoku(s(K, F), _) :-
    first_rows({depth}, F, Rows),
    (   cost(K, Rows, C) -> true ; C = 0.0 ),
    spend(C),
    fail.

first_rows(0, _, []) :- !.
first_rows(_, [], []) :- !.
first_rows(D, [R|Rs], [R|Out]) :-
    D1 is D - 1,
    first_rows(D1, Rs, Out).

spend(C) :-
    statistics(cputime, T0),
    End is T0 + C,
    spend_until(End).

spend_until(End) :-
    statistics(cputime, T),
    (   T >= End -> true ; spend_until(End) ).

"""


def puzzles(suite: Path) -> dict[str, Puzzle]:
    return {case.name: load_puzzle(case.puzzle_path) for case in discover(suite)}


def key(puzzle: Puzzle, depth: int) -> str:
    """The Prolog terms a replay solver knows the puzzle by."""
    rows = puzzle.to_term()[len(f"s({puzzle.k},[") : -2]
    return f"{puzzle.k}, [{_first_rows(rows, depth)}]"


def _first_rows(rows: str, depth: int) -> str:
    """The first `depth` rows of a field list's text (rows are `[[...],...]`)."""
    out, level, start, count = [], 0, 0, 0
    for i, ch in enumerate(rows):
        if ch == "[":
            if level == 0:
                start = i
            level += 1
        elif ch == "]":
            level -= 1
            if level == 0:
                out.append(rows[start : i + 1])
                count += 1
                if count == depth:
                    break
    return ",".join(out)


def depth_needed(found: dict[str, Puzzle]) -> int:
    """The fewest first rows that tell every puzzle apart."""
    for depth in range(1, 101):
        if len({key(p, depth) for p in found.values()}) == len(found):
            return depth
    raise ValueError("two puzzles of the suite are the same")


def solver_text(name: str, costs: dict[str, float], scale: float, found: dict[str, Puzzle],
                limit: float, note: str = "") -> str:  # fmt: skip
    """The replay solver of one profile: each test's cost (at most the
    course's `limit`) times `scale`."""
    depth = depth_needed(found)
    lines = [SOLVER.format(name=name, scale=scale, depth=depth)]
    for test, puzzle in found.items():
        spent = min(costs.get(test, 0.0), limit) * scale
        lines.append(f"cost({key(puzzle, depth)}, {spent:.6f}).  % {test}")
    if note:
        lines.append(f"% {note}")
    return "\n".join(lines) + "\n"
