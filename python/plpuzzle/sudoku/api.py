"""The library's front door: solve, check, test, generate, grade and compare
in one call each, each deciding as its command does (the solver, the
rules, the checks before a run).

Everything here takes plain values (files as `str` or `pathlib.Path`, rule
and engine names as strings or enums) and returns the same result objects
the command line prints, so a script or a notebook needs no knowledge of
workers, suites or gradebooks. A puzzle is a file, a parsed `Puzzle`
(`Puzzle.parse(text)`), or text given by keyword (`text=`): a `str` in a
file's place is always a file name, as it is for `test` and `grade`.

The examples run as doctests from the checkout's top folder (tests/sudoku/
test_api.py), where the bundled puzzles are in puzzles/sudoku/.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from plpuzzle.runtime import DEFAULT_DIALECT, DEFAULT_TIME_LIMIT, Dialect
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions
from plpuzzle.sudoku.engines import ENGINES, make_engine
from plpuzzle.sudoku.grading.feedback.build import ShrinkPolicy
from plpuzzle.sudoku.grading.gradebook import GradebookError
from plpuzzle.sudoku.grading.grader import (
    GradingInterrupted,
    GradingOutcome,
    GradingRequest,
    SetupProblem,
    course_language,
)
from plpuzzle.sudoku.grading.grader import grade as grade_request
from plpuzzle.sudoku.grading.model import GradeSettings, GradingError
from plpuzzle.sudoku.grading.requirements import ClassRequirements, check_class
from plpuzzle.sudoku.grading.scheduling.protocol import Scheduler
from plpuzzle.sudoku.grading.similarity import THRESHOLD, Similarity, compare_class
from plpuzzle.sudoku.grading.similarity import Settings as SimilaritySettings
from plpuzzle.sudoku.runs import generation, puzzle_maker
from plpuzzle.sudoku.runs.crosscheck import CrossCheck, compare
from plpuzzle.sudoku.runs.generation import MadePuzzle
from plpuzzle.sudoku.runs.run_setup import (
    DEFAULT_RULES,
    choose_rules,
    choose_solver,
    rules_problem,
)
from plpuzzle.sudoku.runs.runner import SUITE_ENGINES, RunSettings, SuiteRunner
from plpuzzle.sudoku.runs.suite import CaseResult, SuiteError, suite_cases
from plpuzzle.sudoku.runs.suite_config import load_manifest

#: The calls, and the errors `grade` raises, for callers such as the
#: command line (which catches them without reaching into grading/).
__all__ = [
    "GradebookError",
    "GradingInterrupted",
    "GradingOutcome",
    "SetupProblem",
    "check",
    "generate",
    "grade",
    "requirements",
    "similar",
    "solve",
    "test",
]

#: A file (its path as str or Path), or a parsed puzzle.
PuzzleLike = str | os.PathLike[str] | Puzzle


def _file(path: str | os.PathLike[str], what: str, instead: str) -> Path:
    """A file's path; a str holding a line break is text given where a
    file name belongs, which would otherwise fail as a strange file name."""
    if isinstance(path, str) and ("\n" in path or "\r" in path):
        raise ValueError(
            f"{what}: got text where a file name belongs ({path[:30]!r}...); "
            f"a str is a file name: {instead}"
        )
    return Path(path)


def as_puzzle(puzzle: PuzzleLike | None = None, text: str | None = None) -> Puzzle:
    """A `Puzzle` from a file or a puzzle, or from `text`; bad input raises FormatError.

    >>> as_puzzle("puzzles/sudoku/consecutive/test001d.txt").k
    2
    >>> as_puzzle(text="1\\n-\\n").n
    1
    """
    if (puzzle is None) == (text is None):
        raise TypeError("give a puzzle (a file or a Puzzle) or text=..., not both")
    if text is not None:
        return Puzzle.parse(text)
    if isinstance(puzzle, Puzzle):
        return puzzle
    assert puzzle is not None
    where = _file(puzzle, "puzzle", "pass puzzle text as Puzzle.parse(text), or as text=...")
    return load_puzzle(where)


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
    """An engine's name, checked, in any case (`"Prolog"` is `"prolog"`)."""
    name = engine.strip().lower()
    if name not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    return name


def engine_names(engines: str | Sequence[str]) -> tuple[str, ...]:
    """Engines by name: one name, names separated by commas, or a list of names
    (a lone str is never taken letter by letter)."""
    names = engines.split(",") if isinstance(engines, str) else list(engines)
    return tuple(as_engine_name(n) for n in names)


def _solver(
    solver: os.PathLike[str] | str | None, dialect: Dialect, engines: Sequence[str]
) -> tuple[Path | None, Dialect]:
    """The Prolog solver and its dialect, chosen as the command line
    chooses: `solver` (a file, or "bundled" for ours), else ./sudoku.pl
    when the current folder has one, else ours (always plain SWI)."""
    if "prolog" not in engines:
        return None, dialect
    choice = choose_solver(None if solver is None else str(solver), dialect, Path.cwd())
    return choice.path, choice.dialect


