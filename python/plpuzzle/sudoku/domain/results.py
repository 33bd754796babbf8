"""What one engine run on one puzzle produced, in engine-neutral terms."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from plpuzzle.sudoku.domain.model import Grid
from plpuzzle.worker import DIED, KILLED


class Status(StrEnum):
    """How an engine run ended. Only OK runs have a complete solution list."""

    OK = "ok"
    TIMEOUT = "timeout"
    ERROR = "error"  # the solver raised an exception
    LOAD_ERROR = "load_error"  # the solver file did not load or lacks sudoku/2
    CRASHED = "crashed"  # the worker died (halt/0, a signal, memory)


#: Runs the worker did not answer, by the worker's Outcome status.
UNFINISHED = {KILLED: Status.TIMEOUT, DIED: Status.CRASHED}


@dataclass(frozen=True)
class BadAnswer:
    """An answer that is not a grid of integers, kept as the solver wrote it."""

    text: str
    reason: str


@dataclass
class SolveResult:
    """All answers of one engine for one puzzle, in the order they came."""

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
