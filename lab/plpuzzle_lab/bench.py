"""`make bench`: how fast our engines are, next to CP-SAT and the course's.

The course timed its own "relatively fast" reference solvers on its official
suite: a SICStus Prolog one and an Erlang one, 120 s per test, and published
the CPU seconds of each test (reference-times.csv beside the suite). To set
our engines beside them we run every test of that suite, and of the bundled
consecutive set, with each of our engines through the ordinary suite runner:
the same workers, time limit and judge as `plpuzzle sudoku test`, so a
benchmark cannot count an answer that the test command would call wrong.

CP-SAT (OR-tools, one worker) runs in the same run as the peer a user would
pick instead of our engines: every engine is measured beside it, test by
test, as ratios (engine / CP-SAT), and the targets (targets.toml beside
this module) are judged from those ratios. Stress suites (a folder with
oddsum/ and consecutive/ subfolders, bench/stress by default) add sparse
puzzles with hundreds of solutions and large K.

A test's time is the CPU seconds its engine reports for it, measured inside
the worker around the search (Prolog's statistics(cputime) around findall;
Python's process time around the solve), which is also what the course
harness printed. Wall seconds and the worker's peak memory are kept too.

The results go to OUT/results.csv (one row per suite, test and engine), a
plot OUT/times-by-k.png, and OUT/REPORT.md, which says on what machine and
with what settings the numbers were taken, since they mean little without.

A single timed run can move by about a third from run to run on a shared
2-core machine, so after the main runs every test whose engine / CP-SAT
ratio is near its per-puzzle goal (at least RETIME_SHARE of it) is timed
again: engine and CP-SAT alternately, one test at a time, a few rounds,
keeping the least CPU time of each side (as timeit does). The per-puzzle
figures use that ratio; the totals stay those of the first pass.

The report ends with the cost of the Python-Prolog interface itself: the
same findall timed in a plain `swipl` process and through pyswip, both warm.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import statistics
import subprocess
import tempfile
import textwrap
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from plpuzzle.runtime import WorkerError, quote_atom
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import MAX_K, Puzzle, Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import FormatError, load_puzzle, parse_puzzle
from plpuzzle.sudoku.engines import Engine, make_engine
from plpuzzle.sudoku.engines.prolog_bridge import own_solver
from plpuzzle.sudoku.services.runner import RunSettings, SuiteRunner
from plpuzzle.sudoku.services.suite import (
    CaseResult,
    SuiteCase,
    Verdict,
    bundled_suite,
    discover,
    load_case,
    natural_key,
)
from plpuzzle_lab.machine import load_text, machine_info, machine_markdown, wait_until_quiet

#: The thresholds of the "solved within" counts, in seconds.
THRESHOLDS = (1.0, 10.0, 60.0, 120.0)

#: The course's own per-test limit (reference-times.csv).
REFERENCE_LIMIT = 120.0

#: Times below this are drawn at it: a log axis has no zero.
PLOT_FLOOR = 1e-3

#: The peer every engine is measured against.
PEER = "cpsat"

#: Per-test times under this count as this in per-test ratios (both sides):
#: below it a ratio measures start-up noise, not search.
RATIO_FLOOR = 0.05

#: The performance targets (targets.toml): reported, never enforced.
TARGETS: dict[str, Any] = tomllib.loads(
    files("plpuzzle_lab").joinpath("targets.toml").read_text(encoding="utf-8")
)

#: Re-time a test when its first-pass ratio is at least this share of its
#: engine's per-puzzle goal (RATIO_GOALS): ratios move by about a third
#: between runs, so below this a second look cannot change the verdict.
RETIME_SHARE: float = TARGETS["retime"]["share"]

#: How many rounds (engine, then CP-SAT) a re-timed test gets by default.
RETIME_ROUNDS: int = TARGETS["retime"]["rounds"]

#: The stress suites' subfolders and their rules, in report order.
STRESS_SUITES = (("oddsum", Rules.ODDSUM), ("consecutive", Rules.CONSECUTIVE))

#: The label of the course's official suite (the first).
OFFICIAL = "official"

#: Where the stress suites are when --stress is not given.
DEFAULT_STRESS = Path("bench/stress")

#: The K target: puzzles with at least this share of values given ...
K_TARGET_GIVEN: float = TARGETS["k"]["given"]
#: ... solved within this many CPU seconds, for every K up to MAX_K.
K_TARGET_SECONDS: float = TARGETS["k"]["seconds"]
#: The Ks the K target needs a test of: the ones beyond the official suite
#: (K = 2..6), which only the stress suites have. Smaller Ks count where a
#: suite has such a test (the official suite has none for K = 2).
K_TARGET_REQUIRED = tuple(range(7, MAX_K + 1))

CSV_FIELDS = (
    "suite",
    "test",
    "engine",
    "K",
    "given_percent",
    "expected_solutions",
    "solutions",
    "verdict",
    "cpu_seconds",
    "wall_seconds",
    "peak_rss_mb",
    "reason",
)

#: Solved before each suite's runs so that no timed test pays for starting
#: a worker and loading the solver.
_WARM_UP = parse_puzzle("1\n-\n")


# --- settings and results ----------------------------------------------------


@dataclass(frozen=True)
class SuiteSpec:
    """A suite to run: a short label for tables, its folder and its rules."""

    label: str
    folder: Path
    rules: Rules


@dataclass(frozen=True)
class BenchSettings:
    """Everything that decides what the benchmark runs."""

    suites: tuple[SuiteSpec, ...]
    engines: tuple[str, ...] = ("prolog", "python", PEER)
    jobs: int = 1
    time_limit: float = 120.0
    only: str | None = None
    out_dir: Path = Path("bench")
    reference: Path | None = None
    overhead: bool = True
    #: Rounds of re-timing for tests near a per-puzzle goal (0: none).
    retime_rounds: int = RETIME_ROUNDS
    #: Which tests are near: first-pass ratio >= this share of the goal.
    retime_share: float = RETIME_SHARE
    #: What was left out and why (e.g. no stress folder), for the report.
    notes: tuple[str, ...] = ()

    @property
    def ours(self) -> tuple[str, ...]:
        """Our engines, the ones measured against the peer."""
        return tuple(e for e in self.engines if e != PEER)


@dataclass(frozen=True)
class Row:
    """One test run by one engine: a line of results.csv.

    `cpu_seconds` is None when the engine did not finish in time; `given`
    is the share of cells whose value the puzzle gives (None if unreadable).
    """

    suite: str
    test: str
    engine: str
    k: int | None
    expected_solutions: int | None
    solutions: int
    verdict: Verdict
    cpu_seconds: float | None
    wall_seconds: float | None
    peak_rss_mb: float | None
    reason: str = ""
    given: float | None = None

    @property
    def correct(self) -> bool:
        return self.verdict is Verdict.CORRECT


@dataclass(frozen=True)
class Reference:
    """The course's figures for one test; seconds are None on a timeout."""

    test: str
    k: int
    solutions: int | None  # unknown when neither reference finished
    prolog_seconds: float | None
    prolog_verdict: str
    erlang_seconds: float | None
    erlang_verdict: str


@dataclass(frozen=True)
class Overhead:
    """One test timed in plain swipl and through pyswip (best of the repeats, seconds)."""

    test: str
    k: int
    size: str  # "tiny" or "large"
    solutions: int
    repeats: int
    swipl_cpu: float
    swipl_wall: float
    pyswip_cpu: float
    pyswip_wall: float

    @property
    def extra_seconds(self) -> float:
        return self.pyswip_wall - self.swipl_wall

    @property
    def extra_fraction(self) -> float:
        return self.extra_seconds / self.swipl_wall if self.swipl_wall > 0 else 0.0


@dataclass
class BenchRun:
    """A finished benchmark: what it ran, on what, and what came out."""

    settings: BenchSettings
    machine: list[tuple[str, str]]
    rows: list[Row]
    references: dict[str, Reference]
    overhead: list[Overhead] = field(default_factory=list)
    overhead_note: str = ""
    overhead_load: tuple[float, ...] | None = None  # the load average then
    wall_seconds: float = 0.0
    retimes: list[Retime] = field(default_factory=list)

    def engine_rows(self, engine: str, suite: str) -> list[Row]:
        return [r for r in self.rows if r.engine == engine and r.suite == suite]

    @property
    def failed(self) -> bool:
        """Whether an engine gave a wrong answer or broke (timeouts are results)."""
        bad = {Verdict.WRONG, Verdict.ERROR, Verdict.BAD_INPUT}
        return any(r.verdict in bad for r in self.rows) or any(
            t.failure is not None and t.failure.verdict in bad for t in self.retimes
        )


# --- the course's reference times ------------------------------------------------


def _optional(text: str | None, kind: type[int] | type[float]) -> int | float | None:
    return kind(text) if text and text.strip() else None


def parse_reference(text: str) -> dict[str, Reference]:
    """reference-times.csv by test name (columns as in the course's file).

    Raises ValueError, naming the line, for a file not in that shape.
    """
    out = {}
    for line, rec in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        try:
            ref = Reference(
                rec["test"],
                int(rec["K"]),
                _optional(rec["solutions"], int),  # type: ignore[arg-type]
                _optional(rec["prolog_seconds"], float),
                rec["prolog_verdict"],
                _optional(rec["erlang_seconds"], float),
                rec["erlang_verdict"],
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"line {line}: not a reference-times row ({e})") from None
        out[ref.test] = ref
    return out


