"""The validator: right answers pass, each kind of wrong answer is named."""

from __future__ import annotations

import itertools
from collections import deque

import pytest

from plpuzzle.flag.domain.model import parse_sequence, random_sequence
from plpuzzle.flag.domain.validator import apply_swaps, greedy_swaps, in_flag_order, validate
from plpuzzle.flag.engines import python_engine

EXAMPLE = parse_sequence("RWBWRRB")


def fewest_swaps(letters: str) -> int:
    """Breadth-first search over all swaps: the true minimum."""
    target = in_flag_order(letters)
    depth = {letters: 0}
    queue = deque([letters])
    while queue:
        state = queue.popleft()
        if state == target:
            return depth[state]
        for i, j in itertools.combinations(range(len(state)), 2):
            if state[i] != state[j]:
                cells = list(state)
                cells[i], cells[j] = cells[j], cells[i]
                after = "".join(cells)
                if after not in depth:
                    depth[after] = depth[state] + 1
                    queue.append(after)
    raise AssertionError("unreachable: any sequence can be sorted by swaps")


def test_a_right_answer_passes() -> None:
    assert validate(EXAMPLE, "RRRWWBB", 2, 4) == []


@pytest.mark.parametrize(
    ("arrangement", "least", "dijkstra", "problem"),
    [
        ("RRWWBBB", 2, 4, "does not hold the same items"),
        ("RRRWWB", 2, 4, "does not hold the same items"),
        ("RRRWBWB", 2, 4, "out of order at column 6"),
        ("RRRWWBB", 3, 4, "the minimum is 2 swaps"),
        ("RRRWWBB", 1, 4, "the minimum is 2 swaps"),
        ("RRRWWBB", 2, 1, "cannot make 1 swaps"),
        ("RRRWWBB", 2, 8, "cannot make 8 swaps"),
    ],
)
def test_wrong_answers_are_named(arrangement: str, least: int, dijkstra: int, problem: str) -> None:
    problems = validate(EXAMPLE, arrangement, least, dijkstra)
    assert len(problems) == 1
    assert problem in problems[0]


def test_greedy_swaps_are_as_few_as_possible() -> None:
    """Every sequence of up to 6 items, against breadth-first search."""
    for n in range(1, 7):
        for items in itertools.product("RWB", repeat=n):
            letters = "".join(items)
            swaps = greedy_swaps(letters)
            assert apply_swaps(letters, swaps) == in_flag_order(letters)
            assert len(swaps) == fewest_swaps(letters), letters


def test_greedy_swaps_on_long_sequences() -> None:
    """As many swaps as the engines' counting formula, which shares no code."""
    letters = random_sequence(20_000, 5).letters
    swaps = greedy_swaps(letters)
    assert apply_swaps(letters, swaps) == in_flag_order(letters)
    assert all(i != j for i, j in swaps)
    assert len(swaps) == python_engine.min_swaps(letters)
