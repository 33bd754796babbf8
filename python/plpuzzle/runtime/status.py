"""How an engine run ended: one Status for every puzzle, mapped in one place.

A run can end in the worker's reply (the worker's own statuses and those of
prolog/plpuzzle_bridge.pl's collect_answers/7) or without one, when the
worker was killed at its deadline or died. Every puzzle's engines read the
end of a run through status_of(), so the same failure is the same Status
in the sudoku, the knight's tour and the flag alike.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """How a run ended. Only OK runs carry an answer."""

    OK = "ok"
    TIMEOUT = "timeout"  # the time limit passed (in Prolog, or the worker was killed)
    ERROR = "error"  # the solver raised, or answered something malformed
    LOAD_ERROR = "load_error"  # the program did not load or lacks the predicate called
    CRASHED = "crashed"  # the solver called halt, or the worker died


#: A request's end when the worker passed its deadline and was killed.
KILLED = "killed"
#: A request's end when the worker died in the middle of it.
DIED = "died"

#: Every way a worker request ends, as a Status: the worker's reply status
#: ("internal_error" is a Python exception in the worker; "time_limit",
#: "halted" and "error" come from the Prolog bridge), or KILLED and DIED.
_STATUS_OF = {
    "ok": Status.OK,
    "time_limit": Status.TIMEOUT,
    "error": Status.ERROR,
    "internal_error": Status.ERROR,
    "load_error": Status.LOAD_ERROR,
    "halted": Status.CRASHED,
    KILLED: Status.TIMEOUT,
    DIED: Status.CRASHED,
}

_LABELS = {
    Status.OK: "finished",
    Status.TIMEOUT: "ran out of time",
    Status.ERROR: "raised an error",
    Status.LOAD_ERROR: "could not load the solver",
    Status.CRASHED: "crashed",
}


def status_of(end: str) -> Status:
    """The Status of a request that ended with `end` (a reply status, or
    KILLED or DIED); an end we do not know is an ERROR, never an OK."""
    return _STATUS_OF.get(end, Status.ERROR)


def status_label(status: Status) -> str:
    """A few words for people: what happened to a run with `status`,
    e.g. "the prolog engine " + label."""
    return _LABELS[status]


def default_message(status: Status, end: str, time_limit: float) -> str:
    """What to say about a failed run whose end carried no message.

    Only a timeout may say the time limit was reached: any other end
    without a message says how it ended.
    """
    if status is Status.TIMEOUT:
        return f"stopped at the CPU-time limit of {time_limit:g} s"
    return f"the run ended with {end}"


def failure_words(engine: str, status: Status, message: str, time_limit: float) -> str:
    """One line (then any evidence) on why an engine's run did not finish,
    for every puzzle alike: a timeout names the limit that stopped it and
    its clock ("the prolog engine stopped at the CPU-time limit of 2 s")."""
    name = f"the {engine} engine"
    if status is Status.TIMEOUT:
        first = message.strip().splitlines()[:1]
        return f"{name} {first[0] if first else default_message(status, 'time_limit', time_limit)}"
    return f"{name} {status_label(status)}:\n{message}".rstrip()
