"""Differential testing: the two engines referee each other on random puzzles.

Hypothesis draws small puzzles (K = 1..3, both rule variants) from random
solution grids: some infos true of the grid, some that may be false (so
contradictions, puzzles without solutions, come up too), and edge infos
that must be ignored. Both engines must then give the same solutions, each
once, and the validator must accept every one. Failing puzzles shrink to
few infos, since every drawn choice shrinks towards "no info".

The mutation check proves that this referee can fail: deliberately wrong
Prolog solvers (tests/fixtures/solvers/mutants/) must each be caught, on a
puzzle Hypothesis finds and shrinks.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, example, find, given, settings
from hypothesis import strategies as st

from plpuzzle.sudoku.domain.model import Field, Grid, Info, Puzzle, Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import parse_puzzle, puzzle_to_text
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.engines import Engine, make_engine
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine
from plpuzzle.sudoku.services.crosscheck import compare
from plpuzzle.sudoku.services.generator import count_solutions_up_to, random_grid

MUTANTS = Path(__file__).resolve().parents[1] / "fixtures" / "solvers" / "mutants"
TIME_LIMIT = 60.0
#: At most this many solutions per drawn puzzle.
MAX_SOLUTIONS = 300

#: What each cell may say besides its value, all true of the drawn grid.
#: Hypothesis shrinks a choice towards the first entry, "none".
TRUTHS = ("none", "parity", "relations")
#: Infos that may be false (a contradiction: no solution), for a few cells.
NOISE = ("wrong parity", "wrong value", "s", "w")


def related_letters(grid: Grid, rules: Rules, r: int, c: int) -> list[Info]:
    """The s/w infos true of cell (r, c) of `grid`; on the bottom row and
    the left column they have no partner and are always 'true'."""
    n = len(grid)
    letters: list[Info] = []
    if r + 1 == n or rules.related(grid[r][c], grid[r + 1][c]):
        letters.append("s")
    if c == 0 or rules.related(grid[r][c], grid[r][c - 1]):
        letters.append("w")
    return letters


def cell_infos(grid: Grid, rules: Rules, r: int, c: int, given: bool, choice: str) -> list[Info]:
    """The infos of one cell: its value if given, then what `choice` says."""
    value = grid[r][c]
    infos: list[Info] = [value] if given else []
    if choice == "parity":
        infos.append("e" if value % 2 == 0 else "o")
    elif choice == "relations":
        infos += related_letters(grid, rules, r, c)
    elif choice == "wrong parity":
        infos.append("o" if value % 2 == 0 else "e")
    elif choice in ("s", "w"):  # true or not, by chance
        infos.append(choice)
    elif choice == "wrong value" and len(grid) > 1:
        infos = [value % len(grid) + 1]  # the format holds one value per field
    return infos


@st.composite
def puzzles(draw: st.DrawFn, max_k: int = 3, rules: Rules | None = None) -> tuple[Puzzle, Rules]:
    """A random puzzle and a rule variant (`rules`, if given): infos true
    of a random grid, and at most two cells with infos that may be false.

    K = 3 puzzles give most values (up to 50 holes), so that the number of
    solutions stays small enough to enumerate; K <= 2 ones give any subset.
    """
    k = draw(st.integers(1, max_k))
    rules = rules or draw(st.sampled_from(list(Rules)))
    grid = random_grid(k, random.Random(draw(st.integers(0, 2**32 - 1))))
    n = k * k
    cells = [(r, c) for r in range(n) for c in range(n)]
    if k == 3:
        size = draw(st.integers(0, 50))
        holes = draw(st.sets(st.sampled_from(cells), min_size=size, max_size=size))
        givens = set(cells) - holes
    else:
        givens = draw(st.sets(st.sampled_from(cells)))
    truths = st.sampled_from(TRUTHS) if draw(st.booleans()) else st.just("none")
    choices = draw(st.lists(truths, min_size=n * n, max_size=n * n))
    noise = draw(st.dictionaries(st.sampled_from(cells), st.sampled_from(NOISE), max_size=2))
    rows = [
        [
            cell_infos(grid, rules, r, c, (r, c) in givens, noise.get((r, c), choices[r * n + c]))
            for c in range(n)
        ]
        for r in range(n)
    ]
    puzzle = Puzzle.from_rows(k, rows)
    # Holes may cluster (a whole empty band): leave out puzzles with too
    # many solutions to enumerate quickly. The count stops at the cap.
    assume(k < 3 or count_solutions_up_to(puzzle, rules, cap=MAX_SOLUTIONS) < MAX_SOLUTIONS)
    return puzzle, rules


@pytest.fixture(scope="module")
def engines() -> Iterator[list[Engine]]:
    both = [make_engine("prolog"), make_engine("python")]
    yield both
    for engine in both:
        engine.close()


def solve_all(engines: list[Engine], puzzle: Puzzle, rules: Rules) -> list[SolveResult]:
    return [e.solve(puzzle, rules, TIME_LIMIT) for e in engines]


def text_puzzle(text: str) -> tuple[Puzzle, Rules]:
    """A fixed example, in the course's text format, with its rules."""
    rules, _, body = text.partition("\n")
    return parse_puzzle(body), Rules(rules)


