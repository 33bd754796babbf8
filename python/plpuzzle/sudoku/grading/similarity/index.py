"""Scores for every pair of hand-ins that share a fingerprint, by an
inverted index: fingerprint -> the hand-ins that have it.

Only hand-ins that share something are ever paired, so a class of 400 costs
the sum over fingerprints of (hand-ins that have it)^2, not 400^2
comparisons of files. A pair's score is given from each side: the share of
A's fingerprints found in B, and of B's found in A, since a short file
inside a long one is all of the one and little of the other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Pair:
    """Two hand-ins (indexes, a < b) and what they share."""

    a: int
    b: int
    shared: int
    share_a: float
    share_b: float

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
    shared, then by index)."""
    shared: Counter[tuple[int, int]] = Counter()
    for holders in inverted_index(prints).values():
        if len(holders) > 1:
            shared.update(combinations(holders, 2))
    pairs = [Pair(a, b, n, n / len(prints[a]), n / len(prints[b])) for (a, b), n in shared.items()]
    pairs.sort(key=lambda p: (-p.score, -p.shared, p.a, p.b))
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
