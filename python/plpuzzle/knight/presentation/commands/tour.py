"""`plpuzzle knight tour`: one tour, checked before it is printed."""

from __future__ import annotations

import sys

import click

from plpuzzle.clitools import (
    choice,
    engine_option,
    stderr_console,
    working,
    write_json,
    write_stdout,
)
from plpuzzle.knight.domain.results import Status
from plpuzzle.knight.domain.textformat import FORMATS, format_tour
from plpuzzle.knight.domain.validator import check_tour
from plpuzzle.knight.engines import ENGINES, make_engine
from plpuzzle.knight.presentation.commands.common import (
    board_options,
    closed_option,
    failure_text,
    kind,
    knight_time_limit,
    read_board,
    read_start,
    square_name,
    start_help,
)

#: How many of an invalid tour's problems are printed.
SHOWN_PROBLEMS = 10


@click.command()
@board_options(8)
@click.option("--start", default="a1", show_default=True, metavar="SQUARE", help=start_help)
@closed_option
@engine_option(
    ENGINES,
    "prolog: prolog/knight.pl through pyswip; python: the pure-Python "
    "Warnsdorff search with backtracking.",
)
@click.option(
    "--format",
    "style",
    type=choice(FORMATS),
    default="text",
    show_default=True,
    help="text: the board numbered by move; ascii: the same inside +--+ lines; "
    "path: a1->b3->..., 8 squares a line; json: all of these as one object.",
)
@click.option(
    "--stats",
    is_flag=True,
    help="Also print the engine, its CPU seconds and how many moves its search made "
    "(on stderr, so that the tour stays clean).",
)
@knight_time_limit
def tour(
    size: int | None,
    board_text: str | None,
    start: str,
    closed: bool,
    engine: str,
    style: str,
    stats: bool,
    time_limit: float,
) -> None:
    """Find one knight's tour and print it.

    Exit code 0 when a valid tour was found; 1 when none exists from that
    square, the engine timed out or failed, or its tour is not valid; 2 for
    bad input.
    """
    board = read_board(size, board_text, 8)
    square = read_start(start, board)
    runner = make_engine(engine)
    try:
        with working(stderr_console(), f"a tour of {board} from {start}", time_limit):
            result = runner.tour(board, square, closed, time_limit)
    finally:
        runner.close()
    err = stderr_console()
    if stats and result.status is Status.OK:
        moves = "not counted" if result.moves is None else str(result.moves)
        err.print(
            f"engine: {result.engine}, CPU: {result.cpu_seconds:.3f} s, moves: {moves}",
            markup=False,
        )
    if result.no_tour or not result.found:
        if result.no_tour:
            why = (
                f"no {kind(closed)} knight's tour of the {board} board "
                f"starts at {square_name(board, square)}"
            )
        else:
            why = failure_text(result, time_limit)
        if style == "json":  # a JSON reader gets its answer on stdout too
            write_json(
                {
                    "width": board.width,
                    "height": board.height,
                    "closed": closed,
                    "start": board.algebraic(square),
                    "engine": result.engine,
                    "status": "no_tour" if result.no_tour else result.status.value,
                    "message": why,
                    "path": None,
                    "cpu_seconds": result.cpu_seconds,
                }
            )
        err.print(f"plpuzzle: {why}", markup=False)
        sys.exit(1)
    problems = check_tour(board, result.tour, square, closed)
    if problems:
        err.print(
            f"plpuzzle: the {result.engine} engine gave an invalid {kind(closed)} tour:",
            markup=False,
        )
        for line in problems[:SHOWN_PROBLEMS]:
            err.print(f"  - {line}", markup=False)
        if len(problems) > SHOWN_PROBLEMS:
            err.print(f"  - and {len(problems) - SHOWN_PROBLEMS} more", markup=False)
        sys.exit(1)
    assert result.tour is not None
    extra = {"engine": result.engine, "moves": result.moves, "cpu_seconds": result.cpu_seconds}
    write_stdout(format_tour(board, result.tour, style, closed, extra))
