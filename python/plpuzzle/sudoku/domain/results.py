"""What one engine run on one puzzle produced, in engine-neutral terms."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from plpuzzle.runtime.status import Status
from plpuzzle.sudoku.domain.model import Grid

__all__ = ["BadAnswer", "SolveResult", "Status"]


@dataclass(frozen=True)
class BadAnswer:
    """An answer that is not a grid of integers, kept as the solver wrote it."""

    text: str
    reason: str


@dataclass
class SolveResult:
    """All answers of one engine for one puzzle, in the order they came.

    Only an OK run's solution list is complete (Status is the engine
    layer's, shared by every puzzle)."""

    engine: str
    status: Status
    solutions: list[Grid] = field(default_factory=list)
    bad_answers: list[BadAnswer] = field(default_factory=list)
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    message: str = ""

    @property
    def distinct(self) -> list[Grid]:
        """The distinct solutions, sorted as the course prints them."""
        return sorted(set(self.solutions))

    @property
    def duplicates(self) -> dict[Grid, int]:
        """Solutions given more than once, with how often."""
        return {g: c for g, c in Counter(self.solutions).items() if c > 1}

    @property
    def clean(self) -> bool:
        """Finished, every answer a grid, and none twice."""
        return self.status is Status.OK and not self.bad_answers and not self.duplicates
