"""The pure-Python knight's-tour search: Warnsdorff's rule, made exact.

Warnsdorff's rule -- jump to the square with the fewest onward moves --
crosses most boards in one pass without a single step back. Ties are broken
towards the square farthest from the centre, which keeps the knight on the
rim until the rim is done; plain Warnsdorff with arbitrary ties strands
squares in the corners of big boards.

Where the rule does walk into a dead end, the same order drives a
depth-first search that backs up, so the search stays exact: it finds a
tour whenever one exists and says so when none does. Two cheap tests cut
a hopeless branch as soon as it starts:

- a free square that the knight can no longer enter (no free neighbour,
  and not next to the knight) can never be visited;
- a free square with only one way left in must be the last of the tour,
  so two such squares mean there is no way on.

A closed tour is searched as an open one that must end back at the start:
the start keeps counting as a way out for its neighbours, so the rule
leaves them for last, and the tests above treat it as the fixed end.

Backing up rarely gets far enough to undo an early mistake, so while the
main search goes on, short searches in randomly blurred orders try their
luck in between. Any search that runs out of branches proves there is no
tour. On small boards a search also remembers the positions it has seen
fail, which makes proving that no tour exists quick there.

Squares are flat indices into a board padded by two rows and columns of
walls, so a knight's move is one addition that never leaves the array.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Any, NamedTuple

from plpuzzle.knight.domain.model import KNIGHT_MOVES, Board, BoardError, Square, Tour
from plpuzzle.knight.domain.results import CountResult, Status, TourResult
from plpuzzle.runtime import PythonInWorker

PAD = 2  # a knight jumps at most two squares, so two rings of wall suffice

#: Moves the main search makes before the first random restart, per
#: square of the board.
FIRST_BUDGET = 4

#: Boards up to this many squares remember failed positions, at most
#: MEMO_LIMIT of them per search.
MEMO_SIZE = 64
MEMO_LIMIT = 2_000_000

#: How far (in percent of one exit) a restart's random order may blur
#: Warnsdorff's rule.
BLUR = 150


# --- the padded board ---------------------------------------------------------


class Geometry:
    """A board as a flat array with walls: indices, moves and start values."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.stride = board.width + 2 * PAD
        self.cells = self.stride * (board.height + 2 * PAD)
        self.offsets = tuple(dy * self.stride + dx for dx, dy in KNIGHT_MOVES)

    def index(self, square: Square) -> int:
        x, y = square
        return (y + PAD) * self.stride + x + PAD

    def square(self, index: int) -> Square:
        y, x = divmod(index, self.stride)
        return (x - PAD, y - PAD)

    def squares(self) -> bytearray:
        """1 on the board, 0 on the walls."""
        wall = bytes(self.stride)
        row = bytes(PAD) + b"\1" * self.board.width + bytes(PAD)
        return bytearray(wall * PAD + row * self.board.height + wall * PAD)

    def degrees(self) -> bytearray:
        """How many moves each square of the empty board has (0 on walls).

        Only the two rows nearest each edge differ from the middle ones, so
        each distinct row is worked out once.
        """
        w, h = self.board.width, self.board.height
        rows: dict[tuple[int, ...], bytes] = {}
        out = bytearray(self.stride * PAD)
        for y in range(h):
            across = tuple(dx for dx, dy in KNIGHT_MOVES if 0 <= y + dy < h)
            if across not in rows:
                counts = [sum(0 <= x + dx < w for dx in across) for x in range(w)]
                rows[across] = bytes(PAD) + bytes(counts) + bytes(PAD)
            out += rows[across]
        return out + bytes(self.stride * PAD)

    def rim_first(self) -> list[int]:
        """Tie-break key: squares farther from the centre come first (lower)."""
        w, h = self.board.width, self.board.height
        across = [(2 * x - w + 1) ** 2 for x in range(w)]
        rows = [0] * (self.stride * PAD)
        for y in range(h):
            down = (2 * y - h + 1) ** 2
            rows += [0] * PAD + [-(down + a) for a in across] + [0] * PAD
        return rows + [0] * (self.stride * PAD)


# --- what a tour can never do -------------------------------------------------


def ruled_out(board: Board, start: Square, closed: bool) -> bool:
    """Does theory alone say there is no tour from `start`?

    Settled here without search, because a search would have to try every
    path to find that out. A knight always changes colour, so an open tour
    of an odd board, which has one square more of its start's colour, must
    start on the majority colour (that of the corners), and a closed tour
    needs an even board. Schwenk's theorem (1991) settles the rest of the
    closed case: none when the short side is 1, 2 or 4, or it is 3 and the
    long side 4, 6 or 8. The tests check these against exhaustive search.
    """
    if not closed:
        return board.size % 2 == 1 and sum(start) % 2 == 1
    short, long = sorted((board.width, board.height))
    return board.size % 2 == 1 or short in (1, 2, 4) or (short == 3 and long in (4, 6, 8))


