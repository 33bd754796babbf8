"""`plpuzzle sudoku ...`: solve puzzles and cross-check the engines."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from plpuzzle.clitools import (
    InputError,
    Interrupted,
    SetupError,
    choice,
    format_option,
    is_std,
    jobs_option,
    note,
    progress_bar,
    quiet,
    stderr_console,
    stdout_console,
    time_limit_option,
    time_limit_option_with,
    verbose,
    warn,
    write_json,
    write_output,
    write_stdout,
)
from plpuzzle.engine import DEFAULT_DIALECT, DIALECTS
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.api import as_engine_name
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import (
    FormatError,
    format_board,
    format_solutions,
    grid_term,
    harness_line,
    load_puzzle,
    load_solutions,
    parse_puzzle,
)
from plpuzzle.sudoku.engines import ENGINES, make_engine
from plpuzzle.sudoku.presentation.report import (
    FORMATS,
    SuiteRun,
    ksudoku_line,
    summary_lines,
    to_json,
    to_junit,
)
from plpuzzle.sudoku.services import generation, generator, grader
from plpuzzle.sudoku.services.crosscheck import CrossCheck, check_all, status_text
from plpuzzle.sudoku.services.feedback import ShrinkPolicy
from plpuzzle.sudoku.services.gradebook import GradebookError
from plpuzzle.sudoku.services.grader import GradingRequest
from plpuzzle.sudoku.services.grading import GradeSettings, GradingError
from plpuzzle.sudoku.services.runner import ENGINE_CHOICES, RunSettings, SuiteRunner
from plpuzzle.sudoku.services.suite import (
    CaseResult,
    SuiteCase,
    SuiteError,
    Verdict,
    bundled_suite,
    suite_cases,
)
from plpuzzle.untrusted import printable

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
dialect_option = click.option(
    "--dialect",
    type=choice(DIALECTS),
    default=DEFAULT_DIALECT,
    show_default=True,
    help="How to load a --solver file: in SWI-Prolog's SICStus 4 emulation (the course's "
    "system) or as plain SWI-Prolog. Our own solver is always SWI-Prolog.",
)


@click.group(short_help="The sudoku assignment: solve puzzles, cross-check the engines.")
def sudoku() -> None:
    """The sudoku assignment: a sudoku with parity (e, o) and neighbour (s, w) infos.

    A puzzle file holds K on its first line, then N = K*K rows of N fields:
    '-' for no info, or a value and the letters e (even), o (odd), s (relation
    with the cell below), w (relation with the cell to the left), e.g. 'ew2s'.
    """


def _load_puzzle(path: Path) -> Puzzle:
    """A puzzle file, or standard input for `-`; FormatError is the user's."""
    try:
        if is_std(path):
            return parse_puzzle(sys.stdin.read(), "<stdin>")
        return load_puzzle(path)
    except FormatError as e:
        raise InputError(str(e)) from None


def _check_solver(solver: Path | None) -> None:
    if solver is not None and not solver.is_file():
        raise InputError(f"{solver}: no such solver file")


