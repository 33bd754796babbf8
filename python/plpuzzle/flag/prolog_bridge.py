"""The Prolog engine: prolog/flag.pl through pyswip, in a worker process.

The sequence travels as one quoted atom of letters and the arrangement
comes back as one string: a million-item list would cost far more to
convert term by term. pyswip is only ever imported by the worker.
"""

from __future__ import annotations

import json
from pathlib import Path

from plpuzzle.flag.model import FlagSequence
from plpuzzle.flag.results import UNFINISHED, FlagResult, Status
from plpuzzle.prolog_engine import prolog_file, quote_atom
from plpuzzle.worker import GRACE_SECONDS, Worker, prolog_request

PREDICATE = "solve_text/4"
TEMPLATE = "[Arranged,MinSwaps,Dijkstra]"


def flag_program() -> Path:
    """The project's Prolog program, prolog/flag.pl."""
    return prolog_file("flag.pl")


def goal_text(sequence: FlagSequence) -> str:
    """The goal that binds the variables of TEMPLATE for `sequence`."""
    return f"solve_text({quote_atom(sequence.letters)}, Arranged, MinSwaps, Dijkstra)"


def decode_answers(answers: list[tuple[bool, str]]) -> tuple[str, int, int] | str:
    """The one answer as (arrangement, min swaps, Dijkstra swaps), or why
    the answers are not that."""
    if len(answers) != 1:
        return f"solve_text/4 gave {len(answers)} answers, expected exactly one"
    ground, text = answers[0]
    try:
        value = json.loads(text) if ground else None
    except ValueError:
        value = None
    if not (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], str)
        and all(isinstance(n, int) for n in value[1:])
    ):
        return f"solve_text/4 answered {text[:200]}, not a string and two integers"
    return value[0], value[1], value[2]


class PrologFlagEngine:
    """Answer with prolog/flag.pl, in a worker that a time limit can kill.

    The time limit is enforced inside Prolog; `grace` more seconds of
    wall clock pass before the worker is killed.
    """

    name = "prolog"

    def __init__(self, worker: Worker | None = None, grace: float = GRACE_SECONDS) -> None:
        self.worker = worker or Worker()
        self.grace = grace

    def close(self) -> None:
        self.worker.close()

    def solve(self, sequence: FlagSequence, time_limit: float) -> FlagResult:
        """Raises EngineUnavailable when SWI-Prolog cannot be loaded."""
        goal = goal_text(sequence)
        request = prolog_request(flag_program(), PREDICATE, goal, TEMPLATE, time_limit)
        run = self.worker.run(request, time_limit + self.grace)
        cpu, wall = run.cpu, run.wall
        if run.status != "ok":
            status = _FAILED.get(run.status, Status.ERROR)
            message = run.message or f"time limit of {time_limit:g} s reached"
            return FlagResult(
                self.name, status, cpu_seconds=cpu, wall_seconds=wall, message=message
            )
        decoded = decode_answers(run.answers)
        if isinstance(decoded, str):
            return FlagResult(
                self.name, Status.ERROR, cpu_seconds=cpu, wall_seconds=wall, message=decoded
            )
        arrangement, min_swaps, dijkstra = decoded
        return FlagResult(self.name, Status.OK, arrangement, min_swaps, dijkstra, cpu, wall)


#: A failed run's status as ours; what is not listed is an ERROR.
_FAILED = {"time_limit": Status.TIMEOUT, **UNFINISHED}