def load_reference(path: Path | None) -> dict[str, Reference]:
    """The reference times, or none when there is no file.

    Raises ValueError for a file that does not parse.
    """
    if path is None or not path.is_file():
        return {}
    try:
        return parse_reference(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


# --- running the suites ----------------------------------------------------------


class _MeteredRunner(SuiteRunner):
    """The suite runner, with a warm worker for every timed test and the
    worker's peak memory noted after it.

    The runner replaces a worker after a failed run, so the next test in
    that slot is warmed up again first.
    """

    def __init__(self, settings: RunSettings) -> None:
        super().__init__(settings)
        self._warm = threading.local()
        self.peak_kb: dict[SuiteCase, int | None] = {}

    def run_case(self, case: SuiteCase) -> CaseResult:
        engines = self.slot_engines()
        if not getattr(self._warm, "done", False):
            for engine in engines:
                _warm_up(engine, self.settings.rules)
            self._warm.done = True
        result = super().run_case(case)
        if any(r.status is not Status.OK for r in result.results):
            self._warm.done = False
        worker = getattr(engines[0], "worker", None)
        peak = getattr(worker, "peak_rss_kb", None) if result.results else None
        self.peak_kb[case] = peak
        return result


def _warm_up(engine: Engine, rules: Rules) -> None:
    """Start the engine's worker and load its solver, untimed."""
    if engine.solve(_WARM_UP, rules, 60.0).status is not Status.OK:
        engine.close()


def run_suite(
    spec: SuiteSpec,
    cases: Sequence[SuiteCase],
    engine: str,
    settings: BenchSettings,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[Row]:
    """Every case of one suite with one engine, in parallel slots."""
    run_settings = RunSettings(
        (engine,), spec.rules, time_limit=settings.time_limit, jobs=settings.jobs
    )
    runner = _MeteredRunner(run_settings)
    results = runner.run(cases, on_result)
    return [
        _row(spec.label, engine, r, runner.peak_kb.get(r.case), given_share(r.case))
        for r in results
    ]


def given_share(case: SuiteCase) -> float | None:
    """The share of cells whose value the puzzle gives (the K target is
    about puzzles with most values given), or None if it does not load."""
    try:
        puzzle = load_puzzle(case.puzzle_path)
    except (FormatError, OSError):
        return None
    given = sum(1 for row in puzzle.fields for f in row if f.value is not None)
    return given / (puzzle.n * puzzle.n)


def _row(
    suite: str, engine: str, result: CaseResult, peak_kb: int | None, given: float | None
) -> Row:
    primary = result.primary
    finished = primary is not None and result.verdict is not Verdict.TIMEOUT
    return Row(
        suite=suite,
        test=result.case.name,
        engine=engine,
        k=result.k,
        expected_solutions=None if result.expected is None else len(result.expected),
        solutions=result.solution_count,
        verdict=result.verdict,
        cpu_seconds=primary.cpu_seconds if finished and primary else None,
        wall_seconds=primary.wall_seconds if primary else None,
        peak_rss_mb=None if peak_kb is None else peak_kb / 1024,
        reason=result.summary(),
        given=given,
    )


# --- the cost of the interface: plain swipl against pyswip ----------------------

#: Times the findall inside swipl, nothing else: the solver is loaded and a
#: warm-up puzzle solved before the first measurement.
_SWIPL_SCRIPT = r"""
:- initialization(main, main).

main :-
    current_prolog_flag(argv, Argv),
    append(_, [Solver, File], Argv), !,
    use_module(Solver),
    read_file_to_terms(File, Terms, []),
    forall(member(warm_up(Rules, Spec), Terms), findall(S, sudoku(Spec, S, [rules(Rules)]), _)),
    forall(member(case(Name, Rules, Repeats, Spec), Terms),
           forall(between(1, Repeats, I), time_case(Name, I, Rules, Spec))).

time_case(Name, I, Rules, Spec) :-
    statistics(cputime, C0), get_time(W0),
    findall(Sol, sudoku(Spec, Sol, [rules(Rules)]), Sols),
    get_time(W1), statistics(cputime, C1),
    length(Sols, Count),
    Cpu is C1 - C0, Wall is W1 - W0,
    format("~w ~d ~d ~9f ~9f~n", [Name, I, Count, Cpu, Wall]).
"""


def repeats_for(seconds: float) -> int:
    """More repeats for short tests, whose times are noisier and cheap."""
    return 20 if seconds < 0.1 else 5


def pick_overhead_cases(
    rows: list[Row], count: int = 3, cap: float = 20.0
) -> tuple[list[Row], list[Row]]:
    """A few tiny (K=2) and a few large tests the Prolog engine solved.

    Large means the slowest ones under `cap` seconds, which keeps the
    repeated runs short; in a small selection they are simply its slowest.
    """
    solved = [r for r in rows if r.engine == "prolog" and r.correct and r.cpu_seconds is not None]
    tiny = [r for r in solved if r.k == 2][:count]
    if not tiny:
        tiny = sorted(solved, key=lambda r: r.cpu_seconds or 0.0)[:count]
    rest = [r for r in solved if r not in tiny and (r.cpu_seconds or 0.0) <= cap]
    large = sorted(rest, key=lambda r: r.cpu_seconds or 0.0, reverse=True)[:count]
    return tiny, large


def time_in_swipl(
    cases: list[tuple[str, Puzzle, int]], rules: Rules, swipl: str
) -> dict[str, list[tuple[int, float, float]]]:
    """(solution count, cpu, wall) per repeat of each case, timed in swipl.

    The puzzles reach swipl as terms in a temporary file, so nothing but
    the findall is inside the measurement.
    """
    lines = [f"warm_up({rules.value}, {cases[0][1].to_term()})."]
    lines += [f"case({quote_atom(n)}, {rules.value}, {r}, {p.to_term()})." for n, p, r in cases]
    with tempfile.TemporaryDirectory(prefix="plpuzzle-bench-") as tmp:
        script = Path(tmp) / "time_findall.pl"
        terms = Path(tmp) / "cases.pl"
        script.write_text(_SWIPL_SCRIPT)
        terms.write_text("\n".join(lines) + "\n")
        done = subprocess.run(
            # After `--`: swipl would load further .pl arguments as scripts.
            [swipl, "-q", str(script), "--", str(own_solver()), str(terms)],
            capture_output=True,
            text=True,
            check=True,
        )
    out: dict[str, list[tuple[int, float, float]]] = {}
    for line in done.stdout.splitlines():
        name, _, count, cpu, wall = line.split()
        out.setdefault(name, []).append((int(count), float(cpu), float(wall)))
    return out


def time_in_pyswip(
    cases: list[tuple[str, Puzzle, int]], rules: Rules, engine: Engine, time_limit: float
) -> dict[str, list[tuple[int, float, float]]]:
    """(solution count, cpu, wall) per repeat, through the Prolog engine.

    CPU is what the worker reports (measured in Prolog around the same
    findall); wall is measured here around the whole solve call, from the
    goal text to the decoded grids.
    """
    out: dict[str, list[tuple[int, float, float]]] = {}
    for name, puzzle, repeats in cases:
        for _ in range(repeats):
            start = time.perf_counter()
            result = engine.solve(puzzle, rules, time_limit)
            wall = time.perf_counter() - start
            count = len(result.solutions) if result.status is Status.OK else -1
            out.setdefault(name, []).append((count, result.cpu_seconds, wall))
    return out


def time_both_ways(
    plan: list[tuple[str, Puzzle, int]], rules: Rules, swipl: str, time_limit: float
) -> tuple[dict[str, list[tuple[int, float, float]]], dict[str, list[tuple[int, float, float]]]]:
    """The plan's repeats in swipl and through pyswip, in alternating rounds.

    Each round times every case once each way, so a change in the
    machine's load (2 cores shared with whatever else runs) falls on both
    sides alike instead of on whichever block ran second.
    """
    in_swipl: dict[str, list[tuple[int, float, float]]] = {}
    in_pyswip: dict[str, list[tuple[int, float, float]]] = {}
    engine = make_engine("prolog")
    try:
        engine.solve(plan[0][1], rules, time_limit)  # warm up, as in swipl
        for round_ in range(max(repeats for _, _, repeats in plan)):
            todo = [(name, puzzle, 1) for name, puzzle, repeats in plan if round_ < repeats]
            for side, times in (
                (in_swipl, time_in_swipl(todo, rules, swipl)),
                (in_pyswip, time_in_pyswip(todo, rules, engine, time_limit)),
            ):
                for name, runs in times.items():
                    side.setdefault(name, []).extend(runs)
    finally:
        engine.close()
    return in_swipl, in_pyswip


def measure_overhead(
    rows: list[Row], spec: SuiteSpec, cases: Sequence[SuiteCase], time_limit: float
) -> tuple[list[Overhead], str]:
    """The interop-overhead table, or none and the reason why."""
    swipl = shutil.which("swipl")
    if swipl is None:
        return [], "skipped: no `swipl` on PATH"
    tiny, large = pick_overhead_cases(rows)
    chosen = tiny + large
    if not chosen:
        return [], "skipped: the Prolog engine solved no test of this selection"
    by_name = {c.name: c for c in cases}
    plan = [
        (r.test, load_case(by_name[r.test])[0], repeats_for(r.cpu_seconds or 0.0)) for r in chosen
    ]
    try:
        in_swipl, in_pyswip = time_both_ways(plan, spec.rules, swipl, time_limit)
    except (OSError, subprocess.CalledProcessError, WorkerError) as e:
        # An hour of results must not be lost to this section.
        detail = getattr(e, "stderr", "") or ""
        return [], f"failed: {e} {detail.strip()[:500]}".rstrip()
    table = []
    for name, puzzle, repeats in plan:
        a, b = in_swipl.get(name, []), in_pyswip.get(name, [])
        if not a or not b:
            continue
        table.append(
            Overhead(
                test=name,
                k=puzzle.k,
                size="tiny" if any(r.test == name for r in tiny) else "large",
                solutions=a[0][0] if {x[0] for x in a + b} == {a[0][0]} else -1,
                repeats=repeats,
                swipl_cpu=min(x[1] for x in a),
                swipl_wall=min(x[2] for x in a),
                pyswip_cpu=min(x[1] for x in b),
                pyswip_wall=min(x[2] for x in b),
            )
        )
    return table, ""


# --- engine / CP-SAT ratios and the targets -------------------------------------


def floored_ratio(seconds: float, peer_seconds: float) -> float:
    """engine / peer, each side counted as at least RATIO_FLOOR."""
    return max(seconds, RATIO_FLOOR) / max(peer_seconds, RATIO_FLOOR)


@dataclass(frozen=True)
class Failure:
    """A test left out of the ratios: `side` did not answer correctly
    (in the first pass, or when the test was re-timed)."""

    test: str
    side: str
    verdict: Verdict
    retimed: bool = False

    def __str__(self) -> str:
        when = " on re-timing" if self.retimed else ""
        return f"{self.test} ({self.side}: {self.verdict.value}{when})"


@dataclass(frozen=True)
class Retime:
    """One test near its engine's per-puzzle goal, timed again: engine and
    CP-SAT alternately, one round after another, nothing else running.

    `seconds` and `peer_seconds` hold the CPU seconds of each round that
    answered correctly; `failure` is set (and the rounds stop) when a side
    did not answer correctly, which counts as a failure of that test.
    """

    suite: str
    test: str
    engine: str
    first_ratio: float
    seconds: tuple[float, ...] = ()
    peer_seconds: tuple[float, ...] = ()
    failure: Failure | None = None

    @property
    def ratio(self) -> float | None:
        """The least CPU time of each side (the least-disturbed sample, the
        same rule for both), floored as in the first pass; None on a failure."""
        if self.failure is not None or not self.seconds or not self.peer_seconds:
            return None
        return floored_ratio(min(self.seconds), min(self.peer_seconds))


@dataclass(frozen=True)
class TestRatio:
    """One test both sides solved correctly in the first pass: their CPU
    seconds, and its re-timing if it was near the per-puzzle goal."""

    suite: str
    test: str
    seconds: float
    peer_seconds: float
    retime: Retime | None = None

    @property
    def first_ratio(self) -> float:
        """The first pass's ratio, each side counted as at least RATIO_FLOOR."""
        return floored_ratio(self.seconds, self.peer_seconds)

    @property
    def ratio(self) -> float:
        """The per-test ratio: the re-timed one where there is one."""
        retimed = self.retime.ratio if self.retime is not None else None
        return self.first_ratio if retimed is None else retimed

    @property
    def retimed(self) -> bool:
        """Whether the ratio comes from re-timing."""
        return self.retime is not None and self.retime.ratio is not None

    @property
    def failed_retime(self) -> bool:
        return self.retime is not None and self.retime.failure is not None


@dataclass(frozen=True)
class Ratios:
    """One engine against the peer on one suite."""

    suite: str
    engine: str
    tests: list[TestRatio]  # every test both solved in the first pass (totals)
    failures: list[Failure]

    @property
    def judged(self) -> list[TestRatio]:
        """The tests with a per-test ratio: a failed re-timing has none."""
        return [t for t in self.tests if not t.failed_retime]

    @property
    def seconds(self) -> float:
        return sum(t.seconds for t in self.tests)

    @property
    def peer_seconds(self) -> float:
        return sum(t.peer_seconds for t in self.tests)

    @property
    def total(self) -> float | None:
        """Total CPU over total CPU (no floor), on the tests both solved,
        first pass only."""
        return self.seconds / self.peer_seconds if self.peer_seconds > 0 else None

    @property
    def median(self) -> float | None:
        judged = self.judged
        return statistics.median(t.ratio for t in judged) if judged else None

    @property
    def worst(self) -> TestRatio | None:
        return max(self.judged, key=lambda t: t.ratio, default=None)

    @property
    def engine_failures(self) -> list[Failure]:
        """The tests this engine itself failed (not only the peer)."""
        return [f for f in self.failures if f.side == self.engine]


def ratios_for(
    rows: Sequence[Row], suite: str, engine: str, retimes: Sequence[Retime] = ()
) -> Ratios:
    """`engine` against the peer on `suite`, from the rows of one run and
    the re-timings of its tests near the goal.

    A test where either side did not answer correctly has no ratio: it is
    listed as a failure, once per side that failed; so is a test whose
    re-timing got a wrong answer (its first-pass times stay in the totals).
    """
    again = {t.test: t for t in retimes if t.suite == suite and t.engine == engine}
    mine = {r.test: r for r in rows if r.suite == suite and r.engine == engine}
    peer = {r.test: r for r in rows if r.suite == suite and r.engine == PEER}
    tests, failures = [], []
    for name in sorted(mine.keys() & peer.keys(), key=natural_key):
        a, b = mine[name], peer[name]
        ok = True
        for side in (a, b):
            if not side.correct or side.cpu_seconds is None:
                failures.append(Failure(name, side.engine, side.verdict))
                ok = False
        if ok and a.cpu_seconds is not None and b.cpu_seconds is not None:
            retime = again.get(name)
            tests.append(TestRatio(suite, name, a.cpu_seconds, b.cpu_seconds, retime))
            if retime is not None and retime.failure is not None:
                failures.append(retime.failure)
    return Ratios(suite, engine, tests, failures)


def ratio_table(run: BenchRun, retimed: bool = True) -> list[Ratios]:
    """Every suite and every engine of ours against the peer (none without
    it); with `retimed` False, the first pass alone."""
    if PEER not in run.settings.engines:
        return []
    retimes = run.retimes if retimed else []
    return [
        ratios_for(run.rows, spec.label, engine, retimes)
        for spec in run.settings.suites
        for engine in run.settings.ours
        if run.engine_rows(engine, spec.label)
    ]


def _x(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}x"


@dataclass(frozen=True)
class Target:
    """One of the issue's performance goals, judged on this run."""

    name: str
    measured: str
    status: str  # "met", "not met", "not measured", or "not judged" (busy machine)
    note: str = ""


MET, NOT_MET, NOT_MEASURED, NOT_JUDGED = "met", "not met", "not measured", "not judged"


@dataclass(frozen=True)
class RatioGoal:
    """An engine's goals against CP-SAT: its total on the official suite,
    and each puzzle of `suites` (None: every suite)."""

    engine: str
    total: float
    each: float
    suites: tuple[str, ...] | None = None

    def covers(self, suite: str) -> bool:
        return self.suites is None or suite in self.suites


RATIO_GOALS = tuple(
    RatioGoal(g["engine"], g["total"], g["each"], tuple(g["suites"]) if "suites" in g else None)
    for g in TARGETS["ratio"]
)

#: (engine, suites (None: every suite but the official one), seconds, goal
#: only): every test of those suites solved within that many CPU seconds.
WITHIN_GOALS = tuple(
    (w["engine"], tuple(w["suites"]) if "suites" in w else None, w["seconds"], w.get("goal", False))
    for w in TARGETS["within"]
)


def _total_target(table: list[Ratios], engine: str, goal: float) -> Target:
    name = f"{engine} total ≤ {goal:g}x CP-SAT, official suite"
    found = [r for r in table if r.engine == engine and r.suite == OFFICIAL]
    if not found or found[0].total is None:
        return Target(name, "-", NOT_MEASURED, "no official test solved by both")
    r = found[0]
    assert r.total is not None
    measured = f"{r.total:.2f}x ({_fmt(r.seconds)} s / {_fmt(r.peer_seconds)} s)"
    failed = r.engine_failures
    note = _failure_note(r.failures)
    met = r.total <= goal and not failed
    return Target(name, measured, MET if met else NOT_MET, note)


def _each_target(table: list[Ratios], goal: RatioGoal) -> Target:
    engine, each = goal.engine, goal.each
    where = "every suite" if goal.suites is None else " and ".join(goal.suites) + " suite"
    name = f"{engine} ≤ {each:g}x CP-SAT on every puzzle of {where}"
    mine = [r for r in table if r.engine == engine and goal.covers(r.suite)]
    every = [t for r in mine for t in r.judged]
    failures = [f for r in mine for f in (_labelled(r.suite, x) for x in r.failures)]
    if not every and not failures:
        return Target(name, "-", NOT_MEASURED, "no test solved by both")
    worst = max(every, key=lambda t: t.ratio, default=None)
    measured = (
        f"worst {worst.ratio:.2f}x ({worst.suite}/{worst.test}{_again(worst)})" if worst else "-"
    )
    over = sorted((t for t in every if t.ratio > each), key=lambda t: -t.ratio)
    listed = ", ".join(f"{t.suite}/{t.test} {t.ratio:.1f}x" for t in over[:3])
    more = f", +{len(over) - 3}" if len(over) > 3 else ""
    notes = [f"{len(over)} of {len(every)} over: {listed}{more}"] if over else []
    retimed = sum(1 for t in every if t.retimed)
    if retimed:
        notes.append(f"{retimed} re-timed near the goal")
    if failures:
        notes.append(_failure_note(failures))
    met = not over and not any(f.side == engine for f in failures)
    return Target(name, measured, MET if met else NOT_MET, "; ".join(notes))


def _within_target(
    run: BenchRun, engine: str, suites: tuple[str, ...] | None, seconds: float, goal_only: bool
) -> Target:
    """Every test of `suites` (None: all but the official suite) solved
    correctly within `seconds` of CPU; a timeout or a wrong answer misses."""
    labels = [spec.label for spec in run.settings.suites]
    chosen = [lab for lab in labels if (lab in suites if suites else lab != OFFICIAL)]
    where = " and ".join(suites) if suites else "every other suite"
    kind = "goal: " if goal_only else ""
    name = f"{kind}{engine} solves each test of {where} within {seconds:g} s"
    rows = [r for r in run.rows if r.engine == engine and r.suite in chosen]
    if not rows:
        return Target(name, "-", NOT_MEASURED, "no such suite in this run")
    late = [r for r in rows if not r.correct or r.cpu_seconds is None or r.cpu_seconds > seconds]
    measured = f"{len(rows) - len(late)}/{len(rows)}"
    worst = max(
        (r for r in rows if r.cpu_seconds is not None),
        key=lambda r: r.cpu_seconds or 0.0,
        default=None,
    )
    notes = []
    if worst is not None:
        notes.append(f"slowest {_fmt(worst.cpu_seconds or 0.0)} s ({worst.suite}/{worst.test})")
    if late:
        shown = ", ".join(
            f"{r.suite}/{r.test} "
            + (
                r.verdict.value
                if not r.correct or r.cpu_seconds is None
                else f"{_fmt(r.cpu_seconds)} s"
            )
            for r in late[:4]
        )
        more = f", +{len(late) - 4}" if len(late) > 4 else ""
        notes.append(f"over: {shown}{more}")
    return Target(name, measured, NOT_MET if late else MET, "; ".join(notes))


def _again(t: TestRatio) -> str:
    return ", re-timed" if t.retimed else ""


def _labelled(suite: str, failure: Failure) -> Failure:
    return Failure(f"{suite}/{failure.test}", failure.side, failure.verdict, failure.retimed)


def _failure_note(failures: Sequence[Failure]) -> str:
    if not failures:
        return ""
    shown_ = ", ".join(str(f) for f in failures[:5])
    more = f" and {len(failures) - 5} more" if len(failures) > 5 else ""
    return f"failed, counted apart: {shown_}{more}"


@dataclass(frozen=True)
class KWorst:
    """The slowest test of one K for one engine, over the tests the K target
    covers (at least K_TARGET_GIVEN of the values given), in every suite."""

    k: int
    engine: str
    tests: int
    worst: Row | None  # None when there are none
    failures: list[Row]

    @property
    def within(self) -> bool:
        return not self.failures and (
            self.worst is None or (self.worst.cpu_seconds or 0.0) <= K_TARGET_SECONDS
        )


def worst_by_k(run: BenchRun) -> list[KWorst]:
    """Per K and engine (the peer too, for comparison) the slowest test."""
    covered = [r for r in run.rows if r.k is not None and (r.given or 0.0) >= K_TARGET_GIVEN]
    out = []
    for k in sorted({r.k for r in covered if r.k is not None}):
        for engine in run.settings.engines:
            rows = [r for r in covered if r.k == k and r.engine == engine]
            solved = [r for r in rows if r.correct and r.cpu_seconds is not None]
            worst = max(solved, key=lambda r: r.cpu_seconds or 0.0, default=None)
            failures = [r for r in rows if r not in solved]
            out.append(KWorst(k, engine, len(rows), worst, failures))
    return out


def _k_target(run: BenchRun) -> Target:
    name = (
        f"every K up to {MAX_K} within {K_TARGET_SECONDS:g} s in "
        f"{' and '.join(run.settings.ours) or 'our engines'} "
        f"(≥ {K_TARGET_GIVEN:.0%} of values given)"
    )
    cells = [w for w in worst_by_k(run) if w.engine in run.settings.ours]
    if not cells:
        return Target(name, "-", NOT_MEASURED, "no test with that many values given")
    slow = [w for w in cells if not w.within]
    solved = [(w, w.worst) for w in cells if w.worst is not None]
    measured = "-"
    if solved:
        w, row = max(solved, key=lambda pair: pair[1].cpu_seconds or 0.0)
        measured = (
            f"worst {_fmt(row.cpu_seconds or 0.0)} s ({w.engine}, K={w.k}, {row.suite}/{row.test})"
        )
    covered = {w.k for w in cells}
    missing = [k for k in K_TARGET_REQUIRED if k not in covered]
    notes = [f"K={w.k} {w.engine}: {_k_cell(w)}" for w in slow]
    if missing:
        notes.append(f"no such test for K = {', '.join(map(str, missing))}")
    small = [k for k in range(2, K_TARGET_REQUIRED[0]) if k not in covered]
    if small:
        notes.append(f"none for K = {', '.join(map(str, small))} either (not required)")
    status = NOT_MET if slow else NOT_MEASURED if missing else MET
    return Target(name, measured, status, "; ".join(notes))


def _k_cell(w: KWorst) -> str:
    parts = []
    if w.worst is not None:
        parts.append(f"{_fmt(w.worst.cpu_seconds or 0.0)} ({w.worst.suite}/{w.worst.test})")
    if w.failures:
        parts.append(", ".join(f"{r.suite}/{r.test} {r.verdict.value}" for r in w.failures[:3]))
    return "; ".join(parts) or "-"


OVERHEAD_GOAL: float = TARGETS["overhead"]["most"]


def _overhead_target(run: BenchRun) -> Target:
    name = f"pyswip overhead vs plain swipl ≤ {OVERHEAD_GOAL:.0%} (large tests, wall)"
    large = [o for o in run.overhead if o.size == "large"]
    if not large:
        return Target(name, "-", NOT_MEASURED, run.overhead_note or "no large test measured")
    worst = max(large, key=lambda o: o.extra_fraction)
    cores = os.cpu_count() or 1
    load = run.overhead_load
    measured = f"{worst.extra_fraction * 100:+.1f} % ({worst.test}); load {load_text(load)}"
    note = f"needs an idle machine; {cores} cores"
    if load and load[0] > cores:
        # As in the overhead section: a busy machine inflates both sides unevenly.
        note += ", load above that: unreliable, rerun idle"
        return Target(name, measured, NOT_JUDGED, note)
    met = worst.extra_fraction <= OVERHEAD_GOAL
    return Target(name, measured, MET if met else NOT_MET, note)


def targets(run: BenchRun) -> list[Target]:
    """The issue's targets, measured on this run; reported, never enforced."""
    table = ratio_table(run)
    out = []
    ours = run.settings.ours
    for goal in RATIO_GOALS:
        engine = goal.engine
        if engine not in ours:
            continue
        if PEER not in run.settings.engines:
            why = "CP-SAT was not run"
            out.append(Target(f"{engine} total ≤ {goal.total:g}x CP-SAT", "-", NOT_MEASURED, why))
            out.append(
                Target(f"{engine} ≤ {goal.each:g}x CP-SAT on every puzzle", "-", NOT_MEASURED, why)
            )
            continue
        out.append(_total_target(table, engine, goal.total))
        out.append(_each_target(table, goal))
    for engine, suites, seconds, goal_only in WITHIN_GOALS:
        if engine in ours:
            out.append(_within_target(run, engine, suites, seconds, goal_only))
    out.append(_k_target(run))
    out.append(_overhead_target(run))
    return out


# --- outputs: CSV, plot, report --------------------------------------------------


def _num(value: float | None, digits: int = 6) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def to_csv(rows: Iterable[Row]) -> str:
    """results.csv: one line per suite, test and engine."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for r in rows:
        writer.writerow(
            [
                r.suite,
                r.test,
                r.engine,
                "" if r.k is None else r.k,
                "" if r.given is None else f"{r.given * 100:.1f}",
                "" if r.expected_solutions is None else r.expected_solutions,
                r.solutions,
                r.verdict.value,
                _num(r.cpu_seconds),
                _num(r.wall_seconds),
                _num(r.peak_rss_mb, 1),
                r.reason,
            ]
        )
    return buffer.getvalue()


#: The plot's colour per engine (the course's references are green and red).
ENGINE_COLORS = {"prolog": "tab:blue", "python": "tab:orange", PEER: "tab:purple"}


def engine_label(engine: str) -> str:
    """How tables and the plot name an engine: ours, or the peer."""
    return f"peer: {engine}" if engine == PEER else f"ours: {engine}"


@dataclass(frozen=True)
class Series:
    """One solver's points in the plot: (K, seconds or None for a timeout)."""

    label: str
    points: list[tuple[int, float | None]]
    limit: float
    color: str


def plot_series(run: BenchRun, suite: str) -> list[Series]:
    """Our engines and the two references, on the same tests."""
    limit = run.settings.time_limit
    out = []
    for engine in run.settings.engines:
        points = [
            (r.k, r.cpu_seconds)
            for r in run.engine_rows(engine, suite)
            if r.k is not None and (r.cpu_seconds is not None or r.verdict is Verdict.TIMEOUT)
        ]
        color = ENGINE_COLORS.get(engine, "tab:gray")
        out.append(Series(engine_label(engine), points, limit, color))
    refs = [run.references[r.test] for r in _tests_of(run, suite) if r.test in run.references]
    if refs:
        course_prolog = [(x.k, x.prolog_seconds) for x in refs]
        course_erlang = [(x.k, x.erlang_seconds) for x in refs]
        out.append(Series("course Prolog (SICStus)", course_prolog, REFERENCE_LIMIT, "tab:green"))
        out.append(Series("course Erlang", course_erlang, REFERENCE_LIMIT, "tab:red"))
    return out


def _tests_of(run: BenchRun, suite: str) -> list[Row]:
    """One row per test of a suite (the first engine's), in suite order."""
    seen: dict[str, Row] = {}
    for r in run.rows:
        if r.suite == suite:
            seen.setdefault(r.test, r)
    return list(seen.values())


def _jitter(i: int) -> float:
    """A spread of points within a strip that is the same on every run."""
    return ((i * 0.6180339887) % 1.0 - 0.5) * 0.14


def write_plot(series: list[Series], title: str, path: Path) -> None:
    """A strip plot of per-test time by K, log scale, timeouts at the limit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(figsize=(10, 6), dpi=110)
    width = 0.8 / max(1, len(series))
    for index, s in enumerate(series):
        offset = (index - (len(series) - 1) / 2) * width
        xs = [k + offset + _jitter(i) for i, (k, _) in enumerate(s.points)]
        done = [
            (x, max(t, PLOT_FLOOR)) for x, (_, t) in zip(xs, s.points, strict=True) if t is not None
        ]
        late = [(x, s.limit) for x, (_, t) in zip(xs, s.points, strict=True) if t is None]
        # Label the solver even when every one of its points is a timeout.
        ax.scatter(
            [x for x, _ in done],
            [t for _, t in done],
            s=14,
            alpha=0.7,
            color=s.color,
            label=s.label,
        )
        if late:
            ax.scatter([x for x, _ in late], [t for _, t in late], s=40, marker="x", color=s.color)
    for limit in sorted({s.limit for s in series}):
        ax.axhline(limit, color="gray", linestyle="--", linewidth=0.8)
        ax.annotate(
            f"limit {limit:g} s",
            (0.995, limit),
            xycoords=("axes fraction", "data"),
            ha="right",
            va="bottom",
            fontsize=8,
            color="gray",
        )
    ks = sorted({k for s in series for k, _ in s.points})
    ax.set_xticks(ks, [f"K = {k}" for k in ks])
    ax.set_yscale("log")
    ax.set_ylim(PLOT_FLOOR / 2, max([s.limit for s in series] + [1.0]) * 3)
    ax.set_ylabel("CPU seconds per test (log scale)")
    ax.set_title(title)
    ax.grid(axis="y", which="major", alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    timeout = Line2D([], [], marker="x", linestyle="", color="gray", label="timeout, at the limit")
    ax.legend(handles=[*handles, timeout], loc="upper left", fontsize=9)
    fig.text(
        0.01,
        0.01,
        f"x = timeout, drawn at the limit; times under {PLOT_FLOOR * 1000:g} ms "
        "are drawn at that value",
        fontsize=8,
        color="gray",
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, format="png")
    plt.close(fig)


# --- the report ------------------------------------------------------------------------


def shown(path: Path) -> str:
    """A path as the report shows it: relative to here when inside, not machine-specific."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _fmt(seconds: float) -> str:
    return f"{seconds:.3f}" if seconds < 100 else f"{seconds:.1f}"


def _our_cell(row: Row | None) -> str:
    """A test's time, or why there is none; anything not correct stands out."""
    if row is None:
        return ""
    if row.correct and row.cpu_seconds is not None:
        return _fmt(row.cpu_seconds)
    if row.verdict is Verdict.TIMEOUT:
        return "timeout"
    spent = f" {_fmt(row.cpu_seconds)}" if row.cpu_seconds is not None else ""
    return f"**{row.verdict.value}**{spent}"


def _ref_cell(seconds: float | None, verdict: str) -> str:
    return _fmt(seconds) if seconds is not None and verdict == "correct" else verdict


@dataclass(frozen=True)
class Tally:
    """One solver on a set of tests: by test, the seconds of a correct answer, else None."""

    label: str
    limit: float
    times: dict[str, float | None]
    timeouts: int
    peak_mb: float | None = None

    def within(self, seconds: float) -> int | None:
        """Tests solved within `seconds`; unknown beyond the solver's limit."""
        if seconds > self.limit:
            return None
        return sum(1 for t in self.times.values() if t is not None and t <= seconds)

    @property
    def correct(self) -> int:
        return sum(1 for t in self.times.values() if t is not None)


def tallies(run: BenchRun, suite: str) -> list[Tally]:
    """Our engines, then the course's two references, on the same tests."""
    out = []
    for engine in run.settings.engines:
        rows = run.engine_rows(engine, suite)
        peaks = [r.peak_rss_mb for r in rows if r.peak_rss_mb is not None]
        times = {r.test: r.cpu_seconds if r.correct else None for r in rows}
        timeouts = sum(1 for r in rows if r.verdict is Verdict.TIMEOUT)
        peak = max(peaks) if peaks else None
        out.append(Tally(engine_label(engine), run.settings.time_limit, times, timeouts, peak))
    refs = [run.references[r.test] for r in _tests_of(run, suite) if r.test in run.references]
    if refs:
        out.append(_reference_tally("course Prolog (SICStus)", refs, "prolog"))
        out.append(_reference_tally("course Erlang", refs, "erlang"))
    return out


def _reference_tally(label: str, refs: list[Reference], solver: str) -> Tally:
    verdicts = {x.test: getattr(x, f"{solver}_verdict") for x in refs}
    times = {
        x.test: getattr(x, f"{solver}_seconds") if verdicts[x.test] == "correct" else None
        for x in refs
    }
    timeouts = sum(1 for v in verdicts.values() if v == "timeout")
    return Tally(label, REFERENCE_LIMIT, times, timeouts)


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str = "") -> list[str]:
    """A Markdown table; `align` has an l or r per column (default: first l, rest r)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---" if a == "l" else "---:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _summary_section(run: BenchRun, suite: SuiteSpec) -> list[str]:
    tests = _tests_of(run, suite.label)
    header = ["solver", "correct", *(f"≤ {t:g} s" for t in THRESHOLDS), "timeouts", "peak RSS"]
    body = []
    for t in tallies(run, suite.label):
        within = [t.within(s) for s in THRESHOLDS]
        peak = f"{t.peak_mb:.0f} MB" if t.peak_mb is not None else ""
        body.append(
            [
                t.label,
                f"{t.correct}/{len(t.times)}",
                *("-" if w is None else w for w in within),
                t.timeouts,
                peak,
            ]
        )
    lines = [f"## Solved within 1/10/60/120 s ({suite.label} suite, {len(tests)} tests)", ""]
    lines += _table(header, body)
    lines += [
        "",
        "A test counts when it was solved correctly within that many CPU seconds. The course "
        "ran its references with a 120 s limit; a dash means the threshold is beyond our "
        f"limit ({run.settings.time_limit:g} s). Peak RSS is the largest worker process seen "
        "on any test.",
    ]
    return lines


def _by_k_section(run: BenchRun, suite: SuiteSpec) -> list[str]:
    tests = _tests_of(run, suite.label)
    ks = sorted({_k(run, r) for r in tests}, key=lambda k: (k is None, k or 0))
    header = ["K", "tests"] + [t.label for t in tallies(run, suite.label)]
    body = []
    for k in ks:
        names = {r.test for r in tests if _k(run, r) == k}
        cells = []
        for t in tallies(run, suite.label):
            times = [x for name, x in t.times.items() if name in names]
            solved = [x for x in times if x is not None]
            text = f"{_fmt(statistics.median(solved))} / {_fmt(max(solved))}" if solved else "-"
            missed = len(times) - len(solved)
            cells.append(text + (f" ({missed} not solved)" if missed else ""))
        body.append(["?" if k is None else k, len(names), *cells])
    lines = ["## Median / maximum CPU seconds by K", ""]
    lines += _table(header, body)
    lines += ["", "Over the tests each solver solved correctly; the others are counted apart."]
    return lines


def _k(run: BenchRun, row: Row) -> int | None:
    if row.k is not None:
        return row.k
    ref = run.references.get(row.test)
    return ref.k if ref else None


def _per_k_tables(run: BenchRun, suite: SuiteSpec) -> list[str]:
    """A table per K: our times beside the course's, test by test."""
    index = {(r.test, r.engine): r for r in run.rows if r.suite == suite.label}
    tests = _tests_of(run, suite.label)
    has_refs = any(r.test in run.references for r in tests)
    header = ["test", "solutions", *(engine_label(e) for e in run.settings.engines)]
    if has_refs:
        header += ["course Prolog", "course Erlang"]
    lines = [
        "## Per-test CPU seconds",
        "",
        "Our engines beside the course's references; `timeout` means no answer within the "
        "limit, and anything but a correct answer is in bold.",
    ]
    for k in sorted({_k(run, r) for r in tests}, key=lambda k: (k is None, k or 0)):
        body = []
        for r in (r for r in tests if _k(run, r) == k):
            count = r.expected_solutions if r.expected_solutions is not None else "?"
            cells = [_our_cell(index.get((r.test, e))) for e in run.settings.engines]
            ref = run.references.get(r.test)
            if has_refs:
                cells += (
                    [
                        _ref_cell(ref.prolog_seconds, ref.prolog_verdict),
                        _ref_cell(ref.erlang_seconds, ref.erlang_verdict),
                    ]
                    if ref
                    else ["", ""]
                )
            body.append([r.test, count, *cells])
        lines += ["", f"### K = {'?' if k is None else k} ({len(body)} tests)", ""]
        lines += _table(header, body)
    return lines


def _slowest_section(run: BenchRun, n: int = 10) -> list[str]:
    lines = [f"## The slowest {n} per engine", ""]
    for engine in run.settings.engines:
        rows = [r for r in run.rows if r.engine == engine]
        rows.sort(key=lambda r: (r.cpu_seconds is None, r.cpu_seconds or 0.0), reverse=True)
        body = [
            [
                r.suite,
                r.test,
                r.k if r.k is not None else "?",
                r.solutions,
                _our_cell(r),
                r.verdict.value,
            ]
            for r in rows[:n]
        ]
        lines += [f"### {engine_label(engine)}", ""]
        lines += _table(["suite", "test", "K", "solutions", "CPU s", "verdict"], body, "llrrrl")
        lines.append("")
    return lines[:-1]


SUITE_HEADINGS = {
    "consecutive": "The consecutive set",
    "stress-oddsum": "Stress suite: oddsum",
    "stress-consecutive": "Stress suite: consecutive",
}


def _suite_section(run: BenchRun, suite: SuiteSpec) -> list[str]:
    """A suite other than the official one, test by test (no course times)."""
    lines = [f"## {SUITE_HEADINGS.get(suite.label, suite.label)}", ""]
    index = {(r.test, r.engine): r for r in run.rows if r.suite == suite.label}
    tests = _tests_of(run, suite.label)
    if not tests:
        return [*lines, f"`{shown(suite.folder)}`: no test selected."]
    counts = ", ".join(
        f"{e}: {sum(1 for r in run.engine_rows(e, suite.label) if r.correct)}/{len(tests)} correct"
        for e in run.settings.engines
    )
    lines += [
        f"`{shown(suite.folder)}`, {suite.rules.value} rules, {len(tests)} tests ({counts}). "
        "The course has no reference times for these.",
        "",
    ]
    body = [
        [
            r.test,
            r.k if r.k is not None else "?",
            "?" if r.given is None else f"{r.given:.0%}",
            r.expected_solutions if r.expected_solutions is not None else "?",
            *(_our_cell(index.get((r.test, e))) for e in run.settings.engines),
        ]
        for r in tests
    ]
    header = [
        "test",
        "K",
        "given",
        "solutions",
        *(f"{engine_label(e)} (CPU s)" for e in run.settings.engines),
    ]
    return lines + _table(header, body)


OVERHEAD_TEXT = (
    "The goal `findall(Sol, sudoku(s(K,Board), Sol, [rules(R)]), Sols)` is timed (a) in a plain "
    "`swipl` process that loads `prolog/sudoku.pl` and reads the term from a file, with "
    "`statistics(cputime)` and `get_time/1` around the findall only, and (b) through pyswip "
    "in the Prolog engine's worker: the CPU seconds it reports, and the wall seconds around "
    "the whole `PrologSudokuEngine.solve` call."
)

FAIRNESS_TEXT = (
    "The fair comparison: both sides warm (solver loaded, a warm-up puzzle solved first), "
    "with none of our tests running, in alternating rounds (each round times every case once "
    "in swipl, then once through pyswip, so a change in the machine's load falls on both "
    "sides), best of several repeats (other processes can only add time); CPU against CPU "
    "shows whether embedding slows the search itself, and pyswip's wall time (goal text, "
    "pipe, findall, answers as text, decoding and checking the grids in Python) against the "
    "plain findall's wall time is what a Python caller pays on top, which is what the goal "
    "(at most 10 % on large tests, a few ms on tiny ones) is about."
)


def _overhead_section(run: BenchRun) -> list[str]:
    lines = ["## Interop overhead: plain swipl against pyswip", "", OVERHEAD_TEXT, ""]
    lines += [FAIRNESS_TEXT, ""]
    if not run.overhead:
        return [*lines, f"Not measured ({run.overhead_note or 'disabled with --no-overhead'})."]
    body = [
        [
            o.test,
            o.size,
            o.k,
            o.solutions if o.solutions >= 0 else "**differs**",
            o.repeats,
            _fmt(o.swipl_cpu),
            _fmt(o.swipl_wall),
            _fmt(o.pyswip_cpu),
            _fmt(o.pyswip_wall),
            f"{o.extra_seconds * 1000:+.1f}",
            f"{o.extra_fraction * 100:+.1f} %",
        ]
        for o in run.overhead
    ]
    header = [
        "test",
        "size",
        "K",
        "solutions",
        "repeats",
        "swipl CPU s",
        "swipl wall s",
        "pyswip CPU s",
        "pyswip wall s",
        "extra wall ms",
        "extra wall",
    ]
    lines += _table(header, body, "llrrrrrrrrr")
    cores = os.cpu_count() or 1
    load = run.overhead_load
    busy = bool(load and load[0] > cores)
    lines += ["", *_overhead_verdict(run.overhead, busy)]
    lines.append(f"- Load average when measured: {load_text(load)} ({cores} cores).")
    if busy:
        lines.append(
            "- The machine was busy with other work (load above its core count): wall times, "
            "and CPU times less so, are inflated unevenly on both sides, so this comparison "
            "is unreliable; rerun on an idle machine."
        )
    return lines


def _overhead_verdict(table: list[Overhead], busy: bool = False) -> list[str]:
    """One sentence per size class: the worst case against its goal."""
    out = []
    tiny = [o for o in table if o.size == "tiny"]
    large = [o for o in table if o.size == "large"]
    if tiny:
        worst = max(o.extra_seconds for o in tiny) * 1000
        out.append(
            f"- Tiny tests: at most {worst:.1f} ms extra wall time per test (goal: a few ms)."
        )
    if large:
        worst = max(o.extra_fraction for o in large) * 100
        ratios = [abs(o.pyswip_cpu / o.swipl_cpu - 1) for o in large if o.swipl_cpu > 0]
        cpu = max(ratios, default=0.0) * 100
        met = "not judged, busy machine" if busy else "met" if worst <= 10 else "NOT met"
        out.append(
            f"- Large tests: at most {worst:+.1f} % extra wall time (goal ≤ 10 %: {met}); "
            f"CPU differs by at most {cpu:.1f} %."
        )
    return out


RATIO_TEXT = (
    "CP-SAT (Google OR-tools, 1 worker) is the peer a user would pick instead of our "
    "engines; it ran in this same run, on the same tests, machine and settings. A ratio is "
    "engine CPU seconds / CP-SAT CPU seconds. *Total*: the sums over the tests both solved "
    "correctly, as measured. *Median* and *worst*: per test, with times under "
    f"{RATIO_FLOOR * 1000:g} ms counted as {RATIO_FLOOR * 1000:g} ms on both sides, so that "
    "noise on trivial tests does not count as speed. Tests where either side failed or "
    "timed out have no ratio: they are counted apart and named."
)


def _ratio_body(table: list[Ratios], names: int | None = None) -> list[list[str]]:
    body = []
    for r in table:
        worst = r.worst
        failed = str(len(r.failures))
        if r.failures:
            listed = r.failures if names is None else r.failures[:names]
            more = len(r.failures) - len(listed)
            failed += ": " + ", ".join(str(f) for f in listed) + (f", +{more}" if more else "")
        body.append(
            [
                r.suite,
                r.engine,
                str(len(r.tests)),
                f"{_x(r.total)} ({_fmt(r.seconds)} s / {_fmt(r.peer_seconds)} s)",
                _x(r.median),
                f"{_x(worst.ratio)} ({worst.test}{_again(worst)})" if worst else "-",
                failed,
            ]
        )
    return body


RATIO_HEADER = ("suite", "engine", "tests", "total", "median", "worst (test)", "failed apart")


def _ratio_section(run: BenchRun) -> list[str]:
    lines = ["## Engine / CP-SAT", ""]
    if PEER not in run.settings.engines:
        return [*lines, "Not measured: CP-SAT was not among the engines run."]
    lines += [RATIO_TEXT, ""]
    return lines + _table(RATIO_HEADER, _ratio_body(ratio_table(run)), "llrrrll")


TARGET_HEADER = ("target", "measured", "status", "note")


def _target_body(run: BenchRun) -> list[list[str]]:
    return [[t.name, t.measured, t.status, t.note] for t in targets(run)]


def _k_body(run: BenchRun) -> tuple[list[str], list[list[str]]]:
    cells = worst_by_k(run)
    engines = run.settings.engines
    header = ["K", "tests", *(engine_label(e) for e in engines)]
    body = []
    for k in sorted({w.k for w in cells}):
        row = {w.engine: w for w in cells if w.k == k}
        tests = max(w.tests for w in row.values())
        body.append([str(k), str(tests), *(_k_cell(row[e]) if e in row else "" for e in engines)])
    return header, body


def _targets_section(run: BenchRun) -> list[str]:
    lines = [
        "## Targets",
        "",
        "The performance goals, judged on this run. They are reported, not enforced: the exit "
        "code only says whether an engine gave a wrong answer or failed.",
        "",
    ]
    lines += _table(TARGET_HEADER, _target_body(run), "llll")
    header, body = _k_body(run)
    lines += [
        "",
        f"### Slowest test per K (at least {K_TARGET_GIVEN:.0%} of the values given)",
        "",
        f"Over every suite: CPU seconds of the slowest correctly solved test, and any test "
        f"not solved correctly. The goal is at most {K_TARGET_SECONDS:g} s in both of our "
        f"engines for every K up to {MAX_K}; CP-SAT is shown for comparison. The target "
        f"needs a test for each K = {K_TARGET_REQUIRED[0]}..{MAX_K} (only the stress suites "
        "have them); smaller Ks count where some suite has such a test.",
        "",
    ]
    lines += _table(header, body, "lr" + "l" * (len(header) - 2)) if body else ["No such test."]
    return lines


#: The width the terminal's tables keep to (a terminal of 100 columns).
TERMINAL_WIDTH = 100


def text_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], width: int = TERMINAL_WIDTH
) -> list[str]:
    """A plain table for the terminal: columns padded, two spaces apart;
    the last column wraps, under itself, so that a line keeps to `width`
    (it goes below, indented, when the others leave it too little room)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    before = sum(w + 2 for w in widths[:-1])
    room = width - before
    indent = before if room >= 30 else 4
    room = room if room >= 30 else width - 4
    lines = []
    for row in (header, *rows):
        cells = [str(c) for c in row]
        head = "  ".join(c.ljust(w) for c, w in zip(cells[:-1], widths, strict=False))
        last = textwrap.wrap(cells[-1], room, break_on_hyphens=False) or [""]
        if indent == before:
            lines.append(f"{head}  {last[0]}".rstrip())
            lines += [" " * indent + more for more in last[1:]]
        else:
            lines.append(head.rstrip())
            lines += [" " * indent + more for more in last]
    return lines


def report_lines(run: BenchRun) -> list[str]:
    """What the terminal shows: verdict counts, the ratio table, the slowest
    test per K and the targets."""
    lines = summary_lines(run)
    if PEER in run.settings.engines:
        lines += [
            "",
            f"Engine / CP-SAT, CPU seconds (total: sums over tests both solved; median and "
            f"worst: per test, times under {RATIO_FLOOR * 1000:g} ms counted as "
            f"{RATIO_FLOOR * 1000:g} ms):",
            *text_table(RATIO_HEADER, _ratio_body(ratio_table(run), names=3)),
        ]
    if run.retimes:
        failed = sum(1 for t in run.retimes if t.failure is not None)
        lines += [
            "",
            f"Re-timed {len(run.retimes)} test(s) near a per-puzzle goal, least CPU of "
            f"{run.settings.retime_rounds} rounds per side"
            + (f"; {failed} not answered correctly" if failed else "")
            + ":",
            *text_table(
                ("suite", "test", "engine", "first pass", "re-timed"),
                [
                    [
                        t.suite,
                        t.test,
                        t.engine,
                        _x(t.first_ratio),
                        _x(t.ratio) if t.failure is None else str(t.failure),
                    ]
                    for t in run.retimes
                ],
            ),
        ]
    header, body = _k_body(run)
    if body:
        lines += [
            "",
            f"Slowest test per K, CPU s (tests with ≥ {K_TARGET_GIVEN:.0%} of values given):",
            *text_table(header, body),
        ]
    lines += ["", "Targets (reported, not enforced):"]
    lines += text_table(TARGET_HEADER, _target_body(run))
    return lines


def render_report(run: BenchRun, plot_name: str) -> str:
    """REPORT.md: machine, settings, ratios to CP-SAT, targets, results,
    plot, the other suites, interop overhead."""
    main = run.settings.suites[0]
    others = [line for spec in run.settings.suites[1:] for line in ["", *_suite_section(run, spec)]]
    lines = [
        "# Benchmark: our sudoku engines beside CP-SAT and the course's reference solvers",
        "",
        "Written by `make bench`; the per-test data is in `results.csv`.",
        "",
        "## Machine",
        "",
        *machine_markdown(run.machine),
        "",
        *_settings_section(run),
        "",
        *_ratio_section(run),
        "",
        *_targets_section(run),
        "",
        *_retime_section(run),
        "",
        *_summary_section(run, main),
        "",
        *_by_k_section(run, main),
        "",
        "## Per-test time by K",
        "",
        f"![Per-test CPU seconds by K]({plot_name})",
        "",
        *_per_k_tables(run, main),
        "",
        *_slowest_section(run),
        *others,
        "",
        *_overhead_section(run),
    ]
    return "\n".join(lines) + "\n"


def _retime_setting(s: BenchSettings) -> str:
    if s.retime_rounds <= 0:
        return "off"
    return (
        f"{s.retime_rounds} rounds for tests at or above {s.retime_share:g} x the "
        "engine's per-puzzle goal, least CPU time of each side"
    )


def _settings_section(run: BenchRun) -> list[str]:
    s = run.settings
    suites = [
        f"- Suite `{spec.label}`: `{shown(spec.folder)}`, {spec.rules.value} rules, "
        f"{len(_tests_of(run, spec.label))} tests"
        for spec in s.suites
    ]
    reference = f"`{shown(s.reference)}`" if s.reference and run.references else "none found"
    return [
        "## Settings",
        "",
        *suites,
        f"- Tests selected: {f'`--only {s.only}`' if s.only else 'all'}",
        f"- Engines: {', '.join(s.engines)}; {s.jobs} test(s) at once, each engine in worker "
        "processes of its own",
        f"- Time limit: {s.time_limit:g} s of CPU time per test and engine (a wall-clock "
        f"backstop of {DEFAULTS.wall_limit(s.time_limit):g} s)",
        f"- Re-timing near a per-puzzle goal: {_retime_setting(s)}",
        f"- Course reference times: {reference} (SICStus Prolog on an Intel i3-2120, and "
        "Erlang; 120 s limit)",
        f"- Benchmark run time: {run.wall_seconds / 60:.1f} min of wall clock",
        *(f"- Note: {n}" for n in s.notes),
        "",
        "A test's time is the CPU seconds its engine reports: for the Prolog engine "
        "`statistics(cputime)` around the findall in the worker, for the Python engine and "
        "CP-SAT the worker's process time around the call (for CP-SAT: building the model "
        "and enumerating every solution). Each worker solves a warm-up puzzle before its "
        "first timed test, so no time includes starting a worker or loading the solver.",
    ]


# --- re-timing the tests near a per-puzzle goal -------------------------------------------


def per_puzzle_goal(engine: str, suite: str) -> float | None:
    """The engine's per-puzzle ratio goal on `suite` (RATIO_GOALS), None
    if it has none there."""
    return next((g.each for g in RATIO_GOALS if g.engine == engine and g.covers(suite)), None)


def near_goal(run: BenchRun) -> list[tuple[str, TestRatio]]:
    """(engine, first-pass ratio) of every test whose first-pass ratio is at
    least `retime_share` of its engine's per-puzzle goal, in report order."""
    out = []
    for ratios in ratio_table(run, retimed=False):
        goal = per_puzzle_goal(ratios.engine, ratios.suite)
        if goal is None:
            continue
        threshold = run.settings.retime_share * goal
        out += [(ratios.engine, t) for t in ratios.tests if t.ratio >= threshold]
    return out


