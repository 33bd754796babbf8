"""How fast and how far the pure-Python knight's-tour search goes.

The figures the search was built to: an open tour of 100x100 from a corner
in well under a second and of 1000x1000 in seconds; a tour from a corner of
every square board from 5x5 to 300x300 (where plain Warnsdorff gets stuck
on some); closed tours on every even board from 6x6 to 100x100; and the
known counts of 5x5, 304 open tours from a corner and 1728 in all.

Every tour is checked by the validator, so a fast wrong answer cannot
pass. Times are CPU seconds of this process around the search alone
(the validator is not timed); run it on a quiet machine, one at a time.

    python -m plpuzzle.knight.bench [REPORT.md]
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.knight.model import Board
from plpuzzle.knight.python_engine import count_tours, find_tour
from plpuzzle.knight.validator import check_tour

CORNER = (0, 0)


@dataclass
class Row:
    """One line of the report."""

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


def timed_tour(board: Board, closed: bool) -> Run:
    """A tour from the top-left corner, timed, then validated."""
    began = time.process_time()
    tour, moves = find_tour(board, CORNER, closed)
    cpu = time.process_time() - began
    valid = tour is not None and not check_tour(board, tour, CORNER, closed)
    return Run(board, tour is not None, valid, moves, cpu)


def single(size: int) -> Row:
    run = timed_tour(Board(size, size), closed=False)
    return Row(
        f"open tour, {size}x{size}, from a corner",
        "valid tour" if run.valid else "NO VALID TOUR",
        run.cpu_seconds,
        run.valid,
        f"{run.moves} moves",
    )


def sweep(sizes: Iterable[int], closed: bool, on_board: Callable[[int], None]) -> Row:
    """A tour from a corner of each N x N board: how many, and the slowest."""
    runs = []
    for n in sizes:
        on_board(n)
        runs.append(timed_tour(Board(n, n), closed))
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
        f"{'closed' if closed else 'open'} tours from a corner, {first} to {last}",
        f"{len(good)} of {len(runs)} boards",
        sum(r.cpu_seconds for r in runs),
        len(good) == len(runs),
        note,
    )


def counted(start: tuple[int, int] | None, expected: int) -> Row:
    began = time.process_time()
    got = count_tours(Board(5, 5), start)
    cpu = time.process_time() - began
    where = "from a corner" if start else "from all squares"
    return Row(
        f"open tours of 5x5 {where}",
        f"{got} (known: {expected})",
        cpu,
        got == expected,
    )


def run_bench(
    big: Iterable[int] = (100, 1000),
    open_sizes: Iterable[int] = range(5, 301),
    closed_sizes: Iterable[int] = range(6, 101, 2),
    on_board: Callable[[int], None] = lambda n: None,
) -> list[Row]:
    """Every measurement, in report order."""
    rows = [single(n) for n in big]
    rows.append(sweep(open_sizes, False, on_board))
    rows.append(sweep(closed_sizes, True, on_board))
    rows.append(counted(CORNER, 304))
    rows.append(counted(None, 1728))
    return rows


def markdown(rows: list[Row]) -> str:
    """The rows as a Markdown table, with the machine they ran on."""
    lines = [
        "# Knight's tour: the pure-Python search",
        "",
        f"Python {platform.python_version()} on {platform.machine()} "
        f"({platform.processor() or platform.system()}); CPU seconds of one process.",
        "",
        "| task | result | CPU s | ok | note |",
        "|---|---|---:|---|---|",
    ]
    for r in rows:
        ok = "yes" if r.ok else "**NO**"
        lines.append(f"| {r.task} | {r.result} | {r.cpu_seconds:.3f} | {ok} | {r.note} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else None
    rows = run_bench(on_board=lambda n: print(f"\r{n}x{n}   ", end="", file=sys.stderr))
    print(file=sys.stderr)
    text = markdown(rows)
    sys.stdout.write(text)
    if out is not None:
        out.write_text(text)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
