"""The pure-Python engine against known answers, brute force and the official suite."""

from __future__ import annotations

import itertools
import random
from functools import cache
from pathlib import Path

import pytest

from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions, parse_puzzle
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.engines.python_engine import count_solutions, half_search, solve_all
from plpuzzle.sudoku.engines.python_parity import ODD_VALUES

BOTH_RULES = [Rules.CONSECUTIVE, Rules.ODDSUM]

SPEC_EXAMPLE = [
    [["e", "w", 2, "s"], ["w"], ["e"], []],
    [[], ["e", "s", "w"], [], ["o"]],
    [[], [], [1], []],
    [["w"], ["s"], [], []],
]
SPEC_SOLUTION = ((2, 1, 4, 3), (3, 4, 2, 1), (4, 3, 1, 2), (1, 2, 3, 4))


def empty_rows(k: int) -> list[list[list[object]]]:
    n = k * k
    return [[[] for _ in range(n)] for _ in range(n)]


def solutions(puzzle: Puzzle, rules: Rules) -> list[Grid]:
    """All solutions, checked to be distinct, in sorted order."""
    found = list(solve_all(puzzle, rules))
    assert len(found) == len(set(found)), "a solution was yielded twice"
    return sorted(found)


# --- brute force over all 4 x 4 grids, written independently of both modules ---


@cache
def all_4x4_sudokus() -> tuple[Grid, ...]:
    """Every 4 x 4 grid whose rows, columns and boxes hold 1..4 once."""
    perms = list(itertools.permutations(range(1, 5)))

    def fits(rows: tuple[tuple[int, ...], ...]) -> bool:
        """No column or box repeats a value among the rows placed so far."""
        for c in range(4):
            column = [row[c] for row in rows]
            if len(set(column)) < len(column):
                return False
        for top in (0, 2):
            for left in (0, 2):
                box = [row[c] for row in rows[top : top + 2] for c in (left, left + 1)]
                if len(set(box)) < len(box):
                    return False
        return True

    found: list[tuple[tuple[int, ...], ...]] = [()]
    for _ in range(4):
        found = [(*rows, p) for rows in found for p in perms if fits((*rows, p))]
    return tuple(found)


def satisfies_infos(puzzle: Puzzle, grid: Grid, rules: Rules) -> bool:
    """Whether a latin-sudoku grid keeps every info (the test's own reading)."""
    n = puzzle.n

    def related(a: int, b: int) -> bool:
        return abs(a - b) == 1 if rules is Rules.CONSECUTIVE else (a + b) % 2 == 1

    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            for info in puzzle.fields[r][c].infos:
                if isinstance(info, int) and v != info:
                    return False
                if info == "e" and v % 2:
                    return False
                if info == "o" and not v % 2:
                    return False
                if info == "s" and r + 1 < n and not related(v, grid[r + 1][c]):
                    return False
                if info == "w" and c > 0 and not related(v, grid[r][c - 1]):
                    return False
    return True


def brute_force(puzzle: Puzzle, rules: Rules) -> list[Grid]:
    return sorted(g for g in all_4x4_sudokus() if satisfies_infos(puzzle, g, rules))


def random_puzzle(rng: random.Random, k: int, density: float) -> Puzzle:
    """Random infos; the mix gives puzzles with none, one and many solutions."""
    n = k * k
    rows = []
    for _ in range(n):
        row = []
        for _ in range(n):
            infos: list[object] = [x for x in "eosw" if rng.random() < density]
            if rng.random() < density / 2:
                infos.append(rng.randint(1, n))
            rng.shuffle(infos)
            row.append(infos)
        rows.append(row)
    return Puzzle.from_rows(k, rows)


def test_brute_force_sees_the_288_grids() -> None:
    assert len(all_4x4_sudokus()) == 288


@pytest.mark.parametrize("rules", BOTH_RULES)
def test_random_4x4_puzzles_match_brute_force(rules: Rules) -> None:
    rng = random.Random(f"4x4-{rules}")
    counts = []
    for _ in range(300):
        puzzle = random_puzzle(rng, 2, density=rng.choice([0.1, 0.2, 0.3]))
        expected = brute_force(puzzle, rules)
        assert solutions(puzzle, rules) == expected, puzzle.to_term()
        counts.append(len(expected))
    # The sample must exercise all three outcomes, or the test proves little.
    assert 0 in counts
    assert 1 in counts
    assert any(c > 1 for c in counts)


@pytest.mark.parametrize("rules", BOTH_RULES)
def test_every_yielded_solution_passes_the_validator(rules: Rules) -> None:
    rng = random.Random(f"valid-{rules}")
    seen = 0
    for _ in range(100):
        puzzle = random_puzzle(rng, 2, density=0.1)
        for grid in solve_all(puzzle, rules):
            assert validate(puzzle, grid, rules) == []
            seen += 1
    assert seen > 100


