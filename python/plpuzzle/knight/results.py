"""What one knight's-tour engine run produced, in engine-neutral terms."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from plpuzzle.knight.model import Board, Square, Tour


class Status(StrEnum):
    """How a run ended."""

    FOUND = "found"  # a tour (or a count) came back
    NO_TOUR = "no_tour"  # the search finished: no tour exists from that start
    TIMEOUT = "timeout"
    ERROR = "error"  # the engine raised, or its worker died


@dataclass
class TourResult:
    """One tour (status FOUND), or why there is none."""

    engine: str
    status: Status
    tour: Tour | None = None
    #: How many moves the search made (forward steps, counting those it
    #: later took back) before it found the tour; None if not counted.
    moves: int | None = None
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    message: str = ""


@dataclass
class CountResult:
    """How many directed tours there are (status FOUND), or why unknown."""

    engine: str
    status: Status
    count: int | None = None
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    message: str = ""


class KnightEngine(Protocol):
    """Both engines answer these; each runs its search in a worker process.

    `start` None in count() means: over all start squares.
    """

    name: str

    def tour(self, board: Board, start: Square, closed: bool, time_limit: float) -> TourResult: ...

    def count(
        self, board: Board, start: Square | None, closed: bool, time_limit: float
    ) -> CountResult: ...

    def close(self) -> None: ...
