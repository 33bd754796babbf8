"""Both engines behind one interface: `solve(sequence, time_limit)`.

The Python engine runs in a worker process too, like the Prolog one, so
that a time limit stops either at any point and neither can take the
caller down with it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Protocol

from plpuzzle.flag import python_engine
from plpuzzle.flag.model import FlagSequence
from plpuzzle.flag.prolog_bridge import PrologFlagEngine
from plpuzzle.flag.results import UNFINISHED, FlagResult, Status
from plpuzzle.worker import Worker, call_request

ENGINES = ("prolog", "python")


class FlagEngine(Protocol):
    name: str

    def solve(self, sequence: FlagSequence, time_limit: float) -> FlagResult: ...

    def close(self) -> None: ...


def python_answer(letters: str) -> dict[str, Any]:
    """Run in the worker: the Python engine's answer, JSON-ready."""
    return asdict(python_engine.solve(letters))


class PythonFlagEngine:
    """The pure-Python reference engine, run in a killable worker."""

    name = "python"

    def __init__(self, worker: Worker | None = None) -> None:
        self.worker = worker or Worker()

    def close(self) -> None:
        self.worker.close()

    def solve(self, sequence: FlagSequence, time_limit: float) -> FlagResult:
        request = call_request(f"{__name__}:python_answer", {"letters": sequence.letters})
        run = self.worker.run(request, time_limit)
        if run.status != "ok":
            return FlagResult(
                self.name,
                UNFINISHED.get(run.status, Status.ERROR),
                cpu_seconds=run.cpu,
                wall_seconds=run.wall,
                message=run.message,
            )
        answer = python_engine.Answer(**run.result)
        return FlagResult(
            self.name,
            Status.OK,
            answer.arrangement,
            answer.min_swaps,
            answer.dijkstra_swaps,
            run.cpu,
            run.wall,
        )


def make_engine(name: str) -> FlagEngine:
    """An engine by name, each with a worker of its own."""
    if name == "prolog":
        return PrologFlagEngine()
    if name == "python":
        return PythonFlagEngine()
    raise ValueError(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")


def disagreements(results: list[FlagResult]) -> list[str]:
    """What the finished engines disagree on, one line per item."""
    done = [r for r in results if r.status is Status.OK]
    if len(done) < 2:
        return []
    first, lines = done[0], []
    for other in done[1:]:
        for what, a, b in zip(
            ("arrangement", "minimum swaps", "Dijkstra swaps"),
            first.answer(),
            other.answer(),
            strict=True,
        ):
            if a != b:
                lines.append(
                    f"{what}: {first.engine} says {_short(a)}, {other.engine} says {_short(b)}"
                )
    return lines


def _short(value: object, limit: int = 60) -> str:
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} items)"
