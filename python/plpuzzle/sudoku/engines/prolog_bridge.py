"""The Prolog engine: a `sudoku/2` solver run through pyswip in a worker.

The puzzle goes in as its `s(K,F)` term, every answer comes back on
backtracking, and each answer is checked for shape here, so a solver that
answers non-ground or malformed grids gets those reported, not a crash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from plpuzzle.runtime import (
    DEFAULT_DIALECT,
    GRACE_SECONDS,
    Answer,
    Dialect,
    LoadReport,
    PrologInWorker,
    UndecodableAnswer,
    Worker,
    decode_answer,
    prolog_file,
)
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules, grid_from_lists
from plpuzzle.sudoku.domain.results import BadAnswer, SolveResult
from plpuzzle.sudoku.domain.textformat import grid_shape_problem

OWN_SOLVER = "sudoku.pl"

#: Our solver's searches (its search/1 option): `staged`, the fast one;
#: `lookahead`, the same looking ahead at every node (which puts the
#: lookahead to the test on small puzzles); and `labeling`, plain
#: labeling/2 on the model, an oracle for both.
Search = Literal["staged", "lookahead", "labeling"]

#: SWI-Prolog's default stack limit (1 GiB), which a puzzle never gets less of.
BASE_STACK_LIMIT = 1 << 30
#: Stack allowed per cell beyond that: a solver's terms grow with the N*N
#: cells (and their N candidates), so a K=10 puzzle (10,000 cells) must
#: not be refused for its size alone where a K=6 one (1,296) fits.
STACK_PER_CELL = 1 << 18


def own_solver() -> Path:
    """The project's clpfd solver, prolog/sudoku.pl."""
    return prolog_file(OWN_SOLVER)


def stack_limit(k: int) -> int:
    """The Prolog stack limit (bytes) for a puzzle of cell size `k`: the
    default up to K=8, then growing with the number of cells (K**4)."""
    return max(BASE_STACK_LIMIT, k**4 * STACK_PER_CELL)


def goal_text(
    puzzle: Puzzle, rules: Rules, own: bool, search: Search = "staged"
) -> tuple[str, str]:
    """The goal to run and the predicate it needs.

    Our solver takes the rule variant and the search as options
    (sudoku/3); any other solver implements the assignment's sudoku/2,
    whose rules are its own. The goal first sets the stack limit for the
    puzzle's size: a worker serves puzzles of every size, so each query
    sets its own, and every path (solve, test, check, bench) runs the
    same goal.
    """
    limit = f"system:set_prolog_flag(stack_limit, {stack_limit(puzzle.k)})"
    if own:
        options = f"rules({rules.value})"
        if search != "staged":
            options += f", search({search})"
        return f"{limit}, sudoku({puzzle.to_term()}, Sol, [{options}])", "sudoku/3"
    return f"{limit}, sudoku({puzzle.to_term()}, Sol)", "sudoku/2"


def decode_answers(answers: list[Answer], n: int) -> tuple[list[Grid], list[BadAnswer]]:
    """Split raw answers into N x N integer grids and bad answers."""
    grids: list[Grid] = []
    bad: list[BadAnswer] = []
    for answer in answers:
        text = answer[1]
        try:
            value = decode_answer(answer)
        except UndecodableAnswer as e:
            ground = answer[0]
            reason = (
                f"the answer {e}" if not ground else "the answer is not a list of lists of integers"
            )
            bad.append(BadAnswer(text, reason))
            continue
        problem = grid_shape_problem(value, n)
        if problem:
            bad.append(BadAnswer(text, f"the answer {problem}"))
        else:
            grids.append(grid_from_lists(value))
    return grids, bad


class PrologSudokuEngine(PrologInWorker):
    """Solve puzzles with a Prolog `sudoku.pl` (ours unless told otherwise).

    Our own solver is always loaded as SWI-Prolog; another in `dialect`.
    `search` picks our solver's search: `labeling` makes this engine the
    plain clpfd oracle (named so in results). `own` says whether the
    solver takes our sudoku/3 options: by default only prolog/sudoku.pl
    does; a copy of it (the tests' mutants of our solver) can say so.
    """

    name = "prolog"

    def __init__(
        self,
        solver: Path | None = None,
        dialect: Dialect = DEFAULT_DIALECT,
        worker: Worker | None = None,
        grace: float = GRACE_SECONDS,
        *,
        search: Search = "staged",
        own: bool | None = None,
    ) -> None:
        program = (solver or own_solver()).resolve()
        if own is None:
            own = solver is None or program == own_solver().resolve()
        if search != "staged" and not own:
            raise ValueError(f"search({search}) is an option of our own solver only")
        super().__init__(program, "swi" if own else dialect, worker, grace)
        self.own = own
        self.search: Search = search
        if search != "staged":
            self.name = search

    @property
    def solver(self) -> Path:
        """The solver file this engine runs."""
        return self.program

    @property
    def predicate(self) -> str:
        """What this engine calls: our sudoku/3 (rules and search as
        options), or the assignment's sudoku/2."""
        return "sudoku/3" if self.own else "sudoku/2"

    def check_load(self, time_limit: float) -> LoadReport:
        """Load the solver in this engine's worker (where the runs then
        find it loaded) and report how that went."""
        return self.load(self.predicate, time_limit)

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult:
        """Every answer of the solver for `puzzle`, within `time_limit` s.

        Raises EngineUnavailable when SWI-Prolog cannot be loaded at all:
        that is the machine's fault, not the solver's.
        """
        goal, predicate = goal_text(puzzle, rules, self.own, self.search)
        run = self.query(predicate, goal, "Sol", time_limit)
        grids, bad = decode_answers(run.answers, puzzle.n)
        return SolveResult(self.name, run.status, grids, bad, run.cpu, run.wall, run.message)