# Regressions and corner cases kept as fixed examples: a K=1 puzzle with a
# wrong parity, edge infos only, a K=2 contradiction through s and w, and a
# K=2 puzzle whose only infos are parities.
@example(text_puzzle("consecutive\n1\n1e\n"))
@example(text_puzzle("oddsum\n1\nows\n"))
@example(text_puzzle("consecutive\n2\n1w - - -\n- - - -\n- - - -\n- - - 1s\n"))
@example(text_puzzle("consecutive\n2\n1s 3 - -\n- - - -\n- - - -\n- - - -\n"))
@example(text_puzzle("oddsum\n2\no e o e\n- - - -\ne - - -\n- - - -\n"))
@given(puzzles())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_engines_give_the_same_valid_solutions_once(
    engines: list[Engine], case: tuple[Puzzle, Rules]
) -> None:
    puzzle, rules = case
    prolog, python = solve_all(engines, puzzle, rules)
    context = f"{rules}\n{puzzle_to_text(puzzle)}"
    for result in (prolog, python):
        assert result.status is Status.OK, f"{result.engine}: {result.message}\n{context}"
        assert not result.bad_answers, context
        assert not result.duplicates, f"{result.engine} repeats solutions\n{context}"
        for grid in result.solutions:
            assert validate(puzzle, [list(row) for row in grid], rules) == [], context
    assert sorted(prolog.solutions) == sorted(python.solutions), context
    assert compare(puzzle, rules, [prolog, python]).agree


def test_the_puzzles_cover_contradictions_and_many_solutions(engines: list[Engine]) -> None:
    """The strategy reaches what it must: puzzles with no solution, and
    puzzles with many, at every K. (find() fails when it cannot.)"""
    python = engines[1]

    def count(case: tuple[Puzzle, Rules]) -> int:
        result = python.solve(*case, TIME_LIMIT)
        assert result.status is Status.OK
        return len(result.solutions)

    # Each example is a worker round trip: no per-example deadline. Only
    # that such puzzles exist matters here, so the first one found does:
    # shrinking it would cost hundreds of solves.
    # A fixed seed keeps the search the same from run to run.
    patient = settings(deadline=None, phases=[Phase.generate], database=None, max_examples=2000)
    seeded = {"settings": patient, "random": random.Random(2013)}
    for k in (1, 2, 3):
        found = find(puzzles(), lambda c, k=k: c[0].k == k and count(c) == 0, **seeded)
        assert found[0].k == k
    assert count(find(puzzles(max_k=2), lambda c: count(c) >= 100, **seeded)) >= 100
    many = find(puzzles(), lambda c: c[0].k == 3 and count(c) >= 5, **seeded)
    assert count(many) >= 5


# --- the mutation check -----------------------------------------------------