# --- the search state ---------------------------------------------------------


class Walk:
    """A partial tour: which squares are free and how they can be reached.

    `exits[i]` is the number of free neighbours of square i (for a closed
    tour, the start counts as one for its neighbours: the tour returns
    there). `stranded` counts the free squares with at most one exit.
    """

    def __init__(
        self, geometry: Geometry, start: Square, closed: bool, remember: bool = False
    ) -> None:
        self.geometry = geometry
        self.offsets = geometry.offsets
        self.free = geometry.squares()
        self.exits = geometry.degrees()
        self.left = geometry.board.size
        self.stranded = sum(1 for i, f in enumerate(self.free) if f and self.exits[i] <= 1)
        self.start = geometry.index(start)
        self.closed = closed
        #: With `remember`, the visited squares as the bits of an int.
        self.remember = remember
        self.visited = 0
        self.home = bytearray(geometry.cells)  # neighbours of the start, closed tours only
        self.home_exits = 0  # free neighbours of the start, closed tours only
        if closed:
            for off in self.offsets:
                n = self.start + off
                if self.free[n]:
                    self.home[n] = 1
                    self.home_exits += 1

    def enter(self, square: int) -> None:
        """The knight lands on `square`: it is no longer free."""
        free, exits = self.free, self.exits
        free[square] = 0
        self.left -= 1
        if self.remember:
            self.visited ^= 1 << square
        if exits[square] <= 1:
            self.stranded -= 1
        if self.home[square]:
            self.home_exits -= 1
        if self.closed and square == self.start:
            return  # the start stays a way out for its neighbours
        for off in self.offsets:
            n = square + off
            if free[n]:
                exits[n] -= 1
                if exits[n] == 1:
                    self.stranded += 1

    def leave(self, square: int) -> None:
        """Undo enter(square)."""
        free, exits = self.free, self.exits
        if not (self.closed and square == self.start):
            for off in self.offsets:
                n = square + off
                if free[n]:
                    if exits[n] == 1:
                        self.stranded -= 1
                    exits[n] += 1
        if self.home[square]:
            self.home_exits += 1
        if exits[square] <= 1:
            self.stranded += 1
        self.left += 1
        free[square] = 1
        if self.remember:
            self.visited ^= 1 << square

    def hopeless(self, square: int) -> bool:
        """Can no tour go on from the knight on `square` (just entered)?"""
        if self.left == 0:
            return self.closed and not self.home[square]
        blocked = single = 0  # free neighbours with 0 / 1 exits
        free, exits = self.free, self.exits
        for off in self.offsets:
            n = square + off
            if free[n]:
                e = exits[n]
                if e == 0:
                    blocked += 1
                elif e == 1:
                    single += 1
        # Free squares out of the knight's reach with one way in: tour ends.
        ends = self.stranded - blocked - single
        if self.closed:
            return blocked > 0 or ends > 0 or self.home_exits == 0
        # A blocked neighbour must be next and last; other ends, last.
        return (blocked > 0 and self.left > 1) or ends > 1

    def position(self, square: int) -> int:
        """The knight on `square` with these squares visited, as one number."""
        return self.visited * self.geometry.cells + square

    def moves_from(self, square: int) -> list[int]:
        return [square + off for off in self.offsets if self.free[square + off]]


# --- finding one tour ---------------------------------------------------------


class Order(NamedTuple):
    """Which free neighbour to try first: the lowest `exits * unit + tie[n]`."""

    unit: int
    tie: list[int]


