"""`plpuzzle knight ...`: find, count and survey knight's tours."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.table import Table

from plpuzzle.clitools import (
    InputError,
    SetupError,
    choice,
    engine_option,
    engines_option,
    format_option,
    quiet,
    stderr_console,
    stdout_console,
    time_limit_option_with,
    write_json,
    write_stdout,
)
from plpuzzle.knight.engines import ENGINES, make_engine, survey
from plpuzzle.knight.model import Board, BoardError, Square, file_name, parse_board, parse_square
from plpuzzle.knight.results import CountResult, Status, TourResult
from plpuzzle.knight.textformat import FORMATS, format_tour
from plpuzzle.knight.validator import check_tour

#: How many of an invalid tour's problems are printed.
SHOWN_PROBLEMS = 10


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
    "Give up on a search after this many seconds (wall clock) per engine run."
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


@click.group(short_help="Knight's tours: find, count and survey them.")
def knight() -> None:
    """The knight's tour: move a knight over a board so that it visits every
    square exactly once.

    Boards are N x N (--size) or W x H (--board). Squares are named in
    algebraic notation as white sees the board (a1 is the bottom-left
    square), or as 0-based x,y with 0,0 the top-left square as printed.
    Every tour an engine gives is checked by an independent validator
    before it is shown.
    """


@knight.command()
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


def failure_text(result: TourResult | CountResult, time_limit: float) -> str:
    """One line (plus evidence) on why an engine run did not finish."""
    name = f"the {result.engine} engine"
    if result.status is Status.TIMEOUT:
        return f"{name} did not finish within the time limit ({time_limit:g} s)"
    return f"{name} failed:\n{result.message}".rstrip()


@knight.command()
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
    console.print(table)
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


@knight.command(name="survey")
@board_options(8)
@engine_option(
    ENGINES,
    "Whose search is surveyed; an engine that does not count its moves shows '?'.",
)
@click.option(
    "--png",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Also save the grid as a heat map (PNG).",
)
@knight_time_limit
@format_option()
def survey_command(
    size: int | None,
    board_text: str | None,
    engine: str,
    png: Path | None,
    time_limit: float,
    fmt: str,
) -> None:
    """How many moves the search makes from each start square.

    For every square, the engine finds an open tour from there; the grid
    shows how many moves its search made (counting moves it took back)
    before the first tour: '-' where no tour starts, 'T' where it timed
    out. The time limit is per square. Exit code 0 when every square was
    settled with valid tours, 1 otherwise, 2 for bad input.
    """
    board = read_board(size, board_text, 8)
    runner = make_engine(engine)
    try:
        grid = survey(runner, board, time_limit)
    finally:
        runner.close()
    console = stdout_console()
    err = stderr_console()
    invalid = 0
    for y, row in enumerate(grid):
        for x, r in enumerate(row):
            if r.found and check_tour(board, r.tour, (x, y)):
                invalid += 1
                err.print(
                    f"plpuzzle: the {r.engine} engine gave an invalid tour "
                    f"from {square_name(board, (x, y))}",
                    markup=False,
                )
                row[x] = TourResult(r.engine, Status.ERROR, message="invalid tour")
    results = [r for row in grid for r in row]
    if fmt == "json":
        write_json(survey_json(board, grid, engine))
    else:
        if not quiet():
            console.print(survey_text(board, grid), end="", markup=False)
        console.print(survey_summary(board, results, engine), markup=False)
    unsettled = [r for r in results if r.status is not Status.OK]
    for r in unsettled[:3]:
        if r.message and r.message != "invalid tour":
            err.print(f"plpuzzle: {failure_text(r, time_limit)}", markup=False)
    if png is not None:
        save_heat_map(board, grid, engine, png)
        if fmt == "text" and not quiet():
            console.print(f"Wrote {png}", markup=False)
    sys.exit(1 if unsettled or invalid else 0)


def survey_json(board: Board, grid: list[list[TourResult]], engine: str) -> dict[str, object]:
    """The survey for machines: a record per start square, row by row."""
    return {
        "board": str(board),
        "engine": engine,
        "squares": [
            {
                "square": board.algebraic((x, y)),
                "status": str(r.status),
                "moves": r.moves if r.status is Status.OK else None,
                "cpu_seconds": round(r.cpu_seconds, 4),
            }
            for y, row in enumerate(grid)
            for x, r in enumerate(row)
        ],
    }


def survey_cell(result: TourResult) -> str:
    if result.found:
        return "?" if result.moves is None else str(result.moves)
    if result.no_tour:
        return "-"
    return "T" if result.status is Status.TIMEOUT else "E"


def survey_text(board: Board, grid: list[list[TourResult]]) -> str:
    """The grid of move counts, ranks down the left and files along the bottom."""
    cells = [[survey_cell(r) for r in row] for row in grid]
    width = max(len(c) for row in cells for c in row)
    margin = len(str(board.height))
    lines = [
        f"{board.height - y:>{margin}}  " + " ".join(f"{c:>{width}}" for c in row)
        for y, row in enumerate(cells)
    ]
    files = " ".join(f"{file_name(x):>{width}}" for x in range(board.width))
    lines.append(" " * (margin + 2) + files)
    return "\n".join(lines) + "\n"


def survey_summary(board: Board, results: list[TourResult], engine: str) -> str:
    found = [r for r in results if r.found]
    moves = [r.moves for r in found if r.moves is not None]
    cpu = sum(r.cpu_seconds for r in results)
    text = f"{engine} engine, {board} board: a tour from {len(found)} of {board.size} squares"
    if moves:
        text += f"; moves per tour {min(moves)}..{max(moves)}, {sum(moves)} in all"
    return text + f"; {cpu:.2f} s CPU."


def save_heat_map(board: Board, grid: list[list[TourResult]], engine: str, path: Path) -> None:
    """The survey as a PNG: one coloured cell per start square, a1 bottom-left."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SetupError(
            f"--png {path}: the heat map needs matplotlib (pip install 'plpuzzle[plots]')"
        ) from None
    data = [
        [float(r.moves) if r.found and r.moves is not None else float("nan") for r in row]
        for row in grid
    ]
    side = max(3.0, min(12.0, 0.6 * max(board.width, board.height)))
    fig, ax = plt.subplots(figsize=(side + 1.5, side))
    image = ax.imshow(data, cmap="viridis")
    fig.colorbar(image, ax=ax, label="moves before the first tour")
    ax.set_xticks(range(board.width), [file_name(x) for x in range(board.width)])
    ax.set_yticks(range(board.height), [str(board.height - y) for y in range(board.height)])
    if board.width * board.height <= 100:
        for y, row in enumerate(grid):
            for x, r in enumerate(row):
                colour = "w" if r.found else "0.3"
                ax.text(x, y, survey_cell(r), ha="center", va="center", color=colour, fontsize=8)
    fig.suptitle(f"Knight's tour search from each square, {board}, {engine} engine")
    try:
        fig.savefig(path, dpi=100, bbox_inches="tight")
    except OSError as e:
        raise InputError(f"--png {path}: cannot write: {e.strerror}") from None
    finally:
        plt.close(fig)
