"""The two engines behind one interface: `solve(puzzle, rules, time_limit)`.

The Prolog engine lives in prolog_bridge; the Python reference engine's
search is in python_engine, and runs here in a worker process too, so that
a time limit can stop it at any point and no engine can take the caller
down with it. Both are plpuzzle.engine adapters, so their statuses mean
what every puzzle's mean, and both are context managers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, Self

from plpuzzle.engine import DEFAULT_DIALECT, Dialect, PythonInWorker, Worker
from plpuzzle.sudoku.domain.model import Puzzle, Rules, grid_from_lists
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import parse_puzzle, puzzle_to_text
from plpuzzle.sudoku.engines import python_engine
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine

ENGINES = ("prolog", "python")


class Engine(Protocol):
    name: str

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


def python_solutions(puzzle_text: str, rules: str) -> list[list[list[int]]]:
    """Run in the worker: every solution, as JSON-ready lists."""
    puzzle = parse_puzzle(puzzle_text)
    return [[list(row) for row in grid] for grid in python_engine.solve_all(puzzle, Rules(rules))]


class PythonSudokuEngine(PythonInWorker):
    """The pure-Python reference engine, run in a killable worker."""

    name = "python"

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult:
        run = self.call(
            f"{__name__}:python_solutions",
            time_limit,
            puzzle_text=puzzle_to_text(puzzle),
            rules=rules.value,
        )
        if run.status is not Status.OK:
            return run.unfinished(SolveResult, self.name)
        grids = [grid_from_lists(g) for g in run.result]
        return SolveResult(self.name, Status.OK, grids, [], run.cpu, run.wall)


def make_engine(
    name: str,
    solver: Path | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    show_stderr: bool = False,
) -> Engine:
    """An engine by name, with a worker of its own: use it in a `with`
    block, or close() it. `solver` and `dialect` concern the Prolog one;
    the dialect's default is the CLI's."""
    worker = Worker(show_stderr=show_stderr)
    if name == "prolog":
        return PrologSudokuEngine(solver, dialect, worker)
    if name == "python":
        return PythonSudokuEngine(worker)
    raise ValueError(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
