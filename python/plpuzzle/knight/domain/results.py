"""What one knight's-tour engine run produced, in engine-neutral terms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from plpuzzle.knight.domain.model import Board, Square, Tour
from plpuzzle.runtime.registry import Engine
from plpuzzle.runtime.status import Status

__all__ = ["CountResult", "KnightEngine", "Status", "TourResult"]


@dataclass
class TourResult:
    """One tour, or why there is none.

    An OK run without a tour is a finished search: no tour exists from
    that start. Status is the engine layer's, shared by every puzzle.
    """

    engine: str
    status: Status
    tour: Tour | None = None
    #: How many moves the search made (forward steps, counting those it
    #: later took back) before it found the tour; None if not counted.
    moves: int | None = None
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    message: str = ""

    @property
    def found(self) -> bool:
        """A tour came back."""
        return self.status is Status.OK and self.tour is not None

    @property
    def no_tour(self) -> bool:
        """The search finished and proved there is no tour."""
        return self.status is Status.OK and self.tour is None


@dataclass
class CountResult:
    """How many directed tours there are (status OK), or why unknown."""

    engine: str
    status: Status
    count: int | None = None
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    message: str = ""


class KnightEngine(Engine, Protocol):
    """Both engines answer these; each runs its search in a worker process.

    `start` None in count() means: over all start squares.
    """

    def tour(self, board: Board, start: Square, closed: bool, time_limit: float) -> TourResult: ...

    def count(
        self, board: Board, start: Square | None, closed: bool, time_limit: float
    ) -> CountResult: ...
