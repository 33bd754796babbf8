"""`plpuzzle sudoku`: the group, and one module per command.

Each command module only parses its options, calls the services and
prints; what several commands share is in common.py.
"""

from __future__ import annotations

import click

from plpuzzle.clitools import LazyGroup

_HERE = "plpuzzle.sudoku.presentation.commands"

#: Each command and where it lives: a command's module is imported when
#: the command runs (or --help lists them all), so that `solve` does not
#: load grading, the service and similarity first.
COMMANDS: dict[str, str] = {
    "solve": f"{_HERE}.solve:solve",
    "check": f"{_HERE}.check:check",
    "generate": f"{_HERE}.generate:generate_puzzles",
    "test": f"{_HERE}.test:run_suite",
    "grade": f"{_HERE}.grade:grade",
    "similar": f"{_HERE}.similar:similar",
    "requirements": f"{_HERE}.requirements:requirements",
    "serve": f"{_HERE}.serve:serve",
    "accounts": f"{_HERE}.serve:accounts",
    "submit": f"{_HERE}.serve:submit",
    "login": f"{_HERE}.serve:login",
    "results": f"{_HERE}.serve:results",
    "backup": f"{_HERE}.backup:backup",
    "restore": f"{_HERE}.backup:restore",
}


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    short_help="The sudoku assignment: solve puzzles, cross-check the engines.",
)
def sudoku() -> None:
    """The sudoku assignment: a sudoku with parity (e, o) and neighbour (s, w) infos.

    A puzzle file holds K on its first line, then N = K*K rows of N fields:
    '-' for no info, or a value and the letters e (even), o (odd), s (relation
    with the cell below), w (relation with the cell to the left), e.g. 'ew2s'.
    """