def orders(geometry: Geometry) -> Iterator[Order]:
    """Orders to try, best first.

    First Warnsdorff's rule with ties to the rim. Then the rule blurred by
    a random amount per square that can outweigh one exit, so that a
    restart also changes the early choices, which backing up never
    revisits in time.
    """
    rim = geometry.rim_first()
    yield Order(max(rim) - min(rim) + 1, rim)
    unit = 1 << 16
    for seed in itertools.count(1):
        rng = random.Random(seed)
        yield Order(unit, [-rng.randrange(BLUR * unit // 100) for _ in rim])


class SearchState(StrEnum):
    """Where a search stands."""

    FOUND = "found"
    EXHAUSTED = "exhausted"  # every branch failed: there is no tour
    GOING = "going"  # out of moves for now


class Search:
    """A depth-first search in one order, which can run in slices.

    At each depth it remembers only which candidate (by rank) it is on;
    backing up recomputes the order, which comes out the same because the
    exits are restored exactly. On small boards it also remembers the
    positions (square and set of visited squares) it has seen fail, since
    many orders of the same squares lead to the same dead position.
    """

    def __init__(self, geometry: Geometry, start: Square, closed: bool, order: Order) -> None:
        self.walk = Walk(geometry, start, closed, remember=geometry.board.size <= MEMO_SIZE)
        self.order = order
        self.path = [self.walk.start]
        self.ranks = [0]
        self.moves = 0
        self.failed: set[int] = set()
        self.walk.enter(self.walk.start)
        self.state = SearchState.GOING
        if self.walk.left == 0:  # a 1x1 board: a tour, but it cannot close
            self.state = SearchState.EXHAUSTED if closed else SearchState.FOUND

    def tour(self) -> Tour:
        return [self.walk.geometry.square(i) for i in self.path]

    def run(self, budget: int) -> SearchState:
        """Go on for at most `budget` more moves."""
        walk, path, ranks, failed = self.walk, self.path, self.ranks, self.failed
        unit, tie = self.order
        free, exits, offsets = walk.free, walk.exits, walk.offsets
        remember = walk.remember and len(failed) < MEMO_LIMIT
        stop = self.moves + budget
        while self.state is SearchState.GOING:
            here = path[-1]
            rank = ranks[-1]
            best = -1
            if rank == 0:
                best_key = 9 * unit
                for off in offsets:
                    n = here + off
                    if free[n]:
                        key = exits[n] * unit + tie[n]
                        if key < best_key:
                            best, best_key = n, key
            else:
                options = [here + off for off in offsets if free[here + off]]
                if rank < len(options):
                    options.sort(key=lambda n: exits[n] * unit + tie[n])
                    best = options[rank]
            if best < 0:  # every move from here failed: back up
                if remember:
                    failed.add(walk.position(here))
                if len(path) == 1:
                    self.state = SearchState.EXHAUSTED
                    break
                walk.leave(path.pop())
                ranks.pop()
                ranks[-1] += 1
                continue
            if self.moves >= stop:
                break
            self.moves += 1
            walk.enter(best)
            if walk.hopeless(best) or (remember and walk.position(best) in failed):
                walk.leave(best)
                ranks[-1] += 1
                continue
            path.append(best)
            ranks.append(0)
            if walk.left == 0:
                self.state = SearchState.FOUND
        return self.state


def luby(i: int) -> int:
    """The i-th term (from 1) of Luby's restart sequence: 1 1 2 1 1 2 4 1 ..."""
    k = i.bit_length()
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = i.bit_length()
    return 1 << (k - 1)


def find_tour(board: Board, start: Square, closed: bool = False) -> tuple[Tour | None, int]:
    """A tour from `start` (None if there is none) and the moves it took.

    A main search in Warnsdorff's order runs until it finishes, in slices;
    between slices, short searches in random orders try their luck, with
    budgets growing in Luby's sequence. The main search thus gets half the
    work at least, so a board without a tour costs at most about twice an
    exhaustive search. Moves count every jump of every search, including
    those taken back.
    """
    if not board.contains(start):
        raise BoardError(f"{start} is off the {board} board")
    if ruled_out(board, start, closed):
        return None, 0
    geometry = Geometry(board)
    tried = orders(geometry)
    main = Search(geometry, start, closed, next(tried))
    slice_ = FIRST_BUDGET * board.size
    spent = 0
    for i in itertools.count(1):
        state = main.run(slice_)
        if state is not SearchState.GOING:
            return (main.tour() if state is SearchState.FOUND else None), main.moves + spent
        probe = Search(geometry, start, closed, next(tried))
        state = probe.run(board.size * luby(i))
        spent += probe.moves
        if state is SearchState.FOUND:
            return probe.tour(), main.moves + spent
        if state is SearchState.EXHAUSTED:
            return None, main.moves + spent
        slice_ = probe.moves
    raise AssertionError("unreachable")


# --- counting all tours -------------------------------------------------------


def count_from(board: Board, start: Square, closed: bool) -> int:
    """Directed tours from `start`, by exhaustive search."""
    if ruled_out(board, start, closed):
        return 0
    geometry = Geometry(board)
    walk = Walk(geometry, start, closed)
    walk.enter(walk.start)
    if walk.left == 0:
        return 0 if closed else 1
    count = 0
    path = [walk.start]
    todo = [walk.moves_from(walk.start)]
    while todo:
        if not todo[-1]:
            todo.pop()
            walk.leave(path.pop())
            continue
        square = todo[-1].pop()
        walk.enter(square)
        if walk.hopeless(square):
            walk.leave(square)
        elif walk.left == 0:
            count += 1
            walk.leave(square)
        else:
            path.append(square)
            todo.append(walk.moves_from(square))
    return count


def symmetries(board: Board) -> list[Callable[[Square], Square]]:
    """The board's mirror images and rotations (8 if square, else 4)."""
    w, h = board.width - 1, board.height - 1
    maps: list[Callable[[Square], Square]] = [
        lambda s: s,
        lambda s: (w - s[0], s[1]),
        lambda s: (s[0], h - s[1]),
        lambda s: (w - s[0], h - s[1]),
    ]
    if w == h:
        maps += [
            lambda s: (s[1], s[0]),
            lambda s: (h - s[1], s[0]),
            lambda s: (s[1], w - s[0]),
            lambda s: (h - s[1], w - s[0]),
        ]
    return maps


def count_tours(board: Board, start: Square | None, closed: bool = False) -> int:
    """The number of directed tours from `start`, or from every square.

    Over all squares, a mirror image of a tour is a tour, so each class of
    symmetric start squares is searched once. Every closed tour passes
    through every square, so over all squares a closed count is the count
    from one square times the number of squares.

    Exhaustive, so only for small boards: 5x5 takes a fraction of a
    second, closed 6x6 (19724 tours from each square) about ten seconds;
    open 6x6 and anything bigger, far longer.
    """
    if start is not None:
        if not board.contains(start):
            raise BoardError(f"{start} is off the {board} board")
        return count_from(board, start, closed)
    if closed:
        return board.size * count_from(board, (0, 0), closed)
    classes: dict[Square, int] = {}
    maps = symmetries(board)
    for square in board.squares():
        key = min(f(square) for f in maps)
        classes[key] = classes.get(key, 0) + 1
    return sum(size * count_from(board, square, closed) for square, size in classes.items())


# --- the seed's experiment ----------------------------------------------------


def survey(board: Board) -> list[list[int | None]]:
    """Moves the search makes before its first (open) tour, per start square.

    Rows as printed (top first); None where no tour starts.
    """
    grid: list[list[int | None]] = []
    for y in range(board.height):
        row: list[int | None] = []
        for x in range(board.width):
            tour, moves = find_tour(board, (x, y))
            row.append(moves if tour is not None else None)
        grid.append(row)
    return grid


# --- the worker's side: JSON in, JSON out -------------------------------------


def tour_request(width: int, height: int, start: list[int], closed: bool) -> dict[str, Any]:
    """Run in the worker: one tour as [[x, y], ...] (or null) and its moves."""
    tour, moves = find_tour(Board(width, height), (start[0], start[1]), closed)
    return {"tour": None if tour is None else [list(s) for s in tour], "moves": moves}


def count_request(width: int, height: int, start: list[int] | None, closed: bool) -> int:
    """Run in the worker: how many directed tours."""
    square = None if start is None else (start[0], start[1])
    return count_tours(Board(width, height), square, closed)


def survey_request(width: int, height: int) -> list[list[int | None]]:
    """Run in the worker: the survey grid."""
    return survey(Board(width, height))


class PythonKnightEngine(PythonInWorker):
    """The pure-Python search, run in a killable worker process."""

    name = "python"

    def tour(self, board: Board, start: Square, closed: bool, time_limit: float) -> TourResult:
        run = self.call(
            f"{__name__}:tour_request",
            time_limit,
            width=board.width,
            height=board.height,
            start=list(start),
            closed=closed,
        )
        if run.status is not Status.OK:
            return run.unfinished(TourResult, self.name)
        found = run.result
        tour = None if found["tour"] is None else [(x, y) for x, y in found["tour"]]
        return TourResult(self.name, Status.OK, tour, found["moves"], run.cpu, run.wall)

    def count(
        self, board: Board, start: Square | None, closed: bool, time_limit: float
    ) -> CountResult:
        run = self.call(
            f"{__name__}:count_request",
            time_limit,
            width=board.width,
            height=board.height,
            start=None if start is None else list(start),
            closed=closed,
        )
        if run.status is not Status.OK:
            return run.unfinished(CountResult, self.name)
        return CountResult(self.name, Status.OK, run.result, run.cpu, run.wall)
