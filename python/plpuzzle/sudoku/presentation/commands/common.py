"""Pieces the sudoku commands share: options, reading a puzzle, checking a solver."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from plpuzzle.clitools import (
    InputError,
    choice,
    is_std,
    print_wrapped,
    quiet,
    warn,
    working,
)
from plpuzzle.runtime import DEFAULT_DIALECT, DIALECTS
from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.textformat import (
    FormatError,
    format_board,
    grid_term,
    load_puzzle,
    parse_puzzle,
)
from plpuzzle.sudoku.engines import Engine
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine
from plpuzzle.sudoku.presentation.setup_lines import load_failure, load_warnings, run_line
from plpuzzle.sudoku.runs.crosscheck import CrossCheck
from plpuzzle.sudoku.runs.run_setup import (
    RulesChoice,
    SetupProblem,
    SolverChoice,
    choose_rules,
    choose_solver,
    rules_problem,
)
from plpuzzle.sudoku.runs.suite import SuiteCase, SuiteError, bundled_suite


def rules_option_with(where: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--rules`, its default read from the suite.toml `where` says."""
    return click.option(
        "--rules",
        type=choice([r.value for r in Rules]),
        default=None,
        help="What an s/w info means: 'consecutive' (values differ by 1) or "
        "'oddsum' (their sum is odd; the official test suite's rules). Default: "
        f"what {where} declares, else consecutive.",
    )


rules_option = rules_option_with("the suite's suite.toml")
solver_option = click.option(
    "--solver",
    metavar="FILE.pl",
    help="The Prolog file defining sudoku/2 to run. Default: ./sudoku.pl when "
    "the current folder has one (as the course's harness), else ours; "
    "'bundled' names ours (prolog/sudoku.pl). A solver implements one rule "
    "variant itself; --rules says which one to check it against.",
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


def dialect_option_for(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--dialect swi|sicstus4`, SICStus 4 by default, with the command's own words."""
    return click.option("--dialect", type=choice(DIALECTS), default=DEFAULT_DIALECT,
                        show_default=True, help=help_text)  # fmt: skip


dialect_option = dialect_option_for(
    "How to load a --solver file: in SWI-Prolog's SICStus 4 emulation (the course's "
    "system) or as plain SWI-Prolog. Our own solver is always SWI-Prolog."
)


def read_puzzle(path: Path) -> Puzzle:
    """A puzzle file, or standard input for `-`; FormatError is the user's."""
    try:
        if is_std(path):
            return parse_puzzle(sys.stdin.read(), "<stdin>")
        return load_puzzle(path)
    except FormatError as e:
        raise InputError(str(e)) from None


class SolverDoesNotLoad(InputError):
    """A solver that cannot run: each reason on a line of its own, its
    place first, and nothing run (exit code 2)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines

    def show(self, file: object = None) -> None:
        for line in self.lines:
            click.echo(f"plpuzzle: error: {line}", err=True)


def setup_solver(
    option: str | None, dialect: str, engines: list[str], needs: str
) -> SolverChoice | None:
    """The run's Prolog solver (None when no Prolog engine runs); --solver
    with no Prolog engine is the user's error, `needs` says what to add."""
    if "prolog" not in engines:
        if option is not None:
            raise InputError(f"--solver needs {needs}")
        return None
    try:
        return choose_solver(option, dialect, Path.cwd())  # type: ignore[arg-type]
    except SetupProblem as e:
        raise InputError(str(e)) from None


def setup_rules(given: str | None, folders: list[Path]) -> RulesChoice:
    """The run's rules: --rules, else the suite.toml of the folders."""
    try:
        return choose_rules(given, folders)
    except (SetupProblem, SuiteError) as e:
        raise InputError(str(e)) from None


def announce(console: Console, solver: SolverChoice | None, rules: RulesChoice,
             engines: list[str]) -> None:  # fmt: skip
    """The run's first line, naming its solver, dialect and rules (not with -q)."""
    if not quiet():  # one line, whatever its length: programs read it
        console.print(run_line(solver, rules, engines), markup=False, highlight=False)


def require_loading(engine: Engine, solver: SolverChoice | None, time_limit: float) -> None:
    """Load the solver in `engine`'s worker before anything runs: warnings
    are shown once (not with -q), and a solver that does not load cleanly
    stops the command with each error at its place (exit code 2)."""
    if solver is None or not isinstance(engine, PrologSudokuEngine):
        return
    report = engine.check_load(time_limit)
    failure = load_failure(report, solver, time_limit)
    if failure:
        engine.close()
        raise SolverDoesNotLoad(failure)
    if not quiet():
        for line in load_warnings(report, solver):
            warn(line)


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
            print_wrapped(console, f.result.message)
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
        console.print("\n".join(f"  {line}".rstrip() for line in board.split("\n")), markup=False)
        for v in violations[:10]:
            print_wrapped(console, f"- {v.message}")
        if len(violations) > 10:
            console.print(f"    - and {len(violations) - 10} more", markup=False)


def hint_rules(puzzles: list[Path], rules: RulesChoice) -> None:
    """Warn when the expected solutions beside the puzzles (testNNNs.txt)
    break the chosen rules, naming the rules they keep."""
    cases = []
    for path in puzzles:
        expected = None if is_std(path) else expected_beside(path)
        if expected is not None and expected.is_file():
            cases.append(SuiteCase(path.name.removesuffix("d.txt"), path, expected))
    error, warnings = rules_problem(cases, rules)  # unreadable files are skipped there
    for line in [error] if error else warnings:
        warn(line)


@contextmanager
def solving_status(
    console: Console, what: str, time_limit: float, engines: Sequence[Engine] = ()
) -> Iterator[Callable[[str], None]]:
    """`working`'s spinner while engines solve, with the solutions a
    Prolog engine has found so far (it keeps their count in a file)."""
    if not console.is_terminal or quiet():
        yield lambda _text: None
        return
    with tempfile.TemporaryDirectory(prefix="plpuzzle-progress-") as folder:
        counted = [e for e in engines if isinstance(e, PrologSudokuEngine)]
        files = [Path(folder) / f"found{i}" for i in range(len(counted))]
        for engine, path in zip(counted, files, strict=True):
            engine.progress = path

        def found() -> str:
            count = _found_so_far(files)
            if count is None:
                return ""
            return f", {count} solution{'s' if count != 1 else ''} found so far"

        try:
            with working(console, what, time_limit, found) as step:

                def next_step(text: str) -> None:
                    for path in files:  # a new puzzle counts from 0
                        path.unlink(missing_ok=True)
                    step(text)

                yield next_step
        finally:
            for engine in counted:
                engine.progress = None


def _found_so_far(files: list[Path]) -> int | None:
    """The largest count in the progress files, None before any is written."""
    counts = []
    for path in files:
        with suppress(OSError, ValueError):
            counts.append(int(path.read_text()))
    return max(counts) if counts else None
