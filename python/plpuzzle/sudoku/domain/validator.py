"""An independent checker: is a proposed grid a solution of a puzzle?

It referees answers from untrusted code (student Prolog, our own engines),
so it is written as plainly as possible, straight from the puzzle's rules
(README, "The puzzle"), and shares nothing with the engines beyond the
model. It names every rule a grid breaks, not just the first one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from plpuzzle.sudoku.domain.model import Field, Puzzle, Rules, box_cells

#: The rule names a Violation may carry.
RULES = ("shape", "range", "row", "column", "box", "value", "parity", "s", "w")


@dataclass(frozen=True)
class Violation:
    """One broken rule; row and col are 1-based, None where they do not apply."""

    rule: str
    row: int | None
    col: int | None
    message: str

    def __str__(self) -> str:
        return self.message


def validate(puzzle: Puzzle, grid: object, rules: Rules) -> list[Violation]:
    """Every rule `grid` breaks as a solution of `puzzle`; [] means it is one.

    A grid of the wrong shape is reported alone: the other rules cannot be
    read on it.
    """
    problem = shape_problem(grid, puzzle.n)
    if problem:
        return [Violation("shape", None, None, f"the grid {problem}")]
    assert isinstance(grid, list | tuple)
    values = [list(row) for row in grid]
    return (
        range_violations(puzzle, values)
        + unit_violations(puzzle, values)
        + info_violations(puzzle, values, rules)
    )


def shape_problem(grid: object, n: int) -> str | None:
    """Why `grid` is not N rows of N integers, or None when it is."""
    if not isinstance(grid, list | tuple):
        return f"is a {type(grid).__name__}, not a list of rows"
    if len(grid) != n:
        return f"has {len(grid)} rows, expected {n}"
    for r, row in enumerate(grid, 1):
        if not isinstance(row, list | tuple):
            return f"has row {r} that is a {type(row).__name__}, not a list of values"
        if len(row) != n:
            return f"has {len(row)} values in row {r}, expected {n}"
        for c, value in enumerate(row, 1):
            if type(value) is not int:  # bool is an int subclass, but not a value
                return f"holds {value!r} at ({r},{c}), which is not an integer"
    return None


def range_violations(puzzle: Puzzle, values: list[list[int]]) -> list[Violation]:
    """Cells holding a number outside 1..N."""
    n = puzzle.n
    return [
        Violation("range", r, c, f"cell ({r},{c}) holds {v}, outside 1..{n}")
        for r, row in enumerate(values, 1)
        for c, v in enumerate(row, 1)
        if not 1 <= v <= n
    ]


def unit_violations(puzzle: Puzzle, values: list[list[int]]) -> list[Violation]:
    """Values repeated within a row, column or box.

    With every value in range (checked separately), a unit without repeats
    holds each of 1..N exactly once, so repeats are all there is to report.
    """
    n, k = puzzle.n, puzzle.k
    out = []
    for r in range(1, n + 1):
        row = values[r - 1]
        out += repeats("row", r, None, f"row {r}", row)
    for c in range(1, n + 1):
        column = [values[r][c - 1] for r in range(n)]
        out += repeats("column", None, c, f"column {c}", column)
    for b in range(n):
        cells = box_cells(b, k)
        top, left = cells[0][0] + 1, cells[0][1] + 1
        name = f"the box at rows {top}-{top + k - 1}, columns {left}-{left + k - 1}"
        out += repeats("box", top, left, name, [values[r][c] for r, c in cells])
    return out


def repeats(
    rule: str, row: int | None, col: int | None, name: str, unit: list[int]
) -> list[Violation]:
    """One violation per value that occurs more than once in a unit."""
    counts = Counter(unit)
    return [
        Violation(rule, row, col, f"{name} holds {v} {times(count)}")
        for v, count in sorted(counts.items())
        if count > 1
    ]


def times(count: int) -> str:
    return {2: "twice", 3: "three times"}.get(count, f"{count} times")


def info_violations(puzzle: Puzzle, values: list[list[int]], rules: Rules) -> list[Violation]:
    """Broken v(M), e, o, s and w infos, cell by cell in reading order."""
    out = []
    for r, fields in enumerate(puzzle.fields):
        for c, field in enumerate(fields):
            out += cell_violations(field, r, c, values, rules)
    return out


def cell_violations(
    field: Field, r0: int, c0: int, values: list[list[int]], rules: Rules
) -> list[Violation]:
    """The infos of the cell at 0-based (r0, c0) that the grid breaks."""
    r, c, v = r0 + 1, c0 + 1, values[r0][c0]
    here = f"cell ({r},{c})"
    out = []

    def broken(rule: str, message: str) -> None:
        out.append(Violation(rule, r, c, message))

    for info in field.infos:
        if isinstance(info, int) and v != info:
            broken("value", f"{here} must be {info} but holds {v}")
        elif info == "e" and v % 2 != 0:
            broken("parity", f"{here} must be even but holds {v}")
        elif info == "o" and v % 2 != 1:
            broken("parity", f"{here} must be odd but holds {v}")
        elif info == "s" and r < len(values):  # an s in the bottom row is ignored
            below = values[r0 + 1][c0]
            problem = relation_problem(rules, v, below)
            if problem:
                broken("s", f"s: {here}={v} and the cell below ({r + 1},{c})={below} {problem}")
        elif info == "w" and c > 1:  # a w in the leftmost column is ignored
            left = values[r0][c0 - 1]
            problem = relation_problem(rules, v, left)
            if problem:
                broken(
                    "w", f"w: {here}={v} and the cell to its left ({r},{c - 1})={left} {problem}"
                )
    return out


def relation_problem(rules: Rules, a: int, b: int) -> str | None:
    """How two neighbours break the variant's relation, or None if they keep it."""
    if rules is Rules.CONSECUTIVE:
        gap = abs(a - b)
        return None if gap == 1 else f"differ by {gap}, not 1"
    total = a + b
    return None if total % 2 == 1 else f"have an even sum {total}, not an odd one"
