"""Pieces the sudoku commands share: options, reading a puzzle, checking a solver."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import click
from rich.console import Console

from plpuzzle.clitools import (
    InputError,
    choice,
    is_std,
)
from plpuzzle.engine import DEFAULT_DIALECT, DIALECTS
from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.textformat import (
    FormatError,
    format_board,
    grid_term,
    load_puzzle,
    parse_puzzle,
)
from plpuzzle.sudoku.services.crosscheck import CrossCheck
from plpuzzle.sudoku.services.suite import bundled_suite

rules_option = click.option(
    "--rules",
    type=choice([r.value for r in Rules]),
    default=Rules.CONSECUTIVE.value,
    show_default=True,
    help="What an s/w info means: 'consecutive' (values differ by 1) or "
    "'oddsum' (their sum is odd; the official test suite's rules).",
)
solver_option = click.option(
    "--solver",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE.pl",
    help="A Prolog file defining sudoku/2 to use instead of ours (prolog/sudoku.pl). "
    "It implements one rule variant itself; --rules says which one to check it against.",
)
only_option = click.option(
    "--only",
    metavar="PATTERN",
    help="Only the tests whose name matches, e.g. 'test0[0-4]?' or '017'.",
)
#: A suite folder as a click type: a directory (not checked here: the
#: suite's own reader says what is wrong with it).
SUITE_PATH = click.Path(path_type=Path, file_okay=False)
suite_option = click.option(
    "--suite",
    type=SUITE_PATH,
    metavar="DIR",
    help="The suite: a folder of testNNNd.txt puzzles and their testNNNs.txt "
    "expected solutions. Default: the bundled puzzles/sudoku/consecutive.",
)


def chosen_suite(positional: Path | None, option: Path | None) -> Path:
    """The suite named by position or by --suite (not both), else the bundled one."""
    if positional is not None and option is not None and positional != option:
        raise InputError(f"{positional} and --suite {option}: name the suite once")
    return positional or option or bundled_suite()


dialect_option = click.option(
    "--dialect",
    type=choice(DIALECTS),
    default=DEFAULT_DIALECT,
    show_default=True,
    help="How to load a --solver file: in SWI-Prolog's SICStus 4 emulation (the course's "
    "system) or as plain SWI-Prolog. Our own solver is always SWI-Prolog.",
)


def read_puzzle(path: Path) -> Puzzle:
    """A puzzle file, or standard input for `-`; FormatError is the user's."""
    try:
        if is_std(path):
            return parse_puzzle(sys.stdin.read(), "<stdin>")
        return load_puzzle(path)
    except FormatError as e:
        raise InputError(str(e)) from None


def check_solver(solver: Path | None) -> None:
    if solver is not None and not solver.is_file():
        raise InputError(f"{solver}: no such solver file")


def expected_beside(puzzle: Path) -> Path | None:
    """The course's expected-solution file for a testNNNd.txt, if present.

    Anything under that name counts, so a directory or broken link there is
    reported as unreadable rather than quietly ignored.
    """
    if re.fullmatch(r".*d\.txt", puzzle.name):
        candidate = puzzle.with_name(puzzle.name[: -len("d.txt")] + "s.txt")
        if os.path.lexists(candidate):
            return candidate
    return None


def in_words_and(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 2 else words)


def print_disagreement(console: Console, path: Path, outcome: CrossCheck) -> None:
    """Each side's faults, then every disputed solution with its verdict."""
    console.print(f"\n[bold red]Disagreement[/] on {path}:")
    odd = outcome.odd_one_out
    if odd is not None:
        others = [f.engine for f in outcome.findings if f.engine != odd]
        console.print(
            f"  {odd} differs; {in_words_and(others)} agree with each other", markup=False
        )
    for f in outcome.findings:
        faults = ", ".join(f.faults) or "no fault found"
        if f.finished and f.extra and not f.faults:
            faults += f" (gives {len(f.extra)} valid solution(s) another side lacks)"
        console.print(f"  {f.engine}: {faults}", markup=False)
        if not f.finished and f.result.message:
            console.print("    " + f.result.message.replace("\n", "\n    "), markup=False)
        for bad in f.result.bad_answers[:5]:
            console.print(f"    answer {bad.text[:120]}: {bad.reason}", markup=False)
        for grid, count in list(f.result.duplicates.items())[:5]:
            console.print(f"    given {count} times: {grid_term(grid)}", markup=False)
    for grid in outcome.disputed:
        violations = outcome.verdicts[grid]
        holders = [f.engine for f in outcome.findings if grid in f.result.solutions]
        verdict = "valid" if not violations else "INVALID"
        console.print(f"\n  {verdict} solution, given by {in_words_and(holders)}:", markup=False)
        board = format_board(grid, outcome.puzzle.k).strip("\n")
        console.print("  " + board.replace("\n", "\n  "), markup=False)
        for v in violations[:10]:
            console.print(f"    - {v.message}", markup=False)
        if len(violations) > 10:
            console.print(f"    - and {len(violations) - 10} more", markup=False)
