"""Property tests: both engines, brute force and a traced partition agree."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plpuzzle.flag.domain.model import FlagSequence
from plpuzzle.flag.domain.results import FlagResult, Status
from plpuzzle.flag.domain.validator import apply_swaps, validate
from plpuzzle.flag.engines import PythonFlagEngine
from plpuzzle.flag.engines.prolog_bridge import PrologFlagEngine

sequences = st.text(alphabet="RWB", min_size=1, max_size=12).map(FlagSequence)
short_sequences = st.text(alphabet="RWB", min_size=1, max_size=7).map(FlagSequence)

#: Each example costs two worker round trips; this keeps the file at a few seconds.
engine_settings = settings(max_examples=120, deadline=None)


@pytest.fixture(scope="module")
def engines() -> Iterator[tuple[PrologFlagEngine, PythonFlagEngine]]:
    prolog, python = PrologFlagEngine(), PythonFlagEngine()
    yield prolog, python
    prolog.close()
    python.close()


def answer(engine: PrologFlagEngine | PythonFlagEngine, items: FlagSequence) -> FlagResult:
    result = engine.solve(items, 30)
    assert result.status is Status.OK, result.message
    return result


def fewest_swaps(letters: str) -> int:
    """Breadth-first search over every swap of two positions."""
    target = "".join(sorted(letters, key="RWB".index))
    depth = {letters: 0}
    queue = deque([letters])
    while True:
        state = queue.popleft()
        if state == target:
            return depth[state]
        for i, j in itertools.combinations(range(len(state)), 2):
            cells = list(state)
            cells[i], cells[j] = cells[j], cells[i]
            after = "".join(cells)
            if after not in depth:
                depth[after] = depth[state] + 1
                queue.append(after)


def traced_partition(letters: str) -> tuple[str, list[tuple[int, int]]]:
    """The textbook partition, recording every swap call, even i == j."""
    a = list(letters)
    calls: list[tuple[int, int]] = []

    def swap(i: int, j: int) -> None:
        calls.append((i, j))
        a[i], a[j] = a[j], a[i]

    lo, mid, hi = 0, 0, len(a) - 1
    while mid <= hi:
        if a[mid] == "R":
            swap(lo, mid)
            lo, mid = lo + 1, mid + 1
        elif a[mid] == "W":
            mid += 1
        else:
            swap(mid, hi)
            hi -= 1
    return "".join(a), calls


@engine_settings
@given(sequences)
def test_both_engines_give_the_same_valid_answer(
    engines: tuple[PrologFlagEngine, PythonFlagEngine], items: FlagSequence
) -> None:
    prolog, python = (answer(e, items) for e in engines)
    assert prolog.answer() == python.answer()
    arrangement, least, dijkstra = prolog.answer()
    assert arrangement is not None and least is not None and dijkstra is not None
    assert validate(items, arrangement, least, dijkstra) == []


@engine_settings
@given(short_sequences)
def test_the_minimum_is_what_brute_force_finds(
    engines: tuple[PrologFlagEngine, PythonFlagEngine], items: FlagSequence
) -> None:
    least = fewest_swaps(items.letters)
    for engine in engines:
        assert answer(engine, items).min_swaps == least


@engine_settings
@given(sequences)
def test_dijkstra_counts_the_swaps_of_two_positions(
    engines: tuple[PrologFlagEngine, PythonFlagEngine], items: FlagSequence
) -> None:
    arranged, calls = traced_partition(items.letters)
    real = [(i, j) for i, j in calls if i != j]
    assert apply_swaps(items.letters, real) == arranged
    for engine in engines:
        result = answer(engine, items)
        assert (result.arrangement, result.dijkstra_swaps) == (arranged, len(real))
