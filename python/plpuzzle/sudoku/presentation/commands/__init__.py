"""`plpuzzle sudoku`: the group, and one module per command.

Each command module only parses its options, calls the services and
prints; what several commands share is in common.py.
"""

from __future__ import annotations

import click

from plpuzzle.sudoku.presentation.commands.backup import backup, restore
from plpuzzle.sudoku.presentation.commands.check import check
from plpuzzle.sudoku.presentation.commands.generate import generate_puzzles
from plpuzzle.sudoku.presentation.commands.grade import grade
from plpuzzle.sudoku.presentation.commands.requirements import requirements
from plpuzzle.sudoku.presentation.commands.serve import accounts, login, results, serve, submit
from plpuzzle.sudoku.presentation.commands.similar import similar
from plpuzzle.sudoku.presentation.commands.solve import solve
from plpuzzle.sudoku.presentation.commands.test import run_suite


@click.group(short_help="The sudoku assignment: solve puzzles, cross-check the engines.")
def sudoku() -> None:
    """The sudoku assignment: a sudoku with parity (e, o) and neighbour (s, w) infos.

    A puzzle file holds K on its first line, then N = K*K rows of N fields:
    '-' for no info, or a value and the letters e (even), o (odd), s (relation
    with the cell below), w (relation with the cell to the left), e.g. 'ew2s'.
    """


for command in (solve, check, generate_puzzles, run_suite, grade, similar, requirements):
    sudoku.add_command(command)
for command in (serve, accounts, submit, login, results, backup, restore):
    sudoku.add_command(command)
