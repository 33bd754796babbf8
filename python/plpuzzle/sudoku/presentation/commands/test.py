"""`plpuzzle sudoku test`: a suite, run as the course's harness runs it."""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from plpuzzle.clitools import (
    InputError,
    engines_option,
    format_option,
    jobs_option,
    out_dir_option,
    progress_bar,
    quiet,
    stderr_console,
    stdout_console,
    time_limit_option,
    warn,
    write_stdout,
)
from plpuzzle.sudoku.engines import make_engine
from plpuzzle.sudoku.presentation.commands.common import (
    SUITE_PATH,
    announce,
    chosen_suite,
    dialect_option,
    only_option,
    require_loading,
    rules_option,
    setup_rules,
    setup_solver,
    solver_option,
    suite_option,
)
from plpuzzle.sudoku.presentation.report import (
    FORMATS,
    SuiteRun,
    ksudoku_line,
    summary_lines,
    to_json,
    to_junit,
)
from plpuzzle.sudoku.runs.run_setup import rules_problem
from plpuzzle.sudoku.runs.runner import SUITE_ENGINES, RunSettings, SuiteRunner
from plpuzzle.sudoku.runs.suite import (
    CaseResult,
    SuiteCase,
    SuiteError,
    Verdict,
    suite_cases,
)


@click.command(name="test")
@click.argument("suite_arg", metavar="[SUITE]", required=False, type=SUITE_PATH)
@suite_option
@engines_option(
    SUITE_ENGINES,
    "The engines to run on every test: the first is judged, any other cross-checks it.",
    default=("prolog",),
)
@rules_option
@solver_option
@dialect_option
@time_limit_option
@jobs_option("tests run at once, each in its own worker process")
@out_dir_option(
    Path("tests_out"),
    "Where the printed solutions go, as testNNNt.txt (the harness's output files).",
)
@format_option(
    FORMATS,
    "text: for people; ksudoku: the course harness's lines exactly; "
    "json, junit: machine-readable reports on stdout.",
)
@only_option
def run_suite(
    suite_arg: Path | None,
    suite: Path | None,
    engines: tuple[str, ...],
    rules: str | None,
    solver: str | None,
    dialect: str,
    time_limit: float,
    jobs: int,
    out_dir: Path,
    fmt: str,
    only: str | None,
) -> None:
    """Run every testNNNd.txt in SUITE and judge it against testNNNs.txt.

    This is the course harness's full test: each puzzle is solved within the
    time limit in a worker process of its own, compared with its expected
    solutions, and its printed solutions are written to OUTDIR/testNNNt.txt.
    One line per test, then a summary. Exit code 0 only when every test is
    correct, 1 otherwise, 2 for bad usage. SUITE may also be given as
    --suite; without either, the bundled suite runs.
    """
    folder = chosen_suite(suite_arg, suite)
    names = list(engines)
    chosen = setup_solver(solver, dialect, names, "prolog among --engines")
    rules_choice = setup_rules(rules, [folder])
    try:
        cases = suite_cases(folder, only)
    except SuiteError as e:
        raise InputError(str(e)) from None
    error, warnings = rules_problem(cases, rules_choice)
    if error:
        raise InputError(error)
    for line in warnings:
        warn(line)
    console = stdout_console() if fmt == "text" else stderr_console()
    announce(console, chosen, rules_choice, names)
    if chosen is not None:
        with make_engine("prolog", chosen.path, chosen.dialect) as engine:
            require_loading(engine, chosen, time_limit)
    settings = RunSettings(
        engines,
        rules_choice.rules,
        chosen.path if chosen else None,
        chosen.dialect if chosen else dialect,  # type: ignore[arg-type]
        time_limit,
        jobs,
        out_dir,
    )
    printer = _InOrder(cases, lambda r: _print_result(fmt, folder, settings, r, console))
    start = time.monotonic()
    with progress_bar(console) as progress:
        task = progress.add_task(f"{folder}", total=len(cases))

        def on_result(result: CaseResult) -> None:
            progress.advance(task)
            printer.add(result)

        results = SuiteRunner(settings).run(cases, on_result)
    run = SuiteRun(folder, settings, results, time.monotonic() - start)
    if fmt == "json":
        write_stdout(to_json(run))
    elif fmt == "junit":
        write_stdout(to_junit(run))
    else:
        (stdout_console() if fmt == "text" else stderr_console()).print(
            "\n".join(summary_lines(run)), markup=False
        )
    sys.exit(0 if run.all_correct else 1)


class _InOrder:
    """Emits results in suite order although they complete out of order."""

    def __init__(self, cases: list[SuiteCase], emit: Callable[[CaseResult], None]) -> None:
        self._order = {c: i for i, c in enumerate(cases)}
        self._waiting: dict[int, CaseResult] = {}
        self._next = 0
        self._emit = emit

    def add(self, result: CaseResult) -> None:
        self._waiting[self._order[result.case]] = result
        while self._next in self._waiting:
            self._emit(self._waiting.pop(self._next))
            self._next += 1


_VERDICT_STYLE = {
    Verdict.CORRECT: "green",
    Verdict.WRONG: "bold red",
    Verdict.TIMEOUT: "yellow",
    Verdict.ERROR: "red",
    Verdict.NO_EXPECTED: "magenta",
    Verdict.BAD_INPUT: "red",
}


def _print_result(
    fmt: str, folder: Path, settings: RunSettings, result: CaseResult, console: Console
) -> None:
    if fmt == "ksudoku":
        write_stdout(ksudoku_line(folder, result, settings.time_limit) + "\n")
    elif fmt == "text" and (not quiet() or result.verdict is not Verdict.CORRECT):
        k = f"K={result.k}" if result.k else "K=?"
        style = _VERDICT_STYLE[result.verdict]
        head = (
            f"{result.case.name:<10} {k:<5} {result.solution_count:>5} sol "
            f"{result.cpu_seconds:>8.2f} s  "
        )
        verdict = f"{result.verdict.value:<11} "
        # On a terminal the reason wraps at its width, under itself (on a
        # narrow one it goes below, indented); off one, a test is one line.
        indent = len(head) + len(verdict)
        columns = console.width if console.is_terminal else 1 << 30
        beside = columns - indent >= 40
        width = columns - indent if beside else max(20, columns - 4)
        lines = textwrap.wrap(result.summary(), width, break_on_hyphens=False)
        pad = " " * indent if beside else "    "
        first = f"{head}[{style}]{verdict.rstrip()}[/]"
        if beside and lines:
            first = f"{head}[{style}]{verdict}[/]{escape(lines.pop(0))}"
        console.print(first + "".join(f"\n{pad}{escape(line)}" for line in lines))
