"""`plpuzzle sudoku ...`: solve puzzles and cross-check the engines."""

from __future__ import annotations

import os
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from plpuzzle.clitools import (
    InputError,
    SetupError,
    jobs_option,
    progress_bar,
    stderr_console,
    stdout_console,
    time_limit_option,
    write_stdout,
)
from plpuzzle.engine import DEFAULT_DIALECT, DIALECTS, prolog_dir, status_label
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
    puzzle_to_text,
    solutions_to_text,
)
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.engines import ENGINES, make_engine
from plpuzzle.sudoku.presentation.report import (
    FORMATS,
    SuiteRun,
    ksudoku_line,
    summary_lines,
    to_json,
    to_junit,
)
from plpuzzle.sudoku.services import generator, grader
from plpuzzle.sudoku.services.crosscheck import CrossCheck, compare
from plpuzzle.sudoku.services.gradebook import GradebookError
from plpuzzle.sudoku.services.grader import GradingRequest
from plpuzzle.sudoku.services.grading import GradeSettings, GradingError
from plpuzzle.sudoku.services.runner import ENGINE_CHOICES, RunSettings, SuiteRunner
from plpuzzle.sudoku.services.suite import CaseResult, SuiteCase, Verdict, discover

rules_option = click.option(
    "--rules",
    type=click.Choice([r.value for r in Rules]),
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
    type=click.Choice(DIALECTS),
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
    try:
        return load_puzzle(path)
    except FormatError as e:
        raise InputError(str(e)) from None


def _check_solver(solver: Path | None) -> None:
    if solver is not None and not solver.is_file():
        raise InputError(f"{solver}: no such solver file")


@sudoku.command()
@click.argument("puzzle", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="prolog",
    show_default=True,
    help="prolog: a clpfd sudoku.pl through pyswip; python: the pure-Python reference.",
)
@rules_option
@solver_option
@dialect_option
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    help="Write the solutions to this file instead of stdout.",
)
@time_limit_option
@click.option(
    "--stats",
    is_flag=True,
    help="Also print the course harness's line with the solution count and CPU time "
    "(on stderr, so the solutions stay byte-exact).",
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
) -> None:
    """Print every solution of PUZZLE, as the course harness prints them.

    The output is byte-for-byte what the course's Prolog harness writes:
    solutions in sorted order, each after a '-----' line. Exit code 0 when
    the engine finished cleanly, 1 when it timed out, failed, or gave
    malformed or duplicate answers, 2 for bad input.
    """
    if solver is not None and engine != "prolog":
        raise InputError("--solver needs --engine prolog")
    _check_solver(solver)
    board = _load_puzzle(puzzle)
    runner = make_engine(engine, solver, dialect, show_stderr=True)  # type: ignore[arg-type]
    try:
        result = runner.solve(board, Rules(rules), time_limit)
    finally:
        runner.close()
    err = stderr_console()
    if result.status is not Status.OK:
        err.print(f"plpuzzle: {_status_text(result, time_limit)}", markup=False)
        sys.exit(1)
    text = format_solutions(result.solutions, board.k)
    if out is None:
        write_stdout(text)
    else:
        try:
            out.write_text(text)
        except OSError as e:
            raise InputError(f"{out}: cannot write: {e.strerror}") from None
    if stats:
        err.print(
            harness_line(str(puzzle), len(result.solutions), result.cpu_seconds), markup=False
        )
    problems = _answer_problems(result)
    for line in problems:
        err.print(f"plpuzzle: warning: {line}", markup=False)
    if problems:
        sys.exit(1)


