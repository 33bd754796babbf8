"""Gecode and Choco, the bench's classical peers (plpuzzle_lab.peers): their
plain model finds exactly the expected solutions, and the time limit stops
them. Each test skips when its peer is not installed here."""

from __future__ import annotations

from pathlib import Path

import pytest

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import parse_puzzle
from plpuzzle.sudoku.runs.suite import Verdict, discover, judge, load_case
from plpuzzle_lab import peers

REPO = Path(__file__).resolve().parents[2]

#: Small puzzles with their expected files: (folder, test, rules).
CASES = (
    ("puzzles/sudoku/consecutive", "test002", Rules.CONSECUTIVE),  # K=2, 4 solutions
    ("bench/stress/consecutive", "test007", Rules.CONSECUTIVE),  # K=7, 2 solutions
    ("bench/stress/oddsum", "test002", Rules.ODDSUM),  # K=4, 384 solutions
)


def _peer(name: str) -> peers.PeerEngine:
    why = peers.missing_peers().get(name)
    if why is not None:
        pytest.skip(f"{name} cannot run here: {why}")
    return peers.make_peer(name)


@pytest.mark.parametrize("name", peers.PEER_NAMES)
@pytest.mark.parametrize(("folder", "test", "rules"), CASES)
def test_the_peers_find_exactly_the_expected_solutions(
    name: str, folder: str, test: str, rules: Rules
) -> None:
    (case,) = discover(REPO / folder, test)
    puzzle, expected = load_case(case)
    assert expected
    with _peer(name) as engine:
        result = engine.solve(puzzle, rules, 60.0)
    assert result.status is Status.OK, result.message
    assert result.engine == name
    assert sorted(result.solutions) == sorted(expected)
    # The bench's own judge agrees (each solution once, none malformed).
    assert judge(case, puzzle, expected, [result], rules).verdict is Verdict.CORRECT
    assert 0 <= result.cpu_seconds < 60
    assert engine.peak_rss_kb is not None and engine.peak_rss_kb > 1000


@pytest.mark.parametrize("name", peers.PEER_NAMES)
def test_a_peer_is_stopped_at_its_cpu_time_limit(name: str) -> None:
    """An empty 9x9 grid has billions of solutions: no peer finishes."""
    empty = parse_puzzle("3\n" + "\n".join(" ".join("-" * 9) for _ in range(9)) + "\n")
    with _peer(name) as engine:
        result = engine.solve(empty, Rules.ODDSUM, 0.3)
    assert result.status is Status.TIMEOUT
    assert "CPU-time limit of 0.3 s" in result.message
    assert result.cpu_seconds >= 0.3
    assert result.wall_seconds < 10  # stopped by its CPU time, not the backstop


def test_a_peer_that_cannot_run_is_named_with_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(peers.shutil, "which", lambda _name: None)
    monkeypatch.setattr(peers, "find_spec", lambda _name: None)
    missing = peers.missing_peers()
    assert set(missing) == {"gecode", "choco"}
    assert "apt-get install flatzinc" in missing["gecode"]
    assert "./lab[peers]" in missing["choco"]
    assert peers.peer_versions() == {}


def test_an_unknown_peer_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown peer 'minion'"):
        peers.make_peer("minion")
