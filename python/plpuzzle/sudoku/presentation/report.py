"""How a suite run is reported: the course harness's lines, a human table,
JSON and JUnit XML. All of them are built from the same CaseResults."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plpuzzle.reports import JUnitCase, junit_xml
from plpuzzle.sudoku.domain.model import Grid
from plpuzzle.sudoku.domain.textformat import harness_line
from plpuzzle.sudoku.presentation.case_report import case_report
from plpuzzle.sudoku.runs.runner import RunSettings
from plpuzzle.sudoku.runs.suite import CaseResult, Verdict
from plpuzzle.untrusted import json_for_pages

FORMATS = ("text", "ksudoku", "json", "junit")

#: The harness's Hungarian verdict words.
_KSUDOKU_VERDICT = {
    Verdict.CORRECT: "HELYES",
    Verdict.WRONG: "NEM HELYES",
    Verdict.NO_EXPECTED: "NINCS MEGOLDÁS",
}


@dataclass
class SuiteRun:
    """A finished run: settings, the suite folder, results in order, time."""

    suite: Path
    settings: RunSettings
    results: list[CaseResult]
    wall_seconds: float

    @property
    def counts(self) -> Counter[Verdict]:
        return Counter(r.verdict for r in self.results)

    @property
    def all_correct(self) -> bool:
        return bool(self.results) and all(r.verdict is Verdict.CORRECT for r in self.results)

    def slowest(self, n: int = 5) -> list[CaseResult]:
        timed = [r for r in self.results if r.results]
        return sorted(timed, key=lambda r: r.cpu_seconds, reverse=True)[:n]


def display_path(suite: Path, result: CaseResult) -> str:
    """The puzzle as the harness names it: the suite folder as given, then the file."""
    return str(suite / result.case.puzzle_path.name)


def ksudoku_line(suite: Path, result: CaseResult, time_limit: float) -> str:
    """One test's line, character for character as the course harness.

    Errors and unreadable files have no line in the harness; they get one
    of the same shape with `hiba:` (error) and the reason.
    """
    path = display_path(suite, result)
    if result.verdict is Verdict.TIMEOUT:
        return f"Feladvány: {path}, túllépte az időkorlátot ({time_limit:g} s)"
    word = _KSUDOKU_VERDICT.get(result.verdict)
    if word is None:
        return f"Feladvány: {path}, hiba: {result.reason}"
    primary = result.primary
    cpu = primary.cpu_seconds if primary else 0.0
    return f"{harness_line(path, result.solution_count, cpu)} {word}"


def summary_lines(run: SuiteRun) -> list[str]:
    """The closing summary: counts per verdict, time, the slowest tests."""
    counts = run.counts
    total = len(run.results)
    parts = [f"{counts[v]} {v.value}" for v in Verdict if counts[v]]
    cpu = sum(r.cpu_seconds for r in run.results)
    lines = [
        f"{total} tests: {', '.join(parts) or 'none'}",
        f"time: {run.wall_seconds:.1f} s wall clock, {cpu:.1f} s CPU in the engines, "
        f"{run.settings.jobs} parallel job(s)",
    ]
    slow = run.slowest()
    if slow:
        lines.append("slowest: " + ", ".join(f"{r.case.name} {r.cpu_seconds:.2f} s" for r in slow))
    return lines


def _grid_list(grids: list[Grid]) -> list[list[list[int]]]:
    return [[list(row) for row in g] for g in grids]


def to_json(run: SuiteRun) -> str:
    """Everything about the run, for programs."""
    s = run.settings
    tests: list[dict[str, Any]] = []
    for r in run.results:
        tests.append(
            {
                "name": r.case.name,
                "puzzle": str(r.case.puzzle_path),
                "k": r.k,
                "verdict": r.verdict.value,
                "reason": r.summary(),
                "solutions": r.solution_count,
                "expected_solutions": None if r.expected is None else len(r.expected),
                "cpu_seconds": round(r.cpu_seconds, 6),
                "engines": [
                    {
                        "engine": e.engine,
                        "status": e.status.value,
                        "solutions": len(e.solutions),
                        "cpu_seconds": round(e.cpu_seconds, 6),
                        "wall_seconds": round(e.wall_seconds, 6),
                        "message": e.message,
                    }
                    for e in r.results
                ],
                "missing": _grid_list(r.missing),
                "extra": _grid_list(r.extra),
                "duplicates": [
                    {"solution": _grid_list([g])[0], "times": c} for g, c in r.duplicates.items()
                ],
                "bad_answers": [{"answer": b.text, "reason": b.reason} for b in r.bad_answers],
            }
        )
    document = {
        "suite": str(run.suite),
        "settings": {
            "engines": list(s.engines),
            "rules": s.rules.value,
            "solver": str(s.solver) if s.solver else None,
            "dialect": s.dialect,
            "time_limit": s.time_limit,
            "jobs": s.jobs,
            "out_dir": str(s.out_dir) if s.out_dir else None,
        },
        "summary": {v.value: run.counts[v] for v in Verdict},
        "all_correct": run.all_correct,
        "wall_seconds": round(run.wall_seconds, 3),
        "tests": tests,
    }
    return json_for_pages(document, indent=2) + "\n"


def to_junit(run: SuiteRun) -> str:
    """JUnit XML: wrong answers are failures, solver trouble is an error; the
    text of each tells it as the pytest plugin does (case_report): the
    missing and extra solutions as boards, an engine's message."""
    cases = []
    for r in run.results:
        if r.verdict is Verdict.CORRECT:
            outcome = "passed"
        elif r.verdict is Verdict.WRONG or r.verdict is Verdict.NO_EXPECTED:
            outcome = "failure"
        else:
            outcome = "error"
        cases.append(
            JUnitCase(
                name=r.case.name,
                classname=f"sudoku.{run.suite.name or 'suite'}",
                seconds=r.cpu_seconds,
                outcome=outcome,  # type: ignore[arg-type]
                message=f"{r.verdict.value}: {r.summary()}".rstrip(": "),
                details=case_report(
                    r,
                    engine=run.settings.engines[0],
                    rules=run.settings.rules,
                    time_limit=run.settings.time_limit,
                ),
                properties={"solutions": str(r.solution_count), "verdict": r.verdict.value},
            )
        )
    return junit_xml(f"plpuzzle sudoku {run.suite}", cases, run.wall_seconds)