def infos_of(puzzle: Puzzle) -> list[Info]:
    return [info for row in puzzle.fields for field in row for info in field.infos]


def caught(mutant: Engine, reference: Engine, case: tuple[Puzzle, Rules]) -> bool:
    """Whether the cross-check finds fault with the mutant (and only it)."""
    puzzle, rules = case
    mine, theirs = mutant.solve(puzzle, rules, TIME_LIMIT), reference.solve(puzzle, rules, 60)
    check = compare(puzzle, rules, [mine, theirs])
    mutant_finding, reference_finding = check.findings
    assert not reference_finding.faults, reference_finding.faults
    return bool(mutant_finding.faults)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mutant", "fault", "sign"),
    [
        pytest.param("ignores_w.pl", "gives", lambda p: "w" in infos_of(p), id="ignores_w"),
        pytest.param("ignores_boxes.pl", "gives", lambda p: p.k >= 2, id="ignores_boxes"),
        pytest.param("returns_duplicates.pl", "duplicate", lambda p: True, id="duplicates"),
    ],
)
def test_each_wrong_solver_is_caught_on_a_shrunk_puzzle(
    engines: list[Engine], mutant: str, fault: str, sign: Callable[[Puzzle], bool]
) -> None:
    """Hypothesis searches the puzzle space for one on which the cross-check
    faults the mutant, and shrinks it; the shrunk puzzle shows the bug."""
    wrong = PrologSudokuEngine(MUTANTS / mutant)
    try:
        # Mutants implement sudoku/2, the assignment's consecutive rules.
        puzzle, rules = find(
            puzzles(max_k=2, rules=Rules.CONSECUTIVE),
            lambda c: caught(wrong, engines[1], c),
            settings=settings(max_examples=300, deadline=None),
        )
        result = wrong.solve(puzzle, rules, TIME_LIMIT)
        finding = compare(puzzle, rules, [result, engines[1].solve(puzzle, rules, 60)]).findings[0]
    finally:
        wrong.close()
    assert any(fault in f for f in finding.faults), finding.faults
    assert sign(puzzle), puzzle_to_text(puzzle)
    assert len(infos_of(puzzle)) <= 4, puzzle_to_text(puzzle)


def test_a_correct_solver_is_not_caught(engines: list[Engine]) -> None:
    """The check is not trigger-happy: our own solver, loaded as a student's
    sudoku/2, is never faulted on a sample of consecutive puzzles."""
    student = PrologSudokuEngine(Path(__file__).resolve().parents[2] / "prolog" / "sudoku.pl")
    try:

        @given(puzzles(max_k=2, rules=Rules.CONSECUTIVE))
        @settings(max_examples=40, deadline=None)
        def never_caught(case: tuple[Puzzle, Rules]) -> None:
            assert not caught(student, engines[1], case)

        never_caught()
    finally:
        student.close()


def test_fields_keep_their_infos_in_order() -> None:
    """The strategy's building block: a given value comes first, then the
    chosen infos, as in the course's format."""
    grid = ((1, 2, 3, 4), (3, 4, 1, 2), (2, 1, 4, 3), (4, 3, 2, 1))
    assert cell_infos(grid, Rules.CONSECUTIVE, 0, 0, True, "relations") == [1, "w"]
    assert cell_infos(grid, Rules.CONSECUTIVE, 2, 1, False, "relations") == ["w"]
    assert cell_infos(grid, Rules.CONSECUTIVE, 3, 1, False, "relations") == ["s", "w"]
    assert cell_infos(grid, Rules.ODDSUM, 0, 1, False, "relations") == ["w"]
    assert cell_infos(grid, Rules.ODDSUM, 1, 0, False, "s") == ["s"]
    assert cell_infos(grid, Rules.CONSECUTIVE, 1, 1, True, "wrong value") == [1]
    assert cell_infos(grid, Rules.CONSECUTIVE, 1, 1, False, "wrong value") == [1]
    assert Field(tuple(cell_infos(grid, Rules.ODDSUM, 2, 2, False, "wrong parity"))).odd
