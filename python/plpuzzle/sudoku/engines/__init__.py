"""The engines behind one interface: `solve(puzzle, rules, time_limit)`.

The Prolog engine lives in prolog_bridge; the Python reference engine's
search is in python_engine, and the CP-SAT model (an independent third
opinion) in cpsat_engine. Both Python ones run here in a worker process
too, so that a time limit can stop them at any point and no engine can
take the caller down with it. All are plpuzzle.runtime adapters, so their
statuses mean what every puzzle's mean, and all are context managers.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Any, Protocol

from plpuzzle.runtime import DEFAULT_DIALECT, Dialect, PythonInWorker, Worker
from plpuzzle.runtime.registry import Engine as AnyEngine
from plpuzzle.runtime.registry import EngineRegistry
from plpuzzle.runtime.status import default_message
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules, grid_from_lists
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import parse_puzzle, puzzle_to_text
from plpuzzle.sudoku.engines import cpsat_engine, python_engine
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine


class Engine(AnyEngine, Protocol):
    """A sudoku engine: every solution of a puzzle under a rule variant."""

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult: ...


def python_solutions(
    puzzle_text: str, rules: str, max_seconds: float = 0.0, most: int = 0
) -> list[list[list[int]]]:
    """Run in the worker: every solution (the first `most` when it is not
    0), as JSON-ready lists (the worker's deadline, not `max_seconds`,
    stops this engine)."""
    puzzle = parse_puzzle(puzzle_text)
    found = python_engine.solve_all(puzzle, Rules(rules))
    return [[list(row) for row in grid] for grid in islice(found, most or None)]


class GridsInWorker(PythonInWorker):
    """An engine written in Python, run in a killable worker: `function`
    ("module:name") gets the puzzle as text and returns every solution as
    lists, or None when it stopped at its own time limit."""

    name = ""
    function = ""

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult:
        run = self.call(
            self.function,
            time_limit,
            puzzle_text=puzzle_to_text(puzzle),
            rules=rules.value,
            max_seconds=time_limit,
        )
        if run.status is not Status.OK:
            return run.unfinished(SolveResult, self.name)
        if run.result is None:
            message = default_message(Status.TIMEOUT, run.end, time_limit)
            return run.unfinished(SolveResult, self.name, Status.TIMEOUT, message)
        grids = [grid_from_lists(g) for g in run.result]
        return SolveResult(self.name, Status.OK, grids, [], run.cpu, run.wall)


def cpsat_solutions(
    puzzle_text: str, rules: str, max_seconds: float
) -> list[list[list[int]]] | None:
    """Run in the worker: every CP-SAT solution, or None if it ran out of time."""
    grids = cpsat_engine.solve_all(parse_puzzle(puzzle_text), Rules(rules), max_seconds)
    return None if grids is None else [[list(row) for row in grid] for grid in grids]


class PythonSudokuEngine(GridsInWorker):
    """The pure-Python reference engine (the worker's deadline stops it)."""

    name = "python"
    function = f"{__name__}:python_solutions"

    def solutions_up_to(
        self, puzzle: Puzzle, rules: Rules, most: int, seconds: float
    ) -> list[Grid] | None:
        """At most `most` solutions, listed within `seconds` of wall-clock
        time, or None when that was not enough (the worker is killed)."""
        if seconds <= 0:
            return None
        run = self.call(
            self.function, seconds, puzzle_text=puzzle_to_text(puzzle), rules=rules.value,
            most=most,
        )  # fmt: skip
        if run.status is not Status.OK or run.result is None:
            return None
        return [grid_from_lists(g) for g in run.result]


class CpSatSudokuEngine(GridsInWorker):
    """The CP-SAT model. CP-SAT's own time limit is set to the same limit
    as a backstop; if it stops first, the run is a timeout all the same."""

    name = "cpsat"
    function = f"{__name__}:cpsat_solutions"


def _prolog(
    worker: Worker, solver: Path | None = None, dialect: Dialect = DEFAULT_DIALECT, **_: Any
) -> Engine:
    return PrologSudokuEngine(solver, dialect, worker)


def _python(worker: Worker, **_: Any) -> Engine:
    return PythonSudokuEngine(worker)


def _cpsat(worker: Worker, **_: Any) -> Engine:
    return CpSatSudokuEngine(worker)


#: The sudoku engines, in the order the commands list them.
REGISTRY: EngineRegistry[Engine] = EngineRegistry(
    "sudoku", {"prolog": _prolog, "python": _python, "cpsat": _cpsat}
)
ENGINES = REGISTRY.names


def make_engine(
    name: str,
    solver: Path | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    show_stderr: bool = False,
) -> Engine:
    """An engine by name, with a worker of its own: use it in a `with`
    block, or close() it. `solver` and `dialect` concern the Prolog one;
    the dialect's default is the CLI's."""
    return REGISTRY.make(name, show_stderr, solver=solver, dialect=dialect)
