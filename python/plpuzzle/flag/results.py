"""What one engine run on one sequence produced, in engine-neutral terms.

Kept apart from engines.py so that both engines (prolog_bridge.py and
engines.py) can build results without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from plpuzzle.worker import DIED, KILLED


class Status(StrEnum):
    """How a run ended; only OK runs carry an answer."""

    OK = "ok"
    TIMEOUT = "timeout"
    ERROR = "error"  # the engine raised, or answered something malformed
    CRASHED = "crashed"  # the worker died


#: Runs the worker did not answer, by the worker's Outcome status.
UNFINISHED = {KILLED: Status.TIMEOUT, DIED: Status.CRASHED}


@dataclass
class FlagResult:
    """One engine's answer for one sequence (None where there is none)."""

    engine: str
    status: Status
    arrangement: str | None = None
    min_swaps: int | None = None
    dijkstra_swaps: int | None = None
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    message: str = ""

    def answer(self) -> tuple[str | None, int | None, int | None]:
        """What two engines must agree on."""
        return self.arrangement, self.min_swaps, self.dijkstra_swaps
