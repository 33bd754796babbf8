"""The Prolog engine: prolog/flag.pl through pyswip, in a worker process.

The sequence travels as one quoted atom of letters and the arrangement
comes back as one string: a million-item list would cost far more to
convert term by term. pyswip is only ever imported by the worker.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from plpuzzle.flag.domain.model import FlagSequence
from plpuzzle.flag.domain.results import FlagResult, Status
from plpuzzle.runtime import (
    GRACE_SECONDS,
    Answer,
    PrologInWorker,
    UndecodableAnswer,
    Worker,
    decode_answer,
    only_answer,
    prolog_file,
    quote_atom,
)

PREDICATE = "solve_text/4"
TEMPLATE = "[Arranged,MinSwaps,Dijkstra]"


def flag_program() -> Path:
    """The project's Prolog program, prolog/flag.pl."""
    return prolog_file("flag.pl")


def goal_text(sequence: FlagSequence) -> str:
    """The goal that binds the variables of TEMPLATE for `sequence`."""
    return f"solve_text({quote_atom(sequence.letters)}, Arranged, MinSwaps, Dijkstra)"


def decode_answers(answers: list[Answer]) -> tuple[str, int, int] | str:
    """The one answer as (arrangement, min swaps, Dijkstra swaps), or why
    the answers are not that."""
    try:
        answer = only_answer(answers, PREDICATE)
    except UndecodableAnswer as e:
        return str(e)
    value: Any = None
    with contextlib.suppress(UndecodableAnswer):
        value = decode_answer(answer)
    if not (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], str)
        and all(isinstance(n, int) and not isinstance(n, bool) for n in value[1:])
    ):
        return f"{PREDICATE} answered {answer[1][:200]}, not a string and two integers"
    return value[0], value[1], value[2]


class PrologFlagEngine(PrologInWorker):
    """Answer with prolog/flag.pl (or another `program` with solve_text/4),
    in a worker that a time limit can kill."""

    name = "prolog"

    def __init__(
        self,
        worker: Worker | None = None,
        grace: float = GRACE_SECONDS,
        program: Path | None = None,
    ) -> None:
        super().__init__(program or flag_program(), "swi", worker, grace)

    def solve(self, sequence: FlagSequence, time_limit: float) -> FlagResult:
        """Raises EngineUnavailable when SWI-Prolog cannot be loaded."""
        run = self.query(PREDICATE, goal_text(sequence), TEMPLATE, time_limit)
        cpu, wall = run.cpu, run.wall
        decoded = decode_answers(run.answers) if run.status is Status.OK else run.message
        if isinstance(decoded, str):
            status = Status.ERROR if run.status is Status.OK else run.status
            return FlagResult(
                self.name, status, cpu_seconds=cpu, wall_seconds=wall, message=decoded
            )
        arrangement, min_swaps, dijkstra = decoded
        return FlagResult(self.name, Status.OK, arrangement, min_swaps, dijkstra, cpu, wall)