def solve(
    puzzle: PuzzleLike | None = None,
    *,
    text: str | None = None,
    rules: str | Rules = Rules.CONSECUTIVE,
    engine: str = "prolog",
    solver: os.PathLike[str] | str | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> SolveResult:
    """Every solution of one puzzle from one engine.

    The puzzle is a file, a `Puzzle`, or `text=` the text of one.
    `solver` is a Prolog file defining `sudoku/2`, or "bundled" for ours;
    without it, as on the command line, ./sudoku.pl of the current folder
    when there is one, else ours. The result says how the run ended
    (`result.status`); only a run with status OK has the complete list in
    `result.solutions`.

    >>> from plpuzzle import sudoku
    >>> result = sudoku.solve("puzzles/sudoku/consecutive/test001d.txt")
    >>> print(result.status, len(result.solutions), result.solutions[0])
    ok 1 ((2, 1, 4, 3), (3, 4, 2, 1), (4, 3, 1, 2), (1, 2, 3, 4))
    >>> sudoku.solve(text="1\\n-\\n", engine="python").solutions
    [((1,),)]
    """
    parsed = as_puzzle(puzzle, text)
    name = as_engine_name(engine)
    path, chosen = _solver(solver, dialect, [name])
    with make_engine(name, path, chosen) as running:
        return running.solve(parsed, as_rules(rules), time_limit)


def check(
    puzzle: PuzzleLike | None = None,
    *,
    text: str | None = None,
    rules: str | Rules = Rules.CONSECUTIVE,
    engines: str | Sequence[str] = ENGINES,
    expected: os.PathLike[str] | str | Sequence[Grid] | None = None,
    solver: os.PathLike[str] | str | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> CrossCheck:
    """Run several engines on one puzzle and compare them, refereed by the rules.

    The puzzle, and the Prolog engine's `solver`, are given as to
    `solve`. `expected` is a solution file, or the solutions themselves,
    taken as one more side. `check(...).agree` is True when every side
    found the same valid set.

    >>> from plpuzzle import sudoku
    >>> bundled = "puzzles/sudoku/consecutive/"
    >>> check = sudoku.check(bundled + "test004d.txt", expected=bundled + "test004s.txt")
    >>> check.agree, check.count, [f.engine for f in check.findings]
    (True, 5, ['prolog', 'python', 'cpsat', 'expected'])
    """
    parsed = as_puzzle(puzzle, text)
    chosen = as_rules(rules)
    names = engine_names(engines)
    path, prolog_dialect = _solver(solver, dialect, names)
    results = []
    for name in names:
        with make_engine(name, path, prolog_dialect) as running:
            results.append(running.solve(parsed, chosen, time_limit))
    if expected is not None:
        results.append(expected_side(expected, parsed.n))
    return compare(parsed, chosen, results)


def expected_side(expected: os.PathLike[str] | str | Sequence[Grid], n: int) -> SolveResult:
    """Expected solutions (a file, or the grids) as one more side of a cross-check."""
    if isinstance(expected, str | os.PathLike):
        instead = "pass the solutions' text through textformat.parse_solutions(text)"
        grids = load_solutions(_file(expected, "expected", instead), n)
    else:
        grids = list(expected)
    return SolveResult("expected", Status.OK, grids)


def test(
    suite: os.PathLike[str] | str,
    *,
    engines: str | Sequence[str] = ("prolog",),
    rules: str | Rules | None = None,
    solver: os.PathLike[str] | str | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    time_limit: float = DEFAULT_TIME_LIMIT,
    jobs: int = 1,
    only: str | None = None,
    out: os.PathLike[str] | str | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run a suite folder of `testNNNd.txt` puzzles and judge every test,
    as `plpuzzle sudoku test` does.

    `engines` names prolog, python or both (a name, "prolog,python", or a
    list): the first is judged and the other cross-checks it. `rules`
    left as None are the suite's (its suite.toml), else consecutive; a
    suite whose expected solutions break the rules is refused (SuiteError,
    saying which rules they keep), before anything runs. The Prolog
    `solver` is chosen as for `solve` (./sudoku.pl when the current folder
    has one). `only` picks tests as `--only` does. `out` is where the
    harness's `testNNNt.txt` printouts go (none by default).

    >>> from plpuzzle import sudoku
    >>> results = sudoku.test("puzzles/sudoku/consecutive", engines="python", only="test00[1-4]")
    >>> for r in results:
    ...     print(r.case.name, r.verdict, r.solution_count)
    test001 correct 1
    test002 correct 4
    test003 correct 0
    test004 correct 5
    """
    chosen = engine_names(engines)
    if not chosen or set(chosen) - set(SUITE_ENGINES):
        raise ValueError(f"engines: name one or both of {', '.join(SUITE_ENGINES)}")
    folder = _file(suite, "suite", "name a folder")
    cases = suite_cases(folder, only)
    rules_choice = choose_rules(None if rules is None else as_rules(rules), [folder])
    refusal, _warnings = rules_problem(cases, rules_choice, lambda r: f"rules={r!r}")
    if refusal:
        raise SuiteError(refusal)
    path, prolog_dialect = _solver(solver, dialect, chosen)
    settings = RunSettings(
        engines=chosen,
        rules=rules_choice.rules,
        solver=path,
        dialect=prolog_dialect,
        time_limit=time_limit,
        jobs=jobs,
        out_dir=Path(out) if out else None,
    )
    return SuiteRunner(settings).run(cases, on_result)


def generate(
    k: int,
    out: os.PathLike[str] | str,
    *,
    count: int = 1,
    solutions: tuple[int, int] | str = (1, 1),
    rules: str | Rules | None = None,
    seed: int | None = None,
    kind: str = "mixed",
    keep: float | None = None,
    given: float | None = None,
    start: int | None = None,
    force: bool = False,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> list[MadePuzzle]:
    """Make test puzzles with a number of solutions in `solutions` (a
    pair, or "MIN..MAX"), confirmed by all three engines, as `plpuzzle
    sudoku generate` does: each is written to `out` as testNNNd.txt, and
    its solutions as testNNNs.txt only when it is confirmed. `rules` left
    as None are those of out's suite.toml, else consecutive; `seed` None
    is a fresh one (each result names its puzzle's file). Raises
    RequestError for a request that cannot be carried out.

    >>> import tempfile
    >>> from plpuzzle import sudoku
    >>> made = sudoku.generate(2, tempfile.mkdtemp(), count=2, seed=7, solutions="1..3")
    >>> [(m.puzzle_path.name, m.confirmed, 1 <= m.made.solutions <= 3) for m in made]
    [('test001d.txt', True, True), ('test002d.txt', True, True)]
    """
    folder = Path(out)
    span = generation.solution_range(solutions) if isinstance(solutions, str) else solutions
    request = generation.GenerateRequest(
        k=k,
        rules=choose_rules(None if rules is None else as_rules(rules), [folder]).rules,
        count=count,
        solutions=span,
        seed=generation.fresh_seed() if seed is None else seed,
        kind=puzzle_maker.Kind(kind),
        keep=keep,
        out_dir=folder,
        start=start,
        force=force,
        time_limit=time_limit,
        given=given,
    )
    return generation.generate_all(request, generation.plan(request))


def grade(
    submissions: os.PathLike[str] | str,
    suite: os.PathLike[str] | str,
    *,
    out: os.PathLike[str] | str = "grading_report",
    rules: str | Rules | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    time_limit: float | None = None,
    wall_limit: float | None = None,
    memory_mb: int | None = None,
    points: os.PathLike[str] | str | None = None,
    jobs: int = 1,
    students: Sequence[str] = (),
    roster: os.PathLike[str] | str | None = None,
    feedback: bool = True,
    shrink_seconds: float = ShrinkPolicy().seconds_per_student,
    tell_identical: bool = False,
    similarity: bool = True,
    base: Sequence[os.PathLike[str] | str] = (),
    requirements: bool = True,
    only: str | None = None,
    tests: Sequence[str] = (),
    scheduler: str | Scheduler | None = None,
    db: os.PathLike[str] | str | None = None,
    feedback_views: Sequence[tuple[str, Sequence[str]]] = (),
    finishing: Callable[[], AbstractContextManager[object]] = nullcontext,
    language: str | None = None,
    languages: Mapping[str, str] | None = None,
    on_start: Callable[[int], Callable[[bool], None]] | None = None,
    on_phase: Callable[[str], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> GradingOutcome:
    """Grade every submission in a folder against a suite, in the sandbox,
    as `plpuzzle sudoku grade` does: the command calls this, the one
    place a grading request is built; each keyword is one of its options.

    Writes grades.csv/.json/.html, feedback/ and the resumable gradebook
    (`db`, default out/grades.sqlite) into `out`. `rules`, `time_limit`,
    `memory_mb` left as None come from suite.toml, else the defaults.
    `feedback_views` adds feedback on some tests only: each (folder,
    tests) into out/folder/feedback. `requirements` adds the course
    requirements (see `requirements()`); `tests` grades only those named.
    `scheduler` is a Dask scheduler's address, or a Scheduler of the
    caller's (see grading.scheduling); `finishing` is held while the
    reports and the feedback are written. Their `language` is "en" or
    "hu" (default: the suite's [course] language, else "en"), a student's
    feedback their own choice in `languages` (by id) if any.
    `on_start`, `on_phase`, `on_warning` hear of the progress (see
    grading.grader.grade).  Raises SetupProblem when this machine cannot
    sandbox, GradingError for bad input (the suite, points, roster),
    GradebookError for an unusable gradebook, and GradingInterrupted (a
    KeyboardInterrupt) on Ctrl-C.

    >>> import shutil, tempfile
    >>> from pathlib import Path
    >>> from plpuzzle import sudoku
    >>> work = Path(tempfile.mkdtemp())
    >>> (work / "class").mkdir()
    >>> _ = shutil.copy("tests/fixtures/class/alice.pl", work / "class")
    >>> outcome = sudoku.grade(work / "class", "tests/fixtures/grading_suite", out=work / "report")
    >>> [(s["id"], s["score"], s["max_score"]) for s in outcome.report["students"]]
    [('alice', 6, 6)]
    >>> sorted(p.name for p in outcome.paths)  # doctest: +NORMALIZE_WHITESPACE
    ['feedback', 'grades-wide.csv', 'grades.csv', 'grades.html', 'grades.json',
     'similarity.csv']
    >>> shutil.rmtree(work)
    """
    settings, given = _grade_settings(rules, dialect, time_limit, memory_mb, wall_limit)
    request = GradingRequest(
        Path(submissions), Path(suite), settings, Path(out), Path(db) if db else None,
        Path(points) if points else None, jobs, given=given,
        students=tuple(students), roster=Path(roster) if roster else None, feedback=feedback,
        tell_identical=tell_identical, shrink_seconds=shrink_seconds, scheduler=scheduler,
        only=only, similarity=similarity, base=tuple(Path(b) for b in base),
        requirements=requirements, tests=tuple(tests), finishing=finishing,
        feedback_views=tuple((folder, tuple(tests)) for folder, tests in feedback_views),
        language=language if language is not None else course_language(Path(suite)),
        languages=dict(languages or {}),
    )  # fmt: skip
    return grade_request(request, on_start, on_phase, on_warning)


def _grade_settings(rules: str | Rules | None, dialect: Dialect, time_limit: float | None,
                    memory_mb: int | None, wall_limit: float | None,
                    ) -> tuple[GradeSettings, frozenset[str]]:  # fmt: skip
    """The settings `grade` was given, the defaults for the rest, and the
    names of those given (the suite's suite.toml decides the others)."""
    given = {"rules": rules, "time_limit": time_limit, "memory_mb": memory_mb}
    settings = GradeSettings(
        as_rules(rules) if rules is not None else DEFAULT_RULES, dialect,
        time_limit if time_limit is not None else DEFAULT_TIME_LIMIT,
        memory_mb if memory_mb is not None else DEFAULTS.memory_mb, wall_limit,
    )  # fmt: skip
    return settings, frozenset(k for k, v in given.items() if v is not None)


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

    >>> from plpuzzle.sudoku import similar
    >>> found = similar("tests/fixtures/similarity/copies")
    >>> [(found.student(p.a), found.student(p.b), p.score) for p in found.above()]
    [('rozsa_order', 'rozsa_vars', 1.0)]
    """
    settings = SimilaritySettings(dialect, threshold)
    sim, _ = compare_class(Path(submissions), [Path(b) for b in base], settings, jobs)
    return sim


def requirements(
    submissions: os.PathLike[str] | str,
    *,
    suite: os.PathLike[str] | str | None = None,
    dialect: Dialect = DEFAULT_DIALECT,
    jobs: int = 1,
) -> ClassRequirements:
    """The course requirements of every hand-in of a folder (read as
    grade() reads it), as `plpuzzle sudoku requirements` reports them:
    clpfd reached from sudoku/2, head comments, layout, documentation.
    Nothing is run: the files are read by SWI-Prolog's reader in a
    confined process. `suite` is a suite folder whose suite.toml
    [requirements] table says which checks count and how (default: all
    shown, none charged). Raises GradingError for an unusable folder,
    SuiteError for a bad suite.toml, ReaderUnavailable when SWI-Prolog
    cannot run here.

    >>> from plpuzzle.sudoku import requirements
    >>> found = requirements("tests/fixtures/requirements")
    >>> for r in found.checked:
    ...     print(r.student, r.clpfd.status, r.documentation.present)
    closure_only yes False
    helper_module yes True
    no_clpfd no False
    plain_search no False
    univ_built unknown False
    """
    policy = None
    if suite is not None:
        folder = _file(suite, "suite", "name a folder")
        if not folder.is_dir():
            raise GradingError(f"{folder}: no such suite folder")
        manifest = load_manifest(folder)
        policy = manifest.requirements if manifest else None
    return check_class(Path(submissions), policy, dialect, jobs)
