"""pytest plugin: `pytest --sudoku-suite DIR` runs a course test suite as pytest items.

Each `testNNNd.txt` in DIR becomes one test named after the puzzle
(`test017`), so pytest's own selection and reporting (`-k`, `-x`, `--lf`,
`--junitxml`) work on a course suite. The verdict comes from
`plpuzzle.sudoku.runs.suite.judge`, the same one the CLI runner uses.

The plugin is inert without `--sudoku-suite`; it is registered as a
`pytest11` entry point, so it is loaded in every pytest run of this venv.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from plpuzzle.runtime import DEFAULT_DIALECT, DIALECTS, Dialect, EngineUnavailable
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.textformat import FormatError
from plpuzzle.sudoku.engines import ENGINES, Engine, make_engine
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine
from plpuzzle.sudoku.presentation.case_report import case_report
from plpuzzle.sudoku.presentation.setup_lines import load_failure, run_line
from plpuzzle.sudoku.runs.run_setup import (
    RulesChoice,
    SetupProblem,
    SolverChoice,
    choose_rules,
    choose_solver,
    rules_problem,
)
from plpuzzle.sudoku.runs.suite import (
    CaseResult,
    SuiteCase,
    SuiteError,
    Verdict,
    bad_input,
    discover,
    judge,
    load_case,
)

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sudoku", "course sudoku suite (plpuzzle)")
    group.addoption(
        "--sudoku-suite",
        metavar="DIR",
        default=None,
        help="run every testNNNd.txt in DIR as a test, judged against its testNNNs.txt",
    )
    group.addoption(
        "--sudoku-solver",
        metavar="FILE.pl",
        default=None,
        help="the sudoku/2 solver to test (default: ./sudoku.pl when the folder pytest "
        "starts in has one, as the course's harness; else plpuzzle's own; 'bundled' "
        "names plpuzzle's own)",
    )
    group.addoption(
        "--sudoku-rules",
        choices=[r.value for r in Rules],
        default=None,
        help="what the s/w infos mean (default: what the suite's suite.toml declares, "
        "else consecutive; the official suite is oddsum)",
    )
    group.addoption(
        "--sudoku-time-limit",
        metavar="SEC",
        type=float,
        default=DEFAULTS.time_limit,
        help="time limit per puzzle in seconds (default: %(default)g)",
    )
    group.addoption(
        "--sudoku-engine",
        choices=list(ENGINES),
        default="prolog",
        help="which engine solves the puzzles (default: %(default)s)",
    )
    group.addoption(
        "--sudoku-dialect",
        choices=list(DIALECTS),
        default="sicstus4",
        help="load --sudoku-solver in SWI-Prolog's SICStus 4 emulation (the course's system) "
        "or as plain SWI-Prolog (default: %(default)s)",
    )


@dataclass
class SuiteSession:
    """The settings of one `--sudoku-suite` pytest session, and its engine
    (not report.SuiteRun, which is a finished suite run's results).

    The engine (one worker process) is started on the first puzzle, so that
    `--collect-only` never starts Prolog, and is shared by all puzzles.
    """

    suite: Path
    rules_choice: RulesChoice
    time_limit: float
    engine_name: str
    solver_choice: SolverChoice | None  # None: no Prolog engine runs
    _engine: Engine | None = field(default=None, repr=False)
    #: What stops the whole run before any test (checked once), or [].
    _setup_problems: list[str] | None = field(default=None, repr=False)

    @property
    def rules(self) -> Rules:
        return self.rules_choice.rules

    @property
    def solver(self) -> Path | None:
        return self.solver_choice.path if self.solver_choice else None

    @property
    def dialect(self) -> Dialect:
        return self.solver_choice.dialect if self.solver_choice else DEFAULT_DIALECT

    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = make_engine(self.engine_name, self.solver, self.dialect)
        return self._engine

    def close(self) -> None:
        """Stop the worker process, if one was started."""
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def is_suite(self, path: Path) -> bool:
        return path == self.suite or _same_file(path, self.suite)

    def describe(self) -> str:
        setup = run_line(self.solver_choice, self.rules_choice, [self.engine_name])
        return f"sudoku suite: {self.suite}; {setup}; time limit {self.time_limit:g} s"

    def setup_problems(self) -> list[str]:
        """Why no test can be right, checked once before the first: the
        expected solutions break the rules, or the solver does not load
        (each error at its place). [] when all is well."""
        if self._setup_problems is None:
            ask = lambda rules: f"--sudoku-rules {rules}"  # noqa: E731 - the plugin's option
            error, _ = rules_problem(discover(self.suite), self.rules_choice, ask)
            problems = [f"{error}; no test was run"] if error else []
            engine = self.engine()
            if not problems and self.solver_choice and isinstance(engine, PrologSudokuEngine):
                report = engine.check_load(self.time_limit)
                problems = load_failure(report, self.solver_choice, self.time_limit)
            self._setup_problems = problems
        return self._setup_problems


RUN_KEY = pytest.StashKey[SuiteSession]()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _settings(config: pytest.Config) -> SuiteSession | None:
    """Read and check the options; None when the plugin is not asked for."""
    suite_opt: str | None = config.getoption("sudoku_suite")
    solver_opt: str | None = config.getoption("sudoku_solver")
    if suite_opt is None:
        if solver_opt is not None:
            raise pytest.UsageError("--sudoku-solver needs --sudoku-suite DIR")
        return None
    here = config.invocation_params.dir
    suite = Path(os.path.abspath(here / suite_opt))
    if not suite.is_dir():
        what = "is not a directory" if suite.exists() else "does not exist"
        raise pytest.UsageError(f"--sudoku-suite: {suite_opt} {what}")
    engine_name: str = config.getoption("sudoku_engine")
    if solver_opt is not None and engine_name != "prolog":
        raise pytest.UsageError("--sudoku-solver needs --sudoku-engine prolog")
    time_limit: float = config.getoption("sudoku_time_limit")
    if not time_limit > 0:
        raise pytest.UsageError(f"--sudoku-time-limit must be positive, not {time_limit:g}")
    solver = None
    if engine_name == "prolog":
        try:
            solver = choose_solver(solver_opt, config.getoption("sudoku_dialect"), here)
        except SetupProblem as e:
            raise pytest.UsageError(f"--sudoku-solver: {e}") from None
    try:
        rules = choose_rules(config.getoption("sudoku_rules"), [suite])
    except (SetupProblem, SuiteError) as e:
        raise pytest.UsageError(f"--sudoku-suite: {e}") from None
    return SuiteSession(
        suite=suite,
        rules_choice=rules,
        time_limit=time_limit,
        engine_name=engine_name,
        solver_choice=solver,
    )


def _arg_path(config: pytest.Config, arg: str) -> Path:
    """The file-system path of a positional argument (`a/b.py::test_x` -> a/b.py)."""
    return Path(os.path.abspath(config.invocation_params.dir / arg.split("::")[0]))


def _related(a: Path, b: Path) -> bool:
    """Whether one path lies inside the other (or they are the same)."""
    return a == b or a in b.parents or b in a.parents


def pytest_configure(config: pytest.Config) -> None:
    run = _settings(config)
    if run is None:
        return
    config.stash[RUN_KEY] = run
    # The suite is rarely among pytest's arguments: with explicit paths it
    # joins them (unless they already cover it, or pick tests inside it);
    # otherwise (testpaths, the invocation dir) it replaces them, so that
    # `pytest --sudoku-suite DIR` runs just the suite.
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        if config.option.pyargs or not any(
            _related(_arg_path(config, a), run.suite) for a in config.args
        ):
            config.args.append(str(run.suite))
    else:
        config.args[:] = [str(run.suite)]


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(RUN_KEY, None)
    if run is not None:
        run.close()


def pytest_report_header(config: pytest.Config) -> str | None:
    run = config.stash.get(RUN_KEY, None)
    return run.describe() if run else None


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    run = parent.config.stash.get(RUN_KEY, None)
    if run is not None and run.is_suite(path):
        return SudokuSuite.from_parent(parent, path=path)
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A puzzle named on the command line when the suite lies outside the rootdir.

    pytest then asks for the file directly. Otherwise puzzles are reached
    through SudokuSuite, which does not call this hook, so that pytest's
    doctest plugin (which takes `test*.txt`) never sees the puzzle files.
    """
    run = parent.config.stash.get(RUN_KEY, None)
    if run is None or not run.is_suite(file_path.parent):
        return None
    for case in discover(file_path.parent):
        if case.puzzle_path.name == file_path.name:
            return SudokuFile.from_parent(parent, path=file_path, case=case)
    return None


class SudokuSetupError(Exception):
    """The run cannot give a right answer anywhere: one collection error."""


def _check_setup(collector: pytest.Collector) -> None:
    """Stop collecting, with the reasons at their places, when the solver
    does not load or the suite's solutions break the rules (not with
    --collect-only, which never starts Prolog)."""
    run = collector.config.stash[RUN_KEY]
    if collector.config.option.collectonly:
        return
    problems = run.setup_problems()
    if problems:
        raise SudokuSetupError("\n".join(problems))


def _setup_failure(excinfo: pytest.ExceptionInfo[BaseException]) -> str | None:
    if isinstance(excinfo.value, SudokuSetupError):
        return str(excinfo.value)
    return None


class SudokuSuite(pytest.Directory):
    """The suite folder: only its `test*d.txt` puzzles, in natural order (test9 < test10)."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        _check_setup(self)
        for case in discover(self.path):
            yield SudokuFile.from_parent(self, path=case.puzzle_path, case=case)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        return _setup_failure(excinfo) or super().repr_failure(excinfo)


class SudokuFile(pytest.File):
    """One puzzle file; its single item is named after the puzzle (`test017`)."""

    def __init__(self, *, case: SuiteCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        if not isinstance(self.parent, SudokuSuite):  # named alone on the command line
            _check_setup(self)
        yield SudokuItem.from_parent(self, name=self.case.name, case=self.case)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        return _setup_failure(excinfo) or super().repr_failure(excinfo)


class SudokuFailure(Exception):
    """A puzzle whose verdict is not `correct`; repr_failure reports it."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(f"{result.verdict}: {result.summary()}")
        self.result = result


class SudokuItem(pytest.Item):
    """Solve one puzzle and judge the answers against the expected solutions."""

    def __init__(self, *, case: SuiteCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        run = self.config.stash[RUN_KEY]
        try:
            puzzle, expected = load_case(self.case)
        except FormatError as e:
            result = bad_input(self.case, e)
        else:
            try:
                solved = run.engine().solve(puzzle, run.rules, run.time_limit)
            except EngineUnavailable:
                # Every other puzzle would fail the same way.
                self.session.shouldstop = "the sudoku engine is unavailable"
                raise
            result = judge(self.case, puzzle, expected, [solved], run.rules)
            self.user_properties += [
                ("solutions", result.solution_count),
                ("cpu_seconds", f"{result.cpu_seconds:.3f}"),
            ]
        self.user_properties.append(("verdict", str(result.verdict)))
        if result.verdict is not Verdict.CORRECT:
            raise SudokuFailure(result)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: TracebackStyle | None = None,
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, SudokuFailure):
            return failure_report(excinfo.value.result, self.config.stash[RUN_KEY])
        if isinstance(excinfo.value, EngineUnavailable):
            return f"engine unavailable: {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"sudoku {self.name}"


def failure_report(result: CaseResult, run: SuiteSession) -> str:
    """A short report whose first line is the verdict (pytest's `-ra` shows it)."""
    return case_report(result, engine=run.engine_name, rules=run.rules, time_limit=run.time_limit)
