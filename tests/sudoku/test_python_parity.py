"""Parity counting (python_parity): what it decides, and that it never
takes a solution away."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.engines.python_engine import puzzle_board, start_domains
from plpuzzle.sudoku.engines.python_parity import count_parities, parity_count
from plpuzzle.sudoku.engines.python_search import places_of, start

ODD_4 = 0b01010  # 1 and 3
EVEN_4 = 0b10100  # 2 and 4


def puzzle(k: int, infos: dict[tuple[int, int], list[object]]) -> Puzzle:
    """A puzzle that is empty except for the given 0-based cells."""
    n = k * k
    rows: list[list[list[object]]] = [[[] for _ in range(n)] for _ in range(n)]
    for (r, c), cell in infos.items():
        rows[r][c] = cell
    return Puzzle.from_rows(k, rows)


def counted(p: Puzzle) -> tuple[bool, list[int]]:
    """count_parities on the puzzle's own domains: alive?, and the domains."""
    board = puzzle_board(p, Rules.ODDSUM)
    doms = start_domains(p)
    alive = count_parities(board, parity_count(board), doms, places_of(board, doms))
    return alive, doms


def linked(p: Puzzle) -> set[frozenset[int]]:
    n = p.n
    return {frozenset((a * n + b, c * n + d)) for (a, b), (c, d), _ in p.neighbour_pairs()}


def test_components_are_two_coloured_along_the_links() -> None:
    # A chain of three linked cells in row 0, and one more pair in row 1.
    p = puzzle(2, {(0, 1): ["w"], (0, 2): ["w"], (1, 3): ["w"]})
    assert linked(p) == {frozenset((0, 1)), frozenset((1, 2)), frozenset((6, 7))}
    count = parity_count(puzzle_board(p, Rules.ODDSUM))
    component, colour = count.component, count.colour
    assert component[0] == component[1] == component[2] != component[6] == component[7]
    assert colour[0] != colour[1] != colour[2] and colour[6] != colour[7]
    assert len(count.members) == 16 - 2 - 1  # 16 cells, 3 of them joined, 2 joined
    # Row 0 counts the chain (two cells of one colour, one of the other)
    # and the lone cell 3.
    row0 = {c: (fewer, more) for c, fewer, more, _ in count.terms[0]}
    assert row0[component[0]] == (1, 2)
    assert row0[component[3]] == (0, 1)
    # The chain's flag moves the count of every unit where it has more
    # cells of one colour: row 0, columns 0, 1 and 2 (units 4 to 6), the
    # top-right box (unit 9); not the top-left box, with one of each.
    assert set(count.swings[component[0]]) == {0, 4, 5, 6, 9}
    assert count.odd_count == 2


def test_a_linked_pair_gives_its_row_one_odd_cell() -> None:
    # Cells 0 and 1 differ in parity, cell 2 is odd: with two odd cells
    # per row, cell 3 must be even. The value rules alone do not see it.
    p = puzzle(2, {(0, 1): ["w"], (0, 2): ["o"]})
    assert frozenset((0, 1)) in linked(p)
    board = puzzle_board(p, Rules.ODDSUM)
    root = start(board, start_domains(p))
    assert root is not None and root[0][3] == ODD_4 | EVEN_4
    alive, doms = counted(p)
    assert alive
    assert doms[3] == EVEN_4
    assert doms[2] == ODD_4 and doms[0] == doms[1] == ODD_4 | EVEN_4


def test_a_forced_flag_decides_the_whole_component() -> None:
    # Cells 0, 1 and 4 are one component (1 and 4 have the same parity,
    # 0 the other). Row 1 already has its two odd cells (5 and 6), so cell
    # 4 is even, and with it cell 1; cell 0 is odd.
    p = puzzle(2, {(0, 1): ["w"], (0, 0): ["s"], (1, 1): ["o"], (1, 2): ["o"]})
    assert {frozenset((0, 1)), frozenset((0, 4))} <= linked(p)
    alive, doms = counted(p)
    assert alive
    assert (doms[0], doms[1], doms[4], doms[7]) == (ODD_4, EVEN_4, EVEN_4, EVEN_4)


def test_a_count_no_parity_grid_meets_is_a_contradiction() -> None:
    # The linked pair gives the top-left box one odd cell, whichever way
    # it goes, and cells 4 and 5 are odd: three odd cells where two fit.
    p = puzzle(2, {(0, 1): ["w"], (1, 0): ["o"], (1, 1): ["o"]})
    alive, _ = counted(p)
    assert not alive


# --- soundness: a planted solution always survives ----------------------------


def planted(k: int, rng: random.Random, share: float) -> tuple[Puzzle, list[int]]:
    """A random valid grid and oddsum infos it satisfies: some values, some
    parities, and the s/w infos of some neighbours whose parities differ."""
    n = k * k

    def shuffled_units() -> list[int]:
        bands = rng.sample(range(k), k)
        return [b * k + i for b in bands for i in rng.sample(range(k), k)]

    rows, cols, values = shuffled_units(), shuffled_units(), rng.sample(range(1, n + 1), n)
    grid = [
        values[(k * (r % k) + r // k + c) % n] for r in rows for c in cols
    ]  # a pattern solution, rows and columns shuffled within bands
    cells: list[list[list[object]]] = []
    for r in range(n):
        row: list[list[object]] = []
        for c in range(n):
            v = grid[r * n + c]
            infos: list[object] = []
            if rng.random() < share / 3:
                infos.append(v)
            elif rng.random() < share:
                infos.append("o" if v % 2 else "e")
            if r + 1 < n and (v + grid[(r + 1) * n + c]) % 2 and rng.random() < share:
                infos.append("s")
            if c > 0 and (v + grid[r * n + c - 1]) % 2 and rng.random() < share:
                infos.append("w")
            row.append(infos)
        cells.append(row)
    return Puzzle.from_rows(k, cells), grid


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**32 - 1), st.floats(0.1, 0.8))
def test_counting_keeps_a_planted_solution(k: int, seed: int, share: float) -> None:
    p, grid = planted(k, random.Random(seed), share)
    board = puzzle_board(p, Rules.ODDSUM)
    root = start(board, start_domains(p))
    assert root is not None  # the planted grid is a solution
    doms, places = root
    assert count_parities(board, parity_count(board), doms, places)
    assert all(doms[cell] & (1 << v) for cell, v in enumerate(grid))
