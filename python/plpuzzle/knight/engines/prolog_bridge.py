"""The Prolog engine for knight's tours: prolog/knight.pl in a worker.

The goal turns the tour's X-Y pairs into [X, Y] lists before it answers,
so the answer's canonical text is JSON and one json.loads() reads a tour
of 10,000 squares. Each answer is checked for shape here; whether it is
really a tour is the validator's business. pyswip is only ever imported
by the worker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from plpuzzle.knight.domain.model import Board, Square, Tour
from plpuzzle.knight.domain.results import CountResult, Status, TourResult
from plpuzzle.runtime import (
    GRACE_SECONDS,
    Answer,
    Outcome,
    PrologInWorker,
    UndecodableAnswer,
    Worker,
    decode_only_answer,
    prolog_file,
)

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


def decode_tour(answers: list[Answer]) -> tuple[Tour, int] | str:
    """The tour and move count of knight_tour/6's one answer, or why the
    answers are not that. Only the shape is checked: a tour that breaks
    the rules comes back as it is."""
    try:
        value = decode_only_answer(answers, "knight_tour/6")
    except UndecodableAnswer as e:
        return str(e)
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


def decode_count(answers: list[Answer]) -> int | str:
    """knight_count/5's one answer, or why the answers are not a count."""
    try:
        value = decode_only_answer(answers, "knight_count/5")
    except UndecodableAnswer as e:
        return str(e)
    if not _is_int(value) or value < 0:
        return f"knight_count/5 answered {answers[0][1][:200]}, not a count"
    return value


class PrologKnightEngine(PrologInWorker):
    """Tours and counts from prolog/knight.pl (or another `program` with
    knight_tour/6 and knight_count/5), in a worker a time limit can kill."""

    name = "prolog"

    def __init__(
        self,
        worker: Worker | None = None,
        grace: float = GRACE_SECONDS,
        program: Path | None = None,
    ) -> None:
        super().__init__(program or knight_program(), "swi", worker, grace)

    def tour(self, board: Board, start: Square, closed: bool, time_limit: float) -> TourResult:
        """One tour from `start`; an OK result without one when the search
        proved there is none.

        Raises EngineUnavailable when SWI-Prolog cannot be loaded.
        """
        goal = tour_goal(board, start, closed)
        run = self.query("knight_tour/6", goal, TOUR_TEMPLATE, time_limit)
        if run.status is Status.OK and not run.answers:
            return TourResult(self.name, Status.OK, cpu_seconds=run.cpu, wall_seconds=run.wall)
        failure, decoded = _decoded(run, decode_tour)
        if failure is not None:
            return run.unfinished(TourResult, self.name, failure, decoded)
        tour, moves = decoded
        return TourResult(self.name, Status.OK, tour, moves, run.cpu, run.wall)

    def count(
        self, board: Board, start: Square | None, closed: bool, time_limit: float
    ) -> CountResult:
        """How many directed tours start on `start` (None: on any square).

        Raises EngineUnavailable when SWI-Prolog cannot be loaded.
        """
        goal = count_goal(board, start, closed)
        run = self.query("knight_count/5", goal, COUNT_TEMPLATE, time_limit)
        failure, decoded = _decoded(run, decode_count)
        if failure is not None:
            return run.unfinished(CountResult, self.name, failure, decoded)
        return CountResult(self.name, Status.OK, decoded, run.cpu, run.wall)


def _decoded(run: Outcome, decode: Any) -> tuple[Status | None, Any]:
    """(None, `decode` of the answers) for a finished run whose answers
    decode; else (its Status, a message), an ERROR if they do not."""
    if run.status is not Status.OK:
        return run.status, run.message
    decoded = decode(run.answers)
    return (Status.ERROR, decoded) if isinstance(decoded, str) else (None, decoded)
