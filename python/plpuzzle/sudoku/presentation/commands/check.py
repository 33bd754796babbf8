"""`plpuzzle sudoku check`: the engines cross-checked on puzzles, and the expected solutions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.table import Table
from rich.text import Text

from plpuzzle.clitools import (
    InputError,
    engines_option,
    format_option,
    is_std,
    print_table,
    print_wrapped,
    quiet,
    stderr_console,
    stdout_console,
    time_limit_option,
    write_json,
)
from plpuzzle.sudoku.domain.model import Grid, Puzzle
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import (
    FormatError,
    load_solutions,
)
from plpuzzle.sudoku.engines import ENGINES, make_engine
from plpuzzle.sudoku.presentation.commands.common import (
    announce,
    dialect_option,
    expected_beside,
    hint_rules,
    in_words_and,
    print_disagreement,
    read_puzzle,
    require_loading,
    rules_option_with,
    setup_rules,
    setup_solver,
    solver_option,
    solving_status,
)
from plpuzzle.sudoku.runs.crosscheck import CrossCheck, check_all


@click.command()
@click.argument(
    "puzzles",
    nargs=-1,
    required=True,
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
)
@rules_option_with("a suite.toml beside the puzzles")
@solver_option
@dialect_option
@click.option(
    "--expected",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Also compare with this expected-solution file (one puzzle only). "
    "By default testNNNs.txt beside testNNNd.txt is used when it exists.",
)
@engines_option(
    ENGINES,
    "The engines to compare, at least two. cpsat shares no reasoning with "
    "the other two, so it can catch a mistake they both make.",
    at_least=2,
)
@time_limit_option
@format_option()
def check(
    puzzles: tuple[Path, ...],
    rules: str | None,
    solver: str | None,
    dialect: str,
    expected: Path | None,
    engines: tuple[str, ...],
    time_limit: float,
    fmt: str,
) -> None:
    """Solve PUZZLES ('-': one from standard input) with every engine and
    compare their solution sets.

    The Prolog engine (ours, or --solver), the pure-Python reference and
    the CP-SAT model must find the same solutions, each exactly once. Where
    they differ, the independent validator says which solutions really are
    valid, and a side that alone answers differently is named. Exit code 0
    when everything agrees, 1 when not, 2 for bad input.
    """
    if expected is not None and len(puzzles) > 1:
        raise InputError("--expected goes with a single puzzle")
    names = list(engines)
    chosen = setup_solver(solver, dialect, names, "prolog among --engines")
    files = [p for p in puzzles if not is_std(p)]
    rules_choice = setup_rules(rules, [p.parent for p in files])
    boards = [read_puzzle(p) for p in puzzles]
    expectations = [
        _load_expected(expected or expected_beside(p), b)
        for p, b in zip(puzzles, boards, strict=True)
    ]
    console = stdout_console() if fmt == "text" else stderr_console()
    announce(console, chosen, rules_choice, names)
    if expected is None:
        hint_rules(list(puzzles), rules_choice)
    path, used_dialect = (chosen.path, chosen.dialect) if chosen else (None, dialect)
    running = [make_engine(n, path, used_dialect) for n in names]  # type: ignore[arg-type]
    for engine in running:
        require_loading(engine, chosen, time_limit)
    err = stderr_console()
    with solving_status(err, "checking", time_limit, running) as now_solving:
        outcomes = check_all(
            boards,
            expectations,
            rules_choice.rules,
            running,
            time_limit,
            on_solving=lambda i, name: now_solving(
                f"{puzzles[i].name} ({i + 1} of {len(puzzles)}), {name}"
            ),
        )
    failures = [(p, o) for p, o in zip(puzzles, outcomes, strict=True) if not o.agree]
    rules = rules_choice.rules.value
    if fmt == "json":
        write_json(_check_json(puzzles, outcomes, rules, names))
        sys.exit(1 if failures else 0)
    if not quiet():
        table = _check_table(puzzles, outcomes, rules, names, expectations, console.width)
        print_table(console, table)
    for path, outcome in failures:
        print_disagreement(console, path, outcome)
    agreed = len(puzzles) - len(failures)
    also = " and match the expected solutions" if any(e is not None for e in expectations) else ""
    odd = _odd_ones_text(outcomes)
    print_wrapped(console, f"{agreed} of {len(puzzles)} puzzles: the engines agree{also}{odd}.", 0)
    sys.exit(1 if failures else 0)


def _check_table(
    puzzles: tuple[Path, ...],
    outcomes: list[CrossCheck],
    rules: str,
    engines: list[str],
    expected_given: list[list[Grid] | None],
    width: int,
) -> Table:
    folders = {p.parent for p in puzzles}
    where = f" in {folders.pop()}" if len(folders) == 1 else ""
    names = [p.name if where else str(p) for p in puzzles]
    table = Table(
        title=f"Cross-check{where} ({rules} rules)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    # An expected column only when some puzzle has an expected file.
    any_expected = any(e is not None for e in expected_given)
    headings = ["K", "valid", *engines, *(["expected"] if any_expected else []), "verdict"]

    def rows(timed: bool) -> list[list[Text]]:
        made = []
        for outcome, exp in zip(outcomes, expected_given, strict=True):
            cells = [_cell(f.result, timed) for f in outcome.findings]
            if any_expected and exp is None:
                cells.append(Text("-"))
            verdict = Text("agree", "green") if outcome.agree else Text("DISAGREE", "red")
            made.append([Text(str(outcome.puzzle.k)), Text(str(outcome.count)), *cells, verdict])
        return made

    def widths(made: list[list[Text]]) -> list[int]:
        return [max([len(h), *(row[i].cell_len for row in made)]) for i, h in enumerate(headings)]

    # Every column but the puzzle names keeps the width of its widest cell,
    # so no number or verdict is ever cut; on a narrow terminal the CPU
    # times go first, then the names wrap.
    name_width = min(24, max(map(len, names)))
    made = rows(timed=True)
    if sum(widths(made)) + name_width + 2 * (len(headings) + 1) > width:
        made = rows(timed=False)
    table.add_column("puzzle", overflow="fold", min_width=name_width)
    for heading, widest in zip(headings, widths(made), strict=True):
        table.add_column(heading, no_wrap=True, min_width=widest)
    for name, row in zip(names, made, strict=True):
        table.add_row(name, *row)
    return table


def _odd_ones_text(outcomes: list[CrossCheck]) -> str:
    """' (prolog differs on 2)': which side alone disagreed, and how often."""
    counts: dict[str, int] = {}
    for o in outcomes:
        if not o.agree and o.odd_one_out is not None:
            counts[o.odd_one_out] = counts.get(o.odd_one_out, 0) + 1
    if not counts:
        return ""
    return f" ({in_words_and([f'{name} differs on {n}' for name, n in counts.items()])})"


def _check_json(
    puzzles: tuple[Path, ...], outcomes: list[CrossCheck], rules: str, engines: list[str]
) -> dict[str, Any]:
    return {
        "rules": rules,
        "engines": engines,
        "puzzles": [
            {
                "puzzle": str(path),
                "k": o.puzzle.k,
                "solutions": o.count,
                "agree": o.agree,
                "odd_one_out": o.odd_one_out,
                "sides": [
                    {
                        "engine": f.engine,
                        "status": str(f.result.status),
                        "count": len(f.result.solutions),
                        "cpu_seconds": round(f.result.cpu_seconds, 4),
                        "faults": list(f.faults),
                    }
                    for f in o.findings
                ],
            }
            for path, o in zip(puzzles, outcomes, strict=True)
        ],
        "agreed": sum(o.agree for o in outcomes),
        "total": len(outcomes),
    }


def _load_expected(path: Path | None, board: Puzzle) -> list[Grid] | None:
    if path is None:
        return None
    try:
        return load_solutions(path, board.n)
    except FormatError as e:
        raise InputError(str(e)) from None


def _cell(result: SolveResult, timed: bool = True) -> Text:
    """An engine's count (and CPU time): what the table shows of a side."""
    if result.status is not Status.OK:
        return Text(str(result.status), style="red")
    if result.engine == "expected" or not timed:
        return Text(str(len(result.solutions)))
    return Text(f"{len(result.solutions)} in {result.cpu_seconds:.2f}s")
