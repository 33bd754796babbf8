"""The pure-Python reference engine: every solution of a sudoku with infos.

It referees the Prolog engine, so it is written from the puzzle's rules
alone (SPEC 1.1-1.2), not from any clpfd model. The method is constraint
propagation plus search, in the spirit of Norvig's sudoku essay:

- a cell's *domain* is an int bit mask: bit v set means value v is possible;
- `propagate` narrows domains until nothing more follows (a fixpoint):
  a decided value leaves the cell's peers, a value with one place left in a
  unit goes there, an `s`/`w` info keeps only values with a partner on the
  other side, two cells of a unit with the same two candidates keep them
  from the rest, each unit needs exactly ceil(N/2) odd values, and a value
  that a unit can only place where it crosses another unit (a box and a
  row, say) leaves the rest of that other unit;
- `solve_all` branches on the undecided cell with the fewest candidates
  (first on its parity while parities are open, then on its values), on an
  explicit stack, so there is no recursion limit.

The children of a branch split the cell's domain into disjoint parts, so
the leaves of the search tree are distinct grids: each solution is
produced exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from plpuzzle.sudoku.model import Grid, Puzzle, Rules, box_cells

Domains = list[int]
"""One bit mask per cell, cells numbered row-major (r * N + c)."""


# --- geometry: the same for every puzzle of a given K -----------------------


@dataclass(frozen=True)
class Geometry:
    """Units and peers of an N x N grid, and the masks of its values."""

    n: int
    full: int  # bits 1..N
    odd: int  # the odd values among 1..N
    even: int  # the even values among 1..N
    odd_count: int  # how many odd values each unit holds: ceil(N/2)
    units: tuple[tuple[int, ...], ...]  # rows, then columns, then boxes
    units_of: tuple[tuple[int, ...], ...]  # per cell: the indices of its 3 units
    peers: tuple[tuple[int, ...], ...]  # per cell: the other cells of its units
    crossings: tuple[tuple[Crossing, ...], ...]  # per unit: how it splits across others


Crossing = tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
"""A unit cut into segments by the units crossing it: per segment, its cells
and the crossing unit's cells outside this unit. A row is cut by K boxes; a
box by its K rows and, separately, by its K columns."""


@cache
def geometry(k: int) -> Geometry:
    """Build (once per K) the units every solution must fill with 1..N."""
    n = k * k
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    boxes = [tuple(r * n + c for r, c in box_cells(b, k)) for b in range(n)]
    units = tuple(rows + cols + boxes)
    units_of: list[list[int]] = [[] for _ in range(n * n)]
    for u, unit in enumerate(units):
        for cell in unit:
            units_of[cell].append(u)
    peers = tuple(
        tuple(sorted({p for u in units_of[cell] for p in units[u]} - {cell}))
        for cell in range(n * n)
    )
    full = (1 << (n + 1)) - 2
    odd = sum(1 << v for v in range(1, n + 1, 2))
    crossings = (
        [(crossing(row, boxes),) for row in rows]
        + [(crossing(col, boxes),) for col in cols]
        + [(crossing(box, rows), crossing(box, cols)) for box in boxes]
    )
    return Geometry(
        n,
        full,
        odd,
        full & ~odd,
        (n + 1) // 2,
        units,
        tuple(map(tuple, units_of)),
        peers,
        tuple(crossings),
    )


def crossing(unit: tuple[int, ...], others: list[tuple[int, ...]]) -> Crossing:
    """Cut `unit` into the parts it shares with each unit of `others`."""
    cells = set(unit)
    parts = []
    for other in others:
        inside = tuple(c for c in other if c in cells)
        if inside:
            parts.append((inside, tuple(c for c in other if c not in cells)))
    return tuple(parts)


# --- the constraint network of one puzzle ------------------------------------


Support = Callable[[int], int]
"""Given one neighbour's domain, the values the other neighbour may take."""


def consecutive_support(geo: Geometry) -> Support:
    """Values one away from some value of the other cell."""
    full = geo.full
    return lambda d: ((d << 1) | (d >> 1)) & full


def oddsum_support(geo: Geometry) -> Support:
    """Values of the other parity than some value of the other cell."""
    odd, even = geo.odd, geo.even
    return lambda d: (even if d & odd else 0) | (odd if d & even else 0)


@dataclass(frozen=True)
class Network:
    """A puzzle as constraints: geometry, start domains and neighbour links."""

    geo: Geometry
    start: Domains  # the infos v/e/o applied to full domains
    links: tuple[tuple[int, ...], ...]  # per cell: cells tied to it by an s/w info
    support: Support


