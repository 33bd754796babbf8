"""How a tour is written out: numbered boards, an algebraic path, JSON.

Boards are printed as white sees them: row 0 (the top line) is the highest
rank, so `a1` is the bottom-left square.
"""

from __future__ import annotations

import json
from typing import Any

from plpuzzle.knight.domain.model import Board, Tour

FORMATS = ("text", "ascii", "path", "json")

#: Squares per line in the path format.
PATH_WIDTH = 8


def numbering(board: Board, tour: Tour) -> list[list[int]]:
    """The board with each square's move number (1 first), row 0 on top."""
    grid = [[0] * board.width for _ in range(board.height)]
    for number, (x, y) in enumerate(tour, 1):
        grid[y][x] = number
    return grid


def format_grid(board: Board, tour: Tour) -> str:
    """Move numbers right-aligned in columns, one board row per line."""
    width = len(str(board.size))
    rows = numbering(board, tour)
    return "".join(" ".join(f"{n:>{width}}" for n in row) + "\n" for row in rows)


def format_ascii(board: Board, tour: Tour) -> str:
    """The numbered board inside a `+--+` grid of lines."""
    width = len(str(board.size))
    rule = "+" + ("-" * width + "+") * board.width + "\n"
    lines = [rule]
    for row in numbering(board, tour):
        lines.append("|" + "|".join(f"{n:>{width}}" for n in row) + "|\n")
        lines.append(rule)
    return "".join(lines)


def format_path(board: Board, tour: Tour) -> str:
    """`a1->b3->...`, eight squares a line; a line that goes on ends in `->`."""
    names = [board.algebraic(s) for s in tour]
    lines = ["->".join(names[i : i + PATH_WIDTH]) for i in range(0, len(names), PATH_WIDTH)]
    return "->\n".join(lines) + "\n"


def tour_document(
    board: Board, tour: Tour, closed: bool, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The tour as a JSON-ready object: board, squares both ways, numbering."""
    return {
        "width": board.width,
        "height": board.height,
        "closed": closed,
        "start": board.algebraic(tour[0]) if tour else None,
        "squares": [[x, y] for x, y in tour],
        "path": [board.algebraic(s) for s in tour],
        "grid": numbering(board, tour),
        **(extra or {}),
    }


def format_json(
    board: Board, tour: Tour, closed: bool = False, extra: dict[str, Any] | None = None
) -> str:
    """One field a line, each value compact: a big board's tour stays one line."""
    document = tour_document(board, tour, closed, extra)
    fields = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in document.items())
    return "{\n" + fields + "\n}\n"


def format_tour(
    board: Board,
    tour: Tour,
    style: str,
    closed: bool = False,
    extra: dict[str, Any] | None = None,
) -> str:
    """The tour in one of FORMATS; `extra` adds fields to the JSON only."""
    if style == "json":
        return format_json(board, tour, closed, extra)
    writers = {"text": format_grid, "ascii": format_ascii, "path": format_path}
    if style not in writers:
        raise ValueError(f"unknown format {style!r}; choose from {', '.join(FORMATS)}")
    return writers[style](board, tour)