def _status_text(result: SolveResult, time_limit: float) -> str:
    """One line (plus evidence) on why an engine run did not finish."""
    name = f"the {result.engine} engine"
    if result.status is Status.TIMEOUT:
        return f"{name} did not finish within the time limit ({time_limit:g} s)"
    return f"{name} {status_label(result.status)}:\n{result.message}".rstrip()


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
@click.argument("puzzles", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
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
@time_limit_option
def check(
    puzzles: tuple[Path, ...],
    rules: str,
    solver: Path | None,
    dialect: str,
    expected: Path | None,
    time_limit: float,
) -> None:
    """Solve PUZZLES with both engines and compare their solution sets.

    The Prolog engine (ours, or --solver) and the pure-Python reference must
    find the same solutions, each exactly once. Where they differ, the
    independent validator says which solutions really are valid. Exit code
    0 when everything agrees, 1 when not, 2 for bad input.
    """
    if expected is not None and len(puzzles) > 1:
        raise InputError("--expected goes with a single puzzle")
    _check_solver(solver)
    boards = [_load_puzzle(p) for p in puzzles]
    expectations = [
        _load_expected(expected or _expected_beside(p), b)
        for p, b in zip(puzzles, boards, strict=True)
    ]
    engines = [make_engine("prolog", solver, dialect), make_engine("python")]  # type: ignore[arg-type]
    console = stdout_console()
    folders = {p.parent for p in puzzles}
    where = f" in {folders.pop()}" if len(folders) == 1 else ""
    names = [p.name if where else str(p) for p in puzzles]
    table = Table(
        title=f"Cross-check{where} ({rules} rules)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("puzzle", min_width=max(map(len, names)), no_wrap=True)
    for heading in ("K", "solutions", "prolog", "python", "expected", "verdict"):
        table.add_column(heading, no_wrap=True)
    failures: list[tuple[Path, CrossCheck]] = []
    try:
        for path, name, board, exp in zip(puzzles, names, boards, expectations, strict=True):
            results = [e.solve(board, Rules(rules), time_limit) for e in engines]
            if exp is not None:
                results.append(SolveResult("expected", Status.OK, exp))
            outcome = compare(board, Rules(rules), results)
            if not outcome.agree:
                failures.append((path, outcome))
            cells = [_cell(f.result) for f in outcome.findings]
            table.add_row(
                name,
                str(board.k),
                str(outcome.count),
                cells[0],
                cells[1],
                cells[2] if exp is not None else "-",
                "[green]agree[/]" if outcome.agree else "[red]DISAGREE[/]",
            )
    finally:
        for e in engines:
            e.close()
    console.print(table)
    for path, outcome in failures:
        _print_disagreement(console, path, outcome)
    agreed = len(puzzles) - len(failures)
    also = " and match the expected solutions" if any(e is not None for e in expectations) else ""
    console.print(f"{agreed} of {len(puzzles)} puzzles: the engines agree{also}.")
    sys.exit(1 if failures else 0)


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
        console.print(f"\n  {verdict} solution, given by {' and '.join(holders)}:", markup=False)
        board = format_board(grid, outcome.puzzle.k).strip("\n")
        console.print("  " + board.replace("\n", "\n  "), markup=False)
        for v in violations[:10]:
            console.print(f"    - {v.message}", markup=False)
        if len(violations) > 10:
            console.print(f"    - and {len(violations) - 10} more", markup=False)


_SOLUTION_RANGE = re.compile(r"\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?")
_NUMBERED = re.compile(r"test(\d+)[ds]\.txt")


def _solution_range(text: str) -> tuple[int, int]:
    """`MIN..MAX` (or a single N) as a pair of counts."""
    match = _SOLUTION_RANGE.fullmatch(text)
    if not match:
        raise InputError(f"--solutions {text!r}: expected MIN..MAX, e.g. 1..1 or 100..250")
    least = int(match.group(1))
    most = int(match.group(2) or least)
    if least > most:
        raise InputError(f"--solutions {text!r}: MIN is greater than MAX")
    return least, most


def _next_number(folder: Path) -> int:
    """One after the highest testNNN in `folder`, or 1."""
    if not folder.is_dir():
        return 1
    numbers = [int(m.group(1)) for p in folder.iterdir() if (m := _NUMBERED.fullmatch(p.name))]
    return max(numbers, default=0) + 1


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
    type=click.Choice([k.value for k in generator.Kind]),
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
    "Default: by K and kind (0 up to K=3).",
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
def generate_puzzles(
    k: int,
    rules: str,
    count: int,
    solution_range: str,
    seed: int | None,
    kind: str,
    keep: float | None,
    out_dir: Path,
    start: int | None,
    force: bool,
    time_limit: float,
) -> None:
    """Make test puzzles with a given number of solutions, checked by both engines.

    Each puzzle comes from a random valid grid: the infos true for it are
    taken away in a random order while the solution count stays at most
    MAX. It is written to OUT/testNNNd.txt; its solutions go to
    testNNNs.txt only when the Prolog and the Python engine find the same
    solution set and the validator accepts every solution. Exit code 0 when
    every puzzle was confirmed, 1 when not, 2 for bad options.
    """
    least, most = _solution_range(solution_range)
    if not generator.MIN_K <= k <= generator.MAX_K:
        raise InputError(f"--k {k}: the generator makes puzzles for K in 1..{generator.MAX_K}")
    try:
        generator.check_request(k, least, most)
    except generator.GenerationError as e:
        raise InputError(str(e)) from None
    if start is None:
        start = _next_number(out_dir)
    names = [f"test{n:03d}" for n in range(start, start + count)]
    if not force:
        for name in names:
            for suffix in ("d", "s"):
                path = out_dir / f"{name}{suffix}.txt"
                if path.exists():
                    raise InputError(f"{path} exists; use --force to overwrite, or --start")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{out_dir}: cannot create the folder: {e.strerror}") from None
    console = stdout_console()
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
        console.print(f"seed {seed} (pass --seed {seed} to repeat this run)", markup=False)
    rng = random.Random(seed)
    the_rules, the_kind = Rules(rules), generator.Kind(kind)
    engines = [make_engine("prolog"), make_engine("python")]
    failures = 0
    try:
        with progress_bar(console) as progress:
            task = progress.add_task("generating", total=count)
            for name in names:
                progress.update(task, description=f"generating {name}")
                try:
                    made = generator.generate(k, the_rules, rng, (least, most), the_kind, keep=keep)
                except generator.GenerationError as e:
                    raise InputError(str(e)) from None
                puzzle_path = out_dir / f"{name}d.txt"
                solutions_path = out_dir / f"{name}s.txt"
                _write(puzzle_path, puzzle_to_text(made.puzzle))
                progress.update(task, description=f"checking {name}")
                results = [e.solve(made.puzzle, the_rules, time_limit) for e in engines]
                outcome = compare(made.puzzle, the_rules, results)
                problem = _generated_problem(made, outcome, results, time_limit)
                if problem is None:
                    _write(solutions_path, solutions_to_text(results[0].solutions))
                else:
                    solutions_path.unlink(missing_ok=True)  # never leave a stale one
                    failures += 1
                times = ", ".join(f"{r.engine} {r.cpu_seconds:.2f}s" for r in results)
                verdict = "[green]confirmed[/]" if problem is None else "[red]NOT CONFIRMED[/]"
                console.print(
                    f"{escape(str(puzzle_path))}  K={k}  {made.solutions:>4} solution(s)  "
                    f"{made.info_count:>4} infos  ({times})  {verdict}"
                )
                if problem is not None:
                    console.print(f"  {problem}; {solutions_path.name} not written", markup=False)
                    if all(r.status is Status.OK for r in results) and not outcome.agree:
                        _print_disagreement(console, puzzle_path, outcome)
                progress.advance(task)
    finally:
        for each in engines:
            each.close()
    done = count - failures
    console.print(f"{done} of {count} puzzles confirmed by both engines (seed {seed}).")
    sys.exit(1 if failures else 0)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as e:
        raise InputError(f"{path}: cannot write: {e.strerror}") from None


def _generated_problem(
    made: generator.Generated,
    outcome: CrossCheck,
    results: list[SolveResult],
    time_limit: float,
) -> str | None:
    """Why a generated puzzle's solutions cannot be trusted, or None."""
    for r in results:
        if r.status is not Status.OK:
            return _status_text(r, time_limit).split("\n")[0]
    if not outcome.agree:
        return "the engines disagree"
    found = len(results[0].distinct)
    if found != made.solutions:
        return f"the engines find {found} solution(s), the generator counted {made.solutions}"
    if made.solutions and validate(made.puzzle, made.grid, outcome.rules):
        return "the grid the puzzle was made from breaks it"
    return None


@sudoku.command(name="test")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--engine",
    type=click.Choice(ENGINE_CHOICES),
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
    type=click.Choice(FORMATS),
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
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    try:
        cases = discover(folder, only)
    except OSError as e:
        raise InputError(f"{folder}: cannot list: {e.strerror}") from None
    if not cases:
        what = f" matching {only!r}" if only else ""
        raise InputError(f"{folder}: no testNNNd.txt puzzles{what}")
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
    elif fmt == "table":
        k = f"K={result.k}" if result.k else "K=?"
        style = _VERDICT_STYLE[result.verdict]
        console.print(
            f"{result.case.name:<10} {k:<5} {result.solution_count:>5} sol "
            f"{result.cpu_seconds:>8.2f} s  [{style}]{result.verdict.value:<11}[/] "
            f"{escape(result.summary())}"
        )


def _bundled_suite() -> Path:
    return prolog_dir().parent / "puzzles" / "sudoku" / "consecutive"


@sudoku.command()
@click.option(
    "--suite",
    type=click.Path(path_type=Path, file_okay=False),
    help="The course's official suite. Default: ../shared/bme-2013-oddsum/tests "
    "($PLPUZZLE_SHARED/bme-2013-oddsum/tests when that is set).",
)
@click.option(
    "--rules",
    type=click.Choice([r.value for r in Rules]),
    default=Rules.ODDSUM.value,
    show_default=True,
    help="The rules of --suite (the official suite's are oddsum).",
)
@click.option(
    "--consecutive",
    type=click.Path(path_type=Path, file_okay=False),
    help="A second suite, under the consecutive rules. "
    "Default: the bundled puzzles/sudoku/consecutive.",
)
@click.option(
    "--engines",
    default="prolog,python",
    show_default=True,
    metavar="LIST",
    help="Which of our engines to time, comma-separated.",
)
@jobs_option("tests run at once, each in its own worker process")
@time_limit_option
@click.option(
    "--only",
    metavar="PATTERN",
    help="Run only the tests whose name matches, in both suites, e.g. 'test0[0-4]?' or '017'.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("bench"),
    show_default=True,
    help="Where results.csv, REPORT.md and times-by-k.png go.",
)
@click.option(
    "--reference",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The course's reference times. Default: reference-times.csv beside the suite folder.",
)
@click.option(
    "--overhead/--no-overhead",
    default=True,
    show_default=True,
    help="Also time the same findall in a plain swipl process and through pyswip.",
)
def bench(
    suite: Path | None,
    rules: str,
    consecutive: Path | None,
    engines: str,
    jobs: int,
    time_limit: float,
    only: str | None,
    out_dir: Path,
    reference: Path | None,
    overhead: bool,
) -> None:
    """Time both engines beside the course's reference solvers.

    Every test of the official suite and of the consecutive set is solved by each
    engine in worker processes, --jobs at once, and judged as `test` judges
    it. Writes OUT/results.csv (a row per suite, test and engine),
    OUT/times-by-k.png and OUT/REPORT.md (machine, settings, times beside
    the course's, the slowest tests, and the cost of the pyswip interface).
    Exit code 0 when no engine gave a wrong answer or failed (timeouts are
    results), 1 otherwise, 2 for bad usage, 3 without matplotlib.
    """
    from plpuzzle.sudoku.services import bench as bm

    suite = suite or bm.default_suite()
    if not suite.is_dir():
        raise InputError(
            f"{suite}: no such suite folder (the course's official suite; --suite DIR)"
        )
    consecutive = consecutive or _bundled_suite()
    if not consecutive.is_dir():
        raise InputError(f"{consecutive}: no such suite folder (--consecutive DIR)")
    if reference is not None and not reference.is_file():
        raise InputError(f"{reference}: no such file")
    names = list(dict.fromkeys(e.strip() for e in engines.split(",") if e.strip()))
    unknown = [e for e in names if e not in ENGINES]
    if unknown or not names:
        raise InputError(f"--engines: choose from {', '.join(ENGINES)}, got {engines!r}")
    settings = bm.BenchSettings(
        suites=(
            bm.SuiteSpec("official", suite, Rules(rules)),
            bm.SuiteSpec("consecutive", consecutive, Rules.CONSECUTIVE),
        ),
        engines=tuple(names),
        jobs=jobs,
        time_limit=time_limit,
        only=only,
        out_dir=out_dir,
        reference=reference or suite.parent / "reference-times.csv",
        overhead=overhead,
    )
    try:
        references = bm.load_reference(settings.reference)
    except ValueError as e:
        raise InputError(str(e)) from None
    cases = bm.select_cases(settings)
    if not any(cases.values()):
        what = f" matching {only!r}" if only else ""
        raise InputError(f"{suite}, {consecutive}: no testNNNd.txt puzzles{what}")
    console = stdout_console()
    with progress_bar(console) as progress:

        def on_start(description: str, total: int) -> Callable[[CaseResult], None]:
            task = progress.add_task(description, total=total)
            return lambda _result: progress.advance(task)

        run = bm.run_bench(settings, cases, references, on_start)
    console.print("\n".join(bm.summary_lines(run)), markup=False)
    paths = bm.write_outputs(run)
    console.print("Wrote " + ", ".join(str(p) for p in paths), markup=False)
    sys.exit(1 if run.failed else 0)


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
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0.001),
    default=60.0,
    show_default=True,
    metavar="SEC",
    help="CPU seconds per test, counted over all of the submission's processes.",
)
@click.option(
    "--wall-limit",
    type=click.FloatRange(min=0.001),
    metavar="SEC",
    help="Wall-clock backstop per test, for solvers that wait. Default: 2 x time limit + 10.",
)
@click.option(
    "--memory-limit",
    type=click.IntRange(min=64),
    default=2048,
    show_default=True,
    metavar="MB",
    help="Memory of each submission's sandbox, all its processes together.",
)
@jobs_option("tests run at once (over all submissions)")
@click.option(
    "--report",
    "report_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("grading_report"),
    show_default=True,
    help="Where grades.csv, grades.json and grades.html go.",
)
@click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The SQLite gradebook that makes grading resumable. Default: REPORT/grades.sqlite.",
)
@click.option(
    "--dialect",
    type=click.Choice(DIALECTS),
    default=DEFAULT_DIALECT,
    show_default=True,
    help="Submissions are SICStus 4 code, loaded in SWI-Prolog's emulation; or plain SWI.",
)
def grade(
    submissions: Path,
    suite: Path | None,
    rules: str,
    points_file: Path | None,
    time_limit: float,
    wall_limit: float | None,
    memory_limit: int,
    jobs: int,
    report_dir: Path,
    db: Path | None,
    dialect: str,
) -> None:
    """Grade a class: every student's sudoku.pl on every test, sandboxed.

    SUBMISSIONS holds one folder per student (named by the student's id)
    with a sudoku.pl, or one ID.pl file per student; only regular files
    are taken, never links. Each submission is loaded once in a sandbox
    (bubblewrap, an unprivileged uid, no network, nothing of the machine
    but /usr) and every test runs in a fresh process forked from it.
    Grades are decided outside the sandbox: answers against the expected
    solutions, CPU time and memory of all the submission's processes, and
    how each run ended. Results are kept in an SQLite gradebook: running
    again skips what is already graded for the same submission, test and
    settings, and graders sharing a gradebook never run the same test twice.
    """
    settings = GradeSettings(Rules(rules), dialect, time_limit, memory_limit, wall_limit)  # type: ignore[arg-type]
    request = GradingRequest(
        submissions, suite or _bundled_suite(), settings, report_dir, db, points_file, jobs
    )
    console = stdout_console()
    err = stderr_console()
    with progress_bar(console) as progress:

        def on_start(total: int) -> Callable[[], None]:
            task = progress.add_task("grading", total=total)
            return lambda: progress.advance(task)

        try:
            outcome = grader.grade(request, on_start)
        except (GradingError, GradebookError) as e:
            raise InputError(str(e)) from None
        except grader.SetupProblem as e:
            raise SetupError(str(e)) from None
    for warning in outcome.warnings:
        err.print(f"[yellow]plpuzzle: warning:[/] {escape(warning)}")
    _print_class_summary(console, outcome)


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
    short = {"memory limit": "memory", "load error": "no load"}
    report = outcome.report
    for g in report["grades"]:
        table.add_column(short.get(g, g), justify="right", no_wrap=True)
    for s in report["students"]:
        counts = [str(s["counts"][g]) if s["counts"][g] else "-" for g in report["grades"]]
        table.add_row(escape(s["id"]), f"{s['score']}/{s['max_score']}", *counts)
    console.print(table)
    if report["not_emulated"]:
        stderr_console().print(
            "[yellow]plpuzzle: warning:[/] runs stopped on SICStus library predicates that "
            f"plpuzzle does not emulate: {escape(', '.join(report['not_emulated']))}. That is "
            "plpuzzle's gap, not the students': please report it."
        )
    console.print(
        f"{outcome.new} test run(s) graded now, {outcome.reused} taken from the gradebook "
        f"{outcome.db}.\nReports: {', '.join(str(p) for p in outcome.paths)}",
        markup=False,
    )