def build_network(puzzle: Puzzle, rules: Rules) -> Network:
    """Turn the infos into start domains and symmetric s/w links."""
    geo = geometry(puzzle.k)
    n = geo.n
    start = [geo.full] * (n * n)
    for r, row in enumerate(puzzle.fields):
        for c, field in enumerate(row):
            start[r * n + c] = restrict_by_infos(geo, field.infos)
    links: list[set[int]] = [set() for _ in range(n * n)]
    for (r1, c1), (r2, c2), _letter in puzzle.neighbour_pairs():
        a, b = r1 * n + c1, r2 * n + c2
        links[a].add(b)
        links[b].add(a)
    make_support = consecutive_support if rules is Rules.CONSECUTIVE else oddsum_support
    return Network(geo, start, tuple(tuple(sorted(s)) for s in links), make_support(geo))


def restrict_by_infos(geo: Geometry, infos: tuple[object, ...]) -> int:
    """A cell's domain from its own infos; contradictory infos leave it empty."""
    domain = geo.full
    for info in infos:
        if isinstance(info, int):
            # Out-of-range values can come from hand-built puzzles: nothing fits.
            domain &= 1 << info if 1 <= info <= geo.n else 0
        elif info == "e":
            domain &= geo.even
        elif info == "o":
            domain &= geo.odd
    return domain


# --- propagation ---------------------------------------------------------------


def propagate(net: Network, doms: Domains, changed: list[int], dirty: set[int]) -> bool:
    """Narrow `doms` in place to a fixpoint; False when some domain empties.

    Cheap rules run first: `changed` holds cells whose domain shrank (their
    peers and links need revising); `dirty` holds units to re-examine when no
    cell is waiting; `crossed` holds units whose crossings (the costliest
    rule) are looked at only when nothing else is left to do.
    """
    geo, links, support = net.geo, net.links, net.support
    peers, units_of, crossings = geo.peers, geo.units_of, geo.crossings
    crossed: set[int] = set()
    while True:
        if changed:
            cell = changed.pop()
            if not revise_cell(doms, cell, peers[cell], links[cell], support, changed):
                return False
            dirty.update(units_of[cell])
        elif dirty:
            if not revise_unit(geo, doms, dirty.pop(), changed, crossed):
                return False
        elif crossed:
            for segments in crossings[crossed.pop()]:
                if not confine(doms, segments, changed):
                    return False
        else:
            return True


def revise_cell(
    doms: Domains,
    cell: int,
    peers: tuple[int, ...],
    links: tuple[int, ...],
    support: Support,
    changed: list[int],
) -> bool:
    """Pass a cell's narrowed domain on to its peers and its s/w partners."""
    d = doms[cell]
    if d & (d - 1) == 0:  # decided: no peer may take the value
        for p in peers:
            if doms[p] & d:
                narrowed = doms[p] & ~d
                if not narrowed:
                    return False
                doms[p] = narrowed
                changed.append(p)
    if links:
        allowed = support(d)
        for other in links:
            if doms[other] & ~allowed:
                narrowed = doms[other] & allowed
                if not narrowed:
                    return False
                doms[other] = narrowed
                changed.append(other)
    return True


def revise_unit(
    geo: Geometry, doms: Domains, u: int, changed: list[int], crossed: set[int]
) -> bool:
    """Apply what a unit forces: hidden singles, naked pairs and the count of
    odd values. A unit with cells still open goes into `crossed`, so that its
    crossings are looked at later."""
    unit = geo.units[u]
    odd, even = geo.odd, geo.even
    seen_once = seen_twice = 0
    can_odd = can_even = 0
    for cell in unit:
        d = doms[cell]
        seen_twice |= seen_once & d
        seen_once |= d
        can_odd += (d & odd) != 0
        can_even += (d & even) != 0
    if seen_once != geo.full:  # some value has no place left in this unit
        return False
    if not seen_twice:  # every value has exactly one place: all cells are decided
        return True
    crossed.add(u)
    return (
        place_hidden_singles(doms, unit, seen_once & ~seen_twice, changed)
        and clear_naked_pairs(doms, unit, changed)
        and count_parities(geo, doms, unit, can_odd, can_even, changed)
    )


def place_hidden_singles(
    doms: Domains, unit: tuple[int, ...], singles: int, changed: list[int]
) -> bool:
    """Put each value with a single place in the unit (`singles`) there."""
    if singles:
        for cell in unit:
            d = doms[cell]
            forced = d & singles
            if forced and forced != d:
                if forced & (forced - 1):  # two values both need this one cell
                    return False
                doms[cell] = forced
                changed.append(cell)
    return True


