"""Run a whole suite: every test in a killable worker, up to N in parallel.

This is the course harness's full-test run (`teljes_teszt`): solve each
puzzle under a time limit, judge it against its expected solutions, and
write the printed solutions to OUTDIR/testNNNt.txt. Each parallel slot
owns its engines (one worker process each); a worker that timed out or
failed is replaced before the slot's next test, so nothing a test did can
leak into the next one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.runtime import Dialect
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import FormatError, format_solutions
from plpuzzle.sudoku.engines import Engine, make_engine
from plpuzzle.sudoku.runs.suite import CaseResult, SuiteCase, bad_input, judge, load_case

#: The engines a suite can be run with; the first one named is judged.
SUITE_ENGINES = ("prolog", "python")


@dataclass(frozen=True)
class RunSettings:
    """How to run a suite."""

    #: The first is judged; any other cross-checks it on every test.
    engines: tuple[str, ...] = ("prolog",)
    rules: Rules = Rules.CONSECUTIVE
    solver: Path | None = None
    dialect: Dialect = "swi"
    time_limit: float = DEFAULTS.time_limit
    jobs: int = 1
    out_dir: Path | None = None


class SuiteRunner:
    """Runs suite cases in parallel slots and reports each result."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self._local = threading.local()
        self._all: list[Engine] = []
        self._lock = threading.Lock()

    def new_engine(self, name: str) -> Engine:
        """One of a slot's engines, by name: a subclass may make engines
        that are not in the registry (the lab's benchmark peers)."""
        return make_engine(name, self.settings.solver, self.settings.dialect)

    def slot_engines(self) -> list[Engine]:
        """This slot's engines, made on first use."""
        engines = getattr(self._local, "engines", None)
        if engines is None:
            engines = [self.new_engine(name) for name in self.settings.engines]
            self._local.engines = engines
            with self._lock:
                self._all.extend(engines)
        return engines

    def run_case(self, case: SuiteCase) -> CaseResult:
        """Solve, judge and write the output of one test."""
        try:
            puzzle, expected = load_case(case)
        except FormatError as e:
            self._remove_output(case)
            return bad_input(case, e)
        s = self.settings
        results = []
        for engine in self.slot_engines():
            result = engine.solve(puzzle, s.rules, s.time_limit)
            if result.status is not Status.OK:
                engine.close()  # the next test gets a fresh worker
            results.append(result)
        verdict = judge(case, puzzle, expected, results, s.rules)
        primary = results[0]
        if primary.status is Status.OK and s.out_dir is not None:
            # Printed as the harness would: every well-formed answer, sorted.
            text = format_solutions(primary.solutions, puzzle.k)
            (s.out_dir / case.output_name).write_text(text)
        else:
            self._remove_output(case)
        return verdict

    def _remove_output(self, case: SuiteCase) -> None:
        """A test with no printable result leaves no stale output behind."""
        if self.settings.out_dir is not None:
            (self.settings.out_dir / case.output_name).unlink(missing_ok=True)

    def run(
        self, cases: Iterable[SuiteCase], on_result: Callable[[CaseResult], None] | None = None
    ) -> list[CaseResult]:
        """Run every case; `on_result` sees each result as it completes.

        Results come back in the order of `cases`. An interrupt (Ctrl-C)
        kills every worker before it propagates.
        """
        cases = list(cases)
        if self.settings.out_dir is not None:
            self.settings.out_dir.mkdir(parents=True, exist_ok=True)
        done: dict[SuiteCase, CaseResult] = {}
        pool = ThreadPoolExecutor(max_workers=max(1, self.settings.jobs))
        try:
            futures = {pool.submit(self.run_case, case): case for case in cases}
            for future in as_completed(futures):
                result = future.result()
                done[futures[future]] = result
                if on_result:
                    on_result(result)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            self.close()
            raise
        finally:
            pool.shutdown(wait=True)
            self.close()
        return [done[c] for c in cases]

    def close(self) -> None:
        """Kill every worker this runner started."""
        with self._lock:
            engines = list(self._all)
        for engine in engines:
            engine.close()
