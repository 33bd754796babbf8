"""Every completion of a board: propagation, failed literals and search.

A *board* is a set of active cells of an N x N grid, the values they take,
and the units (rows, columns and boxes, cut down to the active cells) that
must hold each of those values exactly once, plus optional s/w links
between active cells. The engine builds one board for a whole puzzle and,
under oddsum, one each for its odd and its even cells.

A search state is two lists of int bit masks saying the same thing from
both sides: `doms[cell]` holds the values the cell can still take, and
`places[v]` the cells (bit r*N+c) that can still take v. `drop` changes
both and records an *event*: the cell and the values it lost. The
inference, from cheap to costly:

1. `settle`, singles: works through the events. A decided cell's value
   leaves its peers; a value that lost its last place but one in a unit
   goes to that place (with no place left, the branch is dead); a link
   keeps only the values with a partner on the other side.
2. `tighten`, box-line and Hall's theorem (see python_matching): after
   the singles, each value that lost places is confined, in the units
   where it lost them: its places in a unit that all lie in one crossing
   unit clear the rest of that crossing unit (box-line interactions).
   Then each unit that changed must still match its open cells to its
   missing values; candidates that no matching uses go (naked and hidden
   subsets). Hall's theorem per value (fish: rows to columns) is
   left out: it cost a sixth of the time and, with box-line kept, hardly
   changed the search trees.
3. `look_ahead`, failed literals: at each node, both sides of every
   two-way choice are tried with the singles alone (`settle_trial`, a
   lean copy of `settle`), in one pass. A literal whose trial fails is
   removed for good (the node is re-tightened after the pass); the trials
   that succeed measure how far each literal reaches, and the choice whose
   two sides reach furthest (the product of the candidates each removes,
   as look-ahead SAT solvers do) is where the search branches (a value's
   two places in a box excepted: they are tried, not branched on).

`search` explores the tree depth first on an explicit stack, so there is
no recursion limit. A node's children narrow one cell to disjoint parts,
or put one value of a unit into different cells, so no two leaves agree:
each solution is found exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from heapq import heapify, heappop, heappush

from plpuzzle.sudoku.engines.python_matching import bits_of, hall_prune

Support = Callable[[int], int]
"""Given one linked cell's domain, the values its partner may take."""

Event = tuple[int, int]
"""A cell and the values (a bit mask) it has just lost."""

Literal = tuple[int, int]
"""A cell and one value (a single bit) it might take."""

Branches = list[tuple[int, int]]
"""The children of a node: in each, narrow a cell to the given values."""

Rule = Callable[[list[int], list[int]], bool]
"""An inference of the caller's own: narrows a state in place (tightened
again); False when the state has no solution."""

Split = Callable[["Board", list[int], list[int], Branches | None], Branches | None]
"""Where to branch, given the board, the state and look_ahead's favourite
either-or (None if none); a None result means the node is a leaf."""


@dataclass(frozen=True)
class Board:
    """The active cells of a grid and the constraints among them."""

    n: int
    cells: tuple[int, ...]  # the active cells, r*N+c
    values: int  # the values every unit must hold once
    unit_places: tuple[int, ...]  # per unit (rows, columns, boxes): its active cells
    unit_cells: tuple[tuple[int, ...], ...]
    units_of: tuple[tuple[int, ...], ...]  # per cell of the grid: its 3 units
    unit_bits: tuple[int, ...]  # per cell of the grid: its 3 units, as bits 1 << unit
    peers: tuple[int, ...]  # per cell of the grid: the other active cells of its units
    links: tuple[tuple[int, ...], ...]  # per cell of the grid: its linked active cells
    support: Support


def make_board(
    k: int,
    cells: list[int],
    values: int,
    links: list[tuple[int, ...]] | None = None,
    support: Support = lambda d: d,
) -> Board:
    """A board of the given active cells of a K*K x K*K grid."""
    n = k * k
    grid = grid_geometry(k)
    active = 0
    for cell in cells:
        active |= 1 << cell
    unit_places = tuple(unit & active for unit in grid.units)
    units_of: list[tuple[int, ...]] = [()] * (n * n)
    peers = [0] * (n * n)
    for cell in cells:
        units_of[cell] = a, b, c = grid.units_of[cell]
        peers[cell] = (unit_places[a] | unit_places[b] | unit_places[c]) & ~(1 << cell)
    return Board(
        n,
        tuple(sorted(cells)),
        values,
        unit_places,
        tuple(tuple(bits_of(places)) for places in unit_places),
        tuple(units_of),
        grid.unit_bits,  # the same for every board of the grid
        tuple(peers),
        tuple(links) if links else ((),) * (n * n),
        support,
    )


