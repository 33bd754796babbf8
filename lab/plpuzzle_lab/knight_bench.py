"""How fast and how far both knight's-tour engines go (`make bench-knight`).

The figures the searches were built to: an open tour of 100x100 from a
corner in well under a second (Python) or a few seconds (Prolog), and of
1000x1000 in seconds (Python); a tour from a corner of every square board
from 5x5 to 300x300 (Python; Prolog to 100x100), where plain Warnsdorff
gets stuck on some; closed tours on every even board from 6x6 to 100x100;
and the known counts of 5x5, 304 open tours from a corner and 1728 in all.

Every tour is checked by the validator, so a fast wrong answer cannot
pass. Times are CPU seconds of the search alone: of this process for the
Python engine, as Prolog reports them (through pyswip, in a worker) for
the Prolog engine; the validator is not timed. Run it on a quiet machine.

    python -m plpuzzle_lab knight [REPORT.md]   (make bench-knight)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import Progress, TextColumn, TimeElapsedColumn

from plpuzzle.knight.domain.model import Board, Square, Tour
from plpuzzle.knight.domain.results import Status
from plpuzzle.knight.domain.validator import check_tour
from plpuzzle.knight.engines.prolog_bridge import PrologKnightEngine
from plpuzzle.knight.engines.python_engine import count_tours, find_tour
from plpuzzle_lab.machine import machine_markdown

CORNER = (0, 0)
#: Per search, for the Prolog engine (which runs in a killable worker).
TIME_LIMIT = 120.0

#: A search: (board, closed) -> (tour or None, moves, CPU seconds).
Search = Callable[[Board, bool], tuple[Tour | None, int, float]]
#: A count of 5x5 tours: start (None: all squares) -> (count, CPU seconds).
Count = Callable[[Square | None], tuple[int | None, float]]


@dataclass
class Row:
    """One line of the report."""

    engine: str
    task: str
    result: str
    cpu_seconds: float
    ok: bool
    note: str = ""


@dataclass
class Run:
    """One validated search."""

    board: Board
    found: bool
    valid: bool
    moves: int
    cpu_seconds: float


def python_search(board: Board, closed: bool) -> tuple[Tour | None, int, float]:
    began = time.process_time()
    tour, moves = find_tour(board, CORNER, closed)
    return tour, moves, time.process_time() - began


def python_count(start: Square | None) -> tuple[int | None, float]:
    began = time.process_time()
    got = count_tours(Board(5, 5), start)
    return got, time.process_time() - began


def prolog_search(engine: PrologKnightEngine) -> Search:
    def search(board: Board, closed: bool) -> tuple[Tour | None, int, float]:
        result = engine.tour(board, CORNER, closed, TIME_LIMIT)
        return result.tour, result.moves or 0, result.cpu_seconds

    return search


def prolog_count(engine: PrologKnightEngine) -> Count:
    def count(start: Square | None) -> tuple[int | None, float]:
        result = engine.count(Board(5, 5), start, False, TIME_LIMIT)
        return (result.count if result.status is Status.OK else None), result.cpu_seconds

    return count


def timed_tour(search: Search, board: Board, closed: bool) -> Run:
    """A tour from the top-left corner, timed, then validated."""
    tour, moves, cpu = search(board, closed)
    valid = tour is not None and not check_tour(board, tour, CORNER, closed)
    return Run(board, tour is not None, valid, moves, cpu)


def single(engine: str, search: Search, size: int) -> Row:
    run = timed_tour(search, Board(size, size), closed=False)
    return Row(
        engine,
        f"open tour, {size}x{size}, from a corner",
        "valid tour" if run.valid else "NO VALID TOUR",
        run.cpu_seconds,
        run.valid,
        f"{run.moves} moves",
    )


def sweep(
    engine: str,
    search: Search,
    sizes: Iterable[int],
    closed: bool,
    on_board: Callable[[int], None],
) -> Row:
    """A tour from a corner of each N x N board: how many, and the slowest."""
    runs = []
    for n in sizes:
        on_board(n)
        runs.append(timed_tour(search, Board(n, n), closed))
    good = [r for r in runs if r.valid]
    slowest = max(runs, key=lambda r: r.cpu_seconds)
    stepped_back = [str(r.board) for r in runs if r.moves > r.board.size - 1]
    failed = [str(r.board) for r in runs if not r.valid]
    note = f"slowest {slowest.board} in {slowest.cpu_seconds:.3f} s"
    if stepped_back:
        note += f"; backed up on {len(stepped_back)}: {', '.join(stepped_back[:12])}"
        if len(stepped_back) > 12:
            note += ", ..."
    if failed:
        note += f"; FAILED on {', '.join(failed)}"
    first, last = runs[0].board, runs[-1].board
    return Row(
        engine,
        f"{'closed' if closed else 'open'} tours from a corner, {first} to {last}",
        f"{len(good)} of {len(runs)} boards",
        sum(r.cpu_seconds for r in runs),
        len(good) == len(runs),
        note,
    )


def counted(engine: str, count: Count, start: Square | None, expected: int) -> Row:
    got, cpu = count(start)
    where = "from a corner" if start else "from all squares"
    return Row(
        engine, f"open tours of 5x5 {where}", f"{got} (known: {expected})", cpu, got == expected
    )


def engine_rows(
    engine: str,
    search: Search,
    count: Count,
    big: Iterable[int],
    open_sizes: Iterable[int],
    closed_sizes: Iterable[int],
    on_board: Callable[[int], None],
) -> list[Row]:
    """Every measurement of one engine, in report order."""
    rows = [single(engine, search, n) for n in big]
    rows.append(sweep(engine, search, open_sizes, False, on_board))
    rows.append(sweep(engine, search, closed_sizes, True, on_board))
    rows.append(counted(engine, count, CORNER, 304))
    rows.append(counted(engine, count, None, 1728))
    return rows


def run_bench(
    big: Iterable[int] = (100, 1000),
    open_sizes: Iterable[int] = range(5, 301),
    closed_sizes: Iterable[int] = range(6, 101, 2),
    prolog_big: Iterable[int] = (100, 200),
    prolog_open_sizes: Iterable[int] = range(5, 101),
    on_board: Callable[[int], None] = lambda n: None,
) -> list[Row]:
    """Both engines' measurements: Python first, then Prolog."""
    rows = engine_rows(
        "python", python_search, python_count, big, open_sizes, closed_sizes, on_board
    )
    prolog = PrologKnightEngine()
    try:
        rows += engine_rows(
            "prolog",
            prolog_search(prolog),
            prolog_count(prolog),
            prolog_big,
            prolog_open_sizes,
            closed_sizes,
            on_board,
        )
    finally:
        prolog.close()
    return rows


def markdown(rows: list[Row]) -> str:
    """The rows as a Markdown table, with the machine they ran on."""
    lines = [
        "# Knight's tour: both engines",
        "",
        *machine_markdown(),
        "",
        "CPU seconds of the search alone (Prolog: as Prolog reports them, through pyswip).",
        "",
        "| engine | task | result | CPU s | ok | note |",
        "|---|---|---|---:|---|---|",
    ]
    for r in rows:
        ok = "yes" if r.ok else "**NO**"
        lines.append(
            f"| {r.engine} | {r.task} | {r.result} | {r.cpu_seconds:.3f} | {ok} | {r.note} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else None
    with Progress(
        TextColumn("{task.description}"), TimeElapsedColumn(), console=Console(stderr=True)
    ) as progress:
        task = progress.add_task("knight bench")
        rows = run_bench(
            on_board=lambda n: progress.update(task, description=f"knight bench: {n}x{n}")
        )
    text = markdown(rows)
    sys.stdout.write(text)
    if out is not None:
        out.write_text(text)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
