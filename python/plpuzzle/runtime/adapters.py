"""What every puzzle's engines are built on: an engine that owns a worker.

A puzzle's Python engine subclasses PythonInWorker and calls a function of
its own module in the worker; its Prolog engine subclasses PrologInWorker
and queries its program there. Both get back an Outcome whose Status and
message mean the same for every puzzle, and both are context managers:
`with make_engine(...) as engine:` kills the worker at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Self

from plpuzzle.runtime.prolog import Dialect, LoadProblem
from plpuzzle.runtime.status import Status, default_message
from plpuzzle.runtime.worker import (
    GRACE_SECONDS,
    IMPORT_GRACE_SECONDS,
    Outcome,
    Worker,
    call_request,
    load_request,
    prolog_request,
)
from plpuzzle.settings import DEFAULTS


class WorkerEngine:
    """An engine running in a worker process of its own."""

    name: str

    def __init__(self, worker: Worker | None = None) -> None:
        self.worker = worker or Worker()

    def close(self) -> None:
        """Kill the worker (a later run starts a new one)."""
        self.worker.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ended(self, outcome: Outcome, time_limit: float) -> Outcome:
        """The outcome, with a message whenever the run did not finish."""
        if outcome.status is Status.OK or outcome.message:
            return outcome
        return replace(outcome, message=default_message(outcome.status, outcome.end, time_limit))


@dataclass(frozen=True)
class LoadReport:
    """How loading a Prolog program went: OK when it defines the predicate
    asked for (LOAD_ERROR when not, or unreadable; a timeout or a crash as
    for any run), with every error and warning raised on the way."""

    status: Status
    problems: list[LoadProblem] = field(default_factory=list)
    message: str = ""

    @property
    def errors(self) -> list[LoadProblem]:
        return [p for p in self.problems if p.kind == "error"]

    @property
    def warnings(self) -> list[LoadProblem]:
        return [p for p in self.problems if p.kind != "error"]

    @property
    def clean(self) -> bool:
        """Loaded, defines the predicate, and raised no error."""
        return self.status is Status.OK and not self.errors


class PythonInWorker(WorkerEngine):
    """A pure-Python engine whose search runs in the worker, where the
    time limit can stop it anywhere (the worker is killed at the limit)."""

    def call(self, function: str, time_limit: float, **kwargs: Any) -> Outcome:
        """Run `function` ("plpuzzle.module:name") on JSON-ready kwargs,
        within `time_limit` seconds of the worker's CPU time and the
        wall-clock backstop that goes with it."""
        request = call_request(function, kwargs)
        wall = DEFAULTS.wall_limit(time_limit)
        outcome = self.worker.run(request, wall, time_limit, IMPORT_GRACE_SECONDS)
        return self._ended(outcome, time_limit)


class PrologInWorker(WorkerEngine):
    """An engine that queries a Prolog program through the bridge.

    The time limit (CPU seconds, with a wall-clock backstop) is enforced
    inside Prolog; `grace` more seconds of either pass before the worker
    is killed, for programs that ignore or swallow the time-limit
    exception.
    """

    def __init__(
        self,
        program: Path,
        dialect: Dialect = "swi",
        worker: Worker | None = None,
        grace: float = GRACE_SECONDS,
    ) -> None:
        super().__init__(worker)
        self.program = program.resolve()
        self.dialect: Dialect = dialect
        self.grace = grace
        #: A file to keep the count of answers found so far in, while a
        #: query runs (for a progress display); None: not kept.
        self.progress: Path | None = None

    def query(self, predicate: str, goal: str, template: str, time_limit: float) -> Outcome:
        """Every answer of `goal` (which needs `predicate` of the program).

        Raises EngineUnavailable when SWI-Prolog cannot be loaded at all:
        that is the machine's fault, not the program's.
        """
        request = prolog_request(
            self.program, predicate, goal, template, time_limit, self.dialect, self.progress
        )
        wall = request["wall_limit"]
        outcome = self.worker.run(request, wall, cpu_seconds=time_limit, grace=self.grace)
        return self._ended(outcome, time_limit)

    def load(self, predicate: str, time_limit: float) -> LoadReport:
        """Load the program (once per worker, as a query would) and report
        what loading raised: a file that does not load cleanly can be
        reported once, at its place, before anything runs."""
        request = load_request(self.program, predicate, self.dialect)
        outcome = self._ended(self.worker.run(request, time_limit + self.grace), time_limit)
        problems = [LoadProblem(*p) for p in outcome.reply.get("problems", [])]
        message = outcome.message
        if outcome.status is Status.LOAD_ERROR:  # the problems come apart, not in the text
            message = message.split("\n")[0]
        return LoadReport(outcome.status, problems, message)