@sudoku.command()
@click.argument("puzzle", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True))
@click.option(
    "--engine",
    type=choice(ENGINES),
    default="prolog",
    show_default=True,
    help="prolog: a clpfd sudoku.pl through pyswip; python: the pure-Python reference; "
    "cpsat: an OR-tools CP-SAT model, an independent third opinion.",
)
@rules_option
@solver_option
@dialect_option
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False, writable=True, allow_dash=True),
    help="Write the solutions to this file instead of stdout ('-': stdout).",
)
@time_limit_option
@click.option(
    "--stats",
    is_flag=True,
    help="Also print the course harness's line with the solution count and CPU time "
    "(on stderr, so the solutions stay byte-exact). -v implies it.",
)
@format_option(
    ("text", "json"),
    "text: the course harness's output; json: status, solutions and CPU time as one object.",
)
def solve(
    puzzle: Path,
    engine: str,
    rules: str,
    solver: Path | None,
    dialect: str,
    out: Path | None,
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
    if solver is not None and engine != "prolog":
        raise InputError("--solver needs --engine prolog")
    _check_solver(solver)
    board = _load_puzzle(puzzle)
    if verbose():
        note(f"solving {puzzle} with the {engine} engine ({rules} rules)")
    runner = make_engine(engine, solver, dialect, show_stderr=True)  # type: ignore[arg-type]
    try:
        result = runner.solve(board, Rules(rules), time_limit)
    finally:
        runner.close()
    problems = _answer_problems(result) if result.status is Status.OK else []
    if fmt == "json":
        write_output(out, _solve_json(puzzle, result, time_limit, problems))
    elif result.status is Status.OK:
        write_output(out, format_solutions(result.solutions, board.k))
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


def _expected_beside(puzzle: Path) -> Path | None:
    """The course's expected-solution file for a testNNNd.txt, if present.

    Anything under that name counts, so a directory or broken link there is
    reported as unreadable rather than quietly ignored.
    """
    if re.fullmatch(r".*d\.txt", puzzle.name):
        candidate = puzzle.with_name(puzzle.name[: -len("d.txt")] + "s.txt")
        if os.path.lexists(candidate):
            return candidate
    return None


@sudoku.command()
@click.argument(
    "puzzles",
    nargs=-1,
    required=True,
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
)
@rules_option
@solver_option
@dialect_option
@click.option(
    "--expected",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Also compare with this expected-solution file (one puzzle only). "
    "By default testNNNs.txt beside testNNNd.txt is used when it exists.",
)
@click.option(
    "--engines",
    "engine_list",
    default=",".join(ENGINES),
    show_default=True,
    metavar="LIST",
    help="The engines to compare, comma-separated, at least two. cpsat shares no "
    "reasoning with the other two, so it can catch a mistake they both make.",
)
@time_limit_option
@format_option(("table", "json"))
def check(
    puzzles: tuple[Path, ...],
    rules: str,
    solver: Path | None,
    dialect: str,
    expected: Path | None,
    engine_list: str,
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
    names = _engine_names(engine_list)
    if solver is not None and "prolog" not in names:
        raise InputError("--solver needs prolog among --engines")
    _check_solver(solver)
    boards = [_load_puzzle(p) for p in puzzles]
    expectations = [
        _load_expected(expected or _expected_beside(p), b)
        for p, b in zip(puzzles, boards, strict=True)
    ]
    engines = [make_engine(n, solver, dialect) for n in names]  # type: ignore[arg-type]
    outcomes = check_all(boards, expectations, Rules(rules), engines, time_limit)
    failures = [(p, o) for p, o in zip(puzzles, outcomes, strict=True) if not o.agree]
    if fmt == "json":
        write_json(_check_json(puzzles, outcomes, rules, names))
        sys.exit(1 if failures else 0)
    console = stdout_console()
    if not quiet():
        console.print(_check_table(puzzles, outcomes, rules, names, expectations))
    for path, outcome in failures:
        _print_disagreement(console, path, outcome)
    agreed = len(puzzles) - len(failures)
    also = " and match the expected solutions" if any(e is not None for e in expectations) else ""
    odd = _odd_ones_text(outcomes)
    console.print(f"{agreed} of {len(puzzles)} puzzles: the engines agree{also}{odd}.")
    sys.exit(1 if failures else 0)


def _engine_names(text: str) -> list[str]:
    """The --engines list: known names, each once, at least two (a
    cross-check of one engine compares nothing)."""
    try:
        names = [as_engine_name(n) for n in text.split(",") if n.strip()]
    except ValueError as e:
        raise InputError(f"--engines: {e}") from None
    names = list(dict.fromkeys(names))
    if len(names) < 2:
        raise InputError(
            f"--engines: name at least two of {', '.join(ENGINES)} to compare, got {text!r}"
        )
    return names


def _check_table(
    puzzles: tuple[Path, ...],
    outcomes: list[CrossCheck],
    rules: str,
    engines: list[str],
    expected_given: list[list[Grid] | None],
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
    table.add_column("puzzle", min_width=max(map(len, names)), no_wrap=True)
    # An expected column only when some puzzle has an expected file: with
    # three engines the table is tight in 80 columns already.
    any_expected = any(e is not None for e in expected_given)
    headings = ["K", "valid", *engines, *(["expected"] if any_expected else []), "verdict"]
    for heading in headings:
        table.add_column(heading, no_wrap=True)
    for name, outcome, exp in zip(names, outcomes, expected_given, strict=True):
        cells = [_cell(f.result) for f in outcome.findings]
        if any_expected and exp is None:
            cells.append("-")
        verdict = "[green]agree[/]" if outcome.agree else "[red]DISAGREE[/]"
        table.add_row(name, str(outcome.puzzle.k), str(outcome.count), *cells, verdict)
    return table


def _and(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 2 else words)


def _odd_ones_text(outcomes: list[CrossCheck]) -> str:
    """' (prolog differs on 2)': which side alone disagreed, and how often."""
    counts: dict[str, int] = {}
    for o in outcomes:
        if not o.agree and o.odd_one_out is not None:
            counts[o.odd_one_out] = counts.get(o.odd_one_out, 0) + 1
    if not counts:
        return ""
    return f" ({_and([f'{name} differs on {n}' for name, n in counts.items()])})"


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


def _cell(result: SolveResult) -> str:
    if result.status is not Status.OK:
        return f"[red]{result.status}[/]"
    if result.engine == "expected":
        return str(len(result.solutions))
    return f"{len(result.solutions)} in {result.cpu_seconds:.2f}s"


def _print_disagreement(console: Console, path: Path, outcome: CrossCheck) -> None:
    """Each side's faults, then every disputed solution with its verdict."""
    console.print(f"\n[bold red]Disagreement[/] on {path}:")
    odd = outcome.odd_one_out
    if odd is not None:
        others = [f.engine for f in outcome.findings if f.engine != odd]
        console.print(f"  {odd} differs; {_and(others)} agree with each other", markup=False)
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
        console.print(f"\n  {verdict} solution, given by {_and(holders)}:", markup=False)
        board = format_board(grid, outcome.puzzle.k).strip("\n")
        console.print("  " + board.replace("\n", "\n  "), markup=False)
        for v in violations[:10]:
            console.print(f"    - {v.message}", markup=False)
        if len(violations) > 10:
            console.print(f"    - and {len(violations) - 10} more", markup=False)


@sudoku.command(name="generate")
@click.option("--k", "k", type=int, required=True, help="Cell size K (the grid is K*K x K*K).")
@rules_option
@click.option(
    "--count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="How many puzzles to make.",
)
@click.option(
    "--solutions",
    "solution_range",
    default="1..1",
    show_default=True,
    metavar="MIN..MAX",
    help="How many solutions each puzzle must have; 0..0 makes contradictory puzzles.",
)
@click.option(
    "--seed",
    type=int,
    help="The random seed: the same seed and options give the same files, byte for byte. "
    "Default: a fresh one, printed so that the run can be repeated.",
)
@click.option(
    "--kind",
    type=choice([k.value for k in generator.Kind]),
    default=generator.Kind.MIXED.value,
    show_default=True,
    help="mixed: values, parities and s/w infos; lean: as few values as the count allows; "
    "classic: values only.",
)
@click.option(
    "--keep",
    type=click.FloatRange(0, 1),
    metavar="SHARE",
    help="Keep at least this share of the grid's true infos, so that big puzzles stay quick "
    "to solve; 0 removes infos as far as the solution count allows. "
    "Default: by K and kind (0 up to K=3). Not from K=7 up: see --given.",
)
@click.option(
    "--given",
    type=click.FloatRange(0, 1),
    metavar="SHARE",
    help="Instead of --keep: give this share of the cell values (e.g. 0.75), taking infos "
    "away in large batches, which is what makes K=7..10 quick; with --kind mixed about "
    "as large a share of the parities and s/w infos goes too. The share ends higher "
    "where the count allows no more. Default from K=7 up: 0.75.",
)
@click.option(
    "--counter",
    type=choice([c.value for c in generator.Counter]),
    default=generator.Counter.CPSAT.value,
    show_default=True,
    help="The engine that counts solutions while infos are taken away. Counts are facts "
    "about the puzzle, so the files are the same either way; cpsat keeps sparse puzzles "
    "with hundreds of solutions (K=4..6, low --keep) countable in minutes. "
    "The three-engine confirmation is the same with both.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default=True,
    help="The folder for the testNNNd.txt / testNNNs.txt pairs.",
)
@click.option(
    "--start",
    type=click.IntRange(min=1),
    help="The number of the first puzzle. Default: one after the highest in --out, or 1.",
)
@click.option("--force", is_flag=True, help="Overwrite existing testNNN files.")
@time_limit_option
@format_option()
def generate_puzzles(
    k: int,
    rules: str,
    count: int,
    solution_range: str,
    seed: int | None,
    kind: str,
    keep: float | None,
    given: float | None,
    counter: str,
    out_dir: Path,
    start: int | None,
    force: bool,
    time_limit: float,
    fmt: str,
) -> None:
    """Make test puzzles with a given number of solutions, checked by all three engines.

    Each puzzle comes from a random valid grid: the infos true for it are
    taken away in a random order while the solution count (by --counter)
    stays at most MAX. It is written to OUT/testNNNd.txt; its solutions go to
    testNNNs.txt only when the Prolog, the Python and the CP-SAT engine
    find the same solution set, that is as many solutions as the generator
    counted, and the grid the puzzle was made from is among them. Exit
    code 0 when every puzzle was confirmed, 1 when not, 2 for bad options.
    """
    try:
        request = generation.GenerateRequest(
            k,
            Rules(rules),
            count,
            generation.solution_range(solution_range),
            generation.fresh_seed() if seed is None else seed,
            generator.Kind(kind),
            keep,
            out_dir,
            start,
            force,
            time_limit,
            given,
            generator.Counter(counter),
        )
        names = generation.plan(request)
    except generation.RequestError as e:
        raise InputError(str(e)) from None
    console = stdout_console() if fmt == "text" else stderr_console()
    if seed is None and fmt == "text" and not quiet():
        console.print(f"seed {request.seed} (pass --seed {request.seed} to repeat this run)")
    with progress_bar(console) as progress:
        task = progress.add_task("generating", total=count)

        def on_made(item: generation.MadePuzzle) -> None:
            progress.advance(task)
            if fmt == "text":
                _print_made(console, item)

        try:
            made = generation.generate_all(
                request, names, lambda what: progress.update(task, description=what), on_made
            )
        except generation.RequestError as e:
            raise InputError(str(e)) from None
    confirmed = sum(m.confirmed for m in made)
    if fmt == "json":
        write_json(
            {
                "seed": request.seed,
                "counter": request.counter.value,
                "puzzles": [m.to_json() for m in made],
                "confirmed": confirmed,
                "count": count,
            }
        )
    else:
        console.print(
            f"{confirmed} of {count} puzzles confirmed by all three engines (seed {request.seed})."
        )
    sys.exit(0 if confirmed == count else 1)


def _print_made(console: Console, item: generation.MadePuzzle) -> None:
    """A line per puzzle (not with -q), and why it was not confirmed."""
    if item.confirmed and quiet():
        return
    times = ", ".join(f"{r.engine} {r.cpu_seconds:.2f}s" for r in item.results)
    verdict = "[green]confirmed[/]" if item.confirmed else "[red]NOT CONFIRMED[/]"
    console.print(
        f"{escape(str(item.puzzle_path))}  K={item.made.puzzle.k}  "
        f"{item.made.solutions:>4} solution(s)  {item.made.info_count:>4} infos  "
        f"({times})  {verdict}"
    )
    if not item.confirmed:
        console.print(f"  {item.problem}; {item.solutions_path.name} not written", markup=False)
        if all(r.status is Status.OK for r in item.results) and not item.outcome.agree:
            _print_disagreement(console, item.puzzle_path, item.outcome)


@sudoku.command(name="test")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--engine",
    type=choice(ENGINE_CHOICES),
    default="prolog",
    show_default=True,
    help="Which engine is judged; 'both' also cross-checks Prolog against Python per test.",
)
@rules_option
@solver_option
@dialect_option
@time_limit_option
@jobs_option("tests run at once, each in its own worker process")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("tests_out"),
    show_default=True,
    help="Where the printed solutions go, as testNNNt.txt (the harness's output files).",
)
@click.option(
    "--format",
    "fmt",
    type=choice(FORMATS),
    default="table",
    show_default=True,
    help="table: for people; ksudoku: the course harness's lines exactly; "
    "json, junit: machine-readable reports on stdout.",
)
@click.option(
    "--only",
    metavar="PATTERN",
    help="Run only the tests whose name matches, e.g. 'test0[0-4]?' or '017'.",
)
def run_suite(
    folder: Path,
    engine: str,
    rules: str,
    solver: Path | None,
    dialect: str,
    time_limit: float,
    jobs: int,
    out_dir: Path,
    fmt: str,
    only: str | None,
) -> None:
    """Run every testNNNd.txt in FOLDER and judge it against testNNNs.txt.

    This is the course harness's full test: each puzzle is solved within the
    time limit in a worker process of its own, compared with its expected
    solutions, and its printed solutions are written to OUTDIR/testNNNt.txt.
    One line per test, then a summary. Exit code 0 only when every test is
    correct, 1 otherwise, 2 for bad usage.
    """
    if solver is not None and engine == "python":
        raise InputError("--solver needs --engine prolog or both")
    _check_solver(solver)
    try:
        cases = suite_cases(folder, only)
    except SuiteError as e:
        raise InputError(str(e)) from None
    settings = RunSettings(
        engine,
        Rules(rules),
        solver,
        dialect,  # type: ignore[arg-type]
        time_limit,
        jobs,
        out_dir,
    )
    console = stdout_console() if fmt == "table" else stderr_console()
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
        (stdout_console() if fmt == "table" else stderr_console()).print(
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
    elif fmt == "table" and (not quiet() or result.verdict is not Verdict.CORRECT):
        k = f"K={result.k}" if result.k else "K=?"
        style = _VERDICT_STYLE[result.verdict]
        console.print(
            f"{result.case.name:<10} {k:<5} {result.solution_count:>5} sol "
            f"{result.cpu_seconds:>8.2f} s  [{style}]{result.verdict.value:<11}[/] "
            f"{escape(result.summary())}"
        )


@sudoku.command()
@click.argument("submissions", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--suite",
    type=click.Path(path_type=Path, file_okay=False),
    help="The tests to grade with (testNNNd.txt + testNNNs.txt). "
    "Default: the bundled puzzles/sudoku/consecutive.",
)
@rules_option
@click.option(
    "--points",
    "points_file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE.toml",
    help="Points per test (default: 1 per correct test); may name the subset that counts.",
)
@time_limit_option_with("CPU seconds per test, counted over all of the submission's processes.")
@click.option(
    "--wall-limit",
    type=click.FloatRange(min=0.001),
    metavar="SEC",
    help="Wall-clock backstop per test, for solvers that wait. Default: 2 x time limit + 10.",
)
@click.option(
    "--memory-limit",
    type=click.IntRange(min=64),
    default=DEFAULTS.memory_mb,
    show_default=True,
    metavar="MB",
    help="Memory of each submission's sandbox, all its processes together.",
)
@jobs_option("tests run at once (over all submissions) in the local pool")
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    help="Run the tests on the Dask cluster of this scheduler instead of the local pool "
    "(needs the dask extra; see `plpuzzle cluster --help`). Submissions and tests are "
    "shipped to the workers as content; grades and the gradebook stay here.",
)
@click.option(
    "--out",
    "report_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("grading_report"),
    show_default=True,
    help="Where grades.csv, grades.json and grades.html go.",
)
@click.option(
    "--report",
    "old_report_dir",
    type=click.Path(path_type=Path, file_okay=False),
    hidden=True,
    help="The old name of --out.",
)
@click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The SQLite gradebook that makes grading resumable. Default: OUT/grades.sqlite.",
)
@click.option(
    "--dialect",
    type=choice(DIALECTS),
    default=DEFAULT_DIALECT,
    show_default=True,
    help="Submissions are SICStus 4 code, loaded in SWI-Prolog's emulation; or plain SWI.",
)
@click.option(
    "--student",
    "students",
    multiple=True,
    metavar="ID",
    help="Regrade only this student (repeatable): their stored grades are dropped and "
    "graded again; the others' come from the gradebook. The reports cover the whole class.",
)
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="The students expected to hand in, one id a line (# comments): those with no "
    "submission are reported as missing, with 0 points.",
)
@click.option(
    "--feedback/--no-feedback",
    default=True,
    show_default=True,
    help="Write a feedback file per student (OUT/feedback/ID.md and ID.html).",
)
@click.option(
    "--shrink-seconds",
    type=click.FloatRange(min=0),
    default=ShrinkPolicy().seconds_per_student,
    show_default=True,
    metavar="S",
    help="Wall-clock seconds per student to find the smallest puzzle their solver "
    "gets wrong, for the feedback (0: do not search).",
)
@format_option(("text", "json"), "text: a table per student; json: the grades.json report.")
@click.pass_context
def grade(
    ctx: click.Context,
    submissions: Path,
    suite: Path | None,
    rules: str,
    points_file: Path | None,
    time_limit: float,
    wall_limit: float | None,
    memory_limit: int,
    jobs: int,
    scheduler: str | None,
    report_dir: Path,
    old_report_dir: Path | None,
    db: Path | None,
    dialect: str,
    students: tuple[str, ...],
    roster: Path | None,
    feedback: bool,
    shrink_seconds: float,
    fmt: str,
) -> None:
    """Grade a class: every student's sudoku.pl on every test, sandboxed.

    Every entry of SUBMISSIONS is one student, named by it: a folder with
    a sudoku.pl, or an ID.pl file; only regular files are taken, never
    links. An entry without sudoku.pl is graded 0, with a note naming the
    .pl files it holds, and the others are graded. The suite is checked
    first (its files, the points, the rules); a suite.toml in it may
    declare rules, time_limit, memory_limit and [points], and options
    given here win. Each submission is loaded once in a sandbox
    (bubblewrap, an unprivileged uid, no network, nothing of the machine
    but /usr) and every test runs in a fresh process forked from it.
    Grades are decided outside the sandbox: answers against the expected
    solutions, CPU time and memory of all the submission's processes, and
    how each run ended. Results are kept in an SQLite gradebook: running
    again skips what is already graded for the same submission, test and
    settings, and graders sharing a gradebook never run the same test twice.
    On Ctrl-C what was graded stays in the gradebook for the next run.
    With --scheduler the runs go to a Dask cluster's workers, each checked
    first: a worker that cannot sandbox is refused, by name.
    """
    if old_report_dir is not None:
        warn("--report is deprecated: use --out")
        report_dir = old_report_dir
    settings = GradeSettings(Rules(rules), dialect, time_limit, memory_limit, wall_limit)  # type: ignore[arg-type]
    given = frozenset(
        field
        for field, option in (
            ("rules", "rules"),
            ("time_limit", "time_limit"),
            ("memory_mb", "memory_limit"),
        )
        if ctx.get_parameter_source(option) is not click.core.ParameterSource.DEFAULT
    )
    request = GradingRequest(
        submissions,
        suite or bundled_suite(),
        settings,
        report_dir,
        db,
        points_file,
        jobs,
        given=given,
        students=students,
        roster=roster,
        feedback=feedback,
        shrink_seconds=shrink_seconds,
        scheduler=scheduler,
    )
    console = stdout_console() if fmt == "text" else stderr_console()
    with _grading_progress() as on_start:
        try:
            outcome = grader.grade(request, on_start, note)
        except (GradingError, GradebookError) as e:
            raise InputError(str(e)) from None
        except grader.SetupProblem as e:
            raise SetupError(str(e)) from None
        except grader.GradingInterrupted as stopped:
            _print_interrupted(stopped)
            raise Interrupted() from None
    for warning in outcome.warnings:
        warn(warning)
    if fmt == "json":
        write_json(
            {
                **outcome.report,
                "graded_now": outcome.new,
                "reused": outcome.reused,
                "outputs": [str(p) for p in outcome.paths],
            }
        )
    else:
        _print_class_summary(console, outcome)


