"""An independent referee for an engine's answer.

It checks the arrangement directly (same items, in flag order) and
checks the minimum swap count by building an actual swap sequence and
applying it, never through the counting formula the engines use. It
shares nothing with the engines beyond the model.
"""

from __future__ import annotations

import re

from plpuzzle.flag.domain.model import COLOURS, FlagSequence

Swap = tuple[int, int]

#: Red, then white, then blue, and nothing else.
IN_ORDER = re.compile(f"{COLOURS[0]}*{COLOURS[1]}*{COLOURS[2]}*")


def validate(
    sequence: FlagSequence, arrangement: str, min_swaps: int, dijkstra_swaps: int
) -> list[str]:
    """Every problem with an answer for `sequence`; [] means it is right."""
    problems = arrangement_problems(sequence.letters, arrangement)
    swaps = greedy_swaps(sequence.letters)
    if apply_swaps(sequence.letters, swaps) != in_flag_order(sequence.letters):
        raise AssertionError("the validator's own swap sequence does not arrange the items")
    if min_swaps != len(swaps):
        problems.append(
            f"the minimum is {len(swaps):,} swaps (the validator arranges the items "
            f"with that many), not {min_swaps:,}"
        )
    if not len(swaps) <= dijkstra_swaps <= len(sequence):
        problems.append(
            f"Dijkstra's partition cannot make {dijkstra_swaps:,} swaps: it makes at "
            f"least the minimum ({len(swaps):,}) and at most one per item ({len(sequence):,})"
        )
    return problems


def arrangement_problems(letters: str, arrangement: str) -> list[str]:
    """Why `arrangement` is not `letters` in flag order ([] if it is)."""
    problems = []
    same_items = len(arrangement) == len(letters) and all(
        arrangement.count(c) == letters.count(c) for c in COLOURS
    )
    if not same_items:
        problems.append("the arrangement does not hold the same items as the sequence")
    if not IN_ORDER.fullmatch(arrangement):
        rank = {c: i for i, c in enumerate(COLOURS)}
        column = next(
            i
            for i in range(1, len(arrangement) + 1)
            if arrangement[i - 1] not in rank
            or (i > 1 and rank[arrangement[i - 2]] > rank[arrangement[i - 1]])
        )
        problems.append(f"the arrangement is out of order at column {column}")
    return problems


def in_flag_order(letters: str) -> str:
    """The target: letters sorted red, white, blue."""
    return "".join(sorted(letters, key=COLOURS.index))


def greedy_swaps(letters: str) -> list[Swap]:
    """A shortest list of swaps that puts `letters` in flag order.

    A swap moves at most two items home, and two only when they belong in
    each other's places; so first make every such swap. What is still
    misplaced then runs in cycles of three (r -> w -> b -> r or
    backwards): send one item home, then the item it displaced, and so on;
    that takes two swaps per three items.
    """
    target = in_flag_order(letters)
    a = list(letters)
    # wrong[zone, colour]: the positions in `zone` that hold `colour`
    wrong: dict[tuple[str, str], list[int]] = {
        (z, c): [] for z in COLOURS for c in COLOURS if z != c
    }
    for pos, (colour, zone) in enumerate(zip(a, target, strict=True)):
        if colour != zone:
            wrong[zone, colour].append(pos)
    swaps: list[Swap] = []

    def swap(i: int, j: int) -> None:
        a[i], a[j] = a[j], a[i]
        swaps.append((i, j))

    for zone, colour in wrong:
        while wrong[zone, colour] and wrong[colour, zone]:
            swap(wrong[zone, colour].pop(), wrong[colour, zone].pop())
    for zone, colour in wrong:
        while wrong[zone, colour]:
            pos = wrong[zone, colour].pop()
            while a[pos] != zone:
                item = a[pos]
                # a misplaced spot in the item's zone; best one holding `zone`
                third = next(c for c in COLOURS if c not in (zone, item))
                home = (wrong[item, zone] or wrong[item, third]).pop()
                swap(pos, home)
    return swaps


def apply_swaps(letters: str, swaps: list[Swap]) -> str:
    """`letters` after making the swaps in order."""
    a = list(letters)
    for i, j in swaps:
        a[i], a[j] = a[j], a[i]
    return "".join(a)
