"""The validator names every broken rule, and accepts exactly the solutions."""

from __future__ import annotations

import itertools
import random

import pytest

from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.validator import RULES, Violation, validate

SPEC_EXAMPLE = Puzzle.from_rows(
    2,
    [
        [["e", "w", 2, "s"], ["w"], ["e"], []],
        [[], ["e", "s", "w"], [], ["o"]],
        [[], [], [1], []],
        [["w"], ["s"], [], []],
    ],
)
SPEC_SOLUTION = [[2, 1, 4, 3], [3, 4, 2, 1], [4, 3, 1, 2], [1, 2, 3, 4]]
EMPTY_4X4 = Puzzle.from_rows(2, [[[] for _ in range(4)] for _ in range(4)])


def rules_of(violations: list[Violation]) -> list[str]:
    return sorted(v.rule for v in violations)


def test_the_spec_solution_is_valid() -> None:
    assert validate(SPEC_EXAMPLE, SPEC_SOLUTION, Rules.CONSECUTIVE) == []
    assert validate(SPEC_EXAMPLE, SPEC_SOLUTION, Rules.ODDSUM) == []


def test_tuples_are_accepted_like_lists() -> None:
    grid = tuple(tuple(row) for row in SPEC_SOLUTION)
    assert validate(SPEC_EXAMPLE, grid, Rules.CONSECUTIVE) == []


# --- shape ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "grid",
    [
        None,
        "1234",
        42,
        {},
        [],
        [[1, 2, 3, 4]] * 3,
        [[1, 2, 3, 4]] * 5,
        [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2]],
        [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1, 5]],
        [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], "4321"],
        [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, "1"]],
        [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1.0]],
        [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, True]],
        [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, None]],
    ],
)
def test_wrong_shapes_are_one_shape_violation(grid: object) -> None:
    violations = validate(EMPTY_4X4, grid, Rules.CONSECUTIVE)
    assert len(violations) == 1
    assert violations[0].rule == "shape"
    assert violations[0].message.startswith("the grid ")


def test_shape_message_names_the_problem() -> None:
    grid = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2]]
    [violation] = validate(EMPTY_4X4, grid, Rules.CONSECUTIVE)
    assert "row 4" in violation.message
    assert "3 values" in violation.message


# --- each kind of violation ----------------------------------------------------------


def test_value_out_of_range() -> None:
    grid = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 5]]
    violations = validate(EMPTY_4X4, grid, Rules.CONSECUTIVE)
    assert rules_of(violations) == ["range"]  # no repeats: 1 is merely missing
    [out] = [v for v in violations if v.rule == "range"]
    assert (out.row, out.col) == (4, 4)
    assert out.message == "cell (4,4) holds 5, outside 1..4"


def test_zero_and_negative_are_out_of_range() -> None:
    grid = [[0, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, -1]]
    ranges = [v for v in validate(EMPTY_4X4, grid, Rules.CONSECUTIVE) if v.rule == "range"]
    assert [(v.row, v.col) for v in ranges] == [(1, 1), (4, 4)]


