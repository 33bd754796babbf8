"""Hall's theorem (python_matching) against brute force over small groups."""

from __future__ import annotations

import itertools
import random

import pytest

from plpuzzle.sudoku.engines.python_matching import hall_prune


def brute_force(domains: list[int]) -> list[int] | None:
    """Per cell, the values some assignment of distinct values uses (None if
    there is none), by trying every assignment."""
    values = sorted({b for d in domains for b in range(d.bit_length()) if d >> b & 1})
    keep = [0] * len(domains)
    found = False
    for choice in itertools.permutations(values, len(domains)):
        if all(d >> v & 1 for d, v in zip(domains, choice, strict=True)):
            found = True
            for i, v in enumerate(choice):
                keep[i] |= 1 << v
    return keep if found else None


def random_group(rnd: random.Random) -> list[int]:
    """m cells whose candidates lie within m values (as hall_prune requires),
    with a density that varies so that both open and tight groups come up."""
    m = rnd.randint(1, 6)
    values = rnd.sample(range(1, 12), m)
    density = rnd.choice([0.2, 0.4, 0.7])
    domains = []
    for _ in range(m):
        d = sum(1 << v for v in values if rnd.random() < density)
        domains.append(d or 1 << rnd.choice(values))
    return domains


@pytest.mark.parametrize("seed", range(4))
def test_hall_prune_keeps_exactly_what_some_assignment_uses(seed: int) -> None:
    rnd = random.Random(seed)
    for _ in range(1500):
        domains = random_group(rnd)
        expected = brute_force(domains)
        pruned = hall_prune(list(domains))
        assert pruned == expected, domains


def test_hall_prune_returns_the_same_list_when_nothing_goes() -> None:
    domains = [0b0110, 0b0110, 0b1110]  # cell 3 is forced to 3: prune
    assert hall_prune(domains) == [0b0110, 0b0110, 0b1000]
    loose = [0b0110, 0b0110]
    assert hall_prune(loose) is loose


def test_hall_prune_sees_a_hidden_single_after_a_decided_cell() -> None:
    # The only cell that can take 4 must take it, though other components
    # (a decided cell, a pair) come first in the scan.
    domains = [0b110000000, 0b1000, 0b110011100, 0b100000100, 0b10000100]
    assert hall_prune(domains) == [0b110000000, 0b1000, 0b10000, 0b100000100, 0b10000100]
