"""The sudoku assignment: `solve`, `check`, `test` and `grade` from Python.

    >>> from plpuzzle import sudoku
    >>> result = sudoku.solve(Path("puzzle.txt"), rules="oddsum")
    >>> result.status, len(result.solutions)

The functions live in `plpuzzle.sudoku.api` and are loaded on first use,
so importing a submodule (the model, a text format) stays cheap. The
folders below show the layers: `domain` (the puzzle, its formats, the
validator), `engines` (Prolog and Python), `services` (suites, grading,
generation, benchmarks) and `presentation` (command line, reports, the
pytest plugin).
"""

from __future__ import annotations

from typing import Any

__all__ = ["check", "grade", "solve", "test"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from plpuzzle.sudoku import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
