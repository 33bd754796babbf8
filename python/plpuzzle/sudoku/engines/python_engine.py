"""The pure-Python reference engine: every solution of a sudoku with infos.

It referees the Prolog engine, so it is written from the puzzle's rules
alone (README, "The puzzle"), not from any clpfd model. The puzzle
becomes a board (python_search): one bit-mask domain per cell, narrowed
by the v/e/o infos, with the rows, columns and boxes that must hold each
value once, and a link for each s/w info that keeps only the values the
rule variant allows next to the partner's. Search with strong propagation (singles, Hall's
theorem on each unit, box-line confinement of each value, failed
literals) then finds every completion.

Under `consecutive` that is the whole story. Under `oddsum` an s/w info
only speaks of parities, so once every cell's parity is known the puzzle
falls apart into two independent ones: the odd cells must hold the odd
values once per unit, the even cells the even values, and nothing ties the
two together. So the search first goes on until every parity is decided
(they are mostly forced outright), and for each parity grid solves the
odd and the even cells as boards of their own; the puzzle's solutions
are all pairs of their solutions. Searching the two halves together would
make every dead end in one half be rediscovered once per partial solution
of the other. The parity stage also counts the odd cells of each unit
over the components of the links (python_parity), which decides
parities the value rules cannot see.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from itertools import islice

from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.engines.python_parity import ODD_VALUES, count_parities, parity_count
from plpuzzle.sudoku.engines.python_search import (
    Board,
    Branches,
    Support,
    make_board,
    search,
    split_values,
)


def solve_all(puzzle: Puzzle, rules: Rules = Rules.CONSECUTIVE) -> Iterator[Grid]:
    """Yield every solution exactly once (in no particular order)."""
    board = puzzle_board(puzzle, rules)
    domains = start_domains(puzzle)
    if rules is Rules.CONSECUTIVE:
        for leaf in search(board, domains, split_values):
            yield to_grid(leaf, puzzle.n)
        return
    count = parity_count(board)
    memo: dict[HalfKey, list[list[int]]] = {}
    for parities in search(board, domains, split_parity, partial(count_parities, board, count)):
        yield from solve_halves(puzzle.k, parities, memo)


def count_solutions(puzzle: Puzzle, rules: Rules = Rules.CONSECUTIVE) -> int:
    """How many solutions the puzzle has."""
    return sum(1 for _ in solve_all(puzzle, rules))


# --- the puzzle as a board --------------------------------------------------------


def puzzle_board(puzzle: Puzzle, rules: Rules) -> Board:
    """All cells, all values, and a link for each s/w info with a partner."""
    n = puzzle.n
    links: list[set[int]] = [set() for _ in range(n * n)]
    for (r1, c1), (r2, c2), _letter in puzzle.neighbour_pairs():
        a, b = r1 * n + c1, r2 * n + c2
        links[a].add(b)
        links[b].add(a)
    full = (1 << (n + 1)) - 2
    support = consecutive_support(full) if rules is Rules.CONSECUTIVE else oddsum_support(full)
    return make_board(
        puzzle.k, list(range(n * n)), full, [tuple(sorted(s)) for s in links], support
    )


def consecutive_support(full: int) -> Support:
    """Values one away from some value of the partner."""
    return lambda d: ((d << 1) | (d >> 1)) & full


def oddsum_support(full: int) -> Support:
    """Values of the other parity than some value of the partner."""
    odd = full & ODD_VALUES
    even = full & ~odd
    return lambda d: (even if d & odd else 0) | (odd if d & even else 0)


def start_domains(puzzle: Puzzle) -> list[int]:
    """Each cell's domain from its own infos; contradictory infos empty it."""
    n = puzzle.n
    full = (1 << (n + 1)) - 2
    domains = []
    for row in puzzle.fields:
        for field in row:
            domain = full
            for info in field.infos:
                if isinstance(info, int):
                    # Out-of-range values can come from hand-built puzzles: nothing fits.
                    domain &= 1 << info if 1 <= info <= n else 0
                elif info == "e":
                    domain &= ~ODD_VALUES
                elif info == "o":
                    domain &= ODD_VALUES
            domains.append(domain)
    return domains


