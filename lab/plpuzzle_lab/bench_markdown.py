"""REPORT.md: the Markdown report of a `make bench` run.

The numbers mean little without the machine and the settings they were
taken with, so the report starts with those, then the ratios to CP-SAT,
every engine's totals beside Gecode's and Choco's with the ratios to them,
and the targets, then the official suite beside the course's reference
times, the other suites test by test, and the cost of the pyswip
interface. The terminal's summary (bench_output) shares its ratio,
totals, target and K tables.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import MAX_K
from plpuzzle.sudoku.runs.suite import Verdict
from plpuzzle_lab.bench_model import (
    PEER,
    PEERS,
    RATIO_FLOOR,
    REFERENCE_LIMIT,
    BenchRun,
    BenchSettings,
    Overhead,
    Reference,
    Row,
    SuiteSpec,
    engine_label,
    peer_title,
)
from plpuzzle_lab.bench_ratios import (
    K_TARGET_GIVEN,
    K_TARGET_REQUIRED,
    K_TARGET_SECONDS,
    Ratios,
    k_cell,
    ratio_table,
    ratio_text,
    retimed_mark,
    seconds_text,
    suite_totals,
    targets,
    worst_by_k,
)
from plpuzzle_lab.machine import load_text, machine_markdown

#: The thresholds of the "solved within" counts, in seconds.
THRESHOLDS = (1.0, 10.0, 60.0, 120.0)


def render_report(run: BenchRun, plot_name: str) -> str:
    """REPORT.md: machine, settings, ratios to CP-SAT, totals and ratios
    beside Gecode and Choco, targets, results, plot, the other suites,
    interop overhead."""
    main = run.settings.suites[0]
    others = [line for spec in run.settings.suites[1:] for line in ["", *_suite_section(run, spec)]]
    lines = [
        "# Benchmark: our sudoku engines beside CP-SAT, Gecode, Choco and the course's "
        "reference solvers",
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
        *_classical_section(run),
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


# --- settings ------------------------------------------------------------------------


def _retime_setting(s: BenchSettings) -> str:
    if s.retime_rounds <= 0:
        return "off"
    return (
        f"{s.retime_rounds} rounds for tests from {s.retime_share:g} to "
        f"{1 / s.retime_share:.3g} x the engine's per-puzzle goal, least CPU time of each side"
    )


def _settings_section(run: BenchRun) -> list[str]:
    s = run.settings
    suites = [
        f"- Suite `{spec.label}`: `{shown(spec.folder)}`, {spec.rules.value} rules, "
        f"{len(run.suite_tests(spec.label))} tests"
        for spec in s.suites
    ]
    reference = f"`{shown(s.reference)}`" if s.reference and run.references else "none found"
    return [
        "## Settings",
        "",
        *suites,
        f"- Tests selected: {f'`--only {s.only}`' if s.only else 'all'}",
        f"- Engines: {', '.join(s.engines)}; {s.jobs} test(s) at once, each engine in "
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
        "first timed test, so no time includes starting a worker or loading the solver. "
        "Gecode and Choco run a process per puzzle (see below): Gecode's time is its whole "
        "process's, Choco's its process time around building the model and the search.",
    ]


# --- ratios and targets (the terminal shows these tables too) ------------------------


RATIO_TEXT = (
    "CP-SAT (Google OR-tools, 1 worker) is the peer a user would pick instead of our "
    "engines; it ran in this same run, on the same tests, machine and settings. A ratio is "
    "engine CPU seconds / CP-SAT CPU seconds. *Total*: the sums over the tests both solved "
    "correctly, as measured. *Median* and *worst*: per test, with times under "
    f"{RATIO_FLOOR * 1000:g} ms counted as {RATIO_FLOOR * 1000:g} ms on both sides, so that "
    "noise on trivial tests does not count as speed. Tests where either side failed or "
    "timed out have no ratio: they are counted apart and named."
)


def ratio_rows(table: list[Ratios], names: int | None = None) -> list[list[str]]:
    """The ratio table's rows (RATIO_HEADER), naming at most `names` failures."""
    body = []
    for r in table:
        worst = r.worst
        failed = str(len(r.failures))
        total = f"{seconds_text(r.seconds)} s / {seconds_text(r.peer_seconds)} s"
        if r.failures:
            listed = r.failures if names is None else r.failures[:names]
            more = len(r.failures) - len(listed)
            failed += ": " + ", ".join(str(f) for f in listed) + (f", +{more}" if more else "")
        body.append(
            [
                r.suite,
                r.engine,
                str(len(r.tests)),
                f"{ratio_text(r.total)} ({total})",
                ratio_text(r.median),
                f"{ratio_text(worst.ratio)} ({worst.test}{retimed_mark(worst)})" if worst else "-",
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
    return lines + _table(RATIO_HEADER, ratio_rows(ratio_table(run)), "llrrrll")


def peers_text(run: BenchRun) -> list[str]:
    """How each classical peer of the run is run, with its version."""
    versions = run.peer_versions
    out = []
    if "gecode" in run.settings.engines:
        out.append(
            f"- **Gecode** ({versions.get('gecode', 'version unknown')}): `fzn-gecode -a -p 1` "
            "(every solution, one thread) on FlatZinc the lab writes from the rules "
            "(`plpuzzle_lab/peers.py`), the plain model: a variable per field over 1..N, the "
            "givens and parities as its domain, `all_different_int` with domain consistency on "
            "every row, column and box, and each `s`/`w` info a `gecode_table_int` of the value "
            "pairs it allows; Gecode's default search (no search annotation). Its CPU time is the "
            "whole process's (starting it and reading the model included), from the kernel."
        )
    if "choco" in run.settings.engines:
        out.append(
            f"- **Choco** ({versions.get('choco', 'version unknown')}): the same plain model "
            "through pychoco (`all_different` and `table` constraints), every solution by "
            "Choco's default search. Its CPU time is the process time around building the "
            "model and the search, pychoco loaded before."
        )
    return out


PEERS_TEXT = (
    "Each runs a process per puzzle, under the same limit as our engines (killed when its "
    "CPU time passes the time limit, or at the same wall-clock backstop), and its answers "
    "are judged against the expected files as ours are: a wrong solution set is a failure. "
    "They share no code or reasoning with our engines."
)

TOTALS_TEXT = (
    "Every engine's CPU seconds summed over the tests that every engine of this run answered "
    "correctly, so that each column sums the same tests; the others are counted in the last "
    "column."
)

CLASSICAL_RATIO_TEXT = (
    "Engine / Gecode and engine / Choco, as the CP-SAT ratios above (total: sums over the "
    "tests both solved; median and worst: per test, floored at "
    f"{RATIO_FLOOR * 1000:g} ms), but from the first pass only: re-timing near a goal is "
    "against CP-SAT."
)

#: The classical peers, the ones set beside our engines in their own section.
CLASSICAL = tuple(p for p in PEERS if p != PEER)


def totals_rows(run: BenchRun, short: bool = False) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the totals per suite: peers first, then ours
    (`short`: bare engine names, for the terminal's width)."""
    engines = [*run.settings.peers, *run.settings.ours]
    names = engines if short else [engine_label(e) for e in engines]
    header = ["suite", "tests", *names, "left out" if short else "not solved by all"]
    body = [
        [
            t.suite,
            str(t.tests),
            *(seconds_text(t.seconds[e]) for e in engines),
            str(t.left_out),
        ]
        for t in suite_totals(run)
    ]
    return header, body


def classical_ratios(run: BenchRun) -> list[Ratios]:
    """Every engine of ours against Gecode, then against Choco, per suite."""
    return [r for peer in CLASSICAL for r in ratio_table(run, retimed=False, peer=peer)]


def peer_ratio_rows(table: list[Ratios], names: int | None = None) -> list[list[str]]:
    """The ratio table's rows with the peer named (PEER_RATIO_HEADER)."""
    return [
        [row[0], row[1], r.peer, *row[2:]]
        for r, row in zip(table, ratio_rows(table, names), strict=True)
    ]


PEER_RATIO_HEADER = (
    "suite",
    "engine",
    "peer",
    "tests",
    "total",
    "median",
    "worst (test)",
    "failed apart",
)


def _classical_section(run: BenchRun) -> list[str]:
    lines = ["## Beside Gecode and Choco", ""]
    classical = [p for p in CLASSICAL if p in run.settings.engines]
    if not classical:
        return [
            *lines,
            "Not measured: neither Gecode nor Choco was among the engines run (see the notes "
            "under Settings).",
        ]
    titles = " and ".join(peer_title(p) for p in classical)
    lines += [
        f"The classical constraint solvers, clpfd's family (propagation and search), on the "
        f"same puzzles in the same run: {titles}.",
        "",
        *peers_text(run),
        "",
        PEERS_TEXT,
        "",
        "### Total CPU seconds per suite",
        "",
        TOTALS_TEXT,
        "",
    ]
    header, body = totals_rows(run)
    lines += _table(header, body)
    lines += [
        "",
        f"### Our engines / {' and '.join(peer_title(p) for p in classical)}",
        "",
        CLASSICAL_RATIO_TEXT,
        "",
    ]
    return lines + _table(PEER_RATIO_HEADER, peer_ratio_rows(classical_ratios(run)), "lllrrrll")


TARGET_HEADER = ("target", "measured", "status", "note")


def target_rows(run: BenchRun) -> list[list[str]]:
    """The targets table's rows (TARGET_HEADER)."""
    return [[t.name, t.measured, t.status, t.note] for t in targets(run)]


def k_rows(run: BenchRun) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the slowest test per K, a column per engine."""
    cells = worst_by_k(run)
    engines = run.settings.engines
    header = ["K", "tests", *(engine_label(e) for e in engines)]
    body = []
    for k in sorted({w.k for w in cells}):
        row = {w.engine: w for w in cells if w.k == k}
        tests = max(w.tests for w in row.values())
        body.append([str(k), str(tests), *(k_cell(row[e]) if e in row else "" for e in engines)])
    return header, body


def _targets_section(run: BenchRun) -> list[str]:
    lines = [
        "## Targets",
        "",
        "The performance goals, judged on this run. They are reported, not enforced: the exit "
        "code only says whether an engine gave a wrong answer or failed.",
        "",
    ]
    lines += _table(TARGET_HEADER, target_rows(run), "llll")
    header, body = k_rows(run)
    lines += [
        "",
        f"### Slowest test per K (at least {K_TARGET_GIVEN:.0%} of the values given)",
        "",
        f"Over every suite: CPU seconds of the slowest correctly solved test, and any test "
        f"not solved correctly. The goal is at most {K_TARGET_SECONDS:g} s in both of our "
        f"engines for every K up to {MAX_K}; the peers are shown for comparison. The target "
        f"needs a test for each K = {K_TARGET_REQUIRED[0]}..{MAX_K} (only the stress suites "
        "have them); smaller Ks count where some suite has such a test.",
        "",
    ]
    lines += _table(header, body, "lr" + "l" * (len(header) - 2)) if body else ["No such test."]
    return lines


# --- re-timing ------------------------------------------------------------------------


RETIME_TEXT = (
    "A single timed run can move by about a third between runs on a shared machine, so "
    "every test whose first-pass engine / CP-SAT ratio was within a factor of {share:g} of "
    "its engine's per-puzzle goal (either side of it) was timed again after the main "
    "runs: engine and CP-SAT alternately, "
    "one test at a time with nothing else of the benchmark running, {rounds} rounds, "
    "keeping each side's least CPU time (as timeit does: the least-disturbed sample, the "
    "same rule for both sides). The per-test ratios (median, worst, the per-puzzle target) "
    "use that re-timed ratio; the totals stay those of the first pass. A wrong answer or a "
    "timeout on re-timing counts as a failure of the test. Only the CP-SAT goals are "
    "re-timed: the ratios to Gecode and Choco, and the targets against Gecode, are those of "
    "the first pass."
)


def _samples(seconds: Sequence[float]) -> str:
    return ", ".join(seconds_text(x) for x in seconds) or "-"


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
            ratio_text(t.first_ratio),
            _samples(t.seconds),
            _samples(t.peer_seconds),
            ratio_text(t.ratio)
            if t.failure is None
            else f"**{t.failure.side}: {t.failure.verdict.value}**",
        ]
        for t in run.retimes
    ]
    header = ["suite", "test", "engine", "first pass", "engine CPU s", "CP-SAT CPU s", "re-timed"]
    return lines + _table(header, body, "lllrllr")


# --- the official suite beside the course's reference times ---------------------------


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
    refs = [run.references[r.test] for r in run.suite_tests(suite) if r.test in run.references]
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


def _summary_section(run: BenchRun, suite: SuiteSpec) -> list[str]:
    tests = run.suite_tests(suite.label)
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
        "on any test (for Gecode and Choco, their own process, as last seen while it ran).",
    ]
    return lines


def _by_k_section(run: BenchRun, suite: SuiteSpec) -> list[str]:
    tests = run.suite_tests(suite.label)
    ks = sorted({_k(run, r) for r in tests}, key=lambda k: (k is None, k or 0))
    header = ["K", "tests"] + [t.label for t in tallies(run, suite.label)]
    body = []
    for k in ks:
        names = {r.test for r in tests if _k(run, r) == k}
        cells = []
        for t in tallies(run, suite.label):
            times = [x for name, x in t.times.items() if name in names]
            solved = [x for x in times if x is not None]
            text = "-"
            if solved:
                text = f"{seconds_text(statistics.median(solved))} / {seconds_text(max(solved))}"
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
    tests = run.suite_tests(suite.label)
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


# --- the other suites and the interop overhead ---------------------------------------


SUITE_HEADINGS = {
    "consecutive": "The consecutive set",
    "stress-oddsum": "Stress suite: oddsum",
    "stress-consecutive": "Stress suite: consecutive",
}


def _suite_section(run: BenchRun, suite: SuiteSpec) -> list[str]:
    """A suite other than the official one, test by test (no course times)."""
    lines = [f"## {SUITE_HEADINGS.get(suite.label, suite.label)}", ""]
    index = {(r.test, r.engine): r for r in run.rows if r.suite == suite.label}
    tests = run.suite_tests(suite.label)
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
            seconds_text(o.swipl_cpu),
            seconds_text(o.swipl_wall),
            seconds_text(o.pyswip_cpu),
            seconds_text(o.pyswip_wall),
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


def _overhead_verdict(table: list[Overhead], busy: bool) -> list[str]:
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


# --- cells and tables -----------------------------------------------------------------


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str = "") -> list[str]:
    """A Markdown table; `align` has an l or r per column (default: first l, rest r)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---" if a == "l" else "---:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def shown(path: Path) -> str:
    """A path as the report shows it: relative to here when inside, not machine-specific."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _our_cell(row: Row | None) -> str:
    """A test's time, or why there is none; anything not correct stands out."""
    if row is None:
        return ""
    if row.correct and row.cpu_seconds is not None:
        return seconds_text(row.cpu_seconds)
    if row.verdict is Verdict.TIMEOUT:
        return "timeout"
    spent = f" {seconds_text(row.cpu_seconds)}" if row.cpu_seconds is not None else ""
    return f"**{row.verdict.value}**{spent}"


def _ref_cell(seconds: float | None, verdict: str) -> str:
    return seconds_text(seconds) if seconds is not None and verdict == "correct" else verdict
