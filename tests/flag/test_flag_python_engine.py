"""The pure-Python engine on worked examples, exhaustively and at scale."""

from __future__ import annotations

import itertools
import time

import pytest

from plpuzzle.flag.domain.model import random_sequence
from plpuzzle.flag.engines import python_engine as pe

#: (sequence, arrangement, minimum swaps, Dijkstra swaps), worked by hand.
EXAMPLES = [
    ("RWBWRRB", "RRRWWBB", 2, 4),  # SPEC 3's example input
    ("R", "R", 0, 0),
    ("B", "B", 0, 0),  # mid = hi: an item swapped with itself is no swap
    ("BWR", "RWB", 1, 1),
    ("WBR", "RWB", 2, 2),  # one 3-cycle
    ("RRWWBB", "RRWWBB", 0, 1),  # sorted, yet the partition swaps two blues
    ("BBB", "BBB", 0, 2),
    ("WWWW", "WWWW", 0, 0),
    ("BRWRBW", "RRWWBB", 2, 3),  # one 3-cycle; the last blue meets itself
]


@pytest.mark.parametrize(("letters", "arranged", "least", "dijkstra"), EXAMPLES)
def test_worked_examples(letters: str, arranged: str, least: int, dijkstra: int) -> None:
    assert pe.solve(letters) == pe.Answer(arranged, least, dijkstra)
    assert pe.arrange(letters) == arranged


def test_zone_counts_of_the_spec_example() -> None:
    # zones RRR | WW | BB over R W B | W R | R B
    m = pe.zone_counts("RWBWRRB")
    assert [[m[c, z] for z in "RWB"] for c in "RWB"] == [[1, 1, 1], [1, 1, 0], [1, 0, 1]]


def test_every_short_sequence_is_arranged() -> None:
    for n in range(1, 8):
        for items in itertools.product("RWB", repeat=n):
            letters = "".join(items)
            arranged, swaps = pe.dijkstra_partition(letters)
            assert arranged == pe.arrange(letters) == "".join(sorted(letters, key="RWB".index))
            assert pe.min_swaps(letters) <= swaps <= n


def test_a_million_items_within_seconds() -> None:
    letters = random_sequence(1_000_000, 7).letters
    start = time.process_time()
    answer = pe.solve(letters)
    assert time.process_time() - start < 3.0
    assert answer.arrangement == pe.arrange(letters)
