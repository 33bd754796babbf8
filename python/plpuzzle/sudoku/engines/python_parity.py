"""Parity counting: the rule the oddsum parity stage adds to the search.

Under oddsum every s/w info says its two cells differ in parity, so the
links split the cells into *components*, each two-coloured: once one of
its cells has a known parity, so have all. Give each component a flag;
a cell is odd exactly when its component's flag differs from its colour.

Every unit holds each value once, so it has as many odd cells as there
are odd values. Counted per unit over the components, that decides flags
the value rules cannot see: a pair of linked cells in one row gives the
row exactly one odd cell whichever way it goes, so the rest of the row
must make up the count; a component whose cells in a unit are mostly of
one colour moves the count by several at once. Hall's theorem sees a
unit's odd count only cell by cell, and the links only pair by pair.

On sparse puzzles with hundreds of solutions this rule halves the
parity stage's tree, which is most of their time; on the official suite
it seldom fires and costs nothing to speak of. (Under consecutive the
links say the same, but the value rules already see more there, and the
rule only cost time.)
"""

from __future__ import annotations

from dataclasses import dataclass

from plpuzzle.sudoku.engines.python_search import Board, Event, drop, tighten

ODD_VALUES = sum(1 << v for v in range(1, 101, 2))
"""The bits of the odd values, for any N up to 100."""

Term = tuple[int, int, int, int]
"""A component in a unit: its number, the fewer and the more odd cells its
cells there can make, and the flag that makes the fewer."""


@dataclass(frozen=True)
class ParityCount:
    """The components of a board's links and what each unit counts of them."""

    component: tuple[int, ...]  # per grid cell (-1 if not active)
    colour: tuple[int, ...]  # per grid cell: 0 or 1, alternating along links
    members: tuple[tuple[int, ...], ...]  # per component: its cells
    terms: tuple[tuple[Term, ...], ...]  # per unit
    swings: tuple[tuple[int, ...], ...]  # per component: units whose count its flag moves
    odd_count: int  # odd cells in every unit
    odd: int  # the board's odd values
    even: int  # the board's even values


def parity_count(board: Board) -> ParityCount:
    """Two-colour the components of the board's links (once per puzzle)."""
    size = board.n * board.n
    component, colour = [-1] * size, [0] * size
    members: list[tuple[int, ...]] = []
    for root in board.cells:
        if component[root] >= 0:
            continue
        component[root] = number = len(members)
        found, stack = [root], [root]
        while stack:
            cell = stack.pop()
            for other in board.links[cell]:
                if component[other] < 0:
                    component[other] = number
                    colour[other] = colour[cell] ^ 1
                    found.append(other)
                    stack.append(other)
        members.append(tuple(found))
    terms = []
    swings: list[list[int]] = [[] for _ in members]
    for unit, cells in enumerate(board.unit_cells):
        tallies: dict[int, list[int]] = {}  # per component: its cells of colour 0, of 1
        for cell in cells:
            tallies.setdefault(component[cell], [0, 0])[colour[cell]] += 1
        # With flag 0 the colour-1 cells are odd, with flag 1 the colour-0 ones.
        terms.append(
            tuple(
                (c, min(zeros, ones), max(zeros, ones), int(zeros < ones))
                for c, (zeros, ones) in tallies.items()
            )
        )
        for c, (zeros, ones) in tallies.items():
            if zeros != ones:
                swings[c].append(unit)
    odd = board.values & ODD_VALUES
    return ParityCount(
        tuple(component),
        tuple(colour),
        tuple(members),
        tuple(terms),
        tuple(tuple(units) for units in swings),
        odd.bit_count(),
        odd,
        board.values & ~ODD_VALUES,
    )


def forced_flags(count: ParityCount, doms: list[int]) -> dict[int, int] | None:
    """The flags the unit counts force beyond those already known, or None
    if the known ones contradict each other or some unit's count.

    Every unit is counted once, and again whenever a flag it counts is
    forced (a worklist), until nothing more is forced."""
    flags: dict[int, int] = {}
    odd, colour = count.odd, count.colour
    for c, cells in enumerate(count.members):
        for cell in cells:
            d = doms[cell]
            if d & odd == d:
                flag = colour[cell] ^ 1
            elif not d & odd:
                flag = colour[cell]
            else:
                continue
            if flags.setdefault(c, flag) != flag:
                return None
    forced: dict[int, int] = {}
    need, all_terms, swings = count.odd_count, count.terms, count.swings
    todo = list(range(len(all_terms)))
    while todo:
        terms = all_terms[todo.pop()]
        low = high = 0
        for c, fewer, more, fewer_flag in terms:
            known = flags.get(c)
            if known is None:
                low += fewer
                high += more
            elif known == fewer_flag:
                low += fewer
                high += fewer
            else:
                low += more
                high += more
        if not low <= need <= high:
            return None
        if low == high:
            continue
        for c, fewer, more, fewer_flag in terms:
            gap = more - fewer
            if not gap or c in flags:
                continue
            # Its larger option overshoots, or its smaller falls short.
            # (This unit's bounds are stale after a flag forced here, but
            # only looser; the unit is counted again.)
            if low + gap > need:
                flag = fewer_flag
            elif high - gap < need:
                flag = fewer_flag ^ 1
            else:
                continue
            flags[c] = forced[c] = flag
            todo.extend(swings[c])
    return forced


def count_parities(board: Board, count: ParityCount, doms: list[int], places: list[int]) -> bool:
    """Narrow the cells of every component the counts decide, and tighten,
    until the counts decide nothing more; False on a contradiction."""
    while True:
        forced = forced_flags(count, doms)
        if forced is None:
            return False
        events: list[Event] = []
        for c, flag in forced.items():
            for cell in count.members[c]:
                keep = doms[cell] & (count.odd if flag ^ count.colour[cell] else count.even)
                if not keep:
                    return False
                if keep != doms[cell]:
                    drop(doms, places, cell, keep, events)
        if not events:
            return True
        if not tighten(board, doms, places, events):
            return False
