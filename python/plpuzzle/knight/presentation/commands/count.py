"""`plpuzzle knight count`: every tour counted, by each engine named."""

from __future__ import annotations

import sys

import click
from rich import box
from rich.table import Table

from plpuzzle.clitools import (
    InputError,
    engines_option,
    format_option,
    print_table,
    stderr_console,
    stdout_console,
    working,
    write_json,
)
from plpuzzle.knight.domain.results import Status
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


@click.command()
@board_options(5)
@click.option("--start", metavar="SQUARE", help=start_help + "  [default: a1]")
@click.option("--all-starts", is_flag=True, help="Count the tours from every square, summed.")
@closed_option
@engines_option(ENGINES, "The engines that count; two must give the same count.")
@knight_time_limit
@format_option()
def count(
    size: int | None,
    board_text: str | None,
    start: str | None,
    all_starts: bool,
    closed: bool,
    engines: tuple[str, ...],
    time_limit: float,
    fmt: str,
) -> None:
    """Count the directed knight's tours by exhaustive search.

    A tour and its reverse count as two; over all starts, each tour is
    counted once from its first square. Only small boards finish: 5x5 has
    304 open tours from a corner and 1728 from all squares.

    Exit code 0 when every engine finished and they agree; 1 when one timed
    out or failed, or they disagree; 2 for bad input.
    """
    board = read_board(size, board_text, 5)
    if start is not None and all_starts:
        raise InputError("--start and --all-starts: give one of them, not both")
    square = None if all_starts else read_start(start or "a1", board)
    names = list(engines)
    results = []
    for name in names:
        runner = make_engine(name)
        try:
            with working(stderr_console(), f"counting with the {name} engine", time_limit):
                results.append(runner.count(board, square, closed, time_limit))
        finally:
            runner.close()
    where = "from all squares" if square is None else f"from {square_name(board, square)}"
    counts = {r.count for r in results if r.status is Status.OK}
    failed = [r for r in results if r.status is not Status.OK]
    if fmt == "json":
        write_json(
            {
                "board": str(board),
                "start": None if square is None else board.algebraic(square),
                "closed": closed,
                "results": [
                    {
                        "engine": r.engine,
                        "status": str(r.status),
                        "count": r.count if r.status is Status.OK else None,
                        "cpu_seconds": round(r.cpu_seconds, 4),
                    }
                    for r in results
                ],
                "agree": len(counts) <= 1 and not failed,
            }
        )
        sys.exit(1 if failed or len(counts) > 1 else 0)
    table = Table(
        title=f"Directed {kind(closed)} tours of the {board} board {where}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for heading in ("engine", "tours", "CPU s"):
        table.add_column(heading, justify="left" if heading == "engine" else "right")
    for r in results:
        shown = str(r.count) if r.status is Status.OK else f"[red]{r.status}[/]"
        table.add_row(r.engine, shown, f"{r.cpu_seconds:.2f}")
    console = stdout_console()
    print_table(console, table)
    err = stderr_console()
    for r in failed:
        err.print(f"plpuzzle: {failure_text(r, time_limit)}", markup=False)
    if len(counts) > 1:
        said = ", ".join(f"{r.engine} {r.count}" for r in results)
        err.print(f"plpuzzle: the engines disagree: {said}", markup=False)
        sys.exit(1)
    if failed:
        sys.exit(1)
    if len(results) > 1:
        console.print("The engines agree.")
