"""The library facade: `plpuzzle.sudoku.solve/check/test/grade` on real engines,
and the examples in their docstrings, run as doctests."""

from __future__ import annotations

import copy
import doctest
import inspect
import shutil
from pathlib import Path

import pytest

from plpuzzle import sudoku
from plpuzzle.sudoku import api
from plpuzzle.sudoku.domain import model
from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import FormatError, load_solutions
from plpuzzle.sudoku.runs.suite import SuiteError

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "puzzles" / "sudoku" / "consecutive"
EXAMPLE = BUNDLED / "test001d.txt"
FIXTURES = ROOT / "tests" / "fixtures"


def test_solve_takes_a_path_a_str_path_parsed_text_or_names_in_any_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = set(load_solutions(BUNDLED / "test001s.txt"))
    from_path = sudoku.solve(EXAMPLE, engine="python")
    from_parsed = sudoku.solve(
        Puzzle.parse(EXAMPLE.read_text()), engine="Prolog", rules="CONSECUTIVE"
    )
    from_text = sudoku.solve(text=EXAMPLE.read_text(), engine="python")
    monkeypatch.chdir(ROOT)  # as a REPL in the checkout types it
    from_str = sudoku.solve("puzzles/sudoku/consecutive/test001d.txt", engine="python")
    for result in (from_path, from_parsed, from_text, from_str):
        assert result.status is Status.OK and set(result.solutions) == expected
    assert from_parsed.engine == "prolog"


def test_puzzle_text_given_as_a_path_says_how_to_pass_text() -> None:
    with pytest.raises(ValueError, match=r"Puzzle\.parse\(text\).*text="):
        sudoku.solve(EXAMPLE.read_text())
    with pytest.raises(ValueError, match=r"Puzzle\.parse\(text\).*text="):
        sudoku.check(EXAMPLE.read_text(), engines="python")
    with pytest.raises(TypeError, match="not both"):
        sudoku.solve(EXAMPLE, text=EXAMPLE.read_text())


def test_solve_reports_bad_input_and_unknown_names_clearly(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="<string>:2:1"):
        sudoku.solve(text="2\nnot a puzzle\n")
    with pytest.raises(FormatError, match=r"nowhere\.txt: cannot read"):
        sudoku.solve(str(tmp_path / "nowhere.txt"))
    with pytest.raises(ValueError, match="unknown engine 'cobol'"):
        sudoku.solve(EXAMPLE, engine="cobol")
    with pytest.raises(ValueError, match="unknown rules 'odd'"):
        sudoku.solve(EXAMPLE, rules="odd")


def test_check_agrees_with_the_expected_file_and_catches_a_wrong_one(tmp_path: Path) -> None:
    good = sudoku.check(EXAMPLE, expected=BUNDLED / "test001s.txt")
    assert good.agree
    assert [f.engine for f in good.findings] == ["prolog", "python", "cpsat", "expected"]
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("[[[1,2,3,4],[3,4,1,2],[2,1,4,3],[4,3,2,1]]].\n")
    assert not sudoku.check(EXAMPLE, rules=Rules.CONSECUTIVE, expected=wrong).agree
    # Paths as str, one engine by name.
    one = sudoku.check(str(EXAMPLE), engines="python", expected=str(BUNDLED / "test001s.txt"))
    assert one.agree and [f.engine for f in one.findings] == ["python", "expected"]


def test_the_package_lists_its_public_names() -> None:
    public = {"solve", "check", "test", "generate", "grade", "Puzzle", "Rules", "FormatError"}
    assert public <= set(sudoku.__all__) == set(dir(sudoku))  # and nothing else
    for name in sudoku.__all__:
        assert getattr(sudoku, name) is not None
    assert sudoku.Puzzle is Puzzle and sudoku.solve.__module__ == "plpuzzle.sudoku.api"


