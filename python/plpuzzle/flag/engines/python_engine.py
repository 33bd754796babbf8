"""The pure-Python reference engine: arrangement and both swap counts.

It works on the letter strings of plpuzzle.flag.domain.model and follows the
same definitions as prolog/flag.pl, written again from scratch so that
the two can referee each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from plpuzzle.flag.domain.model import COLOURS


@dataclass(frozen=True)
class Answer:
    """What the task asks for one sequence."""

    arrangement: str
    min_swaps: int
    dijkstra_swaps: int


def solve(letters: str) -> Answer:
    """The arrangement Dijkstra's partition produces and both counts."""
    arranged, dijkstra = dijkstra_partition(letters)
    return Answer(arranged, min_swaps(letters), dijkstra)


def arrange(letters: str) -> str:
    """Red, then white, then blue: counting is enough, as items of one
    colour are interchangeable."""
    return "".join(c * letters.count(c) for c in COLOURS)


def zone_counts(letters: str) -> dict[tuple[str, str], int]:
    """How many items of colour c sit in zone z, keyed (c, z).

    Zone z is where colour z belongs in the arrangement: the red zone is
    the first (number of reds) places, then the white zone, then the
    blue zone.
    """
    counts: dict[tuple[str, str], int] = {}
    start = 0
    for zone in COLOURS:
        end = start + letters.count(zone)
        part = letters[start:end]
        for colour in COLOURS:
            counts[colour, zone] = part.count(colour)
        start = end
    return counts


def min_swaps(letters: str) -> int:
    """The fewest swaps of two positions that arrange `letters`.

    Arranging by swaps undoes a permutation, and a permutation of N items
    with C cycles takes N - C swaps; equal colours let us pick the
    permutation with the most cycles. Two misplaced items that belong in
    each other's zone form a 2-cycle (one swap). Whatever is misplaced
    after those pairs can only form 3-cycles, red -> white -> blue -> red
    or the other way round, each taking two swaps.
    """
    m = zone_counts(letters)
    off_diagonal = [(c, z) for c in COLOURS for z in COLOURS if c != z]
    misplaced = sum(m[c, z] for c, z in off_diagonal)
    pairs = sum(min(m[c, z], m[z, c]) for c, z in off_diagonal if c < z)
    rest = misplaced - 2 * pairs
    assert rest % 3 == 0, "misplaced items left over after the 2-cycles form 3-cycles"
    return pairs + 2 * (rest // 3)


def dijkstra_partition(letters: str) -> tuple[str, int]:
    """Run Dijkstra's three-way partition; return its result and its swaps.

    Indices lo <= mid <= hi (0-based): before lo all is red, lo..mid-1 is
    white, after hi all is blue, mid..hi is unseen. Item mid is red: swap
    lo and mid, advance both; white: advance mid; blue: swap mid and hi,
    retreat hi. A swap of a position with itself is not counted.
    """
    a = list(letters)
    lo, mid, hi = 0, 0, len(a) - 1
    swaps = 0
    while mid <= hi:
        colour = a[mid]
        if colour == "R":
            if lo != mid:
                a[lo], a[mid] = a[mid], a[lo]
                swaps += 1
            lo += 1
            mid += 1
        elif colour == "W":
            mid += 1
        else:
            if mid != hi:
                a[mid], a[hi] = a[hi], a[mid]
                swaps += 1
            hi -= 1
    return "".join(a), swaps
