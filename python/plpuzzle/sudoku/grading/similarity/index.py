"""Scores for every pair of hand-ins that share a fingerprint, by an
inverted index: fingerprint -> the hand-ins that have it.

Only hand-ins that share something are ever paired, so a class of 400 costs
the sum over fingerprints of (hand-ins that have it)^2, not 400^2
comparisons of files. A pair's score is given from each side: the share of
A's fingerprints found in B, and of B's found in A, since a short file
inside a long one is all of the one and little of the other.

Fingerprints are weighed by rarity, as Dolos filters frequent ones: a
fingerprint that more hand-ins hold than a tenth of the class (and at
least two) counts in proportion less: common/n, where n hand-ins hold it
and `common` is that tenth. What much of a class writes alike (the
exercise's idiom, a textbook predicate, code the course gave) then says
little about any one pair, while a group of copies, a few hand-ins of
many, keeps its full weight. A pair's evidence is the weight of what it
shares, which a short file cannot pile up.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Pair:
    """Two hand-ins (indexes, a < b) and what they share: fingerprints in
    common, the weighed shares of each, and the weight shared (evidence)."""

    a: int
    b: int
    shared: int
    share_a: float
    share_b: float
    evidence: float = 0.0

    @property
    def score(self) -> float:
        """The larger share: how much of one of them is in the other."""
        return max(self.share_a, self.share_b)


def inverted_index(prints: Sequence[Iterable[int]]) -> dict[int, list[int]]:
    """fingerprint -> the hand-ins (indexes, increasing) that have it."""
    index: dict[int, list[int]] = {}
    for i, hashes in enumerate(prints):
        for h in hashes:
            index.setdefault(h, []).append(i)
    return index


#: The share of a class past which a fingerprint is common.
COMMON_SHARE = 0.1


def common(hand_ins: int) -> float:
    """How many hand-ins may hold a fingerprint at full weight."""
    return max(2.0, COMMON_SHARE * hand_ins)


def weight(holders: int, hand_ins: int) -> float:
    """What a fingerprint that `holders` of `hand_ins` hold counts in each."""
    return min(1.0, common(hand_ins) / holders)


def score_pairs(prints: Sequence[set[int]], weighed: bool = True) -> list[Pair]:
    """Every pair that shares a fingerprint, highest score first (then most
    evidence, then by index); `weighed`: by rarity (else each counts 1)."""
    index = inverted_index(prints)
    own = [0.0] * len(prints)
    shared: defaultdict[tuple[int, int], list[float]] = defaultdict(lambda: [0, 0.0])
    for holders in index.values():
        w = weight(len(holders), len(prints)) if weighed else 1.0
        for i in holders:
            own[i] += w
        if len(holders) > 1:
            for pair in combinations(holders, 2):
                both = shared[pair]
                both[0] += 1
                both[1] += w
    pairs = [Pair(a, b, int(n), w / own[a], w / own[b], w) for (a, b), (n, w) in shared.items()]
    pairs.sort(key=lambda p: (-p.score, -p.evidence, p.a, p.b))
    return pairs


def groups(links: Iterable[tuple[int, int]], size: int = 3) -> list[list[int]]:
    """The connected groups of at least `size` members that `links` make
    (union-find), each sorted, largest first."""
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in links:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[int, list[int]] = {}
    for x in parent:
        members.setdefault(root(x), []).append(x)
    found = [sorted(m) for m in members.values() if len(m) >= size]
    found.sort(key=lambda m: (-len(m), m))
    return found


#: Work the search for cliques may do, in set intersections (a class's
#: pairs above the threshold make a small graph, done in a fraction of
#: this; a graph made to have exponentially many cliques stops here, with
#: the groups found by then).
CLIQUE_STEPS = 2_000_000


def cliques(links: Iterable[tuple[int, int]], size: int = 3) -> list[list[int]]:
    """The maximal groups of at least `size` members in which every two
    are linked (Bron-Kerbosch with a pivot), each sorted, largest first:
    a group is hand-ins that all match each other, never a chain of
    single links. A member may be in more than one group."""
    near: dict[int, set[int]] = defaultdict(set)
    for a, b in links:
        if a != b:
            near[a].add(b)
            near[b].add(a)
    found: list[list[int]] = []
    steps = CLIQUE_STEPS

    def extend(clique: list[int], candidates: set[int], done: set[int]) -> None:
        nonlocal steps
        steps -= 1 + len(candidates) + len(done)
        if steps < 0:
            return
        if not candidates and not done:
            if len(clique) >= size:
                found.append(sorted(clique))
            return
        pivot = max(candidates | done, key=lambda v: len(near[v] & candidates))
        for v in sorted(candidates - near[pivot]):
            extend([*clique, v], candidates & near[v], done & near[v])
            candidates = candidates - {v}
            done = done | {v}

    for component in groups(((a, b) for a in near for b in near[a]), size):
        extend([], set(component), set())
    found.sort(key=lambda m: (-len(m), m))
    return found
