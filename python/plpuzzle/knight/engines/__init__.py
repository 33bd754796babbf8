"""The knight's-tour engines by name, and what is built from their answers.

Both run their search in a worker process, so a time limit can stop them
anywhere. The Prolog bridge is imported only when asked for, so the
Python engine works on a machine without SWI-Prolog.
"""

from __future__ import annotations

from typing import Any

from plpuzzle.knight.domain.model import Board
from plpuzzle.knight.domain.results import KnightEngine, TourResult
from plpuzzle.knight.engines.python_engine import PythonKnightEngine
from plpuzzle.runtime import Worker
from plpuzzle.runtime.registry import EngineRegistry


def _prolog(worker: Worker, **_: Any) -> KnightEngine:
    from plpuzzle.knight.engines.prolog_bridge import PrologKnightEngine

    return PrologKnightEngine(worker=worker)


def _python(worker: Worker, **_: Any) -> KnightEngine:
    return PythonKnightEngine(worker)


#: The knight's-tour engines, in the order the commands list them.
REGISTRY: EngineRegistry[KnightEngine] = EngineRegistry(
    "knight", {"prolog": _prolog, "python": _python}
)
ENGINES = REGISTRY.names


def make_engine(name: str, show_stderr: bool = False) -> KnightEngine:
    """A fresh engine with its own worker: use it in a `with` block, or
    close() it when done."""
    return REGISTRY.make(name, show_stderr)


def survey(engine: KnightEngine, board: Board, time_limit: float) -> list[list[TourResult]]:
    """An open tour from every start square, rows as printed (top first).

    Each result's `moves` is what the seed's experiment charted: how many
    moves the search made before its first tour from that square.
    """
    return [
        [engine.tour(board, (x, y), False, time_limit) for x in range(board.width)]
        for y in range(board.height)
    ]
