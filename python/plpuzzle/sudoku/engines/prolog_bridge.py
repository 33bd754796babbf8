"""The Prolog engine: a `sudoku/2` solver run through pyswip in a worker.

The puzzle goes in as its `s(K,F)` term, every answer comes back on
backtracking, and each answer is checked for shape here, so a solver that
answers non-ground or malformed grids gets those reported, not a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

from plpuzzle.prolog_engine import Dialect, prolog_file
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules, grid_from_lists
from plpuzzle.sudoku.domain.results import UNFINISHED, BadAnswer, SolveResult, Status
from plpuzzle.sudoku.domain.textformat import grid_shape_problem
from plpuzzle.worker import GRACE_SECONDS, Worker, prolog_request

OWN_SOLVER = "sudoku.pl"


def own_solver() -> Path:
    """The project's clpfd solver, prolog/sudoku.pl."""
    return prolog_file(OWN_SOLVER)


def goal_text(puzzle: Puzzle, rules: Rules, own: bool) -> tuple[str, str]:
    """The goal to run and the predicate it needs.

    Our solver takes the rule variant as an option (sudoku/3); any other
    solver implements the assignment's sudoku/2, whose rules are its own.
    """
    if own:
        return f"sudoku({puzzle.to_term()}, Sol, [rules({rules.value})])", "sudoku/3"
    return f"sudoku({puzzle.to_term()}, Sol)", "sudoku/2"


def decode_answers(answers: list[tuple[bool, str]], n: int) -> tuple[list[Grid], list[BadAnswer]]:
    """Split raw answers into N x N integer grids and bad answers."""
    grids: list[Grid] = []
    bad: list[BadAnswer] = []
    for ground, text in answers:
        if not ground:
            bad.append(BadAnswer(text, "the answer is not ground (it holds unbound variables)"))
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: hostile nesting
            bad.append(BadAnswer(text, "the answer is not a list of lists of integers"))
            continue
        problem = grid_shape_problem(value, n)
        if problem:
            bad.append(BadAnswer(text, f"the answer {problem}"))
        else:
            grids.append(grid_from_lists(value))
    return grids, bad


class PrologSudokuEngine:
    """Solve puzzles with a Prolog `sudoku.pl` (ours unless told otherwise).

    The time limit is enforced inside Prolog; `grace` more seconds of wall
    clock are allowed before the worker is killed, for solvers that ignore
    or swallow the time-limit exception.
    """

    name = "prolog"

    def __init__(
        self,
        solver: Path | None = None,
        dialect: Dialect = "swi",
        worker: Worker | None = None,
        grace: float = GRACE_SECONDS,
    ) -> None:
        self.grace = grace
        self.solver = (solver or own_solver()).resolve()
        self.own = solver is None or self.solver == own_solver().resolve()
        self.dialect: Dialect = "swi" if self.own else dialect
        self.worker = worker or Worker()

    def close(self) -> None:
        self.worker.close()

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult:
        """Every answer of the solver for `puzzle`, within `time_limit` s.

        Raises EngineUnavailable when SWI-Prolog cannot be loaded at all:
        that is the machine's fault, not the solver's.
        """
        goal, predicate = goal_text(puzzle, rules, self.own)
        request = prolog_request(self.solver, predicate, goal, "Sol", time_limit, self.dialect)
        run = self.worker.run(request, time_limit + self.grace)
        status = _STATUS.get(run.status, Status.ERROR)
        grids, bad = decode_answers(run.answers, puzzle.n)
        return SolveResult(self.name, status, grids, bad, run.cpu, run.wall, run.message)


_STATUS = {
    "ok": Status.OK,
    "time_limit": Status.TIMEOUT,
    "error": Status.ERROR,
    "load_error": Status.LOAD_ERROR,
    "halted": Status.CRASHED,
    **UNFINISHED,
}
