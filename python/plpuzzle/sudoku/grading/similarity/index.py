"""Scores for every pair of hand-ins that share a fingerprint, by an
inverted index: fingerprint -> the hand-ins that have it.

Only hand-ins that share something are ever paired, so a class of 400 costs
the sum over fingerprints of (hand-ins that have it)^2, not 400^2
comparisons of files. A pair's score is given from each side: the share of
A's fingerprints found in B, and of B's found in A, since a short file
inside a long one is all of the one and little of the other.

Every fingerprint counts one, however many hand-ins hold it: a solution
that many students hand in is no less copied for being popular (issue 57;
until then one held by more than a tenth of the class weighed less, and a
ring of ten copies in eighteen hand-ins fell under the evidence floor).
What says that shared code is not copying is named, not guessed from its
popularity: the --base files and the shipped reference of textbook code
are left out before pairing (compare.py), and code too short to tell is
held back by the evidence floor. A pair's evidence is the count of
fingerprints it shares.

The class's own distribution of scores (`Scale`) sets how high a pair
must be to stand out: a short guided lab, where honest answers are much
alike, is judged on its scale, a long solver on its own.
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


def score_pairs(prints: Sequence[set[int]]) -> list[Pair]:
    """Every pair that shares a fingerprint, highest score first (then most
    evidence, then by index); each fingerprint counts one."""
    index = inverted_index(prints)
    own = [len(p) for p in prints]
    shared: defaultdict[tuple[int, int], int] = defaultdict(int)
    for holders in index.values():
        if len(holders) > 1:
            for pair in combinations(holders, 2):
                shared[pair] += 1
    pairs = [Pair(a, b, n, n / own[a], n / own[b], float(n)) for (a, b), n in shared.items()]
    pairs.sort(key=lambda p: (-p.score, -p.evidence, p.a, p.b))
    return pairs


#: How far above the class's typical pair one must be to stand out, in
#: robust standard deviations (1.4826 times the median absolute deviation),
#: and the highest the class can raise the threshold (a copy of a short
#: guided answer is still shown when it is nearly all the same).
SPREADS = 4.0
HIGHEST_CUT = 0.9


@dataclass(frozen=True)
class Scale:
    """The class's distribution of pair scores, every pair of hand-ins
    counted (0 for those that share nothing): its median, its robust
    spread, its 90th percentile, and the score a pair must reach to be
    shown (`cut`: the threshold, or higher where the class's honest work
    is that alike)."""

    pairs: int
    median: float
    spread: float
    p90: float
    threshold: float
    cut: float

    @property
    def raised(self) -> bool:
        """Whether the class's own scale raised the cut over the threshold."""
        return self.cut > self.threshold


def _quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(q * len(values)))]


def scale(scores: Iterable[float], hand_ins: int, threshold: float) -> Scale:
    """The class's scale from the scores of the pairs that share something
    (the other pairs of `hand_ins` score 0). Median and median absolute
    deviation are robust: a ring of a third of the class makes a ninth of
    its pairs, and moves neither."""
    every = hand_ins * (hand_ins - 1) // 2
    known = sorted(scores)
    values = [0.0] * max(0, every - len(known)) + known
    median = _quantile(values, 0.5)
    spread = 1.4826 * _quantile(sorted(abs(v - median) for v in values), 0.5)
    cut = max(threshold, min(HIGHEST_CUT, median + SPREADS * spread))
    return Scale(len(values), median, spread, _quantile(values, 0.9), threshold, cut)


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
