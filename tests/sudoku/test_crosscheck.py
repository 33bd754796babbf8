"""Which side a cross-check names as the odd one out, on a real puzzle."""

from __future__ import annotations

from pathlib import Path

from plpuzzle.sudoku.domain.model import Grid, Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions
from plpuzzle.sudoku.runs.crosscheck import compare

BUNDLED = Path(__file__).resolve().parents[2] / "puzzles" / "sudoku" / "consecutive"
PUZZLE = load_puzzle(BUNDLED / "test004d.txt")
ALL = load_solutions(BUNDLED / "test004s.txt", PUZZLE.n)  # five solutions


def side(engine: str, solutions: list[Grid], status: Status = Status.OK) -> SolveResult:
    return SolveResult(engine, status, list(solutions))


def test_the_one_side_that_misses_solutions_is_named() -> None:
    check = compare(
        PUZZLE,
        Rules.CONSECUTIVE,
        [side("prolog", ALL[:1]), side("python", ALL), side("cpsat", ALL)],
    )
    assert not check.agree
    assert check.odd_one_out == "prolog"


def test_the_one_right_side_is_named_too_and_the_faults_say_who_is_wrong() -> None:
    check = compare(
        PUZZLE,
        Rules.CONSECUTIVE,
        [side("prolog", ALL), side("python", ALL[1:]), side("cpsat", ALL[1:])],
    )
    assert check.odd_one_out == "prolog"
    assert [f.engine for f in check.findings if f.faults] == ["python", "cpsat"]


def test_repeats_and_unfinished_runs_count_as_answering_differently() -> None:
    repeated = compare(
        PUZZLE,
        Rules.CONSECUTIVE,
        [side("prolog", ALL), side("python", ALL + ALL[:1]), side("cpsat", ALL)],
    )
    assert repeated.odd_one_out == "python"
    timed_out = compare(
        PUZZLE,
        Rules.CONSECUTIVE,
        [side("prolog", ALL), side("python", ALL), side("cpsat", [], Status.TIMEOUT)],
    )
    assert timed_out.odd_one_out == "cpsat"


def test_no_odd_one_out_with_two_sides_agreement_or_three_answers() -> None:
    rules = Rules.CONSECUTIVE
    assert (
        compare(PUZZLE, rules, [side("prolog", ALL[:1]), side("python", ALL)]).odd_one_out is None
    )
    agreeing = [side(e, ALL) for e in ("prolog", "python", "cpsat")]
    assert compare(PUZZLE, rules, agreeing).odd_one_out is None
    split = [side("prolog", ALL[:1]), side("python", ALL[:2]), side("cpsat", ALL)]
    assert compare(PUZZLE, rules, split).odd_one_out is None