def retime_near_goal(
    run: BenchRun, cases: dict[str, list[SuiteCase]], on_start: OnStart | None = None
) -> list[Retime]:
    """Time again, `retime_rounds` times, every test near a per-puzzle goal.

    One test at a time, engine then CP-SAT in each round, through the same
    metered runner (warm workers, time limit, judge) as the main runs; the
    runners' workers are kept from one test to the next, as in a slot.
    """
    rounds = run.settings.retime_rounds
    todo = near_goal(run) if rounds > 0 and PEER in run.settings.engines else []
    if not todo:
        return []
    callback = (
        on_start(
            f"re-timing {len(todo)} puzzles near a goal, {rounds} rounds", 2 * rounds * len(todo)
        )
        if on_start
        else None
    )
    specs = {spec.label: spec for spec in run.settings.suites}
    runners: dict[tuple[Rules, str], _MeteredRunner] = {}

    def runner(rules: Rules, engine: str) -> _MeteredRunner:
        key = (rules, engine)
        if key not in runners:
            runners[key] = _MeteredRunner(
                RunSettings((engine,), rules, time_limit=run.settings.time_limit, jobs=1)
            )
        return runners[key]

    out = []
    try:
        for engine, first in todo:
            spec = specs[first.suite]
            case = next(c for c in cases[spec.label] if c.name == first.test)
            sides = (runner(spec.rules, engine), runner(spec.rules, PEER))
            out.append(_retime_one(first, engine, case, sides, rounds, callback))
    finally:
        for each in runners.values():
            each.close()
    return out