#: Plain progress lines (stderr not a terminal): at least this far apart...
PROGRESS_SECONDS = 10.0
#: ...or at every this many percent done, whichever comes first.
PROGRESS_PERCENT = 10


@contextlib.contextmanager
def _grading_progress() -> Iterator[Callable[[int], Callable[[], None]]]:
    """Progress of a grading run on stderr: rich's bar on a terminal, and
    otherwise a plain line now and then (a log, a CI job), so a long run
    never looks stuck. Nothing with -q."""
    err = stderr_console()
    if err.is_terminal:
        with progress_bar(err) as bar:

            def on_bar(total: int) -> Callable[[], None]:
                task = bar.add_task("grading", total=total)
                return lambda: bar.advance(task)

            yield on_bar
        return
    start = time.monotonic()

    def on_start(total: int) -> Callable[[], None]:
        state = {"done": 0, "shown_at": time.monotonic(), "step": 0}

        def tick() -> None:
            state["done"] += 1
            done, now = state["done"], time.monotonic()
            step = done * 100 // (total * PROGRESS_PERCENT) if total else 0
            if done == total or step > state["step"] or now - state["shown_at"] >= PROGRESS_SECONDS:
                state["step"], state["shown_at"] = step, now
                note(f"graded {done}/{total} ({done * 100 // total}%), {now - start:.0f} s")

        return tick

    yield on_start


