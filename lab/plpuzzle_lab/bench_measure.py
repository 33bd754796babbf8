"""Measuring: our engines and the peers timed on a suite, and the cost of pyswip.

Each test runs through the ordinary suite runner (the same workers, time
limit and judge as `plpuzzle sudoku test`), so a benchmark cannot count an
answer that the test command would call wrong. A test's time is the CPU
seconds its engine reports, measured inside the worker around the search;
wall seconds and the worker's peak memory are kept too. The interface's
own cost is the same findall timed in a plain `swipl` process and through
pyswip, both warm. This module only measures: ratios, targets and reports
are built on its rows elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from plpuzzle.runtime import WorkerError, quote_atom
from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import FormatError, load_puzzle, parse_puzzle
from plpuzzle.sudoku.engines import Engine, make_engine
from plpuzzle.sudoku.engines.prolog_bridge import own_solver
from plpuzzle.sudoku.runs.runner import RunSettings, SuiteRunner
from plpuzzle.sudoku.runs.suite import CaseResult, SuiteCase, Verdict, load_case
from plpuzzle_lab.bench_model import BenchSettings, Overhead, Row, SuiteSpec
from plpuzzle_lab.peers import PEER_NAMES, PeerEngine, make_peer

#: Called when a batch of runs starts, with its description and size; it
#: returns what to call after each result (progress), or None.
OnStart = Callable[[str, int], Callable[[CaseResult], None] | None]

#: Solved before each suite's runs so that no timed test pays for starting
#: a worker and loading the solver.
_WARM_UP = parse_puzzle("1\n-\n")

#: (solution count, CPU seconds, wall seconds) per repeat, by test name.
Timings = dict[str, list[tuple[int, float, float]]]


# --- running the suites ----------------------------------------------------------


class MeteredRunner(SuiteRunner):
    """The suite runner, with a warm worker for every timed test and the
    worker's peak memory noted after it.

    The runner replaces a worker after a failed run, so the next test in
    that slot is warmed up again first. The peers Gecode and Choco are
    made here (they are the lab's, not in the product's registry) and
    judged like every engine; they have no worker to warm, since each
    puzzle is a process of their own.
    """

    def __init__(self, settings: RunSettings) -> None:
        super().__init__(settings)
        self._warm = threading.local()
        self.peak_kb: dict[SuiteCase, int | None] = {}

    def new_engine(self, name: str) -> Engine:
        return make_peer(name) if name in PEER_NAMES else super().new_engine(name)

    def run_case(self, case: SuiteCase) -> CaseResult:
        engines = self.slot_engines()
        if not getattr(self._warm, "done", False):
            for engine in engines:
                _warm_up(engine, self.settings.rules)
            self._warm.done = True
        result = super().run_case(case)
        if any(r.status is not Status.OK for r in result.results):
            self._warm.done = False
        self.peak_kb[case] = _peak_kb(engines[0]) if result.results else None
        return result


def _warm_up(engine: Engine, rules: Rules) -> None:
    """Start the engine's worker and load its solver, untimed; nothing for
    a peer (a process of its own per puzzle)."""
    if isinstance(engine, PeerEngine):
        return
    if engine.solve(_WARM_UP, rules, 60.0).status is not Status.OK:
        engine.close()


def _peak_kb(engine: Engine) -> int | None:
    """The peak memory of the engine's last run: its worker's, or a peer's
    own process's."""
    if isinstance(engine, PeerEngine):
        return engine.peak_rss_kb
    return getattr(getattr(engine, "worker", None), "peak_rss_kb", None)


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
    runner = MeteredRunner(run_settings)
    results = runner.run(cases, on_result)
    return [
        result_row(spec.label, engine, r, runner.peak_kb.get(r.case), given_share(r.case))
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


def result_row(
    suite: str, engine: str, result: CaseResult, peak_kb: int | None, given: float | None
) -> Row:
    """The row of results.csv for one test's result."""
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


def time_in_swipl(cases: list[tuple[str, Puzzle, int]], rules: Rules, swipl: str) -> Timings:
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
    out: Timings = {}
    for line in done.stdout.splitlines():
        name, _, count, cpu, wall = line.split()
        out.setdefault(name, []).append((int(count), float(cpu), float(wall)))
    return out


def time_in_pyswip(
    cases: list[tuple[str, Puzzle, int]], rules: Rules, engine: Engine, time_limit: float
) -> Timings:
    """(solution count, cpu, wall) per repeat, through the Prolog engine.

    CPU is what the worker reports (measured in Prolog around the same
    findall); wall is measured here around the whole solve call, from the
    goal text to the decoded grids.
    """
    out: Timings = {}
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
) -> tuple[Timings, Timings]:
    """The plan's repeats in swipl and through pyswip, in alternating rounds.

    Each round times every case once each way, so a change in the
    machine's load (2 cores shared with whatever else runs) falls on both
    sides alike instead of on whichever block ran second.
    """
    in_swipl: Timings = {}
    in_pyswip: Timings = {}
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
    return _best_times(plan, {r.test for r in tiny}, in_swipl, in_pyswip), ""


def _best_times(
    plan: list[tuple[str, Puzzle, int]], tiny: set[str], in_swipl: Timings, in_pyswip: Timings
) -> list[Overhead]:
    """A row per planned test timed both ways: each side's least times, and
    the solution count when every repeat agreed on it (-1 otherwise)."""
    table = []
    for name, puzzle, repeats in plan:
        a, b = in_swipl.get(name, []), in_pyswip.get(name, [])
        if not a or not b:
            continue
        table.append(
            Overhead(
                test=name,
                k=puzzle.k,
                size="tiny" if name in tiny else "large",
                solutions=a[0][0] if {x[0] for x in a + b} == {a[0][0]} else -1,
                repeats=repeats,
                swipl_cpu=min(x[1] for x in a),
                swipl_wall=min(x[2] for x in a),
                pyswip_cpu=min(x[1] for x in b),
                pyswip_wall=min(x[2] for x in b),
            )
        )
    return table
