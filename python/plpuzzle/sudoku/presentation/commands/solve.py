"""`plpuzzle sudoku solve`: every solution of one puzzle, by one engine."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from plpuzzle.clitools import (
    engine_option,
    format_option,
    is_std,
    note,
    output_option,
    quiet,
    stderr_console,
    time_limit_option,
    verbose,
    warn,
    write_output,
)
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import (
    format_solutions,
    grid_term,
    harness_line,
    solutions_to_text,
)
from plpuzzle.sudoku.engines import ENGINES, make_engine
from plpuzzle.sudoku.presentation.commands.common import (
    dialect_option,
    hint_rules,
    read_puzzle,
    require_loading,
    rules_option_with,
    setup_rules,
    setup_solver,
    solver_option,
    solving_status,
)
from plpuzzle.sudoku.presentation.setup_lines import run_line
from plpuzzle.sudoku.runs.crosscheck import status_text


@click.command()
@click.argument("puzzle", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True))
@engine_option(
    ENGINES,
    "prolog: a clpfd sudoku.pl through pyswip; python: the pure-Python reference; "
    "cpsat: an OR-tools CP-SAT model, an independent third opinion.",
)
@rules_option_with("a suite.toml beside the puzzle")
@solver_option
@dialect_option
@output_option("Write the solutions to this file instead of stdout ('-': stdout).")
@time_limit_option
@click.option(
    "--stats",
    is_flag=True,
    help="Also print the course harness's line with the solution count and CPU time "
    "(on stderr, so the solutions stay byte-exact). -v implies it.",
)
@format_option(
    ("text", "json", "expected"),
    "text: the course harness's output; json: status, solutions and CPU time as one object; "
    "expected: an expected-solution file (testNNNs.txt) of the solutions, for a test of your "
    "own.",
)
def solve(
    puzzle: Path,
    engine: str,
    rules: str,
    solver: str | None,
    dialect: str,
    output: Path | None,
    time_limit: float,
    stats: bool,
    fmt: str,
) -> None:
    """Print every solution of PUZZLE ('-': standard input), as the course
    harness prints them.

    The output is byte-for-byte what the course's Prolog harness writes:
    solutions in sorted order, each after a '-----' line. Exit code 0 when
    the engine finished cleanly, 1 when it timed out, failed, or gave
    malformed or duplicate answers, 2 for bad input.
    """
    chosen = setup_solver(solver, dialect, [engine], "--engine prolog")
    rules_choice = setup_rules(rules, [] if is_std(puzzle) else [puzzle.parent])
    board = read_puzzle(puzzle)
    err = stderr_console()
    if not quiet():
        err.print(f"plpuzzle: {run_line(chosen, rules_choice, [engine])}", markup=False)
    hint_rules([puzzle], rules_choice)
    if verbose():
        note(f"solving {puzzle} with the {engine} engine ({rules_choice.rules.value} rules)")
    path, used_dialect = (chosen.path, chosen.dialect) if chosen else (None, dialect)
    runner = make_engine(engine, path, used_dialect, show_stderr=True)  # type: ignore[arg-type]
    try:
        require_loading(runner, chosen, time_limit)
        with solving_status(err, f"solving {puzzle.name}", time_limit, [runner]):
            result = runner.solve(board, rules_choice.rules, time_limit)
    finally:
        runner.close()
    problems = _answer_problems(result) if result.status is Status.OK else []
    if fmt == "json":
        write_output(output, _solve_json(puzzle, result, time_limit, problems))
    elif fmt == "expected" and result.status is Status.OK:
        write_output(output, solutions_to_text(sorted(set(result.solutions))))
    elif result.status is Status.OK:
        write_output(output, format_solutions(result.solutions, board.k))
    if result.status is not Status.OK:
        click.echo(f"plpuzzle: {status_text(result, time_limit)}", err=True)
        sys.exit(1)
    if stats or verbose():
        click.echo(harness_line(str(puzzle), len(result.solutions), result.cpu_seconds), err=True)
    for line in problems:
        warn(line)
    if problems:
        sys.exit(1)


def _solve_json(puzzle: Path, result: SolveResult, time_limit: float, problems: list[str]) -> str:
    import json

    ok = result.status is Status.OK
    return (
        json.dumps(
            {
                "puzzle": str(puzzle),
                "engine": result.engine,
                "status": str(result.status),
                "message": None if ok else status_text(result, time_limit),
                "count": len(result.solutions) if ok else None,
                "solutions": [[list(row) for row in g] for g in result.solutions] if ok else [],
                "cpu_seconds": round(result.cpu_seconds, 4),
                "problems": problems,
            },
            indent=2,
        )
        + "\n"
    )


def _answer_problems(result: SolveResult) -> list[str]:
    name = f"the {result.engine} engine"
    out = []
    for grid, count in result.duplicates.items():
        out.append(f"{name} gave this solution {count} times: {grid_term(grid)}")
    for bad in result.bad_answers:
        out.append(f"{name} answered {bad.text[:200]}: {bad.reason}")
    return out
