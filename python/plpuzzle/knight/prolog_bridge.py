"""The Prolog engine for knight's tours: prolog/knight.pl in a worker.

The goal turns the tour's X-Y pairs into [X, Y] lists before it answers,
so the answer's canonical text is JSON and one json.loads() reads a tour
of 10,000 squares. Each answer is checked for shape here; whether it is
really a tour is the validator's business. pyswip is only ever imported
by the worker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plpuzzle.knight.model import Board, Square, Tour
from plpuzzle.knight.results import CountResult, Status, TourResult
from plpuzzle.prolog_engine import prolog_file
from plpuzzle.worker import GRACE_SECONDS, KILLED, Worker, prolog_request

PROGRAM = "knight.pl"
TOUR_TEMPLATE = "[Moves, Squares]"
COUNT_TEMPLATE = "Count"


def knight_program() -> Path:
    """The project's Prolog program, prolog/knight.pl."""
    return prolog_file(PROGRAM)


def _square_term(square: Square) -> str:
    # -(X, Y) rather than X-Y, so that a negative Y still reads as one term
    return f"-({square[0]}, {square[1]})"


def _flag(closed: bool) -> str:
    return "true" if closed else "false"


def tour_goal(board: Board, start: Square, closed: bool) -> str:
    """The goal that binds TOUR_TEMPLATE's variables to one tour."""
    return (
        f"knight_tour({board.width}, {board.height}, {_square_term(start)}, "
        f"{_flag(closed)}, Path, Moves), "
        "findall([X, Y], member(X-Y, Path), Squares)"
    )


def count_goal(board: Board, start: Square | None, closed: bool) -> str:
    """The goal that binds COUNT_TEMPLATE to the number of tours."""
    where = "all" if start is None else _square_term(start)
    return f"knight_count({board.width}, {board.height}, {where}, {_flag(closed)}, Count)"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one_answer(answers: list[tuple[bool, str]], predicate: str) -> Any:
    """The one answer's JSON value, or a string saying what is wrong."""
    if len(answers) != 1:
        return f"{predicate} gave {len(answers)} answers, expected one"
    ground, text = answers[0]
    if not ground:
        return f"{predicate} answered {text[:200]}, which holds unbound variables"
    try:
        return json.loads(text)
    except ValueError:
        return f"{predicate} answered {text[:200]}, which is not a list of integers"


def decode_tour(answers: list[tuple[bool, str]]) -> tuple[Tour, int] | str:
    """The tour and move count of knight_tour/6's one answer, or why the
    answers are not that. Only the shape is checked: a tour that breaks
    the rules comes back as it is."""
    value = _one_answer(answers, "knight_tour/6")
    if isinstance(value, str):
        return value
    if not (
        isinstance(value, list)
        and len(value) == 2
        and _is_int(value[0])
        and isinstance(value[1], list)
        and all(
            isinstance(pair, list) and len(pair) == 2 and all(_is_int(c) for c in pair)
            for pair in value[1]
        )
    ):
        text = answers[0][1]
        return f"knight_tour/6 answered {text[:200]}, not a move count and a list of X-Y pairs"
    moves, squares = value
    return [(x, y) for x, y in squares], moves


def decode_count(answers: list[tuple[bool, str]]) -> int | str:
    """knight_count/5's one answer, or why the answers are not a count."""
    value = _one_answer(answers, "knight_count/5")
    if isinstance(value, str):
        return value
    if not _is_int(value) or value < 0:
        return f"knight_count/5 answered {answers[0][1][:200]}, not a count"
    return value


@dataclass
class _Run:
    """How one goal ended: `failure` is None when it ran to its end."""

    failure: Status | None
    answers: list[tuple[bool, str]]
    cpu: float
    wall: float
    message: str = ""


class PrologKnightEngine:
    """Tours and counts from prolog/knight.pl, in a worker a time limit can kill.

    The time limit is enforced inside Prolog; `grace` more seconds of wall
    clock pass before the worker is killed.
    """

    name = "prolog"

    def __init__(self, worker: Worker | None = None, grace: float = GRACE_SECONDS) -> None:
        self.worker = worker or Worker()
        self.grace = grace

    def close(self) -> None:
        self.worker.close()

    def _run(self, goal: str, predicate: str, template: str, time_limit: float) -> _Run:
        """Raises EngineUnavailable when SWI-Prolog cannot be loaded."""
        request = prolog_request(knight_program(), predicate, goal, template, time_limit)
        run = self.worker.run(request, time_limit + self.grace)
        cpu, wall = run.cpu, run.wall
        if run.status == "ok":
            return _Run(None, run.answers, cpu, wall)
        if run.status == "time_limit":
            return _Run(Status.TIMEOUT, [], cpu, wall, f"time limit of {time_limit:g} s reached")
        status = Status.TIMEOUT if run.status == KILLED else Status.ERROR
        message = run.message or f"the Prolog run ended with {run.status}"
        return _Run(status, [], cpu, wall, message)

    def tour(self, board: Board, start: Square, closed: bool, time_limit: float) -> TourResult:
        """One tour from `start`, or NO_TOUR once the search proved there is none.

        Raises EngineUnavailable when SWI-Prolog cannot be loaded.
        """
        run = self._run(tour_goal(board, start, closed), "knight_tour/6", TOUR_TEMPLATE, time_limit)
        if run.failure is None and not run.answers:
            return TourResult(self.name, Status.NO_TOUR, cpu_seconds=run.cpu, wall_seconds=run.wall)
        decoded = run.message if run.failure else decode_tour(run.answers)
        if isinstance(decoded, str):
            status = run.failure or Status.ERROR
            return TourResult(
                self.name, status, cpu_seconds=run.cpu, wall_seconds=run.wall, message=decoded
            )
        tour, moves = decoded
        return TourResult(self.name, Status.FOUND, tour, moves, run.cpu, run.wall)

    def count(
        self, board: Board, start: Square | None, closed: bool, time_limit: float
    ) -> CountResult:
        """How many directed tours start on `start` (None: on any square).

        Raises EngineUnavailable when SWI-Prolog cannot be loaded.
        """
        goal = count_goal(board, start, closed)
        run = self._run(goal, "knight_count/5", COUNT_TEMPLATE, time_limit)
        decoded = run.message if run.failure else decode_count(run.answers)
        if isinstance(decoded, str):
            status = run.failure or Status.ERROR
            return CountResult(
                self.name, status, cpu_seconds=run.cpu, wall_seconds=run.wall, message=decoded
            )
        return CountResult(self.name, Status.FOUND, decoded, run.cpu, run.wall)