def test_test_runs_a_suite_and_writes_the_printouts_where_asked(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("test001d.txt", "test001s.txt", "test002d.txt", "test002s.txt"):
        shutil.copy(BUNDLED / name, suite / name)
    seen = []
    results = sudoku.test(
        suite, engines=("prolog", "python"), out=tmp_path / "out", on_result=seen.append
    )
    assert [r.case.name for r in results] == ["test001", "test002"]
    assert all(r.verdict.value == "correct" for r in results), [r.summary() for r in results]
    assert len(seen) == 2
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["test001t.txt", "test002t.txt"]


@pytest.fixture(scope="module")
def oddsum_suite() -> Path:
    """A teacher's suite of three oddsum puzzles, which says so in
    suite.toml (made by sudoku.generate once: its README says how)."""
    return FIXTURES / "oddsum_suite"


def test_test_reads_the_suites_rules_and_refuses_rules_it_breaks(oddsum_suite: Path) -> None:
    """As the command line: the suite's rules, and a refusal (before
    anything runs) when its expected solutions break the rules asked for."""
    results = sudoku.test(oddsum_suite, solver="bundled")
    assert [r.verdict.value for r in results] == ["correct"] * 3, [r.summary() for r in results]
    with pytest.raises(SuiteError, match="but satisfy oddsum: pass rules='oddsum'"):
        sudoku.test(oddsum_suite, rules="consecutive")


def test_the_api_runs_the_students_own_solver_as_the_command_line_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """./sudoku.pl when the current folder has one; "bundled" names ours;
    check() takes a solver too."""
    shutil.copy(FIXTURES / "class" / "dave.pl", tmp_path / "sudoku.pl")  # misses solutions
    monkeypatch.chdir(tmp_path)
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("test002d.txt", "test002s.txt"):  # 4 solutions: misses.pl gives fewer
        shutil.copy(BUNDLED / name, suite / name)
    (own,) = sudoku.test(suite)
    (ours,) = sudoku.test(suite, solver="bundled")
    assert own.verdict.value == "wrong" and ours.verdict.value == "correct"
    puzzle, expected = suite / "test002d.txt", suite / "test002s.txt"
    assert not sudoku.check(puzzle, engines="prolog", expected=expected).agree
    assert sudoku.check(puzzle, engines="prolog", expected=expected, solver="bundled").agree
    with pytest.raises(ValueError, match="no such solver file"):
        sudoku.solve(puzzle, solver="nowhere.pl")


@pytest.mark.sandbox
def test_grade_grades_a_folder_and_writes_the_reports(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(FIXTURES / "class" / "alice.pl", subs / "alice.pl")
    outcome = sudoku.grade(subs, FIXTURES / "grading_suite", out=tmp_path / "report", time_limit=20)
    [alice] = outcome.report["students"]
    assert alice["id"] == "alice" and alice["score"] == alice["max_score"] > 0
    assert all((tmp_path / "report" / n).is_file() for n in ("grades.csv", "grades.html"))


def _examples() -> dict[str, doctest.DocTest]:
    """The docstring examples of the package, its API module and the model, by name."""
    finder = doctest.DocTestFinder()
    return {t.name: t for m in (sudoku, api, model) for t in finder.find(m) if t.examples}


EXAMPLES = _examples()
#: Examples that grade in the bubblewrap sandbox.
SANDBOXED = {"plpuzzle.sudoku.api.grade"}


def test_every_public_function_has_an_example() -> None:
    functions = [getattr(sudoku, n) for n in sudoku.__all__]
    names = {f"{f.__module__}.{f.__qualname__}" for f in functions if inspect.isfunction(f)}
    every = ("solve", "check", "test", "generate", "grade")
    assert {f"plpuzzle.sudoku.api.{n}" for n in every} <= names
    names.add("plpuzzle.sudoku.domain.model.Puzzle.parse")
    assert not names - EXAMPLES.keys(), f"no docstring example: {sorted(names - EXAMPLES.keys())}"


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.sandbox) if n in SANDBOXED else n for n in sorted(EXAMPLES)],
)
def test_the_docstring_examples_run(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each example runs as a REPL at the checkout's top would run it (its
    puzzles and test fixtures at the same relative paths), writing only
    into tmp_path."""
    for part in ("puzzles", "tests"):
        (tmp_path / part).symlink_to(ROOT / part)
    monkeypatch.chdir(tmp_path)
    test = copy.copy(EXAMPLES[name])
    test.globs = dict(test.globs)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_similar_compares_a_folder(tmp_path: Path) -> None:
    from plpuzzle.sudoku import api

    evidence = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "similarity"
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("rozsa", "vilma"):
        (folder / f"{name}.pl").write_text((evidence / "independent" / f"{name}.pl").read_text())
    (folder / "copy.pl").write_text((evidence / "copies" / "rozsa_vars.pl").read_text())
    sim = api.similar(folder)
    assert [(sim.student(p.a), sim.student(p.b)) for p in sim.above()] == [("copy", "rozsa")]
    assert api.similar(folder, threshold=1.0).above()[0].score == 1.0