def _retime_one(
    first: TestRatio,
    engine: str,
    case: SuiteCase,
    sides: tuple[_MeteredRunner, _MeteredRunner],
    rounds: int,
    callback: Callable[[CaseResult], None] | None,
) -> Retime:
    """The rounds of one test; they stop at the first answer not correct."""
    samples: tuple[list[float], list[float]] = ([], [])
    failure: Failure | None = None
    for _ in range(rounds):
        for side, (name, runner) in enumerate(zip((engine, PEER), sides, strict=True)):
            result = runner.run_case(case)
            if callback:
                callback(result)
            row = _row(first.suite, name, result, None, None)
            if not row.correct or row.cpu_seconds is None:
                failure = Failure(first.test, name, row.verdict, retimed=True)
                break
            samples[side].append(row.cpu_seconds)
        if failure is not None:
            break
    seconds, peer_seconds = (tuple(x) for x in samples)
    return Retime(first.suite, first.test, engine, first.ratio, seconds, peer_seconds, failure)


RETIME_TEXT = (
    "A single timed run can move by about a third between runs on a shared machine, so "
    "every test whose first-pass engine / CP-SAT ratio was at least {share:.0%} of its "
    "engine's "
    "per-puzzle goal was timed again after the main runs: engine and CP-SAT alternately, "
    "one test at a time with nothing else of the benchmark running, {rounds} rounds, "
    "keeping each side's least CPU time (as timeit does: the least-disturbed sample, the "
    "same rule for both sides). The per-test ratios (median, worst, the per-puzzle target) "
    "use that re-timed ratio; the totals stay those of the first pass. A wrong answer or a "
    "timeout on re-timing counts as a failure of the test."
)


