"""The library's front door: solve, check, test, grade and compare in one call each.

Everything here takes plain values (puzzle text or a path, rule and engine
names as strings or enums) and returns the same result objects the command
line prints, so a script or a notebook needs no knowledge of workers,
suites or gradebooks. Puzzles are given as text (`str`), as a file
(`pathlib.Path`), or as a parsed `Puzzle`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from plpuzzle.engine import DEFAULT_DIALECT, DEFAULT_TIME_LIMIT, Dialect
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.results import SolveResult
from plpuzzle.sudoku.domain.textformat import (
    load_puzzle,
    load_solutions,
    parse_puzzle,
    parse_solutions,
)
from plpuzzle.sudoku.engines import ENGINES, make_engine
from plpuzzle.sudoku.grading.grader import GradingOutcome, GradingRequest
from plpuzzle.sudoku.grading.grader import grade as grade_request
from plpuzzle.sudoku.grading.model import GradeSettings
from plpuzzle.sudoku.grading.similarity import THRESHOLD, Similarity, compare_class
from plpuzzle.sudoku.grading.similarity import Settings as SimilaritySettings
from plpuzzle.sudoku.services.crosscheck import CrossCheck, compare
from plpuzzle.sudoku.services.runner import SUITE_ENGINES, RunSettings, SuiteRunner
from plpuzzle.sudoku.services.suite import CaseResult, suite_cases

PuzzleLike = str | os.PathLike[str] | Puzzle


def as_puzzle(puzzle: PuzzleLike) -> Puzzle:
    """A `Puzzle` from text, a file, or a puzzle; bad input raises FormatError."""
    if isinstance(puzzle, Puzzle):
        return puzzle
    if isinstance(puzzle, str):
        return parse_puzzle(puzzle)
    return load_puzzle(Path(puzzle))


def as_rules(rules: str | Rules) -> Rules:
    """Rules by enum or by name, in any case (`"OddSum"` is `Rules.ODDSUM`)."""
    if isinstance(rules, Rules):
        return rules
    try:
        return Rules(rules.strip().lower())
    except ValueError:
        names = ", ".join(r.value for r in Rules)
        raise ValueError(f"unknown rules {rules!r}; choose from {names}") from None


def as_engine_name(engine: str) -> str:
    name = engine.strip().lower()
    if name not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    return name


def solve(
    puzzle: PuzzleLike,
    *,
    rules: str | Rules = Rules.CONSECUTIVE,
    engine: str = "prolog",
    solver: os.PathLike[str] | str | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> SolveResult:
    """Every solution of one puzzle from one engine.

    `solver` is a Prolog file defining `sudoku/2` (default: ours). The
    result says how the run ended (`result.status`); only a run with
    status OK has the complete list in `result.solutions`.
    """
    parsed = as_puzzle(puzzle)
    with make_engine(as_engine_name(engine), Path(solver) if solver else None, dialect) as running:
        return running.solve(parsed, as_rules(rules), time_limit)


def check(
    puzzle: PuzzleLike,
    *,
    rules: str | Rules = Rules.CONSECUTIVE,
    engines: Sequence[str] = ENGINES,
    expected: os.PathLike[str] | str | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> CrossCheck:
    """Run several engines on one puzzle and compare them, refereed by the rules.

    `expected` is a solution file (or its text) taken as one more side.
    `check(...).agree` is True when every side found the same valid set.
    """
    parsed = as_puzzle(puzzle)
    chosen = as_rules(rules)
    results = []
    for name in engines:
        with make_engine(as_engine_name(name)) as running:
            results.append(running.solve(parsed, chosen, time_limit))
    if expected is not None:
        results.append(expected_side(expected, parsed.n))
    return compare(parsed, chosen, results)


def expected_side(expected: os.PathLike[str] | str, n: int) -> SolveResult:
    """An expected-solution file as one more side of a cross-check."""
    from plpuzzle.sudoku.domain.results import Status

    if isinstance(expected, str):
        grids: list[Grid] = parse_solutions(expected, n=n)
    else:
        grids = load_solutions(Path(expected), n)
    return SolveResult("expected", Status.OK, grids)


def test(
    suite: os.PathLike[str] | str,
    *,
    engines: Sequence[str] | str = ("prolog",),
    rules: str | Rules = Rules.CONSECUTIVE,
    solver: os.PathLike[str] | str | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    time_limit: float = DEFAULT_TIME_LIMIT,
    jobs: int = 1,
    only: str | None = None,
    out: os.PathLike[str] | str | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run a suite folder of `testNNNd.txt` puzzles and judge every test.

    `engines` names prolog, python or both (a name or a list): the first
    is judged and the other cross-checks it. `out` is where the
    harness's `testNNNt.txt` printouts go (none by default).
    """
    names = [engines] if isinstance(engines, str) else list(engines)
    chosen = tuple(as_engine_name(n) for n in names)
    if not chosen or set(chosen) - set(SUITE_ENGINES):
        raise ValueError(f"engines: name one or both of {', '.join(SUITE_ENGINES)}")
    settings = RunSettings(
        engines=chosen,
        rules=as_rules(rules),
        solver=Path(solver) if solver else None,
        dialect=dialect,
        time_limit=time_limit,
        jobs=jobs,
        out_dir=Path(out) if out else None,
    )
    return SuiteRunner(settings).run(suite_cases(Path(suite), only), on_result)


