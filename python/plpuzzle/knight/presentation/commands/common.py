"""Pieces the knight commands share: the board and start options, reading
them, and how a failed engine run is told."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from plpuzzle.clitools import InputError, time_limit_option_with
from plpuzzle.knight.domain.model import Board, BoardError, Square, parse_board, parse_square
from plpuzzle.knight.domain.results import CountResult, TourResult
from plpuzzle.runtime import failure_words


def board_options(default_size: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--size N` or `--board WxH`; a command gets them as `size` and `board_text`."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(
            "--board",
            "board_text",
            metavar="WxH",
            help="A rectangular board, W files wide and H rows high, e.g. 7x4.",
        )(command)
        return click.option(
            "--size",
            type=int,
            metavar="N",
            help=f"A square N x N board.  [default: {default_size}]",
        )(command)

    return decorate


start_help = (
    "The start square: algebraic like a1 (bottom-left as white sees the board; "
    "files a, b, ... left to right) or 0-based x,y with 0,0 the top-left square."
)

closed_option = click.option(
    "--closed",
    is_flag=True,
    help="A closed tour: its last square is a knight's move from its first.",
)

knight_time_limit = time_limit_option_with(
    "Give up on a search after this many seconds of CPU time per engine run; a "
    "wall-clock backstop of twice that plus 10 s stops one that waits."
)


def read_board(size: int | None, board_text: str | None, default_size: int) -> Board:
    """The board the options describe; bad values are the user's error."""
    if size is not None and board_text is not None:
        raise InputError("--size and --board: give one of them, not both")
    if board_text is not None:
        try:
            return parse_board(board_text)
        except BoardError as e:
            raise InputError(f"--board: {e}") from None
    size = default_size if size is None else size
    try:
        return Board(size, size)
    except BoardError:
        raise InputError(f"--size {size}: a board needs at least 1 x 1 squares") from None


def read_start(text: str, board: Board) -> Square:
    try:
        return parse_square(text, board)
    except BoardError as e:
        raise InputError(f"--start: {e}") from None


def square_name(board: Board, square: Square) -> str:
    return f"{board.algebraic(square)} ({square[0]},{square[1]})"


def kind(closed: bool) -> str:
    return "closed" if closed else "open"


def failure_text(result: TourResult | CountResult, time_limit: float) -> str:
    """One line (plus evidence) on why an engine run did not finish."""
    return failure_words(result.engine, result.status, result.message, time_limit)