def _samples(seconds: Sequence[float]) -> str:
    return ", ".join(_fmt(x) for x in seconds) or "-"


def _retime_section(run: BenchRun) -> list[str]:
    lines = ["## Re-timed near a per-puzzle goal", ""]
    s = run.settings
    if PEER not in s.engines:
        return [*lines, "Not done: CP-SAT was not among the engines run."]
    if s.retime_rounds <= 0:
        return [*lines, "Not done (`--retime-rounds 0`): every ratio is from one run."]
    lines += [RETIME_TEXT.format(share=s.retime_share, rounds=s.retime_rounds), ""]
    if not run.retimes:
        return [*lines, "No test was that near a goal."]
    body = [
        [
            t.suite,
            t.test,
            t.engine,
            _x(t.first_ratio),
            _samples(t.seconds),
            _samples(t.peer_seconds),
            _x(t.ratio)
            if t.failure is None
            else f"**{t.failure.side}: {t.failure.verdict.value}**",
        ]
        for t in run.retimes
    ]
    header = ["suite", "test", "engine", "first pass", "engine CPU s", "CP-SAT CPU s", "re-timed"]
    return lines + _table(header, body, "lllrllr")


# --- the whole benchmark ---------------------------------------------------------------

OnStart = Callable[[str, int], Callable[[CaseResult], None] | None]


