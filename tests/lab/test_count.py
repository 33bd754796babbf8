"""`python -m plpuzzle_lab count`: the trees of three searches, counted.

The counts must come from the searches as they run: every search finds
the puzzle's solutions, a tree has at least a node per solution, and the
Python engine's tree adds up (nodes = branched + leaves + failures)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle_lab import peers
from plpuzzle_lab.cli import lab
from plpuzzle_lab.count import gecode, ours, python

REPO = Path(__file__).resolve().parents[2]

needs_gecode = pytest.mark.skipif(
    "gecode" in peers.missing_peers(), reason="fzn-gecode is not installed"
)


@pytest.mark.parametrize(
    ("puzzle", "rules", "solutions"),
    [
        ("bench/consecutive/test006d.txt", Rules.CONSECUTIVE, 205),  # first-fail only
        ("bench/stress/oddsum/test002d.txt", Rules.ODDSUM, 384),  # parities, then halves
    ],
)
def test_our_tree_and_the_python_engines_are_counted(
    puzzle: str, rules: Rules, solutions: int
) -> None:
    path = REPO / puzzle
    mine, theirs = ours(path, rules, 120.0), python(path, rules, 120.0)
    assert mine is not None and theirs is not None
    assert mine.solutions == theirs.solutions == solutions
    for tree in (mine, theirs):
        assert 0 <= tree.failures < tree.nodes
        assert tree.trials is not None and tree.trial_failures is not None
        assert 0 <= tree.trial_failures <= tree.trials
    # Under consecutive each leaf is a solution, so the nodes that lived
    # are at least the solutions.
    if rules is Rules.CONSECUTIVE:
        assert mine.nodes - mine.failures >= solutions
        assert theirs.nodes - theirs.failures >= solutions


def test_a_puzzle_propagation_solves_is_one_node(tmp_path: Path) -> None:
    path = tmp_path / "test001d.txt"
    path.write_text("2\n2 1 4 3\n3 4 2 1\n4 3 1 2\n1 2 3 4\n")
    tree = ours(path, Rules.CONSECUTIVE, 60.0)
    assert tree is not None
    assert (tree.solutions, tree.nodes, tree.failures, tree.trials) == (1, 1, 0, 0)


@needs_gecode
def test_the_command_prints_a_row_per_puzzle_with_gecodes_counts() -> None:
    path = REPO / "bench/consecutive/test003d.txt"
    tree = gecode(path, Rules.CONSECUTIVE, 60.0)
    assert tree is not None and tree.solutions == 72 and tree.nodes > 1
    out = CliRunner().invoke(lab, ["count", str(path)])
    assert out.exit_code == 0, out.output
    row = next(line for line in out.output.splitlines() if "consecutive/test003" in line)
    assert f"| {tree.nodes:,} / {tree.failures:,} |" in row
    assert "| 72 |" in row