def to_grid(doms: list[int], n: int) -> Grid:
    """The solution held by fully decided domains."""
    values = [d.bit_length() - 1 for d in doms]
    return tuple(tuple(values[r * n : (r + 1) * n]) for r in range(n))


# --- oddsum: parities first, then two independent halves ----------------------------


def split_parity(
    board: Board, doms: list[int], places: list[int], favourite: Branches | None
) -> Branches | None:
    """None once every parity is decided (the node is a parity grid);
    before that, look_ahead's favourite, or else the even and the odd
    values of the open-parity cell with the fewest candidates.

    The favourite may split a cell's values rather than its parity; any
    split of a node's solutions in two keeps each parity grid once, and
    on sparse puzzles following the look-ahead keeps the tree several
    times smaller than branching on parities alone.
    """
    odd = board.values & ODD_VALUES
    open_cells = [c for c in board.cells if doms[c] & odd not in (0, doms[c])]
    if not open_cells:
        return None
    if favourite is not None:
        return favourite
    cell = min(open_cells, key=lambda c: doms[c].bit_count())
    d = doms[cell]
    return [(cell, d & ~odd), (cell, d & odd)]


HalfKey = tuple[tuple[int, int], ...]
"""A half's active cells, each with its domain: all its search depends on."""


def solve_halves(
    k: int, parities: list[int], memo: dict[HalfKey, list[list[int]]]
) -> Iterator[Grid]:
    """Every solution with the given (decided) parities: each solution of
    the odd cells with each solution of the even cells.

    A half's solutions depend only on its cells and their domains, and
    parity grids often share a half (a branch of the parity stage that
    narrowed a cell of the other half): `memo` keeps each half's solutions
    by that key for the whole puzzle, so such a half, and above all a
    half without solutions, which can take hundreds of nodes to prove so,
    is searched once. The smaller half (often the easier) goes first, and
    only up to its first solution until the other half is known to have
    one.
    """
    n = k * k
    full = (1 << (n + 1)) - 2
    is_odd = [bool(d & ODD_VALUES) for d in parities]
    halves = []
    for odd in (True, False):
        cells = [c for c, o in enumerate(is_odd) if o is odd]
        values = full & ODD_VALUES if odd else full & ~ODD_VALUES
        key = tuple((c, parities[c]) for c in cells)
        halves.append((len(cells), odd, partial(half_search, k, cells, values, parities), key))
    halves.sort(key=lambda half: half[0])
    (_, first_odd, first, first_key), (_, _, second, second_key) = halves
    firsts = memo.get(first_key)
    known = firsts is not None
    if firsts is None:  # one solution, or none, until the other half has one
        lazy = first()
        firsts = list(islice(lazy, 1))
    if not firsts:
        memo[first_key] = firsts
        return
    seconds = memo.get(second_key)
    if seconds is None:
        seconds = memo[second_key] = list(second())
    if not seconds:
        return
    if not known:
        firsts = memo[first_key] = firsts + list(lazy)
    for a in firsts:
        for b in seconds:
            yield merge(a, b, is_odd, first_odd, n)


def half_search(k: int, cells: list[int], values: int, parities: list[int]) -> Iterator[list[int]]:
    """Every solution of one half. A half whose cells the parity stage
    decided already is its own solution: the singles left no two of them
    alike in a unit, so it needs no board. (On a K = 7 oddsum stress
    puzzle with most values given every half is so, and building and
    settling their boards took about 40 % of the time.)"""
    if all(parities[c] & (parities[c] - 1) == 0 for c in cells):
        return iter([parities])
    return search(make_board(k, cells, values), parities, split_values)


def merge(a: list[int], b: list[int], is_odd: list[bool], a_odd: bool, n: int) -> Grid:
    """One grid from a solution of each half (`a` solves the `a_odd` cells)."""
    return to_grid([x if o is a_odd else y for x, y, o in zip(a, b, is_odd, strict=True)], n)