@dataclass(frozen=True)
class GridGeometry:
    """The units of a whole K*K x K*K grid, shared by all its boards."""

    units: tuple[int, ...]  # bit masks of cells: rows, then columns, then boxes
    units_of: tuple[tuple[int, int, int], ...]  # per cell: its row, column and box
    unit_bits: tuple[int, ...]  # per cell: the same, as bits 1 << unit


@cache
def grid_geometry(k: int) -> GridGeometry:
    """Build (once per K) the units every board cuts down to its cells."""
    n = k * k
    units_of = tuple((r, n + c, 2 * n + (r // k) * k + c // k) for r in range(n) for c in range(n))
    units = [0] * (3 * n)
    for cell, cell_units in enumerate(units_of):
        for u in cell_units:
            units[u] |= 1 << cell
    unit_bits = tuple(1 << a | 1 << b | 1 << c for a, b, c in units_of)
    return GridGeometry(tuple(units), units_of, unit_bits)


# --- the state and its events ---------------------------------------------------


def places_of(board: Board, doms: list[int]) -> list[int]:
    """Per value, the active cells that can take it."""
    places = [0] * (board.n + 1)
    for cell in board.cells:
        rest = doms[cell]
        while rest:
            bit = rest & -rest
            rest ^= bit
            places[bit.bit_length() - 1] |= 1 << cell
    return places


def drop(doms: list[int], places: list[int], cell: int, keep: int, events: list[Event]) -> None:
    """Narrow a cell's domain to `keep` (a non-empty subset) and record it."""
    gone = doms[cell] & ~keep
    doms[cell] = keep
    clear = ~(1 << cell)
    rest = gone
    while rest:
        bit = rest & -rest
        rest ^= bit
        places[bit.bit_length() - 1] &= clear
    events.append((cell, gone))


def settle(
    board: Board,
    doms: list[int],
    places: list[int],
    events: list[Event],
    log: list[Event],
) -> int:
    """Apply singles and links until no event is left; 0 on a contradiction,
    else 1 + the number of candidates removed (how far the events reached).
    Handled events go to `log`, for the costlier rules to look at (trials
    use the lean `settle_trial`, which keeps no log).

    Most events are a decided cell's value leaving its peers. Those are
    handled on the spot (`clear_peers`), not queued: only a peer that
    becomes decided or has links needs an event of its own."""
    units_of, unit_places, links = board.units_of, board.unit_places, board.links
    removed = 1
    while events:
        cell, gone = event = events.pop()
        log.append(event)
        removed += gone.bit_count()
        d = doms[cell]
        if d & (d - 1) == 0:
            cleared = clear_peers(board, doms, places, cell, events, log)
            if cleared < 0:
                return 0
            removed += cleared
        if links[cell]:
            allowed = board.support(d)
            for other in links[cell]:
                if doms[other] & ~allowed:
                    if not doms[other] & allowed:
                        return 0
                    drop(doms, places, other, doms[other] & allowed, events)
        units = units_of[cell]
        while gone:  # each lost value may have one place left in a unit
            bit = gone & -gone
            gone ^= bit
            can = places[bit.bit_length() - 1]
            for u in units:
                left = can & unit_places[u]
                if left & (left - 1) == 0:
                    if not left:
                        return 0
                    only = left.bit_length() - 1
                    if doms[only] != bit:
                        drop(doms, places, only, bit, events)
    return removed


def clear_peers(
    board: Board,
    doms: list[int],
    places: list[int],
    cell: int,
    events: list[Event],
    log: list[Event],
) -> int:
    """Take a decided cell's value from its peers; how many lost it, or -1
    on a contradiction. Each peer's other units may now have one place
    left for the value (its units shared with the cell hold the value
    already, so they are skipped)."""
    d = doms[cell]
    v = d.bit_length() - 1
    hit = places[v] & board.peers[cell]
    if not hit:
        return 0
    can = places[v] = places[v] ^ hit
    own = board.units_of[cell]
    units_of, unit_places, links = board.units_of, board.unit_places, board.links
    count = hit.bit_count()
    keep = ~d
    while hit:
        bit = hit & -hit
        hit ^= bit
        peer = bit.bit_length() - 1
        left = doms[peer] & keep
        if not left:
            return -1
        doms[peer] = left
        if left & (left - 1) == 0 or links[peer]:
            events.append((peer, 0))
        log.append((peer, d))
        for u in units_of[peer]:
            if u not in own:
                rest = can & unit_places[u]
                if rest & (rest - 1) == 0:
                    if not rest:
                        return -1
                    only = rest.bit_length() - 1
                    if doms[only] != d:
                        drop(doms, places, only, d, events)
    return count


def tighten(
    board: Board,
    doms: list[int],
    places: list[int],
    events: list[Event],
    units: set[int] | None = None,
    lost: dict[int, int] | None = None,
) -> bool:
    """Singles, then box-line confinement of the values and Hall's theorem
    on the units the events touched (and of `lost` and `units` besides),
    to a fixpoint; False on a contradiction. Box-line goes first: it is
    cheap, and what it removes often spares a matching (same tree, about
    10 % less time on the slow stress puzzles).

    `lost` maps a value to the cells that lost it: only the units through
    those cells can newly confine it (a unit whose places for the value
    did not change had nothing to confine before, and its crossing units
    have only lost places since)."""
    units = set() if units is None else units
    lost = {} if lost is None else lost
    while True:
        log: list[Event] = []
        if not settle(board, doms, places, events, log):
            return False
        note_lost(board, log, units, lost)
        if lost:
            v, cells = lost.popitem()
            if not confine(board, doms, places, v, cells, events):
                return False
        elif units:
            if not match_unit(board, doms, places, units.pop(), events):
                return False
        else:
            return True


def note_lost(board: Board, log: list[Event], units: set[int], lost: dict[int, int]) -> None:
    """Add what the logged events touched: the units of their cells, and
    per value the cells that lost it."""
    units_of = board.units_of
    for cell, gone in log:
        units.update(units_of[cell])
        if gone & (gone - 1) == 0:  # the usual case: one value
            if gone:
                v = gone.bit_length() - 1
                lost[v] = lost.get(v, 0) | 1 << cell
        else:
            for v in bits_of(gone):
                lost[v] = lost.get(v, 0) | 1 << cell


def match_unit(
    board: Board, doms: list[int], places: list[int], u: int, events: list[Event]
) -> bool:
    """Keep in a unit's open cells only the values some matching of open
    cells to missing values gives them. The open cells must be as many as
    the values they can take (else one side is left over: a contradiction
    that the matching assumes away).

    No gate comes before the matching: a test for a closed subset by the
    sizes of the domains let about 95 % of the units through and cost more
    than the matchings it spared (same tree, about 10 % less time without
    it on the slow stress puzzles)."""
    cells = board.unit_cells[u]
    domains = [d for c in cells if (d := doms[c]) & (d - 1)]
    if or_all(domains).bit_count() != len(domains):
        return False
    pruned = hall_prune(domains)
    if pruned is None:
        return False
    if pruned is not domains:  # rare: only now name the open cells
        open_cells = [c for c in cells if doms[c] & (doms[c] - 1)]
        for cell, old, new in zip(open_cells, domains, pruned, strict=True):
            if new != old:
                drop(doms, places, cell, new, events)
    return True


def confine(
    board: Board, doms: list[int], places: list[int], v: int, cells: int, events: list[Event]
) -> bool:
    """A value whose places in a unit all lie in one crossing unit (a box
    and a row, say) has no place in the rest of that crossing unit. Only
    the units through `cells` (where v lost places) are looked at.

    Those units are gathered from the cells' own units when the cells are
    few (the usual case: about 15 % less time than testing every unit),
    else by testing every unit: at the root every cell has lost every
    value, and gathering alone made the official oddsum suite, mostly easy
    puzzles solved near the root, about 10 % slower."""
    n, bit = board.n, 1 << v
    unit_places, units_of, unit_bits = board.unit_places, board.units_of, board.unit_bits
    boxes = 2 * n
    can = places[v]
    todo = 0  # the units through `cells`, as bits
    if cells.bit_count() < 3 * n // 2:
        while cells:
            low = cells & -cells
            cells ^= low
            todo |= unit_bits[low.bit_length() - 1]
    else:
        for u, unit in enumerate(unit_places):
            if unit & cells:
                todo |= 1 << u
    while todo:  # lowest unit first, as a scan of all units would go
        low = todo & -todo
        todo ^= low
        u = low.bit_length() - 1
        unit = unit_places[u]
        here = can & unit
        if here & (here - 1) == 0:
            continue
        first = units_of[(here & -here).bit_length() - 1]
        for other in first[:2] if u >= boxes else first[2:]:
            crossing = unit_places[other]
            if here & ~crossing == 0 and can & crossing & ~unit:
                for cell in bits_of(can & crossing & ~unit):
                    if not remove_value(doms, places, cell, bit, events):
                        return False
                can = places[v]
    return True


def or_all(masks: list[int]) -> int:
    """The union of some bit masks."""
    union = 0
    for mask in masks:
        union |= mask
    return union


def remove_value(
    doms: list[int], places: list[int], cell: int, bit: int, events: list[Event]
) -> bool:
    """Take one value from a cell; False if it was the last one."""
    if doms[cell] == bit:
        return False
    doms[cell] &= ~bit
    places[bit.bit_length() - 1] &= ~(1 << cell)
    events.append((cell, bit))
    return True


# --- failed literals and search ----------------------------------------------------


def look_ahead(board: Board, doms: list[int], places: list[int]) -> tuple[bool, Branches | None]:
    """Try both sides of every two-way choice with singles alone, in one pass.

    Returns whether the node survives, and the choice to branch on: of
    those the search may branch on (see two_way_choices), the one whose
    two trials removed most candidates (largest product), or None if
    there is none. A literal whose trial fails is removed and its
    consequences settled by singles alone: a doomed node mostly dies right
    there, and Hall's theorem runs once, after the pass, on what all the
    removals touched. Trials made before a removal are kept although they
    may now fail: redoing them (a pass per removal, and a matching of
    every touched unit per removal) cost more than the children's finding
    those failures themselves.

    Trials are costly, so a literal that an earlier trial decided (which
    cannot fail: its own trial does a part of that one's work) is not
    tried in the pass; that trial's reach bounds its own. Only the
    choices whose bound beats the best exact score are looked at again,
    afterwards (`best_bounded`).
    """
    reached: dict[Literal, int] = {}  # trials made at this node
    implied: dict[Literal, int] = {}  # literals those trials decided, with a bound
    best: Branches | None = None
    best_score = 0
    bounded: list[tuple[int, int, Branches]] = []  # (-bound, order, choice)
    touched: list[Event] = []  # what removals changed, for Hall's theorem
    for choice, may_branch in two_way_choices(board, doms, places):
        if not both_open(doms, choice):
            continue  # a literal went since the choice was listed
        score, failed = probe(board, doms, places, choice, reached, implied)
        if failed is not None:
            if not remove_literal(board, doms, places, failed, touched):
                return False, None
        elif may_branch and score > best_score:
            if all(literal in reached for literal in choice):
                best, best_score = choice, score
            else:
                bounded.append((-score, len(bounded), choice))
    trials = reached, implied, touched
    alive, best = best_bounded(board, doms, places, bounded, best, best_score, trials)
    if not alive:
        return False, None
    if touched:
        units: set[int] = set()
        lost: dict[int, int] = {}
        note_lost(board, touched, units, lost)
        if not tighten(board, doms, places, [], units, lost):
            return False, None
        if best is not None and not both_open(doms, best):
            best = None
    return True, best


def best_bounded(
    board: Board,
    doms: list[int],
    places: list[int],
    bounded: list[tuple[int, int, Branches]],
    best: Branches | None,
    best_score: int,
    trials: tuple[dict[Literal, int], dict[Literal, int], list[Event]],
) -> tuple[bool, Branches | None]:
    """The best choice once the bounded ones that might beat `best` are
    known exactly; False first if a trial's failure kills the node.

    The choice with the highest bound goes first, and gets one untried
    literal tried at a time, which may tighten its bound below the next
    one's. The first trials made so tend to find a high score, which most
    bounds then do not beat: on bench-consecutive test011, 13,857 trials
    for bounds against 21,146 when each bounded choice was tried in the
    pass, where the best score so far was still low."""
    reached, implied, touched = trials
    heapify(bounded)
    while bounded and -bounded[0][0] > best_score:
        key, order, choice = heappop(bounded)
        if not both_open(doms, choice):
            continue
        bound, _ = probe(board, doms, places, choice, reached, implied)  # no trial
        untried = next((literal for literal in choice if literal not in reached), None)
        if untried is None:  # the bound is the score
            if bound > best_score:
                best, best_score = choice, bound
        elif bound < -key:  # an earlier trial tightened it
            if bound > best_score:
                heappush(bounded, (-bound, order, choice))
        elif reached.setdefault(untried, trial(board, doms, places, *untried, implied)):
            heappush(bounded, (key, order, choice))
        elif not remove_literal(board, doms, places, untried, touched):
            return False, None
    return True, best


def both_open(doms: list[int], choice: Branches) -> bool:
    """Whether each side of a choice is still a candidate: removals made
    since it was listed may have taken one."""
    return all(doms[cell] & value for cell, value in choice)


def remove_literal(
    board: Board, doms: list[int], places: list[int], literal: Literal, touched: list[Event]
) -> bool:
    """Take a failed literal's value from its cell and settle the singles;
    False if that kills the node. The changes go to `touched`."""
    cell, value = literal
    events: list[Event] = []
    drop(doms, places, cell, doms[cell] & ~value, events)
    return bool(settle(board, doms, places, events, touched))


def probe(
    board: Board,
    doms: list[int],
    places: list[int],
    choice: Branches,
    reached: dict[Literal, int],
    implied: dict[Literal, int],
) -> tuple[int, Literal | None]:
    """A bound on the product of a choice's reaches, and its first failing
    literal (or None). A literal that no trial has decided is tried; one
    that an earlier trial decided counts with that trial's reach, unless
    it has a trial of its own."""
    score = 1
    for literal in choice:
        reach = reached.get(literal)
        if reach is None:
            reach = implied.get(literal)
        if reach is None:
            reach = reached[literal] = trial(board, doms, places, *literal, implied)
            if not reach:
                return 0, literal
        score *= reach
    return score, None


def two_way_choices(
    board: Board, doms: list[int], places: list[int]
) -> Iterator[tuple[Branches, bool]]:
    """Every either-or of the node, and whether to branch on it: a cell
    with two candidates, and a value with two places left in a unit
    (trying both places of a value finds contradictions that cell trials
    miss, on consecutive puzzles above all).

    A value's two places in a box are tried but not branched on. On
    bench-consecutive test011 branching on them too made the tree 1.4
    times larger (1,736 nodes against 1,262), and 1.06 to 1.42 times in
    its three mirror images; elsewhere the trees hardly changed."""
    open_cells = 0
    for cell in board.cells:
        d = doms[cell]
        if d & (d - 1):
            open_cells |= 1 << cell
            if d.bit_count() == 2:
                low = d & -d
                yield [(cell, low), (cell, d ^ low)], True
    # Two places of a value in a unit are both open (singles are done), so
    # a value with no open place is left out. Places are read when a unit
    # comes up, as the caller narrows the state between two choices.
    live = [v for v in bits_of(board.values) if places[v] & open_cells]
    boxes = 2 * board.n
    for u, unit in enumerate(board.unit_places):
        for v in live:
            can = places[v] & unit
            if can.bit_count() == 2:
                low = can & -can
                pair = [(low.bit_length() - 1, 1 << v), ((can ^ low).bit_length() - 1, 1 << v)]
                yield pair, u < boxes


def trial(
    board: Board,
    doms: list[int],
    places: list[int],
    cell: int,
    value: int,
    implied: dict[tuple[int, int], int],
) -> int:
    """How far putting `value` into `cell` reaches by singles (0: it fails).

    Every other cell the trial decides is noted in `implied`, with this
    reach as a bound: its own trial could only do less, so it cannot fail.
    Several trials may decide it; the smallest bound is kept.
    """
    doms, places = doms.copy(), places.copy()
    events: list[Event] = []
    drop(doms, places, cell, value, events)
    decided: list[int] = []
    reach = settle_trial(board, doms, places, events, decided)
    if reach:
        for other in decided:
            if other != cell:
                key = other, doms[other]
                if implied.get(key, reach) >= reach:
                    implied[key] = reach
    return reach


def settle_trial(
    board: Board, doms: list[int], places: list[int], events: list[Event], decided: list[int]
) -> int:
    """`settle` for a trial, which runs about a hundred times per node: the
    same singles and links, with `clear_peers` inlined and no log kept.
    (Inlining `drop` as well saved about 2 % per trial, within the noise
    of whole puzzles: not worth two more copies of it.)

    Looking at each unit once per cleared value, rather than once per peer
    in it, was about 3 % slower: the peers that still had the value share
    few units, so gathering the units costs more than it saves."""
    units_of, unit_places = board.units_of, board.unit_places
    peers, links, support = board.peers, board.links, board.support
    push, pop = events.append, events.pop
    removed = 1
    while events:
        cell, gone = pop()
        removed += gone.bit_count()
        d = doms[cell]
        if d & (d - 1) == 0:  # a decided cell's value leaves its peers
            decided.append(cell)
            v = d.bit_length() - 1
            can = places[v]
            hit = can & peers[cell]
            if hit:
                can = places[v] = can ^ hit
                removed += hit.bit_count()
                own = units_of[cell]
                keep = ~d
                while hit:
                    bit = hit & -hit
                    hit ^= bit
                    peer = bit.bit_length() - 1
                    left = doms[peer] & keep
                    if not left:
                        return 0
                    doms[peer] = left
                    if left & (left - 1) == 0 or links[peer]:
                        push((peer, 0))
                    for u in units_of[peer]:
                        if u not in own:
                            rest = can & unit_places[u]
                            if rest & (rest - 1) == 0:
                                if not rest:
                                    return 0
                                only = rest.bit_length() - 1
                                if doms[only] != d:
                                    drop(doms, places, only, d, events)
        if links[cell]:
            allowed = support(d)
            for other in links[cell]:
                if doms[other] & ~allowed:
                    if not doms[other] & allowed:
                        return 0
                    drop(doms, places, other, doms[other] & allowed, events)
        if gone:
            units = units_of[cell]
            while gone:
                bit = gone & -gone
                gone ^= bit
                can = places[bit.bit_length() - 1]
                for u in units:
                    left = can & unit_places[u]
                    if left & (left - 1) == 0:
                        if not left:
                            return 0
                        only = left.bit_length() - 1
                        if doms[only] != bit:
                            drop(doms, places, only, bit, events)
    return removed


def start(board: Board, domains: list[int]) -> tuple[list[int], list[int]] | None:
    """The root state, tightened; None if the board has no solution.

    Events with nothing lost make decided cells clear their peers and links
    revise their partners; a scan of every unit and value then finds the
    values with no place or a single place from the start."""
    doms = list(domains)
    if any(not doms[cell] for cell in board.cells):
        return None
    places = places_of(board, doms)
    if not settle(board, doms, places, [(cell, 0) for cell in board.cells], []):
        return None
    events: list[Event] = []
    values = bits_of(board.values)
    for unit in board.unit_places:
        for v in values:
            can = places[v] & unit
            if can & (can - 1) == 0:
                if not can:
                    return None
                cell = can.bit_length() - 1
                if doms[cell] != 1 << v:
                    if not doms[cell] & (1 << v):
                        return None
                    drop(doms, places, cell, 1 << v, events)
    everything = set(range(len(board.unit_cells)))
    active = sum(1 << cell for cell in board.cells)
    lost = {v: active for v in bits_of(board.values)}
    if not tighten(board, doms, places, events, everything, lost):
        return None
    return doms, places


def search(
    board: Board, domains: list[int], split: Split, rule: Rule | None = None
) -> Iterator[list[int]]:
    """Yield the domains of every leaf that `split` accepts, each once.

    `rule`, if given, is one more inference the caller adds, run at each
    node before the failed literals."""
    root = start(board, domains)
    stack = [root] if root else []
    while stack:
        doms, places = stack.pop()
        if rule is not None and not rule(doms, places):
            continue
        alive, favourite = look_ahead(board, doms, places)
        if not alive:
            continue
        branches = split(board, doms, places, favourite)
        if branches is None:
            yield doms
            continue
        for cell, part in reversed(branches):  # the stack pops the first part first
            child, child_places = doms.copy(), places.copy()
            events: list[Event] = []
            drop(child, child_places, cell, part, events)
            if tighten(board, child, child_places, events):
                stack.append((child, child_places))


def split_values(
    board: Board, doms: list[int], places: list[int], favourite: Branches | None
) -> Branches | None:
    """Branch on look_ahead's favourite cell; failing that, on whichever
    cell or (unit, value) has the fewest choices. None when all is decided."""
    if favourite is not None:
        return favourite
    best: Branches | None = None
    size = board.n + 1
    for cell in board.cells:
        d = doms[cell]
        if d & (d - 1) and d.bit_count() < size:
            size = d.bit_count()
            best = [(cell, 1 << v) for v in bits_of(d)]
    if best is None:
        return None
    for unit in board.unit_places:
        for v in bits_of(board.values):
            can = places[v] & unit
            if can & (can - 1) and can.bit_count() < size:
                size = can.bit_count()
                best = [(cell, 1 << v) for cell in bits_of(can)]
    return best