def select_cases(settings: BenchSettings) -> dict[str, list[SuiteCase]]:
    """The tests of each suite that `--only` selects, by suite label."""
    return {spec.label: discover(spec.folder, settings.only) for spec in settings.suites}


def run_bench(
    settings: BenchSettings,
    cases: dict[str, list[SuiteCase]],
    references: dict[str, Reference],
    on_start: OnStart | None = None,
) -> BenchRun:
    """Every suite with every engine, then the tests near a per-puzzle
    goal again, then the interop overhead."""
    start = time.monotonic()
    machine = machine_info()
    rows: list[Row] = []
    for spec in settings.suites:
        for engine in settings.engines:
            selected = cases.get(spec.label, [])
            if not selected:
                continue
            callback = on_start(f"{spec.label} / {engine}", len(selected)) if on_start else None
            rows += run_suite(spec, selected, engine, settings, callback)
    rows.sort(key=lambda r: _row_order(settings, r))
    run = BenchRun(settings, machine, rows, references)
    run.retimes = retime_near_goal(run, cases, on_start)
    main = settings.suites[0]
    if not settings.overhead:
        run.overhead_note = "disabled with --no-overhead"
    elif "prolog" not in settings.engines:
        run.overhead_note = "skipped: the Prolog engine was not run"
    else:
        main_rows = [r for r in rows if r.suite == main.label]
        run.overhead_load = wait_until_quiet(os.cpu_count() or 1)
        run.overhead, run.overhead_note = measure_overhead(
            main_rows, main, cases.get(main.label, []), settings.time_limit
        )
    run.wall_seconds = time.monotonic() - start
    return run