def _print_interrupted(stopped: grader.GradingInterrupted) -> None:
    """What an interrupted run did; all of it is kept for the next run."""
    done = stopped.new + stopped.reused
    tally = ", ".join(f"{n} {g}" for g, n in sorted(stopped.counts.items()))
    click.echo(
        f"plpuzzle: interrupted after {done} of {stopped.total} test run(s) "
        f"({stopped.new} graded now, {stopped.reused} from the gradebook"
        + (f"; {tally}" if tally else "")
        + f"). They are kept in {stopped.db}: run the same command again to go on.",
        err=True,
    )


#: Column heads of the class table, short enough for 80 columns with every grade.
SHORT_GRADES = {
    "memory limit": "memory",
    "crashed": "crash",
    "not loadable": "no load",
    "load error": "load",
    "no submission": "none",
}


def _print_class_summary(console: Console, outcome: grader.GradingOutcome) -> None:
    """One screen: a row per student, then where the reports are."""
    table = Table(
        title="Grades",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("student", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    report = outcome.report
    # Only the grades someone got (and always correct and wrong): the table
    # must fit a terminal, and an all-dash column says nothing.
    shown = [
        g
        for g in report["grades"]
        if g in ("correct", "wrong") or any(s["counts"][g] for s in report["students"])
    ]
    for g in shown:
        table.add_column(SHORT_GRADES.get(g, g), justify="right", no_wrap=True)
    for s in report["students"]:
        counts = [str(s["counts"][g]) if s["counts"][g] else "-" for g in shown]
        table.add_row(escape(s["id"]), f"{s['score']}/{s['max_score']}", *counts)
    if not quiet():
        console.print(table)
    if report["not_emulated"]:
        stderr_console().print(
            "[yellow]plpuzzle: warning:[/] runs stopped on SICStus library predicates that "
            f"plpuzzle does not emulate: {escape(', '.join(report['not_emulated']))}. That is "
            "plpuzzle's gap, not the students': please report it."
        )
    twins = {" = ".join(sorted([s["id"], *s["identical_to"]])) for s in report["students"]
             if s.get("identical_to")}  # fmt: skip
    for group in sorted(twins):
        console.print(f"Identical hand-ins (each test run once): {group}", markup=False)
    if outcome.not_graded:
        console.print("Graded 0, nothing ran:", markup=False)
        for student, why in outcome.not_graded:
            console.print(f"  {student}: {printable(why)}", markup=False, highlight=False)
    if outcome.missing:
        console.print(
            f"Missing (on the roster, no submission): {', '.join(outcome.missing)}.",
            markup=False,
        )
    console.print(
        f"{outcome.new} test run(s) graded now, {outcome.reused} taken from the gradebook "
        f"{outcome.db}.\nReports: {', '.join(str(p) for p in outcome.paths)}",
        markup=False,
    )