# --- known answers -------------------------------------------------------------


def test_spec_example_has_exactly_its_one_solution() -> None:
    puzzle = Puzzle.from_rows(2, SPEC_EXAMPLE)
    assert solutions(puzzle, Rules.CONSECUTIVE) == [SPEC_SOLUTION]


def test_spec_example_from_text_and_default_rules() -> None:
    text = "2\new2s  w  e  -\n-  esw  -  o\n-  -  1  -\nw  s  -  -\n"
    assert list(solve_all(parse_puzzle(text))) == [SPEC_SOLUTION]


def test_spec_example_under_oddsum_matches_brute_force() -> None:
    puzzle = Puzzle.from_rows(2, SPEC_EXAMPLE)
    expected = brute_force(puzzle, Rules.ODDSUM)
    assert solutions(puzzle, Rules.ODDSUM) == expected


@pytest.mark.parametrize("rules", BOTH_RULES)
def test_empty_4x4_has_all_288_grids(rules: Rules) -> None:
    assert solutions(Puzzle.from_rows(2, empty_rows(2)), rules) == sorted(all_4x4_sudokus())
    assert count_solutions(Puzzle.from_rows(2, empty_rows(2)), rules) == 288


@pytest.mark.parametrize("rules", BOTH_RULES)
def test_s_in_bottom_row_and_w_in_left_column_are_ignored(rules: Rules) -> None:
    rows = empty_rows(2)
    for i in range(4):
        rows[3][i].append("s")
        rows[i][0].append("w")
    assert count_solutions(Puzzle.from_rows(2, rows), rules) == 288


@pytest.mark.parametrize("rules", BOTH_RULES)
def test_s_and_w_inside_the_grid_do_restrict(rules: Rules) -> None:
    rows = empty_rows(2)
    rows[0][1].append("w")
    rows[0][1].append("s")
    count = count_solutions(Puzzle.from_rows(2, rows), rules)
    assert 0 < count < 288
    assert count == len(brute_force(Puzzle.from_rows(2, rows), rules))


# --- K = 1 --------------------------------------------------------------------


@pytest.mark.parametrize("rules", BOTH_RULES)
@pytest.mark.parametrize(
    ("infos", "expected"),
    [
        ([], [((1,),)]),
        ([1], [((1,),)]),
        (["o"], [((1,),)]),
        (["s", "w"], [((1,),)]),
        (["o", "s", 1, "w"], [((1,),)]),
        (["e"], []),
        (["e", "o"], []),
    ],
)
def test_k1(infos: list[object], expected: list[Grid], rules: Rules) -> None:
    assert solutions(Puzzle.from_rows(1, [[infos]]), rules) == expected


# --- contradictions -------------------------------------------------------------


def with_infos(k: int, infos: dict[tuple[int, int], list[object]]) -> Puzzle:
    """A puzzle that is empty except for the given 0-based cells."""
    rows = empty_rows(k)
    for (r, c), cell in infos.items():
        rows[r][c] = cell
    return Puzzle.from_rows(k, rows)


CONTRADICTIONS = {
    "even and odd": {(0, 0): ["e", "o"]},
    "value and parity": {(1, 2): [3, "e"]},
    "same value twice in a row": {(0, 0): [1], (0, 3): [1]},
    "same value twice in a column": {(0, 2): [4], (3, 2): [4]},
    "same value twice in a box": {(0, 0): [2], (1, 1): [2]},
    "value out of range": {(0, 0): [5]},
    "value zero": {(0, 0): [0]},
    "too many odd cells in a row": {(2, c): ["o"] for c in range(3)},
    "too many even cells in a box": {(0, 0): ["e"], (0, 1): ["e"], (1, 0): ["e"]},
    "value with nowhere to go in a box": {(0, 0): [1], (1, 2): ["e"], (1, 3): ["e"]},
}


@pytest.mark.parametrize("rules", BOTH_RULES)
@pytest.mark.parametrize("name", CONTRADICTIONS)
def test_contradictions_yield_nothing(name: str, rules: Rules) -> None:
    puzzle = with_infos(2, CONTRADICTIONS[name])
    assert list(solve_all(puzzle, rules)) == []
    assert brute_force(puzzle, rules) == []


def test_consecutive_contradiction() -> None:
    # 1 and 3 are not consecutive, but their sum is even as well.
    puzzle = with_infos(2, {(0, 0): [1, "s"], (1, 0): [3]})
    assert list(solve_all(puzzle, Rules.CONSECUTIVE)) == []
    assert list(solve_all(puzzle, Rules.ODDSUM)) == []


def test_the_rule_variants_differ() -> None:
    # 1 and 4 have an odd sum but are not consecutive.
    puzzle = with_infos(2, {(0, 1): [4, "w"], (0, 0): [1]})
    assert list(solve_all(puzzle, Rules.CONSECUTIVE)) == []
    assert count_solutions(puzzle, Rules.ODDSUM) == len(brute_force(puzzle, Rules.ODDSUM)) > 0


