"""What one engine run on one sequence produced, in engine-neutral terms.

Kept apart from engines.py so that both engines (prolog_bridge.py and
engines.py) can build results without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from plpuzzle.runtime.status import Status

__all__ = ["FlagResult", "Status"]


@dataclass
class FlagResult:
    """One engine's answer for one sequence (None where there is none);
    Status is the engine layer's, shared by every puzzle."""

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
