"""prolog/sudoku.pl as a model: sudoku_constraints/3 and its searches.

sudoku/3's search(labeling) labels the plain clpfd model with
labeling([ff]), so it is an oracle for the default search(staged) of
prolog/sudoku_labeling.pl (stages, the propagators of
prolog/sudoku_propagators.pl, lookahead when first-fail is lost) and for
search(lookahead) (the same looking ahead at every node): each must give
the same solution set. Each check runs in a plain `swipl` process that loads
prolog/sudoku.pl, as a teacher or student would query it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from plpuzzle.runtime import prolog_file
from plpuzzle.sudoku.domain.model import Puzzle
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions

CONSECUTIVE = Path(__file__).resolve().parents[2] / "puzzles" / "sudoku" / "consecutive"
#: The README's example and its one solution under the consecutive rules.
EXAMPLE = "s(2,[[[e,w,v(2),s],[w],[e],[]],[[],[e,s,w],[],[o]],[[],[],[v(1)],[]],[[w],[s],[],[]]])"
EXAMPLE_SOLUTION = "[[2,1,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]]"
#: Above this many solutions a puzzle is not compared (the sets get slow).
MAX_SOLUTIONS = 300
#: K = 3 puzzles whose plain labelling stays within seconds. The other
#: K = 3 puzzles take labeling([ff]) tens of seconds each (022-024) or
#: have thousands of solutions under oddsum.
K3 = {"test008", "test009", "test010", "test020", "test021", "test025", "test027"}


SWIPL = ["swipl", "-q", "-g", "use_module(library(clpfd))"]


def swipl(goal: str, timeout: float = 300) -> str:
    """Run `goal` in a fresh swipl with sudoku.pl and clpfd loaded; its stdout."""
    out = subprocess.run(
        [*SWIPL, "-g", goal, "-t", "halt", str(prolog_file("sudoku.pl"))],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def holds(goal: str) -> bool:
    """Whether `goal` succeeds once in a fresh swipl."""
    return swipl(f"( {goal} -> writeln(yes) ; writeln(no) )").strip() == "yes"


def bundled(max_k: int) -> list[tuple[str, Puzzle]]:
    """The bundled consecutive puzzles up to K = max_k, with K = 3 cut to K3."""
    chosen = []
    for path in sorted(CONSECUTIVE.glob("test*d.txt")):
        puzzle = load_puzzle(path)
        name = path.name.removesuffix("d.txt")
        if puzzle.k < 3 or (puzzle.k == 3 and name in K3 and max_k >= 3):
            chosen.append((name, puzzle))
    return chosen


COMPARE = """
compare_searches(Rules, Search, Name-Spec) :-
    findall(S, limit({cap1}, sudoku(Spec, S, [rules(Rules), search(Search)])),
            Staged),
    length(Staged, NB),
    (   NB > {cap}
    ->  format("~w skip~n", [Name])
    ;   findall(S, sudoku(Spec, S, [rules(Rules), search(labeling)]), Lab),
        length(Lab, NL),
        msort(Staged, SB),
        msort(Lab, SL),
        (   SB == SL -> Same = same ; Same = differ ),
        format("~w ~w ~w ~w~n", [Name, NB, NL, Same])
    )
