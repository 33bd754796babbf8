"""Hall's theorem for the pure-Python engine: which candidates of a
"one each" constraint can be part of some solution of that constraint.

A group of m cells that must take m distinct values (a sudoku unit, or,
for one value, the rows that must each place it in a distinct column) is a
bipartite graph: cells on one side, values on the other, an edge for each
candidate. The group is satisfiable exactly when the graph has a perfect
matching. A candidate can be kept exactly when some perfect matching uses
its edge, and Berge's theorem says which do: given one perfect matching,
an edge outside it lies in another perfect matching exactly when it lies on
an alternating cycle. Turning every cell into "the cell matched to this
value", an edge (cell x, value w) becomes an arc from x to the cell matched
to w, and the edges worth keeping are the matching edges and the arcs
inside a strongly connected component. Each cell is named by its matched
value, so its domain is its set of arcs and the components come from
bit-mask reaches with no graph to build.

This finds every naked and hidden subset (pair, triple, ...) of the group
at once (applied per value, rows to columns, it would find the "fish"
patterns too; the search does not do that). Domains are int bit masks;
which bits stand for what is up to the caller.
"""

from __future__ import annotations


def hall_prune(domains: list[int]) -> list[int] | None:
    """The candidates that some perfect matching uses, or None if none exists.

    Each domain must lie within the values the group has to take, so that
    a matching that covers every cell covers every value too. Returns the
    very same list object when nothing can be pruned, so a caller can tell
    with `is` without comparing.
    """
    match = perfect_matching(domains)
    if match is None:
        return None
    pairs = list(zip(domains, match, strict=True))
    everything = remaining = sum(match)  # distinct bits: their sum is their union
    pruned = domains
    while remaining:
        start = remaining & -remaining
        component = forward(start, pairs, remaining) & backward(start, pairs, remaining)
        if component == everything:  # the usual case: one component, nothing to cut
            return domains
        remaining ^= component
        for x, (d, m) in enumerate(pairs):
            if m & component and d & ~component:
                if pruned is domains:
                    pruned = list(domains)
                pruned[x] = d & component
    return pruned


def forward(start: int, pairs: list[tuple[int, int]], within: int) -> int:
    """The values (a bit mask) reachable from value `start` without leaving
    `within`, where value w leads to every candidate of the cell matched to w.

    Naming each cell by its matched value makes a cell's domain its list of
    arcs, so no graph has to be built: each step scans the cells once.
    Once all of `within` is reached, the step that would confirm it is left
    out: in the usual case (one component) that step is a quarter of the
    scans."""
    seen = start
    while True:
        grown = seen
        for d, m in pairs:
            if m & seen:
                grown |= d
        grown &= within
        if grown == seen or grown == within:  # noqa: SIM109 (no tuple to build)
            return grown
        seen = grown


def backward(start: int, pairs: list[tuple[int, int]], within: int) -> int:
    """The values (a bit mask) within `within` that reach value `start`
    (see `forward`): w reaches u when the cell matched to w can take u.
    It stops as soon as all of `within` is reached, as `forward` does."""
    seen = start
    while True:
        grown = seen | sum([m for d, m in pairs if d & seen])
        grown &= within
        if grown == seen or grown == within:  # noqa: SIM109 (no tuple to build)
            return grown
        seen = grown


def perfect_matching(domains: list[int]) -> list[int] | None:
    """One value bit per cell, all distinct; None when there is no such choice.

    A greedy first pass matches most cells; augmenting paths (Kuhn's
    algorithm) place the rest, tried first with one step only (a matched
    cell moves to a free value), which is cheap and usually enough.
    """
    match = [0] * len(domains)
    owner: dict[int, int] = {}
    taken = 0
    unmatched = []
    for x, d in enumerate(domains):
        free = d & ~taken
        if free:
            bit = free & -free
            match[x] = bit
            owner[bit] = x
            taken |= bit
        else:
            unmatched.append(x)
    for x in unmatched:
        rest = domains[x]
        while rest:  # most often a path of one step does
            bit = rest & -rest
            rest ^= bit
            holder = owner[bit]
            free = domains[holder] & ~taken
            if free:
                other = free & -free
                match[holder] = other
                owner[other] = holder
                match[x] = bit
                owner[bit] = x
                taken |= other
                break
        if not match[x]:
            if not augment(x, domains, match, owner):
                return None
            taken = sum(match)
    return match


def augment(root: int, domains: list[int], match: list[int], owner: dict[int, int]) -> bool:
    """Find an alternating path from the unmatched cell `root` to a free
    value and flip it; an explicit stack keeps deep paths off the C stack."""
    seen = 0
    path = [root]  # cells along the path
    left = [domains[root]]  # per cell on the path: values not yet tried
    via = [0]  # per cell on the path: the value that leads to the next cell
    while path:
        untried = left[-1] & ~seen
        if not untried:
            path.pop()
            left.pop()
            via.pop()
            continue
        bit = untried & -untried
        seen |= bit
        left[-1] = untried ^ bit
        via[-1] = bit
        holder = owner.get(bit)
        if holder is None:  # a free value: every cell on the path moves one step
            for x, b in zip(path, via, strict=True):
                match[x] = b
                owner[b] = x
            return True
        path.append(holder)
        left.append(domains[holder])
        via.append(0)
    return False


def bits_of(mask: int) -> list[int]:
    """The indices of the set bits of `mask`."""
    out = []
    while mask:
        bit = mask & -mask
        mask ^= bit
        out.append(bit.bit_length() - 1)
    return out
