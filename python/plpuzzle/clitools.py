"""Pieces every puzzle's CLI shares: input errors, consoles, options."""

from __future__ import annotations

import os
import sys

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)


class InputError(click.ClickException):
    """Bad input from the user: one line on stderr and exit code 2."""

    exit_code = 2

    def show(self, file: object = None) -> None:
        click.echo(f"plpuzzle: error: {self.format_message()}", err=True)


class SetupError(click.ClickException):
    """The machine lacks something plpuzzle needs: exit code 3."""

    exit_code = 3

    def show(self, file: object = None) -> None:
        click.echo(f"plpuzzle: error: {self.format_message()}", err=True)


def stdout_console() -> Console:
    """A console for reports; plain text when stdout is not a terminal."""
    return Console(highlight=False, soft_wrap=True)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def write_stdout(text: str) -> None:
    """Write exact bytes to stdout (no console markup or wrapping)."""
    sys.stdout.write(text)
    sys.stdout.flush()


time_limit_option = click.option(
    "--time-limit",
    type=click.FloatRange(min=0.001),
    default=120.0,
    show_default=True,
    metavar="SEC",
    help="Give up on a puzzle after this many seconds (wall clock) per engine.",
)


def jobs_option(what: str):
    """`--jobs N`, defaulting to the number of cores; `what` completes "How many"."""
    return click.option(
        "--jobs",
        type=click.IntRange(min=1),
        default=os.cpu_count() or 1,
        show_default="number of cores",
        help=f"How many {what}.",
    )


def progress_bar(console: Console) -> Progress:
    """A live progress bar, shown only when the console is a terminal."""
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
