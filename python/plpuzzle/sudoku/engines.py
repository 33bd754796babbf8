"""The two engines behind one interface: `solve(puzzle, rules, time_limit)`.

The Prolog engine lives in prolog_bridge; the Python reference engine's
search is in python_engine, and runs here in a worker process too, so that
a time limit can stop it at any point and no engine can take the caller
down with it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

from plpuzzle.prolog_engine import Dialect
from plpuzzle.sudoku import python_engine
from plpuzzle.sudoku.model import Puzzle, Rules, grid_from_lists
from plpuzzle.sudoku.prolog_bridge import PrologSudokuEngine
from plpuzzle.sudoku.results import SolveResult, Status, unfinished
from plpuzzle.sudoku.textformat import parse_puzzle, puzzle_to_text
from plpuzzle.worker import Worker, WorkerError

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
        request = {
            "op": "call",
            "function": f"{__name__}:python_solutions",
            "kwargs": {"puzzle_text": puzzle_to_text(puzzle), "rules": rules.value},
        }
        start = time.monotonic()
        try:
            reply = self.worker.request(request, time_limit)
        except WorkerError as e:
            return unfinished(self.name, e, time.monotonic() - start)
        wall = time.monotonic() - start
        if reply["status"] != "ok":
            return SolveResult(
                self.name,
                Status.ERROR,
                cpu_seconds=reply["cpu"],
                wall_seconds=wall,
                message=reply["message"],
            )
        grids = [grid_from_lists(g) for g in reply["result"]]
        return SolveResult(self.name, Status.OK, grids, [], reply["cpu"], wall)


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
