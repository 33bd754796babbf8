"""`python -m plpuzzle_lab diagnose`: our propagators under Gecode's search
explore Gecode's tree node for node, which is what lets the diagnosis read
the difference as cost per node. Skips where Gecode is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle_lab import peers
from plpuzzle_lab.cli import lab
from plpuzzle_lab.diagnose import diagnose, suite_label

REPO = Path(__file__).resolve().parents[2]

needs_gecode = pytest.mark.skipif(
    "gecode" in peers.missing_peers(), reason="fzn-gecode is not installed"
)


@needs_gecode
@pytest.mark.parametrize(
    ("puzzle", "rules"),
    [
        ("bench/consecutive/test003d.txt", Rules.CONSECUTIVE),  # K=2, 72 solutions
        ("bench/consecutive/test006d.txt", Rules.CONSECUTIVE),  # K=3, 68 failures
        ("bench/stress/oddsum/test002d.txt", Rules.ODDSUM),  # K=4, 384 solutions
    ],
)
def test_our_propagation_explores_gecodes_tree_node_for_node(puzzle: str, rules: Rules) -> None:
    d = diagnose(REPO / puzzle, rules, limit=60.0)
    assert d.gecode_nodes is not None and d.same_nodes is not None
    assert d.gecode_nodes > 1
    assert (d.same_nodes, d.same_failures) == (d.gecode_nodes, d.gecode_failures)
    # Our full model keeps no more values at the root than the plain one.
    assert 0 < d.full_left <= d.plain_left
    assert d.ours_seconds is not None and d.same_seconds is not None


def test_puzzles_are_named_by_the_bench_suite_they_are_in() -> None:
    assert suite_label(REPO / "bench/stress/oddsum/test002d.txt") == "stress-oddsum"
    assert suite_label(REPO / "bench/consecutive/test003d.txt") == "consecutive"


@needs_gecode
def test_the_command_prints_a_table_and_refuses_a_missing_puzzle(tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(lab, ["diagnose", str(REPO / "bench/consecutive/test003d.txt")])
    assert done.exit_code == 0, done.output
    rows = [line for line in done.output.splitlines() if line.startswith("| consecutive/")]
    assert len(rows) == 1 and "| 143 / 0 | 143 / 0 |" in rows[0]
    missing = runner.invoke(lab, ["diagnose", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2
    assert "no such puzzle" in missing.output
