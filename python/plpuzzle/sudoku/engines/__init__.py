"""The two engines behind one interface: `solve(puzzle, rules, time_limit)`.

The Prolog engine lives in prolog_bridge; the Python reference engine's
search is in python_engine, and runs here in a worker process too, so that
a time limit can stop it at any point and no engine can take the caller
down with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from plpuzzle.prolog_engine import Dialect
from plpuzzle.sudoku.domain.model import Puzzle, Rules, grid_from_lists
from plpuzzle.sudoku.domain.results import UNFINISHED, SolveResult, Status
from plpuzzle.sudoku.domain.textformat import parse_puzzle, puzzle_to_text
from plpuzzle.sudoku.engines import python_engine
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine
from plpuzzle.worker import Worker, call_request

ENGINES = ("prolog", "python")


class Engine(Protocol):
    name: str

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult: ...

    def close(self) -> None: ...


def python_solutions(puzzle_text: str, rules: str) -> list[list[list[int]]]:
    """Run in the worker: every solution, as JSON-ready lists."""
    puzzle = parse_puzzle(puzzle_text)
    return [[list(row) for row in grid] for grid in python_engine.solve_all(puzzle, Rules(rules))]


class PythonSudokuEngine:
    """The pure-Python reference engine, run in a killable worker."""

    name = "python"

    def __init__(self, worker: Worker | None = None) -> None:
        self.worker = worker or Worker()

    def close(self) -> None:
        self.worker.close()

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult:
        kwargs = {"puzzle_text": puzzle_to_text(puzzle), "rules": rules.value}
        run = self.worker.run(call_request(f"{__name__}:python_solutions", kwargs), time_limit)
        if run.status != "ok":
            return SolveResult(
                self.name,
                UNFINISHED.get(run.status, Status.ERROR),
                cpu_seconds=run.cpu,
                wall_seconds=run.wall,
                message=run.message,
            )
        grids = [grid_from_lists(g) for g in run.result]
        return SolveResult(self.name, Status.OK, grids, [], run.cpu, run.wall)


def make_engine(
    name: str, solver: Path | None = None, dialect: Dialect = "swi", show_stderr: bool = False
) -> Engine:
    """An engine by name; `solver` and `dialect` concern the Prolog one."""
    worker = Worker(show_stderr=show_stderr)
    if name == "prolog":
        return PrologSudokuEngine(solver, dialect, worker)
    if name == "python":
        return PythonSudokuEngine(worker)
    raise ValueError(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