"""


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["consecutive", "oddsum"])
@pytest.mark.parametrize("search", ["staged", "lookahead"])
def test_a_search_and_labeling_find_the_same_solutions(
    tmp_path: Path, rules: str, search: str
) -> None:
    puzzles = bundled(3)
    cases = tmp_path / "cases.pl"
    cases.write_text("".join(f"case('{name}', {p.to_term()}).\n" for name, p in puzzles))
    program = tmp_path / "compare.pl"
    program.write_text(COMPARE.format(cap=MAX_SOLUTIONS, cap1=MAX_SOLUTIONS + 1) + ".\n")
    goal = (
        f"consult('{program}'), consult('{cases}'), "
        f"forall(case(N, S), compare_searches({rules}, {search}, N-S))"
    )
    lines = swipl(goal, timeout=600).splitlines()
    assert [line.split()[0] for line in lines] == [name for name, _ in puzzles]
    compared = 0
    for line in lines:
        name, *rest = line.split()
        if rest == ["skip"]:
            continue
        staged, labeling, same = int(rest[0]), int(rest[1]), rest[2]
        assert (staged, same) == (labeling, "same"), name
        if rules == "consecutive":
            expected = load_solutions(CONSECUTIVE / f"{name}s.txt")
            assert staged == len(expected), name
        compared += 1
    # Only oddsum skips (puzzles with thousands of solutions).
    assert compared >= {"consecutive": len(puzzles), "oddsum": len(puzzles) - 2}[rules]


def test_constraints_accept_the_solution_and_reject_a_broken_one() -> None:
    assert holds(f"sudoku_constraints({EXAMPLE}, consecutive, {EXAMPLE_SOLUTION})")
    # Rows 1 and 2 swapped: still a sudoku, but the givens v(2) and v(1)
    # no longer hold.
    swapped = "[[3,4,2,1],[2,1,4,3],[4,3,1,2],[1,2,3,4]]"
    assert not holds(f"sudoku_constraints({EXAMPLE}, consecutive, {swapped})")
    # Two values swapped within a row: the columns repeat.
    broken = "[[1,2,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]]"
    assert not holds(f"sudoku_constraints({EXAMPLE}, consecutive, {broken})")


def test_constraints_follow_the_rules() -> None:
    # A 2 over a 4 at the left edge: the sum 6 is even, so the s info
    # fails under oddsum; 4-2 = 2, so it fails under consecutive too. A 1
    # over a 4 sums to 5 (odd) but differs by 3: oddsum only.
    far = "s(2,[[[v(2),s],[],[],[]],[[v(4)],[],[],[]],[[],[],[],[]],[[],[],[],[]]])"
    odd = "s(2,[[[v(1),s],[],[],[]],[[v(4)],[],[],[]],[[],[],[],[]],[[],[],[],[]]])"
    assert not holds(f"sudoku_constraints({far}, oddsum, R), append(R, V), label(V)")
    assert not holds(f"sudoku_constraints({far}, consecutive, R), append(R, V), label(V)")
    assert holds(f"sudoku_constraints({odd}, oddsum, R), append(R, V), label(V)")
    assert not holds(f"sudoku_constraints({odd}, consecutive, R), append(R, V), label(V)")


def test_constraints_post_without_labelling() -> None:
    empty = "s(2,[[[],[],[],[]],[[],[],[],[]],[[],[],[],[]],[[],[],[],[]]])"
    free = swipl(
        f"sudoku_constraints({empty}, consecutive, Rows), append(Rows, Vs), "
        "include(var, Vs, Free), length(Free, F), print(F), nl"
    )
    assert free.strip() == "16"


def test_search_option_is_checked() -> None:
    found = swipl(f"sudoku({EXAMPLE}, S, [search(labeling)]), print(S), nl")
    assert found.strip() == EXAMPLE_SOLUTION
    error = swipl(f"catch(sudoku({EXAMPLE}, _, [search(fast)]), error(E, _), true), print(E), nl")
    assert error.strip() == "type_error(oneof([staged,lookahead,labeling]),fast)"


def test_a_fully_given_grid_is_its_one_solution_under_oddsum() -> None:
    """Every half is decided before the value stage: taken as it is, it
    must still be the one answer, and a clash must still be no answer."""
    rows = [[2, 1, 4, 3], [3, 4, 2, 1], [4, 3, 1, 2], [1, 2, 3, 4]]

    def given(grid: list[list[int]]) -> str:
        return "s(2,[" + ",".join("[" + ",".join(f"[v({v})]" for v in r) + "]" for r in grid) + "])"

    goal = "findall(S, sudoku({}, S, [rules(oddsum)]), L), print(L), nl"
    assert swipl(goal.format(given(rows))).strip() == f"[{EXAMPLE_SOLUTION}]"
    clash = [[1, 2, 4, 3], *rows[1:]]  # the columns repeat
    assert swipl(goal.format(given(clash))).strip() == "[]"
