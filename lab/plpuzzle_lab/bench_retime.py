"""Re-timing: the tests whose ratio is near a per-puzzle goal, timed again.

A single timed run can move by about a third from run to run on a shared
2-core machine, so after the main runs every test whose engine / CP-SAT
ratio is at least RETIME_SHARE of its engine's per-puzzle goal is timed
again: engine and CP-SAT alternately, one test at a time, a few rounds,
keeping the least CPU time of each side (as timeit does). It sits above
both measuring (it runs the engines) and the ratios (they pick the tests).
"""

from __future__ import annotations

from collections.abc import Callable

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.runs.runner import RunSettings
from plpuzzle.sudoku.runs.suite import CaseResult, SuiteCase
from plpuzzle_lab.bench_measure import MeteredRunner, OnStart, result_row
from plpuzzle_lab.bench_model import PEER, BenchRun, Failure, Retime
from plpuzzle_lab.bench_ratios import TestRatio, per_puzzle_goal, ratio_table


def near_goal(run: BenchRun) -> list[tuple[str, TestRatio]]:
    """(engine, first-pass ratio) of every test whose first-pass ratio is
    within a factor of `retime_share` of its engine's per-puzzle goal, on
    either side (a test at twice its goal is over it on any run), in report
    order."""
    out = []
    for ratios in ratio_table(run, retimed=False):
        goal = per_puzzle_goal(ratios.engine, ratios.suite)
        if goal is None:
            continue
        low, high = run.settings.retime_share * goal, goal / run.settings.retime_share
        out += [(ratios.engine, t) for t in ratios.tests if low <= t.ratio <= high]
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
    runners: dict[tuple[Rules, str], MeteredRunner] = {}

    def runner(rules: Rules, engine: str) -> MeteredRunner:
        key = (rules, engine)
        if key not in runners:
            runners[key] = MeteredRunner(
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
    sides: tuple[MeteredRunner, MeteredRunner],
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
            row = result_row(first.suite, name, result, None, None)
            if not row.correct or row.cpu_seconds is None:
                failure = Failure(first.test, name, row.verdict, retimed=True)
                break
            samples[side].append(row.cpu_seconds)
        if failure is not None:
            break
    seconds, peer_seconds = (tuple(x) for x in samples)
    return Retime(first.suite, first.test, engine, first.ratio, seconds, peer_seconds, failure)
