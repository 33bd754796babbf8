"""The defaults that every command, library call and service shares.

A default written in several places drifts; here each is stated once, in
one frozen object, and the command-line options, the API's keyword
arguments and the services' settings all read it. This module imports
nothing of plpuzzle, so every layer may use it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Defaults:
    """plpuzzle's defaults; `DEFAULTS` is the one instance."""

    #: CPU seconds per test: the course's own limit.
    time_limit: float = 120.0
    #: MB of memory for a grading sandbox, all its processes together.
    memory_mb: int = 2048

    def wall_limit(self, time_limit: float) -> float:
        """The wall-clock backstop of a grading run with this CPU limit:
        room for a busy machine, and for solvers that wait."""
        return 2 * time_limit + 10


DEFAULTS = Defaults()
