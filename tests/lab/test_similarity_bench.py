"""The lab's similarity benchmark: its synthetic class is real Prolog, and
a class of 400 is compared in seconds (the figure is printed; the bound
asserted is generous, so that a busy machine does not fail it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from plpuzzle.sudoku.grading import similarity
from plpuzzle_lab import similarity_bench


def test_the_synthetic_class_reads_as_prolog(tmp_path: Path) -> None:
    klass = similarity_bench.synthetic_class(tmp_path / "class", students=12, seed=7)
    assert len(list(klass.glob("*.pl"))) == 12
    sim, left_out = similarity.compare_class(klass)
    assert left_out == []
    assert {c.how for c in sim.handins} == {"prolog"}
    assert (
        similarity_bench.synthetic_class(tmp_path / "again", 12, 7).joinpath("s000.pl").read_text()
        == (klass / "s000.pl").read_text()
    )  # the same seed, the same class


@pytest.mark.slow
def test_a_class_of_400_is_compared_and_the_times_printed(tmp_path: Path) -> None:
    """The bench of the similarity report: its figures are printed (a speed
    target is the bench's, never an assertion here)."""
    figures = similarity_bench.run(tmp_path, students=400, jobs=2)
    print("\n" + "\n".join(figures.lines()))
    assert figures.students == 400
    assert figures.above > 0
