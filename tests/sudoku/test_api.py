"""The library facade: `plpuzzle.sudoku.solve/check/test/grade` on real engines."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from plpuzzle import sudoku
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import FormatError, load_solutions

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "puzzles" / "sudoku" / "consecutive"
EXAMPLE = BUNDLED / "test001d.txt"
FIXTURES = ROOT / "tests" / "fixtures"


def test_solve_takes_a_path_text_or_names_in_any_case() -> None:
    expected = set(load_solutions(BUNDLED / "test001s.txt"))
    from_path = sudoku.solve(EXAMPLE, engine="python")
    from_text = sudoku.solve(EXAMPLE.read_text(), engine="Prolog", rules="CONSECUTIVE")
    assert from_path.status is Status.OK and from_text.status is Status.OK
    assert set(from_path.solutions) == expected == set(from_text.solutions)
    assert from_text.engine == "prolog"


def test_solve_reports_bad_input_and_unknown_names_clearly() -> None:
    with pytest.raises(FormatError):
        sudoku.solve("2\nnot a puzzle\n")
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


@pytest.mark.sandbox
def test_grade_grades_a_folder_and_writes_the_reports(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(FIXTURES / "class" / "alice.pl", subs / "alice.pl")
    outcome = sudoku.grade(subs, FIXTURES / "grading_suite", out=tmp_path / "report", time_limit=20)
    [alice] = outcome.report["students"]
    assert alice["id"] == "alice" and alice["score"] == alice["max_score"] > 0
    assert all((tmp_path / "report" / n).is_file() for n in ("grades.csv", "grades.html"))


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
