"""Both engines behind one interface: `solve(sequence, time_limit)`.

The Python engine runs in a worker process too, like the Prolog one, so
that a time limit stops either at any point and neither can take the
caller down with it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Protocol

from plpuzzle.flag.domain.model import FlagSequence
from plpuzzle.flag.domain.results import FlagResult, Status
from plpuzzle.flag.engines import python_engine
from plpuzzle.flag.engines.prolog_bridge import PrologFlagEngine
from plpuzzle.runtime import PythonInWorker, Worker
from plpuzzle.runtime.registry import Engine, EngineRegistry


class FlagEngine(Engine, Protocol):
    """A flag engine: the arrangement and the swaps of a sequence."""

    def solve(self, sequence: FlagSequence, time_limit: float) -> FlagResult: ...


def python_answer(letters: str) -> dict[str, Any]:
    """Run in the worker: the Python engine's answer, JSON-ready."""
    return asdict(python_engine.solve(letters))


class PythonFlagEngine(PythonInWorker):
    """The pure-Python reference engine, run in a killable worker."""

    name = "python"

    def solve(self, sequence: FlagSequence, time_limit: float) -> FlagResult:
        run = self.call(f"{__name__}:python_answer", time_limit, letters=sequence.letters)
        if run.status is not Status.OK:
            return run.unfinished(FlagResult, self.name)
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


def _prolog(worker: Worker, **_: Any) -> FlagEngine:
    return PrologFlagEngine(worker)


def _python(worker: Worker, **_: Any) -> FlagEngine:
    return PythonFlagEngine(worker)


#: The flag engines, in the order the commands list them.
REGISTRY: EngineRegistry[FlagEngine] = EngineRegistry(
    "flag", {"prolog": _prolog, "python": _python}
)
ENGINES = REGISTRY.names


def make_engine(name: str, show_stderr: bool = False) -> FlagEngine:
    """An engine by name, with a worker of its own: use it in a `with`
    block, or close() it when done."""
    return REGISTRY.make(name, show_stderr)


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
