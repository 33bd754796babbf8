"""The `plpuzzle` command: one group per puzzle, shared conventions.

User mistakes (bad files, bad options) end with one clear line and exit
code 2; what a solver did wrong is a result, reported with exit code 1; a
machine without SWI-Prolog gets one line saying what to install, exit 3;
Ctrl-C ends with `plpuzzle: interrupted` and exit 130.

The puzzle groups are imported only when one of them runs, so that
`plpuzzle --help` does not load pyswip, matplotlib or the engines.
"""

from __future__ import annotations

import click

from plpuzzle.clitools import (
    ENGINE_DEFAULT_RULE,
    Interrupted,
    LazyGroup,
    SetupError,
    set_verbosity,
)

#: Each group: where it lives and its one-line help (tests check that this
#: line is the group's own short_help, so the two cannot drift apart).
GROUPS: dict[str, tuple[str, str]] = {
    "cluster": (
        "plpuzzle.cluster.cli:cluster",
        "Dask clusters to grade on: start one on this machine.",
    ),
    "flag": (
        "plpuzzle.flag.presentation.commands:flag",
        "The Dutch national flag: arrange R/W/B items, count the swaps.",
    ),
    "knight": (
        "plpuzzle.knight.presentation.commands:knight",
        "Knight's tours: find, count and survey them.",
    ),
    "sudoku": (
        "plpuzzle.sudoku.presentation.commands:sudoku",
        "The sudoku assignment: solve puzzles, cross-check the engines.",
    ),
}


def package_version() -> str:
    """The installed distribution's version (the source tree's when not installed)."""
    # Imported here: importlib.metadata costs every command 50 ms to load.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("plpuzzle")
    except PackageNotFoundError:
        from plpuzzle import __version__

        return __version__


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """--version, as click's version_option says it, but looked up only when asked."""
    if value and not ctx.resilient_parsing:
        click.echo(f"plpuzzle, version {package_version()}")
        ctx.exit()


class PlpuzzleGroup(LazyGroup):
    """Loads the puzzle groups lazily (GROUPS) and maps Ctrl-C and a
    missing engine to plpuzzle's own one-line errors."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            # A subcommand runs from here on: loading the engine plumbing is due.
            from plpuzzle.runtime import EngineUnavailable

            try:
                return super().invoke(ctx)
            except EngineUnavailable as e:
                raise SetupError(str(e)) from None
        except (KeyboardInterrupt, click.Abort):
            raise Interrupted() from None


@click.group(
    cls=PlpuzzleGroup,
    lazy={name: where for name, (where, _) in GROUPS.items()},
    helps={name: short_help for name, (_, short_help) in GROUPS.items()},
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=ENGINE_DEFAULT_RULE,
)
@click.option(
    "-V",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the final results.")
@click.option("-v", "--verbose", is_flag=True, help="Print extra detail: per-item lines, timings.")
@click.pass_context
def main(ctx: click.Context, quiet: bool, verbose: bool) -> None:
    """Solve, cross-check and grade the declarative-programming puzzles.

    Each puzzle has a Prolog solver (SWI-Prolog, run through pyswip) and an
    independent pure-Python reference engine; the two referee each other.

    \b
    Start with:
      plpuzzle sudoku solve puzzles/sudoku/consecutive/test001d.txt
      plpuzzle sudoku check puzzles/sudoku/consecutive/test001d.txt
      plpuzzle sudoku --help

    \b
    Conventions: exit code 0 success, 1 a wrong or failed result, 2 a
    user error, 3 a machine setup problem, 130 interrupted (Ctrl-C);
    '-' names stdin or stdout; --format json prints a machine-readable
    report; -q and -v go before the group or after the command, e.g.
    plpuzzle -q sudoku test SUITE or plpuzzle sudoku test SUITE -q.
    """
    if quiet and verbose:
        raise click.UsageError("-q and -v: give one of them, not both")
    set_verbosity(ctx, -1 if quiet else 1 if verbose else 0)