def grade(
    submissions: os.PathLike[str] | str,
    suite: os.PathLike[str] | str,
    *,
    out: os.PathLike[str] | str = "grading_report",
    rules: str | Rules | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    time_limit: float | None = None,
    memory_mb: int | None = None,
    points: os.PathLike[str] | str | None = None,
    jobs: int = 1,
    students: Sequence[str] = (),
    roster: os.PathLike[str] | str | None = None,
    feedback: bool = True,
    shrink_seconds: float = 40.0,
    similarity: bool = True,
    base: Sequence[os.PathLike[str] | str] = (),
) -> GradingOutcome:
    """Grade every submission in a folder against a suite, in the sandbox.

    Writes grades.csv, grades.json, grades.html and the resumable
    gradebook grades.sqlite into `out`; grades already in the gradebook
    are reused. `rules`, `time_limit` and `memory_mb` left as None come
    from the suite's suite.toml, else the defaults (consecutive, 120 s,
    2048 MB). `students` regrades only those; `roster` names who should
    have handed in. `feedback` writes a file per student into
    out/feedback, with the smallest failing puzzle found within
    `shrink_seconds` per student (0: no search). `similarity` compares
    the hand-ins too (see similar()), leaving out what they share with the
    `base` files. Raises SetupProblem when this machine cannot
    sandbox, GradingError for bad input (the suite, points, roster), and
    GradingInterrupted (a KeyboardInterrupt) on Ctrl-C.
    """
    given = {"rules": rules, "time_limit": time_limit, "memory_mb": memory_mb}
    settings = GradeSettings(
        rules=as_rules(rules) if rules is not None else Rules.CONSECUTIVE,
        dialect=dialect,
        time_limit=time_limit if time_limit is not None else DEFAULT_TIME_LIMIT,
        memory_mb=memory_mb if memory_mb is not None else DEFAULTS.memory_mb,
    )
    request = GradingRequest(
        submissions=Path(submissions),
        suite=Path(suite),
        settings=settings,
        report_dir=Path(out),
        points_file=Path(points) if points else None,
        jobs=jobs,
        given=frozenset(k for k, v in given.items() if v is not None),
        students=tuple(students),
        roster=Path(roster) if roster else None,
        feedback=feedback,
        similarity=similarity,
        base=tuple(Path(b) for b in base),
        shrink_seconds=shrink_seconds,
    )
    return grade_request(request)


def similar(
    submissions: os.PathLike[str] | str,
    *,
    base: Sequence[os.PathLike[str] | str] = (),
    dialect: Dialect = DEFAULT_DIALECT,
    threshold: float = THRESHOLD,
    jobs: int = 1,
) -> Similarity:
    """Compare the hand-ins of a folder (read as grade() reads it) for
    similarity, leaving out what they share with the `base` files.

    `threshold` is a share (0.65: 65%); the result's `pairs` are every
    pair that shares a fingerprint, `above()` those at or above it, and
    `clusters()` the groups of three or more. Nothing is written; see
    plpuzzle.sudoku.grading.similarity.write_reports for the report
    files. Raises GradingError for an unusable folder or base file, and
    ReaderUnavailable when SWI-Prolog cannot run here.
    """
    settings = SimilaritySettings(dialect, threshold)
    sim, _ = compare_class(Path(submissions), [Path(b) for b in base], settings, jobs)
    return sim