def test_repeats_in_row_column_and_box() -> None:
    # Swapping two values inside row 1 keeps the row valid but breaks two
    # columns and, across boxes, two boxes.
    grid = [[3, 2, 1, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    violations = validate(EMPTY_4X4, grid, Rules.CONSECUTIVE)
    messages = {v.message for v in violations}
    assert "column 1 holds 3 twice" in messages
    assert "column 3 holds 1 twice" in messages
    assert "the box at rows 1-2, columns 1-2 holds 3 twice" in messages
    assert "the box at rows 1-2, columns 3-4 holds 1 twice" in messages
    assert rules_of(violations) == ["box", "box", "column", "column"]


def test_row_repeat_is_named_with_its_row() -> None:
    grid = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [2, 1, 4, 3]]
    violations = validate(EMPTY_4X4, grid, Rules.CONSECUTIVE)
    assert not any(v.rule == "row" for v in violations)
    grid = [[1, 1, 1, 4], [3, 4, 2, 2], [2, 3, 4, 1], [4, 2, 3, 3]]
    rows = [v for v in validate(EMPTY_4X4, grid, Rules.CONSECUTIVE) if v.rule == "row"]
    assert [(v.row, v.col, v.message) for v in rows] == [
        (1, None, "row 1 holds 1 three times"),
        (2, None, "row 2 holds 2 twice"),
        (4, None, "row 4 holds 3 twice"),
    ]


def test_given_value() -> None:
    puzzle = Puzzle.from_rows(2, [[[1], [], [], []], [[]] * 4, [[]] * 4, [[]] * 4])
    grid = [[2, 1, 4, 3], [3, 4, 2, 1], [4, 3, 1, 2], [1, 2, 3, 4]]
    assert [(v.rule, v.row, v.col, v.message) for v in validate(puzzle, grid, Rules.ODDSUM)] == [
        ("value", 1, 1, "cell (1,1) must be 1 but holds 2")
    ]


def test_parity() -> None:
    puzzle = Puzzle.from_rows(2, [[["e"], ["o"], ["o"], ["e"]], [[]] * 4, [[]] * 4, [[]] * 4])
    grid = [[3, 2, 1, 4], [1, 4, 2, 3], [4, 3, 1, 2], [2, 1, 4, 3]]
    parity = [v for v in validate(puzzle, grid, Rules.ODDSUM) if v.rule == "parity"]
    assert [v.message for v in parity] == [
        "cell (1,1) must be even but holds 3",
        "cell (1,2) must be odd but holds 2",
    ]


def test_even_and_odd_together_always_break_one() -> None:
    puzzle = Puzzle.from_rows(1, [[["e", "o"]]])
    assert [v.message for v in validate(puzzle, [[1]], Rules.CONSECUTIVE)] == [
        "cell (1,1) must be even but holds 1"
    ]


def test_south_consecutive() -> None:
    puzzle = Puzzle.from_rows(2, [[[]] * 4, [["s"], [], [], []], [[]] * 4, [[]] * 4])
    grid = [[2, 1, 3, 4], [4, 3, 1, 2], [1, 2, 4, 3], [3, 4, 2, 1]]
    assert [
        (v.rule, v.row, v.col, v.message) for v in validate(puzzle, grid, Rules.CONSECUTIVE)
    ] == [("s", 2, 1, "s: cell (2,1)=4 and the cell below (3,1)=1 differ by 3, not 1")]
    # 4 + 1 is odd, so the same grid keeps the oddsum relation.
    assert validate(puzzle, grid, Rules.ODDSUM) == []


def test_west_oddsum() -> None:
    puzzle = Puzzle.from_rows(2, [[[], [], ["w"], []], [[]] * 4, [[]] * 4, [[]] * 4])
    grid = [[2, 1, 3, 4], [4, 3, 1, 2], [1, 2, 4, 3], [3, 4, 2, 1]]
    assert [(v.rule, v.row, v.col, v.message) for v in validate(puzzle, grid, Rules.ODDSUM)] == [
        (
            "w",
            1,
            3,
            "w: cell (1,3)=3 and the cell to its left (1,2)=1 have an even sum 4, "
            + "not an odd one",
        )
    ]
    assert [v.rule for v in validate(puzzle, grid, Rules.CONSECUTIVE)] == ["w"]


def test_edge_s_and_w_are_ignored() -> None:
    rows: list[list[list[object]]] = [[[] for _ in range(4)] for _ in range(4)]
    for i in range(4):
        rows[3][i].append("s")
        rows[i][0].append("w")
    puzzle = Puzzle.from_rows(2, rows)
    grid = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    assert validate(puzzle, grid, Rules.CONSECUTIVE) == []
    assert validate(puzzle, grid, Rules.ODDSUM) == []


def test_every_kind_is_reported_at_once() -> None:
    puzzle = Puzzle.from_rows(
        2,
        [
            [[1], ["e"], [], []],
            [[], ["w"], [], []],
            [["s"], [], [], []],
            [[], [], [], []],
        ],
    )
    # Row 4 holds 9 and repeats 1; (1,1) is 2 not 1; (1,2) is odd; the
    # w at (2,2) and the s at (3,1) relate 3 to 4 and 1 to 1.
    grid = [[2, 3, 4, 1], [4, 3, 1, 2], [1, 2, 3, 4], [1, 1, 2, 9]]
    found = {v.rule for v in validate(puzzle, grid, Rules.CONSECUTIVE)}
    assert found == {"range", "row", "column", "box", "value", "parity", "s"}
    grid[1][0] = 1  # 1 beside 3 breaks the w as well
    found = {v.rule for v in validate(puzzle, grid, Rules.CONSECUTIVE)}
    assert found == set(RULES) - {"shape"}


# --- agreement with a direct reading of the rules on every 4 x 4 grid ----------------


def latin_squares_4x4() -> list[list[list[int]]]:
    """Every 4 x 4 grid whose rows and columns hold 1..4 (boxes unchecked)."""
    perms = list(itertools.permutations(range(1, 5)))

    def clashes(new: tuple[int, ...], rows: list[tuple[int, ...]]) -> bool:
        return any(new[c] == row[c] for row in rows for c in range(4))

    grids: list[list[tuple[int, ...]]] = [[]]
    for _ in range(4):
        grids = [[*g, p] for g in grids for p in perms if not clashes(p, g)]
    return [[list(r) for r in g] for g in grids]


def is_sudoku(grid: list[list[int]]) -> bool:
    return all(
        len({grid[r][c] for r in (top, top + 1) for c in (left, left + 1)}) == 4
        for top in (0, 2)
        for left in (0, 2)
    )


@pytest.mark.parametrize("rules", [Rules.CONSECUTIVE, Rules.ODDSUM])
def test_validator_accepts_exactly_the_grids_that_keep_every_rule(rules: Rules) -> None:
    rng = random.Random(f"validator-{rules}")
    squares = latin_squares_4x4()
    assert len(squares) == 576
    assert sum(map(is_sudoku, squares)) == 288
    for _ in range(8):
        rows = [[[x for x in "eosw" if rng.random() < 0.15] for _ in range(4)] for _ in range(4)]
        puzzle = Puzzle.from_rows(2, rows)
        for grid in squares:
            violations = validate(puzzle, grid, rules)
            infos_ok = all(
                keeps(puzzle.fields[r][c].infos, grid, r, c, rules)
                for r in range(4)
                for c in range(4)
            )
            assert (violations == []) == (is_sudoku(grid) and infos_ok)
            assert all(v.rule in RULES for v in violations)
            assert {v.rule for v in violations} <= {"box", "parity", "s", "w"}


def keeps(infos: tuple[object, ...], grid: list[list[int]], r: int, c: int, rules: Rules) -> bool:
    v = grid[r][c]
    ok = True
    if "e" in infos:
        ok &= v % 2 == 0
    if "o" in infos:
        ok &= v % 2 == 1
    for letter, (r2, c2) in (("s", (r + 1, c)), ("w", (r, c - 1))):
        if letter in infos and r2 < 4 and c2 >= 0:
            ok &= rules.related(v, grid[r2][c2])
    return ok
