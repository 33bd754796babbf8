"""Shrinking a failing puzzle to the smallest one a solver still gets wrong.

The solvers here are real: Python solvers with a bug of a student's kind
(the reference engine on a puzzle with some infos dropped), and, in the
sandbox tests, a Prolog file with a bug (tests/fixtures/feedback/).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from plpuzzle.sandbox import jail
from plpuzzle.sandbox.workspace import RunFolder, read_regular_files
from plpuzzle.sudoku.domain.model import Field, Puzzle, Rules
from plpuzzle.sudoku.domain.textformat import load_puzzle, parse_puzzle
from plpuzzle.sudoku.engines import python_engine
from plpuzzle.sudoku.grading.feedback.shrink import (
    Answers,
    Mismatch,
    SandboxSolver,
    ShrinkBudget,
    count_infos,
    keep_only,
    places,
    shrink,
)
from plpuzzle.sudoku.grading.scheduling.local_pool import hidden_paths

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
BUGGY = REPO / "tests" / "fixtures" / "feedback" / "s_points_up.pl"


class Ignores:
    """A Python solver that ignores one info letter: the reference engine
    run on the puzzle without it (a bug a student's solver may have)."""

    def __init__(self, letter: str, rules: Rules = Rules.CONSECUTIVE) -> None:
        self.letter = letter
        self.rules = rules
        self.runs = 0

    def answers(self, puzzle: Puzzle, cap: int) -> Answers | None:
        self.runs += 1
        blind = Puzzle(
            puzzle.k,
            tuple(
                tuple(Field(tuple(i for i in f.infos if i != self.letter)) for f in row)
                for row in puzzle.fields
            ),
        )
        return Answers(list(itertools.islice(python_engine.solve_all(blind, self.rules), cap)))


def reference(puzzle: Puzzle, rules: Rules = Rules.CONSECUTIVE) -> list:
    return sorted(python_engine.solve_all(puzzle, rules))


@pytest.mark.slow
def test_a_solver_that_ignores_w_is_caught_on_a_tiny_puzzle() -> None:
    puzzle = load_puzzle(SUITE / "test008d.txt")
    solver = Ignores("w")
    outcome = shrink(solver, puzzle, Rules.CONSECUTIVE)
    found = outcome.counterexample
    assert found is not None, outcome.reason
    assert found.puzzle.k <= 2 and found.infos <= 3
    assert any("w" in f.infos for row in found.puzzle.fields for f in row)
    # It really fails: the solver's answers differ from the reference's.
    theirs = solver.answers(found.puzzle, 10_000)
    assert theirs is not None and sorted(set(theirs.grids)) != reference(found.puzzle)
    assert found.mismatch.ours == reference(found.puzzle)
    assert found.original_k == 3 and found.original_infos == count_infos(puzzle)


def test_greedy_shrinking_keeps_only_what_the_bug_needs() -> None:
    # A K=2 puzzle: no smaller K is tried, the infos are dropped one by one.
    puzzle = load_puzzle(SUITE / "test001d.txt")
    outcome = shrink(Ignores("e"), puzzle, Rules.CONSECUTIVE)
    found = outcome.counterexample
    assert found is not None
    letters = [i for row in found.puzzle.fields for f in row for i in f.infos]
    assert "e" in letters and len(letters) <= 3
    # Nothing left can go: without any one of its infos the bug disappears.
    for place in places(found.puzzle):
        rest = [p for p in places(found.puzzle) if p != place]
        smaller = keep_only(found.puzzle, rest)
        theirs = Ignores("e").answers(smaller, 10_000)
        assert theirs is not None
        assert (
            sorted(set(theirs.grids)) == reference(smaller)
            or not Mismatch(reference(smaller), theirs.grids).kinds & found.mismatch.kinds
        )


def test_a_correct_solver_has_no_counterexample() -> None:
    puzzle = load_puzzle(SUITE / "test004d.txt")
    outcome = shrink(Ignores("x"), puzzle, Rules.CONSECUTIVE)
    assert outcome.counterexample is None
    assert "did not go wrong" in outcome.reason
    assert outcome.runs == 1


def test_the_run_budget_is_kept_and_the_best_so_far_returned() -> None:
    puzzle = load_puzzle(SUITE / "test008d.txt")
    solver = Ignores("w")
    outcome = shrink(solver, puzzle, Rules.CONSECUTIVE, ShrinkBudget(runs=3))
    assert solver.runs == 3
    found = outcome.counterexample
    assert found is not None and "3 solver runs" in found.stopped


def test_a_puzzle_with_too_many_solutions_is_not_shrunk() -> None:
    puzzle = parse_puzzle("2\n- - - -\n- - - -\n- - - -\n- - - -\n")  # 288 solutions
    outcome = shrink(Ignores("w"), puzzle, Rules.CONSECUTIVE, ShrinkBudget(max_solutions=100))
    assert outcome.counterexample is None and "more than 100 solutions" in outcome.reason


@pytest.mark.sandbox
@pytest.mark.slow
def test_the_buggy_prolog_solver_is_shrunk_in_the_sandbox() -> None:
    puzzle = load_puzzle(SUITE / "test008d.txt")  # K=3, 56 infos
    files = read_regular_files(BUGGY, "sudoku.pl")
    limits = jail.Limits(cpu_seconds=5, wall_seconds=20, memory_mb=1024)
    with RunFolder() as run:
        folder = files.write(run.path / "sub")
        with SandboxSolver(run, folder, "sudoku.pl", "sicstus4", limits, hidden_paths()) as s:
            # Bounded by runs, not seconds: how far 20 s gets depends on
            # the load (39 runs of the 40 it needs, once, at 8 workers).
            outcome = shrink(s, puzzle, Rules.CONSECUTIVE, ShrinkBudget(seconds=3600))
        found = outcome.counterexample
        assert found is not None, outcome.reason
        assert found.puzzle.k == 2 and found.infos <= 3
        # A fresh sandbox, run on the shrunk puzzle: the bug is still there.
        with SandboxSolver(run, folder, "sudoku.pl", "sicstus4", limits, hidden_paths()) as s:
            theirs = s.answers(found.puzzle, 10_000)
    assert theirs is not None
    assert sorted(set(theirs.grids)) != reference(found.puzzle)