def summary_lines(run: BenchRun) -> list[str]:
    """One line per suite and engine: verdict counts and CPU seconds."""
    lines = []
    for spec in run.settings.suites:
        for engine in run.settings.engines:
            rows = run.engine_rows(engine, spec.label)
            if rows:
                counts = Counter(r.verdict.value for r in rows)
                parts = ", ".join(f"{n} {v}" for v, n in counts.items())
                cpu = sum(r.cpu_seconds or 0.0 for r in rows)
                lines.append(
                    f"{spec.label} / {engine}: {len(rows)} tests: {parts}; {_fmt(cpu)} s CPU"
                )
    return lines


def _row_order(settings: BenchSettings, row: Row) -> tuple[int, list[object], int]:
    labels = [s.label for s in settings.suites]
    return (labels.index(row.suite), natural_key(row.test), settings.engines.index(row.engine))


PLOT_NAME = "times-by-k.png"


def default_suite() -> Path:
    """The course's official suite: $PLPUZZLE_SUITE (its folder of puzzles),
    else bme-2013-oddsum/tests in $PLPUZZLE_SHARED, else in ../shared; the
    tests look for it the same way."""
    if os.environ.get("PLPUZZLE_SUITE"):
        return Path(os.environ["PLPUZZLE_SUITE"])
    shared = os.environ.get("PLPUZZLE_SHARED") or "../shared"
    return Path(shared) / "bme-2013-oddsum" / "tests"


