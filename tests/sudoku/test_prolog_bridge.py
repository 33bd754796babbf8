"""The Prolog engine: prolog/sudoku.pl and other solvers through pyswip."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from plpuzzle.runtime import prolog_file
from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions, parse_puzzle
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine, decode_answers, stack_limit

SOLVERS = Path(__file__).resolve().parents[1] / "fixtures" / "solvers"
EXAMPLE = parse_puzzle("2\new2s  w  e  -\n-  esw  -  o\n-  -  1  -\nw  s  -  -\n")
EXAMPLE_SOLUTION = ((2, 1, 4, 3), (3, 4, 2, 1), (4, 3, 1, 2), (1, 2, 3, 4))
EMPTY_K2 = Puzzle.from_rows(2, [[[] for _ in range(4)] for _ in range(4)])


@pytest.fixture(scope="module")
def ours() -> Iterator[PrologSudokuEngine]:
    engine = PrologSudokuEngine()
    yield engine
    engine.close()


def broken(name: str, grace: float = 2.0) -> PrologSudokuEngine:
    return PrologSudokuEngine(SOLVERS / f"{name}.pl", grace=grace)


def solve_with(name: str, time_limit: float = 30) -> SolveResult:
    """Solve the example once with a fixture solver, in a fresh worker."""
    engine = broken(name)
    try:
        return engine.solve(EXAMPLE, Rules.CONSECUTIVE, time_limit)
    finally:
        engine.close()


def test_example_has_its_one_solution(ours: PrologSudokuEngine) -> None:
    result = ours.solve(EXAMPLE, Rules.CONSECUTIVE, 30)
    assert result.status is Status.OK
    assert result.solutions == [EXAMPLE_SOLUTION]


def test_every_k2_grid_exactly_once(ours: PrologSudokuEngine) -> None:
    result = ours.solve(EMPTY_K2, Rules.CONSECUTIVE, 30)
    assert len(result.solutions) == 288
    assert not result.duplicates and result.clean


def test_no_solution_is_an_empty_list(ours: PrologSudokuEngine) -> None:
    puzzle = parse_puzzle("2\n1s - - -\n3 - - -\n- - - -\n- - - -\n")
    result = ours.solve(puzzle, Rules.CONSECUTIVE, 30)
    assert result.status is Status.OK and result.solutions == []


def test_rules_are_selected_by_option(ours: PrologSudokuEngine) -> None:
    # 1 over 3: odd sum? no (4); consecutive? no. 1 over 2: both yes.
    far = parse_puzzle("2\n1s - - -\n3 - - -\n- - - -\n- - - -\n")
    near = parse_puzzle("2\n1s - - -\n2 - - -\n- - - -\n- - - -\n")
    sum_odd_not_consecutive = parse_puzzle("2\n1s - - -\n4 - - -\n- - - -\n- - - -\n")
    assert ours.solve(far, Rules.ODDSUM, 30).solutions == []
    assert ours.solve(near, Rules.ODDSUM, 30).solutions
    assert ours.solve(sum_odd_not_consecutive, Rules.CONSECUTIVE, 30).solutions == []
    assert ours.solve(sum_odd_not_consecutive, Rules.ODDSUM, 30).solutions


def test_k1(ours: PrologSudokuEngine) -> None:
    assert ours.solve(parse_puzzle("1\nosw\n"), Rules.CONSECUTIVE, 30).solutions == [((1,),)]
    assert ours.solve(parse_puzzle("1\ne\n"), Rules.CONSECUTIVE, 30).solutions == []


def test_k10_is_accepted(ours: PrologSudokuEngine) -> None:
    n = 100
    rows = [[[] for _ in range(n)] for _ in range(n)]
    for r in range(n):
        for c in range(n):
            rows[r][c] = [(10 * (r % 10) + r // 10 + c) % n + 1]
    result = ours.solve(Puzzle.from_rows(10, rows), Rules.CONSECUTIVE, 120)
    assert result.status is Status.OK and len(result.solutions) == 1


def test_standalone_swipl_query() -> None:
    query = (
        "sudoku(s(2,[[[e,w,v(2),s],[w],[e],[]],[[],[e,s,w],[],[o]],"
        "[[],[],[v(1)],[]],[[w],[s],[],[]]]), S), print(S), nl"
    )
    out = subprocess.run(
        ["swipl", "-q", "-g", query, "-t", "halt", str(prolog_file("sudoku.pl"))],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.strip() == "[[2,1,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]]"


def test_duplicates_are_reported() -> None:
    result = solve_with("duplicates", 30)
    assert result.status is Status.OK
    assert result.duplicates == {EXAMPLE_SOLUTION: 2}
    assert not result.clean


def test_non_ground_answers_are_reported() -> None:
    result = solve_with("nonground", 30)
    assert result.solutions == [EXAMPLE_SOLUTION]
    assert [b.reason for b in result.bad_answers] == [
        "the answer is not ground (it holds unbound variables)"
    ]


def test_malformed_answers_are_reported() -> None:
    result = solve_with("malformed", 30)
    assert result.solutions == []
    assert [b.text for b in result.bad_answers] == ["solution", "[[1,2]]", "[[a]]"]


def test_decode_answers_checks_the_size() -> None:
    grids, bad = decode_answers([(True, "[[1]]"), (True, "[[1,2],[2,1]]")], 1)
    assert grids == [((1,),)]
    assert "rows, expected 1" in bad[0].reason


def test_time_limit_ends_a_loop_and_the_engine_stays_usable() -> None:
    engine = broken("loops", grace=30)
    try:
        result = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 1.0)
        assert result.status is Status.TIMEOUT
        assert result.wall_seconds < 30  # Prolog stopped it, not the kill after the grace
        pid = engine.worker._proc.pid if engine.worker._proc else None
        again = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 1.0)
        assert again.status is Status.TIMEOUT
        assert engine.worker._proc is not None and engine.worker._proc.pid == pid
    finally:
        engine.close()


def test_a_solver_that_swallows_the_time_limit_is_killed() -> None:
    engine = broken("stubborn", grace=1.0)
    try:
        result = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 0.5)
        assert result.status is Status.TIMEOUT
        assert "killed" in result.message
    finally:
        engine.close()


def test_halt_is_reported_as_a_crash_and_the_worker_lives_on() -> None:
    engine = broken("halts")
    try:
        first = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 10)
        assert engine.worker._proc is not None
        pid = engine.worker._proc.pid
        second = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 10)
        assert engine.worker._proc is not None and engine.worker._proc.pid == pid
    finally:
        engine.close()
    assert first.status is Status.CRASHED and first.message == "the solver called halt(3)"
    assert second.status is Status.CRASHED


def test_a_halt_that_ends_the_worker_is_a_crash_and_a_new_worker_follows() -> None:
    engine = broken("halts_indirectly")
    try:
        first = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 10)
        second = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 10)
    finally:
        engine.close()
    assert first.status is Status.CRASHED and "status 4" in first.message
    assert second.status is Status.CRASHED and "status 4" in second.message


def test_a_halt_ends_the_worker_at_once_whatever_clean_up_would_wait_for() -> None:
    # The solver's own halt hook sleeps for ten minutes; SWI-Prolog's
    # clean-up can also wait for good on its own (library(time)'s lock).
    result = solve_with("halts_into_a_stuck_hook", 10)
    assert result.status is Status.CRASHED and "status 5" in result.message


@pytest.mark.parametrize(
    ("name", "words"),
    [("syntax_error", "syntax_error.pl:3"), ("no_sudoku", "does not define sudoku/2")],
)
def test_load_errors(name: str, words: str) -> None:
    result = solve_with(name, 10)
    assert result.status is Status.LOAD_ERROR
    assert words in result.message


def test_exceptions_are_errors_with_the_prolog_message() -> None:
    result = solve_with("raises", 10)
    assert result.status is Status.ERROR
    assert "instantiat" in result.message.lower()


def test_solver_output_does_not_disturb_answers() -> None:
    result = solve_with("prints", 10)
    assert result.status is Status.OK and result.solutions == [EXAMPLE_SOLUTION]


@pytest.mark.parametrize("k", [2, *(pytest.param(k, marks=pytest.mark.slow) for k in (3, 4, 5, 6))])
def test_official_suite(official_suite: Path, ours: PrologSudokuEngine, k: int) -> None:
    """Every official test, with the course's 120 s limit each: the full
    run covers all 271."""
    checked = 0
    for path in sorted(official_suite.glob("test*d.txt")):
        puzzle = load_puzzle(path)
        if puzzle.k != k:
            continue
        expected = load_solutions(path.with_name(path.name.replace("d.txt", "s.txt")))
        result = ours.solve(puzzle, Rules.ODDSUM, 120)
        assert result.clean, path.name
        assert result.solutions and sorted(result.solutions) == expected, path.name
        checked += 1
    assert checked == {2: 24, 3: 75, 4: 74, 5: 74, 6: 24}[k]


def test_the_stack_limit_grows_with_the_puzzle(tmp_path: Path) -> None:
    """A solver sees a stack limit set for the puzzle it is given, the same
    on every path (the goal sets it), larger for K=10 than the default."""
    spy = tmp_path / "spy.pl"
    spy.write_text("sudoku(_, L) :- current_prolog_flag(stack_limit, L).\n")
    engine = PrologSudokuEngine(spy)
    try:
        seen = {}
        for k in (2, 10, 2):
            n = k * k
            puzzle = Puzzle.from_rows(k, [[[] for _ in range(n)] for _ in range(n)])
            result = engine.solve(puzzle, Rules.ODDSUM, 30)
            assert result.status is Status.OK, result.message
            (bad,) = result.bad_answers
            seen[k] = int(bad.text)
    finally:
        engine.close()
    assert seen[2] == stack_limit(2) == 1 << 30
    assert seen[10] == stack_limit(10) > 2 * (1 << 30)
