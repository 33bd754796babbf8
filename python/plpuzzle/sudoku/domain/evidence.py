"""A wrong grid explained: the board as the course draws it, and what is wrong.

A grade's evidence used to be a nested list, which a student has to
redraw on paper before they can see anything. Here an extra solution (one
the solver gave that is not a solution) becomes the board in the course's
printout format plus the validator's violations in words ("the box at rows
1-2, columns 1-2 holds 2 twice"); a missing solution becomes a board.
Every report (pytest output, feedback files, HTML) draws evidence here, so
they all say the same thing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules, grid_from_lists
from plpuzzle.sudoku.domain.textformat import format_board
from plpuzzle.sudoku.domain.validator import validate

#: How many violations of one grid are named before "... and N more".
VIOLATIONS_SHOWN = 6


@dataclass(frozen=True)
class GridEvidence:
    """One grid of a grade's evidence, ready to show."""

    #: "extra" (given, not a solution) or "missing" (a solution not given).
    kind: str
    grid: Grid
    #: The board as the course harness prints it, without blank edges.
    board: str
    #: The rules the grid breaks, in words (empty for a missing solution,
    #: or for an extra one that is a valid grid the expected file lacks).
    violations: list[str] = field(default_factory=list)

    def lines(self, indent: str = "    ") -> list[str]:
        """The board, then one line per broken rule, each indented."""
        out = [f"{indent}{row}" if row else "" for row in self.board.splitlines()]
        shown = self.violations[:VIOLATIONS_SHOWN]
        out += [f"{indent}breaks: {v}" for v in shown]
        if len(self.violations) > len(shown):
            out.append(f"{indent}... and {len(self.violations) - len(shown)} more broken rules")
        return out


def draw(grid: Grid, k: int) -> str:
    """A board in the course's printout format, blank lines at the edges cut."""
    return format_board(grid, k).strip("\n")


def describe(puzzle: Puzzle, grid: Grid, rules: Rules, kind: str = "extra") -> GridEvidence:
    """A grid as evidence: its board and (for an extra one) the rules it breaks.

    An extra grid that breaks no rule is a real solution the expected file
    does not hold; the caller says so, as only it knows the expected set.
    """
    violations = [str(v) for v in validate(puzzle, grid, rules)] if kind == "extra" else []
    return GridEvidence(kind, grid, draw(grid, puzzle.k), violations)


def grids_in_evidence(evidence: str, n: int) -> dict[str, Grid]:
    """The first missing and first extra solution named in a stored grade's
    evidence text (`first missing solution: [[...]]`), by kind.

    Grades are stored as text (the gradebook, the JSON report), so the
    feedback reads the grids back from it; a line that does not hold an
    N x N grid of ints is skipped, never trusted.
    """
    found: dict[str, Grid] = {}
    for line in evidence.splitlines():
        for kind in ("missing", "extra"):
            prefix = f"first {kind} solution: "
            if not line.startswith(prefix) or kind in found:
                continue
            try:
                value = json.loads(line[len(prefix) :])
            except ValueError:
                continue
            if (
                isinstance(value, list)
                and len(value) == n
                and all(
                    isinstance(row, list) and len(row) == n and all(type(x) is int for x in row)
                    for row in value
                )
            ):
                found[kind] = grid_from_lists(value)
    return found


def evidence_in_words(evidence: str, puzzle: Puzzle, rules: Rules) -> str:
    """A stored grade's evidence with its grids drawn as boards, and an extra
    one's broken rules named: for any report that shows a grade's evidence
    (the HTML and JSON class reports may call it on `TestGrade.evidence`).

    Lines that are not a grid (duplicates, malformed answers, what the run
    printed) are kept as they are.
    """
    grids = grids_in_evidence(evidence, puzzle.n)
    out = []
    for line in evidence.splitlines():
        kind = next(
            (k for k in ("missing", "extra") if line.startswith(f"first {k} solution: ")), None
        )
        if kind is None or kind not in grids:
            out.append(line)
            continue
        title = (
            "first extra solution (given, not a solution):"
            if kind == "extra"
            else "first missing solution (a solution not given):"
        )
        out += [title, *describe(puzzle, grids[kind], rules, kind).lines()]
    return "\n".join(out)