def test_parity_chain_contradicts_under_oddsum() -> None:
    # (1,1) o -w- (1,2) -s- (2,2) -w- (2,1) o: the parities alternate along the
    # chain, so (2,1) must be even, but its info says odd.
    puzzle = with_infos(2, {(0, 1): ["w", "s"], (1, 1): ["w"], (1, 0): ["o"], (0, 0): ["o"]})
    assert list(solve_all(puzzle, Rules.ODDSUM)) == []
    assert brute_force(puzzle, Rules.ODDSUM) == []


# --- larger grids ------------------------------------------------------------------


def planted_puzzle(rng: random.Random, k: int, rules: Rules) -> tuple[Puzzle, Grid]:
    """A random valid grid and infos that are all true of it."""
    n = k * k
    base = [[(k * (r % k) + r // k + c) % n + 1 for c in range(n)] for r in range(n)]
    relabel = list(range(1, n + 1))
    rng.shuffle(relabel)
    grid = tuple(tuple(relabel[v - 1] for v in row) for row in base)

    def related(a: int, b: int) -> bool:
        return abs(a - b) == 1 if rules is Rules.CONSECUTIVE else (a + b) % 2 == 1

    rows = []
    for r in range(n):
        row = []
        for c in range(n):
            v = grid[r][c]
            infos: list[object] = []
            if rng.random() < 0.15:
                infos.append(v)
            if rng.random() < 0.3:
                infos.append("e" if v % 2 == 0 else "o")
            if r + 1 < n and related(v, grid[r + 1][c]) and rng.random() < 0.5:
                infos.append("s")
            if c > 0 and related(v, grid[r][c - 1]) and rng.random() < 0.5:
                infos.append("w")
            row.append(infos)
        rows.append(row)
    return Puzzle.from_rows(k, rows), grid


@pytest.mark.parametrize("rules", BOTH_RULES)
@pytest.mark.parametrize("seed", range(5))
def test_planted_9x9_solution_is_found_and_all_are_valid(seed: int, rules: Rules) -> None:
    puzzle, grid = planted_puzzle(random.Random(seed), 3, rules)
    found = solutions(puzzle, rules)
    assert grid in found
    for sol in found:
        assert validate(puzzle, sol, rules) == []


def test_first_solution_of_an_empty_16x16() -> None:
    puzzle = Puzzle.from_rows(4, empty_rows(4))
    grid = next(solve_all(puzzle))
    assert validate(puzzle, grid, Rules.CONSECUTIVE) == []


# --- the official suite (SPEC 1.8) --------------------------------------------------


def official_tests(suite: Path, k: int) -> list[Path]:
    """The puzzle files of the given K, read from their first line."""
    found = []
    for path in sorted(suite.glob("test*d.txt")):
        first = path.read_text(encoding="latin-1").split()[0]
        if int(first) == k:
            found.append(path)
    return found


@pytest.mark.parametrize("k", [2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_official_suite(official_suite: Path, k: int) -> None:
    paths = official_tests(official_suite, k)
    assert paths, f"no K={k} tests in {official_suite}"
    wrong = []
    for path in paths:
        puzzle = load_puzzle(path)
        expected = load_solutions(path.with_name(path.name.replace("d.txt", "s.txt")))
        if solutions(puzzle, Rules.ODDSUM) != expected:
            wrong.append(path.name)
    assert wrong == []


# --- a half the parity stage decided already -----------------------------------


def test_a_decided_half_is_its_own_solution_and_an_open_one_is_searched() -> None:
    """The odd cells of the spec example's solution, all decided, are taken
    as they are; with one of them opened again they are searched, and come
    back to the same values."""
    full = 0b11110  # values 1..4
    domains = [1 << v for row in SPEC_SOLUTION for v in row]
    odd_cells = [c for c, d in enumerate(domains) if d & ODD_VALUES]
    odd_values = full & ODD_VALUES
    assert list(half_search(2, odd_cells, odd_values, domains)) == [domains]

    reopened = list(domains)
    reopened[odd_cells[0]] = odd_values  # 1 or 3: the unit rules must decide it
    found = list(half_search(2, odd_cells, odd_values, reopened))
    assert len(found) == 1
    assert [found[0][c] for c in odd_cells] == [domains[c] for c in odd_cells]


@pytest.mark.parametrize("rules", BOTH_RULES)
def test_a_fully_given_grid_is_its_one_solution(rules: Rules) -> None:
    """Every parity is decided at the root, and so is every half."""
    rows = [[[v] for v in row] for row in SPEC_SOLUTION]
    assert solutions(Puzzle.from_rows(2, rows), rules) == [SPEC_SOLUTION]
    rows[0][0], rows[0][1] = [1], [2]  # the first column now holds 1 twice
    assert solutions(Puzzle.from_rows(2, rows), rules) == []
