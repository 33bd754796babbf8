"""The `plpuzzle` command: one group per puzzle, shared error handling.

User mistakes (bad files, bad options) end with one clear line and exit
code 2; what a solver did wrong is a result, reported with exit code 1; a
machine without SWI-Prolog gets one line saying what to install, exit 3.
"""

from __future__ import annotations

import click

from plpuzzle import __version__
from plpuzzle.clitools import SetupError
from plpuzzle.engine import EngineUnavailable
from plpuzzle.flag.cli import flag
from plpuzzle.knight.cli import knight
from plpuzzle.sudoku.presentation.cli import sudoku


class PlpuzzleGroup(click.Group):
    """Turns a missing engine (no SWI-Prolog) into one clear line, exit 3."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except EngineUnavailable as e:
            raise SetupError(str(e)) from None


@click.group(
    cls=PlpuzzleGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="plpuzzle")
def main() -> None:
    """Solve, cross-check and grade the declarative-programming puzzles.

    Each puzzle has a Prolog solver (SWI-Prolog, run through pyswip) and an
    independent pure-Python reference engine; the two referee each other.

    \b
    Start with:
      plpuzzle sudoku solve puzzles/sudoku/consecutive/test001d.txt
      plpuzzle sudoku check puzzles/sudoku/consecutive/test001d.txt
      plpuzzle sudoku --help
    """


main.add_command(sudoku)
main.add_command(flag)
main.add_command(knight)