class BenchRequestError(Exception):
    """The benchmark cannot run as asked (the user's to fix)."""


def plots_available() -> bool:
    """Whether matplotlib (the `plots` extra) is installed."""
    import importlib.util

    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):  # e.g. sys.modules["matplotlib"] = None
        return False


def plan(
    suite: Path | None,
    rules: Rules,
    consecutive: Path | None,
    engines: str,
    jobs: int,
    time_limit: float,
    only: str | None,
    out_dir: Path,
    reference: Path | None,
    overhead: bool,
    stress: Path | None = None,
    retime_rounds: int = RETIME_ROUNDS,
) -> tuple[BenchSettings, dict[str, Reference], dict[str, list[SuiteCase]]]:
    """Settings, reference times and cases for a run; BenchRequestError
    for a missing folder or file, an unknown engine, or nothing to run.

    `stress` None means the default folder, which may be missing (a note
    says so); a folder named explicitly must exist and hold a suite."""
    suite = suite or default_suite()
    if not suite.is_dir():
        raise BenchRequestError(
            f"{suite}: no such suite folder (the course's official suite: name it with "
            "SUITE=DIR for make bench, or --suite DIR)"
        )
    consecutive = consecutive or bundled_suite()
    if not consecutive.is_dir():
        raise BenchRequestError(
            f"{consecutive}: no such suite folder (CONSECUTIVE=DIR for make bench, or "
            "--consecutive DIR)"
        )
    if reference is not None and not reference.is_file():
        raise BenchRequestError(f"{reference}: no such file")
    names = list(dict.fromkeys(e.strip().lower() for e in engines.split(",") if e.strip()))
    known = ("prolog", "python", PEER)
    unknown = [e for e in names if e not in known]
    if unknown or not names:
        raise BenchRequestError(f"--engines: choose from {', '.join(known)}, got {engines!r}")
    stress_suites, notes = stress_specs(stress)
    settings = BenchSettings(
        suites=(
            SuiteSpec(OFFICIAL, suite, rules),
            SuiteSpec("consecutive", consecutive, Rules.CONSECUTIVE),
            *stress_suites,
        ),
        engines=tuple(names),
        jobs=jobs,
        time_limit=time_limit,
        only=only,
        out_dir=out_dir,
        reference=reference or suite.parent / "reference-times.csv",
        overhead=overhead,
        retime_rounds=retime_rounds,
        notes=tuple(notes),
    )
    try:
        references = load_reference(settings.reference)
    except ValueError as e:
        raise BenchRequestError(str(e)) from None
    cases = select_cases(settings)
    if not any(cases.values()):
        what = f" matching {only!r}" if only else ""
        raise BenchRequestError(f"{suite}, {consecutive}: no testNNNd.txt puzzles{what}")
    return settings, references, cases


def stress_specs(folder: Path | None) -> tuple[list[SuiteSpec], list[str]]:
    """The stress suites in `folder` (None: the default, DEFAULT_STRESS) and
    notes on what is missing; BenchRequestError when a folder named by
    the user is missing or holds neither subfolder."""
    explicit = folder is not None
    folder = folder or DEFAULT_STRESS
    subs = ", ".join(f"{name}/" for name, _ in STRESS_SUITES)
    if not folder.is_dir():
        if explicit:
            raise BenchRequestError(f"{folder}: no such stress folder (--stress DIR)")
        return [], [f"no stress folder `{folder}`: the stress suites were skipped"]
    specs = [
        SuiteSpec(f"stress-{name}", folder / name, rules)
        for name, rules in STRESS_SUITES
        if (folder / name).is_dir()
    ]
    if not specs:
        if explicit:
            raise BenchRequestError(
                f"{folder}: no {subs.replace(', ', ' or ')} subfolder (--stress DIR)"
            )
        return [], [f"`{folder}` has no {subs} subfolder: the stress suites were skipped"]
    notes = [
        f"`{folder / name}` is missing: that stress suite was skipped"
        for name, _ in STRESS_SUITES
        if not (folder / name).is_dir()
    ]
    return specs, notes


def to_json(run: BenchRun, paths: list[Path]) -> dict[str, object]:
    """The `--format json` report: a row per suite, test and engine, the
    ratios to CP-SAT, the slowest test per K and the targets."""
    return {
        "failed": run.failed,
        "outputs": [str(p) for p in paths],
        "notes": list(run.settings.notes),
        "rows": list(csv.DictReader(io.StringIO(to_csv(run.rows)))),
        "ratio_floor_seconds": RATIO_FLOOR,
        "ratios": [_ratios_json(r) for r in ratio_table(run)],
        "retimed": [
            {
                "suite": t.suite,
                "test": t.test,
                "engine": t.engine,
                "first_ratio": t.first_ratio,
                "cpu_seconds": list(t.seconds),
                "peer_cpu_seconds": list(t.peer_seconds),
                "ratio": t.ratio,
                "failed": None if t.failure is None else str(t.failure),
            }
            for t in run.retimes
        ],
        "worst_by_k": [
            {
                "K": w.k,
                "engine": w.engine,
                "tests": w.tests,
                "worst_test": None if w.worst is None else f"{w.worst.suite}/{w.worst.test}",
                "worst_cpu_seconds": None if w.worst is None else w.worst.cpu_seconds,
                "failed": [f"{r.suite}/{r.test}" for r in w.failures],
            }
            for w in worst_by_k(run)
        ],
        "targets": [
            {"target": t.name, "measured": t.measured, "status": t.status, "note": t.note}
            for t in targets(run)
        ],
    }


def _ratios_json(r: Ratios) -> dict[str, object]:
    worst = r.worst
    return {
        "suite": r.suite,
        "engine": r.engine,
        "tests": len(r.tests),
        "cpu_seconds": r.seconds,
        "peer_cpu_seconds": r.peer_seconds,
        "total_ratio": r.total,
        "median_ratio": r.median,
        "worst_ratio": None if worst is None else worst.ratio,
        "worst_test": None if worst is None else worst.test,
        "worst_retimed": None if worst is None else worst.retimed,
        "failed": [
            {"test": f.test, "side": f.side, "verdict": f.verdict.value} for f in r.failures
        ],
    }


def write_outputs(run: BenchRun) -> list[Path]:
    """results.csv, the plot (when matplotlib is installed) and REPORT.md."""
    out = run.settings.out_dir
    out.mkdir(parents=True, exist_ok=True)
    main = run.settings.suites[0]
    csv_path, plot_path, report_path = out / "results.csv", out / PLOT_NAME, out / "REPORT.md"
    csv_path.write_text(to_csv(run.rows), encoding="utf-8")
    title = f"Per-test CPU time by K: {main.label} suite ({main.rules.value} rules)"
    written = [csv_path]
    if plots_available():
        write_plot(plot_series(run, main.label), title, plot_path)
        written.append(plot_path)
    report_path.write_text(render_report(run, PLOT_NAME), encoding="utf-8")
    return [*written, report_path]
