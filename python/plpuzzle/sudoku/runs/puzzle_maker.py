"""A deterministic puzzle generator: from a random grid to a puzzle whose
solution count lies in a requested range.

The recipe is the classic one for sudoku. Fill a random valid grid, read
off every info that is true for it (values, parities, and the s/w pairs
that keep the rule variant's relation), then take infos away one by one
in a random order, keeping a removal only while the puzzle still has at
most the requested number of solutions. Removing an info can only add
solutions, so the count grows monotonically towards the range. A puzzle
with no solution is a unique one plus one info that its only solution
breaks: it looks like a sound puzzle, and only solving shows otherwise.
From K = 4 up a puzzle keeps a floor of infos (see DEFAULT_KEEP): taken
down to the minimum, big puzzles become too slow to count and to solve.

From K = 7 up (and for any K when asked with `given`) the recipe aims at
a share of the cell values instead: infos go in large batches until only
that share of the values is left, so that a K=10 grid of 10,000 cells
needs tens of counts rather than thousands (see `reduce_to_given`).

Every choice comes from the one `random.Random` passed in, and nothing
iterates over a set, so a seed fixes the output byte for byte. Solution
counts are capped: the generator never needs to know more than "at most
MAX or not". They come from CP-SAT by default, or from the Python engine
(`Counter`); a count is a fact about the puzzle, so the output does not
depend on which engine counted, nor on how fast or in which order it
finds solutions. CP-SAT's clause learning is what keeps sparse puzzles
with hundreds of solutions countable: there the Python engine's search
took minutes per puzzle.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from typing import Any, NamedTuple

from plpuzzle.sudoku.domain.model import Grid, Info, Puzzle, Rules
from plpuzzle.sudoku.engines import cpsat_engine, python_engine

#: The cell sizes the generator supports (the rules allow K up to 10).
MIN_K, MAX_K = 1, 10

#: From this K up, puzzles are made to a share of given values (`given`):
#: taking infos away one run at a time is too slow there.
GIVEN_FROM_K = 7

#: The share of cell values a puzzle keeps by default from GIVEN_FROM_K up.
DEFAULT_GIVEN = 0.75

#: The longest run of infos `reduce_infos` tries to take away at once.
MAX_RUN = 64

#: The share of a grid's true infos a puzzle keeps at least, by kind and K.
#: Below these the Python engine's counting time (and the solvers' time on
#: the puzzle) grows from milliseconds to minutes within a few removals; the
#: default floors stay clear of that cliff. Sizes not listed get none.
DEFAULT_KEEP: dict[str, dict[int, float]] = {
    "mixed": {4: 0.35, 5: 0.45, 6: 0.55},
    "lean": {3: 0.4, 4: 0.65, 5: 0.7, 6: 0.8},
    "classic": {4: 0.45, 5: 0.55, 6: 0.65},
}

#: Past the floor, a puzzle short of its count may lose 1/BELOW_FLOOR of the
#: floor's infos more; then the attempt is given up and a new grid tried, as
#: puzzles far below the floor can take minutes to solve.
BELOW_FLOOR = 10

#: How many solution grids exist at all, for the sizes where that is small.
#: (For K = 3 there are already about 6.7e21.)
GRID_COUNTS = {1: 1, 2: 288}


class GenerationError(Exception):
    """The requested puzzle could not be made (e.g. an unreachable count)."""


class Counter(StrEnum):
    """Which engine counts solutions while infos are taken away."""

    CPSAT = "cpsat"  # the default: quick on sparse puzzles with many solutions
    PYTHON = "python"  # quicker per count on tiny puzzles, minutes on sparse K >= 4


class Kind(StrEnum):
    """Which infos a puzzle is made of, and which are taken away first."""

    MIXED = "mixed"  # values, parities and neighbour infos, removed in random order
    LEAN = "lean"  # values are removed first, so the puzzle leans on e/o/s/w
    CLASSIC = "classic"  # values only: an ordinary (generalised) sudoku


class Placed(NamedTuple):
    """One info at a 0-based cell."""

    row: int
    col: int
    info: Info


@dataclass(frozen=True)
class Generated:
    """A generated puzzle, the grid its infos were read from, and its count."""

    puzzle: Puzzle
    grid: Grid
    #: The exact number of solutions.
    solutions: int

    @property
    def info_count(self) -> int:
        """How many infos the puzzle gives, ignored edge infos included."""
        return sum(len(f.infos) for row in self.puzzle.fields for f in row)


# --- grids ---------------------------------------------------------------------


def random_grid(k: int, rng: random.Random) -> Grid:
    """A random valid N x N solution grid (N = K*K).

    Start from a pattern grid and apply the symmetries that keep a grid
    valid: permute the bands and the rows inside each band, the stacks and
    the columns inside each stack, maybe transpose, and relabel the values.
    That reaches a large, well-mixed family of grids cheaply; exact
    uniformity over all grids is not needed for test puzzles.
    """
    if k < 1:
        raise ValueError(f"K must be at least 1, got {k}")
    n = k * k
    rows = _shuffled_lines(k, rng)
    cols = _shuffled_lines(k, rng)
    labels = list(range(1, n + 1))
    rng.shuffle(labels)
    grid = [[labels[_pattern(k, r, c)] for c in cols] for r in rows]
    if rng.random() < 0.5:
        grid = [list(col) for col in zip(*grid, strict=True)]
    return tuple(tuple(row) for row in grid)


def _pattern(k: int, r: int, c: int) -> int:
    """The 0-based value of the pattern grid: each row a shift of the first."""
    return (k * (r % k) + r // k + c) % (k * k)


def _shuffled_lines(k: int, rng: random.Random) -> list[int]:
    """An order of N lines that keeps each band (or stack) together."""
    bands = list(range(k))
    rng.shuffle(bands)
    out = []
    for band in bands:
        inner = list(range(k))
        rng.shuffle(inner)
        out += [band * k + i for i in inner]
    return out


# --- infos ---------------------------------------------------------------------


def true_infos(grid: Grid, rules: Rules, kind: Kind = Kind.MIXED) -> list[Placed]:
    """Every info that holds for `grid`, cell by cell in reading order.

    Values and parities always hold for their own cell; an `s` or `w` is
    offered only where the neighbours keep the rule variant's relation.
    Edge infos (which refer to no cell) are left to `edge_infos`.
    """
    n = len(grid)
    out = []
    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            out.append(Placed(r, c, v))
            if kind is Kind.CLASSIC:
                continue
            out.append(Placed(r, c, "e" if v % 2 == 0 else "o"))
            if r + 1 < n and rules.related(v, grid[r + 1][c]):
                out.append(Placed(r, c, "s"))
            if c > 0 and rules.related(v, grid[r][c - 1]):
                out.append(Placed(r, c, "w"))
    return out


def false_infos(grid: Grid, rules: Rules) -> list[Placed]:
    """Infos that `grid` breaks: a wrong value or parity, an unrelated pair.

    Added to a puzzle whose only solution is `grid`, any of them leaves it
    with no solution at all.
    """
    n = len(grid)
    out = []
    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            out += [Placed(r, c, m) for m in range(1, n + 1) if m != v]
            out.append(Placed(r, c, "o" if v % 2 == 0 else "e"))
            if r + 1 < n and not rules.related(v, grid[r + 1][c]):
                out.append(Placed(r, c, "s"))
            if c > 0 and not rules.related(v, grid[r][c - 1]):
                out.append(Placed(r, c, "w"))
    return out


def edge_infos(k: int) -> list[Placed]:
    """The infos that refer to no cell: `s` in the bottom row, `w` in the
    leftmost column. The rules say to ignore them, and a solver that does
    not is caught by them."""
    n = k * k
    return [Placed(n - 1, c, "s") for c in range(n)] + [Placed(r, 0, "w") for r in range(n)]


def _kind_of(info: Info) -> str:
    """The kind an info counts as for "each kind at most once per cell"."""
    return "v" if isinstance(info, int) else info


def _slot(info: Info) -> str:
    """Like `_kind_of`, but `e` and `o` share a slot: a cell marked both
    even and odd would be too plain a contradiction."""
    return "p" if info in ("e", "o") else _kind_of(info)


def build_puzzle(k: int, infos: Iterable[Placed], rng: random.Random | None = None) -> Puzzle:
    """Assemble a puzzle from placed infos.

    With `rng` the infos inside each field are shuffled, since the format
    allows any order and a solver must not rely on one; without it they
    keep the order given.
    """
    n = k * k
    cells: list[list[list[Info]]] = [[[] for _ in range(n)] for _ in range(n)]
    for p in infos:
        field = cells[p.row][p.col]
        if any(_kind_of(i) == _kind_of(p.info) for i in field):
            raise ValueError(f"cell ({p.row + 1},{p.col + 1}) would get two {_kind_of(p.info)!r}")
        field.append(p.info)
    if rng is not None:
        for row in cells:
            for field in row:
                rng.shuffle(field)
    return Puzzle.from_rows(k, cells)


def placed_infos(puzzle: Puzzle) -> list[Placed]:
    """The infos of a puzzle as placed infos, in reading order."""
    return [
        Placed(r, c, info)
        for r, row in enumerate(puzzle.fields)
        for c, field in enumerate(row)
        for info in field.infos
    ]


# --- counting and reducing --------------------------------------------------------


def count_solutions_up_to(
    puzzle: Puzzle, rules: Rules, cap: int, counter: Counter = Counter.CPSAT
) -> int:
    """The number of solutions, but at most `cap`: the search stops there."""
    if counter is Counter.PYTHON:
        return sum(1 for _ in islice(python_engine.solve_all(puzzle, rules), cap))
    return count_with_cpsat(puzzle, rules, cap)


def count_with_cpsat(puzzle: Puzzle, rules: Rules, cap: int) -> int:
    """The number of solutions by CP-SAT (one worker), at most `cap`."""
    model, _ = cpsat_engine.build_model(puzzle, rules)
    return _cpsat_count(model, cap)


def without(
    k: int,
    rules: Rules,
    kept: Sequence[Placed],
    batch: Sequence[Placed],
    count: int,
    most: int,
    counter: Counter,
) -> tuple[list[Placed], int] | None:
    """`kept` less `batch` and its solution count, if that count stays at
    or below `most`; None if taking the batch away allows too many."""
    gone = set(batch)  # only for membership tests
    trial = [p for p in kept if p not in gone]
    trial_count = count_after_removal(k, rules, trial, batch, count, most + 1, counter)
    return (trial, trial_count) if trial_count <= most else None


def count_after_removal(
    k: int,
    rules: Rules,
    kept: Sequence[Placed],
    removed: Sequence[Placed],
    known: int,
    cap: int,
    counter: Counter = Counter.CPSAT,
) -> int:
    """The number of solutions of the puzzle of `kept`, at most `cap`, where
    `known` is the exact count of `kept` plus `removed` (at most `cap`).

    Taking infos away keeps every old solution and may add new ones, which
    break at least one removed info. CP-SAT counts only those: near the
    limit a refused removal then costs one solution found, not `cap`
    solutions enumerated. The Python engine counts from scratch.
    """
    if counter is Counter.PYTHON:
        return count_solutions_up_to(build_puzzle(k, kept), rules, cap, counter)
    model, cells = cpsat_engine.build_model(build_puzzle(k, kept), rules)
    model.add_bool_or([_broken(model, cells, rules, p) for p in removed])
    return known + _cpsat_count(model, cap - known)


def _broken(model: Any, cells: list[list[Any]], rules: Rules, placed: Placed) -> Any:
    """A literal that is true exactly when the grid breaks `placed`."""
    from ortools.sat.python.cp_model import Domain

    n = len(cells)
    r, c, info = placed
    cell = cells[r][c]
    if isinstance(info, int):
        expr, allowed = cell, [v for v in range(1, n + 1) if v != info]
    elif info in ("e", "o"):
        expr, allowed = cell, [v for v in range(1, n + 1) if (v % 2 == 0) != (info == "e")]
    else:
        other = cells[r + 1][c] if info == "s" else cells[r][c - 1]
        if rules is Rules.CONSECUTIVE:
            expr, allowed = cell - other, [d for d in range(1 - n, n) if abs(d) != 1]
        else:
            expr, allowed = cell + other, list(range(2, 2 * n + 1, 2))
    # Tied both ways to the cells: a free literal would count a grid twice.
    literal = model.new_bool_var(f"breaks_{r}_{c}_{info}")
    breaking = Domain.from_values(allowed)
    model.add_linear_expression_in_domain(expr, breaking).only_enforce_if(literal)
    model.add_linear_expression_in_domain(expr, breaking.complement()).only_enforce_if(~literal)
    return literal


def _cpsat_count(model: Any, cap: int) -> int:
    """The number of solutions of a CP-SAT model (one worker), at most `cap`.

    Enumerated with a callback that only counts and stops the search at
    `cap`, so no grid is ever built.
    """
    from ortools.sat.python import cp_model

    if cap <= 0:
        return 0

    class Tally(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.found = 0

        def on_solution_callback(self) -> None:
            self.found += 1
            if self.found >= cap:
                self.stop_search()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    tally = Tally()
    status = solver.solve(model, tally)
    # Searched to the end (OPTIMAL or INFEASIBLE), or stopped at the cap;
    # anything else would make the count a guess.
    if tally.found < cap and status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        raise RuntimeError(f"CP-SAT stopped counting early: {solver.status_name(status)}")
    return min(tally.found, cap)


def reduce_infos(
    k: int,
    rules: Rules,
    infos: Sequence[Placed],
    order: Sequence[Placed],
    most: int,
    least: int = 0,
    floor: int = 0,
    lowest: int = 0,
    counter: Counter = Counter.CPSAT,
) -> tuple[list[Placed], int]:
    """Take infos away, in `order`, while the puzzle keeps at most `most` solutions.

    Returns the infos kept and their exact solution count. The puzzle must
    start with at most `most` solutions. It stops early once no more than
    `floor` infos are left and the count has reached `least`: a floor keeps
    big puzzles dense enough for the engines to solve quickly. Below the
    floor it goes on towards `least`, but never below `lowest` infos; the
    count may then fall short of `least`.

    Removals are tried in runs that double after each success and halve
    after a failure, so near a full grid whole runs go at once and near the
    limit single infos are tried; a run never crosses the floor, and below
    it only single infos go. An info refused on its own stays refused,
    since later removals only add solutions: without the floor, no single
    remaining info can go without exceeding `most`.
    """
    kept = list(infos)
    count = count_solutions_up_to(build_puzzle(k, kept), rules, most + 1, counter)
    if count > most:
        raise ValueError(f"the starting puzzle has more than {most} solutions")
    i, run = 0, 1
    while i < len(order) and len(kept) > lowest and not (len(kept) <= floor and count >= least):
        room = len(kept) - floor
        size = min(run, MAX_RUN, room) if room > 0 else 1
        batch = order[i : i + size]
        taken = without(k, rules, kept, batch, count, most, counter)
        if taken is not None:
            kept, count = taken
            i += len(batch)
            run = size * 2
        elif size > 1:
            run = size // 2
        else:
            i += 1
    return kept, count


def removal_order(infos: Sequence[Placed], kind: Kind, rng: random.Random) -> list[Placed]:
    """The order in which `reduce_infos` tries to take infos away."""
    order = list(infos)
    rng.shuffle(order)
    if kind is Kind.LEAN:
        order.sort(key=lambda p: not isinstance(p.info, int))  # stable: values first
    return order


# --- puzzles -------------------------------------------------------------------


def generate(
    k: int,
    rules: Rules,
    rng: random.Random,
    solutions: tuple[int, int] = (1, 1),
    kind: Kind = Kind.MIXED,
    edges: int | None = None,
    keep: float | None = None,
    attempts: int = 20,
    given: float | None = None,
    counter: Counter = Counter.CPSAT,
) -> Generated:
    """A puzzle with between `solutions[0]` and `solutions[1]` solutions.

    `(0, 0)` asks for a contradictory puzzle. `edges` is how many ignored
    edge infos to sprinkle in (default: a random number from 0 to K).
    `keep` is the share of the grid's true infos to keep at least (default:
    DEFAULT_KEEP); 0 reduces as far as the count allows. `given` is the
    share of cell values to keep instead (see `reduce_to_given`; the
    default from GIVEN_FROM_K up, where `keep` is refused). `counter` is
    the engine that counts; it changes the time taken, never the puzzle.
    Each attempt starts from a fresh grid; GenerationError says the range
    was missed `attempts` times.
    """
    least, most = solutions
    check_request(k, least, most)
    check_shares(k, keep, given)
    if given is None and k >= GIVEN_FROM_K:
        given = DEFAULT_GIVEN
    if keep is None:
        keep = default_keep(k, kind)
    if not 0 <= keep <= 1:
        raise GenerationError(f"the share of infos to keep must be in 0..1, got {keep}")
    for _ in range(attempts):
        grid = random_grid(k, rng)
        if most == 0:
            made = _contradictory(k, rules, grid, kind, keep, rng, given, counter)
        else:
            made = _reduced(k, rules, grid, kind, (least, most), rng, keep, given, counter)
        if made is None or made[1] < least:
            continue
        infos, count = made
        infos += _sprinkle_edges(k, infos, edges, rng)
        return Generated(build_puzzle(k, infos, rng), grid, count)
    raise GenerationError(
        f"no K={k} puzzle with {least}..{most} solutions after {attempts} attempts; "
        "try a wider range"
    )


def default_keep(k: int, kind: Kind) -> float:
    """The default share of true infos a K-sized puzzle of this kind keeps."""
    return DEFAULT_KEEP[kind.value].get(k, 0.0)


def check_request(k: int, least: int, most: int) -> None:
    """Reject requests that cannot be met, before any work is done."""
    if not MIN_K <= k <= MAX_K:
        raise GenerationError(f"K must be in {MIN_K}..{MAX_K}, got {k}")
    if not 0 <= least <= most:
        raise GenerationError(f"bad solution range {least}..{most}")
    total = GRID_COUNTS.get(k)
    if total is not None and least > total:
        raise GenerationError(f"a K={k} puzzle has at most {total} solutions, not {least}")


def check_shares(k: int, keep: float | None, given: float | None) -> None:
    """Reject a share of infos to keep where a share of values is needed,
    and both at once."""
    if given is not None and keep is not None:
        raise GenerationError("give either a share of infos to keep or a share of values")
    if k >= GIVEN_FROM_K and keep is not None:
        raise GenerationError(
            f"from K={GIVEN_FROM_K} up puzzles are made to a share of given values, "
            "not a share of infos to keep"
        )
    if given is not None and not 0 <= given <= 1:
        raise GenerationError(f"the share of values to give must be in 0..1, got {given}")


def _reduced(
    k: int,
    rules: Rules,
    grid: Grid,
    kind: Kind,
    solutions: tuple[int, int],
    rng: random.Random,
    keep: float,
    given: float | None,
    counter: Counter = Counter.CPSAT,
) -> tuple[list[Placed], int]:
    """Reduce the grid's true infos towards a count in `solutions`: down to
    a share `given` of its values when that is set, else no lower than a
    share `keep` of the infos (less a margin, see BELOW_FLOOR)."""
    infos = true_infos(grid, rules, kind)
    order = removal_order(infos, kind, rng)
    least, most = solutions
    if given is not None:
        values = round(given * k**4)
        return reduce_to_given(k, rules, infos, order, most, least, values, counter)
    floor = math.ceil(keep * len(infos))
    lowest = floor - floor // BELOW_FLOOR
    return reduce_infos(k, rules, infos, order, most, least, floor, lowest, counter)


def reduce_to_given(
    k: int,
    rules: Rules,
    infos: Sequence[Placed],
    order: Sequence[Placed],
    most: int,
    least: int,
    values: int,
    counter: Counter = Counter.CPSAT,
) -> tuple[list[Placed], int]:
    """Take infos away, in `order`, down to `values` cell values, while the
    puzzle keeps at most `most` solutions; then, if it has fewer than
    `least`, take other infos (parities, s/w) away until it has.

    Returns the infos kept and their exact count. Removals go in batches
    that start at N infos, double after each success (up to N*N/8) and
    halve after a failure; a batch takes no more values than are still to
    go. A refused batch of K infos or fewer stays as a whole: near the
    limit, where one count of a K=10 puzzle takes seconds, trying each info
    on its own would cost thousands of counts, and the order has plenty of
    other infos to take instead. The values may thus stay above `values`,
    and the count below `least`, when the order runs out first. Non-value
    infos met in `order` before the values are down go too: a mixed puzzle
    loses about as large a share of its other infos as of its values.
    """
    n = k * k
    kept = list(infos)
    count = count_solutions_up_to(build_puzzle(k, kept), rules, most + 1, counter)
    if count > most:
        raise ValueError(f"the starting puzzle has more than {most} solutions")

    def values_left() -> int:
        return sum(isinstance(p.info, int) for p in kept)

    def thin(queue: Sequence[Placed], done: Callable[[], bool]) -> None:
        """Remove infos from `queue`, batch by batch, until `done`."""
        nonlocal kept, count
        i, size = 0, n
        while i < len(queue) and not done():
            room = values_left() - values
            batch: list[Placed] = []
            for p in queue[i : i + size]:
                if isinstance(p.info, int):
                    if room <= 0:
                        break
                    room -= 1
                batch.append(p)
            if not batch:
                break
            taken = without(k, rules, kept, batch, count, most, counter)
            if taken is not None:
                kept, count = taken
                i += len(batch)
                size = min(len(batch) * 2, max(1, n * n // 8))
            elif len(batch) > k:
                size = len(batch) // 2
            else:
                i += len(batch)  # these stay: near the limit, singles cost too many counts

    thin(order, lambda: values_left() <= values)
    if count < least:
        still = set(kept)
        others = [p for p in order if p in still and not isinstance(p.info, int)]
        thin(others, lambda: count >= least)
    return kept, count


def _contradictory(
    k: int,
    rules: Rules,
    grid: Grid,
    kind: Kind,
    keep: float,
    rng: random.Random,
    given: float | None = None,
    counter: Counter = Counter.CPSAT,
) -> tuple[list[Placed], int] | None:
    """A unique puzzle for `grid` plus one info that `grid` breaks.

    The grid is the only solution, so the broken info leaves none; the
    count is confirmed all the same. A classic puzzle gets a wrong value.
    """
    infos, _ = _reduced(k, rules, grid, kind, (1, 1), rng, keep, given, counter)
    taken = {(p.row, p.col, _slot(p.info)) for p in infos}
    candidates = [
        p
        for p in false_infos(grid, rules)
        if (p.row, p.col, _slot(p.info)) not in taken
        and (kind is not Kind.CLASSIC or isinstance(p.info, int))
    ]
    # Pick a kind of contradiction first, so wrong values (there are
    # N-1 per cell) do not crowd out wrong parities and neighbour infos.
    by_kind: dict[str, list[Placed]] = {}
    for p in candidates:
        by_kind.setdefault(_kind_of(p.info), []).append(p)
    kinds = sorted(by_kind)
    rng.shuffle(kinds)
    for name in kinds:
        choice = rng.choice(by_kind[name])
        trial = [*infos, choice]
        if count_solutions_up_to(build_puzzle(k, trial), rules, 1, counter) == 0:
            return trial, 0
    return None


def _sprinkle_edges(
    k: int, infos: Sequence[Placed], edges: int | None, rng: random.Random
) -> list[Placed]:
    """Up to `edges` (default: random 0..K) edge infos on cells free for them."""
    taken = {(p.row, p.col, p.info) for p in infos if isinstance(p.info, str)}
    free = [p for p in edge_infos(k) if (p.row, p.col, p.info) not in taken]
    wanted = rng.randint(0, k) if edges is None else edges
    return rng.sample(free, min(wanted, len(free)))
