"""A slice of the official suite, two tests per K, through both engines.

The whole suite is the benchmark's job (`make bench`); this slice keeps CI
fast while still reaching every K, a unique solution and a many-solution
test at each size. No timing is asserted: only the solution sets.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions
from plpuzzle.sudoku.engines import ENGINES, Engine, make_engine

# Official tests up to K=5 through both engines: `make test-all`.
pytestmark = [pytest.mark.slow]

# Per K (2..6): a test with one solution, then the one with the most
# solutions among those the course's own Prolog solver did in under 1 s.
SLICE = {
    2: ("test001", "test022"),
    3: ("test025", "test098"),
    4: ("test100", "test169"),
    5: ("test174", "test238"),
    6: ("test248", "test257"),
}
CASES = [(k, name) for k, names in SLICE.items() for name in names]


@pytest.fixture(scope="module", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    engine = make_engine(request.param)
    yield engine
    engine.close()


@pytest.mark.parametrize(("k", "name"), CASES, ids=[name for _, name in CASES])
def test_official_slice(official_suite: Path, engine: Engine, k: int, name: str) -> None:
    puzzle = load_puzzle(official_suite / f"{name}d.txt")
    expected = load_solutions(official_suite / f"{name}s.txt")
    assert puzzle.k == k
    result = engine.solve(puzzle, Rules.ODDSUM, 300)
    assert result.clean, result.message
    assert sorted(result.solutions) == expected
