"""`plpuzzle knight survey`: the search's effort from every start square."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from plpuzzle.clitools import (
    InputError,
    SetupError,
    engine_option,
    format_option,
    quiet,
    stderr_console,
    stdout_console,
    working,
    write_json,
)
from plpuzzle.knight.domain.model import Board, file_name
from plpuzzle.knight.domain.results import Status, TourResult
from plpuzzle.knight.domain.validator import check_tour
from plpuzzle.knight.engines import ENGINES, make_engine, survey
from plpuzzle.knight.presentation.commands.common import (
    board_options,
    failure_text,
    knight_time_limit,
    read_board,
    square_name,
)


@click.command(name="survey")
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
        with working(stderr_console(), f"surveying {board} square by square"):
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