def clear_naked_pairs(doms: Domains, unit: tuple[int, ...], changed: list[int]) -> bool:
    """Two cells with the same two candidates take both values between them,
    so no other cell of the unit can have either."""
    pairs: set[int] = set()
    for cell in unit:
        d = doms[cell]
        if d.bit_count() != 2:
            continue
        if d not in pairs:
            pairs.add(d)
            continue
        for other in unit:
            od = doms[other]
            if od & d and od != d:
                od &= ~d
                if not od:
                    return False
                doms[other] = od
                changed.append(other)
    return True


def count_parities(
    geo: Geometry,
    doms: Domains,
    unit: tuple[int, ...],
    can_odd: int,
    can_even: int,
    changed: list[int],
) -> bool:
    """A unit holds exactly ceil(N/2) odd and floor(N/2) even values: fewer
    cells able to take a parity is a dead end, and when exactly that many
    can, they must take it. `can_odd`/`can_even` count the able cells."""
    n, odd_count = geo.n, geo.odd_count
    if can_odd < odd_count or can_even < n - odd_count:
        return False
    if can_odd + can_even > n:  # some cell's parity is still open
        if can_odd == odd_count:
            keep_parity(doms, unit, geo.odd, changed)
        elif can_even == n - odd_count:
            keep_parity(doms, unit, geo.even, changed)
    return True


def confine(doms: Domains, segments: Crossing, changed: list[int]) -> bool:
    """A value of a unit that can only go into one segment, the part shared
    with a crossing unit, cannot go anywhere else in that crossing unit.
    (Sudoku solvers call this pointing, or box-line reduction.)"""
    masks = []
    for inside, _ in segments:
        m = 0
        for cell in inside:
            m |= doms[cell]
        masks.append(m)
    for i, (_, outside) in enumerate(segments):
        elsewhere = 0
        for j, m in enumerate(masks):
            if j != i:
                elsewhere |= m
        confined = masks[i] & ~elsewhere
        if confined:
            for cell in outside:
                d = doms[cell]
                if d & confined:
                    d &= ~confined
                    if not d:
                        return False
                    doms[cell] = d
                    changed.append(cell)
    return True


def keep_parity(doms: Domains, unit: tuple[int, ...], parity: int, changed: list[int]) -> None:
    """Restrict the cells of `unit` that can take `parity` to that parity."""
    for cell in unit:
        d = doms[cell]
        if d & parity and d & ~parity:
            doms[cell] = d & parity
            changed.append(cell)


# --- search ----------------------------------------------------------------------


def solve_all(puzzle: Puzzle, rules: Rules = Rules.CONSECUTIVE) -> Iterator[Grid]:
    """Yield every solution exactly once (in no particular order)."""
    net = build_network(puzzle, rules)
    start = list(net.start)
    if not propagate(net, start, list(range(len(start))), set(range(len(net.geo.units)))):
        return
    stack = [start]
    while stack:
        doms = stack.pop()
        split = choose_split(net.geo, doms)
        if split is None:
            yield to_grid(doms, net.geo.n)
            continue
        cell, parts = split
        for part in reversed(parts):  # the stack pops the first part first
            child = doms.copy()
            child[cell] = part
            if propagate(net, child, [cell], set()):
                stack.append(child)


def count_solutions(puzzle: Puzzle, rules: Rules = Rules.CONSECUTIVE) -> int:
    """How many solutions the puzzle has."""
    return sum(1 for _ in solve_all(puzzle, rules))


def choose_split(geo: Geometry, doms: Domains) -> tuple[int, list[int]] | None:
    """Where to branch, and the disjoint parts of that cell's domain to try.

    While some cell's parity is open, split the smallest such cell into its
    even and odd values: s/w infos and the odd counts act on parities, so a
    parity choice propagates far. Otherwise split the smallest undecided
    cell into single values. None means every cell is decided.
    """
    odd, even = geo.odd, geo.even
    best_open = best_any = -1
    open_size = any_size = geo.n + 1
    for cell, d in enumerate(doms):
        if d & (d - 1):
            size = d.bit_count()
            if size < open_size and d & odd and d & even:
                best_open, open_size = cell, size
            if size < any_size:
                best_any, any_size = cell, size
    if best_open >= 0:
        d = doms[best_open]
        return best_open, [d & even, d & odd]
    if best_any >= 0:
        return best_any, bits(doms[best_any])
    return None


def bits(d: int) -> list[int]:
    """The single-bit masks of a domain, lowest value first."""
    out = []
    while d:
        low = d & -d
        out.append(low)
        d ^= low
    return out


def to_grid(doms: Domains, n: int) -> Grid:
    """The solution held by fully decided domains."""
    values = [d.bit_length() - 1 for d in doms]
    return tuple(tuple(values[r * n : (r + 1) * n]) for r in range(n))
