"""Ratios and targets: each engine against a peer, and the goals judged on them.

The peers (CP-SAT, OR-tools with one worker; the classical constraint
solvers Gecode and Choco) run in the same run as the solvers a user would
pick instead of our engines, so every engine is measured beside each of
them, test by test, as ratios (engine / peer). The targets of targets.toml
are judged from those ratios (each goal names its peer, CP-SAT unless it
says otherwise) and from the measured rows: reported, never enforced.
This module only computes; the reports format what it returns.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from plpuzzle.sudoku.domain.model import MAX_K
from plpuzzle.sudoku.runs.suite import natural_key
from plpuzzle_lab.bench_model import (
    OFFICIAL,
    PEER,
    PEERS,
    TARGETS,
    BenchRun,
    Failure,
    Retime,
    Row,
    floored_ratio,
    peer_title,
)
from plpuzzle_lab.machine import load_text

#: The K target: puzzles with at least this share of values given ...
K_TARGET_GIVEN: float = TARGETS["k"]["given"]
#: ... solved within this many CPU seconds, for every K up to MAX_K.
K_TARGET_SECONDS: float = TARGETS["k"]["seconds"]
#: The Ks the K target needs a test of: the ones beyond the official suite
#: (K = 2..6), which only the stress suites have. Smaller Ks count where a
#: suite has such a test (the official suite has none for K = 2).
K_TARGET_REQUIRED = tuple(range(7, MAX_K + 1))

#: The most the pyswip interface may add to plain swipl on large tests.
OVERHEAD_GOAL: float = TARGETS["overhead"]["most"]


def seconds_text(seconds: float) -> str:
    """CPU seconds as every table and note writes them."""
    return f"{seconds:.3f}" if seconds < 100 else f"{seconds:.1f}"


def ratio_text(ratio: float | None) -> str:
    """A ratio as every table writes it, "-" for none."""
    return "-" if ratio is None else f"{ratio:.2f}x"


# --- engine / peer ratios ---------------------------------------------------------


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
    """One engine against a peer (CP-SAT unless named) on one suite."""

    suite: str
    engine: str
    tests: list[TestRatio]  # every test both solved in the first pass (totals)
    failures: list[Failure]
    peer: str = PEER

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
    rows: Sequence[Row],
    suite: str,
    engine: str,
    retimes: Sequence[Retime] = (),
    peer: str = PEER,
) -> Ratios:
    """`engine` against `peer` on `suite`, from the rows of one run and
    the re-timings of its tests near a CP-SAT goal (re-timing is against
    CP-SAT only: the ratios to another peer are the first pass's).

    A test where either side did not answer correctly has no ratio: it is
    listed as a failure, once per side that failed; so is a test whose
    re-timing got a wrong answer (its first-pass times stay in the totals).
    """
    if peer != PEER:
        retimes = ()
    again = {t.test: t for t in retimes if t.suite == suite and t.engine == engine}
    mine = {r.test: r for r in rows if r.suite == suite and r.engine == engine}
    theirs = {r.test: r for r in rows if r.suite == suite and r.engine == peer}
    tests, failures = [], []
    for name in sorted(mine.keys() & theirs.keys(), key=natural_key):
        a, b = mine[name], theirs[name]
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
    return Ratios(suite, engine, tests, failures, peer)


def ratio_table(run: BenchRun, retimed: bool = True, peer: str = PEER) -> list[Ratios]:
    """Every suite and every engine of ours against `peer` (none without
    it); with `retimed` False, the first pass alone."""
    if peer not in run.settings.engines:
        return []
    retimes = run.retimes if retimed else []
    return [
        ratios_for(run.rows, spec.label, engine, retimes, peer)
        for spec in run.settings.suites
        for engine in run.settings.ours
        if run.engine_rows(engine, spec.label)
    ]


@dataclass(frozen=True)
class SuiteTotals:
    """Every engine's total CPU seconds on one suite, over the tests that
    every engine of the run answered correctly (so each sums the same
    tests); `left_out` counts the others."""

    suite: str
    tests: int
    seconds: dict[str, float]
    left_out: int


def suite_totals(run: BenchRun) -> list[SuiteTotals]:
    """Per suite with results, each engine's total over the common tests."""
    out = []
    engines = run.settings.engines
    for spec in run.settings.suites:
        rows = [r for r in run.rows if r.suite == spec.label and r.engine in engines]
        if not rows:
            continue
        by_test: dict[str, dict[str, Row]] = {}
        for r in rows:
            by_test.setdefault(r.test, {})[r.engine] = r
        common = [
            seen
            for seen in by_test.values()
            if all(
                e in seen and seen[e].correct and seen[e].cpu_seconds is not None for e in engines
            )
        ]
        seconds = {e: sum(seen[e].cpu_seconds or 0.0 for seen in common) for e in engines}
        out.append(SuiteTotals(spec.label, len(common), seconds, len(by_test) - len(common)))
    return out


# --- the targets -------------------------------------------------------------------


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
    """An engine's goals against a peer (CP-SAT unless named): its total
    over `suites` (None: over the official suite; `total` None: no such
    goal), and each puzzle of `suites` (None: every suite)."""

    engine: str
    total: float | None
    each: float
    suites: tuple[str, ...] | None = None
    peer: str = PEER

    def covers(self, suite: str) -> bool:
        return self.suites is None or suite in self.suites

    @property
    def total_suites(self) -> tuple[str, ...]:
        """The suites the total sums over."""
        return self.suites if self.suites is not None else (OFFICIAL,)


def ratio_goal(entry: dict[str, Any]) -> RatioGoal:
    """A `[[ratio]]` entry of targets.toml; ValueError for a peer that is
    not one of the bench's."""
    peer = entry.get("peer", PEER)
    if peer not in PEERS:
        raise ValueError(f"targets.toml: [[ratio]] peer {peer!r} is not one of {PEERS}")
    suites = tuple(entry["suites"]) if "suites" in entry else None
    return RatioGoal(entry["engine"], entry.get("total"), entry["each"], suites, peer)


RATIO_GOALS = tuple(ratio_goal(g) for g in TARGETS["ratio"])

#: (engine, suites (None: every suite but the official one), seconds, goal
#: only): every test of those suites solved within that many CPU seconds.
WITHIN_GOALS = tuple(
    (w["engine"], tuple(w["suites"]) if "suites" in w else None, w["seconds"], w.get("goal", False))
    for w in TARGETS["within"]
)


def per_puzzle_goal(engine: str, suite: str, peer: str = PEER) -> float | None:
    """The engine's per-puzzle ratio goal against `peer` on `suite`
    (RATIO_GOALS), None if it has none there."""
    return next(
        (g.each for g in RATIO_GOALS if g.engine == engine and g.peer == peer and g.covers(suite)),
        None,
    )


def suites_text(suites: Sequence[str] | None) -> str:
    """Some suites as target names say them: "official suite", "a, b and c
    suites"; None is every suite."""
    if suites is None:
        return "every suite"
    if len(suites) == 1:
        return f"{suites[0]} suite"
    return f"{', '.join(suites[:-1])} and {suites[-1]} suites"


def total_name(goal: RatioGoal) -> str:
    """The name of a goal's total target."""
    title = peer_title(goal.peer)
    return f"{goal.engine} total ≤ {goal.total:g}x {title}, {suites_text(goal.total_suites)}"


def each_name(goal: RatioGoal) -> str:
    """The name of a goal's per-puzzle target."""
    title = peer_title(goal.peer)
    where = suites_text(goal.suites)
    where = where if goal.suites is None else f"the {where}"
    return f"{goal.engine} ≤ {goal.each:g}x {title} on every puzzle of {where}"


def _total_target(table: list[Ratios], goal: RatioGoal) -> Target:
    """Total CPU over total CPU, summed over the goal's suites (the tests
    both sides solved), at most `goal.total`."""
    assert goal.total is not None
    engine, name = goal.engine, total_name(goal)
    found = [r for r in table if r.engine == engine and r.suite in goal.total_suites]
    seconds = sum(r.seconds for r in found)
    peer_seconds = sum(r.peer_seconds for r in found)
    if peer_seconds <= 0:
        what = suites_text(goal.total_suites)
        return Target(name, "-", NOT_MEASURED, f"no test of the {what} solved by both")
    total = seconds / peer_seconds
    measured = f"{total:.2f}x ({seconds_text(seconds)} s / {seconds_text(peer_seconds)} s)"
    several = len(goal.total_suites) > 1
    failures = [
        f for r in found for f in (_labelled(r.suite, x) if several else x for x in r.failures)
    ]
    notes = [] if total <= goal.total else [f"{total / goal.total:.2f} times the goal"]
    absent = [s for s in goal.total_suites if s not in {r.suite for r in found}]
    if absent:
        notes.append(f"no {', '.join(absent)} in this run")
    if failures:
        notes.append(_failure_note(failures))
    met = total <= goal.total and not any(f.side == engine for f in failures)
    return Target(name, measured, MET if met else NOT_MET, "; ".join(notes))


def _each_target(table: list[Ratios], goal: RatioGoal) -> Target:
    engine, each = goal.engine, goal.each
    name = each_name(goal)
    mine = [r for r in table if r.engine == engine and goal.covers(r.suite)]
    every = [t for r in mine for t in r.judged]
    failures = [f for r in mine for f in (_labelled(r.suite, x) for x in r.failures)]
    if not every and not failures:
        return Target(name, "-", NOT_MEASURED, "no test solved by both")
    worst = max(every, key=lambda t: t.ratio, default=None)
    measured = "-"
    if worst is not None:
        measured = f"worst {worst.ratio:.2f}x ({worst.suite}/{worst.test}{retimed_mark(worst)})"
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
        slowest = seconds_text(worst.cpu_seconds or 0.0)
        notes.append(f"slowest {slowest} s ({worst.suite}/{worst.test})")
    if late:
        shown = ", ".join(
            f"{r.suite}/{r.test} "
            + (
                r.verdict.value
                if not r.correct or r.cpu_seconds is None
                else f"{seconds_text(r.cpu_seconds)} s"
            )
            for r in late[:4]
        )
        more = f", +{len(late) - 4}" if len(late) > 4 else ""
        notes.append(f"over: {shown}{more}")
    return Target(name, measured, NOT_MET if late else MET, "; ".join(notes))


def retimed_mark(t: TestRatio) -> str:
    """What a table adds after a test whose ratio comes from re-timing."""
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
    """Per K and engine (the peers too, for comparison) the slowest test."""
    covered = [r for r in run.rows if r.k is not None and (r.given or 0.0) >= K_TARGET_GIVEN]
    out = []
    for k in sorted({r.k for r in covered if r.k is not None}):
        for engine in run.settings.engines:
            rows = [r for r in covered if r.k == k and r.engine == engine]
            if not rows:
                continue
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
        slowest = seconds_text(row.cpu_seconds or 0.0)
        measured = f"worst {slowest} s ({w.engine}, K={w.k}, {row.suite}/{row.test})"
    covered = {w.k for w in cells}
    missing = [k for k in K_TARGET_REQUIRED if k not in covered]
    notes = [f"K={w.k} {w.engine}: {k_cell(w)}" for w in slow]
    if missing:
        notes.append(f"no such test for K = {', '.join(map(str, missing))}")
    small = [k for k in range(2, K_TARGET_REQUIRED[0]) if k not in covered]
    if small:
        notes.append(f"none for K = {', '.join(map(str, small))} either (not required)")
    status = NOT_MET if slow else NOT_MEASURED if missing else MET
    return Target(name, measured, status, "; ".join(notes))


def k_cell(w: KWorst) -> str:
    """The slowest test of a K, and the tests not solved correctly."""
    parts = []
    if w.worst is not None:
        slowest = seconds_text(w.worst.cpu_seconds or 0.0)
        parts.append(f"{slowest} ({w.worst.suite}/{w.worst.test})")
    if w.failures:
        parts.append(", ".join(f"{r.suite}/{r.test} {r.verdict.value}" for r in w.failures[:3]))
    return "; ".join(parts) or "-"


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
    tables = {peer: ratio_table(run, peer=peer) for peer in run.settings.peers}
    out = []
    ours = run.settings.ours
    for goal in RATIO_GOALS:
        if goal.engine not in ours:
            continue
        if goal.peer not in tables:
            why = f"{peer_title(goal.peer)} was not run"
            if goal.total is not None:
                out.append(Target(total_name(goal), "-", NOT_MEASURED, why))
            out.append(Target(each_name(goal), "-", NOT_MEASURED, why))
            continue
        if goal.total is not None:
            out.append(_total_target(tables[goal.peer], goal))
        out.append(_each_target(tables[goal.peer], goal))
    for engine, suites, seconds, goal_only in WITHIN_GOALS:
        if engine in ours:
            out.append(_within_target(run, engine, suites, seconds, goal_only))
    out.append(_k_target(run))
    out.append(_overhead_target(run))
    return out
