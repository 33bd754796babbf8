"""The sudoku assignment: `solve`, `check`, `test`, `generate` and `grade` from Python.

    >>> from plpuzzle import sudoku
    >>> result = sudoku.solve("puzzles/sudoku/consecutive/test004d.txt", rules="consecutive")
    >>> result.status, len(result.solutions)
    (<Status.OK: 'ok'>, 5)
    >>> puzzle = sudoku.Puzzle.parse("1\\n-\\n")
    >>> sudoku.solve(puzzle, engine="python").solutions
    [((1,),)]

A `str` in a file's place is a file name; puzzle text goes through
`Puzzle.parse(text)` or the `text=` keyword. The public names are listed
in `__all__`, and `dir(sudoku)` shows them; they are loaded on first use,
so importing a submodule (the model, a text format) stays cheap. The
folders below show the layers: `domain` (the puzzle, its formats, the
validator), `engines` (Prolog, Python, CP-SAT), `runs` (the engines run
on suites, cross-checks, puzzle generation), `grading` (a class in the
sandbox), `service` (the hand-in web service) and `presentation`
(command line, reports, the pytest plugin).
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each public name and the module that defines it.
_HOMES = {
    "solve": "plpuzzle.sudoku.api",
    "check": "plpuzzle.sudoku.api",
    "test": "plpuzzle.sudoku.api",
    "generate": "plpuzzle.sudoku.api",
    "grade": "plpuzzle.sudoku.api",
    "similar": "plpuzzle.sudoku.api",
    "requirements": "plpuzzle.sudoku.api",
    "Puzzle": "plpuzzle.sudoku.domain.model",
    "Rules": "plpuzzle.sudoku.domain.model",
    "Grid": "plpuzzle.sudoku.domain.model",
    "FormatError": "plpuzzle.sudoku.domain.textformat",
    "SolveResult": "plpuzzle.sudoku.domain.results",
    "Status": "plpuzzle.sudoku.domain.results",
    "CrossCheck": "plpuzzle.sudoku.runs.crosscheck",
    "CaseResult": "plpuzzle.sudoku.runs.suite",
    "Verdict": "plpuzzle.sudoku.runs.suite",
    "GradingOutcome": "plpuzzle.sudoku.grading.grader",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    """The public names only (they load on first use)."""
    return list(__all__)
