"""The CP-SAT engine: a third opinion that shares no reasoning with ours.

Its solution sets must match a brute force over the rules on small
puzzles, every bundled expected file, and official tests; a run that
cannot finish must say TIMEOUT, not hand back part of the solutions.
"""

from __future__ import annotations

import itertools
import random
from functools import cache
from pathlib import Path

import pytest

from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules, box_index
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions, parse_puzzle
from plpuzzle.sudoku.engines import ENGINES, make_engine
from plpuzzle.sudoku.engines.cpsat_engine import solve_all

pytest.importorskip("ortools")

BUNDLED = Path(__file__).resolve().parents[2] / "puzzles" / "sudoku" / "consecutive"


@cache
def all_k2_grids() -> tuple[Grid, ...]:
    """Every 4x4 sudoku, found by trying all rows: a brute force that knows
    nothing but the rules."""
    perms = list(itertools.permutations(range(1, 5)))
    grids = []
    for rows in itertools.product(perms, repeat=4):
        cols_ok = all(len({row[c] for row in rows}) == 4 for c in range(4))
        boxes: dict[int, set[int]] = {}
        for r, row in enumerate(rows):
            for c, v in enumerate(row):
                boxes.setdefault(box_index(r, c, 2), set()).add(v)
        if cols_ok and all(len(b) == 4 for b in boxes.values()):
            grids.append(tuple(rows))
    return tuple(grids)


def satisfies(grid: Grid, puzzle: Puzzle, rules: Rules) -> bool:
    """Whether a full sudoku grid meets every info, read off the README."""
    for r, row in enumerate(puzzle.fields):
        for c, field in enumerate(row):
            v = grid[r][c]
            if field.value is not None and v != field.value:
                return False
            if (field.odd and v % 2 == 0) or (field.even and v % 2 == 1):
                return False
    return all(
        rules.related(grid[a[0]][a[1]], grid[b[0]][b[1]]) for a, b, _ in puzzle.neighbour_pairs()
    )


def random_k2_puzzle(rng: random.Random) -> Puzzle:
    """A 4x4 puzzle with random infos, often unsolvable, sometimes loose."""
    rows = []
    for _ in range(4):
        row = []
        for _ in range(4):
            infos: list[str | int] = [i for i in "eosw" if rng.random() < 0.08]
            if rng.random() < 0.05:
                infos.append(rng.randint(1, 4))
            row.append(infos)
        rows.append(row)
    return Puzzle.from_rows(2, rows)


def test_the_brute_force_knows_all_288_grids() -> None:
    assert len(all_k2_grids()) == 288


@pytest.mark.parametrize("rules", list(Rules))
def test_random_k2_puzzles_match_a_brute_force(rules: Rules) -> None:
    rng = random.Random(17)
    counts = set()
    for _ in range(60):
        puzzle = random_k2_puzzle(rng)
        expected = sorted(g for g in all_k2_grids() if satisfies(g, puzzle, rules))
        counts.add(len(expected))
        assert sorted(solve_all(puzzle, rules) or []) == expected, puzzle
    # The sample must cover unsolvable, unique and many-solution puzzles.
    assert 0 in counts and 1 in counts and max(counts) > 1


def test_the_rules_change_what_s_and_w_mean() -> None:
    # 1 above 4: their sum is odd, but they are not consecutive.
    puzzle = parse_puzzle("2\n1s - - -\n4 - - -\n- - - -\n- - - -\n")
    assert solve_all(puzzle, Rules.CONSECUTIVE) == []
    assert len(solve_all(puzzle, Rules.ODDSUM) or []) > 0


def test_even_and_odd_together_have_no_solution() -> None:
    puzzle = parse_puzzle("2\neo - - -\n- - - -\n- - - -\n- - - -\n")
    assert solve_all(puzzle, Rules.CONSECUTIVE) == []


def test_cpsat_is_one_of_the_engines() -> None:
    assert "cpsat" in ENGINES
    puzzle = load_puzzle(BUNDLED / "test001d.txt")
    with make_engine("cpsat") as engine:
        result = engine.solve(puzzle, Rules.CONSECUTIVE, 30)
    assert result.engine == "cpsat"
    assert result.clean
    assert result.distinct == load_solutions(BUNDLED / "test001s.txt")


def official_tests(suite: Path, k: int) -> list[Path]:
    """The official puzzle files whose first line says K = k."""
    return [
        p
        for p in sorted(suite.glob("test*d.txt"))
        if p.read_text(encoding="latin-1").split()[0] == str(k)
    ]


BUNDLED_SETS = [
    pytest.param(BUNDLED, id="consecutive"),
    pytest.param(BUNDLED.parents[2] / "bench" / "consecutive", id="bench", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("folder", BUNDLED_SETS)
def test_every_bundled_expected_file_agrees_with_cpsat(folder: Path) -> None:
    """The one sweep: our two engines confirmed these files together, and
    CP-SAT shares neither's pruning."""
    paths = sorted(folder.glob("test*d.txt"))
    assert len(paths) > 10
    wrong = []
    with make_engine("cpsat") as engine:
        for path in paths:
            result = engine.solve(load_puzzle(path), Rules.CONSECUTIVE, 120)
            expected = load_solutions(path.with_name(path.name.replace("d.txt", "s.txt")))
            if not result.clean or result.distinct != expected:
                wrong.append((path.name, result.status, len(result.solutions), len(expected)))
    assert wrong == []


@pytest.mark.parametrize("k", [2, 3, 4])
def test_official_tests_agree_with_cpsat(official_suite: Path, k: int) -> None:
    paths = official_tests(official_suite, k)
    if not paths:
        pytest.skip(f"no K={k} tests in {official_suite}")
    with make_engine("cpsat") as engine:
        for path in paths[:2]:
            result = engine.solve(load_puzzle(path), Rules.ODDSUM, 60)
            expected = load_solutions(path.with_name(path.name.replace("d.txt", "s.txt")))
            assert result.clean, path.name
            assert result.distinct == expected, path.name


@pytest.mark.slow
def test_the_whole_official_suite_agrees_with_cpsat(official_suite: Path) -> None:
    paths = sorted(official_suite.glob("test*d.txt"))
    wrong = []
    with make_engine("cpsat") as engine:
        for path in paths:
            result = engine.solve(load_puzzle(path), Rules.ODDSUM, 120)
            expected = load_solutions(path.with_name(path.name.replace("d.txt", "s.txt")))
            if not result.clean or result.distinct != expected:
                wrong.append((path.name, result.status, len(result.solutions), len(expected)))
    assert wrong == []


EMPTY_K3 = "3\n" + "- - - - - - - - -\n" * 9


def test_cpsats_own_limit_reports_an_unfinished_search() -> None:
    # An empty 9x9 sudoku has some 6.7e21 solutions.
    assert solve_all(parse_puzzle(EMPTY_K3), Rules.CONSECUTIVE, max_seconds=0.3) is None


def test_a_time_limit_gives_timeout() -> None:
    with make_engine("cpsat") as engine:
        result = engine.solve(parse_puzzle(EMPTY_K3), Rules.CONSECUTIVE, 1.0)
        assert result.status is Status.TIMEOUT
        assert result.solutions == []
        assert result.message
        # The engine stays usable after a timeout.
        again = engine.solve(load_puzzle(BUNDLED / "test001d.txt"), Rules.CONSECUTIVE, 30)
    assert again.status is Status.OK
